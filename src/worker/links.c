/* SPDX-License-Identifier: ISC */
/*
 * What the client's link options make of one symlink the sender meets
 * (rsync's readlink_stat, described in rsync(1), SYMBOLIC LINKS, and
 * observed on a chrooted rsync 3.5.0 daemon):
 *
 *   -L                  every link becomes its referent; a dangling one is
 *                       "symlink has no referent", a loop an error;
 *   -k                  a link to a directory becomes the directory; any
 *                       other link, dangling ones included, stays a link;
 *   --copy-unsafe-links a link whose target is unsafe (links_unsafe) becomes
 *                       its referent, with -L's errors;
 *   munge symlinks      (the module's) a stored "/rsyncd-munged/" prefix is
 *                       taken off the target that is sent.
 *
 * The referent is whatever the monitor's STAT with follow reaches: beneath
 * the module root, absolute targets from the module root, filters judged
 * all the way (resolve.c), as the kernel resolves them in rsyncd's chroot.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fsclient.h"
#include "links.h"

#define MUNGE_PREFIX "/rsyncd-munged/"
#define MUNGE_LEN (sizeof(MUNGE_PREFIX) - 1)

/* The component of p up to the next '/' (or the end): its length. */
static size_t comp_len(const char *p)
{
	const char *slash = strchr(p, '/');

	return slash ? (size_t)(slash - p) : strlen(p);
}

static int is_dot(const char *p, size_t n) { return n == 1 && p[0] == '.'; }
static int is_dotdot(const char *p, size_t n) { return n == 2 && p[0] == '.' && p[1] == '.'; }

/*
 * The depth a path's directories give: every component but the last
 * counts one ("" before a leading '/' too), "." none, ".." starts the count
 * again.  Runs of '/' after a component count once.
 */
static int where_depth(const char *where)
{
	int depth = 0;

	for (const char *p = where;;) {
		size_t n = comp_len(p);

		if (p[n] == '\0')
			return is_dotdot(p, n) ? 0 : depth;
		if (is_dotdot(p, n))
			depth = 0;
		else if (!is_dot(p, n))
			depth++;
		p += n + 1;
		while (*p == '/')
			p++;
	}
}

int links_unsafe(const char *target, const char *where)
{
	const char *p = target;
	size_t len = strlen(target);
	int depth;

	if (len == 0 || target[0] == '/')
		return 1;
	/* ".." only as leading components: "a/../b" could turn unsafe if "a"
	 * became a link later (rsync 3.5.0 refuses it outright) */
	while (p[0] == '.' && p[1] == '.' && p[2] == '/') {
		p += 3;
		while (*p == '/')
			p++;
	}
	if (strstr(p, "/../") != NULL || (len > 3 && strcmp(target + len - 3, "/..") == 0))
		return 1;
	depth = where_depth(where);
	for (p = target;;) {
		size_t n = comp_len(p);

		if (p[n] == '\0')
			return depth - is_dotdot(p, n) < 0;
		if (is_dotdot(p, n)) {
			if (--depth < 0)
				return 1;
		} else if (!is_dot(p, n)) {
			depth++;
		}
		p += n + 1;
		while (*p == '/')
			p++;
	}
}

/* Replace *st by the link's referent.  0, or the STAT's errno. */
static int referent(const char *mpath, struct pr_stat *st, char *link)
{
	struct pr_stat ref;
	int e = fsc_stat(mpath, 1, &ref, NULL, 0);

	if (e == 0) {
		*st = ref;
		link[0] = '\0';
	}
	return e;
}

enum link_verdict links_apply(const struct links_opts *o, const char *mpath, const char *where,
			      struct pr_stat *st, char *link, int *err)
{
	struct pr_stat ref;
	size_t len;

	*err = 0;
	if (o->copy_links)
		return (*err = referent(mpath, st, link)) == 0 ? LINK_FOLLOWED :
		       *err == ENOENT ? LINK_NO_REFERENT : LINK_ERROR;
	if (o->copy_dirlinks && fsc_stat(mpath, 1, &ref, NULL, 0) == 0 && S_ISDIR(ref.mode)) {
		*st = ref;
		link[0] = '\0';
		return LINK_FOLLOWED;
	}
	if (o->copy_unsafe_links && links_unsafe(link, where))
		return (*err = referent(mpath, st, link)) == 0 ? LINK_FOLLOWED :
		       *err == ENOENT ? LINK_NO_REFERENT : LINK_ERROR;
	len = strlen(link);
	if (o->munge && len > MUNGE_LEN && memcmp(link, MUNGE_PREFIX, MUNGE_LEN) == 0)
		memmove(link, link + MUNGE_LEN, len - MUNGE_LEN + 1);
	return LINK_KEPT;
}
