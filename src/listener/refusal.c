/* SPDX-License-Identifier: ISC */
/*
 * A client the listener cannot serve (no room under the descriptor limit
 * or in the session table, a monitor it cannot start) is told so: the
 * greeting the worker would send and an @ERROR line, as the monitor's
 * refuse_early() sends them, so a stock client prints the line and exits
 * 5.  Nothing is read: the line is written without blocking, the socket
 * half-closed and kept (at most REFUSE_MAX, REFUSE_MS each) until the
 * client hangs up, so that the greeting it sent, unread, does not turn
 * into a reset before it has read the line.  Beyond REFUSE_MAX the socket
 * is closed at once (the line is in the client's buffer by then, most
 * likely).  Each kept client costs one descriptor, which the listener's
 * budget counts (listener.c).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "monotime.h"
#include "refusal.h"

#define REFUSE_MS 2000       /* how long a refused client may take to hang up */
#define LOG_EVERY_MS 10000

void refusal_add(struct refusals *rs, int c, const char *text, const char *why)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "@RSYNCD: 32.0 sha512 sha256 sha1 md5 md4\n%s\n", text);

	if (n > 0 && (size_t)n < sizeof(buf))
		(void)!send(c, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(c, SHUT_WR);
	if (rs->n < REFUSE_MAX) {
		rs->r[rs->n].fd = c;
		rs->r[rs->n++].deadline = now_ms() + REFUSE_MS;
	} else {
		close(c);
	}
	rs->count++;
	if (rs->logged == 0 || now_ms() - rs->logged >= LOG_EVERY_MS) {
		log_msg(PR_LOG_ERR, "refusing new connections: %s (%lu refused)", why, rs->count);
		rs->logged = now_ms();
		rs->count = 0;
	}
}

void refusal_poll(const struct refusals *rs, struct pollfd *p, int *timeout)
{
	for (size_t i = 0; i < rs->n; i++) {
		int64_t left = rs->r[i].deadline - now_ms();

		p[i] = (struct pollfd){ .fd = rs->r[i].fd, .events = POLLRDHUP };
		if (*timeout < 0 || left < *timeout)
			*timeout = left > 0 ? (int)left : 0;
	}
}

void refusal_sweep(struct refusals *rs, const struct pollfd *p)
{
	int64_t now = now_ms();

	/* Backwards: the last entry moves into a freed one already looked at. */
	for (size_t i = rs->n; i-- > 0;) {
		if (!p[i].revents && now < rs->r[i].deadline)
			continue;
		close(rs->r[i].fd);
		rs->r[i] = rs->r[--rs->n];
	}
}

void refusal_drain(struct refusals *rs)
{
	while (rs->n > 0) {
		struct pollfd p[REFUSE_MAX];
		int timeout = -1;

		refusal_poll(rs, p, &timeout);
		if (poll(p, (nfds_t)rs->n, timeout) < 0 && errno != EINTR)
			p[0].revents = POLLERR;
		refusal_sweep(rs, p);
	}
}
