/* SPDX-License-Identifier: ISC */
/*
 * Resolving a worker's path beneath the module root, the one way the
 * monitor turns a path into a descriptor (fsreq.c).  The module's filters
 * are judged on the path the monitor really walks: every directory it goes
 * through, every symlink it meets, every target it follows, by their real
 * module paths, and on the name the request gave.
 */
#ifndef PRSYNCD_RESOLVE_H
#define PRSYNCD_RESOLVE_H

#include <sys/stat.h>

#include "fsreq.h"

#define RES_LINKS_MAX 40     /* symlinks followed per request, as the kernel allows */
#define RES_STEPS_MAX 8192   /* names looked up per request */
#define RES_WORK_MAX (256u * 4096u) /* filter work per request and rule, in path bytes */
#define RES_LOG_ABOVE 10     /* links above the root logged per session */

#define RES_READABLE (-1)

/* What a request wants resolved. */
struct res_how {
	int oflags;        /* for the object: O_PATH, or O_RDONLY with O_DIRECTORY or
			    * O_NONBLOCK | O_NOCTTY, or RES_READABLE: by its type, those
			    * for a directory or regular file, O_PATH for the rest;
			    * O_NOFOLLOW and O_CLOEXEC are implied */
	mode_t need;       /* S_IFREG, S_IFDIR, or 0 for any type: another type is refused
			    * before the object is opened with oflags (ENOTDIR where a
			    * directory is needed; else ELOOP for a symlink, as O_NOFOLLOW
			    * would say, EINVAL for the rest) */
	unsigned serves;   /* MF_DIR, MF_OTHER or MF_BOTH: the types the request can
			    * serve; a name hidden as all of them is refused unopened */
	int follow;        /* follow a symlink in the last component too (LIST, OPEN);
			    * 2: with RES_LINKS_MAX links of its own, as a stat
			    * from its directory's descriptor counts them (STAT with
			    * PR_STAT_FOLLOW: rsync 3.5.0 stats a listed entry so) */
};

/* What it resolved to. */
struct res {
	int fd;            /* the object, opened with how->oflags; the caller closes it */
	struct stat st;    /* fstat of fd */
	int walked;        /* links were followed: f->canon holds the real path, which
			    * differs from the request's */
	int hidden;        /* the answer is ENOENT because the request's own path is
			    * hidden, judged on its name alone before anything was
			    * looked up: it says nothing of what exists there */
};

/*
 * Resolve path (relative, no "." or ".." components, "" the module root;
 * pr_relpath_ok checked it) beneath f->root.
 *
 * First one openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS): if no symlink is in the way, the request's path
 * is the real one.  Otherwise a walk from held directory descriptors, one
 * name at a time (O_PATH | O_NOFOLLOW), reading each link it must follow
 * through the descriptor it holds and splicing its target into the rest
 * of the path.  Links resolve as the kernel resolves them in rsyncd's
 * chroot into the module: an absolute target starts again at the module
 * root, ".." at the root stays there (both logged, the first
 * RES_LOG_ABOVE of a session).  More than RES_LINKS_MAX links,
 * RES_STEPS_MAX names or RES_WORK_MAX of filter work per rule is ELOOP,
 * logged.
 *
 * Returns 0 with *r filled, or an errno: ENOENT for anything the module's
 * filters hide (the same answer as for an absent name), whatever the
 * failure; r->hidden tells the one case decided on the name alone.  On success f->byname and f->canon stand on the object, so a
 * listing can judge its entries.
 */
int resolve(struct fsreq *f, const char *path, const struct res_how *how, struct res *r);

#endif
