/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_EMPTYDIR_H
#define PRSYNCD_EMPTYDIR_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Make sure `path` is a usable chroot for workers: an absolute path to a
 * real directory (no symlink as last component), owned by `owner`, writable
 * by nobody else, and empty.  Creates it (mode 0555) and a missing parent
 * (0755) when `create` is set.  Returns 0, or -1 with a reason in err.
 */
int emptydir_check(const char *path, uid_t owner, int create, char *err, size_t errlen);

#endif
