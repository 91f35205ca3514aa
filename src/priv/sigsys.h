/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_SIGSYS_H
#define PRSYNCD_SIGSYS_H

#include <sys/types.h>

/* Start watching the kernel log (call while privileged; -1 if unavailable). */
int sigsys_watch_open(void);

/*
 * After a child died of SIGSYS, look for the kernel's seccomp audit record
 * for it and return the syscall number, or -1 if the kernel did not say.
 */
long sigsys_lookup(int kmsg_fd, pid_t pid);

#endif
