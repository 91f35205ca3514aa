/* SPDX-License-Identifier: ISC */
/*
 * What the hostile stand-ins for prsyncd-worker (hostile_worker.c,
 * hostile_worker2.c, hostile_openv.c) share: the channel to the session
 * monitor that started them, the text lines they exchange with the test
 * client, and the well-formed requests every attack begins with.  Each
 * wait is bounded, so a monitor that stops answering fails the test
 * instead of hanging it.
 */
#ifndef PRSYNCD_HOSTILE_COMMON_H
#define PRSYNCD_HOSTILE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "ipc.h"
#include "msg.h"

extern struct pr_ipc hw_ipc; /* fd 4, as the monitor hands it to a worker */

void hw_init(void);
/* One line from the test client (fd 3), without its newline. */
void hw_read_line(char *buf, size_t cap);
/* One line to the test client. */
void hw_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report LINE, then wait (at most 20 s) for the client's answer: the test
 * acts on the monitor or the module meanwhile. */
void hw_await(const char *line);
/* 0 once the monitor hangs up (it must), 1 if it has not after 20 s. */
int hw_wait_hangup(void);
/* The next answer, at most 10 s away; -1 if none came or it was invalid. */
int hw_answer(struct pr_msg *m, int *fd);
int hw_answer_fds(struct pr_msg *m, int *fds, size_t cap, size_t *nfds);
void hw_send(struct pr_msg *m);
void hw_ready(void);
void hw_send_exit(void);
/* SELECT NAME; reports "SELECTED ppid=N pid=P" (N: the monitor) or
 * "SELECT failed NAME". */
int hw_select(const char *name);
/* READY, then SELECT NAME: how most attacks begin. */
int hw_start(const char *name);
/* A STAT of the module's root, answered: the monitor has handled every
 * request sent before (it serves them in order), answers or not. */
int hw_sync(void);
/* A path request of TYPE (STAT and XATTR carry FLAGS; an OPENV asks for
 * the one path, as the monitor's only way to open). */
void hw_send_path(enum pr_msg_type type, const char *path, uint32_t flags);
/* The answer to an OPENV of one path: its errno in *err, and on success
 * the descriptor and handle; -1 if no such answer came. */
int hw_open_answer(int *err, int *fd, uint32_t *handle);
/* Report one handle closed: a CLOSEV of one. */
void hw_send_close(uint32_t handle);

#endif
