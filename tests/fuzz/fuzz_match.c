/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the sum-head check and block matching (src/worker/match.c, with
 * fmap.c and csum.c underneath).
 *
 * Input layout:
 *   byte 0      flags: bit 0 in place; bit 1 raw mode; bits 2-4 checksum
 *               type; bit 5 corrupt some sums; bit 6 small fmap window;
 *               bit 7 truncate the file after fmap_open
 *   byte 1      blength (derived mode: 1 + b % 64)
 *   byte 2      s2length (derived mode: b % (digest length + 1))
 *   byte 3      protocol 27 + b % 6; also the window slack / truncation point
 *   bytes 4-7   checksum seed
 *   raw mode:   bytes 8-23 a sum head as four int32 (little-endian); the
 *               sums are taken from the following bytes, cyclically, and
 *               the rest is the file.  Only sums_check_head-approved heads
 *               reach match_file (if small enough).
 *   derived:    byte 8 = basis length / 4; then the basis; then an edit script
 *               building the file from basis pieces and literal bytes, so
 *               that blocks really match.  The sums are the basis' own.
 *
 * Checked after every run: the sink saw exactly the file's bytes in order
 * (zeros where it was truncated), once; every block token is in range and
 * as long as its block; the in-place rule holds; stats add up; end came
 * once; the whole-file sum equals a one-shot sum.  With genuine sums whose
 * strong part is long enough that a fuzzer cannot collide it, rebuilding
 * the file from the basis and the tokens (also in place) gives the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/provider.h>

#include "match.h"

#define MAX_FILE   (1 << 16)
#define MAX_COUNT  4096

struct tok {
	int32_t idx;           /* -1: literal */
	size_t pos, len;       /* output offset and length */
};

struct rec {
	struct tok t[MAX_FILE + 8];
	size_t nt;
	unsigned char data[MAX_FILE];
	size_t ndata;
	int ends;
	const struct sumset *s;
};

static struct rec rec;
static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	OSSL_PROVIDER_load(NULL, "legacy");
	OSSL_PROVIDER_load(NULL, "default");
	memfd = memfd_create("fuzz_match", 0);
	if (memfd < 0)
		abort();
	return 0;
}

static int push(struct rec *r, int32_t idx, const unsigned char *d, size_t len)
{
	if (len == 0 || r->nt >= sizeof r->t / sizeof r->t[0] || r->ndata + len > sizeof r->data)
		abort();
	if (idx >= 0 && (idx >= r->s->h.count || len != sums_block_len(r->s, idx)))
		abort();
	r->t[r->nt++] = (struct tok){ idx, r->ndata, len };
	memcpy(r->data + r->ndata, d, len);
	r->ndata += len;
	return 0;
}

static int on_literal(void *ctx, const unsigned char *d, size_t len) { return push(ctx, -1, d, len); }
static int on_block(void *ctx, int32_t i, const unsigned char *d, size_t len) { return push(ctx, i, d, len); }
static int on_end(void *ctx) { ((struct rec *)ctx)->ends++; return 0; }

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Block tokens must respect the in-place rule. */
static void check_inplace(const struct rec *r, int32_t bl)
{
	static unsigned char self[MAX_COUNT];

	memset(self, 0, sizeof self);
	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (t->idx < 0)
			continue;
		size_t boff = (size_t)t->idx * (size_t)bl;

		if (boff < t->pos && !self[t->idx])
			abort();
		if (boff == t->pos)
			self[t->idx] = 1;
	}
}

/* Rebuild from the basis (fresh, then in place) and compare. */
static void check_rebuild(const struct rec *r, const unsigned char *basis, size_t blen,
			  const unsigned char *file, size_t flen, int inplace)
{
	static unsigned char out[2 * MAX_FILE];
	int32_t bl = r->s->h.blength;
	size_t n = 0;

	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (t->idx < 0)
			memcpy(out + n, r->data + t->pos, t->len);
		else if ((size_t)t->idx * (size_t)bl + t->len <= blen)
			memcpy(out + n, basis + (size_t)t->idx * (size_t)bl, t->len);
		else
			abort();
		n += t->len;
	}
	if (n != flen || memcmp(out, file, flen) != 0)
		abort();
	if (!inplace)
		return;
	memset(out, 0, sizeof out);
	memcpy(out, basis, blen);
	n = 0;
	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (t->idx < 0)
			memcpy(out + n, r->data + t->pos, t->len);
		else
			memmove(out + n, out + (size_t)t->idx * (size_t)bl, t->len);
		n += t->len;
	}
	if (memcmp(out, file, flen) != 0)
		abort();
}

/* Run match_file on `file` and check what does not depend on the sums. */
static void run(const struct sumset *s, const struct csum_params *cp, const unsigned char *file,
		size_t flen, uint8_t flags, uint8_t b3, int *ok)
{
	static unsigned char seen[MAX_FILE];
	struct fmap f;
	struct csum_file cf;
	struct match_stats st;
	struct match_opts mo = { flags & 1 };
	struct token_sink sink = { &rec, on_literal, on_block, on_end };
	unsigned char got[CSUM_MAX_LEN], want[CSUM_MAX_LEN];
	size_t bl = s->h.blength > 0 ? (size_t)s->h.blength : 1;
	size_t window = (flags & 0x40) ? bl + 1 + b3 % 16 : bl + 65536;
	size_t cut = flen;

	if (ftruncate(memfd, 0) != 0 || pwrite(memfd, file, flen, 0) != (ssize_t)flen)
		abort();
	if (fmap_open(&f, memfd, (int64_t)flen, window) != 0)
		abort();
	if ((flags & 0x80) && flen > 0) {
		cut = (size_t)b3 * flen / 256;
		if (ftruncate(memfd, (off_t)cut) != 0)
			abort();
	}
	memcpy(seen, file, cut);
	memset(seen + cut, 0, flen - cut);

	rec.nt = rec.ndata = 0;
	rec.ends = 0;
	rec.s = s;
	if (csum_file_init(&cf, cp, 1) != 0)
		abort();
	if (match_file(&f, 0, s, cp, &mo, &sink, &cf, &st) != 0)
		abort();
	csum_file_final(&cf, got);
	if (rec.ends != 1 || rec.ndata != flen || memcmp(rec.data, seen, flen) != 0)
		abort();
	if ((f.read_error != 0) != (cut < flen))
		abort();
	if (st.literal_bytes + st.matched_bytes != (int64_t)flen)
		abort();
	int32_t nb = 0;
	for (size_t i = 0; i < rec.nt; i++)
		nb += rec.t[i].idx >= 0;
	if (nb != st.matched_blocks)
		abort();
	if (mo.inplace)
		check_inplace(&rec, s->h.blength);
	if (csum_file_init(&cf, cp, 1) != 0)
		abort();
	csum_file_update(&cf, seen, flen);
	csum_file_final(&cf, want);
	if (memcmp(got, want, CSUM_MAX_LEN) != 0)
		abort();
	fmap_close(&f);
	*ok = cut == flen;
}

static void raw_mode(const uint8_t *d, size_t size, const struct csum_params *cp, uint8_t flags)
{
	struct sum_head h;
	struct sumset s;
	const char *why;
	int ok;

	if (size < 24)
		return;
	h.count = (int32_t)le32(d + 8);
	h.blength = (int32_t)le32(d + 12);
	h.s2length = (int32_t)le32(d + 16);
	h.remainder = (int32_t)le32(d + 20);
	int rc = sums_check_head(&h, 27 + d[3] % 6, csum_len(cp->type), &why);

	if ((rc == 0) != (why == NULL))
		abort();
	if (rc != 0 || h.count > MAX_COUNT || h.blength > 4096)
		return;
	/* what the check promised */
	if (h.count < 0 || h.blength < 0 || h.s2length < 0 || h.s2length > csum_len(cp->type) ||
	    h.remainder < 0 || h.remainder > h.blength || (h.count > 0 && h.blength == 0))
		abort();
	if (sums_alloc(&s, &h) != 0)
		abort();
	const uint8_t *src = d + 24;
	size_t srclen = size - 24;
	size_t need = (size_t)h.count * (4 + (size_t)h.s2length);

	/* sums from the input, cyclically; then the file */
	for (int32_t i = 0; i < h.count && srclen > 0; i++) {
		unsigned char tmp[4 + CSUM_MAX_LEN];

		for (size_t k = 0; k < 4 + (size_t)h.s2length; k++)
			tmp[k] = src[((size_t)i * (4 + (size_t)h.s2length) + k) % srclen];
		s.sum1[i] = le32(tmp);
		memcpy(s.sum2 + (size_t)i * (size_t)h.s2length, tmp + 4, (size_t)h.s2length);
	}
	const uint8_t *file = need < srclen ? src + need : src + srclen;
	size_t flen = (size_t)(src + srclen - file);

	if (flen > MAX_FILE)
		flen = MAX_FILE;
	run(&s, cp, file, flen, flags, d[3], &ok);
	sums_free(&s);
}

static void derived_mode(const uint8_t *d, size_t size, const struct csum_params *cp, uint8_t flags)
{
	static unsigned char file[MAX_FILE];
	struct sum_head h;
	struct sumset s;
	int dlen = csum_len(cp->type);
	int ok = 0;

	if (size < 9)
		return;
	int32_t bl = 1 + d[1] % 64;
	int32_t s2 = d[2] % (dlen + 1);
	size_t blen = (size_t)d[8] * 4;
	const uint8_t *basis = d + 9;

	if (blen > size - 9)
		blen = size - 9;
	h.count = (int32_t)((blen + (size_t)bl - 1) / (size_t)bl);
	h.blength = bl;
	h.s2length = s2;
	h.remainder = (int32_t)(blen % (size_t)bl);
	if (sums_check_head(&h, 27 + d[3] % 6, dlen, NULL) != 0)
		abort();
	if (sums_alloc(&s, &h) != 0)
		abort();
	for (int32_t i = 0; i < h.count; i++) {
		unsigned char strong[CSUM_MAX_LEN];
		size_t n = sums_block_len(&s, i);

		s.sum1[i] = csum_rolling(basis + (size_t)i * (size_t)bl, n);
		csum_block(cp, basis + (size_t)i * (size_t)bl, n, strong);
		memcpy(s.sum2 + (size_t)i * (size_t)s2, strong, (size_t)s2);
	}

	/* The edit script: 0x80|n copies n+1 basis bytes from offset next
	 * byte * 4 (wrapping); otherwise (n&0x3f)+1 literal bytes follow. */
	const uint8_t *p = basis + blen, *end = d + size;
	size_t flen = 0;

	while (p < end && flen < MAX_FILE - 256) {
		uint8_t op = *p++;

		if (op & 0x80) {
			size_t n = (size_t)(op & 0x7f) + 1;
			size_t from = p < end ? (size_t)*p++ * 4 : 0;

			for (size_t k = 0; k < n && blen > 0; k++)
				file[flen++] = basis[(from + k) % blen];
		} else {
			size_t n = (size_t)(op & 0x3f) + 1;

			for (size_t k = 0; k < n && p < end; k++)
				file[flen++] = *p++;
		}
	}

	/* Corrupt a few sums: matching must stay safe, rebuilding may not
	 * reproduce the file then. */
	int corrupt = (flags & 0x20) && h.count > 0;
	if (corrupt) {
		for (int32_t i = 0; i < h.count; i += 1 + d[2] % 7) {
			s.sum1[i] ^= d[4];
			if (s2 > 0)
				s.sum2[(size_t)i * (size_t)s2] ^= d[5];
		}
	}
	run(&s, cp, file, flen, flags, d[3], &ok);
	/* A strong sum of 8+ bytes cannot be collided by the fuzzer, so
	 * genuine sums must rebuild the file. */
	if (ok && !corrupt && cp->type != CSUM_NONE && s2 >= 8)
		check_rebuild(&rec, basis, blen, file, flen, flags & 1);
	sums_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum csum_type types[8] = {
		CSUM_MD5, CSUM_XXH64, CSUM_XXH3, CSUM_XXH128, CSUM_MD4_OLD, CSUM_MD4, CSUM_SHA1, CSUM_NONE,
	};

	if (size < 8)
		return 0;
	uint8_t flags = data[0];
	struct csum_params cp = { types[(flags >> 2) & 7], (int32_t)le32(data + 4), (flags >> 3) & 1 };

	if (flags & 2)
		raw_mode(data, size, &cp, flags);
	else
		derived_mode(data, size, &cp, flags);
	return 0;
}
