/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_REFUSAL_H
#define PRSYNCD_REFUSAL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#define REFUSE_MAX 8         /* refused clients waiting to hang up */

/* Clients the listener refused, each kept until it hangs up. */
struct refusals {
	struct { int fd; int64_t deadline; } r[REFUSE_MAX];
	size_t n;
	unsigned long count;     /* since the last log line about them */
	int64_t logged;
};

/* Refuse the client c (taken): rsyncd's greeting and the line text, and
 * a log line saying why, at most every 10 s with the count since. */
void refusal_add(struct refusals *rs, int c, const char *text, const char *why);
/* The poll entries for the kept clients (rs->n of them), and the time
 * until the first must be let go: the smaller of it and *timeout (-1:
 * none yet). */
void refusal_poll(const struct refusals *rs, struct pollfd *p, int *timeout);
/* Let go of those whose client hung up (p: rs->n entries from poll(), in
 * the order refusal_poll() wrote them) or whose time is up. */
void refusal_sweep(struct refusals *rs, const struct pollfd *p);
/* At exit: the kept clients get their time, bounded. */
void refusal_drain(struct refusals *rs);

#endif
