/* SPDX-License-Identifier: ISC */
/*
 * Giving up privilege in a helper child of a privileged process: the
 * listener's resolver (src/listener/resolver.c) and the session monitor's
 * name-service child (src/monitor/nschild.c).
 */
#ifndef PRSYNCD_UNPRIV_H
#define PRSYNCD_UNPRIV_H

#include <sys/types.h>

/*
 * The first steps of such a child, right after fork(): die with the
 * parent (SIGKILL; a parent already gone is seen here), no signal
 * blocked, fd moved to 3 and every descriptor above it closed (stdio
 * stays), the process named name.  0, or -1.
 */
int unpriv_begin(int fd, const char *name);

/*
 * Then: (drop) no supplementary group and uid/gid in all three slots,
 * root not regainable; an empty bounding set (while root could empty it)
 * and no capability in any set; not dumpable; no_new_privs.  0, or -1
 * with the step that failed in *why.
 */
int unpriv_drop(int drop, uid_t uid, gid_t gid, const char **why);

#endif
