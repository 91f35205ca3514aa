/* SPDX-License-Identifier: ISC */
/*
 * lz4 (spec part 2, 11.6): every record is one independent LZ4 block of at
 * most 16383 input bytes whose compressed form also fits a record; when it
 * would not, compress half as much and try again.
 */
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "ctok.h"

#define LZ_BOUND LZ4_COMPRESSBOUND(CTOK_MAX_DATA)

struct lzenc {
	char buf[LZ_BOUND];
};

static int lzenc_put(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	struct lzenc *z = e->be;

	while (n > 0) {
		int k = n > CTOK_MAX_DATA ? CTOK_MAX_DATA : (int)n;
		int c;

		for (;;) {
			c = LZ4_compress_default((const char *)p, z->buf, k, LZ_BOUND);
			if (c <= 0)
				return cenc_fail(e, "lz4 compression failed");
			if (c <= CTOK_MAX_DATA)
				break;
			k /= 2; /* incompressible: smaller pieces always fit eventually */
		}
		if (cenc_record(e, (const unsigned char *)z->buf, (size_t)c) != 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void lz_free_enc(struct ctok_enc *e)
{
	free(e->be);
	e->be = NULL;
}

static const struct cenc_ops lz4_enc_ops = { NULL, lzenc_put, NULL, NULL, lz_free_enc };

int cenc_lz4_init(struct ctok_enc *e)
{
	e->be = calloc(1, sizeof(struct lzenc));
	if (e->be == NULL)
		return -1;
	e->ops = &lz4_enc_ops;
	return 0;
}

/* A record decompresses at once; out() hands it over in one piece. */
struct lzdec {
	char buf[CTOK_OUT_CAP];
	size_t len;
};

static int lzdec_in(struct ctok_dec *d, const unsigned char *p, size_t n)
{
	struct lzdec *z = d->be;
	int r = LZ4_decompress_safe((const char *)p, z->buf, (int)n, (int)sizeof(z->buf));

	if (r <= 0)
		return cdec_fail(d, "lz4 decompression failed (%d)", r);
	z->len = (size_t)r;
	return 0;
}

static int lzdec_out(struct ctok_dec *d, unsigned char *buf, size_t cap, size_t *got)
{
	struct lzdec *z = d->be;
	size_t k = z->len < cap ? z->len : cap;

	memcpy(buf, z->buf, k);
	memmove(z->buf, z->buf + k, z->len - k);
	z->len -= k;
	*got = k;
	return 0;
}

static void lz_free_dec(struct ctok_dec *d)
{
	free(d->be);
	d->be = NULL;
}

static const struct cdec_ops lz4_dec_ops = { NULL, lzdec_in, NULL, lzdec_out, NULL, lz_free_dec };

int cdec_lz4_init(struct ctok_dec *d)
{
	d->be = calloc(1, sizeof(struct lzdec));
	if (d->be == NULL)
		return -1;
	d->ops = &lz4_dec_ops;
	return 0;
}
