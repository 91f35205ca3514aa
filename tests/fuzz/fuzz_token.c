/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the compressed token decoders (src/worker/ctok_*.c).
 *
 * Input layout:
 *   byte 0   bits 0-1 format (zlibx, zlib, zstd, lz4); bit 2 protocol 30
 *            instead of 31; bit 3 round-trip mode
 *   byte 1   block length 1 + b (the basis is fixed bytes)
 *   byte 2   block count b (0..255)
 *   decode mode: the rest is a token stream, decoded file after file until
 *            an error or the end of the input.  Checked: data and block
 *            tokens stay in bounds, no crash, no leak.
 *   round-trip mode: the rest is a script (even byte: literal of the next
 *            1 + (b & 63) * 37 input bytes; odd byte: block b >> 1 % count)
 *            encoded and decoded again; the result must equal the script's
 *            output.
 * FUZZ_TOKEN_FORMAT=0..3 in the environment pins the format (one run per
 * format).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"

#define MAX_OUT (1u << 24)   /* decoded bytes per input before we stop */

struct src {
	const uint8_t *p;
	size_t n, pos;
};

static int rd(void *ctx, unsigned char *p, size_t n)
{
	struct src *s = ctx;

	if (n > s->n - s->pos)
		return -1;
	memcpy(p, s->p + s->pos, n);
	s->pos += n;
	return 0;
}

struct sink {
	unsigned char *p;
	size_t n, cap;
};

static int wr(void *ctx, const unsigned char *p, size_t n)
{
	struct sink *s = ctx;

	if (s->n + n > s->cap) {
		size_t cap = (s->n + n) * 2;
		unsigned char *q = realloc(s->p, cap);
		if (q == NULL)
			abort();
		s->p = q;
		s->cap = cap;
	}
	memcpy(s->p + s->n, p, n);
	s->n += n;
	return 0;
}

static unsigned char basis[256 * 256];

static const enum cpres types[] = { CPRES_ZLIBX, CPRES_ZLIB, CPRES_ZSTD, CPRES_LZ4 };

/* Decode files until the input runs out; append everything to *out. */
static int decode_all(struct ctok_dec *d, size_t bl, int32_t count, struct sink *out, int files)
{
	size_t total = 0;

	for (int f = 0; files < 0 || f < files; f++) {
		if (ctok_dec_begin(d, count) != 0)
			return -1;
		for (;;) {
			const unsigned char *data;
			size_t len;
			int32_t idx;
			int t = ctok_dec_next(d, &data, &len, &idx);

			if (t == CTOK_ERR)
				return -1;
			if (t == CTOK_END)
				break;
			if (t == CTOK_BLOCK) {
				if (idx < 0 || idx >= count)
					abort();
				data = basis + (size_t)idx * bl;
				len = bl;
				if (ctok_dec_block(d, data, len) != 0)
					return -1;
			} else if (len == 0 || len > 32768) {
				abort();
			}
			total += len;
			if (out)
				wr(out, data, len);
			if (total > MAX_OUT)
				return -1;
		}
	}
	return 0;
}

static void roundtrip(enum cpres type, int proto, size_t bl, int32_t count, const uint8_t *p, size_t n)
{
	struct sink wire = { 0 }, want = { 0 }, got = { 0 };
	struct ctok_enc *e = ctok_enc_new(type, 6, proto, wr, &wire);
	struct token_sink ts;

	if (e == NULL || ctok_enc_begin(e, p[0] & 1) != 0)
		abort();
	ctok_enc_sink(e, &ts);
	for (size_t i = 1; i < n;) {
		uint8_t op = p[i++];
		if ((op & 1) == 0 || count == 0) {
			size_t k = 1 + (size_t)(op & 63) * 37;
			if (k > n - i)
				k = n - i;
			if (k == 0)
				break;
			if (ts.literal(ts.ctx, p + i, k) != 0)
				abort();
			wr(&want, p + i, k);
			i += k;
		} else {
			int32_t idx = (op >> 1) % count;
			if (ts.block(ts.ctx, idx, basis + (size_t)idx * bl, bl) != 0)
				abort();
			wr(&want, basis + (size_t)idx * bl, bl);
		}
	}
	if (ts.end(ts.ctx) != 0)
		abort();
	struct src in = { wire.p, wire.n, 0 };
	struct ctok_dec *d = ctok_dec_new(type, proto, rd, &in);
	if (d == NULL || decode_all(d, bl, count, &got, 1) != 0 || got.n != want.n ||
	    (want.n && memcmp(got.p, want.p, want.n) != 0) || in.pos != in.n)
		abort();
	ctok_dec_free(d);
	ctok_enc_free(e);
	free(wire.p);
	free(want.p);
	free(got.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (basis[1] == 0)
		for (size_t i = 0; i < sizeof(basis); i++)
			basis[i] = (unsigned char)("the quick brown fox "[i % 20] ^ (i >> 9));
	if (size < 3)
		return 0;
	static int pinned = -2;
	if (pinned == -2) {
		const char *f = getenv("FUZZ_TOKEN_FORMAT");
		pinned = f ? atoi(f) & 3 : -1;
	}
	enum cpres type = types[pinned >= 0 ? pinned : data[0] & 3];
	int proto = (data[0] & 4) ? 30 : 31;
	size_t bl = 1 + (size_t)data[1];
	int32_t count = data[2];

	if (data[0] & 8) {
		if (size > 3)
			roundtrip(type, proto, bl, count, data + 3, size - 3);
		return 0;
	}
	struct src in = { data + 3, size - 3, 0 };
	struct ctok_dec *d = ctok_dec_new(type, proto, rd, &in);
	if (d == NULL)
		abort();
	(void)decode_all(d, bl, count, NULL, -1);
	ctok_dec_free(d);
	return 0;
}
