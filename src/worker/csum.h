/* SPDX-License-Identifier: ISC */
/*
 * rsync's checksums: the rolling weak sum, the per-block strong sums with
 * each algorithm's seed rules, whole-file sums after the token stream, and
 * the -c file-list sums.  Which rule applies is decided once per session
 * (csum_setup) and then applied everywhere.
 */
#ifndef PRSYNCD_CSUM_H
#define PRSYNCD_CSUM_H

#include <stddef.h>
#include <stdint.h>

#define CSUM_MAX_LEN 20   /* sha1 is the longest digest rsync uses */

enum csum_type {
	CSUM_NONE = 0,
	CSUM_MD4_OLD,   /* protocol 27-29 default: seed appended to blocks, prefixed to the file sum */
	CSUM_MD4,       /* named md4: seed appended to blocks, file sum unseeded */
	CSUM_MD5,
	CSUM_SHA1,
	CSUM_XXH64,
	CSUM_XXH3,
	CSUM_XXH128,
};

/* Name <-> type for negotiation ("xxhash" is an alias of xxh64). -1 if unknown. */
int csum_from_name(const char *name);
const char *csum_name(enum csum_type t);
/* Digest length on the wire (none: 1). */
int csum_len(enum csum_type t);

/* The rolling checksum over n bytes, bytes taken as signed chars
 * (rolling.c: vectorised where the CPU allows). */
uint32_t csum_rolling(const unsigned char *p, size_t n);
/* The scalar definition, and which one csum_rolling uses ("scalar",
 * "avx2"): for the tests that hold them equal. */
uint32_t csum_rolling_scalar(const unsigned char *p, size_t n);
const char *csum_rolling_impl(void);

/* The parameters of block sums for a session. */
struct csum_params {
	enum csum_type type;
	int32_t seed;
	int seed_first;     /* md5 only: CF_CHKSUM_SEED_FIX (seed before the data) */
};

/* Strong checksum of one block into out (csum_len bytes; the rest of out,
 * up to CSUM_MAX_LEN, is zeroed so partial compares never see garbage). */
void csum_block(const struct csum_params *p, const unsigned char *data, size_t n,
		unsigned char out[CSUM_MAX_LEN]);

/* Incremental whole-file digest. */
struct csum_file {
	enum csum_type type;
	void *dig;                 /* MD5/SHA1 context (csum.c) */
	void *md4;                 /* struct md4_ctx for md4 */
	void *xxh;                 /* XXH state for the xxhash family */
};

/*
 * Start a whole-file sum.  `transfer` = 1: the sum after a file's tokens
 * (MD4_OLD prefixes the seed); 0: a -c file-list sum (never seeded).
 * Returns 0, -1 on allocation failure.
 */
int csum_file_init(struct csum_file *c, const struct csum_params *p, int transfer);
void csum_file_update(struct csum_file *c, const unsigned char *data, size_t n);
/* Finish into out (csum_len bytes) and release the context. */
void csum_file_final(struct csum_file *c, unsigned char out[CSUM_MAX_LEN]);
/* Release without finishing (error paths). */
void csum_file_abort(struct csum_file *c);

#endif
