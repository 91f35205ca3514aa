/*
 * The validators of the messages a worker sends to its monitor: the only
 * ones the monitor links (it never receives the other direction's), so
 * the code a compromised worker can reach stays what it must be.  The
 * header, length and descriptor rules of every type are msg.c's table;
 * each function here checks every body field of one type.
 */
#include <string.h>

#include "msg_check.h"

static enum pr_msg_err no_fields(const struct pr_msg *m, int have_fd)
{
	return PR_MSG_OK;
}

static enum pr_msg_err v_ready(const struct pr_msg *m, int have_fd)
{
	if (m->u.ready.pid == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_log(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.log.text))
		return PR_MSG_EBADSTR;
	if (m->u.log.level < PR_LOG_ERR || m->u.log.level > PR_LOG_DEBUG)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_wselect(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.wselect.module))
		return PR_MSG_EBADSTR;
	if (m->u.wselect.module.len == 0 || strchr(m->u.wselect.module.s, '\n') != NULL)
		return PR_MSG_EBADFIELD; /* a name is one request line; its @ERROR echo must be too */
	return PR_MSG_OK;
}

static enum pr_msg_err v_hello(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.hello.digests) || memchr(m->u.hello.digests.s, '\n', m->u.hello.digests.len))
		return PR_MSG_EBADSTR;
	return m->u.hello.protocol >= 27 && m->u.hello.protocol <= 32 ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_auth(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.auth.line) || memchr(m->u.auth.line.s, '\n', m->u.auth.line.len))
		return PR_MSG_EBADSTR;
	return PR_MSG_OK;
}

static enum pr_msg_err v_exit(const struct pr_msg *m, int have_fd)
{
	if (m->u.exit.code > 255)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_path(const struct pr_msg *m, int have_fd)
{
	return RELPATH_OK(m->u.path.path) ? PR_MSG_OK : PR_MSG_EBADSTR;
}

static enum pr_msg_err v_stat(const struct pr_msg *m, int have_fd)
{
	if (!RELPATH_OK(m->u.stat.path))
		return PR_MSG_EBADSTR;
	return (m->u.stat.flags & ~PR_STAT_FOLLOW) ? PR_MSG_EBADFIELD : PR_MSG_OK;
}

static enum pr_msg_err v_close(const struct pr_msg *m, int have_fd)
{
	return m->u.close.handle != 0 ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_idname(const struct pr_msg *m, int have_fd)
{
	return (m->u.idname.kind == PR_ID_USER || m->u.idname.kind == PR_ID_GROUP) ?
	       PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_start(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.start.request))
		return PR_MSG_EBADSTR;
	return pr_bool_ok(m->u.start.sender) ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_xfer(const struct pr_msg *m, int have_fd)
{
	const struct pr_w_xfer *b = &m->u.xfer;

	if (!STR_OK(b->path) || !STR_OK(b->target) || b->path.len == 0)
		return PR_MSG_EBADSTR;
	if (b->iflags > 0xffffu || !pr_mode_ok(b->mode) || (b->flags & ~PR_XFER_FLAGS_ALL) ||
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

static enum pr_msg_err v_openv(const struct pr_msg *m, int have_fd)
{
	const struct pr_w_openv *b = &m->u.openv;
	const char *path;
	size_t off = 0, len;
	uint32_t n = 0;
	int r;

	if (!closed_ok(b->nclosed, b->closed))
		return PR_MSG_EBADFIELD;
	if (b->count < 1 || b->count > PR_OPENV_MAX || b->used > sizeof(b->data) ||
	    !pr_all_zero(b->data + b->used, sizeof(b->data) - b->used))
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
	return m->u.closev.nclosed >= 1 && closed_ok(m->u.closev.nclosed, m->u.closev.closed) ?
	       PR_MSG_OK : PR_MSG_EBADFIELD;
}

static const struct pr_msg_check checks[] = {
	{ PR_W_READY, v_ready },
	{ PR_W_LOG, v_log },
	{ PR_W_MODLIST, no_fields },
	{ PR_W_SELECT, v_wselect },
	{ PR_W_EXIT, v_exit },
	{ PR_W_LIST, v_path },
	{ PR_W_STAT, v_stat },
	{ PR_W_OPEN, v_path },
	{ PR_W_CLOSE, v_close },
	{ PR_W_READLINK, v_path },
	{ PR_W_IDNAME, v_idname },
	{ PR_W_AUTH, v_auth },
	{ PR_W_HELLO, v_hello },
	{ PR_W_START, v_start },
	{ PR_W_XFER, v_xfer },
	{ PR_W_XATTR, v_stat },
	{ PR_W_OPENV, v_openv },
	{ PR_W_CLOSEV, v_closev },
};

enum pr_msg_err pr_msg_validate_w2m(const struct pr_msg *m, int nfds)
{
	return pr_msg_check(m, PR_DIR_TO_MONITOR, nfds, checks, sizeof(checks) / sizeof(checks[0]));
}
