/* SPDX-License-Identifier: ISC */
/*
 * The compressed token framing, receiving side (spec part 2, 11.2).  All
 * input is untrusted: record lengths are bounded by the framing itself,
 * block indexes and run ends by the basis, and backends bound their output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctok.h"

int cdec_fail(struct ctok_dec *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	return CTOK_ERR;
}

static int get(struct ctok_dec *d, unsigned char *p, size_t n)
{
	if (d->in(d->in_ctx, p, n) != 0)
		return cdec_fail(d, "token stream ended early");
	return 0;
}

struct ctok_dec *ctok_dec_new(enum cpres type, int protocol, ctok_read_fn in, void *in_ctx)
{
	struct ctok_dec *d = calloc(1, sizeof(*d));
	int rc = -1;

	if (d == NULL || in == NULL) {
		free(d);
		return NULL;
	}
	d->type = type;
	d->protocol = protocol;
	d->in = in;
	d->in_ctx = in_ctx;
	d->ended = 1;
	switch (type) {
	case CPRES_ZLIB:
	case CPRES_ZLIBX: rc = cdec_zlib_init(d); break;
	case CPRES_ZSTD: rc = cdec_zstd_init(d); break;
	case CPRES_LZ4: rc = cdec_lz4_init(d); break;
	default: break;
	}
	if (rc != 0) {
		free(d);
		return NULL;
	}
	return d;
}

void ctok_dec_free(struct ctok_dec *d)
{
	if (d == NULL)
		return;
	if (d->ops && d->ops->free)
		d->ops->free(d);
	free(d);
}

int ctok_dec_begin(struct ctok_dec *d, int32_t count)
{
	if (count < 0)
		return cdec_fail(d, "negative block count");
	d->count = count;
	d->prev_end = 0;
	d->run_left = 0;
	d->draining = 0;
	d->saw_data = 0;
	d->held_flag = -1;
	d->ended = 0;
	d->err[0] = '\0';
	if (d->ops->begin && d->ops->begin(d) != 0)
		return CTOK_ERR;
	return 0;
}

/* A token or run naming blocks [first, first + extra]. */
static int start_run(struct ctok_dec *d, int64_t first, int32_t extra, int32_t *idx)
{
	if (first < 0 || first + extra >= d->count)
		return cdec_fail(d, "block index %lld out of range (%ld blocks)",
				 (long long)(first + extra), (long)d->count);
	d->run_next = (int32_t)first + 1;
	d->run_left = extra;
	d->prev_end = (int32_t)(first + extra);
	*idx = (int32_t)first;
	return CTOK_BLOCK;
}

static int token(struct ctok_dec *d, int flag, int32_t *idx)
{
	unsigned char b[4];
	int64_t first;
	int32_t extra = 0;

	if (flag == CTOK_END_FLAG) {
		d->ended = 1;
		return CTOK_END;
	}
	if (flag & CTOK_TOKEN_REL) {
		first = (int64_t)d->prev_end + (flag & 0x3F);
		if (flag & 0x40) {
			if (get(d, b, 2) != 0)
				return CTOK_ERR;
			extra = b[0] | (b[1] << 8);
		}
	} else if (flag == CTOK_TOKEN_LONG || flag == CTOK_TOKENRUN_LONG) {
		if (get(d, b, 4) != 0)
			return CTOK_ERR;
		first = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				  (uint32_t)b[3] << 24);
		if (flag == CTOK_TOKENRUN_LONG) {
			if (get(d, b, 2) != 0)
				return CTOK_ERR;
			extra = b[0] | (b[1] << 8);
		}
	} else {
		return cdec_fail(d, "bad token flag 0x%02x", flag);
	}
	return start_run(d, first, extra, idx);
}

int ctok_dec_next(struct ctok_dec *d, const unsigned char **data, size_t *len, int32_t *idx)
{
	for (;;) {
		if (d->ended)
			return cdec_fail(d, "token stream read past its end");
		if (d->draining) {
			size_t got = 0;

			if (d->ops->out(d, d->out, sizeof(d->out), &got) != 0)
				return CTOK_ERR;
			if (got > 0) {
				*data = d->out;
				*len = got;
				return CTOK_DATA;
			}
			d->draining = 0;
		}
		if (d->run_left > 0) {
			*idx = d->run_next++;
			d->run_left--;
			return CTOK_BLOCK;
		}

		int flag;
		unsigned char b[2];

		if (d->held_flag >= 0) {
			flag = d->held_flag;
			d->held_flag = -1;
		} else {
			if (get(d, b, 1) != 0)
				return CTOK_ERR;
			flag = b[0];
		}
		if ((flag & 0xC0) == CTOK_DATA_FLAG) {
			size_t n;

			if (get(d, b + 1, 1) != 0)
				return CTOK_ERR;
			n = (size_t)(flag & 0x3F) << 8 | b[1];
			if (n == 0)
				return cdec_fail(d, "empty compressed record");
			if (get(d, d->rec, n) != 0 || d->ops->in(d, d->rec, n) != 0)
				return CTOK_ERR;
			d->saw_data = 1;
			d->draining = 1;
			continue;
		}
		if (d->saw_data && d->ops->sync) {
			/* the sender stripped the end of its flush: restore it and
			 * hand out what it releases before the token itself */
			d->saw_data = 0;
			d->held_flag = flag;
			if (d->ops->sync(d) != 0)
				return CTOK_ERR;
			d->draining = 1;
			continue;
		}
		d->saw_data = 0;
		return token(d, flag, idx);
	}
}

int ctok_dec_block(struct ctok_dec *d, const unsigned char *data, size_t len)
{
	return d->ops->see ? d->ops->see(d, data, len) : 0;
}

const char *ctok_dec_error(const struct ctok_dec *d)
{
	return d->err[0] ? d->err : "unknown error";
}
