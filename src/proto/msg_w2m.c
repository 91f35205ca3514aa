/*
 * The validators of the messages a worker sends to its monitor: the only
 * ones the monitor links (it never receives the other direction's), so
 * the code a compromised worker can reach stays what it must be.  The
 * header, length and descriptor rules of every type are msg.c's table;
 * fields[] below says, per type, what each body field must be, and
 * check_field() is the one reading of it.  The rules no row can say (the
 * packed paths of OPENV, the handle lists) are the v_* functions, each a
 * row of its own.
 */
#include <stddef.h>
#include <string.h>

#include "msg_check.h"

enum kind {
	F_NONE,     /* no body */
	F_STR,      /* counted string (pr_str_ok): else EBADSTR */
	F_LINE,     /* counted string without '\n': else EBADSTR */
	F_NAME,     /* counted string (else EBADSTR), nonempty, without '\n' (else EBADFIELD) */
	F_RELPATH,  /* module path (pr_relpath_ok): else EBADSTR */
	F_LOG,      /* counted string without a control byte but tab: else EBADSTR */
	F_RANGE,    /* uint32 in lo..hi: else EBADFIELD */
	F_OPENV, F_CLOSEV, /* v_openv, v_closev */
};

struct field {
	uint16_t type;
	uint16_t kind;
	uint32_t off;      /* of the field in struct pr_msg */
	uint32_t lo, hi;   /* F_RANGE: the bounds; strings: hi is the capacity */
};

/* What the rows below rely on: every counted string is the same {len, s}
 * shape (check_field reads them alike), and a range says what the old
 * bit and enum tests said. */
_Static_assert(offsetof(struct pr_str_name, s) == offsetof(struct pr_str_text, s) &&
	       offsetof(struct pr_str_path, s) == offsetof(struct pr_str_text, s) &&
	       offsetof(struct pr_str_relpath, s) == offsetof(struct pr_str_text, s) &&
	       offsetof(struct pr_str_log, s) == offsetof(struct pr_str_text, s),
	       "counted strings share one layout");
_Static_assert(PR_STAT_FOLLOW == 1u, "stat flags 0..PR_STAT_FOLLOW are exactly 'no other bit'");
_Static_assert(PR_ID_GROUP == PR_ID_USER + 1, "id kinds PR_ID_USER..PR_ID_GROUP are exactly the two");

#define STRF(t, k, f) { t, k, offsetof(struct pr_msg, u.f), 0, sizeof(((struct pr_msg *)0)->u.f.s) }
#define U32(t, f, lo, hi) { t, F_RANGE, offsetof(struct pr_msg, u.f), lo, hi }
#define BODY(t, k) { t, k, 0, 0, 0 }

/* Per type, its fields in the order they are checked (strings first: the
 * error a malformed record gets is the one it got before the table). */
static const struct field fields[] = {
	U32(PR_W_READY, ready.pid, 1, UINT32_MAX),
	STRF(PR_W_LOG, F_STR, log.text),
	U32(PR_W_LOG, log.level, PR_LOG_ERR, PR_LOG_DEBUG),
	BODY(PR_W_MODLIST, F_NONE),
	STRF(PR_W_SELECT, F_NAME, wselect.module), /* one request line; its @ERROR echo too */
	U32(PR_W_EXIT, exit.code, 0, 255),
	STRF(PR_W_LIST, F_RELPATH, path.path),
	STRF(PR_W_STAT, F_RELPATH, stat.path),
	U32(PR_W_STAT, stat.flags, 0, PR_STAT_FOLLOW),
	STRF(PR_W_OPEN, F_RELPATH, path.path),
	U32(PR_W_CLOSE, close.handle, 1, UINT32_MAX),
	STRF(PR_W_READLINK, F_RELPATH, path.path),
	U32(PR_W_IDNAME, idname.kind, PR_ID_USER, PR_ID_GROUP),
	STRF(PR_W_AUTH, F_LINE, auth.line),
	STRF(PR_W_HELLO, F_LINE, hello.digests),
	U32(PR_W_HELLO, hello.protocol, 27, 32),
	STRF(PR_W_START, F_LOG, start.request),
	U32(PR_W_START, start.sender, 0, 1),
	STRF(PR_W_XFER, F_LOG, xfer.line), /* formatted by the worker: text only */
	STRF(PR_W_XATTR, F_RELPATH, stat.path),
	U32(PR_W_XATTR, stat.flags, 0, PR_STAT_FOLLOW),
	BODY(PR_W_OPENV, F_OPENV),
	BODY(PR_W_CLOSEV, F_CLOSEV),
};

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

static enum pr_msg_err check_field(const struct pr_msg *m, const struct field *f)
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
	enum pr_msg_err e = pr_msg_check_header(m, PR_DIR_TO_MONITOR, nfds);
	int known = 0;

	for (size_t i = 0; e == PR_MSG_OK && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].type == m->h.type) {
			e = check_field(m, &fields[i]);
			known = 1;
		}
	return e != PR_MSG_OK || known ? e : PR_MSG_EBADTYPE; /* a type without a row is refused */
}
