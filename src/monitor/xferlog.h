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
#include <stdint.h>

#include "config.h"
#include "msg.h"

/* One piece of the module's "log format", compiled at selection: text
 * copied as written (letter 0; an unknown escape too), or an escape. */
struct xferlog_item {
	uint16_t off, len;             /* where it is written in the format */
	uint16_t width;
	char letter;
	uint8_t left, zero, humanize;  /* humanize: apostrophes, at most 3 */
};

struct xferlog {
	const struct cfg_module *mod;  /* NULL until selection */
	const char *host, *addr, *user;/* the session's; user "" without auth */
	int started;                   /* PR_W_START seen (once) */
	int files, itemized;           /* what PR_M_XFERLOG asked for */
	int uses_i;                    /* the format has %i */
	size_t nitems;
	struct xferlog_item item[CFG_LOG_FORMAT_MAX + 1];
};

/* At module selection: compiles the module's log format (configuration
 * only; host, addr and user are kept for the records, not read). */
void xferlog_init(struct xferlog *x, const struct cfg_module *mod, const char *host, const char *addr,
		  const char *user);

/* PR_W_START: log the request line and build the PR_M_XFERLOG answer.
 * -1 (logged) if it is not the first. */
int xferlog_start(struct xferlog *x, const struct pr_w_start *req, struct pr_msg *answer);

/* PR_W_XFER: one line in the log format.  -1 (logged) for a record the
 * monitor did not ask for. */
int xferlog_file(struct xferlog *x, const struct pr_w_xfer *r);

/* The compiled format for record r, into out (always NUL-terminated, cut
 * at cap, which must not be 0). */
void xferlog_format(char *out, size_t cap, const struct xferlog *x, const struct pr_w_xfer *r);

#endif
