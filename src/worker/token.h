/* SPDX-License-Identifier: ISC */
/*
 * Where the delta goes: block matching produces literal runs and block
 * references; a token writer turns them into a wire format (plain, or one
 * of the compressed formats added later).
 */
#ifndef PRSYNCD_TOKEN_H
#define PRSYNCD_TOKEN_H

#include <stddef.h>
#include <stdint.h>

struct token_sink {
	void *ctx;
	/* literal data (any length; the writer splits records) */
	int (*literal)(void *ctx, const unsigned char *data, size_t len);
	/* a reference to block idx; data/len are the block's bytes as they
	 * appear in the file (compressors that keep history need them) */
	int (*block)(void *ctx, int32_t idx, const unsigned char *data, size_t len);
	/* end of this file's token stream */
	int (*end)(void *ctx);
};

#endif
