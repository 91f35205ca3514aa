/*
 * The trusted-owner path walk (safeopen.h).  Every component is opened with
 * O_PATH | O_NOFOLLOW beneath the directory descriptor held for its parent,
 * so what is checked is what is used: a component swapped for a link after
 * it was checked is never reached by name again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeopen.h"

#define WALK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}

static void swap_dir(int *dir, int fd)
{
	close(*dir);
	*dir = fd;
}

/*
 * A link met at `name` (held open as lfd): if its owner is trusted, splice
 * its target in front of the rest of the walk (rest, restlen bytes, into
 * buf) and restart from "/" for an absolute target.  0, or -1 (reason set).
 */
static int follow(int lfd, const char *name, int *dir, char *buf, const char *rest, char *why, size_t whylen)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstat(lfd, &st) < 0)
		return fail(why, whylen, "%s", strerror(errno));
	n = readlinkat(lfd, "", target, sizeof(target) - 1);
	if (n < 0)
		return fail(why, whylen, "%s", strerror(errno));
	target[n] = '\0';
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		errno = ELOOP;
		return fail(why, whylen, "refusing to follow a symlink owned by an untrusted user (uid %u): %s -> %s",
			    (unsigned)st.st_uid, name, target);
	}
	if (n == 0 || snprintf(buf, PATH_MAX, "%s%s%s", target, *rest ? "/" : "", rest) >= PATH_MAX) {
		errno = n == 0 ? ENOENT : ENAMETOOLONG;
		return fail(why, whylen, "%s", strerror(errno));
	}
	if (target[0] == '/') {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root < 0)
			return fail(why, whylen, "/: %s", strerror(errno));
		swap_dir(dir, root);
	}
	return 0;
}

int safe_open(const char *path, int flags, mode_t mode, char *why, size_t whylen)
{
	char paths[2][PATH_MAX], name[NAME_MAX + 1];
	const char *p;
	int cur = 0, links = 0, dir, fd = -1;
	struct stat st;

	flags |= O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
	if (why && whylen)
		why[0] = '\0';
	if (path == NULL || path[0] == '\0' || snprintf(paths[0], PATH_MAX, "%s", path) >= PATH_MAX) {
		errno = path && path[0] ? ENAMETOOLONG : ENOENT;
		return fail(why, whylen, "%s", strerror(errno));
	}
	dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return fail(why, whylen, "%s", strerror(errno));
	p = paths[0];
	for (;;) {
		size_t len;
		int last;

		while (*p == '/')
			p++;
		if (*p == '\0') {
			/* "/", or a path ending in "/" or "..": the directory held */
			fd = (flags & O_PATH) ? fcntl(dir, F_DUPFD_CLOEXEC, 0) : openat(dir, ".", flags & ~O_CREAT);
			break;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			fail(why, whylen, "%s", strerror(errno));
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		last = p[strspn(p, "/")] == '\0';
		if (strcmp(name, ".") == 0)
			continue;

		fd = openat(dir, name, WALK_FLAGS);
		if (fd < 0 && errno == ENOENT && last && (flags & O_CREAT)) {
			fd = openat(dir, name, flags, mode);
			if (fd >= 0 || errno != ELOOP || ++links > SAFEOPEN_MAX_LINKS)
				break;
			p -= len; /* a link appeared meanwhile: walk it (counted) */
			continue;
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			fail(why, whylen, "%s: %s", name, strerror(errno));
			if (fd >= 0)
				close(fd);
			fd = -1;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			int rc;

			rc = ++links > SAFEOPEN_MAX_LINKS ? -1 : follow(fd, name, &dir, paths[!cur], p, why, whylen);
			close(fd);
			fd = -1;
			if (rc < 0) {
				if (links > SAFEOPEN_MAX_LINKS)
					errno = ELOOP;
				break;
			}
			cur = !cur;
			p = paths[cur];
			continue;
		}
		if (!last || strcmp(name, "..") == 0) {
			if (!S_ISDIR(st.st_mode)) {
				close(fd);
				fd = -1;
				errno = ENOTDIR;
				fail(why, whylen, "%s: %s", name, strerror(errno));
				break;
			}
			swap_dir(&dir, fd);
			fd = -1;
			continue;
		}
		if ((flags & O_PATH) && !(flags & O_DIRECTORY))
			break; /* the probe is the answer */
		close(fd);
		/* O_NOFOLLOW: if the name became a link since the probe, this
		 * fails (ELOOP) and the next round walks the link. */
		fd = openat(dir, name, flags, mode);
		if (fd >= 0 || errno != ELOOP || ++links > SAFEOPEN_MAX_LINKS)
			break;
		p -= len;
	}
	if (fd < 0 && why && whylen && why[0] == '\0')
		fail(why, whylen, "%s", strerror(errno));
	if (fd < 0) {
		int e = errno;

		close(dir);
		errno = e;
		return -1;
	}
	close(dir);
	/* the lowest free number, as open(2) would have given */
	if ((dir = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0 && dir < fd) {
		close(fd);
		fd = dir;
	} else if (dir >= 0) {
		close(dir);
	}
	return fd;
}
