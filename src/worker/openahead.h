/* SPDX-License-Identifier: ISC */
/*
 * Opening the files the client asks for, several per exchange with the
 * monitor.  The client asks for files in list order, so when it asks for
 * one, the next regular files of the same list that were not sent yet are
 * likely to follow: they are opened in the same request (OPENV) and kept
 * until asked for.  Every descriptor still comes from the monitor, which
 * resolved and judged each path as it does a single OPEN.
 *
 * How far to look ahead adapts: it doubles while the files opened ahead
 * are all asked for and halves when one is skipped (the client found it up
 * to date), so a mostly unchanged tree costs few wasted opens.
 */
#ifndef PRSYNCD_OPENAHEAD_H
#define PRSYNCD_OPENAHEAD_H

#include <stdint.h>

#include "flist.h"

struct oa_file {
	int fd;
	uint32_t handle;
	struct pr_stat st;
};

/*
 * Open entry idx of fl for sending (mpath: its module path).  ahead = 0
 * opens only it (a redo).  Returns 0 with *out filled, or an errno.
 */
int oa_open(struct flist *fl, size_t idx, const char *mpath, int ahead, struct oa_file *out);

/* Close what oa_open gave. */
void oa_close(struct oa_file *f);

/* Close every file opened ahead and not asked for (end of a phase, or a
 * list about to be retired). */
void oa_drop(void);

#endif
