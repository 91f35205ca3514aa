/* SPDX-License-Identifier: ISC */
/*
 * Path resolution for the filesystem service; see resolve.h.
 *
 * Why the monitor walks links itself: openat2(RESOLVE_BENEATH) alone keeps
 * a path inside the module, but follows symlinks inside it silently, so a
 * link elsewhere in the module would reach a hidden directory under the
 * link's name.  Here every name is looked up alone, from a directory
 * descriptor already held, with RESOLVE_NO_SYMLINKS and O_PATH|O_NOFOLLOW:
 * a symlink comes back as itself, its target is read from that very
 * descriptor (a swap after the lookup cannot change what is read), and
 * the walk knows at every step the real module path of what it holds.
 * The module's filters are judged there (f->canon) and on the request's
 * own spelling (f->byname); hiding by either is hiding.
 *
 * Only a walk that meets a link costs more than the one openat2 of the
 * fast path: a request without links is judged in one pass over its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "resolve.h"

#define OPEN_RETRIES 3                    /* a rename raced the walk */
#define REST_MAX (2 * PR_RELPATH_MAX)     /* what is left to walk, links spliced in */
#define RESOLVE_ONE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
_Static_assert(PR_RELPATH_MAX - 1 <= MF_PATH_MAX && PR_RELPATH_MAX / 2 <= MF_DEPTH_MAX,
	       "a walk of f->byname holds every path the validator lets through");

/* more: RESOLVE_NO_XDEV for the nodev open below, else 0 */
static int openat2_one(int dir, const char *name, int flags, uint64_t more)
{
	struct open_how how = { .flags = (uint64_t)flags | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_ONE | more };
	long fd;
	int tries = 0;

	do
		fd = syscall(SYS_openat2, dir, name[0] ? name : ".", &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < OPEN_RETRIES);
	return (int)fd;
}

static int refused(const struct fsreq *f, const char *path, const char *why, int err)
{
	char clean[LOG_ESCAPED(PR_RELPATH_MAX)];

	log_sanitize(clean, sizeof(clean), path);
	log_msg(PR_LOG_WARNING, "refused path '%s' %s module %s: %s", clean, why, f->module, strerror(err));
	return err;
}

/* A link led above the module root: resolved beneath it, and the first
 * few of a session logged (a mirror pulled with -L may have thousands). */
static void above_root(struct fsreq *f, const char *path)
{
	char clean[LOG_ESCAPED(PR_RELPATH_MAX)];

	if (f->above_root++ >= RES_LOG_ABOVE)
		return;
	log_sanitize(clean, sizeof(clean), path);
	log_msg(PR_LOG_INFO, "path '%s' in module %s: a link leads above the module root, resolved beneath it",
		clean, f->module);
}

/* Where the object was found: its O_PATH descriptor and how to open it
 * again; during a walk, dir is the directory reached (f->root or owned,
 * -1: to open again from its real path) and pfd the last name's. */
struct found {
	int pfd;           /* O_PATH | O_NOFOLLOW descriptor, or -1 */
	struct stat st;
	int dir;           /* the directory to open it from */
	const char *name;  /* its name there: the request's path from f->root, one
			    * component in the walk's rest, or "" for dir itself */
};

/* Look name up from dir, in place of what o->pfd held: the fast path (the
 * request's path from f->root, no symlink on the way, so it is the real
 * one) and each step of the walk. */
static int look_up(int dir, const char *name, struct found *o)
{
	if (o->pfd >= 0)
		close(o->pfd);
	o->name = name;
	if ((o->pfd = openat2_one(dir, name, O_PATH, 0)) < 0 || fstat(o->pfd, &o->st) < 0)
		return errno;
	return 0;
}

/* Hold dir as the walk's directory (-1: none), closing the one held. */
static void set_dir(struct fsreq *f, struct found *o, int dir)
{
	if (o->dir >= 0 && o->dir != f->root)
		close(o->dir);
	o->dir = dir;
}

struct walk {
	char rest[REST_MAX + 1]; /* rest[pos..] is still to walk; rest[REST_MAX] is '\0' */
	size_t pos;
	unsigned steps, links;
	int fresh;               /* the last component's own link budget began */
};

#ifdef PRSYNCD_TEST_HOOKS
/* Test builds: a link named HOLD_NAME is held, looked up but not yet read,
 * until the worker sends its next request (at most 10 s); the log line
 * tells the test it may swap the link now (t_hostile_fs.sh, "fs-swap-mid"). */
#define HOLD_NAME "prsyncd-test-hold"
static void test_hold(struct fsreq *f, const char *name)
{
	struct pollfd p = { .fd = f->ipc->fd, .events = POLLIN };

	if (strcmp(name, HOLD_NAME) == 0) {
		log_msg(PR_LOG_DEBUG, "test hook: holding link " HOLD_NAME " until the next request");
		(void)poll(&p, 1, 10000);
	}
}
#else
#define test_hold(f, name) ((void)0) /* release builds hold nothing */
#endif

/* Read the link held by o->pfd and put its target in front of what is
 * left to walk. */
static int follow_link(struct fsreq *f, const char *path, struct walk *k, struct found *o)
{
	char target[PR_RELPATH_MAX];
	ssize_t n;
	int sep = k->pos < REST_MAX; /* a '/' between the target and the rest */

	test_hold(f, o->name);
	n = readlinkat(o->pfd, "", target, sizeof(target));
	if (++k->links > RES_LINKS_MAX)
		return refused(f, path, "in", ELOOP);
	if (n <= 0 || (size_t)n >= sizeof(target))
		return n < 0 ? errno : n == 0 ? ENOENT : ENAMETOOLONG; /* ENOENT: the kernel's answer for an empty link */
	if (target[0] == '/') {
		/* as in rsyncd's chroot: from the module root */
		above_root(f, path);
		set_dir(f, o, f->root);
		mfw_root(&f->canon);
	}
	if (k->pos < (size_t)n + (size_t)sep)
		return ENAMETOOLONG;
	if (sep)
		k->rest[--k->pos] = '/';
	k->pos -= (size_t)n;
	memcpy(k->rest + k->pos, target, (size_t)n);
	return 0;
}

/*
 * The slow path: walk one name at a time from o->dir (f->root).  On
 * success o->dir is the directory held and o->name the last name in it
 * (in the caller's k); on error the caller closes what o holds.
 */
static int find_walking(struct fsreq *f, const char *path, const struct res_how *how, struct walk *k,
			struct found *o)
{
	struct mf_walk *c = &f->canon;
	uint64_t budget = (uint64_t)RES_WORK_MAX * (f->hide.words + f->hide.n + 1), start = c->steps;
	int e;

	*k = (struct walk){ .pos = REST_MAX - strlen(path) };
	memcpy(k->rest + k->pos, path, REST_MAX - k->pos);
	mfw_root(c);
	for (;;) {
		char *name = k->rest + k->pos + strspn(k->rest + k->pos, "/");
		size_t n = strcspn(name, "/");
		int trail = name[n] == '/', last; /* trail: it must be a directory */
		unsigned j;

		k->pos = (size_t)(name - k->rest) + n + strspn(name + n, "/");
		last = k->pos == REST_MAX;
		name[n] = '\0'; /* a '/' walked past, or the end */
		if (n == 1 && name[0] == '.')
			continue;
		if (++k->steps > RES_STEPS_MAX || c->steps - start > budget)
			return refused(f, path, "in", ELOOP);
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (c->depth == 0)
				above_root(f, path); /* the root's ".." is the root */
			mfw_pop(c);
			set_dir(f, o, -1);
			continue;
		}
		if (n > 255)
			return ENAMETOOLONG;
		if (o->dir < 0 && (o->dir = openat2_one(f->root, mfw_path(c), O_PATH | O_DIRECTORY, 0)) < 0)
			return errno; /* the directory reached, open again after a ".." */
		/* nothing left (a link's target ended in "." or ".."): the object
		 * is the directory reached, already judged */
		if (n == 0)
			return look_up(o->dir, "", o);
		/* a name hidden whatever it is: not even looked up */
		if ((j = mfw_judge(c, name, n, MF_BOTH)) == MF_BOTH)
			return ENOENT;
		if ((e = look_up(o->dir, name, o)) != 0)
			return j ? ENOENT : e;
		if (j & (S_ISDIR(o->st.st_mode) ? MF_DIR : MF_OTHER))
			return ENOENT; /* hidden as what it is, a link too */
		if (S_ISLNK(o->st.st_mode) && (trail || how->follow)) {
			if (last && how->follow > 1 && !k->fresh) {
				k->links = 0; /* as a stat from the directory's descriptor */
				k->fresh = 1;
			}
			if ((e = follow_link(f, path, k, o)) != 0)
				return e;
			continue;
		}
		if (trail && !S_ISDIR(o->st.st_mode))
			return ENOTDIR;
		if (mfw_push(c, name, n) < 0)
			return ENAMETOOLONG;
		if (last)
			return 0;
		set_dir(f, o, o->pfd);
		o->pfd = -1;
	}
}

/* Open the object found with the request's flags: only if its type is
 * wanted, and only if the name still leads to the same object. */
static int open_found(const struct res_how *how, struct found *o, struct res *r)
{
	int oflags = how->oflags;
	int fd;

	if (how->need && (o->st.st_mode & S_IFMT) != how->need)
		return how->need == S_IFDIR ? ENOTDIR : S_ISLNK(o->st.st_mode) ? ELOOP : EINVAL;
	if (oflags == RES_READABLE)
		oflags = S_ISREG(o->st.st_mode) ? O_RDONLY | O_NONBLOCK | O_NOCTTY :
			 S_ISDIR(o->st.st_mode) ? O_RDONLY | O_DIRECTORY : O_PATH;
	if (oflags == O_PATH) {
		r->fd = o->pfd;
		r->st = o->st;
		o->pfd = -1;
		return 0;
	}
	if ((fd = openat2_one(o->dir, o->name, oflags, 0)) < 0)
		return errno;
	if (fstat(fd, &r->st) < 0 || r->st.st_dev != o->st.st_dev || r->st.st_ino != o->st.st_ino) {
		close(fd);
		return EAGAIN; /* replaced between the two opens: look again */
	}
	r->fd = fd;
	return 0;
}

/*
 * The common OPEN in three system calls instead of five: a regular file
 * reached without a symlink.  Its type is judged by fstatat before
 * anything is opened (a device or a fifo is never opened here), then
 * open_found opens it as it opens what a lookup found: the open refuses
 * any symlink on the way, and both must name the same file.  Anything
 * else (a link, another type, a race, an error) returns -1 and goes the
 * general way below, which gives the answer.  Filters: with no link on
 * the way the request's path is the real one, judged by name.  (fstatat
 * may pass a link in a directory of the path: it only decides whether to
 * try; what is opened is openat2's, which refuses links.)  It serves
 * OPEN, which follows a final link, as well: a final link is no regular
 * file to fstatat, so it goes the general way, which follows.
 *
 * In two calls where the module root's mount is nodev (f->nodev, checked
 * for each batch): there the kernel refuses to open a device before any
 * driver sees it, and RESOLVE_NO_XDEV keeps the lookup on that mount, so
 * the file is opened at once and its type judged after.  Besides a
 * regular file only a directory or a fifo can open there (O_NONBLOCK: no
 * wait), and either is closed at once and goes the general way.
 */
static int open_regular_direct(struct fsreq *f, const char *path, const struct res_how *how, struct res *r)
{
	struct found o = { .pfd = -1, .dir = f->root, .name = path };

	if (path[0] == '\0')
		return -1;
	if (!f->nodev || how->oflags == RES_READABLE)
		return fstatat(f->root, path, &o.st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(o.st.st_mode) &&
		       open_found(how, &o, r) == 0 ? 0 : -1;
	if ((r->fd = openat2_one(f->root, path, how->oflags, RESOLVE_NO_XDEV)) >= 0 &&
	    (fstat(r->fd, &r->st) < 0 || !S_ISREG(r->st.st_mode))) {
		close(r->fd);
		r->fd = -1;
	}
	return r->fd >= 0 ? 0 : -1;
}

int resolve(struct fsreq *f, const char *path, const struct res_how *how, struct res *r)
{
	const char *slash = strrchr(path, '/'), *lastname = slash ? slash + 1 : path;
	unsigned byname = mfw_walk_path(&f->byname, path, MF_BOTH);
	struct walk k;
	struct found o;
	int e = EAGAIN;

	*r = (struct res){ .fd = -1 };
	if ((byname & MF_PREFIX) || (byname & how->serves) == how->serves) {
		r->hidden = 1;
		return ENOENT; /* hidden by name alone: nothing is touched */
	}
	if (how->need == S_IFREG && how->oflags != O_PATH && !(byname & MF_OTHER) &&
	    open_regular_direct(f, path, how, r) == 0)
		e = 0;
	for (int tries = 0; e == EAGAIN && tries < OPEN_RETRIES; tries++) {
		o = (struct found){ .pfd = -1, .dir = f->root };
		e = look_up(f->root, path, &o);
		if ((r->walked = e == ELOOP || (e == 0 && S_ISLNK(o.st.st_mode) && how->follow)))
			e = find_walking(f, path, how, &k, &o);
		if (e == 0) /* ENOENT: hidden by the request's name, with the type it really has */
			e = byname & (S_ISDIR(o.st.st_mode) ? MF_DIR : MF_OTHER) ? ENOENT : open_found(how, &o, r);
		if (o.pfd >= 0)
			close(o.pfd);
		set_dir(f, &o, -1);
	}
	if (e != 0)
		return byname ? ENOENT : e;
	/* Cannot fail: the validator's F_RELPATH rule (pr_relpath_ok) bounds a
	 * request's path to PR_RELPATH_MAX - 1 bytes, so MF_PATH_MAX bytes and
	 * MF_DEPTH_MAX components hold it (asserted above). */
	if (path[0])
		(void)mfw_push(&f->byname, lastname, strlen(lastname));
	return 0;
}
