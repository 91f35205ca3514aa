/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_SANDBOX_H
#define PRSYNCD_SANDBOX_H

#include <stddef.h>

#include "msg.h"

/* Load every library facility the worker will use, while files can still
 * be opened (nothing at present: see sandbox.c). */
int sandbox_preload(char *err, size_t errlen);

/*
 * Confine the calling process as `init` says: chroot, identity drop,
 * capabilities, no_new_privs, rlimits, seccomp.  After it returns 0 the
 * process can only use descriptors it already holds.  -1 + message on
 * failure; the caller must then exit without touching the client.
 */
int sandbox_enter(const struct pr_m_init *init, char *err, size_t errlen);

#endif
