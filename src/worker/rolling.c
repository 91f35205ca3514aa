/* SPDX-License-Identifier: ISC */
/*
 * The weak sum of a whole block (csum_rolling, spec part 2 section 8.1):
 * s1 = the sum of the bytes taken as signed chars, s2 = the sum of the
 * running s1 values, both modulo 2^16.  The delta search recomputes it for
 * every window after a matched block, i.e. over nearly the whole file when
 * little changed, so it runs vectorised where the CPU can (AVX2, chosen at
 * run time); the scalar code defines the result, and the unit tests check
 * that both agree bit for bit (tests/unit/test_csum.c).
 */
#include "csum.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

/* A byte as the signed char rsync adds, in mod-2^32 arithmetic.  Written
 * without a cast to signed char so it does not depend on the platform's
 * char signedness or on implementation-defined conversions. */
static inline uint32_t sbyte(unsigned char c)
{
	return (uint32_t)(c ^ 0x80u) - 0x80u;
}

/* s1/s2 carried on from earlier bytes: the tail of the vector path. */
static uint32_t tail_scalar(const unsigned char *p, size_t n, uint32_t s1, uint32_t s2)
{
	size_t i = 0;

	/* Four bytes per step: s2 gains the four running s1 values. */
	for (; i + 4 <= n; i += 4) {
		uint32_t b0 = sbyte(p[i]), b1 = sbyte(p[i + 1]);
		uint32_t b2 = sbyte(p[i + 2]), b3 = sbyte(p[i + 3]);
		s2 += 4 * s1 + 4 * b0 + 3 * b1 + 2 * b2 + b3;
		s1 += b0 + b1 + b2 + b3;
	}
	for (; i < n; i++) {
		s1 += sbyte(p[i]);
		s2 += s1;
	}
	return (s1 & 0xffff) | (s2 << 16);
}

uint32_t csum_rolling_scalar(const unsigned char *p, size_t n)
{
	return tail_scalar(p, n, 0, 0);
}

#ifdef HAVE_AVX2_PATH
/*
 * 32 bytes per step.  Per 32-bit lane: the sum of its bytes (vs1), the
 * running total of vs1 before each step (vp: each earlier step adds 32
 * times its s1 to s2), and the bytes weighted by how many of the step's
 * running sums they are in (vw: byte j of a step counts 32 - j times).
 * maddubs multiplies the unsigned weights by the signed bytes; pairs of
 * products stay within int16 (|32*-128 + 31*-128| < 2^15), and every
 * 32-bit add wraps as the scalar sums do.
 */
__attribute__((target("avx2")))
static uint32_t rolling_avx2(const unsigned char *p, size_t n)
{
	const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
	const __m256i w = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
					   16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
	__m256i vs1 = _mm256_setzero_si256(), vp = vs1, vw = vs1;
	uint32_t l1[8], lp[8], lw[8], s1 = 0, sp = 0, sw = 0;
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));

		vp = _mm256_add_epi32(vp, vs1);
		vs1 = _mm256_add_epi32(vs1, _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, d), ones16));
		vw = _mm256_add_epi32(vw, _mm256_madd_epi16(_mm256_maddubs_epi16(w, d), ones16));
	}
	_mm256_storeu_si256((__m256i *)(void *)l1, vs1);
	_mm256_storeu_si256((__m256i *)(void *)lp, vp);
	_mm256_storeu_si256((__m256i *)(void *)lw, vw);
	for (int k = 0; k < 8; k++) {
		s1 += l1[k];
		sp += lp[k];
		sw += lw[k];
	}
	return tail_scalar(p + i, n - i, s1, 32 * sp + sw);
}
#endif

static uint32_t (*rolling_impl)(const unsigned char *, size_t);

static void choose(void)
{
	rolling_impl = csum_rolling_scalar;
#ifdef HAVE_AVX2_PATH
	if (__builtin_cpu_supports("avx2"))
		rolling_impl = rolling_avx2;
#endif
}

uint32_t csum_rolling(const unsigned char *p, size_t n)
{
	if (rolling_impl == NULL)
		choose();
	return rolling_impl(p, n);
}

const char *csum_rolling_impl(void)
{
	if (rolling_impl == NULL)
		choose();
	return rolling_impl == csum_rolling_scalar ? "scalar" : "avx2";
}
