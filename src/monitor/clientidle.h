/* SPDX-License-Identifier: ISC */
/*
 * The session monitor's backstop once a module is selected (MODULE and
 * SENDING states): the worker enforces the module's "timeout" on the
 * client, and the monitor only waits for its next request; a worker that
 * stops talking, to its client and to the monitor, must not keep the
 * session (its monitor, its connection slot, the client's connection)
 * for ever.  The monitor keeps its copy of the client socket, never
 * reading from it, and asks the kernel (TCP_INFO) when data last went
 * either way:
 *
 *   module timeout T > 0   no data to or from the client for T +
 *                          CLIENTIDLE_SLACK_S seconds: the worker, which
 *                          ends such a session at T, has not
 *   any module             the client's connection has left ESTABLISHED
 *                          (the client closed it, or it was reset) for
 *                          CLIENTIDLE_GONE_S seconds, and the worker,
 *                          which ends at the next read or write, has not
 *
 * The monitor looks after CLIENTIDLE_TICK_S seconds without a request
 * (the channel's receive timeout), and at most that often between
 * requests (the closed-connection rule only): no system call is added per
 * request.  With no timeout and a live connection, as in rsyncd, nothing
 * ends the session.
 */
#ifndef PRSYNCD_CLIENTIDLE_H
#define PRSYNCD_CLIENTIDLE_H

#include <stddef.h>
#include <stdint.h>

#define CLIENTIDLE_TICK_S 5
#define CLIENTIDLE_SLACK_S 5
#define CLIENTIDLE_GONE_S 10

struct clientidle {
	int fd;              /* the client socket (PR_FD_CLIENT), or -1: not watched */
	int64_t gone_since;  /* now_ms() when it was first seen closed, or 0 */
};

/* Before the worker exists: watch fd if the kernel reports TCP_INFO for
 * it (not TCP: nothing to watch, w->fd is -1; fd stays the caller's). */
void clientidle_init(struct clientidle *w, int fd);

/* 1 if the session must end (the reason in why), else 0; timeout is the
 * selected module's, in seconds (0: none).  idle: no request came for a
 * tick (the timeout rule applies then only: a worker busy with the
 * monitor is not idle); without it only the closed-connection rule. */
int clientidle_check(struct clientidle *w, unsigned timeout, int idle, char *why, size_t whylen);

#endif
