/* SPDX-License-Identifier: ISC */
/* The xxhash functions for any CPU (see xxh.h), and the choice of build. */
#define XXH_OPS_NAME xxh_ops_base
#define XXH_OPS_LABEL "base"
#include "xxh_body.h"

const struct xxh_ops *xxh_ops(void)
{
	static const struct xxh_ops *chosen;

	if (chosen == NULL) {
		chosen = &xxh_ops_base;
#if defined(__x86_64__) && defined(__GNUC__)
		if (__builtin_cpu_supports("avx2"))
			chosen = &xxh_ops_avx2;
#endif
	}
	return chosen;
}
