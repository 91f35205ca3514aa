/*
 * rsync's checksums (spec part 2 section 8, part 1 section 5.4).
 *
 * MD5/SHA1 go through OpenSSL 3's EVP interface (the built-in default
 * provider, initialised on first use without reading any file, so a
 * session that negotiates xxh128 never touches libcrypto); MD4 is our own
 * (md4.c), since OpenSSL keeps it in a legacy module on disk.  The xxhash
 * family is xxhash.h built inline for this CPU (xxh.h).
 *
 * The block sum is the hot path: each EVP_MD is fetched once and one
 * EVP_MD_CTX is reused for every block.  The worker is single-threaded, so
 * plain statics are enough.
 */
#include "csum.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

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

/* ---- EVP digests ------------------------------------------------------ */

static EVP_MD *evp_md5, *evp_sha1;
static EVP_MD_CTX *block_ctx;

/* The EVP_MD for a type, fetched on first use; NULL if not an EVP type or
 * the provider is missing (then no block ever matches and file sums fail,
 * which costs efficiency but never correctness). */
static const EVP_MD *evp_for(enum csum_type t)
{
	EVP_MD **slot;
	const char *name;

	switch (t) {
	case CSUM_MD5: slot = &evp_md5; name = "MD5"; break;
	case CSUM_SHA1: slot = &evp_sha1; name = "SHA1"; break;
	default: return NULL;
	}
	/* no openssl.cnf, no error strings: nothing to read from
	 * disk (the worker has none) and less memory per session */
	if (*slot == NULL && OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG |
						 OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL))
		*slot = EVP_MD_fetch(NULL, name, NULL);
	return *slot;
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

static int evp_block(const struct csum_params *p, const unsigned char *data, size_t n,
		     unsigned char *out)
{
	const EVP_MD *md = evp_for(p->type);
	enum seed_pos pos = block_seed_pos(p);
	unsigned char seed[4];
	unsigned int len = 0;

	if (md == NULL)
		return -1;
	if (block_ctx == NULL && (block_ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	le32(seed, p->seed);
	if (!EVP_DigestInit_ex2(block_ctx, md, NULL))
		return -1;
	if (pos == SEED_FIRST && !EVP_DigestUpdate(block_ctx, seed, 4))
		return -1;
	if (n > 0 && !EVP_DigestUpdate(block_ctx, data, n))
		return -1;
	if (pos == SEED_LAST && !EVP_DigestUpdate(block_ctx, seed, 4))
		return -1;
	if (!EVP_DigestFinal_ex(block_ctx, out, &len))
		return -1;
	return (int)len == csum_len(p->type) ? 0 : -1;
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
		if (evp_block(p, data, n, out) != 0)
			memset(out, 0, CSUM_MAX_LEN);
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

static int file_init_evp(struct csum_file *c, const struct csum_params *p)
{
	const EVP_MD *md = evp_for(p->type);
	EVP_MD_CTX *ctx;

	if (md == NULL || (ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (!EVP_DigestInit_ex2(ctx, md, NULL)) {
		EVP_MD_CTX_free(ctx);
		return -1;
	}
	c->evp = ctx;
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
		return file_init_evp(c, p);
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
	if (c->evp != NULL) {
		/* A failure here leaves a wrong digest, which the receiver
		 * detects and answers with a redo. */
		(void)EVP_DigestUpdate(c->evp, data, n);
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
	} else if (c->evp != NULL) {
		unsigned int len = 0;

		if (!EVP_DigestFinal_ex(c->evp, out, &len) || (int)len != csum_len(c->type))
			memset(out, 0, CSUM_MAX_LEN);
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
	if (c->evp != NULL)
		EVP_MD_CTX_free(c->evp);
	free(c->md4);
	c->md4 = NULL;
	if (c->xxh != NULL)
		xxh_ops()->discard(xxh_kind_of(c->type), c->xxh);
	c->evp = NULL;
	c->xxh = NULL;
}
