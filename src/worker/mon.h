/* SPDX-License-Identifier: ISC */
/* The worker's side of the monitor channel: requests, answers, log records. */
#ifndef PRSYNCD_MON_H
#define PRSYNCD_MON_H

#include "ipc.h"

extern struct pr_ipc mon_ipc;

void mon_init(int fd);

/* Send a log record; never fails visibly (a dead monitor ends us anyway). */
void mon_log(enum pr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A log record a client can cause as often as it likes (its own text
 * messages, the errors its requests produce): counted against the
 * session's budget of MON_LOG_CLIENT_RECORDS records and
 * MON_LOG_CLIENT_BYTES bytes; beyond it the record is dropped, and
 * mon_exit() logs one line saying how much was.
 */
#define MON_LOG_CLIENT_RECORDS 1000u
#define MON_LOG_CLIENT_BYTES (256u * 1024u)
void mon_log_client(enum pr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Send a request; exits the worker if the channel is broken. */
void mon_send(struct pr_msg *m, int fd);

/* Receive the next message, which must be of `type`; exits on anything else. */
void mon_expect(struct pr_msg *m, enum pr_msg_type type, int *fd_out);
/* Either of two answers (a login challenge or the selection's answer). */
void mon_expect_either(struct pr_msg *m, enum pr_msg_type type, enum pr_msg_type type2, int *fd_out);
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
