/* SPDX-License-Identifier: ISC */
/*
 * -A and -X on the sending side; see xattr.h.  Behaviour as rsync 3.5.0's
 * daemon sender shows it (protocol 30+; described in rsync(1) for -A,
 * -X, -XX, and observed):
 *
 *   xattrs  every name the monitor returns, except "system." ones (the
 *           ACLs travel with -A) unless some rule has the 'x' modifier, in
 *           which case the client's 'x' rules decide instead (the module's
 *           were applied by the monitor); "user.rsync.%..." (fake-super
 *           data) only with -XX; sorted by name; values over 32 bytes as
 *           their MD5 sum, each numbered from 1 for later requests;
 *   ACLs    the access ACL without what the mode already says (owner,
 *           other, and the group entry unless a mask differs from it);
 *           for directories the default ACL as it is; named entries with
 *           their id, and inline the name the first time an id is met
 *           when lists are incremental;
 *   lists   a list identical to one sent before is sent as its index + 1,
 *           a new one as 0 and the literal list (kept per kind).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csum.h"
#include "filters.h"
#include "flist_int.h"
#include "fsclient.h"
#include "mon.h"
#include "xattr.h"

#define ACL_ACCESS_NAME "system.posix_acl_access"
#define ACL_DEFAULT_NAME "system.posix_acl_default"
#define XA_SETS_MAX (1u << 22)   /* distinct lists a session keeps */

/* XMIT bits of an ACL literal, and of a named entry's access value. */
#define XMIT_USER_OBJ 0x01u
#define XMIT_GROUP_OBJ 0x02u
#define XMIT_MASK_OBJ 0x04u
#define XMIT_OTHER_OBJ 0x08u
#define XMIT_NAME_LIST 0x10u
#define XFLAG_NAME_FOLLOWS 0x1u
#define XFLAG_NAME_IS_USER 0x2u

/* Linux's ACL attribute format. */
#define ACL_EA_VERSION 2u
#define TAG_USER_OBJ 0x01u
#define TAG_USER 0x02u
#define TAG_GROUP_OBJ 0x04u
#define TAG_GROUP 0x08u
#define TAG_MASK 0x10u
#define TAG_OTHER 0x20u

enum { ST_ABBREV = 1, ST_TODO = 2, ST_DONE = 3 }; /* a long value, as requested */

#define NO_ACL { XA_NO_ENTRY, XA_NO_ENTRY, XA_NO_ENTRY, XA_NO_ENTRY, 0, NULL }

struct item {
	char *name;                /* NUL-terminated */
	uint32_t name_len;         /* with the NUL, as on the wire */
	uint32_t datum_len;        /* the value's length */
	unsigned char datum[XA_FULL_MAX]; /* the value, or its sum if longer */
	uint8_t state;
};

/* An interned list: xattrs, or an ACL kept as its encoding's fields. */
struct set {
	uint64_t hash;
	int32_t sent;              /* its index once sent, else -1 */
	uint32_t n;
	struct item *v;            /* xattrs */
	struct xa_acl acl;         /* ACLs */
};

struct table {
	struct set *v;
	size_t n, cap;
	uint32_t *slot;            /* open addressing: index + 1, 0 free */
	size_t nslot;
	int32_t next_sent;
};

struct xa_sess {
	struct table xa, acc, def;
	int rules;                 /* an 'x' rule anywhere: they decide, not "system." */
};

static struct xa_sess xs;

/* ---- parsing (the monitor's records, ACL attributes) -------------------- */

int xa_parse(const unsigned char *buf, size_t len, uint32_t count,
	     int (*fn)(void *ctx, const struct xa_rec *r), void *ctx)
{
	size_t off = 0;

	for (uint32_t i = 0; i < count; i++) {
		struct xa_rec r;
		uint16_t nl;
		uint32_t vl;

		if (len - off < 6)
			return -1;
		memcpy(&nl, buf + off, 2);
		memcpy(&vl, buf + off + 2, 4);
		off += 6;
		if (nl == 0 || nl > 255 || vl > PR_XATTR_VALUE_MAX || len - off < (size_t)nl + vl)
			return -1;
		r.name = (const char *)buf + off;
		r.name_len = nl;
		r.value = buf + off + nl;
		r.value_len = vl;
		if (memchr(r.name, '\0', nl) != NULL)
			return -1;
		off += (size_t)nl + vl;
		if (fn && fn(ctx, &r) != 0)
			return 0; /* the caller has what it wanted */
	}
	return off == len ? 0 : -1;
}

void xa_acl_free(struct xa_acl *a)
{
	free(a->ida);
	a->ida = NULL;
	a->n = 0;
}

int xa_acl_parse(const unsigned char *v, size_t len, struct xa_acl *a)
{
	uint32_t version;
	size_t n;

	*a = (struct xa_acl){ XA_NO_ENTRY, XA_NO_ENTRY, XA_NO_ENTRY, XA_NO_ENTRY, 0, NULL };
	if (len < 4 || (len - 4) % 8 != 0)
		return -1;
	memcpy(&version, v, 4);
	n = (len - 4) / 8;
	if (version != ACL_EA_VERSION || n > XA_ACL_NAMES_MAX + 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = v + 4 + 8 * i;
		uint16_t tag, perm;
		uint32_t id;
		uint8_t *obj = NULL;

		memcpy(&tag, e, 2);
		memcpy(&perm, e + 2, 2);
		memcpy(&id, e + 4, 4);
		perm &= 7;
		switch (tag) {
		case TAG_USER_OBJ: obj = &a->user_obj; break;
		case TAG_GROUP_OBJ: obj = &a->group_obj; break;
		case TAG_MASK: obj = &a->mask_obj; break;
		case TAG_OTHER: obj = &a->other_obj; break;
		case TAG_USER:
		case TAG_GROUP:
			if (a->n == XA_ACL_NAMES_MAX) {
				xa_acl_free(a);
				return -1;
			}
			if (a->ida == NULL && (a->ida = malloc(n * sizeof(*a->ida))) == NULL)
				mon_exit(RERR_MALLOC);
			a->ida[a->n].id = id;
			a->ida[a->n++].access = perm | (tag == TAG_USER ? XA_NAME_IS_USER : 0);
			continue;
		default:
			continue; /* as stock: an unknown tag is ignored */
		}
		if (*obj == XA_NO_ENTRY)
			*obj = (uint8_t)perm; /* a duplicate is ignored, as stock does */
	}
	return 0;
}

/* What the mode already says is not sent (access ACLs). */
static void acl_strip(struct xa_acl *a)
{
	a->user_obj = XA_NO_ENTRY;
	if (a->mask_obj == XA_NO_ENTRY) {
		a->group_obj = XA_NO_ENTRY;
	} else {
		if (a->group_obj == a->mask_obj)
			a->group_obj = XA_NO_ENTRY;
		a->mask_obj = XA_NO_ENTRY;
	}
	a->other_obj = XA_NO_ENTRY;
}

/* ---- interning ----------------------------------------------------------- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t set_hash(const struct set *st)
{
	uint64_t h = mix(0xcbf29ce484222325ull, &st->n, sizeof(st->n));

	for (uint32_t i = 0; i < st->n; i++) {
		const struct item *it = &st->v[i];

		h = mix(h, it->name, it->name_len);
		h = mix(h, &it->datum_len, sizeof(it->datum_len));
		h = mix(h, it->datum, it->datum_len > XA_FULL_MAX ? XA_SUM_LEN : it->datum_len);
	}
	h = mix(h, &st->acl.user_obj, 4);
	h = mix(h, &st->acl.n, sizeof(st->acl.n));
	return st->acl.n ? mix(h, st->acl.ida, st->acl.n * sizeof(*st->acl.ida)) : h;
}

static int set_equal(const struct set *a, const struct set *b)
{
	if (a->n != b->n || a->acl.n != b->acl.n || a->acl.user_obj != b->acl.user_obj ||
	    a->acl.group_obj != b->acl.group_obj || a->acl.mask_obj != b->acl.mask_obj ||
	    a->acl.other_obj != b->acl.other_obj ||
	    (a->acl.n && memcmp(a->acl.ida, b->acl.ida, a->acl.n * sizeof(*a->acl.ida)) != 0))
		return 0;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct item *x = &a->v[i], *y = &b->v[i];

		if (x->name_len != y->name_len || x->datum_len != y->datum_len || strcmp(x->name, y->name) != 0 ||
		    memcmp(x->datum, y->datum, x->datum_len > XA_FULL_MAX ? XA_SUM_LEN : x->datum_len) != 0)
			return 0;
	}
	return 1;
}

static void set_free(struct set *st)
{
	for (uint32_t i = 0; i < st->n; i++)
		free(st->v[i].name);
	free(st->v);
	xa_acl_free(&st->acl);
}

/* The table's index + 1 of a list equal to *st, which is consumed. */
static uint32_t intern(struct table *t, struct set *st)
{
	size_t i;

	st->hash = set_hash(st);
	st->sent = -1;
	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 256;
		uint32_t *sl = calloc(ns, sizeof(*sl));

		if (sl == NULL)
			mon_exit(RERR_MALLOC);
		for (size_t k = 0; k < t->n; k++) {
			for (i = t->v[k].hash & (ns - 1); sl[i]; i = (i + 1) & (ns - 1))
				;
			sl[i] = (uint32_t)k + 1;
		}
		free(t->slot);
		t->slot = sl;
		t->nslot = ns;
	}
	for (i = st->hash & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		const struct set *o = &t->v[t->slot[i] - 1];

		if (o->hash == st->hash && set_equal(o, st)) {
			set_free(st);
			return t->slot[i];
		}
	}
	if (t->n >= XA_SETS_MAX) {
		mon_log(PR_LOG_ERR, "more than %u distinct ACLs or xattr lists", XA_SETS_MAX);
		mon_exit(RERR_MALLOC);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = fl_xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n++] = *st;
	t->slot[i] = (uint32_t)t->n;
	return (uint32_t)t->n;
}

/* ---- reading an entry's lists -------------------------------------------- */

struct collect {
	struct sess *s;
	int want_xattrs;
	struct set xa;
	size_t cap;
	const unsigned char *acc, *def;
	size_t acc_len, def_len;
};

static int has_prefix(const struct xa_rec *r, const char *p)
{
	size_t n = strlen(p);

	return r->name_len >= n && memcmp(r->name, p, n) == 0;
}

static int is_name(const struct xa_rec *r, const char *p)
{
	return r->name_len == strlen(p) && memcmp(r->name, p, r->name_len) == 0;
}

static int collect_one(void *ctx, const struct xa_rec *r)
{
	struct collect *c = ctx;
	struct item *it;
	char name[256];

	if (is_name(r, ACL_ACCESS_NAME)) {
		c->acc = r->value;
		c->acc_len = r->value_len;
	} else if (is_name(r, ACL_DEFAULT_NAME)) {
		c->def = r->value;
		c->def_len = r->value_len;
	}
	if (!c->want_xattrs)
		return 0;
	memcpy(name, r->name, r->name_len);
	name[r->name_len] = '\0';
	if (xs.rules ? filt_xattr_skip(name) : has_prefix(r, "system."))
		return 0;
	if (c->s->opt.xattrs < 2 && has_prefix(r, "user.rsync.%"))
		return 0; /* fake-super data: only with -XX */
	if (c->xa.n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->xa.v = fl_xrealloc(c->xa.v, c->cap * sizeof(*c->xa.v));
	}
	it = &c->xa.v[c->xa.n++];
	memset(it, 0, sizeof(*it));
	it->name = fl_xstrdup(name);
	it->name_len = (uint32_t)r->name_len + 1;
	it->datum_len = (uint32_t)r->value_len;
	if (r->value_len > XA_FULL_MAX) {
		struct csum_params md5 = { .type = CSUM_MD5 };
		struct csum_file cf;
		unsigned char sum[CSUM_MAX_LEN];

		if (csum_file_init(&cf, &md5, 0) < 0)
			mon_exit(RERR_MALLOC);
		csum_file_update(&cf, r->value, r->value_len);
		csum_file_final(&cf, sum);
		memcpy(it->datum, sum, XA_SUM_LEN);
		it->state = ST_ABBREV;
	} else if (r->value_len) {
		memcpy(it->datum, r->value, r->value_len);
	}
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->name, ((const struct item *)b)->name);
}

void xa_init(struct sess *s)
{
	memset(&xs, 0, sizeof(xs));
	xs.rules = filt_has_xattr_rules() || (s->hs.module_flags & PR_MOD_XATTR_RULES);
}

static void list_error(struct sess *s, const char *mpath, int err)
{
	io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] get_xattr_names: llistxattr(\"/%s\" (in %s),1024) failed: %s (%d)",
	       mpath, s->hs.module, strerror(err), err);
	s->io_error |= IOERR_GENERAL;
}

int xa_fetch(struct sess *s, const char *mpath, uint32_t mode, int how, struct xa_ref *ref)
{
	struct collect c = { .s = s, .want_xattrs = s->opt.xattrs && how != XA_REFERENT };
	struct set acl = { .acl = NO_ACL };
	unsigned char *raw = NULL;
	size_t len = 0;
	uint32_t count = 0;
	int err = 0;

	*ref = (struct xa_ref){ 0, 0, 0 };
	if (!S_ISREG(mode) && !S_ISDIR(mode))
		return 0; /* links, devices, specials: none are read here */
	if (c.want_xattrs || s->opt.acls)
		err = fsc_xattrs(mpath, how != XA_OWN, &raw, &len, &count);
	if (err == EACCES)
		err = 0; /* unreadable: as one without attributes (docs/architecture.md) */
	if (err) {
		list_error(s, mpath, err);
		return -1;
	}
	if (xa_parse(raw, len, count, collect_one, &c) < 0) {
		free(raw);
		mon_log(PR_LOG_ERR, "malformed xattr records from the monitor");
		mon_exit(14);
	}
	if (c.want_xattrs) {
		if (c.xa.n > 1)
			qsort(c.xa.v, c.xa.n, sizeof(*c.xa.v), cmp_item);
		ref->xattr = intern(&xs.xa, &c.xa);
	}
	if (s->opt.acls) {
		/* no ACL attribute: the mode's, which strips to nothing */
		if (c.acc && xa_acl_parse(c.acc, c.acc_len, &acl.acl) < 0)
			err = EINVAL;
		acl_strip(&acl.acl);
		if (acl.acl.n == 0 && acl.acl.ida) /* (no names after all) */
			xa_acl_free(&acl.acl);
		ref->acl = err ? 0 : intern(&xs.acc, &acl);
		if (S_ISDIR(mode) && !err) {
			struct set def = { .acl = NO_ACL };

			if (c.def && xa_acl_parse(c.def, c.def_len, &def.acl) < 0)
				err = EINVAL;
			ref->dacl = err ? 0 : intern(&xs.def, &def);
		}
	}
	free(raw);
	if (err) {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] get_acl: sys_acl_get_file(\"/%s\" (in %s)) failed: %s (%d)",
		       mpath, s->hs.module, strerror(err), err);
		s->io_error |= IOERR_GENERAL;
		return -1;
	}
	return 0;
}

/* ---- encoding ------------------------------------------------------------- */

static void send_acl(struct sess *s, struct flenc *enc, struct table *t, uint32_t ref)
{
	static const struct set empty = { .acl = NO_ACL };
	struct set *st = ref ? &t->v[ref - 1] : (struct set *)&empty;
	const struct xa_acl *a = &st->acl;
	struct io *io = &s->io;
	uint8_t flags = 0;

	if (ref == 0) {
		/* an empty list: intern it so that it is sent once */
		struct set e = empty;
		ref = intern(t, &e);
		st = &t->v[ref - 1];
		a = &st->acl;
	}
	io_write_varint(io, st->sent + 1);
	if (st->sent >= 0)
		return;
	st->sent = t->next_sent++;
	flags |= a->user_obj != XA_NO_ENTRY ? XMIT_USER_OBJ : 0;
	flags |= a->group_obj != XA_NO_ENTRY ? XMIT_GROUP_OBJ : 0;
	flags |= a->mask_obj != XA_NO_ENTRY ? XMIT_MASK_OBJ : 0;
	flags |= a->other_obj != XA_NO_ENTRY ? XMIT_OTHER_OBJ : 0;
	flags |= a->n ? XMIT_NAME_LIST : 0;
	io_write_byte(io, flags);
	if (flags & XMIT_USER_OBJ)
		io_write_varint(io, a->user_obj);
	if (flags & XMIT_GROUP_OBJ)
		io_write_varint(io, a->group_obj);
	if (flags & XMIT_MASK_OBJ)
		io_write_varint(io, a->mask_obj);
	if (flags & XMIT_OTHER_OBJ)
		io_write_varint(io, a->other_obj);
	if (!(flags & XMIT_NAME_LIST))
		return;
	io_write_varint(io, (int32_t)a->n);
	for (uint32_t i = 0; i < a->n; i++) {
		int user = (a->ida[i].access & XA_NAME_IS_USER) != 0;
		uint32_t bits = (a->ida[i].access & 7u) << 2 | (user ? XFLAG_NAME_IS_USER : 0);
		const char *name = flenc_new_id_name(s, enc, user ? PR_ID_USER : PR_ID_GROUP, a->ida[i].id);

		io_write_varint(io, (int32_t)a->ida[i].id);
		if (name) {
			size_t n = strnlen(name, 255);

			io_write_varint(io, (int32_t)(bits | XFLAG_NAME_FOLLOWS));
			io_write_byte(io, (uint8_t)n);
			io_write(io, name, n);
		} else {
			io_write_varint(io, (int32_t)bits);
		}
	}
}

static void send_xattrs(struct sess *s, uint32_t ref)
{
	struct io *io = &s->io;
	struct set *st;

	if (ref == 0) {
		struct set e = { 0 };
		ref = intern(&xs.xa, &e);
	}
	st = &xs.xa.v[ref - 1];
	io_write_varint(io, st->sent + 1);
	if (st->sent >= 0)
		return;
	st->sent = xs.xa.next_sent++;
	io_write_varint(io, (int32_t)st->n);
	for (uint32_t i = 0; i < st->n; i++) {
		const struct item *it = &st->v[i];

		io_write_varint(io, (int32_t)it->name_len);
		io_write_varint(io, (int32_t)it->datum_len);
		io_write(io, it->name, it->name_len);
		io_write(io, it->datum, it->datum_len > XA_FULL_MAX ? XA_SUM_LEN : it->datum_len);
	}
}

void xa_send(struct sess *s, struct flenc *enc, uint32_t mode, const struct xa_ref *ref)
{
	if (s->opt.acls && !S_ISLNK(mode)) {
		send_acl(s, enc, &xs.acc, ref->acl);
		if (S_ISDIR(mode))
			send_acl(s, enc, &xs.def, ref->dacl);
	}
	if (s->opt.xattrs)
		send_xattrs(s, ref->xattr);
}

void xa_acl_ids(struct sess *s, const struct xa_ref *ref, int kind, void (*fn)(void *ctx, uint32_t id),
		void *ctx)
{
	const uint32_t refs[2] = { ref->acl, ref->dacl };
	const struct table *t[2] = { &xs.acc, &xs.def };

	(void)s;
	for (int k = 0; k < 2; k++) {
		const struct xa_acl *a;

		if (refs[k] == 0)
			continue;
		a = &t[k]->v[refs[k] - 1].acl;
		for (uint32_t i = 0; i < a->n; i++)
			if (((a->ida[i].access & XA_NAME_IS_USER) != 0) == (kind == PR_ID_USER))
				fn(ctx, a->ida[i].id);
	}
}

/* ---- the receiver's requests for long values ------------------------------ */

void xa_recv_request(struct sess *s, const struct xa_ref *ref, const char *name)
{
	struct set *st = ref && ref->xattr ? &xs.xa.v[ref->xattr - 1] : NULL;
	int64_t num = 0;

	/* Bounded: an item can be asked for once (then it is no longer
	 * abbreviated), so a list of n items ends within n steps.  Numbers
	 * are relative to the previous one, either way (a receiver that
	 * renames attributes sorts them again). */
	for (;;) {
		int32_t rel = io_read_varint(&s->io);
		struct item *it;

		if (rel == 0)
			return;
		num += rel;
		if (st == NULL || num < 1 || num > st->n)
			io_fatal(&s->io, RERR_PROTOCOL, "[sender] could not find xattr #%lld for %s",
				 (long long)num, name);
		it = &st->v[num - 1];
		if (it->datum_len <= XA_FULL_MAX || it->state != ST_ABBREV)
			io_fatal(&s->io, RERR_PROTOCOL, "[sender] internal abbrev error on %s (%s, len=%ld)!", name,
				 it->name, (long)it->datum_len);
		it->state = ST_TODO;
	}
}

/* The value of one attribute, read again. */
struct refind { const char *name; const unsigned char *v; size_t len; int found; };

static int refind_one(void *ctx, const struct xa_rec *r)
{
	struct refind *f = ctx;

	if (r->name_len != strlen(f->name) || memcmp(r->name, f->name, r->name_len) != 0)
		return 0;
	f->v = r->value;
	f->len = r->value_len;
	f->found = 1;
	return 1;
}

void xa_send_request(struct sess *s, const struct xa_ref *ref, const char *mpath)
{
	struct set *st = ref && ref->xattr ? &xs.xa.v[ref->xattr - 1] : NULL;
	unsigned char *raw = NULL;
	size_t len = 0;
	uint32_t count = 0, prior = 0;
	int read = 0;

	for (uint32_t i = 0; st && i < st->n; i++) {
		struct item *it = &st->v[i];
		struct refind f = { it->name, NULL, 0, 0 };

		if (it->datum_len <= XA_FULL_MAX || it->state != ST_TODO)
			continue;
		it->state = ST_DONE;
		io_write_varint(&s->io, (int32_t)(i + 1 - prior));
		prior = i + 1;
		/* followed: only an entry read through a final link has values
		 * to ask for (a link's own list is empty here) */
		if (read++ == 0 && fsc_xattrs(mpath, 1, &raw, &len, &count) != 0)
			len = count = 0;
		if (raw == NULL || xa_parse(raw, len, count, refind_one, &f) < 0 || !f.found) {
			io_msg(&s->io, MSG_ERROR_XFER, "failed to re-read xattr %s for %s", it->name, mpath);
			io_write_varint(&s->io, 0);
			continue;
		}
		io_write_varint(&s->io, (int32_t)f.len);
		io_write(&s->io, f.v, f.len);
	}
	free(raw);
	io_write_byte(&s->io, 0);
	if (read)
		mon_log(PR_LOG_DEBUG, "xattr: %d long value(s) of %s sent on request", read, mpath);
}
