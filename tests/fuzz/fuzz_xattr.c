/* SPDX-License-Identifier: ISC */
/* Fuzz the worker's -A/-X parsers (src/worker/xattr.c): the monitor's
 * XATTR records (count from the first 4 bytes, then the records) and the
 * ACL attribute format (the same bytes).  Records a parse accepts must
 * re-encode to exactly the input, with every name 1..255 bytes and NUL-
 * free and every value within bounds; an accepted ACL keeps its bounds
 * and its named entries' access bits; nothing leaks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "xattr.h"

#define MAXIN (1u << 20)

struct rt { unsigned char *out; size_t n, cap; int bad; };

static int put(void *ctx, const struct xa_rec *r)
{
	struct rt *t = ctx;
	uint16_t nl = (uint16_t)r->name_len;
	uint32_t vl = (uint32_t)r->value_len;

	if (r->name_len < 1 || r->name_len > 255 || memchr(r->name, 0, r->name_len) ||
	    r->value_len > PR_XATTR_VALUE_MAX || t->n + 6 + r->name_len + r->value_len > t->cap) {
		t->bad = 1;
		return 1;
	}
	memcpy(t->out + t->n, &nl, 2);
	memcpy(t->out + t->n + 2, &vl, 4);
	memcpy(t->out + t->n + 6, r->name, r->name_len);
	memcpy(t->out + t->n + 6 + r->name_len, r->value, r->value_len);
	t->n += 6 + r->name_len + r->value_len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xa_acl acl;
	uint32_t count;

	if (size < 4 || size > MAXIN)
		return 0;
	memcpy(&count, data, 4);
	count %= 4096; /* more records than bytes can only fail; keep runs short */
	{
		struct rt t = { malloc(size), 0, size, 0 };

		if (t.out == NULL)
			abort();
		if (xa_parse(data + 4, size - 4, count, put, &t) == 0 &&
		    (t.bad || t.n != size - 4 || memcmp(t.out, data + 4, t.n) != 0))
			abort();
		free(t.out);
	}
	if (xa_acl_parse(data, size, &acl) == 0) {
		if (acl.n > XA_ACL_NAMES_MAX || (size - 4) % 8 != 0)
			abort();
		for (uint32_t i = 0; i < acl.n; i++)
			if ((acl.ida[i].access & ~(7u | XA_NAME_IS_USER)) != 0)
				abort();
		if ((acl.user_obj != XA_NO_ENTRY && acl.user_obj > 7) || (acl.other_obj != XA_NO_ENTRY && acl.other_obj > 7))
			abort();
		xa_acl_free(&acl);
	}
	return 0;
}
