/* SPDX-License-Identifier: ISC */
/* Descriptor numbers agreed between the processes at exec time. */
#ifndef PRSYNCD_FDS_H
#define PRSYNCD_FDS_H

/* session monitor: the accepted client socket; the log file when not syslog */
#define PR_FD_CLIENT 3
#define PR_FD_LOG 4
/* session monitor: the sealed configuration snapshot, the listener
 * channel, the sealed names table (src/priv/nametab.h) */
#define PR_FD_CFG 5
#define PR_FD_LISTENER 6
#define PR_FD_NAMES 7
/* worker: the client socket (same number) and its end of the channel */
#define PR_FD_IPC 4

#endif
