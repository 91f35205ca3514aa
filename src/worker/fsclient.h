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

/* Open a regular file read-only. Returns 0 or errno; *fd and *handle set on success. */
int fsc_open(const char *path, int *fd, uint32_t *handle, struct pr_stat *st);
/* Close a descriptor from fsc_open or fsc_openv.  The monitor learns of it
 * with the next OPENV or OPEN (or once PR_CLOSEV_MAX are pending). */
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

/* Name of a uid/gid (cached). Returns NULL if it has none. */
const char *fsc_idname(int kind, uint32_t id);

#endif
