/* SPDX-License-Identifier: ISC */
/*
 * The client's block sums for one file, and the search for them in our
 * file.  Everything here is sized from a sum head that sums_check_head()
 * accepted; nothing trusts a length the client sent beyond that.
 */
#ifndef PRSYNCD_MATCH_H
#define PRSYNCD_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "csum.h"
#include "fmap.h"
#include "token.h"

struct sum_head {
	int32_t count;
	int32_t blength;
	int32_t s2length;
	int32_t remainder;
};

#define SUMS_MAX_COUNT (1 << 24)     /* blocks per file: bounds memory at ~400 MiB worst case */

/*
 * Check a sum head against the session: 0 <= count <= SUMS_MAX_COUNT;
 * 0 <= blength <= max_blength (2^17 for protocol >= 30, 2^29 below) and
 * blength > 0 when count > 0; 0 <= s2length <= digest_len (the negotiated
 * digest length -- never a constant, see CVE-2024-12084); 0 <= remainder
 * <= blength (and remainder == 0 when count == 0).  Returns 0 or -1 with a
 * reason in *why.
 */
int sums_check_head(const struct sum_head *h, int protocol, int digest_len, const char **why);

struct sumset {
	struct sum_head h;
	uint32_t *sum1;            /* count entries */
	unsigned char *sum2;       /* count * s2length bytes */
	/* hash index over sum1 (private to match.c) */
	uint32_t *table;
	uint32_t *chain;
	uint32_t table_size;
};

/* Allocate for a checked head. -1 on allocation failure. */
int sums_alloc(struct sumset *s, const struct sum_head *h);
void sums_free(struct sumset *s);

/* Length of block i (blength, or remainder for the last block if non-zero). */
size_t sums_block_len(const struct sumset *s, int32_t i);

struct match_opts {
	int inplace;               /* the in-place rule of the spec (10.3) */
};

struct match_stats {
	int64_t literal_bytes;
	int64_t matched_bytes;
	int32_t matched_blocks;
	int64_t strong_bytes;          /* bytes hashed for strong sums (the work) */
	int64_t missed_bytes;          /* of which for strong sums that matched nothing */
};

/*
 * Produce the token stream for file bytes [start, size) of `f` against the
 * sums in `s` (which may have count 0: all literal), feeding every byte of
 * the file content [start, size) to `file_sum` (may be NULL) in order.
 * Returns 0, or -1 if the sink failed.
 */
int match_file(struct fmap *f, int64_t start, const struct sumset *s,
	       const struct csum_params *cp, const struct match_opts *mo,
	       const struct token_sink *sink, struct csum_file *file_sum,
	       struct match_stats *st);

#endif
