/* SPDX-License-Identifier: ISC */
/*
 * zstd (spec part 2, 11.5): one compression context for the whole session,
 * one frame that never ends; each token flushes what is buffered.  The
 * receiver likewise keeps one decompression context.
 */
#include <stdlib.h>
#include <zstd.h>

#include "ctok.h"

#define ZS_OUT 16384
/* Memory bound for what we accept (stock's default limit, 128 MiB). */
#define ZS_WINDOW_LOG_MAX 27

struct zsenc {
	ZSTD_CCtx *cc;
	unsigned char buf[ZS_OUT];
};

static int zsenc_run(struct ctok_enc *e, const unsigned char *p, size_t n, ZSTD_EndDirective mode)
{
	struct zsenc *z = e->be;
	ZSTD_inBuffer in = { p, n, 0 };
	size_t r;

	do {
		ZSTD_outBuffer out = { z->buf, sizeof(z->buf), 0 };
		r = ZSTD_compressStream2(z->cc, &out, &in, mode);
		if (ZSTD_isError(r))
			return cenc_fail(e, "zstd compression failed: %s", ZSTD_getErrorName(r));
		if (cenc_data(e, z->buf, out.pos) != 0)
			return -1;
	} while (in.pos < in.size || (mode == ZSTD_e_flush && r != 0));
	return 0;
}

static int zsenc_put(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	return zsenc_run(e, p, n, ZSTD_e_continue);
}

static int zsenc_flush(struct ctok_enc *e)
{
	return zsenc_run(e, NULL, 0, ZSTD_e_flush);
}

static void zsenc_free(struct ctok_enc *e)
{
	struct zsenc *z = e->be;

	if (z)
		ZSTD_freeCCtx(z->cc);
	free(z);
	e->be = NULL;
}

static const struct cenc_ops zstd_enc_ops = { NULL, zsenc_put, zsenc_flush, NULL, zsenc_free };

int cenc_zstd_init(struct ctok_enc *e)
{
	struct zsenc *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return -1;
	z->cc = ZSTD_createCCtx();
	if (z->cc == NULL ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, e->level))) {
		ZSTD_freeCCtx(z->cc);
		free(z);
		return -1;
	}
	e->be = z;
	e->ops = &zstd_enc_ops;
	return 0;
}

struct zsdec {
	ZSTD_DCtx *dc;
	ZSTD_inBuffer in;
};

static int zsdec_in(struct ctok_dec *d, const unsigned char *p, size_t n)
{
	struct zsdec *z = d->be;

	z->in.src = p;
	z->in.size = n;
	z->in.pos = 0;
	return 0;
}

static int zsdec_out(struct ctok_dec *d, unsigned char *buf, size_t cap, size_t *got)
{
	struct zsdec *z = d->be;
	ZSTD_outBuffer out = { buf, cap, 0 };

	/* input may be consumed without output (headers); keep going until
	 * something comes out or the input is gone */
	do {
		size_t before = z->in.pos;
		size_t r = ZSTD_decompressStream(z->dc, &out, &z->in);
		if (ZSTD_isError(r))
			return cdec_fail(d, "zstd decompression failed: %s", ZSTD_getErrorName(r));
		if (out.pos == 0 && z->in.pos == before && z->in.pos < z->in.size)
			return cdec_fail(d, "zstd decompression made no progress");
	} while (out.pos == 0 && z->in.pos < z->in.size);
	*got = out.pos;
	return 0;
}

static void zsdec_free(struct ctok_dec *d)
{
	struct zsdec *z = d->be;

	if (z)
		ZSTD_freeDCtx(z->dc);
	free(z);
	d->be = NULL;
}

static const struct cdec_ops zstd_dec_ops = { NULL, zsdec_in, NULL, zsdec_out, NULL, zsdec_free };

int cdec_zstd_init(struct ctok_dec *d)
{
	struct zsdec *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return -1;
	z->dc = ZSTD_createDCtx();
	if (z->dc == NULL ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(z->dc, ZSTD_d_windowLogMax, ZS_WINDOW_LOG_MAX))) {
		ZSTD_freeDCtx(z->dc);
		free(z);
		return -1;
	}
	d->be = z;
	d->ops = &zstd_dec_ops;
	return 0;
}
