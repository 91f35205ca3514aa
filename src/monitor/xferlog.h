/* SPDX-License-Identifier: ISC */
/*
 * rsyncd's transfer log, as far as the session monitor writes it: the
 * "rsync on|to REQUEST from HOST (ADDR)" line, and, with "transfer
 * logging", the per-file lines the worker formats in the module's "log
 * format" (src/worker/xferfmt.c).  The monitor decides whether those lines
 * are wanted, hands the worker the format and what only it knows (host,
 * address, user, module, path, pid), and writes what arrives with its own
 * prefix; the validator (msg_w2m.c, F_LOG) has refused any control byte
 * but tab, so no line break or terminal escape reaches the log.  A worker
 * that lies in those lines can only write what PR_W_LOG lets it write.
 */
#ifndef PRSYNCD_XFERLOG_H
#define PRSYNCD_XFERLOG_H

#include "config.h"
#include "msg.h"

struct xferlog {
	int files;    /* PR_M_XFERLOG asked for per-file lines */
};

/* PR_W_START: log the request line and build the PR_M_XFERLOG answer for
 * the selected module mod, seen from host (addr), user "" without a login.
 * -1 (logged) if the answer cannot hold a value.  A second START never
 * comes here: it leads to SENDING, where the request table refuses it. */
int xferlog_start(struct xferlog *x, const struct cfg_module *mod, const char *host, const char *addr,
		  const char *user, const struct pr_w_start *req, struct pr_msg *answer);

/* PR_W_XFER: log the line.  -1 (logged) if the monitor did not ask for
 * lines. */
int xferlog_file(const struct xferlog *x, const struct pr_w_xfer *r);

#endif
