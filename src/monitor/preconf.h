/* SPDX-License-Identifier: ISC */
/*
 * The session monitor's confinement before module selection (preconf.c),
 * applied once the worker is running and before the first worker record is
 * read.  The confinement after selection (chroot, uid drop,
 * policy/monitor.policy) is stacked on top of it by confine() in session.c.
 */
#ifndef PRSYNCD_PRECONF_H
#define PRSYNCD_PRECONF_H

#include <stddef.h>

#include "landlock.h" /* landlock_readonly: also the name-service child's */
#include "policies.h"

#ifdef PRSYNCD_TEST_HOOKS
#define MONITOR_POLICY_EXTRA (&pr_policy_sanitizer) /* ASan/UBSan runtime */
#else
#define MONITOR_POLICY_EXTRA NULL
#endif

/*
 * Capabilities down to those selection uses (root only; an unprivileged
 * monitor has none), no_new_privs, a Landlock domain that forbids changing
 * or executing any file (where the kernel has Landlock; *landlocked says
 * whether it took), then policy/preselect.policy.  Returns 0, or -1 with a
 * reason in err: the session must then end.
 */
int preconfine(int *landlocked, char *err, size_t errlen);

#endif
