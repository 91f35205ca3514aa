/* SPDX-License-Identifier: ISC */
/*
 * The sender's symlink options (-L, -k, --copy-unsafe-links) and the
 * module's "munge symlinks", applied to one symlink entry (links.c).
 */
#ifndef PRSYNCD_LINKS_H
#define PRSYNCD_LINKS_H

#include "msg.h"

struct links_opts {
	int copy_links, copy_dirlinks, copy_unsafe_links;
	int munge;                  /* the module munges: strip the prefix */
};

enum link_verdict {
	LINK_KEPT = 0,              /* sent as a link (target possibly unmunged) */
	LINK_FOLLOWED = 1,          /* *st is the referent's, link emptied */
	LINK_NO_REFERENT = -1,      /* to follow, but nothing there */
	LINK_ERROR = -2,            /* to follow, and *err says why not (ELOOP...) */
};

/*
 * A symlink at module path mpath, named `where` as rsync's unsafe test
 * reads it (the name below the transfer root; with -R and no "/./" split,
 * with a leading '/'), *st its lstat, link its target (NUL-terminated,
 * FS_LINK_MAX bytes of room; ignored with -L).  May ask the monitor for
 * the referent.
 */
enum link_verdict links_apply(const struct links_opts *o, const char *mpath, const char *where,
			      struct pr_stat *st, char *link, int *err);

/* rsync 3.5.0's unsafe link: empty, absolute, ".." after another
 * component or at the end after one, or climbing above `where`'s top. */
int links_unsafe(const char *target, const char *where);

#endif
