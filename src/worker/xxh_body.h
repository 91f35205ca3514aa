/* SPDX-License-Identifier: ISC */
/*
 * The body of one build of the xxhash functions (see xxh.h): included by
 * xxh_base.c and xxh_avx2.c with XXH_OPS_NAME defined and, for the latter,
 * the instruction set chosen first.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xxh.h"

static uint64_t body_hash(enum xxh_kind k, const void *p, size_t n, uint64_t seed, uint64_t *hi)
{
	XXH128_hash_t h;

	switch (k) {
	case XXH_K64:
		return XXH64(p, n, seed);
	case XXH_K3_64:
		return XXH3_64bits_withSeed(p, n, seed);
	case XXH_K3_128:
		h = XXH3_128bits_withSeed(p, n, seed);
		*hi = h.high64;
		return h.low64;
	}
	return 0;
}

static void *body_start(enum xxh_kind k)
{
	if (k == XXH_K64) {
		XXH64_state_t *st = XXH64_createState();

		if (st != NULL && XXH64_reset(st, 0) != XXH_OK) {
			XXH64_freeState(st);
			st = NULL;
		}
		return st;
	}

	XXH3_state_t *st = XXH3_createState();

	if (st != NULL && (k == XXH_K3_64 ? XXH3_64bits_reset(st) : XXH3_128bits_reset(st)) != XXH_OK) {
		XXH3_freeState(st);
		st = NULL;
	}
	return st;
}

static void body_update(enum xxh_kind k, void *st, const void *p, size_t n)
{
	switch (k) {
	case XXH_K64: (void)XXH64_update(st, p, n); break;
	case XXH_K3_64: (void)XXH3_64bits_update(st, p, n); break;
	case XXH_K3_128: (void)XXH3_128bits_update(st, p, n); break;
	}
}

static void body_discard(enum xxh_kind k, void *st)
{
	if (k == XXH_K64)
		XXH64_freeState(st);
	else
		XXH3_freeState(st);
}

static uint64_t body_digest(enum xxh_kind k, void *st, uint64_t *hi)
{
	uint64_t v = 0;
	XXH128_hash_t h;

	switch (k) {
	case XXH_K64: v = XXH64_digest(st); break;
	case XXH_K3_64: v = XXH3_64bits_digest(st); break;
	case XXH_K3_128:
		h = XXH3_128bits_digest(st);
		*hi = h.high64;
		v = h.low64;
		break;
	}
	body_discard(k, st);
	return v;
}

const struct xxh_ops XXH_OPS_NAME = {
	.name = XXH_OPS_LABEL,
	.hash = body_hash,
	.start = body_start,
	.update = body_update,
	.digest = body_digest,
	.discard = body_discard,
};
