/* SPDX-License-Identifier: ISC */
/*
 * The validators of the messages a monitor sends to its worker: linked by
 * the worker (which checks its monitor too, to catch monitor bugs) and by
 * the test tools, never by the monitor.  The header, length and descriptor
 * rules of every type are msg.c's table; each function here checks every
 * body field of one type.
 */
#include <string.h>

#include "msg_check.h"

static enum pr_msg_err no_fields(const struct pr_msg *m, int have_fd)
{
	return PR_MSG_OK;
}

/* An errno value as the monitor reports one. */
static int errno_ok(int32_t e) { return e >= 0 && e < 4096; }

/* A stat record: known file type, sane nanoseconds. */
static int stat_ok(const struct pr_stat *st)
{
	return pr_mode_ok(st->mode) && st->mtime_nsec < 1000000000u && st->atime_nsec < 1000000000u;
}

/* A charset name: printable ASCII, no blank ("" = none). */
static int charset_ok(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

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
	if (!pr_bool_ok(b->has_motd) || (int)b->has_motd != have_fd)
		return PR_MSG_EBADFD;
	if (b->max_protocol < 27 || b->max_protocol > 32)
		return PR_MSG_EBADFIELD;
	if (b->bwlimit > PR_BWLIMIT_MAX)
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

static enum pr_msg_err v_modlist(const struct pr_msg *m, int have_fd)
{
	if (!STR_OK(m->u.modlist.name) || !STR_OK(m->u.modlist.comment))
		return PR_MSG_EBADSTR;
	if (m->u.modlist.name.len == 0)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_select(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_select *b = &m->u.select;

	if (!STR_OK(b->module) || !STR_OK(b->error) || !STR_OK(b->dont_compress) || !STR_OK(b->refuse) ||
	    !STR_OK(b->outgoing_chmod) || !STR_OK(b->charset))
		return PR_MSG_EBADSTR;
	if (!pr_bool_ok(b->read_only) || !pr_bool_ok(b->numeric_ids) || !pr_bool_ok(b->write_only) ||
	    !pr_bool_ok(b->ignore_errors) || b->max_verbosity > PR_VERBOSITY_MAX || b->chmod_umask > 0777 ||
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

/* Every entry must be a single, clean path component with a sane stat. */
static enum pr_msg_err v_list(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_list *b = &m->u.list;
	struct pr_dirent d;
	size_t off = 0;
	uint32_t n = 0;
	int r;

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
	return errno_ok(m->u.list_end.err) ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_mstat(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_stat *b = &m->u.mstat;

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

static enum pr_msg_err v_readlink(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_readlink *b = &m->u.readlink;

	if (!STR_OK(b->target))
		return PR_MSG_EBADSTR;
	if (!errno_ok(b->err) || (b->err == 0) != (b->target.len > 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_midname(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_idname *b = &m->u.midname;

	if (!STR_OK(b->name))
		return PR_MSG_EBADSTR;
	if (!pr_bool_ok(b->found) || (b->found == 1) != (b->name.len > 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_authreq(const struct pr_msg *m, int have_fd)
{
	const struct pr_str_name *c = &m->u.authreq.challenge;
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	if (!STR_OK(*c))
		return PR_MSG_EBADSTR;
	if (m->u.authreq.timeout < 1 || m->u.authreq.timeout > 3600)
		return PR_MSG_EBADFIELD;
	return c->len >= 22 && c->len <= PR_CHALLENGE_MAX && strspn(c->s, b64) == c->len ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_xferlog(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_xferlog *b = &m->u.xferlog;

	if (!STR_OK(b->format) || !STR_OK(b->host) || !STR_OK(b->addr) || !STR_OK(b->user) ||
	    !STR_OK(b->module) || !STR_OK(b->path))
		return PR_MSG_EBADSTR;
	if (!pr_bool_ok(b->files) || b->pid < 1 || b->pid > INT32_MAX)
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
}

static enum pr_msg_err v_xattr(const struct pr_msg *m, int have_fd)
{
	return m->u.xattr.used >= 1 && m->u.xattr.used <= PR_XATTR_DATA ? PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err v_xattr_end(const struct pr_msg *m, int have_fd)
{
	const struct pr_m_xattr_end *b = &m->u.xattr_end;

	if (!errno_ok(b->err) || b->count > PR_XATTR_COUNT_MAX || b->total > PR_XATTR_TOTAL_MAX ||
	    (b->err != 0 && (b->count != 0 || b->total != 0)) || (b->count == 0) != (b->total == 0))
		return PR_MSG_EBADFIELD;
	return PR_MSG_OK;
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
			    !pr_all_zero((const unsigned char *)&e->st, sizeof(e->st)))
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

static const struct pr_msg_check checks[] = {
	{ PR_M_INIT, v_init },
	{ PR_M_MODLIST, v_modlist },
	{ PR_M_MODLIST_END, no_fields },
	{ PR_M_SELECT, v_select },
	{ PR_M_LIST, v_list },
	{ PR_M_LIST_END, v_list_end },
	{ PR_M_STAT, v_mstat },
	{ PR_M_READLINK, v_readlink },
	{ PR_M_IDNAME, v_midname },
	{ PR_M_AUTHREQ, v_authreq },
	{ PR_M_XFERLOG, v_xferlog },
	{ PR_M_XATTR, v_xattr },
	{ PR_M_XATTR_END, v_xattr_end },
	{ PR_M_OPENV, v_mopenv },
};

enum pr_msg_err pr_msg_validate_m2w(const struct pr_msg *m, int nfds)
{
	return pr_msg_check(m, PR_DIR_TO_WORKER, nfds, checks, sizeof(checks) / sizeof(checks[0]));
}
