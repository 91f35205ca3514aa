/* SPDX-License-Identifier: ISC */
/*
 * The compressed token framing, sending side (spec part 2, 11.2).  Block
 * references are collected into runs and written only once a run is
 * complete (next literal data, a non-consecutive block, a full run, or the
 * end), as stock does, so the receiver sees bytes in file order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctok.h"

int cenc_fail(struct ctok_enc *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->err, sizeof(e->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int put_raw(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	if (e->out(e->out_ctx, p, n) != 0)
		return cenc_fail(e, "writing the token stream failed");
	return 0;
}

/* Write the queued compressed bytes as one record. */
static int rec_flush(struct ctok_enc *e)
{
	if (e->rec_n == 0)
		return 0;
	e->rec[0] = (unsigned char)(CTOK_DATA_FLAG | (e->rec_n >> 8));
	e->rec[1] = (unsigned char)(e->rec_n & 0xff);
	size_t n = e->rec_n;
	e->rec_n = 0;
	return put_raw(e, e->rec, n + 2);
}

int cenc_data(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	while (n > 0) {
		size_t k = CTOK_MAX_DATA - e->rec_n;

		if (k > n)
			k = n;
		memcpy(e->rec + 2 + e->rec_n, p, k);
		e->rec_n += k;
		p += k;
		n -= k;
		if (e->rec_n == CTOK_MAX_DATA && rec_flush(e) != 0)
			return -1;
	}
	return 0;
}

int cenc_record(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	if (n == 0 || n > CTOK_MAX_DATA)
		return cenc_fail(e, "compressed record of %zu bytes", n);
	if (rec_flush(e) != 0)
		return -1;
	memcpy(e->rec + 2, p, n);
	e->rec_n = n;
	return rec_flush(e);
}

/* The pending run, in the shortest form (REL when 0..63 past prev_end). */
static int write_run(struct ctok_enc *e)
{
	unsigned char b[7];
	size_t n = 0;
	int32_t rel = e->run_start - e->prev_end;
	int32_t extra = e->run_last - e->run_start;

	if (!e->have_run)
		return 0;
	if (rel >= 0 && rel <= 63) {
		b[n++] = (unsigned char)((extra ? CTOK_TOKENRUN_REL : CTOK_TOKEN_REL) + rel);
	} else {
		uint32_t u = (uint32_t)e->run_start;
		b[n++] = extra ? CTOK_TOKENRUN_LONG : CTOK_TOKEN_LONG;
		for (int i = 0; i < 4; i++)
			b[n++] = (unsigned char)(u >> (8 * i));
	}
	if (extra) {
		b[n++] = (unsigned char)(extra & 0xff);
		b[n++] = (unsigned char)(extra >> 8);
	}
	e->prev_end = e->run_last;
	e->have_run = 0;
	return put_raw(e, b, n);
}

/* Close off literal data before a token or END. */
static int flush_pending(struct ctok_enc *e)
{
	if (e->pending) {
		e->pending = 0;
		if (e->ops->flush && e->ops->flush(e) != 0)
			return -1;
	}
	return rec_flush(e);
}

static int enc_literal(void *ctx, const unsigned char *data, size_t len)
{
	struct ctok_enc *e = ctx;

	if (len == 0)
		return 0;
	if (write_run(e) != 0)
		return -1;
	e->pending = 1;
	return e->ops->put(e, data, len);
}

static int enc_block(void *ctx, int32_t idx, const unsigned char *data, size_t len)
{
	struct ctok_enc *e = ctx;

	if (idx < 0)
		return cenc_fail(e, "negative block index");
	if (flush_pending(e) != 0)
		return -1;
	if (e->have_run && idx == e->run_last + 1 && idx - e->run_start <= CTOK_RUN_MAX) {
		e->run_last = idx;
	} else {
		if (write_run(e) != 0)
			return -1;
		e->have_run = 1;
		e->run_start = e->run_last = idx;
	}
	if (e->ops->see)
		return e->ops->see(e, data, len);
	return 0;
}

static int enc_end(void *ctx)
{
	struct ctok_enc *e = ctx;
	unsigned char end = CTOK_END_FLAG;

	if (flush_pending(e) != 0 || write_run(e) != 0)
		return -1;
	return put_raw(e, &end, 1);
}

struct ctok_enc *ctok_enc_new(enum cpres type, int level, int protocol,
			      ctok_write_fn out, void *out_ctx)
{
	struct ctok_enc *e = calloc(1, sizeof(*e));
	int rc = -1;

	if (e == NULL || out == NULL) {
		free(e);
		return NULL;
	}
	e->type = type;
	e->level = level;
	e->protocol = protocol;
	e->out = out;
	e->out_ctx = out_ctx;
	switch (type) {
	case CPRES_ZLIB:
	case CPRES_ZLIBX: rc = cenc_zlib_init(e); break;
	case CPRES_ZSTD: rc = cenc_zstd_init(e); break;
	case CPRES_LZ4: rc = cenc_lz4_init(e); break;
	default: break;
	}
	if (rc != 0) {
		free(e);
		return NULL;
	}
	return e;
}

void ctok_enc_free(struct ctok_enc *e)
{
	if (e == NULL)
		return;
	if (e->ops && e->ops->free)
		e->ops->free(e);
	free(e);
}

int ctok_enc_begin(struct ctok_enc *e, int low)
{
	e->pending = 0;
	e->have_run = 0;
	e->prev_end = 0;
	e->rec_n = 0;
	e->err[0] = '\0';
	return e->ops->begin ? e->ops->begin(e, low) : 0;
}

void ctok_enc_sink(struct ctok_enc *e, struct token_sink *sink)
{
	sink->ctx = e;
	sink->literal = enc_literal;
	sink->block = enc_block;
	sink->end = enc_end;
}

const char *ctok_enc_error(const struct ctok_enc *e)
{
	return e->err;
}
