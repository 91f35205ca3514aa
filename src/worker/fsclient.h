/* SPDX-License-Identifier: ISC */
/*
 * The worker's view of the module's files: every call is a request to the
 * monitor, which resolves the path beneath the module root and answers.
 */
#ifndef PRSYNCD_FSCLIENT_H
#define PRSYNCD_FSCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define FS_LINK_MAX 4096   /* a symlink target including its NUL */

/* Called for every entry of a directory; return 0 to continue. */
typedef int (*fsc_list_fn)(void *ctx, const struct pr_dirent *d);

/* List the directory at module path `path` ("" = root). Returns 0, or the
 * errno that prevented or ended the listing (entries already delivered
 * stay valid). */
int fsc_list(const char *path, fsc_list_fn fn, void *ctx);

/* lstat (or stat with follow=1, within the module). Returns 0 or errno.
 * For a symlink, link receives the target (may be NULL). */
int fsc_stat(const char *path, int follow, struct pr_stat *st, char *link, size_t linkcap);

/*
 * Several lstats (or stats) in flight at once: up to FSC_STAT_BATCH
 * requests are sent before the first answer is read, so a long run of
 * lookups (a --files-from list) costs the two processes one wake-up per
 * batch rather than one per name.  The monitor answers in order; with at
 * most FSC_STAT_BATCH messages queued each way, neither side can block
 * the other.  Each entry's err, st and link are as fsc_stat's.
 */
#define FSC_STAT_BATCH 8
struct fsc_statq {
	const char *path;
	int follow;
	int err;
	struct pr_stat st;
	char link[FS_LINK_MAX];
};
void fsc_stat_many(struct fsc_statq *q, size_t n);

/* Open a regular file read-only. Returns 0 or errno; *fd and *handle set on success. */
int fsc_open(const char *path, int *fd, uint32_t *handle, struct pr_stat *st);
/* The same, but PR_EHIDDEN (msg.h) where the module's filters hide the
 * path by its name alone, which fsc_open reports as ENOENT: rsyncd skips
 * a hidden merge file a client names, and fails on an absent one. */
int fsc_open_judged(const char *path, int *fd, uint32_t *handle, struct pr_stat *st);
/* Close a descriptor from fsc_open or fsc_openv.  The monitor learns of it
 * with the next OPENV (or once PR_CLOSEV_MAX are pending). */
void fsc_close(int fd, uint32_t handle);

/* One answer of fsc_openv: err 0 with fd, handle and st, or an errno. */
struct fsc_opened {
	int err;
	int fd;
	uint32_t handle;
	struct pr_stat st;
};

/*
 * Open paths[0..n) in one exchange with the monitor, as many as one request
 * holds (at most PR_OPENV_MAX and fsc_open_room()); returns how many were
 * asked, out[] filled for those.  n >= 1 and room >= 1 ask at least one.
 */
size_t fsc_openv(const char *const *paths, size_t n, struct fsc_opened *out);

/* How many more descriptors the monitor would hand out now. */
size_t fsc_open_room(void);

/* Read a symlink's target. Returns 0 or errno. */
int fsc_readlink(const char *path, char *buf, size_t cap);

/* The raw extended attributes of a path (msg.h, XATTR): *out (malloc'ed,
 * NULL if none) holds *count records in *len bytes.  0 or errno. */
int fsc_xattrs(const char *path, int follow, unsigned char **out, size_t *len, uint32_t *count);

/* Name of a uid/gid (cached). Returns NULL if it has none. */
const char *fsc_idname(int kind, uint32_t id);

#endif
