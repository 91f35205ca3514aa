/*
 * rsyncd's transfer log, written by the session monitor: the
 * "rsync on|to REQUEST from HOST (ADDR)" line and, with "transfer logging",
 * one line per file in the module's "log format" (every escape of
 * rsyncd.conf(5)).  The worker never writes a line: it sends PR_W_START
 * and PR_W_XFER records (msg.h), validated before they get here, and this
 * file formats them with what the monitor knows itself.
 */
#ifndef PRSYNCD_XFERLOG_H
#define PRSYNCD_XFERLOG_H

#include <stddef.h>

#include "config.h"
#include "msg.h"

struct xferlog {
	const struct cfg_module *mod;  /* NULL until selection */
	const char *host, *addr, *user;/* the session's; user "" without auth */
	int started;                   /* PR_W_START seen (once) */
	int files, itemized;           /* what PR_M_XFERLOG asked for */
};

/* At module selection. */
void xferlog_init(struct xferlog *x, const struct cfg_module *mod, const char *host, const char *addr,
		  const char *user);

/* PR_W_START: log the request line and build the PR_M_XFERLOG answer.
 * -1 (logged) if it is not the first. */
int xferlog_start(struct xferlog *x, const struct pr_w_start *req, struct pr_msg *answer);

/* PR_W_XFER: one line in the log format.  -1 (logged) for a record the
 * monitor did not ask for. */
int xferlog_file(struct xferlog *x, const struct pr_w_xfer *r);

/* Expand fmt for record r into out (always NUL-terminated, cut at cap). */
void xferlog_format(char *out, size_t cap, const char *fmt, const struct xferlog *x,
		    const struct pr_w_xfer *r);

/* Does fmt use the escape letter c (as rsyncd decides, e.g. %i)? */
int xferlog_has(const char *fmt, char c);

#endif
