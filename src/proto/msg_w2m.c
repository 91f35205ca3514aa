/* SPDX-License-Identifier: ISC */
/*
 * The validators of the messages a worker sends to its monitor: the only
 * ones the monitor links (it never receives the other direction's), so
 * the code a compromised worker can reach stays what it must be.  The
 * header, length and descriptor rules of every type, and what each body
 * field of a worker's type must be, are msg.c's table; check_field() is
 * the one reading of a field rule.  The rules no row can say (the packed
 * paths of OPENV, the handle lists) are the v_* functions, each a kind of
 * its own.
 */
#include <stddef.h>
#include <string.h>

#include "msg_check.h"

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

static enum pr_msg_err v_openv(const struct pr_msg *m)
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

static enum pr_msg_err v_closev(const struct pr_msg *m)
{
	return m->u.closev.nclosed >= 1 && closed_ok(m->u.closev.nclosed, m->u.closev.closed) ?
	       PR_MSG_OK : PR_MSG_EBADFIELD;
}

static enum pr_msg_err check_field(const struct pr_msg *m, const struct pr_field *f)
{
	const char *p = (const char *)m + f->off;
	const char *s = p + offsetof(struct pr_str_text, s); /* the same in every pr_str_* */
	uint16_t len;
	uint32_t v;

	switch (f->kind) {
	case F_RANGE:
		memcpy(&v, p, sizeof(v));
		return v >= f->lo && v <= f->hi ? PR_MSG_OK : PR_MSG_EBADFIELD;
	case F_STR: case F_LINE: case F_NAME: case F_RELPATH: case F_LOG:
		memcpy(&len, p, sizeof(len));
		if (f->kind == F_RELPATH)
			return len < f->hi && pr_relpath_ok(s, len) ? PR_MSG_OK : PR_MSG_EBADSTR;
		if (!pr_str_ok(len, s, f->hi) || (f->kind == F_LINE && memchr(s, '\n', len)))
			return PR_MSG_EBADSTR;
		for (uint16_t i = 0; f->kind == F_LOG && i < len; i++)
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
				return PR_MSG_EBADSTR;
		return f->kind == F_NAME && (len == 0 || memchr(s, '\n', len)) ? PR_MSG_EBADFIELD : PR_MSG_OK;
	case F_OPENV:
		return v_openv(m);
	case F_CLOSEV:
		return v_closev(m);
	}
	return PR_MSG_OK; /* F_NONE */
}

enum pr_msg_err pr_msg_validate_w2m(const struct pr_msg *m, int nfds)
{
	const struct pr_field *f;
	enum pr_msg_err e = pr_msg_check_header(m, PR_DIR_TO_MONITOR, nfds, &f);

	if (e == PR_MSG_OK && f[0].kind == F_END)
		return PR_MSG_EBADTYPE; /* a type without rules is refused */
	for (size_t i = 0; e == PR_MSG_OK && i < PR_ROW_FIELDS && f[i].kind != F_END; i++)
		e = check_field(m, &f[i]);
	return e;
}
