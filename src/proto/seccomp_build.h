/* SPDX-License-Identifier: ISC */
/*
 * Building (not loading) a policy's seccomp filter with libseccomp.  Used at
 * build time by policy/bpfgen.c, which turns every policy into the BPF
 * program the binaries load (seccomp_policy.c), and by the unit test that
 * holds the two equal.  Nothing that runs per connection links libseccomp.
 */
#ifndef PRSYNCD_SECCOMP_BUILD_H
#define PRSYNCD_SECCOMP_BUILD_H

#include <stddef.h>
#include <linux/filter.h>

#include "seccomp_policy.h"

/*
 * The filter of p (and extra, if not NULL) as BPF: default action kills the
 * process, a foreign ABI too; a syscall name libseccomp does not know is an
 * error.  Returns 0 with *prog (malloc'd) and *len, or -1 with err set.
 */
int pr_policy_build(const struct pr_policy *p, const struct pr_policy *extra, struct sock_filter **prog,
		    size_t *len, char *err, size_t errlen);

#endif
