/* SPDX-License-Identifier: ISC */
/*
 * Compressed token streams (spec part 2, section 11.2-11.7): one encoder
 * and one decoder per format, both speaking the same byte framing.  The
 * encoder is a token_sink; the decoder hands back literal data and block
 * indexes.  Neither touches the network: bytes go out through a write
 * callback and come in through a read callback, so tests and fuzzers can
 * drive them from memory.
 */
#ifndef PRSYNCD_COMPRESS_H
#define PRSYNCD_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "token.h"

enum cpres {
	CPRES_NONE = 0,
	CPRES_ZLIB,   /* the original -z: zlibx plus matched blocks in the history */
	CPRES_ZLIBX,
	CPRES_LZ4,
	CPRES_ZSTD,
};

/* Our names in preference order, as sent in the negotiation ("none" last). */
#define CPRES_OUR_LIST "zstd lz4 zlibx zlib none"

/* Name <-> type; -1 for an unknown name (case-insensitive). */
int cpres_from_name(const char *name);
const char *cpres_name(enum cpres t);

/*
 * The level a session compresses with, from the client's --compress-level
 * (`given` 0 when it sent none).  Sets *type to CPRES_NONE where stock turns
 * compression off (zlib/zlibx at level 0).
 */
int cpres_level(enum cpres *type, int given, int level);

/* First name in the client's list we implement, or -1. */
int cpres_pick(const char *client_list);

/* Does basename `name` match the dont-compress patterns (space separated,
 * case-insensitive wildcards; "" = the default suffix list) or the client's
 * --skip-compress suffixes (slash separated)? */
int cpres_dont_compress(const char *patterns, const char *skip, const char *name);

#define CTOK_MAX_DATA 16383   /* one DEFLATED_DATA record, in and out */

/* ---- encoder -------------------------------------------------------------- */

struct ctok_enc;

/* Compressed bytes leave through out(ctx, p, n); nonzero return = failure. */
typedef int (*ctok_write_fn)(void *ctx, const unsigned char *p, size_t n);

/* NULL on failure (memory, bad type). `protocol` selects the zlib piece rule. */
struct ctok_enc *ctok_enc_new(enum cpres type, int level, int protocol,
			      ctok_write_fn out, void *out_ctx);
void ctok_enc_free(struct ctok_enc *e);

/* Start a file's stream; `low` = dont-compress (zlib/zlibx at level 0). */
int ctok_enc_begin(struct ctok_enc *e, int low);

/* A sink writing this encoder's format (valid until ctok_enc_free). */
void ctok_enc_sink(struct ctok_enc *e, struct token_sink *sink);

/* Why the last call failed ("" if the encoder itself did not fail). */
const char *ctok_enc_error(const struct ctok_enc *e);

/* ---- decoder -------------------------------------------------------------- */

struct ctok_dec;

/* Read exactly n bytes; nonzero = failure (end of input, I/O error). */
typedef int (*ctok_read_fn)(void *ctx, unsigned char *p, size_t n);

enum { CTOK_ERR = -1, CTOK_END = 0, CTOK_DATA = 1, CTOK_BLOCK = 2 };

struct ctok_dec *ctok_dec_new(enum cpres type, int protocol, ctok_read_fn in, void *in_ctx);
void ctok_dec_free(struct ctok_dec *d);

/* Start a file's stream against a basis of `count` blocks. */
int ctok_dec_begin(struct ctok_dec *d, int32_t count);

/*
 * The next token: CTOK_DATA with *data and *len (valid until the next call),
 * CTOK_BLOCK with *idx (the caller must then pass the block's bytes to
 * ctok_dec_block), CTOK_END, or CTOK_ERR (see ctok_dec_error).
 */
int ctok_dec_next(struct ctok_dec *d, const unsigned char **data, size_t *len, int32_t *idx);

/* The bytes of the block just returned (zlib keeps them as history). */
int ctok_dec_block(struct ctok_dec *d, const unsigned char *data, size_t len);

const char *ctok_dec_error(const struct ctok_dec *d);

#endif
