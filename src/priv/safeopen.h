/* SPDX-License-Identifier: ISC */
/*
 * Opening a file or directory the operator named in the configuration or
 * on the command line (motd, secrets, include/exclude-from files, module
 * roots, log and pid files, the worker chroot, the configuration itself)
 * without following a symlink that someone else planted on the way: the
 * class rsync 3.5.0 fixed as CVE-2026-53802/53803.  A privileged daemon that
 * opens /srv/pub/motd must not be turned into a reader of /etc/shadow by
 * the user who owns /srv/pub.
 *
 * The path is walked one component at a time, from "/" (or from the current
 * directory for a relative path), each component opened with O_NOFOLLOW
 * beneath the directory descriptor already held.  A symlink met on the way,
 * the last component included, is followed only if it is owned by root or
 * by the caller's effective uid (the daemon's own); its target is walked
 * the same way.  Who owns the directories does not matter, as in rsync: a
 * directory's owner could as well have put the file itself there.  At most
 * SAFEOPEN_MAX_LINKS links per open, as the kernel allows.
 *
 * Usage, for any caller (one function, no state):
 *
 *	char why[256];
 *	int fd = safe_open(path, O_RDONLY | O_NONBLOCK, 0, why, sizeof(why));
 *	if (fd < 0)
 *		log_msg(PR_LOG_ERR, "log file %s: %s", path, why);
 *
 * flags are open(2)'s for the last component; O_CLOEXEC, O_NOCTTY and
 * O_NOFOLLOW are always added.  O_CREAT creates a missing last component
 * with mode (never through a link that is not trusted); O_PATH and
 * O_DIRECTORY work as in open(2).  Returns the descriptor, or -1 with errno
 * set and a one-line reason in why (NULL/0 allowed): strerror(errno), or,
 * with errno ELOOP, "refusing to follow a symlink owned by an untrusted
 * user (uid N): NAME -> TARGET" (rsync's words, so operators' greps work).
 */
#ifndef PRSYNCD_SAFEOPEN_H
#define PRSYNCD_SAFEOPEN_H

#include <stddef.h>
#include <sys/types.h>

#define SAFEOPEN_MAX_LINKS 40

int safe_open(const char *path, int flags, mode_t mode, char *why, size_t whylen);

#endif
