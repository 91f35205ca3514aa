/* SPDX-License-Identifier: ISC */
/* The xxhash functions built for AVX2 (see xxh.h); used only when the CPU
 * has it.  Elsewhere than x86-64 this file defines nothing to choose. */
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif
#include <immintrin.h> /* xxhash.h includes it only when the compiler targets AVX2 */
#define XXH_VECTOR XXH_AVX2
#define XXH_OPS_NAME xxh_ops_avx2
#define XXH_OPS_LABEL "avx2"
#include "xxh_body.h"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
typedef int xxh_avx2_unused;
#endif
