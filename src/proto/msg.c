/*
 * Validation of monitor<->worker messages.  Shared by both sides: the
 * monitor uses it to distrust the worker, the worker to catch monitor bugs.
 * The table below is the single place that says, per type, how long the
 * body is, who may send it and whether it may carry a descriptor.
 */
#include <string.h>

#include "msg.h"

/* have_fd: how many descriptors arrived, never more than the row's fds. */
typedef enum pr_msg_err (*validator_fn)(const struct pr_msg *m, int have_fd);

struct msg_row {
	uint16_t type;
	const char *name;
	enum pr_msg_dir dir;
	uint32_t len;
	unsigned fds;      /* descriptors it may carry: 0, 1, or up to PR_MSG_FDS_MAX */
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
	if (b->sandbox_mode == PR_SANDBOX_ROOT &&
	    (b->worker_uid == 0 || b->worker_gid == 0 ||
	     b->worker_uid == UINT32_MAX || b->worker_gid == UINT32_MAX))
		return PR_MSG_EBADFIELD;
	if (b->handshake_timeout < 1 || b->handshake_timeout > 3600)
		return PR_MSG_EBADFIELD;
	if (!bool_ok(b->has_motd) || (int)b->has_motd != have_fd)
		return PR_MSG_EBADFD;
	if (b->max_protocol < 27 || b->max_protocol > 32)
		return PR_MSG_EBADFIELD;
	if (b->chroot_dir.s[0] != '/' || strstr(b->chroot_dir.s, "/..") != NULL)
		return PR_MSG_EBADFIELD;
	if (!STR_OK(b->charsets))
		return PR_MSG_EBADSTR;
	for (const char *c = b->charsets.s; *c; c++)
		if (*c < ' ' || *c > '~' || (*c == ' ' && (c == b->charsets.s || c[1] == ' ' || c[1] == '\0')))
			return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

/* A charset name: printable ASCII, no blank ("" = none). */
static int charset_ok(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
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
	if (!STR_OK(b->module) || !STR_OK(b->error) || !STR_OK(b->dont_compress) || !STR_OK(b->refuse) ||
	    !STR_OK(b->outgoing_chmod) || !STR_OK(b->charset))
		return PR_MSG_EBADSTR;
	if (!bool_ok(b->read_only) || !bool_ok(b->numeric_ids) || !bool_ok(b->write_only) ||
	    !bool_ok(b->ignore_errors) || b->max_verbosity > PR_VERBOSITY_MAX || b->chmod_umask > 0777 ||
	    !charset_ok(b->charset.s) || (b->module_flags & ~PR_MOD_ALL))
		return PR_MSG_EBADFIELD;
	switch (b->status) {
	case PR_SELECT_OK:
		if (b->module.len == 0 || b->error.len != 0 || b->timeout > PR_TIMEOUT_MAX ||
		    b->args_timeout < 1 || b->args_timeout > 3600)
			return PR_MSG_EBADFIELD;
		return PR_MSG_OK;
	case PR_SELECT_ERROR:
		if (b->error.len == 0 || strncmp(b->error.s, "@ERROR: ", 8) != 0 ||
		    strchr(b->error.s, '\n') != NULL || b->module.len != 0 || b->read_only != 0 ||
		    b->numeric_ids != 0 || b->dont_compress.len != 0 || b->write_only != 0 ||
		    b->ignore_errors != 0 || b->max_verbosity != 0 || b->chmod_umask != 0 || b->refuse.len != 0 ||
		    b->outgoing_chmod.len != 0 || b->charset.len != 0 || b->module_flags != 0 || b->timeout != 0 ||
		    b->args_timeout != 0)
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
	if (m->u.wselect.module.len == 0 || strchr(m->u.wselect.module.s, '\n') != NULL)
		return PR_MSG_EBADFIELD; /* a name is one request line; its @ERROR echo must be too */
	return PR_MSG_OK;
}

static enum pr_msg_err v_hello(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.hello.digests) || memchr(m->u.hello.digests.s, '\n', m->u.hello.digests.len))
		return PR_MSG_EBADSTR;
	return m->u.hello.protocol >= 27 && m->u.hello.protocol <= 32 ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_authreq(const struct pr_msg *m, int have_fd)
{
	const struct pr_str_name *c = &m->u.authreq.challenge;
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	(void)have_fd;
	if (!STR_OK(*c))
		return PR_MSG_EBADSTR;
	return c->len >= 22 && c->len <= PR_CHALLENGE_MAX && strspn(c->s, b64) == c->len ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_auth(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.auth.line) || memchr(m->u.auth.line.s, '\n', m->u.auth.line.len))
		return PR_MSG_EBADSTR;
	return PR_MSG_OK;
}

static enum pr_msg_err v_exit(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (m->u.exit.code > 255)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}


int pr_relpath_ok(const char *s, size_t len)
{
	size_t start = 0;

	if (len >= PR_RELPATH_MAX || s[len] != '\0' || memchr(s, '\0', len) != NULL)
		return 0;
	if (len == 0)
		return 1;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '/')
			continue;
		size_t clen = i - start;
		if (clen == 0 || clen > 255)
			return 0;
		if (s[start] == '.' && (clen == 1 || (clen == 2 && s[start + 1] == '.')))
			return 0;
		start = i + 1;
	}
	return 1;
}

#define RELPATH_OK(f) ((f).len < sizeof((f).s) && pr_relpath_ok((f).s, (f).len))

/* A known file type and no bits above them. */
static int mode_ok(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0140000: case 0120000: case 0100000: case 0060000:
	case 0040000: case 0020000: case 0010000:
		return (mode & ~0177777u) == 0;
	default:
		return 0;
	}
}

/* A stat record: known file type, sane nanoseconds. */
static int stat_ok(const struct pr_stat *st)
{
	return mode_ok(st->mode) && st->mtime_nsec < 1000000000u && st->atime_nsec < 1000000000u;
}

static int errno_ok(int32_t e) { return e >= 0 && e < 4096; }

static enum pr_msg_err v_path(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return RELPATH_OK(m->u.path.path) ? PR_MSG_OK : PR_MSG_EBADSTR;
}

static enum pr_msg_err v_stat(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!RELPATH_OK(m->u.stat.path))
		return PR_MSG_EBADSTR;
	return (m->u.stat.flags & ~PR_STAT_FOLLOW) ? PR_MSG_EBADFIELD : PR_MSG_OK;
}

int pr_list_next(const struct pr_m_list *b, size_t *off, struct pr_dirent *out)
{
	struct pr_dirent_hdr h;
	size_t pos = *off;

	if (pos == b->used)
		return 0;
	if (b->used > sizeof(b->data) || pos > b->used || b->used - pos < sizeof(h))
		return -1;
	memcpy(&h, b->data + pos, sizeof(h));
	pos += sizeof(h);
	if (h.name_len == 0 || h.name_len > 255 || h.link_len > PR_LINK_INLINE_MAX ||
	    (size_t)h.name_len + h.link_len > b->used - pos)
		return -1;
	out->st = h.st;
	out->err = h.err;
	out->link_state = h.link_state;
	out->name = (const char *)b->data + pos;
	out->name_len = h.name_len;
	out->link = out->name + h.name_len;
	out->link_len = h.link_len;
	*off = pos + h.name_len + h.link_len;
	return 1;
}

int pr_list_add(struct pr_m_list *b, const struct pr_stat *st, int32_t err,
		const char *name, size_t name_len, uint32_t link_state,
		const char *link, size_t link_len)
{
	struct pr_dirent_hdr h;
	size_t need = sizeof(h) + name_len + link_len;

	if (name_len == 0 || name_len > 255 || link_len > PR_LINK_INLINE_MAX ||
	    b->used > sizeof(b->data) || need > sizeof(b->data) - b->used)
		return -1;
	memset(&h, 0, sizeof(h));
	h.st = *st;
	h.err = err;
	h.name_len = (uint16_t)name_len;
	h.link_len = (uint16_t)link_len;
	h.link_state = link_state;
	memcpy(b->data + b->used, &h, sizeof(h));
	memcpy(b->data + b->used + sizeof(h), name, name_len);
	if (link_len)
		memcpy(b->data + b->used + sizeof(h) + name_len, link, link_len);
	b->used += (uint32_t)need;
	b->count++;
	return 0;
}

/* Every entry must be a single, clean path component with a sane stat. */
static enum pr_msg_err v_list(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_list *b = &m->u.list;
	struct pr_dirent d;
	size_t off = 0;
	uint32_t n = 0;
	int r;

	(void)have_fd;
	if (b->used > sizeof(b->data))
		return PR_MSG_EBADFIELD;
	while ((r = pr_list_next(b, &off, &d)) == 1) {
		if (memchr(d.name, '/', d.name_len) || memchr(d.name, '\0', d.name_len) ||
		    (d.name[0] == '.' && (d.name_len == 1 || (d.name_len == 2 && d.name[1] == '.'))))
			return PR_MSG_EBADSTR;
		if (!errno_ok(d.err) || d.link_state > PR_LINK_ERROR)
			return PR_MSG_EBADFIELD;
		if (d.err == 0 && !stat_ok(&d.st))
			return PR_MSG_EBADFIELD;
		if ((d.link_state == PR_LINK_INLINE) != (d.link_len > 0) ||
		    memchr(d.link, '\0', d.link_len))
			return PR_MSG_EBADSTR;
		if ((d.link_state != PR_LINK_NONE) != (d.err == 0 && (d.st.mode & 0170000) == 0120000))
			return PR_MSG_EBADFIELD;
		n++;
	}
	if (r < 0 || n != b->count || n == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_list_end(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return errno_ok(m->u.list_end.err) ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_mstat(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_stat *b = &m->u.mstat;

	(void)have_fd;
	if (!STR_OK(b->link))
		return PR_MSG_EBADSTR;
	if (!errno_ok(b->err) || b->link_state > PR_LINK_ERROR)
		return PR_MSG_EBADFIELD;
	if (b->err != 0)
		return b->link_state == PR_LINK_NONE && b->link.len == 0 ? PR_MSG_OK : PR_MSG_EBADFIELD;
	if (!stat_ok(&b->st) || (b->link_state == PR_LINK_INLINE) != (b->link.len > 0) ||
	    b->link.len > PR_LINK_INLINE_MAX)
		return PR_MSG_EBADFIELD;
	if ((b->link_state != PR_LINK_NONE) != ((b->st.mode & 0170000) == 0120000))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_open(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_open *b = &m->u.open;

	if (!errno_ok(b->err) || (b->err == 0) != (have_fd != 0))
		return PR_MSG_EBADFD;
	if (b->err == 0 && (!stat_ok(&b->st) || (b->st.mode & 0170000) != 0100000 || b->handle == 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_close(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return m->u.close.handle != 0 ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_readlink(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_readlink *b = &m->u.readlink;

	(void)have_fd;
	if (!STR_OK(b->target))
		return PR_MSG_EBADSTR;
	if (!errno_ok(b->err) || (b->err == 0) != (b->target.len > 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_idname(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return (m->u.idname.kind == PR_ID_USER || m->u.idname.kind == PR_ID_GROUP) ?
	       PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_midname(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_idname *b = &m->u.midname;

	(void)have_fd;
	if (!STR_OK(b->name))
		return PR_MSG_EBADSTR;
	if (!bool_ok(b->found) || (b->found == 1) != (b->name.len > 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_start(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	if (!STR_OK(m->u.start.request))
		return PR_MSG_EBADSTR;
	return bool_ok(m->u.start.sender) ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_xferlog(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_xferlog *b = &m->u.xferlog;

	(void)have_fd;
	if (!bool_ok(b->files) || !bool_ok(b->itemized) || (b->itemized && !b->files))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_xfer(const struct pr_msg *m, int have_fd)
{
	const struct pr_w_xfer *b = &m->u.xfer;

	(void)have_fd;
	if (!STR_OK(b->path) || !STR_OK(b->target) || b->path.len == 0)
		return PR_MSG_EBADSTR;
	if (b->iflags > 0xffffu || !mode_ok(b->mode) || (b->flags & ~PR_XFER_FLAGS_ALL) ||
	    b->sum_len < 1 || b->sum_len > PR_XFER_SUM_MAX || b->name_off > b->path.len ||
	    b->length > INT64_MAX || b->bytes > INT64_MAX || b->sum_bytes > INT64_MAX)
		return PR_MSG_EBADFIELD;
	if ((b->flags & PR_XFER_SUM) && (b->mode & 0170000) != 0100000)
		return PR_MSG_EBADFIELD;
	if (b->link > PR_XLINK_HARD || (b->link != PR_XLINK_NONE) != (b->target.len > 0) ||
	    (b->link == PR_XLINK_SYMLINK && (b->mode & 0170000) != 0120000))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_xattr(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return m->u.xattr.used >= 1 && m->u.xattr.used <= PR_XATTR_DATA ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_xattr_end(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_xattr_end *b = &m->u.xattr_end;

	(void)have_fd;
	if (!errno_ok(b->err) || b->count > PR_XATTR_COUNT_MAX || b->total > PR_XATTR_TOTAL_MAX ||
	    (b->err != 0 && (b->count != 0 || b->total != 0)) || (b->count == 0) != (b->total == 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

/* ---- batched opens ------------------------------------------------------- */

int pr_openv_next(const struct pr_w_openv *b, size_t *off, const char **path, size_t *len)
{
	size_t pos = *off;
	uint16_t n;

	if (pos == b->used)
		return 0;
	if (b->used > sizeof(b->data) || pos > b->used || b->used - pos < sizeof(n) + 1)
		return -1;
	memcpy(&n, b->data + pos, sizeof(n));
	pos += sizeof(n);
	if ((size_t)n + 1 > b->used - pos || b->data[pos + n] != '\0')
		return -1;
	*path = (const char *)b->data + pos;
	*len = n;
	*off = pos + n + 1;
	return 1;
}

int pr_openv_add(struct pr_w_openv *b, const char *path)
{
	size_t n = strlen(path);
	uint16_t n16 = (uint16_t)n;

	if (n >= PR_RELPATH_MAX || b->count >= PR_OPENV_MAX || b->used > sizeof(b->data) ||
	    sizeof(n16) + n + 1 > sizeof(b->data) - b->used)
		return -1;
	memcpy(b->data + b->used, &n16, sizeof(n16));
	memcpy(b->data + b->used + sizeof(n16), path, n + 1);
	b->used += (uint32_t)(sizeof(n16) + n + 1);
	b->count++;
	return 0;
}

/* A list of closed handles: nonzero up to n, zero after (no stray data). */
static int closed_ok(uint32_t n, const uint32_t *h)
{
	if (n > PR_CLOSEV_MAX)
		return 0;
	for (uint32_t i = 0; i < PR_CLOSEV_MAX; i++)
		if ((i < n) != (h[i] != 0))
			return 0;
	return 1;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

static enum pr_msg_err v_openv(const struct pr_msg *m, int have_fd)
{
	const struct pr_w_openv *b = &m->u.openv;
	const char *path;
	size_t off = 0, len;
	uint32_t n = 0;
	int r;

	(void)have_fd;
	if (!closed_ok(b->nclosed, b->closed))
		return PR_MSG_EBADFIELD;
	if (b->count < 1 || b->count > PR_OPENV_MAX || b->used > sizeof(b->data) ||
	    !all_zero(b->data + b->used, sizeof(b->data) - b->used))
		return PR_MSG_EBADFIELD;
	while ((r = pr_openv_next(b, &off, &path, &len)) == 1) {
		if (!pr_relpath_ok(path, len))
			return PR_MSG_EBADSTR;
		n++;
	}
	return r == 0 && n == b->count ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_closev(const struct pr_msg *m, int have_fd)
{
	(void)have_fd;
	return m->u.closev.nclosed >= 1 && closed_ok(m->u.closev.nclosed, m->u.closev.closed) ?
	       PR_MSG_OK : PR_MSG_EBADFIELD;
}

/* One answer per path asked; a descriptor for each success, nothing in an
 * error's answer or after count; handles distinct. */
static enum pr_msg_err v_mopenv(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_openv *b = &m->u.mopenv;
	uint32_t ok = 0;

	if (b->count < 1 || b->count > PR_OPENV_MAX)
		return PR_MSG_EBADFIELD;
	for (uint32_t i = 0; i < PR_OPENV_MAX; i++) {
		const struct pr_openv_ent *e = &b->e[i];

		if (i >= b->count || e->err != 0) {
			if ((i >= b->count && e->err != 0) || !errno_ok(e->err) || e->handle != 0 ||
			    !all_zero((const unsigned char *)&e->st, sizeof(e->st)))
				return PR_MSG_EBADFIELD;
			continue;
		}
		if (!stat_ok(&e->st) || (e->st.mode & 0170000) != 0100000 || e->handle == 0)
			return PR_MSG_EBADFIELD;
		for (uint32_t j = 0; j < i; j++)
			if (b->e[j].err == 0 && b->e[j].handle == e->handle)
				return PR_MSG_EBADFIELD;
		ok++;
	}
	if (b->nfds != ok || (int)ok != have_fd)
		return PR_MSG_EBADFD;
	return PR_MSG_OK;
}

#define ROW(t, d, body, fds, fn) { t, #t, d, body, fds, fn }

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
	ROW(PR_M_LIST, PR_DIR_TO_WORKER, sizeof(struct pr_m_list), 0, v_list),
	ROW(PR_M_LIST_END, PR_DIR_TO_WORKER, sizeof(struct pr_m_list_end), 0, v_list_end),
	ROW(PR_M_STAT, PR_DIR_TO_WORKER, sizeof(struct pr_m_stat), 0, v_mstat),
	ROW(PR_M_OPEN, PR_DIR_TO_WORKER, sizeof(struct pr_m_open), 1, v_open),
	ROW(PR_M_READLINK, PR_DIR_TO_WORKER, sizeof(struct pr_m_readlink), 0, v_readlink),
	ROW(PR_M_IDNAME, PR_DIR_TO_WORKER, sizeof(struct pr_m_idname), 0, v_midname),
	ROW(PR_W_LIST, PR_DIR_TO_MONITOR, sizeof(struct pr_w_path), 0, v_path),
	ROW(PR_W_STAT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_stat), 0, v_stat),
	ROW(PR_W_OPEN, PR_DIR_TO_MONITOR, sizeof(struct pr_w_path), 0, v_path),
	ROW(PR_W_CLOSE, PR_DIR_TO_MONITOR, sizeof(struct pr_w_close), 0, v_close),
	ROW(PR_W_READLINK, PR_DIR_TO_MONITOR, sizeof(struct pr_w_path), 0, v_path),
	ROW(PR_W_IDNAME, PR_DIR_TO_MONITOR, sizeof(struct pr_w_idname), 0, v_idname),
	ROW(PR_M_AUTHREQ, PR_DIR_TO_WORKER, sizeof(struct pr_m_authreq), 0, v_authreq),
	ROW(PR_W_AUTH, PR_DIR_TO_MONITOR, sizeof(struct pr_w_auth), 0, v_auth),
	ROW(PR_W_HELLO, PR_DIR_TO_MONITOR, sizeof(struct pr_w_hello), 0, v_hello),
	ROW(PR_W_START, PR_DIR_TO_MONITOR, sizeof(struct pr_w_start), 0, v_start),
	ROW(PR_M_XFERLOG, PR_DIR_TO_WORKER, sizeof(struct pr_m_xferlog), 0, v_xferlog),
	ROW(PR_W_XFER, PR_DIR_TO_MONITOR, sizeof(struct pr_w_xfer), 0, v_xfer),
	ROW(PR_M_XATTR, PR_DIR_TO_WORKER, sizeof(struct pr_m_xattr), 0, v_xattr),
	ROW(PR_M_XATTR_END, PR_DIR_TO_WORKER, sizeof(struct pr_m_xattr_end), 0, v_xattr_end),
	ROW(PR_W_XATTR, PR_DIR_TO_MONITOR, sizeof(struct pr_w_stat), 0, v_stat),
	ROW(PR_M_OPENV, PR_DIR_TO_WORKER, sizeof(struct pr_m_openv), PR_OPENV_MAX, v_mopenv),
	ROW(PR_W_OPENV, PR_DIR_TO_MONITOR, sizeof(struct pr_w_openv), 0, v_openv),
	ROW(PR_W_CLOSEV, PR_DIR_TO_MONITOR, sizeof(struct pr_w_closev), 0, v_closev),
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

enum pr_msg_err pr_msg_validate(const struct pr_msg *m, enum pr_msg_dir dir, int nfds)
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
	if (nfds < 0 || flag_fd != (nfds != 0) || (unsigned)nfds > r->fds)
		return PR_MSG_EBADFD;
	return r->check(m, nfds);
}

void pr_msg_init(struct pr_msg *m, enum pr_msg_type type)
{
	const struct msg_row *r = row_for((uint16_t)type);

	/* Only the bytes the record carries: the rest of the union is never
	 * sent (and a small answer is not worth clearing 8 KiB for). */
	memset(m, 0, sizeof(m->h) + (r ? r->len : 0));
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

int pr_str_set_relpath(struct pr_str_relpath *d, const char *s)
{
	return set_counted(&d->len, d->s, sizeof(d->s), s);
}
