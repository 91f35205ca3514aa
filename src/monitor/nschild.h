/* SPDX-License-Identifier: ISC */
/*
 * The session monitor's name-service child: the questions of access
 * control and authentication whose answer depends on the client and that
 * the monitor, confined before the worker's first record, can no longer
 * ask the name service itself (NSS opens files, connects to nscd, sssd or
 * systemd-userdbd, loads modules):
 *   - the groups of the user a client logs in as, for "auth users" @group
 *     rules, as rsyncd 3.5.0 finds them: getpwnam, getpwuid of its uid,
 *     getgrouplist of that entry's name and primary group, each gid's
 *     name (getgrgid; a gid without a name is left out);
 *   - whether the client's name is in a netgroup of "hosts allow" /
 *     "hosts deny" (innetgr).
 *
 * Forked by the monitor before it confines itself, only when the
 * configuration asks such questions (nametab.h NT_FLAG_CLIENT_QUERIES).
 * It gives up everything first: parent-death signal, every descriptor but
 * its channel and stdio, the worker user's uid and gid (root mode) with
 * no supplementary group and no capability in any set, not dumpable,
 * no_new_privs, Landlock read-only where the kernel has it, and
 * policy/nschild.policy.  Then it answers records (nsrec.h) until its
 * channel closes.  It holds no secret: the monitor reads the secrets
 * file only after the fork.
 */
#ifndef PRSYNCD_NSCHILD_H
#define PRSYNCD_NSCHILD_H

#include <sys/types.h>

struct nsrec;

/* How a child that could not confine itself exits. */
enum {
	NSCHILD_EXIT_BEGIN = 120,    /* parent-death signal, descriptors */
	NSCHILD_EXIT_DROP = 121,     /* ids, capabilities, dumpable, no_new_privs */
	NSCHILD_EXIT_FILTER = 122,   /* Landlock or seccomp */
	NSCHILD_EXIT_PROTOCOL = 124, /* a malformed request, or an answer not sent */
};

/* In the child after fork(): confine, then serve fd; never returns.
 * drop: change to uid/gid (the monitor runs as root). */
__attribute__((noreturn)) void nschild_run(int fd, int drop, uid_t uid, gid_t gid);

/* Serve requests on fd until it closes (0) or a request is malformed or
 * cannot be answered (-1): without confinement, for tests. */
int nschild_serve(int fd);

#endif
