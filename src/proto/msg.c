/* SPDX-License-Identifier: ISC */
/*
 * What both directions of the monitor<->worker channel share: the table
 * that says, per type, how long the body is, who may send it and whether
 * it may carry descriptors; the header check every received message goes
 * through before its type's validator (msg_w2m.c for what a worker sends,
 * msg_m2w.c for what a monitor sends: each binary links only the one it
 * receives); the field checks both validators use; the packers.
 */
#include <stddef.h>
#include <string.h>

#include "msg_check.h"

struct msg_row {
	const char *name;
	enum pr_msg_dir dir;
	uint32_t len;
	unsigned fds;      /* descriptors it may carry: 0, 1, or up to PR_MSG_FDS_MAX */
	struct pr_field f[PR_ROW_FIELDS]; /* a worker's type: what its fields must be */
};

/* A counted string is valid if its length fits, the byte at len is NUL and
 * no byte before it is NUL.  Bytes after the NUL are ignored (but zeroed
 * by senders through pr_msg_init). */
int pr_str_ok(uint16_t len, const char *s, size_t cap)
{
	return len < cap && s[len] == '\0' && memchr(s, '\0', len) == NULL;
}

int pr_bool_ok(uint32_t v) { return v == 0 || v == 1; }

int pr_relpath_ok(const char *s, size_t len)
{
	if (len >= PR_RELPATH_MAX || s[len] != '\0' || memchr(s, '\0', len) != NULL)
		return 0;
	/* "" is the module root; else components of 1..255 bytes, none "." or ".." */
	while (len > 0) {
		size_t n = strcspn(s, "/");

		if (n == 0 || n > 255 || (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.'))))
			return 0;
		if (s[n] == '\0')
			return 1;
		s += n + 1;
	}
	return 1;
}

/* A known file type and no bits above them. */
int pr_mode_ok(uint32_t mode)
{
	/* bit t of the mask for each file type t = mode >> 12: socket 014,
	 * symlink 012, regular 010, block 006, directory 004, char 002, FIFO 001 */
	return mode <= 0177777u && ((0x1556u >> (mode >> 12)) & 1u);
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
	const struct pr_dirent_hdr h = { .st = *st, .err = err, .name_len = (uint16_t)name_len,
					 .link_len = (uint16_t)link_len, .link_state = link_state };
	size_t need = sizeof(h) + name_len + link_len;

	if (name_len == 0 || name_len > 255 || link_len > PR_LINK_INLINE_MAX ||
	    b->used > sizeof(b->data) || need > sizeof(b->data) - b->used)
		return -1;
	memcpy(b->data + b->used, &h, sizeof(h));
	memcpy(b->data + b->used + sizeof(h), name, name_len);
	if (link_len)
		memcpy(b->data + b->used + sizeof(h) + name_len, link, link_len);
	b->used += (uint32_t)need;
	b->count++;
	return 0;
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

int pr_all_zero(const unsigned char *p, size_t n)
{
	/* zero at the first byte and every byte equal to the one before:
	 * memcmp's vector loop instead of a byte loop over ~7 KiB per OPENV */
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

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

/* A monitor's type: its body and how many descriptors it may carry.  A
 * worker's: its body (never a descriptor) and its fields' rules, strings
 * first (the error a malformed record gets is the one it always got). */
#define M(t, body, fds) [t] = { #t, PR_DIR_TO_WORKER, body, fds, { { F_END, 0, 0, 0 } } }
#define W(t, body, ...) [t] = { #t, PR_DIR_TO_MONITOR, body, 0, { __VA_ARGS__ } }
#define STR(k, f) { k, offsetof(struct pr_msg, u.f), 0, sizeof(((struct pr_msg *)0)->u.f.s) }
#define U32(f, lo, hi) { F_RANGE, offsetof(struct pr_msg, u.f), lo, hi }
#define BODY(k) { k, 0, 0, 0 }

/* Indexed by type: a number without a row (name NULL) is unknown. */
static const struct msg_row rows[PR_MSG_TYPE_MAX] = {
	M(PR_M_INIT, sizeof(struct pr_m_init), 1),
	M(PR_M_MODLIST, sizeof(struct pr_m_modlist), 0),
	M(PR_M_MODLIST_END, 0, 0),
	M(PR_M_SELECT, sizeof(struct pr_m_select), 0),
	W(PR_W_READY, sizeof(struct pr_w_ready), U32(ready.pid, 1, UINT32_MAX)),
	W(PR_W_LOG, sizeof(struct pr_w_log), STR(F_STR, log.text), U32(log.level, PR_LOG_ERR, PR_LOG_DEBUG)),
	W(PR_W_MODLIST, 0, BODY(F_NONE)),
	W(PR_W_SELECT, sizeof(struct pr_w_select), STR(F_NAME, wselect.module)), /* one request line; its @ERROR echo too */
	W(PR_W_EXIT, sizeof(struct pr_w_exit), U32(exit.code, 0, 255)),
	M(PR_M_LIST, sizeof(struct pr_m_list), 0),
	M(PR_M_LIST_END, sizeof(struct pr_m_list_end), 0),
	M(PR_M_STAT, sizeof(struct pr_m_stat), 0),
	M(PR_M_READLINK, sizeof(struct pr_m_readlink), 0),
	M(PR_M_IDNAME, sizeof(struct pr_m_idname), 0),
	W(PR_W_LIST, sizeof(struct pr_w_path), STR(F_RELPATH, path.path)),
	W(PR_W_STAT, sizeof(struct pr_w_stat), STR(F_RELPATH, stat.path), U32(stat.flags, 0, PR_STAT_FOLLOW)),
	W(PR_W_READLINK, sizeof(struct pr_w_path), STR(F_RELPATH, path.path)),
	W(PR_W_IDNAME, sizeof(struct pr_w_idname), U32(idname.kind, PR_ID_USER, PR_ID_GROUP)),
	M(PR_M_AUTHREQ, sizeof(struct pr_m_authreq), 0),
	W(PR_W_AUTH, sizeof(struct pr_w_auth), STR(F_LINE, auth.line)),
	W(PR_W_HELLO, sizeof(struct pr_w_hello), STR(F_LINE, hello.digests), U32(hello.protocol, 27, 32)),
	W(PR_W_START, sizeof(struct pr_w_start), STR(F_LOG, start.request), U32(start.sender, 0, 1)),
	M(PR_M_XFERLOG, sizeof(struct pr_m_xferlog), 0),
	W(PR_W_XFER, sizeof(struct pr_w_xfer), STR(F_LOG, xfer.line)), /* formatted by the worker: text only */
	M(PR_M_XATTR, sizeof(struct pr_m_xattr), 0),
	M(PR_M_XATTR_END, sizeof(struct pr_m_xattr_end), 0),
	W(PR_W_XATTR, sizeof(struct pr_w_stat), STR(F_RELPATH, stat.path), U32(stat.flags, 0, PR_STAT_FOLLOW)),
	M(PR_M_OPENV, sizeof(struct pr_m_openv), PR_OPENV_MAX),
	W(PR_W_OPENV, sizeof(struct pr_w_openv), BODY(F_OPENV)),
	W(PR_W_CLOSEV, sizeof(struct pr_w_closev), BODY(F_CLOSEV)),
};

static const struct msg_row *row_for(uint16_t type)
{
	return type < PR_MSG_TYPE_MAX && rows[type].name != NULL ? &rows[type] : NULL;
}

const char *pr_msg_type_name(uint16_t type)
{
	const struct msg_row *r = row_for(type);
	return r ? r->name : "unknown";
}

static const char *const errors[] = {
	[PR_MSG_OK] = "ok", [PR_MSG_EBADMAGIC] = "bad magic", [PR_MSG_EBADTYPE] = "unknown message type",
	[PR_MSG_EBADDIR] = "message sent in the wrong direction", [PR_MSG_EBADLEN] = "wrong body length for type",
	[PR_MSG_EBADFLAGS] = "bad header flags", [PR_MSG_EBADSEQ] = "out-of-sequence message",
	[PR_MSG_EBADSTR] = "malformed string field", [PR_MSG_EBADFIELD] = "field out of range",
	[PR_MSG_EBADFD] = "descriptor missing or unexpected",
};

const char *pr_msg_strerror(enum pr_msg_err e)
{
	return (unsigned)e < sizeof(errors) / sizeof(errors[0]) && errors[e] ? errors[e] : "unknown error";
}

enum pr_msg_err pr_msg_check_header(const struct pr_msg *m, enum pr_msg_dir dir, int nfds,
				    const struct pr_field **fields)
{
	const struct msg_row *r;

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
	/* PR_F_FD set exactly when descriptors came, no more than the type's */
	if (nfds < 0 || !(m->h.flags & PR_F_FD) != !nfds || (unsigned)nfds > r->fds)
		return PR_MSG_EBADFD;
	*fields = r->f;
	return PR_MSG_OK;
}

enum pr_msg_err pr_msg_check(const struct pr_msg *m, enum pr_msg_dir dir, int nfds,
			    const struct pr_msg_check *checks, size_t n)
{
	const struct pr_field *fields;
	enum pr_msg_err e = pr_msg_check_header(m, dir, nfds, &fields);

	if (e != PR_MSG_OK)
		return e;
	for (size_t i = 0; i < n; i++)
		if (checks[i].type == m->h.type)
			return checks[i].check(m, nfds);
	return PR_MSG_EBADTYPE; /* a type without a validator is refused */
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

int pr_str_put(uint16_t *len, char *dst, size_t cap, const char *s, int trunc)
{
	size_t n = trunc ? strnlen(s, cap - 1) : strlen(s);

	if (n >= cap)
		return -1;
	memcpy(dst, s, n);
	memset(dst + n, 0, cap - n);
	*len = (uint16_t)n;
	return 0;
}
