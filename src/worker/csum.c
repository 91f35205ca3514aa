/* SPDX-License-Identifier: ISC */
/*
 * rsync's checksums (spec part 2 section 8, part 1 section 5.4).
 *
 * MD5/SHA1 are OpenSSL's own digest functions (MD5_Init and friends, with
 * its assembly and SHA extensions), called directly and linked statically:
 * they are a few KiB, while the EVP interface and its providers are most of
 * libcrypto, whose loading and relocation at every session's start cost
 * more than rsyncd spends on a small pull.  MD4 is our own (md4.c), since
 * OpenSSL keeps it in a legacy module on disk.  The xxhash family is
 * xxhash.h built inline for this CPU (xxh.h).
 */
/* MD5_Init and friends are deprecated in OpenSSL 3 in favour of EVP, which
 * is exactly what is avoided here (see above). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "csum.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/md5.h>
#include <openssl/sha.h>

#include "md4.h"
#include "xxh.h"

/* ---- names and lengths ------------------------------------------------ */

static const struct {
	const char *name;
	enum csum_type type;
} csum_names[] = {
	{ "md4", CSUM_MD4 },
	{ "md5", CSUM_MD5 },
	{ "sha1", CSUM_SHA1 },
	{ "xxh64", CSUM_XXH64 },
	{ "xxhash", CSUM_XXH64 },     /* the old name of xxh64 */
	{ "xxh3", CSUM_XXH3 },
	{ "xxh128", CSUM_XXH128 },
	{ "none", CSUM_NONE },
};

int csum_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (size_t i = 0; i < sizeof csum_names / sizeof csum_names[0]; i++) {
		if (strcasecmp(name, csum_names[i].name) == 0)
			return (int)csum_names[i].type;
	}
	return -1;
}

const char *csum_name(enum csum_type t)
{
	switch (t) {
	case CSUM_NONE: return "none";
	case CSUM_MD4_OLD: return "md4";    /* the implicit protocol 27-29 md4 */
	case CSUM_MD4: return "md4";
	case CSUM_MD5: return "md5";
	case CSUM_SHA1: return "sha1";
	case CSUM_XXH64: return "xxh64";
	case CSUM_XXH3: return "xxh3";
	case CSUM_XXH128: return "xxh128";
	}
	return "unknown";
}

int csum_len(enum csum_type t)
{
	switch (t) {
	case CSUM_NONE: return 1;
	case CSUM_MD4_OLD:
	case CSUM_MD4:
	case CSUM_MD5: return 16;
	case CSUM_SHA1: return 20;
	case CSUM_XXH64:
	case CSUM_XXH3: return 8;
	case CSUM_XXH128: return 16;
	}
	return 0;
}

/* ---- MD5 and SHA1 ------------------------------------------------------- */

union dig_ctx {
	MD5_CTX md5;
	SHA_CTX sha1;
};

static void dig_init(enum csum_type t, union dig_ctx *c)
{
	if (t == CSUM_MD5)
		MD5_Init(&c->md5);
	else
		SHA1_Init(&c->sha1);
}

static void dig_update(enum csum_type t, union dig_ctx *c, const void *p, size_t n)
{
	if (t == CSUM_MD5)
		MD5_Update(&c->md5, p, n);
	else
		SHA1_Update(&c->sha1, p, n);
}

static void dig_final(enum csum_type t, union dig_ctx *c, unsigned char *out)
{
	if (t == CSUM_MD5)
		MD5_Final(out, &c->md5);
	else
		SHA1_Final(out, &c->sha1);
}

static void le32(unsigned char out[4], int32_t v)
{
	uint32_t u = (uint32_t)v;

	out[0] = (unsigned char)u;
	out[1] = (unsigned char)(u >> 8);
	out[2] = (unsigned char)(u >> 16);
	out[3] = (unsigned char)(u >> 24);
}

static void le64(unsigned char *out, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(v >> (8 * i));
}

/* Where the seed goes in a block sum (part 1 section 5.4). */
enum seed_pos { SEED_NONE, SEED_FIRST, SEED_LAST };

static enum seed_pos block_seed_pos(const struct csum_params *p)
{
	if (p->seed == 0)
		return SEED_NONE;
	switch (p->type) {
	case CSUM_MD4_OLD:
	case CSUM_MD4: return SEED_LAST;
	case CSUM_MD5: return p->seed_first ? SEED_FIRST : SEED_LAST;
	case CSUM_SHA1: return SEED_FIRST;
	default: return SEED_NONE;
	}
}

static void md4_block(const struct csum_params *p, const unsigned char *data, size_t n,
		      unsigned char *out)
{
	struct md4_ctx c;
	unsigned char seed[4];

	le32(seed, p->seed);
	md4_init(&c);
	md4_update(&c, data, n);
	if (block_seed_pos(p) == SEED_LAST)
		md4_update(&c, seed, 4);
	md4_final(&c, out);
}

static void dig_block(const struct csum_params *p, const unsigned char *data, size_t n,
		      unsigned char *out)
{
	enum seed_pos pos = block_seed_pos(p);
	unsigned char seed[4];
	union dig_ctx c;

	le32(seed, p->seed);
	dig_init(p->type, &c);
	if (pos == SEED_FIRST)
		dig_update(p->type, &c, seed, 4);
	if (n > 0)
		dig_update(p->type, &c, data, n);
	if (pos == SEED_LAST)
		dig_update(p->type, &c, seed, 4);
	dig_final(p->type, &c, out);
}

/* The xxhash seed: the int32 sign-extended, as stock passes it. */
static uint64_t xxh_seed(int32_t seed)
{
	return (uint64_t)(int64_t)seed;
}

static enum xxh_kind xxh_kind_of(enum csum_type t)
{
	return t == CSUM_XXH64 ? XXH_K64 : t == CSUM_XXH3 ? XXH_K3_64 : XXH_K3_128;
}

/* An xxhash digest on the wire: little-endian, the low half first. */
static void xxh_out(unsigned char *out, enum csum_type t, uint64_t lo, uint64_t hi)
{
	le64(out, lo);
	if (t == CSUM_XXH128)
		le64(out + 8, hi);
}

void csum_block(const struct csum_params *p, const unsigned char *data, size_t n,
		unsigned char out[CSUM_MAX_LEN])
{
	memset(out, 0, CSUM_MAX_LEN);
	switch (p->type) {
	case CSUM_MD4_OLD:
	case CSUM_MD4:
		md4_block(p, data, n, out);
		break;
	case CSUM_MD5:
	case CSUM_SHA1:
		dig_block(p, data, n, out);
		break;
	case CSUM_XXH64:
	case CSUM_XXH3:
	case CSUM_XXH128: {
		uint64_t hi = 0, lo = xxh_ops()->hash(xxh_kind_of(p->type), data, n, xxh_seed(p->seed), &hi);

		xxh_out(out, p->type, lo, hi);
		break;
	}
	case CSUM_NONE:
		break;          /* one zero byte */
	}
}

/* ---- whole-file sums -------------------------------------------------- */

static int file_init_md4(struct csum_file *c, const struct csum_params *p, int transfer)
{
	struct md4_ctx *m = malloc(sizeof(*m));

	if (m == NULL)
		return -1;
	md4_init(m);
	/* Old md4 prefixes the seed to the transfer sum even when it is 0;
	 * every other file sum, and every -c sum, is unseeded. */
	if (transfer && p->type == CSUM_MD4_OLD) {
		unsigned char seed[4];

		le32(seed, p->seed);
		md4_update(m, seed, 4);
	}
	c->md4 = m;
	return 0;
}

static int file_init_dig(struct csum_file *c)
{
	union dig_ctx *d = malloc(sizeof(*d));

	if (d == NULL)
		return -1;
	dig_init(c->type, d);
	c->dig = d;
	return 0;
}

static int file_init_xxh(struct csum_file *c)
{
	c->xxh = xxh_ops()->start(xxh_kind_of(c->type));
	return c->xxh != NULL ? 0 : -1;
}

int csum_file_init(struct csum_file *c, const struct csum_params *p, int transfer)
{
	memset(c, 0, sizeof *c);
	c->type = p->type;
	switch (p->type) {
	case CSUM_MD4_OLD:
	case CSUM_MD4:
		return file_init_md4(c, p, transfer);
	case CSUM_MD5:
	case CSUM_SHA1:
		return file_init_dig(c);
	case CSUM_XXH64:
	case CSUM_XXH3:
	case CSUM_XXH128:
		return file_init_xxh(c);
	case CSUM_NONE:
		return 0;
	}
	return -1;
}

void csum_file_update(struct csum_file *c, const unsigned char *data, size_t n)
{
	if (n == 0)
		return;
	if (c->md4 != NULL) {
		md4_update(c->md4, data, n);
		return;
	}
	if (c->dig != NULL) {
		dig_update(c->type, c->dig, data, n);
		return;
	}
	if (c->xxh == NULL)
		return;
	xxh_ops()->update(xxh_kind_of(c->type), c->xxh, data, n);
}

void csum_file_final(struct csum_file *c, unsigned char out[CSUM_MAX_LEN])
{
	memset(out, 0, CSUM_MAX_LEN);
	if (c->md4 != NULL) {
		md4_final(c->md4, out);
	} else if (c->dig != NULL) {
		dig_final(c->type, c->dig, out);
	} else if (c->xxh != NULL) {
		uint64_t hi = 0, lo = xxh_ops()->digest(xxh_kind_of(c->type), c->xxh, &hi);

		c->xxh = NULL; /* the digest released it */
		xxh_out(out, c->type, lo, hi);
	}
	/* CSUM_NONE: the one zero byte is already there. */
	csum_file_abort(c);
}

void csum_file_abort(struct csum_file *c)
{
	free(c->dig);
	free(c->md4);
	c->md4 = NULL;
	if (c->xxh != NULL)
		xxh_ops()->discard(xxh_kind_of(c->type), c->xxh);
	c->dig = NULL;
	c->xxh = NULL;
}
