/* SPDX-License-Identifier: ISC */
/*
 * -A/-X parsing in the worker (src/worker/xattr.c): the monitor's XATTR
 * records (msg.h) and Linux's ACL attribute format, well-formed and broken
 * every way the parsers check; and the xattr ('x') filter rules the
 * monitor applies to attribute names (modfilter_hides_xattr).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "modfilter.h"
#include "msg.h"
#include "unit.h"
#include "xattr.h"

#define BUF_MAX 4096

struct rbuf { unsigned char b[BUF_MAX]; size_t n; };

static void rec(struct rbuf *r, const char *name, size_t nl, const void *val, uint32_t vl)
{
	uint16_t n16 = (uint16_t)nl;

	memcpy(r->b + r->n, &n16, 2);
	memcpy(r->b + r->n + 2, &vl, 4);
	memcpy(r->b + r->n + 6, name, nl);
	if (vl)
		memcpy(r->b + r->n + 6 + nl, val, vl);
	r->n += 6 + nl + vl;
}

struct seen { int n; char names[4][64]; size_t vlen[4]; };

static int count_one(void *ctx, const struct xa_rec *r)
{
	struct seen *s = ctx;

	if (s->n < 4) {
		memcpy(s->names[s->n], r->name, r->name_len < 63 ? r->name_len : 63);
		s->names[s->n][r->name_len < 63 ? r->name_len : 63] = '\0';
		s->vlen[s->n] = r->value_len;
	}
	s->n++;
	return 0;
}

static int stop_first(void *ctx, const struct xa_rec *r)
{
	(void)r;
	++*(int *)ctx;
	return 1;
}

static void test_records(void)
{
	struct rbuf r = { .n = 0 };
	struct seen s = { 0 };
	char long_name[300];
	int calls = 0;

	CHECK(xa_parse(NULL, 0, 0, count_one, &s) == 0 && s.n == 0); /* no attributes */
	rec(&r, "user.a", 6, "1", 1);
	rec(&r, "user.empty", 10, NULL, 0);
	rec(&r, "user.bin", 8, "\0\xff\0", 3);
	CHECK(xa_parse(r.b, r.n, 3, count_one, &s) == 0);
	CHECK(s.n == 3 && strcmp(s.names[0], "user.a") == 0 && strcmp(s.names[2], "user.bin") == 0);
	CHECK(s.vlen[1] == 0 && s.vlen[2] == 3);
	CHECK(xa_parse(r.b, r.n, 3, NULL, NULL) == 0);
	CHECK(xa_parse(r.b, r.n, 3, stop_first, &calls) == 0 && calls == 1);
	/* the count and the bytes must agree exactly */
	CHECK(xa_parse(r.b, r.n, 2, NULL, NULL) < 0);       /* bytes left over */
	CHECK(xa_parse(r.b, r.n, 4, NULL, NULL) < 0);       /* a record missing */
	CHECK(xa_parse(r.b, r.n - 1, 3, NULL, NULL) < 0);   /* the last value cut */
	CHECK(xa_parse(r.b, 5, 1, NULL, NULL) < 0);         /* a header cut */
	CHECK(xa_parse(r.b, r.n, 0xffffffffu, NULL, NULL) < 0);
	/* names: 1..255 bytes, no NUL */
	memset(long_name, 'n', sizeof(long_name));
	r.n = 0;
	rec(&r, "", 0, "v", 1);
	CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) < 0);
	r.n = 0;
	rec(&r, long_name, 255, "v", 1);
	CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) == 0);
	r.n = 0;
	rec(&r, long_name, 256, "v", 1);
	CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) < 0);
	r.n = 0;
	rec(&r, "user\0x", 6, "v", 1);
	CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) < 0);
	/* values: at most the kernel's 64 KiB, and within the bytes */
	r.n = 0;
	rec(&r, "user.a", 6, NULL, 0);
	{
		uint32_t big = PR_XATTR_VALUE_MAX + 1;
		memcpy(r.b + 2, &big, 4);
		CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) < 0);
		big = 0xfffffff0u; /* would wrap a careless bound check */
		memcpy(r.b + 2, &big, 4);
		CHECK(xa_parse(r.b, r.n, 1, NULL, NULL) < 0);
	}
}

/* An ACL attribute: version 2, then (tag, perm, id) entries. */
struct abuf { unsigned char b[BUF_MAX]; size_t n; };

static void acl_start(struct abuf *a, uint32_t version)
{
	memcpy(a->b, &version, 4);
	a->n = 4;
}

static void acl_ent(struct abuf *a, uint16_t tag, uint16_t perm, uint32_t id)
{
	memcpy(a->b + a->n, &tag, 2);
	memcpy(a->b + a->n + 2, &perm, 2);
	memcpy(a->b + a->n + 4, &id, 4);
	a->n += 8;
}

static void test_acl(void)
{
	struct abuf a;
	struct xa_acl acl;

	acl_start(&a, 2);
	acl_ent(&a, 0x01, 6, 0xffffffffu);   /* user_obj rw */
	acl_ent(&a, 0x02, 4, 1000);          /* user:1000 r */
	acl_ent(&a, 0x04, 4, 0xffffffffu);   /* group_obj r */
	acl_ent(&a, 0x08, 6, 50);            /* group:50 rw */
	acl_ent(&a, 0x10, 0xfff6, 0xffffffffu); /* mask: only the rwx bits count */
	acl_ent(&a, 0x20, 0, 0xffffffffu);   /* other --- */
	CHECK(xa_acl_parse(a.b, a.n, &acl) == 0);
	CHECK(acl.user_obj == 6 && acl.group_obj == 4 && acl.mask_obj == 6 && acl.other_obj == 0);
	CHECK(acl.n == 2 && acl.ida[0].id == 1000 && acl.ida[0].access == (4 | XA_NAME_IS_USER));
	CHECK(acl.n == 2 && acl.ida[1].id == 50 && acl.ida[1].access == 6);
	xa_acl_free(&acl);
	/* unknown tags and duplicate objects are ignored, as stock ignores them */
	acl_start(&a, 2);
	acl_ent(&a, 0x01, 7, 0);
	acl_ent(&a, 0x01, 1, 0);
	acl_ent(&a, 0x40, 7, 0);
	CHECK(xa_acl_parse(a.b, a.n, &acl) == 0 && acl.user_obj == 7 && acl.n == 0 &&
	      acl.group_obj == XA_NO_ENTRY && acl.other_obj == XA_NO_ENTRY);
	xa_acl_free(&acl);
	/* an empty ACL (only the version) */
	acl_start(&a, 2);
	CHECK(xa_acl_parse(a.b, a.n, &acl) == 0 && acl.n == 0 && acl.user_obj == XA_NO_ENTRY);
	xa_acl_free(&acl);
	/* malformed: version, length, too short */
	acl_start(&a, 1);
	acl_ent(&a, 0x01, 7, 0);
	CHECK(xa_acl_parse(a.b, a.n, &acl) < 0);
	acl_start(&a, 2);
	acl_ent(&a, 0x01, 7, 0);
	CHECK(xa_acl_parse(a.b, a.n - 1, &acl) < 0);
	CHECK(xa_acl_parse(a.b, a.n + 3, &acl) < 0);
	CHECK(xa_acl_parse(a.b, 3, &acl) < 0);
	CHECK(xa_acl_parse(a.b, 0, &acl) < 0);
	/* more named entries than a 64 KiB attribute holds */
	{
		size_t n = XA_ACL_NAMES_MAX + 1, len = 4 + 8 * n;
		unsigned char *big = calloc(1, len);
		uint32_t v = 2;
		uint16_t tag = 0x02;

		memcpy(big, &v, 4);
		for (size_t i = 0; i < n; i++)
			memcpy(big + 4 + 8 * i, &tag, 2);
		CHECK(xa_acl_parse(big, len, &acl) < 0);
		CHECK(xa_acl_parse(big, len - 8, &acl) == 0 && acl.n == XA_ACL_NAMES_MAX);
		xa_acl_free(&acl);
		free(big);
	}
}

static void test_xattr_rules(void)
{
	struct modfilter mf = { 0 };
	char err[256];

	CHECK(modfilter_add(&mf, CFG_F_FILTER, "+x user.keep* -x user.secret -x user.private.* - user.file",
			    err, sizeof(err)) == 0);
	CHECK(modfilter_hides_xattr(&mf, "user.secret"));
	CHECK(modfilter_hides_xattr(&mf, "user.private.key"));
	CHECK(!modfilter_hides_xattr(&mf, "user.secretx"));      /* a plain name matches whole */
	CHECK(!modfilter_hides_xattr(&mf, "user.keep.secret"));  /* first match wins */
	CHECK(!modfilter_hides_xattr(&mf, "user.other"));
	CHECK(!modfilter_hides_xattr(&mf, "user.file"));         /* a file rule never hides a name */
	CHECK(modfilter_hides(&mf, "user.file", 0));             /* ... and an 'x' rule no file */
	CHECK(!modfilter_hides(&mf, "user.secret", 0));
	modfilter_free(&mf);
}

int main(void)
{
	test_records();
	test_acl();
	test_xattr_rules();
	return unit_done("test_xattr");
}
