/* SPDX-License-Identifier: ISC */
/*
 * The trusted-owner path walk (safeopen.h).  Every component is opened with
 * O_PATH | O_NOFOLLOW beneath the directory descriptor held for its parent,
 * so what is checked is what is used: a component swapped for a link after
 * it was checked is never reached by name again, and a last component
 * swapped between the check and the open fails the open (O_NOFOLLOW).
 *
 * Every open is an openat2(2) with no resolve flags, which is openat(2)
 * itself: the session monitor reads the secrets file and opens module
 * roots under policy/preselect.policy, which admits openat2 and not
 * open/openat.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safeopen.h"

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#define PATH_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* openat(2) through openat2, which refuses what openat ignores: flags
 * beside O_PATH's own, a mode without O_CREAT. */
static int at(int dir, const char *name, int flags, mode_t mode)
{
	struct open_how how = { 0 };

	if (flags & O_PATH)
		flags &= PATH_FLAGS;
	how.flags = (uint64_t)(unsigned)flags;
	how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0;
	return (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));
}

int safe_open(const char *path, int flags, mode_t mode, char *why, size_t whylen)
{
	char buf[2][PATH_MAX], name[NAME_MAX + 1], target[PATH_MAX];
	const char *p = buf[0];
	int cur = 0, links = 0, dir = -1, fd = -1, e;
	struct stat st;
	ssize_t n;

	flags |= O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
	if (why && whylen)
		why[0] = '\0';
	if (path == NULL || path[0] == '\0')
		errno = ENOENT;
	else if (snprintf(buf[0], PATH_MAX, "%s", path) >= PATH_MAX)
		errno = ENAMETOOLONG;
	else
		dir = at(AT_FDCWD, path[0] == '/' ? "/" : ".", DIR_FLAGS, 0);
	while (dir >= 0) {
		size_t len;
		int last;

		p += strspn(p, "/");
		if (*p == '\0') { /* "/", or a path ending in "/" or "..": the directory held */
			fd = (flags & O_PATH) ? fcntl(dir, F_DUPFD_CLOEXEC, 0) : at(dir, ".", flags & ~O_CREAT, 0);
			break;
		}
		if ((len = strcspn(p, "/")) > NAME_MAX) {
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		last = p[strspn(p, "/")] == '\0';
		if (strcmp(name, ".") == 0)
			continue;
		fd = at(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0 && errno == ENOENT && last && (flags & O_CREAT)) {
			fd = at(dir, name, flags, mode); /* a link appearing meanwhile fails it */
			break;
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			n = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			fd = -1;
			if (n < 0 || ++links > SAFEOPEN_MAX_LINKS) {
				errno = n < 0 ? errno : ELOOP;
				break;
			}
			target[n] = '\0';
			if (st.st_uid != 0 && st.st_uid != geteuid()) {
				errno = ELOOP;
				if (why && whylen)
					snprintf(why, whylen, "refusing to follow a symlink owned by an untrusted user (uid %u): "
						 "%s -> %s", (unsigned)st.st_uid, name, target);
				break;
			}
			/* the target, then what is left of the path, walked the same way */
			if (snprintf(buf[!cur], PATH_MAX, "%s/%s", target, p) >= PATH_MAX) {
				errno = ENAMETOOLONG;
				break;
			}
			p = buf[cur = !cur];
			if (target[0] == '/') {
				close(dir);
				dir = at(AT_FDCWD, "/", DIR_FLAGS, 0);
			}
			continue;
		}
		if (!last || strcmp(name, "..") == 0) {
			if (!S_ISDIR(st.st_mode)) {
				close(fd);
				fd = -1;
				errno = ENOTDIR;
				break;
			}
			close(dir);
			dir = fd;
			fd = -1;
			continue;
		}
		if (!(flags & O_PATH) || (flags & O_DIRECTORY)) { /* the probe is not the answer */
			close(fd);
			fd = at(dir, name, flags, mode);
		}
		break;
	}
	e = errno;
	if (dir >= 0)
		close(dir);
	if (fd < 0) {
		if (why && whylen && why[0] == '\0')
			snprintf(why, whylen, "%s", strerror(e));
		errno = e;
		return -1;
	}
	/* the lowest free number, as open(2) would have given */
	if ((dir = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0 && dir < fd) {
		close(fd);
		fd = dir;
	} else if (dir >= 0) {
		close(dir);
	}
	return fd;
}
