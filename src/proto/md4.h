/* SPDX-License-Identifier: ISC */
/*
 * MD4 (RFC 1320), for rsync's protocol 27-29 checksums and the "md4"
 * checksum choice (worker), and the "md4" daemon-auth digest (session
 * monitor).  Our own small implementation: OpenSSL keeps MD4 in its
 * legacy provider, a module that would have to be loaded from disk before
 * the sandbox and costs every session memory even when the client
 * negotiates xxh128.
 */
#ifndef PRSYNCD_MD4_H
#define PRSYNCD_MD4_H

#include <stddef.h>
#include <stdint.h>

struct md4_ctx {
	uint32_t h[4];
	uint64_t len;            /* bytes hashed */
	unsigned char buf[64];
	size_t nbuf;
};

void md4_init(struct md4_ctx *c);
void md4_update(struct md4_ctx *c, const void *data, size_t n);
void md4_final(struct md4_ctx *c, unsigned char out[16]);

#endif
