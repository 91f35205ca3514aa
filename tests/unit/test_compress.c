/* SPDX-License-Identifier: ISC */
/* Compressed token streams: every format through its encoder and decoder,
 * the framing's run and REL/LONG rules, the zlib history (with the
 * protocol < 31 piece rule), and corrupt input rejected cleanly. */
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "unit.h"

/* ---- memory plumbing ------------------------------------------------------ */

struct buf {
	unsigned char *p;
	size_t n, cap, pos;
};

static int buf_write(void *ctx, const unsigned char *p, size_t n)
{
	struct buf *b = ctx;

	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2 + 64;
		unsigned char *q = realloc(b->p, cap);
		if (q == NULL)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int buf_read(void *ctx, unsigned char *p, size_t n)
{
	struct buf *b = ctx;

	if (n > b->n - b->pos)
		return -1;
	memcpy(p, b->p + b->pos, n);
	b->pos += n;
	return 0;
}

static int same(const struct buf *a, const struct buf *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

static void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- a "file" to send: a basis of blocks and a script of tokens --------- */

#define OP_LIT 0
#define OP_BLK 1

struct op {
	int kind;
	int32_t idx;           /* OP_BLK */
	size_t off, len;       /* OP_LIT: bytes of `text` */
};

struct basis {
	const unsigned char *data;
	size_t bl;
	int32_t count;
	size_t size;
};

static const unsigned char *blk(const struct basis *b, int32_t i, size_t *len)
{
	size_t off = (size_t)i * b->bl;

	*len = off + b->bl <= b->size ? b->bl : b->size - off;
	return b->data + off;
}

/* Expected file content of a script. */
static void expect(const struct basis *b, const unsigned char *text, const struct op *ops, size_t nops,
		   struct buf *out)
{
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].kind == OP_LIT) {
			buf_write(out, text + ops[i].off, ops[i].len);
		} else {
			size_t len;
			const unsigned char *p = blk(b, ops[i].idx, &len);
			buf_write(out, p, len);
		}
	}
}

static int encode(struct ctok_enc *e, const struct basis *b, const unsigned char *text,
		  const struct op *ops, size_t nops, int low)
{
	struct token_sink s;

	if (ctok_enc_begin(e, low) != 0)
		return -1;
	ctok_enc_sink(e, &s);
	for (size_t i = 0; i < nops; i++) {
		int rc;
		if (ops[i].kind == OP_LIT) {
			rc = s.literal(s.ctx, text + ops[i].off, ops[i].len);
		} else {
			size_t len;
			const unsigned char *p = blk(b, ops[i].idx, &len);
			rc = s.block(s.ctx, ops[i].idx, p, len);
		}
		if (rc != 0)
			return -1;
	}
	return s.end(s.ctx);
}

/* Decode one file; 0 = END reached, the file in *out, *nblocks tokens. */
static int decode(struct ctok_dec *d, const struct basis *b, struct buf *out, size_t *nblocks)
{
	const unsigned char *data;
	size_t len;
	int32_t idx;

	if (ctok_dec_begin(d, b->count) != 0)
		return -1;
	*nblocks = 0;
	for (;;) {
		int t = ctok_dec_next(d, &data, &len, &idx);
		if (t == CTOK_END)
			return 0;
		if (t == CTOK_ERR)
			return -1;
		if (t == CTOK_DATA) {
			buf_write(out, data, len);
		} else {
			const unsigned char *p = blk(b, idx, &len);
			buf_write(out, p, len);
			if (ctok_dec_block(d, p, len) != 0)
				return -1;
			(*nblocks)++;
		}
	}
}

static unsigned char *text_data(size_t n, unsigned seed, int random)
{
	unsigned char *p = malloc(n);
	static const char *words[] = { "alpha ", "beta ", "gamma ", "delta\n", "omega ", "kappa " };

	srand(seed);
	for (size_t i = 0; i < n;) {
		if (random) {
			p[i++] = (unsigned char)rand();
			continue;
		}
		const char *w = words[rand() % 6];
		for (; *w && i < n; w++)
			p[i++] = (unsigned char)*w;
	}
	return p;
}

static const enum cpres all_types[] = { CPRES_ZLIBX, CPRES_ZLIB, CPRES_ZSTD, CPRES_LZ4 };

/* Encode files with one encoder, decode them with one decoder (zstd keeps
 * its context across files), compare with the expected content. */
static void roundtrip(const char *what, enum cpres type, int protocol, int level,
		      const struct basis *b, const unsigned char *text,
		      const struct op *ops, size_t nops, int files, int low)
{
	struct buf wire = { 0 }, want = { 0 };
	struct ctok_enc *e = ctok_enc_new(type, level, protocol, buf_write, &wire);
	struct ctok_dec *d = ctok_dec_new(type, protocol, buf_read, &wire);
	size_t want_blocks = 0;

	for (size_t i = 0; i < nops; i++)
		want_blocks += ops[i].kind == OP_BLK;
	expect(b, text, ops, nops, &want);
	CHECK(e != NULL && d != NULL);
	if (e == NULL || d == NULL)
		goto out;
	for (int f = 0; f < files; f++)
		CHECK_MSG(encode(e, b, text, ops, nops, low) == 0, "%s %s: %s", what, cpres_name(type),
			  ctok_enc_error(e));
	for (int f = 0; f < files; f++) {
		struct buf got = { 0 };
		size_t nb = 0;
		int rc = decode(d, b, &got, &nb);
		CHECK_MSG(rc == 0, "%s %s file %d: %s", what, cpres_name(type), f, ctok_dec_error(d));
		CHECK_MSG(rc == 0 && same(&got, &want),
			  "%s %s file %d: content differs (%zu vs %zu bytes)", what, cpres_name(type), f,
			  got.n, want.n);
		CHECK_MSG(rc != 0 || nb == want_blocks, "%s %s: %zu blocks, want %zu", what,
			  cpres_name(type), nb, want_blocks);
		buf_free(&got);
	}
	CHECK_MSG(wire.pos == wire.n, "%s %s: %zu bytes left over", what, cpres_name(type), wire.n - wire.pos);
out:
	ctok_enc_free(e);
	ctok_dec_free(d);
	buf_free(&wire);
	buf_free(&want);
}

static void test_mixed(void)
{
	size_t tn = 200000;
	unsigned char *text = text_data(tn, 7, 0);
	unsigned char *rnd = text_data(100000, 8, 1);
	struct basis b = { text, 700, (int32_t)((tn + 699) / 700), tn };
	struct op ops[] = {
		{ OP_BLK, 0, 0, 0 }, { OP_BLK, 1, 0, 0 }, { OP_BLK, 2, 0, 0 },
		{ OP_LIT, 0, 5000, 30000 },
		{ OP_BLK, 2, 0, 0 }, { OP_BLK, 66, 0, 0 }, { OP_BLK, 67, 0, 0 }, /* REL +63 */
		{ OP_BLK, 200, 0, 0 }, /* LONG (+133) */
		{ OP_LIT, 0, 100, 1 },
		{ OP_BLK, b.count - 1, 0, 0 }, /* the short last block */
		{ OP_LIT, 0, 0, 70000 },
		{ OP_BLK, 5, 0, 0 },
	};
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++) {
		for (int proto = 30; proto <= 31; proto++) {
			roundtrip("mixed", all_types[t], proto, 6, &b, text, ops, sizeof(ops) / sizeof(ops[0]), 3, 0);
			roundtrip("mixed low", all_types[t], proto, 6, &b, text, ops, sizeof(ops) / sizeof(ops[0]), 2, 1);
		}
	}
	/* incompressible literal data: lz4 must cut records to fit */
	struct op rops[] = { { OP_LIT, 0, 0, 100000 }, { OP_BLK, 3, 0, 0 }, { OP_LIT, 0, 7, 40000 } };
	struct basis rb = { rnd, 700, 100000 / 700, 100000 };
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
		roundtrip("random", all_types[t], 31, 9, &rb, rnd, rops, 3, 2, 0);
	/* empty file, blocks only, literal only */
	struct op only_lit[] = { { OP_LIT, 0, 0, 123 } };
	struct op only_blk[] = { { OP_BLK, 9, 0, 0 }, { OP_BLK, 10, 0, 0 } };
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++) {
		roundtrip("empty", all_types[t], 31, 6, &b, text, NULL, 0, 2, 0);
		roundtrip("lit", all_types[t], 31, 1, &b, text, only_lit, 1, 2, 0);
		roundtrip("blk", all_types[t], 31, 6, &b, text, only_blk, 2, 2, 0);
	}
	free(text);
	free(rnd);
}

/* A run longer than 65536 blocks is split; the wire bytes show how. */
static void test_long_run(void)
{
	size_t n = 70000 * 4;
	unsigned char *data = text_data(n, 3, 0);
	struct basis b = { data, 4, 70000, n };
	struct op *ops = calloc(70000, sizeof(*ops));
	struct buf wire = { 0 };

	for (int i = 0; i < 70000; i++) {
		ops[i].kind = OP_BLK;
		ops[i].idx = i;
	}
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
		roundtrip("long run", all_types[t], 31, 6, &b, data, ops, 70000, 2, 0);

	struct ctok_enc *e = ctok_enc_new(CPRES_ZLIBX, 6, 31, buf_write, &wire);
	CHECK(encode(e, &b, data, ops, 70000, 0) == 0);
	/* blocks 0..65535 as one run (REL +0, count 65535), then 65536..69999
	 * (REL +1 from prev_end 65535, count 4463), then END */
	static const unsigned char want[] = { 0xC0, 0xff, 0xff, 0xC1, 0x6f, 0x11, 0x00 };
	CHECK(wire.n == sizeof(want) && memcmp(wire.p, want, sizeof(want)) == 0);
	ctok_enc_free(e);
	buf_free(&wire);
	free(ops);
	free(data);
}

/* REL covers 0..63 past prev_end, LONG the rest; prev_end restarts per file. */
static void test_rel_long(void)
{
	unsigned char data[400];
	struct basis b = { data, 1, 400, 400 };
	struct op ops[] = { { OP_BLK, 63, 0, 0 }, { OP_BLK, 127, 0, 0 }, { OP_BLK, 200, 0, 0 },
			    { OP_BLK, 10, 0, 0 } };
	struct buf wire = { 0 };
	struct ctok_enc *e = ctok_enc_new(CPRES_ZSTD, 3, 31, buf_write, &wire);

	memset(data, 'x', sizeof(data));
	CHECK(encode(e, &b, data, ops, 4, 0) == 0);
	CHECK(encode(e, &b, data, ops, 1, 0) == 0);
	/* +63 is REL; 127 is +64 from 63, so LONG; a step back is LONG */
	static const unsigned char want2[] = {
		0xBF, 0x20, 127, 0, 0, 0, 0x20, 200, 0, 0, 0, 0x20, 10, 0, 0, 0, 0x00,
		0xBF, 0x00,
	};
	CHECK(wire.n == sizeof(want2) && memcmp(wire.p, want2, sizeof(want2)) == 0);
	ctok_enc_free(e);
	buf_free(&wire);
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
		roundtrip("rel/long", all_types[t], 31, 6, &b, data, ops, 4, 2, 0);
}

/* zlib with blocks > 65535 bytes: the piece rule must match on both sides,
 * and a decoder using the other protocol's rule must not reproduce the file. */
static void test_zlib_pieces(void)
{
	size_t bl = 100000, n = 5 * bl;
	unsigned char *data = text_data(n, 11, 0);
	/* literal data repeating bytes of the block just matched: only decodes
	 * right with the right history */
	struct basis b = { data, bl, 5, n };
	struct op ops[] = { { OP_BLK, 1, 0, 0 }, { OP_LIT, 0, bl + 70000, 20000 },
			    { OP_LIT, 0, bl + 10, 3000 }, { OP_BLK, 3, 0, 0 },
			    { OP_LIT, 0, 3 * bl + 66000, 30000 } };

	for (int p = 29; p <= 31; p++)
		roundtrip("zlib pieces", CPRES_ZLIB, p, 6, &b, data, ops, 5, 2, 0);

	for (int p = 30; p <= 31; p++) {
		struct buf wire = { 0 }, want = { 0 }, got = { 0 };
		struct ctok_enc *e = ctok_enc_new(CPRES_ZLIB, 6, p, buf_write, &wire);
		struct ctok_dec *d = ctok_dec_new(CPRES_ZLIB, p == 30 ? 31 : 30, buf_read, &wire);
		size_t nb;

		CHECK(encode(e, &b, data, ops, 5, 0) == 0);
		expect(&b, data, ops, 5, &want);
		int rc = decode(d, &b, &got, &nb);
		CHECK_MSG(rc != 0 || !same(&got, &want),
			  "protocol %d stream decoded with the other piece rule", p);
		ctok_enc_free(e);
		ctok_dec_free(d);
		buf_free(&wire);
		buf_free(&want);
		buf_free(&got);
	}
	free(data);
}

/* Corrupt and hostile streams end with CTOK_ERR, never a crash. */
static int decode_bytes(enum cpres type, const unsigned char *p, size_t n, int32_t count)
{
	struct buf in = { (unsigned char *)p, n, n, 0 };
	struct ctok_dec *d = ctok_dec_new(type, 31, buf_read, &in);
	unsigned char basis[64] = { 0 };
	struct basis b = { basis, 1, count, (size_t)count };
	struct buf out = { 0 };
	size_t nb;
	int rc = d ? decode(d, &b, &out, &nb) : -2;

	ctok_dec_free(d);
	buf_free(&out);
	return rc;
}

static void test_corrupt(void)
{
	static const unsigned char trunc_long[] = { 0x20, 1, 0 };
	static const unsigned char out_of_range[] = { 0x20, 64, 0, 0, 0, 0x00 };
	static const unsigned char run_past[] = { 0xC0 + 60, 10, 0, 0x00 };
	static const unsigned char neg_long[] = { 0x20, 0xff, 0xff, 0xff, 0xff, 0x00 };
	static const unsigned char bad_flag[] = { 0x22, 0x00 };
	static const unsigned char no_end[] = { 0x80 };
	static const unsigned char empty_rec[] = { 0x40, 0x00, 0x00 };
	static const unsigned char short_rec[] = { 0x40, 0x10, 1, 2, 3 };
	static const unsigned char junk[] = { 0x40, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	static const unsigned char ok[] = { 0x81, 0x00 };

	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++) {
		enum cpres ty = all_types[t];
		CHECK(decode_bytes(ty, ok, sizeof(ok), 8) == 0);
		CHECK(decode_bytes(ty, trunc_long, sizeof(trunc_long), 8) == -1);
		CHECK(decode_bytes(ty, out_of_range, sizeof(out_of_range), 64) == -1);
		CHECK(decode_bytes(ty, run_past, sizeof(run_past), 64) == -1);
		CHECK(decode_bytes(ty, neg_long, sizeof(neg_long), 64) == -1);
		CHECK(decode_bytes(ty, bad_flag, sizeof(bad_flag), 8) == -1);
		CHECK(decode_bytes(ty, no_end, sizeof(no_end), 8) == -1);
		CHECK(decode_bytes(ty, empty_rec, sizeof(empty_rec), 8) == -1);
		CHECK(decode_bytes(ty, short_rec, sizeof(short_rec), 8) == -1);
		CHECK_MSG(decode_bytes(ty, junk, sizeof(junk), 8) == -1, "%s junk", cpres_name(ty));
		CHECK(decode_bytes(ty, NULL, 0, 8) == -1);
	}

	/* every truncation and many single-byte flips of a real stream */
	size_t tn = 60000;
	unsigned char *text = text_data(tn, 5, 0);
	struct basis b = { text, 500, (int32_t)(tn / 500), tn };
	struct op ops[] = { { OP_LIT, 0, 0, 9000 }, { OP_BLK, 4, 0, 0 }, { OP_LIT, 0, 20000, 8000 },
			    { OP_BLK, 5, 0, 0 } };
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++) {
		struct buf wire = { 0 };
		struct ctok_enc *e = ctok_enc_new(all_types[t], 6, 31, buf_write, &wire);
		int trunc_ok = 1;

		CHECK(encode(e, &b, text, ops, 4, 0) == 0);
		for (size_t cut = 0; cut < wire.n; cut += 1 + cut / 8)
			trunc_ok &= decode_bytes(all_types[t], wire.p, cut, b.count) == -1;
		CHECK_MSG(trunc_ok, "%s: a truncated stream decoded", cpres_name(all_types[t]));
		for (size_t i = 0; i < wire.n; i += 3) {
			unsigned char *copy = malloc(wire.n);
			memcpy(copy, wire.p, wire.n);
			copy[i] ^= (unsigned char)(0x5a + i);
			(void)decode_bytes(all_types[t], copy, wire.n, b.count); /* no crash */
			free(copy);
		}
		ctok_enc_free(e);
		buf_free(&wire);
	}
	free(text);
}

static void test_choice(void)
{
	enum cpres t;

	CHECK(cpres_from_name("ZSTD") == CPRES_ZSTD && cpres_from_name("zlibx") == CPRES_ZLIBX);
	CHECK(cpres_from_name("brotli") == -1);
	CHECK(cpres_pick("zstd lz4 zlibx zlib") == CPRES_ZSTD);
	CHECK(cpres_pick("foo zlibx zlib") == CPRES_ZLIBX);
	CHECK(cpres_pick("foo bar") == -1);
	t = CPRES_ZLIB;
	CHECK(cpres_level(&t, 0, -1) == 6 && t == CPRES_ZLIB);
	CHECK(cpres_level(&t, 1, 9) == 9 && cpres_level(&t, 1, 42) == 9 && cpres_level(&t, 1, -5) == 1);
	CHECK(cpres_level(&t, 1, 0) == 0 && t == CPRES_NONE);
	t = CPRES_ZSTD;
	CHECK(cpres_level(&t, 0, 0) == 3 && cpres_level(&t, 1, 0) == 3 && t == CPRES_ZSTD);
	CHECK(cpres_level(&t, 1, 22) == 19);
	CHECK(cpres_dont_compress("", "", "dir/photo.JPG"));
	CHECK(cpres_dont_compress("", "", "a.tar.gz"));
	CHECK(!cpres_dont_compress("", "", "notes.txt"));
	CHECK(!cpres_dont_compress("", "", ".gz"));
	CHECK(cpres_dont_compress("*.bin *.GZ", "", "x/y/data.bin"));
	CHECK(cpres_dont_compress("*.bin *.GZ", "", "a.gz"));
	CHECK(!cpres_dont_compress("*.bin *.gz", "", "photo.jpg"));
	CHECK(cpres_dont_compress("*", "", "anything"));
	CHECK(cpres_dont_compress("*.bin", "txt/mp[34]", "song.MP3"));
	CHECK(cpres_dont_compress("*.bin", "txt/mp[34]", "a.txt"));
}

int main(void)
{
	test_choice();
	test_mixed();
	test_long_run();
	test_rel_long();
	test_zlib_pieces();
	test_corrupt();
	return unit_done("test_compress");
}
