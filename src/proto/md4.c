/* SPDX-License-Identifier: ISC */
/*
 * MD4 as RFC 1320 describes it: three rounds of sixteen steps over each
 * 64-byte block, little-endian words, the usual 0x80 / length padding.
 */
#include <string.h>

#include "md4.h"

static uint32_t rotl(uint32_t x, unsigned s) { return (x << s) | (x >> (32 - s)); }
static uint32_t f_(uint32_t x, uint32_t y, uint32_t z) { return (x & y) | (~x & z); }
static uint32_t g_(uint32_t x, uint32_t y, uint32_t z) { return (x & y) | (x & z) | (y & z); }
static uint32_t h_(uint32_t x, uint32_t y, uint32_t z) { return x ^ y ^ z; }

/* Word order and shifts of rounds 2 and 3 (round 1 takes words in order). */
static const unsigned char r2_word[16] = { 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15 };
static const unsigned char r3_word[16] = { 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15 };
static const unsigned char r1_shift[4] = { 3, 7, 11, 19 };
static const unsigned char r2_shift[4] = { 3, 5, 9, 13 };
static const unsigned char r3_shift[4] = { 3, 9, 11, 15 };

static void block(uint32_t h[4], const unsigned char *p)
{
	uint32_t x[16], v[4];

	for (int i = 0; i < 16; i++)
		x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	memcpy(v, h, sizeof(v));
	/* Step i updates register (16 - i) % 4 from the other three, in the
	 * order a, d, c, b: the rotation the RFC writes out longhand. */
	for (int i = 0; i < 16; i++) {
		int a = (4 - i % 4) % 4, b = (a + 1) % 4, c = (a + 2) % 4, d = (a + 3) % 4;
		v[a] = rotl(v[a] + f_(v[b], v[c], v[d]) + x[i], r1_shift[i % 4]);
	}
	for (int i = 0; i < 16; i++) {
		int a = (4 - i % 4) % 4, b = (a + 1) % 4, c = (a + 2) % 4, d = (a + 3) % 4;
		v[a] = rotl(v[a] + g_(v[b], v[c], v[d]) + x[r2_word[i]] + 0x5a827999u, r2_shift[i % 4]);
	}
	for (int i = 0; i < 16; i++) {
		int a = (4 - i % 4) % 4, b = (a + 1) % 4, c = (a + 2) % 4, d = (a + 3) % 4;
		v[a] = rotl(v[a] + h_(v[b], v[c], v[d]) + x[r3_word[i]] + 0x6ed9eba1u, r3_shift[i % 4]);
	}
	for (int i = 0; i < 4; i++)
		h[i] += v[i];
}

void md4_init(struct md4_ctx *c)
{
	c->h[0] = 0x67452301u;
	c->h[1] = 0xefcdab89u;
	c->h[2] = 0x98badcfeu;
	c->h[3] = 0x10325476u;
	c->len = 0;
	c->nbuf = 0;
}

void md4_update(struct md4_ctx *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	if (c->nbuf > 0) {
		size_t take = 64 - c->nbuf < n ? 64 - c->nbuf : n;

		memcpy(c->buf + c->nbuf, p, take);
		c->nbuf += take;
		p += take;
		n -= take;
		if (c->nbuf < 64)
			return;
		block(c->h, c->buf);
		c->nbuf = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		block(c->h, p);
	memcpy(c->buf, p, n);
	c->nbuf = n;
}

void md4_final(struct md4_ctx *c, unsigned char out[16])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (c->nbuf < 56 ? 56 : 120) - c->nbuf;

	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (unsigned char)(bits >> (8 * i));
	md4_update(c, pad, padlen + 8);
	for (int i = 0; i < 4; i++) {
		out[4 * i] = (unsigned char)c->h[i];
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 3] = (unsigned char)(c->h[i] >> 24);
	}
}
