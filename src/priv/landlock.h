/* SPDX-License-Identifier: ISC */
/*
 * A read-only Landlock domain for a confined process (landlock.c): the
 * session monitor before selection (src/monitor/preconf.c), its
 * name-service child (src/monitor/nschild.c) and the listener's resolver
 * child (src/listener/resolver.c).  Stacked under their seccomp filters:
 * Landlock sees what seccomp cannot (paths, and the port of a TCP
 * connect).
 */
#ifndef PRSYNCD_LANDLOCK_H
#define PRSYNCD_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

/*
 * No file may be written, created, removed, linked, truncated or
 * executed, and no TCP socket bound or connected, except (tcp_port, not
 * 0) a TCP connect to that port (the DNS's 53 for the resolver).  The
 * caller has set no_new_privs.  *on: it took (0 on a kernel without
 * Landlock, which is not an error; network rules need ABI 4, the rest is
 * applied without them).  0, or -1 with err.
 */
int landlock_readonly_port(int *on, uint16_t tcp_port, char *err, size_t errlen);

/* The same, no TCP connect at all. */
int landlock_readonly(int *on, char *err, size_t errlen);

#endif
