/* The worker's side of the monitor channel: requests, answers, log records. */
#ifndef PRSYNCD_MON_H
#define PRSYNCD_MON_H

#include "ipc.h"

extern struct pr_ipc mon_ipc;

void mon_init(int fd);

/* Send a log record; never fails visibly (a dead monitor ends us anyway). */
void mon_log(enum pr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Send a request; exits the worker if the channel is broken. */
void mon_send(struct pr_msg *m, int fd);

/* Receive the next message, which must be of `type`; exits on anything else. */
void mon_expect(struct pr_msg *m, enum pr_msg_type type, int *fd_out);
/* The same for an answer with up to cap descriptors (*nfds of them). */
void mon_expect_fds(struct pr_msg *m, enum pr_msg_type type, int *fds, size_t cap, size_t *nfds);

#ifdef PRSYNCD_FUZZ
/* Fuzz targets set this to return to libFuzzer (by longjmp) instead of
 * exiting; it must not return. */
extern void (*mon_exit_hook)(int code);
#endif

/* Tell the monitor the session's exit code, then exit with it. */
__attribute__((noreturn)) void mon_exit(int code);

#endif
