/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for match.c and fmap.c: sum-head bounds, and block matching
 * checked by rebuilding the file from the basis and the token stream --
 * appended to a copy of the basis, and applied in place.  Files are real
 * temporary files read through fmap.
 */
#include "unit.h"
#include "match.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/provider.h>

/* ---- helpers -------------------------------------------------------------- */

static void fill_random(unsigned char *p, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

/* Signed-byte rolling sum written independently of csum.c. */
static uint32_t weak_ref(const unsigned char *p, size_t n)
{
	int32_t s1 = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s1 += (signed char)p[i];
		s2 += s1;
	}
	return ((uint32_t)s1 & 0xffff) | ((uint32_t)s2 << 16);
}

/* A temporary file holding `data`, unlinked at once; returns the fd. */
static int temp_file(const unsigned char *data, size_t n)
{
	char path[] = "/tmp/prsyncd-test-match-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(fd, data + off, n - off);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	return fd;
}

/* Sums of `basis` as a client would send them. */
static int make_sums(struct sumset *s, const unsigned char *basis, size_t blen,
		     int32_t bl, int32_t s2length, const struct csum_params *cp)
{
	struct sum_head h = { 0, bl, s2length, 0 };

	if (blen > 0) {
		h.count = (int32_t)((blen + (size_t)bl - 1) / (size_t)bl);
		h.remainder = (int32_t)(blen % (size_t)bl);
	}
	if (sums_alloc(s, &h) != 0)
		return -1;
	for (int32_t i = 0; i < h.count; i++) {
		const unsigned char *b = basis + (size_t)i * (size_t)bl;
		size_t n = sums_block_len(s, i);
		unsigned char strong[CSUM_MAX_LEN];

		s->sum1[i] = weak_ref(b, n);
		csum_block(cp, b, n, strong);
		memcpy(s->sum2 + (size_t)i * (size_t)s2length, strong, (size_t)s2length);
	}
	return 0;
}

/* ---- a sink that records the token stream ---------------------------------- */

struct tok {
	int32_t idx;            /* -1: literal */
	int64_t pos;            /* output offset */
	size_t len;
};

struct rec {
	struct tok *t;
	size_t nt, cap;
	unsigned char *data;    /* every byte handed to the sink, in order */
	size_t ndata, dcap;
	int ends;
	int fail_after;         /* fail the Nth callback (0: never) */
	int calls;
};

static int rec_push(struct rec *r, int32_t idx, const unsigned char *d, size_t len)
{
	if (r->fail_after && ++r->calls >= r->fail_after)
		return -1;
	if (r->nt == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->t = realloc(r->t, r->cap * sizeof *r->t);
	}
	if (r->ndata + len > r->dcap) {
		while (r->ndata + len > r->dcap)
			r->dcap = r->dcap ? 2 * r->dcap : 4096;
		r->data = realloc(r->data, r->dcap);
	}
	if (r->t == NULL || r->data == NULL)
		return -1;
	r->t[r->nt++] = (struct tok){ idx, (int64_t)r->ndata, len };
	memcpy(r->data + r->ndata, d, len);
	r->ndata += len;
	return 0;
}

static int rec_literal(void *ctx, const unsigned char *d, size_t len)
{
	if (len == 0)
		return -1;      /* match.c never sends empty literal runs */
	return rec_push(ctx, -1, d, len);
}

static int rec_block(void *ctx, int32_t idx, const unsigned char *d, size_t len)
{
	return rec_push(ctx, idx, d, len);
}

static int rec_end(void *ctx)
{
	((struct rec *)ctx)->ends++;
	return 0;
}

static void rec_free(struct rec *r)
{
	free(r->t);
	free(r->data);
	memset(r, 0, sizeof *r);
}

static const struct token_sink *sink_for(struct rec *r)
{
	static struct token_sink sink;

	sink = (struct token_sink){ r, rec_literal, rec_block, rec_end };
	return &sink;
}

/* Rebuild the new file as a receiver writing a fresh file would. */
static int rebuild(const struct rec *r, const struct sumset *s, const unsigned char *basis,
		   size_t blen, unsigned char *out, size_t cap, size_t *outlen)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (n + t->len > cap)
			return -1;
		if (t->idx < 0) {
			memcpy(out + n, r->data + t->pos, t->len);
		} else {
			size_t boff = (size_t)t->idx * (size_t)s->h.blength;

			if (t->idx >= s->h.count || t->len != sums_block_len(s, t->idx) ||
			    boff + t->len > blen)
				return -1;
			memcpy(out + n, basis + boff, t->len);
		}
		n += t->len;
	}
	*outlen = n;
	return 0;
}

/* Rebuild in place: blocks are copied from the partly rewritten file. */
static int rebuild_inplace(const struct rec *r, const struct sumset *s, const unsigned char *basis,
			   size_t blen, size_t flen, unsigned char *buf, size_t cap)
{
	size_t pos = 0;

	if (blen > cap || flen > cap)
		return -1;
	memset(buf, 0, cap);
	memcpy(buf, basis, blen);
	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (pos + t->len > cap)
			return -1;
		if (t->idx < 0) {
			memcpy(buf + pos, r->data + t->pos, t->len);
		} else {
			size_t boff = (size_t)t->idx * (size_t)s->h.blength;

			if (boff + t->len > cap)
				return -1;
			memmove(buf + pos, buf + boff, t->len);
		}
		pos += t->len;
	}
	return pos == flen ? 0 : -1;
}

/* ---- one matching run ---------------------------------------------------- */

struct run {
	struct rec rec;
	struct match_stats st;
	unsigned char fsum[CSUM_MAX_LEN];
	int rc;
	int read_error;
};

static int run_match(struct run *run, const unsigned char *file, size_t flen, int64_t start,
		     const struct sumset *s, const struct csum_params *cp, int inplace,
		     size_t window)
{
	struct fmap f;
	struct csum_file cf;
	struct match_opts mo = { inplace };
	int fd = temp_file(file, flen);

	memset(run, 0, sizeof *run);
	if (fd < 0 || fmap_open(&f, fd, (int64_t)flen, window) != 0)
		return -1;
	if (csum_file_init(&cf, cp, 1) != 0) {
		fmap_close(&f);
		close(fd);
		return -1;
	}
	run->rc = match_file(&f, start, s, cp, &mo, sink_for(&run->rec), &cf, &run->st);
	csum_file_final(&cf, run->fsum);
	run->read_error = f.read_error;
	fmap_close(&f);
	close(fd);
	return run->rc;
}

static const struct csum_params md5p = { CSUM_MD5, 0x1234, 1 };

/*
 * Match `file` against `basis` and check everything: the sink saw exactly
 * the file, rebuilding gives the file, the whole-file sum, the stats, one
 * end, and (inplace) that rebuilding in place works.  Returns the number
 * of blocks matched, or -1.
 */
static int check_case(const char *name, const unsigned char *basis, size_t blen,
		      const unsigned char *file, size_t flen, int32_t bl, int32_t s2len,
		      const struct csum_params *cp, int inplace, size_t window)
{
	struct sumset s;
	struct run run;
	unsigned char *out = malloc(flen + blen + 1);
	size_t cap = (flen > blen ? flen : blen) + 1;
	size_t outlen = 0;
	unsigned char want[CSUM_MAX_LEN];
	struct csum_file cf;
	int matched = -1;

	if (out == NULL || make_sums(&s, basis, blen, bl, s2len, cp) != 0) {
		CHECK_MSG(0, "%s: setup", name);
		free(out);
		return -1;
	}
	if (window == 0)
		window = (size_t)bl + 65536;
	CHECK_MSG(run_match(&run, file, flen, 0, &s, cp, inplace, window) == 0, "%s: match_file", name);
	CHECK_MSG(run.rec.ends == 1, "%s: one end", name);
	CHECK_MSG(run.rec.ndata == flen && (flen == 0 || memcmp(run.rec.data, file, flen) == 0),
		  "%s: the sink saw the file", name);
	CHECK_MSG(rebuild(&run.rec, &s, basis, blen, out, cap, &outlen) == 0 && outlen == flen &&
		  (flen == 0 || memcmp(out, file, flen) == 0), "%s: rebuilt file differs", name);
	if (inplace)
		CHECK_MSG(rebuild_inplace(&run.rec, &s, basis, blen, flen, out, cap) == 0 &&
			  (flen == 0 || memcmp(out, file, flen) == 0), "%s: in-place rebuild differs", name);
	CHECK_MSG(run.st.literal_bytes + run.st.matched_bytes == (int64_t)flen, "%s: stats", name);
	int nblocks = 0;
	for (size_t i = 0; i < run.rec.nt; i++)
		nblocks += run.rec.t[i].idx >= 0;
	CHECK_MSG(run.st.matched_blocks == nblocks, "%s: block count", name);
	CHECK(csum_file_init(&cf, cp, 1) == 0);
	csum_file_update(&cf, file, flen);
	csum_file_final(&cf, want);
	CHECK_MSG(memcmp(want, run.fsum, CSUM_MAX_LEN) == 0, "%s: file sum", name);
	CHECK_MSG(run.read_error == 0, "%s: read error %d", name, run.read_error);
	if (run.rc == 0)
		matched = run.st.matched_blocks;
	rec_free(&run.rec);
	sums_free(&s);
	free(out);
	return matched;
}

/* ---- sum head ------------------------------------------------------------- */

static void test_check_head(void)
{
	const char *why = NULL;
	struct {
		struct sum_head h;
		int proto, dlen, ok;
	} v[] = {
		{ { 0, 0, 0, 0 }, 32, 16, 1 },                 /* no basis */
		{ { 0, 700, 2, 0 }, 32, 16, 1 },               /* empty basis, blength kept */
		{ { 3, 16, 2, 4 }, 32, 16, 1 },                /* appendix B */
		{ { 3, 16, 16, 16 }, 32, 16, 1 },              /* remainder == blength */
		{ { 1, 1, 0, 0 }, 32, 1, 1 },                  /* s2length 0 is legal */
		{ { 5, 700, 8, 0 }, 32, 8, 1 },                /* xxh64 full length */
		{ { 5, 700, 9, 0 }, 32, 8, 0 },                /* CVE-2024-12084 */
		{ { 5, 700, 16, 0 }, 32, 8, 0 },               /* checking against 16 is the bug */
		{ { 5, 700, 20, 0 }, 32, 20, 1 },              /* sha1 */
		{ { 5, 700, 21, 0 }, 32, 20, 0 },
		{ { 5, 700, 2, 0 }, 32, 0, 0 },                /* session without a digest */
		{ { 5, 700, 2, 0 }, 32, 21, 0 },
		{ { -1, 700, 2, 0 }, 32, 16, 0 },
		{ { INT32_MIN, 700, 2, 0 }, 32, 16, 0 },
		{ { SUMS_MAX_COUNT, 700, 2, 0 }, 32, 16, 1 },
		{ { SUMS_MAX_COUNT + 1, 700, 2, 0 }, 32, 16, 0 },
		{ { INT32_MAX, 131072, 20, 0 }, 32, 20, 0 },
		{ { 1, 0, 2, 0 }, 32, 16, 0 },                 /* blocks need a length */
		{ { 1, -700, 2, 0 }, 32, 16, 0 },
		{ { 0, -1, 0, 0 }, 32, 16, 0 },
		{ { 1, 1 << 17, 2, 0 }, 30, 16, 1 },
		{ { 1, (1 << 17) + 1, 2, 0 }, 30, 16, 0 },
		{ { 1, (1 << 17) + 1, 2, 0 }, 32, 16, 0 },
		{ { 1, (1 << 17) + 1, 2, 0 }, 29, 16, 1 },     /* 2^29 below 30 */
		{ { 1, 1 << 29, 2, 0 }, 27, 16, 1 },
		{ { 1, (1 << 29) + 1, 2, 0 }, 29, 16, 0 },
		{ { 1, INT32_MAX, 2, 0 }, 29, 16, 0 },
		{ { 1, 700, -1, 0 }, 32, 16, 0 },
		{ { 1, 700, INT32_MIN, 0 }, 32, 16, 0 },
		{ { 1, 700, 2, -1 }, 32, 16, 0 },
		{ { 1, 700, 2, 701 }, 32, 16, 0 },
		{ { 1, 700, 2, 700 }, 32, 16, 1 },
		{ { 0, 700, 2, 5 }, 32, 16, 0 },               /* remainder without blocks */
		{ { 0, 0, 0, 1 }, 32, 16, 0 },
	};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		why = NULL;
		int rc = sums_check_head(&v[i].h, v[i].proto, v[i].dlen, &why);

		CHECK_MSG(rc == (v[i].ok ? 0 : -1), "case %zu", i);
		CHECK_MSG(v[i].ok ? why == NULL : why != NULL && *why != '\0', "case %zu reason", i);
	}
	struct sum_head bad = { -1, 0, 0, 0 };
	CHECK(sums_check_head(&bad, 32, 16, NULL) == -1);     /* why may be NULL */
}

static void test_alloc(void)
{
	struct sumset s;
	struct sum_head h = { 3, 16, 2, 4 };

	CHECK(sums_alloc(&s, &h) == 0);
	CHECK(s.sum1 != NULL && s.sum2 != NULL && s.h.count == 3);
	if (s.sum1 == NULL || s.sum2 == NULL)
		return;
	CHECK(s.sum1[2] == 0 && s.sum2[5] == 0);      /* zeroed */
	CHECK(sums_block_len(&s, 0) == 16);
	CHECK(sums_block_len(&s, 1) == 16);
	CHECK(sums_block_len(&s, 2) == 4);
	CHECK(sums_block_len(&s, 3) == 0);
	CHECK(sums_block_len(&s, -1) == 0);
	sums_free(&s);
	CHECK(s.sum1 == NULL && s.h.count == 0);
	sums_free(&s);                                 /* twice is harmless */

	h = (struct sum_head){ 2, 16, 2, 16 };         /* remainder == blength */
	CHECK(sums_alloc(&s, &h) == 0);
	CHECK(sums_block_len(&s, 1) == 16);
	sums_free(&s);
	h = (struct sum_head){ 2, 16, 2, 0 };
	CHECK(sums_alloc(&s, &h) == 0);
	CHECK(sums_block_len(&s, 1) == 16);
	sums_free(&s);

	h = (struct sum_head){ 0, 0, 0, 0 };
	CHECK(sums_alloc(&s, &h) == 0);
	CHECK(sums_block_len(&s, 0) == 0);
	sums_free(&s);

	h = (struct sum_head){ 1, 16, 0, 0 };          /* s2length 0 still gets a buffer */
	CHECK(sums_alloc(&s, &h) == 0 && s.sum2 != NULL);
	sums_free(&s);

	/* Unchecked heads are refused rather than trusted. */
	h = (struct sum_head){ -1, 16, 2, 0 };
	CHECK(sums_alloc(&s, &h) == -1 && s.sum1 == NULL);
	h = (struct sum_head){ SUMS_MAX_COUNT + 1, 16, 2, 0 };
	CHECK(sums_alloc(&s, &h) == -1);
	h = (struct sum_head){ 1, 16, 21, 0 };
	CHECK(sums_alloc(&s, &h) == -1);
	h = (struct sum_head){ 1, 16, -1, 0 };
	CHECK(sums_alloc(&s, &h) == -1);
	sums_free(&s);
}

/* ---- fmap ------------------------------------------------------------------ */

static void test_fmap(void)
{
	unsigned char data[10000];
	struct fmap f;
	const unsigned char *p;
	int fd;

	fill_random(data, sizeof data, 9);
	fd = temp_file(data, sizeof data);
	CHECK(fd >= 0);

	CHECK(fmap_open(&f, fd, sizeof data, 1000) == 0);
	/* Forward, overlapping, backward and repeated requests. */
	static const struct { int64_t off; size_t len; } req[] = {
		{ 0, 10 }, { 5, 1000 }, { 900, 200 }, { 1500, 1000 }, { 0, 1 }, { 9000, 1000 },
		{ 9999, 1 }, { 10000, 0 }, { 4000, 999 }, { 4001, 999 }, { 3000, 1000 },
	};
	for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
		p = fmap_ptr(&f, req[i].off, req[i].len);
		CHECK_MSG(p != NULL && memcmp(p, data + req[i].off, req[i].len) == 0, "request %zu", i);
	}
	CHECK(f.read_error == 0);

	/* Out of contract: zeros and EINVAL, never an overflow. */
	p = fmap_ptr(&f, -1, 10);
	CHECK(p != NULL && p[0] == 0 && p[9] == 0 && f.read_error == EINVAL);
	f.read_error = 0;
	p = fmap_ptr(&f, 9995, 10);
	CHECK(p != NULL && p[0] == 0 && p[9] == 0 && f.read_error == EINVAL);
	f.read_error = 0;
	p = fmap_ptr(&f, 10001, 0);
	CHECK(p != NULL && f.read_error == EINVAL);
	f.read_error = 0;
	p = fmap_ptr(&f, INT64_MAX, 10);
	CHECK(p != NULL && f.read_error == EINVAL);
	f.read_error = 0;
	CHECK(fmap_ptr(&f, 0, 1001) == NULL && f.read_error == EINVAL);   /* longer than the window */
	f.read_error = 0;
	p = fmap_ptr(&f, 20, 30);                      /* still works afterwards */
	CHECK(p != NULL && memcmp(p, data + 20, 30) == 0 && f.read_error == 0);
	fmap_close(&f);
	CHECK(f.buf == NULL);
	fmap_close(&f);

	/* The window never exceeds the file. */
	CHECK(fmap_open(&f, fd, 100, 1 << 20) == 0 && f.buf_cap == 100);
	p = fmap_ptr(&f, 0, 100);
	CHECK(p != NULL && memcmp(p, data, 100) == 0);
	fmap_close(&f);
	CHECK(fmap_open(&f, fd, 0, 1 << 20) == 0);
	CHECK(fmap_ptr(&f, 0, 0) != NULL && f.read_error == 0);
	fmap_close(&f);
	CHECK(fmap_open(&f, fd, -1, 100) == -1);
	fmap_close(&f);

	/* A file that shrinks after open reads as zeros, with EIO. */
	CHECK(fmap_open(&f, fd, sizeof data, 4096) == 0);
	p = fmap_ptr(&f, 0, 100);
	CHECK(p != NULL && memcmp(p, data, 100) == 0);
	CHECK(ftruncate(fd, 6000) == 0);
	p = fmap_ptr(&f, 5000, 2000);
	CHECK(p != NULL && memcmp(p, data + 5000, 1000) == 0);
	int zeros = 1;
	for (int i = 1000; i < 2000; i++)
		zeros &= p[i] == 0;
	CHECK(zeros && f.read_error == EIO);
	p = fmap_ptr(&f, 9000, 1000);
	CHECK(p != NULL && p[0] == 0 && p[999] == 0 && f.read_error == EIO);
	fmap_close(&f);

	/* A read error (bad descriptor) reads as zeros with its errno. */
	CHECK(fmap_open(&f, -1, 100, 100) == 0);
	p = fmap_ptr(&f, 0, 50);
	CHECK(p != NULL && p[0] == 0 && p[49] == 0 && f.read_error == EBADF);
	fmap_close(&f);
	close(fd);
}

/* ---- matching ------------------------------------------------------------ */

static unsigned char *cat3(const unsigned char *a, size_t an, const unsigned char *b, size_t bn,
			   const unsigned char *c, size_t cn, size_t *n)
{
	unsigned char *p = malloc(an + bn + cn + 1);

	if (p == NULL)
		abort();
	if (an > 0)
		memcpy(p, a, an);
	if (bn > 0)
		memcpy(p + an, b, bn);
	if (cn > 0)
		memcpy(p + an + bn, c, cn);
	*n = an + bn + cn;
	return p;
}

static void test_basic_cases(void)
{
	enum { N = 20000 };
	static unsigned char basis[N], extra[3000];
	unsigned char *file;
	size_t flen;
	int m;

	fill_random(basis, N, 1);
	fill_random(extra, sizeof extra, 2);

	/* identical: every block, no literal data */
	m = check_case("identical", basis, N, basis, N, 700, 2, &md5p, 0, 0);
	CHECK(m == (N + 699) / 700);

	file = cat3(basis, 10000, extra, 100, basis + 10000, N - 10000, &flen);
	m = check_case("insertion", basis, N, file, flen, 700, 2, &md5p, 0, 0);
	CHECK_MSG(m >= (N / 700) - 1, "insertion matched %d", m);
	free(file);

	file = cat3(basis, 5000, NULL, 0, basis + 5123, N - 5123, &flen);
	m = check_case("deletion", basis, N, file, flen, 700, 2, &md5p, 0, 0);
	CHECK_MSG(m >= (N / 700) - 2, "deletion matched %d", m);
	free(file);

	/* appended data: the basis' short last block is no longer at EOF */
	file = cat3(basis, N, extra, sizeof extra, NULL, 0, &flen);
	m = check_case("appended", basis, N, file, flen, 700, 2, &md5p, 0, 0);
	CHECK(m == N / 700);
	free(file);

	/* prefix of the basis: the last block of the file is short and
	 * matches no block (the basis' short block is elsewhere) */
	m = check_case("truncated", basis, N, basis, 10050, 700, 2, &md5p, 0, 0);
	CHECK(m == 10050 / 700);

	/* short last block matched at EOF */
	m = check_case("short last", basis, 7005, basis, 7005, 700, 16, &md5p, 0, 0);
	CHECK(m == 11);

	/* no basis: all literal */
	m = check_case("count 0", basis, 0, basis, N, 700, 2, &md5p, 0, 0);
	CHECK(m == 0);

	/* empty file, with and without sums */
	m = check_case("empty", basis, N, basis, 0, 700, 2, &md5p, 0, 0);
	CHECK(m == 0);
	m = check_case("empty, no basis", basis, 0, basis, 0, 700, 2, &md5p, 0, 0);
	CHECK(m == 0);

	/* tiny blocks, files smaller than a block */
	m = check_case("blength 1", basis, 300, basis + 100, 300, 1, 2, &md5p, 0, 0);
	CHECK(m >= 200);
	m = check_case("file < block", basis, 2000, basis, 100, 700, 2, &md5p, 0, 0);
	CHECK(m == 0);
	m = check_case("basis < block", basis, 100, basis, 100, 700, 2, &md5p, 0, 0);
	CHECK(m == 1);

	/* the smallest window that works, to exercise re-mapping */
	file = cat3(basis, 10000, extra, 100, basis + 10000, N - 10000, &flen);
	m = check_case("window blength+1", basis, N, file, flen, 700, 2, &md5p, 0, 701);
	CHECK_MSG(m >= (N / 700) - 1, "small window matched %d", m);
	m = check_case("window blength+7", basis, N, file, flen, 64, 4, &md5p, 0, 71);
	CHECK_MSG(m >= (N / 64) - 2, "small window matched %d", m);
	free(file);
}

/* The short last block must only match at the very end of the file. */
static void test_eof_block(void)
{
	unsigned char basis[800], file[1000];
	struct sumset s;
	struct run run;

	fill_random(basis, sizeof basis, 3);
	/* basis = A(700) T(100); file = T(100) R(800) T(100) */
	memcpy(file, basis + 700, 100);
	fill_random(file + 100, 800, 4);
	memcpy(file + 900, basis + 700, 100);
	CHECK(make_sums(&s, basis, sizeof basis, 700, 16, &md5p) == 0);
	CHECK(run_match(&run, file, sizeof file, 0, &s, &md5p, 0, 700 + 65536) == 0);
	CHECK(run.st.matched_blocks == 1);
	int ok = 0;
	for (size_t i = 0; i < run.rec.nt; i++)
		if (run.rec.t[i].idx == 1)
			ok = run.rec.t[i].pos == 900 && run.rec.t[i].len == 100;
	CHECK(ok);
	rec_free(&run.rec);

	/* ... and with T also embedded where a 700-byte window covers it:
	 * file = T R(600): 700 bytes, the window is full length, no match */
	memcpy(file, basis + 700, 100);
	CHECK(run_match(&run, file, 700, 0, &s, &md5p, 0, 700 + 65536) == 0);
	CHECK(run.st.matched_blocks == 0);
	rec_free(&run.rec);
	sums_free(&s);

	/* Forged sums where the short block's sums equal a full window's
	 * (s2length 0, so the weak sum decides): still no match, since the
	 * lengths differ. */
	struct sum_head fh = { 2, 16, 0, 5 };
	CHECK(sums_alloc(&s, &fh) == 0);
	s.sum1[0] = 0x12345678;
	s.sum1[1] = csum_rolling(file, 16);
	CHECK(run_match(&run, file, 16, 0, &s, &md5p, 0, 16 + 65536) == 0);
	CHECK(run.st.matched_blocks == 0 && run.rec.ndata == 16);
	rec_free(&run.rec);
	s.sum1[0] = csum_rolling(file, 16);           /* now the full block does match */
	CHECK(run_match(&run, file, 16, 0, &s, &md5p, 0, 16 + 65536) == 0);
	CHECK(run.st.matched_blocks == 1 && run.rec.nt == 1 && run.rec.t[0].idx == 0);
	rec_free(&run.rec);
	sums_free(&s);

	/* The same via check_case: file ends with T after a full block. */
	memcpy(file, basis, 700);
	memcpy(file + 700, basis + 700, 100);
	CHECK(check_case("eof block", basis, 800, file, 800, 700, 16, &md5p, 0, 0) == 2);
}

static void test_random_edits(void)
{
	static const int32_t bls[] = { 1, 2, 3, 7, 16, 64, 500, 700, 4096 };
	static unsigned char basis[30000], file[31000];

	for (size_t b = 0; b < sizeof bls / sizeof bls[0]; b++) {
		for (int round = 0; round < 3; round++) {
			uint32_t x = (uint32_t)(b * 10 + (size_t)round + 1) * 2654435761u;
			size_t blen = 5000 + (x % 25000);
			size_t flen = 0;
			char name[64];

			fill_random(basis, blen, x);
			/* copy with a few random edits: flips, inserts, drops */
			for (size_t i = 0; i < blen && flen < sizeof file - 2; i++) {
				x ^= x << 13; x ^= x >> 17; x ^= x << 5;
				switch (x % 20000) {
				case 0: file[flen++] = (unsigned char)(basis[i] ^ 0x5a); break;
				case 1: file[flen++] = (unsigned char)x; file[flen++] = basis[i]; break;
				case 2: break;
				default: file[flen++] = basis[i]; break;
				}
			}
			snprintf(name, sizeof name, "random bl=%d round %d", bls[b], round);
			int m = check_case(name, basis, blen, file, flen, bls[b], 4, &md5p, round == 2, 0);
			CHECK_MSG(m > 0, "%s matched %d", name, m);
		}
	}
}

/* Bytes >= 0x80: the rolling sum must treat them as negative, or nothing
 * matches after the window moves. */
static void test_high_bytes(void)
{
	static unsigned char basis[8000], file[8003];
	size_t i;

	fill_random(basis, sizeof basis, 17);
	for (i = 0; i < sizeof basis; i++)
		basis[i] |= 0x80;
	file[0] = 0xff;
	file[1] = 0x80;
	file[2] = 0x81;
	memcpy(file + 3, basis, sizeof basis);
	int m = check_case("high bytes", basis, sizeof basis, file, sizeof file, 500, 2, &md5p, 0, 0);
	CHECK(m == 16);
	memset(basis, 0xff, sizeof basis);
	memset(file, 0xff, sizeof file);
	m = check_case("all 0xff", basis, sizeof basis, file, sizeof file, 500, 2, &md5p, 0, 0);
	CHECK(m == 16);
}

/* Every checksum type matches with its own sums. */
static void test_all_types(void)
{
	static unsigned char basis[9000], file[9100];
	int32_t seeds[] = { 0, 1234567, -5 };

	fill_random(basis, sizeof basis, 23);
	memcpy(file, basis, 4000);
	fill_random(file + 4000, 100, 24);
	memcpy(file + 4100, basis + 4000, 5000);
	for (int t = CSUM_MD4_OLD; t <= CSUM_XXH128; t++) {
		for (size_t k = 0; k < 3; k++) {
			struct csum_params cp = { (enum csum_type)t, seeds[k], (int)(k & 1) };
			char name[64];

			snprintf(name, sizeof name, "%s seed %d", csum_name((enum csum_type)t), seeds[k]);
			int m = check_case(name, basis, sizeof basis, file, sizeof file, 300,
					   csum_len((enum csum_type)t), &cp, 0, 0);
			CHECK_MSG(m >= 28, "%s matched %d", name, m);
		}
	}
}

/* Does any block token break the in-place rule? */
static int inplace_violations(const struct rec *r, int32_t bl)
{
	unsigned char *self = calloc(1 << 16, 1);
	int bad = 0;

	for (size_t i = 0; i < r->nt; i++) {
		const struct tok *t = &r->t[i];

		if (t->idx < 0)
			continue;
		int64_t boff = (int64_t)t->idx * bl;

		if (boff < t->pos && !self[t->idx])
			bad++;
		if (boff == t->pos)
			self[t->idx] = 1;
	}
	free(self);
	return bad;
}

static void test_inplace(void)
{
	enum { BL = 700, NB = 40 };
	static unsigned char basis[BL * NB], file[BL * NB + 2000];
	static unsigned char extra[1000];
	struct sumset s;
	struct run run;

	fill_random(basis, sizeof basis, 31);
	fill_random(extra, sizeof extra, 32);

	/* 1000 bytes inserted near the start: without the rule every later
	 * block is referenced from behind; with it, they cannot be. */
	memcpy(file, basis, 2 * BL);
	memcpy(file + 2 * BL, extra, 1000);
	memcpy(file + 2 * BL + 1000, basis + 2 * BL, sizeof basis - 2 * BL);
	size_t flen = sizeof basis + 1000;

	CHECK(make_sums(&s, basis, sizeof basis, BL, 8, &md5p) == 0);
	CHECK(run_match(&run, file, flen, 0, &s, &md5p, 0, BL + 65536) == 0);
	CHECK(inplace_violations(&run.rec, BL) > 0);      /* the test is meaningful */
	unsigned char *buf = malloc(sizeof file + 1);
	CHECK(rebuild_inplace(&run.rec, &s, basis, sizeof basis, flen, buf, sizeof file + 1) != 0 ||
	      memcmp(buf, file, flen) != 0);
	rec_free(&run.rec);
	CHECK(run_match(&run, file, flen, 0, &s, &md5p, 1, BL + 65536) == 0);
	CHECK(inplace_violations(&run.rec, BL) == 0);
	CHECK(run.st.matched_blocks == 2);
	CHECK(rebuild_inplace(&run.rec, &s, basis, sizeof basis, flen, buf, sizeof file + 1) == 0 &&
	      memcmp(buf, file, flen) == 0);
	rec_free(&run.rec);
	free(buf);
	sums_free(&s);
	check_case("inplace insertion", basis, sizeof basis, file, flen, BL, 8, &md5p, 1, 0);

	/* Blocks matched at their own offset stay usable: B0 B1 B2 B3 B1 B2. */
	memcpy(file, basis, 4 * BL);
	memcpy(file + 4 * BL, basis + BL, 2 * BL);
	CHECK(check_case("inplace self-matched", basis, 4 * BL, file, 6 * BL, BL, 8, &md5p, 1, 0) == 6);

	/* Moving data backwards is fine, forwards is not: B2 B0 B1 B3. */
	memcpy(file, basis + 2 * BL, BL);
	memcpy(file + BL, basis, 2 * BL);
	memcpy(file + 3 * BL, basis + 3 * BL, BL);
	CHECK(check_case("inplace reorder", basis, 4 * BL, file, 4 * BL, BL, 8, &md5p, 1, 0) == 2);
	CHECK(check_case("reorder", basis, 4 * BL, file, 4 * BL, BL, 8, &md5p, 0, 0) == 4);

	/* Short last block at EOF, in place, at its own offset and moved. */
	CHECK(check_case("inplace short last", basis, 3 * BL + 5, basis, 3 * BL + 5, BL, 8, &md5p, 1, 0) == 4);
	memcpy(file, basis + BL, 2 * BL + 5);
	CHECK(check_case("inplace short moved", basis, 3 * BL + 5, file, 2 * BL + 5, BL, 8, &md5p, 1, 0) == 3);

	/* Identical all-zero files in place: each block at its own offset. */
	memset(basis, 0, sizeof basis);
	CHECK(check_case("inplace zeros", basis, sizeof basis, basis, sizeof basis, BL, 8, &md5p, 1, 0) == NB);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Hostile sums: every sum1 equal. */
static void test_hostile(void)
{
	enum { FLEN = 4 << 20, BL = 700 };
	unsigned char *file = calloc(FLEN, 1);
	struct sum_head h = { 100000, BL, 16, 0 };
	struct sumset s;
	struct run run;
	double t0;

	/* (a) All-zero file; every sum1 is the weak sum of a zero block (0),
	 * the strong sums are garbage: weak hits at every offset. */
	CHECK(file != NULL && sums_alloc(&s, &h) == 0);
	if (file == NULL || s.sum1 == NULL) {
		free(file);
		return;
	}
	for (int32_t i = 0; i < h.count; i++) {
		s.sum1[i] = 0;
		memset(s.sum2 + 16 * i, 0x77, 16);
	}
	t0 = now();
	CHECK(run_match(&run, file, FLEN, 0, &s, &md5p, 0, BL + 65536) == 0);
	double dt = now() - t0;
	CHECK_MSG(dt < 20.0, "hostile (a) took %.1f s", dt);
	/* the work is counted: 8 MiB + 16 bytes of hashing per file byte */
	CHECK_MSG(run.st.missed_bytes <= (8 << 20) + 16LL * FLEN + BL &&
		  run.st.strong_bytes == run.st.missed_bytes,
		  "hostile (a): %lld bytes hashed", (long long)run.st.strong_bytes);
	CHECK(run.st.matched_blocks == 0 && run.st.literal_bytes == FLEN);
	CHECK(run.rec.ndata == FLEN && memcmp(run.rec.data, file, FLEN) == 0);
	rec_free(&run.rec);

	/* (b) The same with the in-place rule. */
	t0 = now();
	CHECK(run_match(&run, file, FLEN, 0, &s, &md5p, 1, BL + 65536) == 0);
	dt = now() - t0;
	CHECK_MSG(dt < 20.0, "hostile (b) took %.1f s", dt);
	rec_free(&run.rec);

	/* (c) Random file, all sum1 equal to some value; still linear. */
	fill_random(file, FLEN, 77);
	for (int32_t i = 0; i < h.count; i++)
		s.sum1[i] = 0xdeadbeef;
	t0 = now();
	CHECK(run_match(&run, file, FLEN, 0, &s, &md5p, 0, BL + 65536) == 0);
	dt = now() - t0;
	CHECK_MSG(dt < 20.0, "hostile (c) took %.1f s", dt);
	rec_free(&run.rec);
	sums_free(&s);

	/* (e) The budget follows the file, not the claim: 2^20 blocks of 2^17
	 * bytes (a 128 GiB "basis") against 4 MiB of zeros, and against 16 MiB:
	 * at most 8 MiB + 16x the file of failed strong sums either way. */
	for (int k = 0; k < 2; k++) {
		size_t flen = k ? 4 * (size_t)FLEN : FLEN;
		unsigned char *z = calloc(flen, 1);
		struct sum_head hh = { 1 << 20, 1 << 17, 16, 0 };
		struct sumset ss;

		CHECK(z != NULL && sums_alloc(&ss, &hh) == 0);
		if (z == NULL || ss.sum1 == NULL) {
			free(z);
			continue;
		}
		for (int32_t i = 0; i < hh.count; i++) {
			ss.sum1[i] = 0;
			memset(ss.sum2 + 16 * i, 0x77, 16);
		}
		CHECK(run_match(&run, z, flen, 0, &ss, &md5p, 0, (1 << 17) + 65536) == 0);
		CHECK_MSG(run.st.missed_bytes <= (8 << 20) + 16LL * (int64_t)flen + (1 << 17),
			  "hostile (e) on %zu bytes: %lld bytes hashed", flen, (long long)run.st.missed_bytes);
		CHECK(run.st.literal_bytes == (int64_t)flen);
		rec_free(&run.rec);
		sums_free(&ss);
		free(z);
	}

	/* (d) Genuine but identical sums (zero basis, zero file): everything
	 * matches, and the adjacent-block preference makes it 0, 1, 2, ... */
	memset(file, 0, FLEN);
	h = (struct sum_head){ FLEN / BL, BL, 16, 0 };
	CHECK(make_sums(&s, file, (size_t)h.count * BL, BL, 16, &md5p) == 0);
	t0 = now();
	CHECK(run_match(&run, file, (size_t)h.count * BL, 0, &s, &md5p, 0, BL + 65536) == 0);
	dt = now() - t0;
	CHECK_MSG(dt < 20.0, "hostile (d) took %.1f s", dt);
	CHECK(run.st.matched_blocks == h.count);
	int in_order = 1;
	for (size_t i = 0; i < run.rec.nt; i++)
		in_order &= run.rec.t[i].idx == (int32_t)i;
	CHECK(in_order);
	rec_free(&run.rec);
	sums_free(&s);

	/* (e) In place, honest data: the basis is zeros, the new file is
	 * random data over the basis' range and then 4 MiB of zeros.  Every
	 * window in the zeros matches every block strongly, but all of them
	 * are already overwritten: they must be skipped without a strong sum
	 * per byte. */
	enum { NB = 100 };
	unsigned char *zb = calloc(NB * BL, 1);
	fill_random(file, NB * BL, 5);
	memset(file + NB * BL, 0, FLEN - NB * BL);
	CHECK(zb != NULL && make_sums(&s, zb, NB * BL, BL, 16, &md5p) == 0);
	t0 = now();
	CHECK(run_match(&run, file, FLEN, 0, &s, &md5p, 1, BL + 65536) == 0);
	dt = now() - t0;
	CHECK_MSG(dt < 3.0, "in-place dead blocks took %.1f s", dt);
	CHECK(run.st.matched_blocks == 0 && run.rec.ndata == FLEN);
	rec_free(&run.rec);
	sums_free(&s);
	free(zb);
	free(file);
}

/* The file shrinks between fmap_open and matching: the missing bytes are
 * sent as zeros and read_error is set. */
static void test_truncated(void)
{
	static unsigned char data[20000], basis[20000];
	struct sumset s;
	struct fmap f;
	struct rec r = { 0 };
	struct match_stats st;
	int fd;

	fill_random(data, sizeof data, 41);
	memcpy(basis, data, sizeof basis);
	CHECK(make_sums(&s, basis, sizeof basis, 700, 4, &md5p) == 0);
	fd = temp_file(data, sizeof data);
	CHECK(fd >= 0 && fmap_open(&f, fd, sizeof data, 700 + 4096) == 0);
	CHECK(ftruncate(fd, 12345) == 0);
	CHECK(match_file(&f, 0, &s, &md5p, NULL, sink_for(&r), NULL, &st) == 0);
	CHECK(f.read_error == EIO);
	CHECK(r.ndata == sizeof data && memcmp(r.data, data, 12345) == 0);
	int zeros = 1;
	for (size_t i = 12345; i < sizeof data; i++)
		zeros &= r.data[i] == 0;
	CHECK(zeros && r.ends == 1);
	rec_free(&r);
	fmap_close(&f);
	close(fd);
	sums_free(&s);
}

static int fail_literal(void *ctx, const unsigned char *d, size_t n) { return -1; }

/* Contract violations and sink failures fail cleanly. */
static void test_failures(void)
{
	static unsigned char data[5000];
	struct sumset s;
	struct fmap f;
	struct rec r = { 0 };
	struct match_stats st;
	struct match_opts mo = { 0 };
	int fd;

	fill_random(data, sizeof data, 51);
	CHECK(make_sums(&s, data, sizeof data, 700, 4, &md5p) == 0);
	fd = temp_file(data, sizeof data);

	/* window too small for a block + 1: refused before any output */
	CHECK(fd >= 0 && fmap_open(&f, fd, sizeof data, 700) == 0);
	CHECK(match_file(&f, 0, &s, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	CHECK(r.nt == 0 && r.ends == 0);
	fmap_close(&f);

	/* a failing sink */
	CHECK(fmap_open(&f, fd, sizeof data, 700 + 65536) == 0);
	r.fail_after = 1;
	CHECK(match_file(&f, 0, &s, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	rec_free(&r);
	r.fail_after = 3;
	CHECK(match_file(&f, 0, &s, &md5p, &mo, sink_for(&r), NULL, NULL) == -1);
	rec_free(&r);
	struct token_sink bad = { &r, fail_literal, rec_block, rec_end };
	struct sumset none = { 0 };
	CHECK(match_file(&f, 0, &none, &md5p, &mo, &bad, NULL, &st) == -1);

	/* out-of-range start */
	CHECK(match_file(&f, -1, &s, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	CHECK(match_file(&f, 5001, &s, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	/* sums that did not come from sums_alloc */
	struct sumset forged = s;
	forged.table = NULL;
	CHECK(match_file(&f, 0, &forged, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	forged = s;
	forged.h.blength = 0;
	CHECK(match_file(&f, 0, &forged, &md5p, &mo, sink_for(&r), NULL, &st) == -1);
	CHECK(match_file(&f, 0, &s, NULL, &mo, sink_for(&r), NULL, &st) == -1);
	CHECK(r.ends == 0);
	rec_free(&r);

	/* NULL sums and NULL opts: all literal */
	CHECK(match_file(&f, 0, NULL, NULL, NULL, sink_for(&r), NULL, &st) == 0);
	CHECK(r.ndata == sizeof data && st.literal_bytes == (int64_t)sizeof data && r.ends == 1);
	rec_free(&r);
	fmap_close(&f);
	close(fd);
	sums_free(&s);
}

/* --append: start past the receiver's length, no sums. */
static void test_append_start(void)
{
	static unsigned char data[50000];
	struct sumset none = { 0 };
	struct run run;
	unsigned char want[CSUM_MAX_LEN];
	struct csum_file cf;

	fill_random(data, sizeof data, 61);
	CHECK(run_match(&run, data, sizeof data, 12345, &none, &md5p, 0, 700 + 65536) == 0);
	CHECK(run.rec.ndata == sizeof data - 12345);
	CHECK(run.rec.data != NULL && memcmp(run.rec.data, data + 12345, sizeof data - 12345) == 0);
	CHECK(run.st.literal_bytes == (int64_t)(sizeof data - 12345));
	CHECK(csum_file_init(&cf, &md5p, 1) == 0);
	csum_file_update(&cf, data + 12345, sizeof data - 12345);
	csum_file_final(&cf, want);
	CHECK(memcmp(want, run.fsum, CSUM_MAX_LEN) == 0);   /* only the appended part */
	rec_free(&run.rec);

	CHECK(run_match(&run, data, sizeof data, sizeof data, &none, &md5p, 0, 1) == 0);
	CHECK(run.rec.nt == 0 && run.rec.ends == 1);
	rec_free(&run.rec);
}

/* Offsets past 4 GiB: a sparse file whose data starts at 2^32. */
static void test_large_offsets(void)
{
	const int64_t base = (int64_t)1 << 32;
	static unsigned char basis[7000], tail[7500];
	struct sumset s;
	struct fmap f;
	struct rec r = { 0 };
	struct match_stats st;
	struct match_opts mo = { 1 };
	char path[] = "/tmp/prsyncd-test-big-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	unlink(path);
	fill_random(basis, sizeof basis, 71);
	memcpy(tail, basis, 3000);
	fill_random(tail + 3000, 500, 72);
	memcpy(tail + 3500, basis + 3000, 4000);
	if (pwrite(fd, tail, sizeof tail, base) != (ssize_t)sizeof tail) {
		fprintf(stderr, "note: no sparse 4 GiB file here, skipping\n");
		close(fd);
		return;
	}
	CHECK(make_sums(&s, basis, sizeof basis, 700, 8, &md5p) == 0);
	CHECK(fmap_open(&f, fd, base + (int64_t)sizeof tail, 700 + 65536) == 0);
	/* in place, a block's basis offset (< 7000) is far behind us: no match */
	CHECK(match_file(&f, base, &s, &md5p, &mo, sink_for(&r), NULL, &st) == 0);
	CHECK(st.matched_blocks == 0 && r.ndata == sizeof tail);
	rec_free(&r);
	mo.inplace = 0;
	CHECK(match_file(&f, base, &s, &md5p, &mo, sink_for(&r), NULL, &st) == 0);
	CHECK(st.matched_blocks >= 8 && r.ndata == sizeof tail);
	CHECK(memcmp(r.data, tail, sizeof tail) == 0 && f.read_error == 0);
	rec_free(&r);
	fmap_close(&f);
	close(fd);
	sums_free(&s);
}

int main(void)
{
	/* Like the worker: nothing preloaded (MD4 is ours, MD5/SHA1 come from
	 * OpenSSL's built-in provider on first use). */
	test_check_head();
	test_alloc();
	test_fmap();
	test_basic_cases();
	test_eof_block();
	test_random_edits();
	test_high_bytes();
	test_all_types();
	test_inplace();
	test_hostile();
	test_truncated();
	test_failures();
	test_append_start();
	test_large_offsets();
	return unit_done("test_match");
}
