/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_REAP_H
#define PRSYNCD_REAP_H

#include <sys/types.h>

/* Start watching the kernel log for seccomp kills (call while privileged). */
void reap_watch_start(void);

/* Log how a reaped session monitor ended, if it died of a signal. */
void reap_report(pid_t pid, int status);

/* The same for another child, called who in the line ("resolver"). */
void reap_report_as(const char *who, pid_t pid, int status);

#endif
