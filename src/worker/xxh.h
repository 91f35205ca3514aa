/* SPDX-License-Identifier: ISC */
/*
 * The xxhash family for csum.c, built from xxhash.h inline, twice: for the
 * baseline instruction set and for AVX2 (xxh_avx2.c), chosen once at run
 * time.  XXH3 and XXH128 are most of the CPU of a delta transfer (a strong
 * sum per matched block and the whole-file sum), and the shared library's
 * build of them is several times slower than the AVX2 code on this kind of
 * machine.  Every build computes the same values (xxhash's own guarantee;
 * the unit tests hold them to the library's and to stock's captures).
 */
#ifndef PRSYNCD_XXH_H
#define PRSYNCD_XXH_H

#include <stddef.h>
#include <stdint.h>

enum xxh_kind { XXH_K64 = 1, XXH_K3_64 = 2, XXH_K3_128 = 3 };

struct xxh_ops {
	const char *name;
	/* one shot; for XXH_K3_128, *hi gets the high half */
	uint64_t (*hash)(enum xxh_kind k, const void *p, size_t n, uint64_t seed, uint64_t *hi);
	/* streaming, seed 0: NULL without memory; digest frees the state */
	void *(*start)(enum xxh_kind k);
	void (*update)(enum xxh_kind k, void *st, const void *p, size_t n);
	uint64_t (*digest)(enum xxh_kind k, void *st, uint64_t *hi);
	void (*discard)(enum xxh_kind k, void *st);
};

extern const struct xxh_ops xxh_ops_base;
extern const struct xxh_ops xxh_ops_avx2; /* x86-64 only */

/* The build for this CPU. */
const struct xxh_ops *xxh_ops(void);

#endif
