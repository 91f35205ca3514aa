/* SPDX-License-Identifier: ISC */
/*
 * Reference throughput of the sums a sender computes, on this machine
 * (docs/performance.md, "Where the time goes"): the rsync weak sum over
 * whole blocks (scalar, and with AVX2), rolling it by one byte, and the
 * strong sums (xxh64, xxh3, xxh128, MD5), over a buffer larger than the
 * last-level cache and in blocks of the size a 1 GiB file gets.
 *
 *   bench/hashspeed.sh [MiB]       (builds this file and runs it)
 *
 * Our own code from the definitions in the protocol notes (spec part 2,
 * section 8.1: signed bytes, s1 and s2 modulo 2^16); not taken from rsync.
 */
#include <immintrin.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* sum1 of one block, byte by byte (what a plain C sender does). */
static uint32_t sum1_scalar(const unsigned char *p, size_t n)
{
	uint32_t s1 = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s1 += (uint32_t)(int32_t)(signed char)p[i];
		s2 += s1;
	}
	return (s1 & 0xffff) | (s2 << 16);
}

/* The same, 32 bytes per step: per lane, the bytes' sum, the weighted sum
 * (weight 32 - j for byte j of a step), and the running total of the lane
 * sums before each step (which contributes 32 * s1_prev to s2).  All adds
 * wrap modulo 2^32, and only the result modulo 2^16 is kept. */
__attribute__((target("avx2")))
static uint32_t sum1_avx2(const unsigned char *p, size_t n)
{
	const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
	const __m256i w = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
					   18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
	__m256i vs1 = _mm256_setzero_si256(), vp = vs1, vw = vs1;
	size_t i = 0;
	uint32_t s1, s2, l1[8], lp[8], lw[8];

	for (; i + 32 <= n; i += 32) {
		__m256i d = _mm256_loadu_si256((const __m256i *)(p + i));

		vp = _mm256_add_epi32(vp, vs1);
		vs1 = _mm256_add_epi32(vs1, _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, d), ones16));
		vw = _mm256_add_epi32(vw, _mm256_madd_epi16(_mm256_maddubs_epi16(w, d), ones16));
	}
	_mm256_storeu_si256((__m256i *)l1, vs1);
	_mm256_storeu_si256((__m256i *)lp, vp);
	_mm256_storeu_si256((__m256i *)lw, vw);
	s1 = s2 = 0;
	uint32_t sp = 0, sw = 0;
	for (int k = 0; k < 8; k++) {
		s1 += l1[k];
		sp += lp[k];
		sw += lw[k];
	}
	s2 = 32 * sp + sw;
	for (; i < n; i++) {
		s1 += (uint32_t)(int32_t)(signed char)p[i];
		s2 += s1;
	}
	return (s1 & 0xffff) | (s2 << 16);
}

/* Roll a window of k bytes across the buffer: the no-match path, per byte. */
static uint32_t roll_all(const unsigned char *p, size_t n, size_t k)
{
	uint32_t sum = sum1_scalar(p, k), s1 = sum & 0xffff, s2 = sum >> 16, acc = 0;

	for (size_t i = 0; i + k < n; i++) {
		int32_t old = (signed char)p[i], new = (signed char)p[i + k];

		s1 += (uint32_t)(new - old);
		s2 += s1 - (uint32_t)k * (uint32_t)old;
		acc ^= (s1 & 0xffff) | (s2 << 16);
	}
	return acc;
}

typedef uint64_t (*block_fn)(const unsigned char *, size_t);

static uint64_t f_sum1_scalar(const unsigned char *p, size_t n) { return sum1_scalar(p, n); }
static uint64_t f_sum1_avx2(const unsigned char *p, size_t n) { return sum1_avx2(p, n); }
static uint64_t f_xxh64(const unsigned char *p, size_t n) { return XXH64(p, n, 0); }
static uint64_t f_xxh3(const unsigned char *p, size_t n) { return XXH3_64bits(p, n); }
static uint64_t f_xxh128(const unsigned char *p, size_t n)
{
	XXH128_hash_t h = XXH3_128bits(p, n);
	return h.low64 ^ h.high64;
}
static uint64_t f_md5(const unsigned char *p, size_t n)
{
	unsigned char out[16];
	unsigned int len = 0;

	EVP_Digest(p, n, out, &len, EVP_md5(), NULL);
	return out[0] | (uint64_t)out[15] << 8;
}

/* GB/s over the whole buffer in pieces of `blk` bytes; best of `reps`. */
static double rate(block_fn f, const unsigned char *buf, size_t size, size_t blk, int reps)
{
	double best = 0;

	for (int r = 0; r < reps; r++) {
		double t = now();
		uint64_t acc = 0;

		for (size_t off = 0; off < size; off += blk)
			acc ^= f(buf + off, size - off < blk ? size - off : blk);
		t = now() - t;
		sink ^= acc;
		if ((double)size / t / 1e9 > best)
			best = (double)size / t / 1e9;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 256;
	size_t size = mib << 20, blk = 32768;
	unsigned char *buf;
	uint64_t x = 0x9E3779B97F4A7C15ull;

	if (mib < 1 || mib > 4096 || (buf = malloc(size)) == NULL) {
		fprintf(stderr, "usage: hashspeed [MiB 1..4096]\n");
		return 2;
	}
	for (size_t i = 0; i < size; i++) {      /* xorshift: incompressible bytes */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (unsigned char)(x >> 32);
	}
	/* The two weak-sum versions must agree, or the numbers mean nothing. */
	for (size_t n = 0; n < 200; n++) {
		if (sum1_scalar(buf + n, n * 37) != sum1_avx2(buf + n, n * 37)) {
			fprintf(stderr, "sum1_avx2 disagrees with sum1_scalar at n=%zu\n", n * 37);
			return 1;
		}
	}
	printf("buffer %zu MiB, blocks of %zu bytes; GB/s, best of 3\n",
	       mib, blk);
	printf("%-34s %6.2f\n", "sum1 per block, scalar", rate(f_sum1_scalar, buf, size, blk, 3));
	if (__builtin_cpu_supports("avx2"))
		printf("%-34s %6.2f\n", "sum1 per block, AVX2", rate(f_sum1_avx2, buf, size, blk, 3));
	{
		double best = 0;
		for (int r = 0; r < 3; r++) {
			double t = now();
			sink ^= roll_all(buf, size, blk);
			t = now() - t;
			if ((double)size / t / 1e9 > best)
				best = (double)size / t / 1e9;
		}
		printf("%-34s %6.2f\n", "sum1 rolled by one byte, scalar", best);
	}
	printf("%-34s %6.2f\n", "xxh64 per block", rate(f_xxh64, buf, size, blk, 3));
	printf("%-34s %6.2f\n", "xxh3 (64) per block", rate(f_xxh3, buf, size, blk, 3));
	printf("%-34s %6.2f\n", "xxh128 per block", rate(f_xxh128, buf, size, blk, 3));
	printf("%-34s %6.2f\n", "xxh128 whole buffer", rate(f_xxh128, buf, size, size, 3));
	printf("%-34s %6.2f\n", "md5 (OpenSSL) per block", rate(f_md5, buf, size, blk, 3));
	printf("%-34s %6.2f\n", "memcpy", 0.0 + (double)size / 1e9 / ({
		unsigned char *dst = malloc(size);
		double best = 1e9;
		for (int r = 0; dst && r < 3; r++) {
			double t = now();
			memcpy(dst, buf, size);
			t = now() - t;
			sink ^= dst[size / 2];
			if (t < best)
				best = t;
		}
		free(dst);
		best;
	}));
	return 0;
}
