/* SPDX-License-Identifier: ISC */
/*
 * The worker's side of the transfer log: it tells the monitor what was
 * asked (PR_W_START, once, answered with whether per-file lines are
 * wanted, the module's log format and the values only the monitor knows)
 * and, when asked, one line per file sent, formatted here (xferfmt.c) and
 * written by the monitor as it comes (PR_W_XFER).
 */
#ifndef PRSYNCD_XFERREC_H
#define PRSYNCD_XFERREC_H

#include <stdint.h>

#include "flist.h"
#include "sess.h"

/* After the arguments: the request line, and what to report. */
void xferrec_start(struct sess *s);
/* The same for the paths given (the arguments after ".", as the client
 * sent them): a refusal logs the request too, as rsyncd does, before the
 * options are all parsed. */
void xferrec_start_paths(struct sess *s, char *const *paths, size_t npaths);

/* Whether an item of the client's request gets a record: a file sent
 * (transfer), or one the client itemized with a change (log format %i). */
int xferrec_wanted(const struct sess *s, uint16_t iflags, int has_xname);

/* One record.  digest: the whole-file sum sent (transfers), else NULL;
 * xname: the client's extra name (a hard link's), else NULL. */
void xferrec_send(const struct sess *s, const struct flist *fl, const struct fentry *f, uint16_t iflags,
		  const char *xname, uint64_t bytes, uint64_t sum_bytes, const unsigned char *digest);

#endif
