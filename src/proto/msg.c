/*
 * Validation of monitor<->worker messages.  Shared by both sides: the
 * monitor uses it to distrust the worker, the worker to catch monitor bugs.
 * The table below is the single place that says, per type, how long the
 * body is, who may send it and whether it may carry a descriptor.
 */
#include <string.h>

#include "msg.h"

typedef enum pr_msg_err (*validator_fn)(const struct pr_msg *m, int have_fd);

struct msg_row {
	uint16_t type;
	const char *name;
	enum pr_msg_dir dir;
	uint32_t len;
	int fd_allowed;
	validator_fn check;
};

/* A counted string is valid if its length fits, the byte at len is NUL and
 * no byte before it is NUL.  Bytes after the NUL are ignored (but zeroed
 * by senders through pr_msg_init). */
static int str_ok(uint16_t len, const char *s, size_t cap)
{
	if (len >= cap)
		return 0;
	if (s[len] != '\0')
		return 0;
	return memchr(s, '\0', len) == NULL;
}

#define STR_OK(f) str_ok((f).len, (f).s, sizeof((f).s))

static int bool_ok(uint32_t v) { return v == 0 || v == 1; }

static enum pr_msg_err v_init(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_init *b = &m->u.init;

	if (!STR_OK(b->chroot_dir) || !STR_OK(b->client_addr))
		return PR_MSG_EBADSTR;
	if (b->sandbox_mode != PR_SANDBOX_ROOT && b->sandbox_mode != PR_SANDBOX_USERNS)
		return PR_MSG_EBADFIELD;
	if (b->sandbox_mode == PR_SANDBOX_ROOT && (b->worker_uid == 0 || b->worker_gid == 0))
		return PR_MSG_EBADFIELD;
	if (b->handshake_timeout < 1 || b->handshake_timeout > 3600)
		return PR_MSG_EBADFIELD;
	if (!bool_ok(b->has_motd) || (int)b->has_motd != have_fd)
		return PR_MSG_EBADFD;
	if (b->max_protocol < 27 || b->max_protocol > 32)
		return PR_MSG_EBADFIELD;
	if (b->chroot_dir.s[0] != '/' || strstr(b->chroot_dir.s, "/..") != NULL)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_modlist(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.modlist.name) || !STR_OK(m->u.modlist.comment))
		return PR_MSG_EBADSTR;
	if (m->u.modlist.name.len == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_empty(const struct pr_msg *m, int have_fd)
{
	(void)m;
	(void)have_fd;
	return PR_MSG_OK;
}

static enum pr_msg_err v_select(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_select *b = &m->u.select;

	(void)have_fd;
	if (!STR_OK(b->module) || !STR_OK(b->error))
		return PR_MSG_EBADSTR;
	if (!bool_ok(b->read_only))
		return PR_MSG_EBADFIELD;
	switch (b->status) {
	case PR_SELECT_OK:
		if (b->module.len == 0 || b->error.len != 0)
			return PR_MSG_EBADFIELD;
		return PR_MSG_OK;
	case PR_SELECT_ERROR:
		if (b->error.len == 0 || strncmp(b->error.s, "@ERROR", 6) != 0 ||
		    strchr(b->error.s, '\n') != NULL)
			return PR_MSG_EBADFIELD;
		return PR_MSG_OK;
	default:
		return PR_MSG_EBADFIELD;
	}
}

static enum pr_msg_err v_ready(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (m->u.ready.pid == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_log(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.log.text))
		return PR_MSG_EBADSTR;
	if (m->u.log.level < PR_LOG_ERR || m->u.log.level > PR_LOG_DEBUG)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_wselect(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.wselect.module))
		return PR_MSG_EBADSTR;
	if (m->u.wselect.module.len == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_exit(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (m->u.exit.code > 255)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

#define ROW(t, d, body, fd, fn) { t, #t, d, body, fd, fn }

static const struct msg_row rows[] = {
	ROW(PR_M_INIT, PR_DIR_TO_WORKER, sizeof(struct pr_m_init), 1, v_init),
	ROW(PR_M_MODLIST, PR_DIR_TO_WORKER, sizeof(struct pr_m_modlist), 0, v_modlist),
	ROW(PR_M_MODLIST_END, PR_DIR_TO_WORKER, 0, 0, v_empty),
	ROW(PR_M_SELECT, PR_DIR_TO_WORKER, sizeof(struct pr_m_select), 0, v_select),
	ROW(PR_W_READY, PR_DIR_TO_MONITOR, sizeof(struct pr_w_ready), 0, v_ready),
	ROW(PR_W_LOG, PR_DIR_TO_MONITOR, sizeof(struct pr_w_log), 0, v_log),
	ROW(PR_W_MODLIST, PR_DIR_TO_MONITOR, 0, 0, v_empty),
	ROW(PR_W_SELECT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_select), 0, v_wselect),
	ROW(PR_W_EXIT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_exit), 0, v_exit),
};

static const struct msg_row *row_for(uint16_t type)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].type == type)
			return &rows[i];
	return NULL;
}

const char *pr_msg_type_name(uint16_t type)
{
	const struct msg_row *r = row_for(type);
	return r ? r->name : "unknown";
}

const char *pr_msg_strerror(enum pr_msg_err e)
{
	switch (e) {
	case PR_MSG_OK: return "ok";
	case PR_MSG_EBADMAGIC: return "bad magic";
	case PR_MSG_EBADTYPE: return "unknown message type";
	case PR_MSG_EBADDIR: return "message sent in the wrong direction";
	case PR_MSG_EBADLEN: return "wrong body length for type";
	case PR_MSG_EBADFLAGS: return "bad header flags";
	case PR_MSG_EBADSEQ: return "out-of-sequence message";
	case PR_MSG_EBADSTR: return "malformed string field";
	case PR_MSG_EBADFIELD: return "field out of range";
	case PR_MSG_EBADFD: return "descriptor missing or unexpected";
	}
	return "unknown error";
}

enum pr_msg_err pr_msg_validate(const struct pr_msg *m, enum pr_msg_dir dir, int have_fd)
{
	const struct msg_row *r;
	int flag_fd;

	if (m->h.magic != PR_MSG_MAGIC)
		return PR_MSG_EBADMAGIC;
	r = row_for(m->h.type);
	if (r == NULL)
		return PR_MSG_EBADTYPE;
	if (r->dir != dir)
		return PR_MSG_EBADDIR;
	if (m->h.len != r->len)
		return PR_MSG_EBADLEN;
	if (m->h.flags & ~PR_F_ALL)
		return PR_MSG_EBADFLAGS;
	flag_fd = (m->h.flags & PR_F_FD) != 0;
	if (flag_fd != (have_fd != 0) || (flag_fd && !r->fd_allowed))
		return PR_MSG_EBADFD;
	return r->check(m, have_fd != 0);
}

void pr_msg_init(struct pr_msg *m, enum pr_msg_type type)
{
	const struct msg_row *r = row_for((uint16_t)type);

	memset(m, 0, sizeof(*m));
	m->h.magic = PR_MSG_MAGIC;
	m->h.type = (uint16_t)type;
	m->h.len = r ? r->len : 0;
}

static int set_counted(uint16_t *len, char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (n >= cap)
		return -1;
	memcpy(dst, s, n);
	memset(dst + n, 0, cap - n);
	*len = (uint16_t)n;
	return 0;
}

int pr_str_set_name(struct pr_str_name *d, const char *s)
{
	return set_counted(&d->len, d->s, sizeof(d->s), s);
}

int pr_str_set_text(struct pr_str_text *d, const char *s)
{
	return set_counted(&d->len, d->s, sizeof(d->s), s);
}

int pr_str_set_path(struct pr_str_path *d, const char *s)
{
	return set_counted(&d->len, d->s, sizeof(d->s), s);
}

void pr_str_set_text_trunc(struct pr_str_text *d, const char *s)
{
	size_t n = strnlen(s, sizeof(d->s) - 1);

	memcpy(d->s, s, n);
	memset(d->s + n, 0, sizeof(d->s) - n);
	d->len = (uint16_t)n;
}
