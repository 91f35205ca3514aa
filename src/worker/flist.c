/*
 * Building and sending the file list (spec part 2, sections 4 and 5).
 *
 * The list is built completely from the monitor's answers, sorted with the
 * client's own comparison, de-duplicated, and sent in that sorted order:
 * the client's stable sort then leaves it unchanged, so transmission
 * indexes and file indexes coincide (which keeps hard-link references
 * simple).  Directories are scanned with an explicit work list, never by
 * recursion, so a deep tree cannot exhaust the stack.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "filters.h"
#include "flist.h"
#include "fsclient.h"
#include "mon.h"

#define NAME_MAX_LEN 4095          /* receivers reject l1 + l2 >= 4096 */
#define FLIST_MAX_ENTRIES (16u << 20)

/* ---- small helpers ------------------------------------------------------ */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL) {
		mon_log(PR_LOG_ERR, "out of memory building the file list");
		mon_exit(RERR_MALLOC);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		mon_exit(RERR_MALLOC);
	return d;
}

static int is_dir(const struct fentry *f) { return S_ISDIR(f->st.mode); }

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t add_root(struct flist *fl, const char *root)
{
	if (fl->nroots && strcmp(fl->roots[fl->nroots - 1], root) == 0)
		return (uint32_t)(fl->nroots - 1);
	if (fl->nroots == fl->roots_cap) {
		fl->roots_cap = fl->roots_cap ? fl->roots_cap * 2 : 8;
		fl->roots = xrealloc(fl->roots, fl->roots_cap * sizeof(*fl->roots));
	}
	fl->roots[fl->nroots] = xstrdup(root);
	return (uint32_t)fl->nroots++;
}

static struct fentry *add_entry(struct flist *fl, const char *name, uint32_t root,
				const struct pr_stat *st, const char *link)
{
	struct fentry *f;

	if (fl->n >= FLIST_MAX_ENTRIES) {
		mon_log(PR_LOG_ERR, "file list larger than %u entries", FLIST_MAX_ENTRIES);
		mon_exit(RERR_MALLOC);
	}
	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 1024;
		fl->e = xrealloc(fl->e, fl->cap * sizeof(*fl->e));
	}
	f = &fl->e[fl->n++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->root = root;
	f->st = *st;
	f->hl_ref = -1;
	f->link = link ? xstrdup(link) : NULL;
	return f;
}

/* Join module-relative paths: "" + "x" = "x", "a" + "x" = "a/x". */
static int join(char *out, size_t cap, const char *a, const char *b)
{
	int n;

	if (b[0] == '\0' || strcmp(b, ".") == 0)
		n = snprintf(out, cap, "%s", strcmp(a, ".") == 0 ? "" : a);
	else if (a[0] == '\0' || strcmp(a, ".") == 0)
		n = snprintf(out, cap, "%s", b);
	else
		n = snprintf(out, cap, "%s/%s", a, b);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int flist_module_path(const struct flist *fl, const struct fentry *f, char *buf, size_t cap)
{
	return join(buf, cap, fl->roots[f->root], f->name);
}

/*
 * Sanitize a path argument into module-relative form: no empty, "." or
 * ".." components (".." removes the previous component and never climbs
 * above the module root).  *dotdir says whether the argument named a
 * directory's contents (trailing "/", "/." or "/..", or nothing at all).
 */
static void sanitize(const char *in, char *out, size_t cap, int *dotdir)
{
	size_t o = 0;
	const char *p = in;
	int last_special = 1;

	out[0] = '\0';
	while (*p) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		last_special = len == 0 || (len == 1 && p[0] == '.') ||
			       (len == 2 && p[0] == '.' && p[1] == '.');
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			out[o] = '\0';
		} else if (!last_special && o + len + 2 < cap) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
			out[o] = '\0';
		}
		if (!e) {
			p += len;
			break;
		}
		p = e + 1;
		last_special = 1; /* a trailing slash */
	}
	*dotdir = last_special || o == 0;
}

/* The name a message shows for a module path, as a chrooted rsyncd
 * prints it: rooted at the module ("/sub/file"). */
static const char *shown(const char *path, char *buf, size_t cap)
{
	snprintf(buf, cap, "/%s", path);
	return buf;
}

static void io_err_general(struct sess *s) { s->io_error |= IOERR_GENERAL; }

/* ---- scanning ----------------------------------------------------------- */

struct scan_dir {
	char *name;        /* entry name of the directory (relative to root) */
	uint32_t root;
	uint64_t dev;      /* for -x */
	int depth;         /* below its source argument's top (filters.h) */
};

struct scan {
	struct sess *s;
	struct flist *fl;
	struct scan_dir *stack;
	size_t n, cap;
	/* current directory being listed */
	const struct scan_dir *cur;
	char cur_path[PR_RELPATH_MAX];
};

static void push_dir(struct scan *sc, const char *name, uint32_t root, uint64_t dev, int depth)
{
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? sc->cap * 2 : 64;
		sc->stack = xrealloc(sc->stack, sc->cap * sizeof(*sc->stack));
	}
	sc->stack[sc->n].name = xstrdup(name);
	sc->stack[sc->n].root = root;
	sc->stack[sc->n].dev = dev;
	sc->stack[sc->n].depth = depth;
	sc->n++;
}

/* Replace a symlink by its referent when -L, -k or --copy-unsafe-links say so. */
static int follow_link(struct sess *s, const char *mpath, const char *target,
		       struct pr_stat *st, char *linkbuf)
{
	const struct options *o = &s->opt;
	struct pr_stat ref;
	int unsafe = target[0] == '/' || strncmp(target, "../", 3) == 0 || strcmp(target, "..") == 0;

	if (!o->copy_links && !o->copy_dirlinks && !(o->copy_unsafe_links && unsafe))
		return 0;
	if (fsc_stat(mpath, 1, &ref, NULL, 0) != 0)
		return o->copy_links ? -1 : 0;
	if (o->copy_dirlinks && !o->copy_links && !(o->copy_unsafe_links && unsafe) && !S_ISDIR(ref.mode))
		return 0;
	*st = ref;
	linkbuf[0] = '\0';
	return 1;
}

/* One entry of a directory listing: filter, classify, add. */
static int scan_entry(void *ctx, const struct pr_dirent *d)
{
	struct scan *sc = ctx;
	struct sess *s = sc->s;
	char name[PR_RELPATH_MAX], mpath[PR_RELPATH_MAX], show[PR_RELPATH_MAX];
	static char link[FS_LINK_MAX];
	char base[256];
	struct pr_stat st = d->st;
	struct fentry *f;

	memcpy(base, d->name, d->name_len);
	base[d->name_len] = '\0';
	if (join(name, sizeof(name), sc->cur->name, base) < 0 || strlen(name) > NAME_MAX_LEN ||
	    join(mpath, sizeof(mpath), sc->cur_path, base) < 0) {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] skipping overly long name: %s/%s",
		       sc->cur->name, base);
		io_err_general(s);
		return 0;
	}
	if (d->err) {
		if (filt_skip(s, name, sc->fl->roots[sc->cur->root], 0, FILT_ALL) ||
		    filt_skip(s, name, sc->fl->roots[sc->cur->root], 1, FILT_ALL))
			return 0;
		if (d->err == ENOENT) {
			io_msg(&s->io, MSG_WARNING, "file has vanished: \"%s\" (in %s)",
			       shown(mpath, show, sizeof(show)), s->hs.module);
			s->io_error |= IOERR_VANISHED;
		} else {
			io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] readlink_stat(\"%s\" (in %s)) failed: %s (%d)",
			       shown(mpath, show, sizeof(show)), s->hs.module, strerror(d->err), d->err);
			io_err_general(s);
		}
		return 0;
	}
	link[0] = '\0';
	if (S_ISLNK(st.mode)) {
		int r = 0;

		if (d->link_state == PR_LINK_INLINE) {
			memcpy(link, d->link, d->link_len);
			link[d->link_len] = '\0';
		} else if (d->link_state == PR_LINK_LONG) {
			r = fsc_readlink(mpath, link, sizeof(link));
		} else {
			r = EIO;
		}
		if (r != 0 || link[0] == '\0') {
			io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] readlink_stat(\"%s\" (in %s)) failed: %s (%d)",
			       shown(mpath, show, sizeof(show)), s->hs.module, strerror(r ? r : EINVAL), r ? r : EINVAL);
			io_err_general(s);
			return 0;
		}
		if (follow_link(s, mpath, link, &st, link) < 0) {
			io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] symlink has no referent: \"%s\" (in %s)",
			       shown(mpath, show, sizeof(show)), s->hs.module);
			io_err_general(s);
			return 0;
		}
	}
	if (filt_skip(s, name, sc->fl->roots[sc->cur->root], S_ISDIR(st.mode), FILT_ALL))
		return 0;
	if (S_ISDIR(st.mode) && s->opt.one_file_system && st.dev != sc->cur->dev) {
		if (s->opt.one_file_system > 1)
			return 0;
		f = add_entry(sc->fl, name, sc->cur->root, &st, NULL);
		f->dir_role = DIR_NO_CONTENT;
		return 0;
	}
	f = add_entry(sc->fl, name, sc->cur->root, &st, S_ISLNK(st.mode) ? link : NULL);
	if (S_ISDIR(st.mode)) {
		f->dir_role = s->opt.recursive ? DIR_CONTENT : DIR_NO_CONTENT;
		if (s->opt.recursive)
			push_dir(sc, name, sc->cur->root, st.dev, sc->cur->depth + 1);
	}
	return 0;
}

/* Scan every directory on the work list (depth first, iteratively). */
static void scan_all(struct scan *sc)
{
	while (sc->n > 0) {
		struct scan_dir d = sc->stack[--sc->n];
		char show[PR_RELPATH_MAX];
		int err;

		sc->cur = &d;
		if (join(sc->cur_path, sizeof(sc->cur_path), sc->fl->roots[d.root], d.name) < 0) {
			free(d.name);
			continue;
		}
		filt_enter_dir(sc->s, sc->cur_path, d.depth);
		err = fsc_list(sc->cur_path, scan_entry, sc);
		if (err) {
			io_msg(&sc->s->io, MSG_ERROR_XFER, "rsync: [sender] opendir \"%s\" (in %s) failed: %s (%d)",
			       shown(sc->cur_path, show, sizeof(show)), sc->s->hs.module, strerror(err), err);
			io_err_general(sc->s);
		}
		free(d.name);
	}
}

/* ---- source arguments --------------------------------------------------- */

/* Add the implied parent directories of an -R name ("a/b/c": a, a/b). */
static void add_implied(struct sess *s, struct flist *fl, uint32_t root, const char *name)
{
	char part[PR_RELPATH_MAX], mpath[PR_RELPATH_MAX];
	struct pr_stat st;

	if (!s->opt.implied_dirs && s->protocol < 30)
		return;
	for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/')) {
		size_t len = (size_t)(p - name);
		struct fentry *f;

		memcpy(part, name, len);
		part[len] = '\0';
		if (join(mpath, sizeof(mpath), fl->roots[root], part) < 0 ||
		    fsc_stat(mpath, 1, &st, NULL, 0) != 0 || !S_ISDIR(st.mode))
			continue;
		f = add_entry(fl, part, root, &st, NULL);
		f->dir_role = DIR_IMPLIED;
	}
}

/* ---- wildcard arguments (spec part 1, 4.5 step 4) ------------------------ */

#define GLOB_MAX 65536

struct globctx { const char *pat; char **out; size_t n, cap; const char *prefix; };

static int glob_entry(void *ctx, const struct pr_dirent *d)
{
	struct globctx *g = ctx;
	char name[256], path[PR_RELPATH_MAX];

	memcpy(name, d->name, d->name_len);
	name[d->name_len] = '\0';
	if (fnmatch(g->pat, name, 0) != 0 || g->n >= GLOB_MAX ||
	    join(path, sizeof(path), g->prefix, name) < 0)
		return 0;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->out = xrealloc(g->out, g->cap * sizeof(*g->out));
	}
	g->out[g->n++] = xstrdup(path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Expand *, ? and [...] in a module-relative path, one component at a
 * time against the module's directories.  Returns the number of matches
 * (in *out, sorted), or 0 when the pattern matched nothing (the caller
 * then uses it literally, as stock does).
 */
static size_t glob_expand(const char *path, char ***out)
{
	char **cur = xrealloc(NULL, sizeof(char *));
	size_t ncur = 1;
	const char *p = path;

	cur[0] = xstrdup("");
	while (*p && ncur > 0) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char comp[256];

		if (len == 0 || len >= sizeof(comp)) {
			p += len + (e != NULL);
			continue;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		struct globctx g = { .pat = comp };
		for (size_t i = 0; i < ncur; i++) {
			if (strpbrk(comp, "*?[") != NULL) {
				g.prefix = cur[i];
				(void)fsc_list(cur[i], glob_entry, &g);
				if (g.n > 1)
					qsort(g.out, g.n, sizeof(*g.out), cmp_str);
			} else {
				char joined[PR_RELPATH_MAX];
				if (join(joined, sizeof(joined), cur[i], comp) == 0 && g.n < GLOB_MAX) {
					g.out = xrealloc(g.out, (g.n + 1) * sizeof(*g.out));
					g.out[g.n++] = xstrdup(joined);
				}
			}
			free(cur[i]);
		}
		free(cur);
		cur = g.out;
		ncur = g.n;
		p += len + (e != NULL);
	}
	*out = cur;
	return ncur;
}

static void add_one_arg(struct sess *s, struct flist *fl, struct scan *sc, const char *arg);

static int probe_entry(void *ctx, const struct pr_dirent *d)
{
	(void)ctx;
	(void)d;
	return 1; /* only whether the directory can be listed matters */
}

static void add_arg(struct sess *s, struct flist *fl, struct scan *sc, const char *arg)
{
	const char *mod = s->hs.module;
	size_t mlen = strlen(mod);
	const char *p = arg;
	char **matches = NULL;
	size_t n;

	if (strncmp(arg, mod, mlen) == 0 && (arg[mlen] == '/' || arg[mlen] == '\0'))
		p = arg + mlen;
	if (strpbrk(p, "*?[") == NULL || s->opt.relative) {
		add_one_arg(s, fl, sc, arg);
		return;
	}
	n = glob_expand(p, &matches);
	if (n == 0)
		add_one_arg(s, fl, sc, arg);
	for (size_t i = 0; i < n; i++) {
		char full[PR_RELPATH_MAX + 2];
		size_t plen = strlen(p);

		/* keep a trailing slash: it still means "the contents" */
		snprintf(full, sizeof(full), "/%s%s", matches[i], plen && p[plen - 1] == '/' ? "/" : "");
		add_one_arg(s, fl, sc, full);
		scan_all(sc);
		free(matches[i]);
	}
	free(matches);
}

static void add_one_arg(struct sess *s, struct flist *fl, struct scan *sc, const char *arg)
{
	const char *mod = s->hs.module;
	size_t mlen = strlen(mod);
	const char *p = arg;
	char rootbuf[PR_RELPATH_MAX], kept[PR_RELPATH_MAX], full[PR_RELPATH_MAX];
	char mpath[PR_RELPATH_MAX], show[PR_RELPATH_MAX];
	static char link[FS_LINK_MAX];
	const char *name;
	struct pr_stat st;
	struct fentry *f;
	uint32_t root;
	int dotdir, dummy, err, implied = 0;

	if (strncmp(arg, mod, mlen) == 0 && (arg[mlen] == '/' || arg[mlen] == '\0'))
		p = arg + mlen;
	if (s->opt.relative) {
		const char *split = strstr(p, "/./");
		char prefix[PR_RELPATH_MAX];

		if (split) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(split - p), p);
			p = split + 3;
		} else {
			prefix[0] = '\0';
		}
		sanitize(prefix, rootbuf, sizeof(rootbuf), &dummy);
		sanitize(p, kept, sizeof(kept), &dotdir);
		root = add_root(fl, rootbuf);
		name = kept[0] ? kept : ".";
		implied = kept[0] != '\0'; /* added once the argument is known to be kept */
	} else {
		char *slash;

		sanitize(p, full, sizeof(full), &dotdir);
		if (dotdir) {
			root = add_root(fl, full);
			name = ".";
		} else {
			slash = strrchr(full, '/');
			if (slash) {
				*slash = '\0';
				root = add_root(fl, full);
				name = slash + 1;
			} else {
				root = add_root(fl, "");
				name = full;
			}
			snprintf(kept, sizeof(kept), "%s", name);
			name = kept;
		}
	}
	if (join(mpath, sizeof(mpath), fl->roots[root], name) < 0)
		return;
	/* Stock changes into the argument's directory first: a missing or
	 * module-hidden one fails as a whole, with change_dir's message. */
	err = fl->roots[root][0] ? fsc_stat(fl->roots[root], 1, &st, NULL, 0) : 0;
	if (err == 0 && fl->roots[root][0] && !S_ISDIR(st.mode))
		err = ENOTDIR;
	if (err) {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(fl->roots[root], show, sizeof(show)), mod, strerror(err), err);
		io_err_general(s);
		return;
	}
	link[0] = '\0';
	err = fsc_stat(mpath, dotdir || s->opt.copy_links, &st, link, sizeof(link));
	if (err == 0 && S_ISLNK(st.mode) && follow_link(s, mpath, link, &st, link) < 0)
		err = ENOENT;
	if (err) {
		if (err == ENOENT && s->opt.ignore_missing_args)
			return;
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] link_stat \"%s\" (in %s) failed: %s (%d)",
		       shown(mpath, show, sizeof(show)), mod, strerror(err), err);
		if (err != ENOENT)
			io_err_general(s);
		return;
	}
	if (!dotdir && filt_skip(s, name, fl->roots[root], S_ISDIR(st.mode), FILT_ALL))
		return;
	if (S_ISDIR(st.mode) && !s->opt.recursive && !s->opt.dirs && !dotdir) {
		io_msg(&s->io, MSG_INFO, "skipping directory %s", name);
		return;
	}
	if (implied)
		add_implied(s, fl, root, kept);
	if (S_ISDIR(st.mode) && dotdir && (err = fsc_list(mpath, probe_entry, NULL)) != 0) {
		/* Stock changes into a "dir/" argument first; when it cannot,
		 * the argument is skipped as a whole. */
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(mpath, show, sizeof(show)), mod, strerror(err), err);
		io_err_general(s);
		return;
	}
	f = add_entry(fl, name, root, &st, S_ISLNK(st.mode) && link[0] ? link : NULL);
	if (!S_ISDIR(st.mode))
		return;
	if (s->opt.recursive || dotdir) {
		f->dir_role = DIR_CONTENT_TOP;
		push_dir(sc, name, root, st.dev, 0);
	} else {
		f->dir_role = DIR_NO_CONTENT;
	}
}

/* ---- sorting ------------------------------------------------------------ */

/* One path segment for the protocol >= 29 comparison. */
struct seg { const char *p; size_t len; int dirlevel; int end; };

static void next_seg(const char **pos, const char *name, int isdir, struct seg *sg)
{
	const char *p = *pos;
	const char *slash;

	if (p == NULL || (isdir && p == name && strcmp(name, ".") == 0)) {
		sg->end = 1;
		*pos = NULL;
		return;
	}
	sg->end = 0;
	slash = strchr(p, '/');
	if (slash) {
		sg->p = p;
		sg->len = (size_t)(slash - p);
		sg->dirlevel = 1;
		*pos = slash + 1;
	} else {
		sg->p = p;
		sg->len = strlen(p);
		sg->dirlevel = isdir;
		*pos = NULL;
	}
}

int flist_cmp(const struct fentry *a, const struct fentry *b, int protocol)
{
	const char *pa = a->name, *pb = b->name;

	if (protocol < 29)
		return strcmp(a->name, b->name) < 0 ? -1 : strcmp(a->name, b->name) > 0;
	/* Bounded: each step consumes a segment of both names. */
	for (;;) {
		struct seg sa, sb;

		next_seg(&pa, a->name, is_dir(a), &sa);
		next_seg(&pb, b->name, is_dir(b), &sb);
		if (sa.end || sb.end)
			return sa.end && sb.end ? 0 : sa.end ? -1 : 1;
		if (sa.dirlevel != sb.dirlevel)
			return sa.dirlevel ? 1 : -1;
		size_t n = sa.len < sb.len ? sa.len : sb.len;
		int c = memcmp(sa.p, sb.p, n);
		if (c)
			return c < 0 ? -1 : 1;
		if (sa.len == sb.len)
			continue;
		if (!sa.dirlevel)
			return sa.len < sb.len ? -1 : 1;
		/* directories compare as "name/": the shorter one's '/' meets a byte */
		unsigned char ca = sa.len > n ? (unsigned char)sa.p[n] : '/';
		unsigned char cb = sb.len > n ? (unsigned char)sb.p[n] : '/';
		return ca < cb ? -1 : ca > cb ? 1 : (sa.len < sb.len ? -1 : 1);
	}
}

static int sort_protocol;
static int cmp_entries(const void *x, const void *y)
{
	const struct fentry *a = x, *b = y;
	int c = flist_cmp(a, b, sort_protocol);

	/* qsort is not stable: fall back to build order for equal names */
	if (c == 0)
		c = a->hl_ref < b->hl_ref ? -1 : a->hl_ref > b->hl_ref;
	return c;
}

static void sort_and_dedupe(struct sess *s, struct flist *fl)
{
	size_t w = 0;

	/* hl_ref holds the build order until hard links are computed */
	for (size_t i = 0; i < fl->n; i++)
		fl->e[i].hl_ref = (int32_t)i;
	sort_protocol = s->protocol;
	if (fl->n > 1)
		qsort(fl->e, fl->n, sizeof(*fl->e), cmp_entries);
	/* Duplicates (overlapping arguments) sort next to each other; keep the
	 * first, as the receiver would. */
	for (size_t i = 0; i < fl->n; i++) {
		if (w > 0 && strcmp(fl->e[w - 1].name, fl->e[i].name) == 0 &&
		    is_dir(&fl->e[w - 1]) == is_dir(&fl->e[i])) {
			if (fl->e[i].dir_role == DIR_CONTENT_TOP)
				fl->e[w - 1].dir_role = DIR_CONTENT_TOP;
			free(fl->e[i].name);
			free(fl->e[i].link);
			continue;
		}
		fl->e[w++] = fl->e[i];
	}
	fl->n = w;
	for (size_t i = 0; i < fl->n; i++)
		fl->e[i].hl_ref = -1;
}

/* ---- hard links and -c sums --------------------------------------------- */

struct inode_key { uint64_t dev, ino; int32_t first; };

static int cmp_inode(const void *x, const void *y)
{
	const struct inode_key *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Group non-directories with more than one link by (dev, ino); the first
 * in list order leads its group. */
static void find_hard_links(struct sess *s, struct flist *fl)
{
	struct inode_key *k;
	size_t nk = 0;

	if (!s->opt.hard_links || s->protocol < 30)
		return; /* older protocols carry dev/ino instead */
	k = malloc((fl->n ? fl->n : 1) * sizeof(*k));
	if (k == NULL)
		mon_exit(RERR_MALLOC);
	for (size_t i = 0; i < fl->n; i++) {
		const struct fentry *f = &fl->e[i];
		if (!is_dir(f) && f->st.nlink > 1)
			k[nk++] = (struct inode_key){ f->st.dev, f->st.ino, (int32_t)i };
	}
	qsort(k, nk, sizeof(*k), cmp_inode);
	for (size_t i = 0; i < nk;) {
		size_t j = i + 1;
		while (j < nk && k[j].dev == k[i].dev && k[j].ino == k[i].ino)
			j++;
		if (j - i > 1) {
			fl->e[k[i].first].hl_first = 1;
			for (size_t m = i + 1; m < j; m++)
				fl->e[k[m].first].hl_ref = k[i].first;
		}
		i = j;
	}
	free(k);
}

/* -c: the whole-file sum of every regular file, unseeded. */
static void file_sums(struct sess *s, struct flist *fl)
{
	static unsigned char buf[256 * 1024];

	for (size_t i = 0; i < fl->n; i++) {
		struct fentry *f = &fl->e[i];
		char mpath[PR_RELPATH_MAX];
		struct csum_file cf;
		struct pr_stat st;
		uint32_t handle;
		int fd;

		if (!S_ISREG(f->st.mode))
			continue;
		f->sum = calloc(1, CSUM_MAX_LEN);
		if (f->sum == NULL)
			mon_exit(RERR_MALLOC);
		if (flist_module_path(fl, f, mpath, sizeof(mpath)) < 0 ||
		    fsc_open(mpath, &fd, &handle, &st) != 0)
			continue; /* unreadable: an all-zero sum, as stock sends */
		if (csum_file_init(&cf, &s->flist, 0) == 0) {
			int64_t off = 0;
			for (;;) {
				ssize_t n = pread(fd, buf, sizeof(buf), off);
				if (n <= 0)
					break;
				csum_file_update(&cf, buf, (size_t)n);
				off += n;
			}
			csum_file_final(&cf, f->sum);
		}
		fsc_close(fd, handle);
	}
}

/* ---- encoding ----------------------------------------------------------- */

struct prev {
	char name[PR_RELPATH_MAX];
	uint32_t mode, uid, gid;
	int64_t mtime, atime;
	uint64_t rdev;      /* protocol 27 */
	uint32_t rdev_major;/* protocol 28+ */
	uint64_t dev;       /* protocol 28-29 -H */
	int first;
};

static int is_device(uint32_t mode) { return S_ISCHR(mode) || S_ISBLK(mode); }
static int is_special(uint32_t mode) { return S_ISFIFO(mode) || S_ISSOCK(mode); }

/* Send one entry (spec part 2, 4.2-4.5). */
static void send_entry(struct sess *s, const struct flist *fl, size_t idx, struct prev *pv)
{
	const struct fentry *f = &fl->e[idx];
	const struct options *o = &s->opt;
	struct io *io = &s->io;
	int proto = s->protocol;
	uint32_t mode = f->st.mode;
	uint32_t flags = 0;
	size_t l1 = 0, l2, nlen = strlen(f->name);
	int send_rdev = (o->devices && is_device(mode)) ||
			(o->specials && is_special(mode) && proto < 31);
	uint32_t major = major(f->st.rdev), minor = minor(f->st.rdev);
	int abbreviated = 0;

	if (S_ISDIR(mode)) {
		switch (f->dir_role) {
		case DIR_CONTENT_TOP: flags |= XMIT_TOP_DIR; break;
		case DIR_IMPLIED: if (proto >= 30) flags |= XMIT_TOP_DIR | XMIT_NO_CONTENT_DIR; break;
		case DIR_NO_CONTENT: if (proto >= 30) flags |= XMIT_NO_CONTENT_DIR; break;
		default: break;
		}
	}
	if (mode == pv->mode)
		flags |= XMIT_SAME_MODE;
	if (send_rdev) {
		if (proto < 28) {
			if (is_special(mode) || f->st.rdev == pv->rdev)
				flags |= XMIT_SAME_RDEV_PRE28;
		} else if (is_special(mode)) {
			flags |= XMIT_SAME_RDEV_MAJOR;
			if (proto < 30)
				flags |= XMIT_RDEV_MINOR_8_PRE30;
		} else {
			if (major == pv->rdev_major)
				flags |= XMIT_SAME_RDEV_MAJOR;
			if (proto < 30 && minor <= 0xff)
				flags |= XMIT_RDEV_MINOR_8_PRE30;
		}
	} else if (proto < 28) {
		pv->rdev = 0;
	}
	if (!o->owner || (f->st.uid == pv->uid && !pv->first))
		flags |= XMIT_SAME_UID;
	if (!o->group || (f->st.gid == pv->gid && !pv->first))
		flags |= XMIT_SAME_GID;
	if (f->st.mtime == pv->mtime)
		flags |= XMIT_SAME_TIME;
	if (proto >= 31 && f->st.mtime_nsec)
		flags |= XMIT_MOD_NSEC;
	if (o->atimes && !S_ISDIR(mode) && f->st.atime == pv->atime)
		flags |= XMIT_SAME_ATIME;
	if (o->hard_links && proto >= 30 && (f->hl_first || f->hl_ref >= 0)) {
		flags |= XMIT_HLINKED;
		if (f->hl_first)
			flags |= XMIT_HLINK_FIRST;
		else
			abbreviated = 1; /* one list: the first member is always in it */
	} else if (o->hard_links && proto >= 28 && proto < 30 && !S_ISDIR(mode) && f->st.nlink > 1) {
		flags |= XMIT_HLINKED;
		if (f->st.dev == pv->dev)
			flags |= XMIT_SAME_DEV_PRE30;
	}
	while (l1 < nlen && l1 < 255 && f->name[l1] == pv->name[l1])
		l1++;
	l2 = nlen - l1;
	if (l1)
		flags |= XMIT_SAME_NAME;
	if (l2 > 255)
		flags |= XMIT_LONG_NAME;

	/* the flags word, with each protocol's way of avoiding a zero */
	if (s->varint_flags) {
		io_write_varint(io, flags ? (int32_t)flags : XMIT_EXTENDED_FLAGS);
	} else if (proto >= 28) {
		if (flags == 0 && !S_ISDIR(mode))
			flags |= XMIT_TOP_DIR;
		if ((flags & 0xff00) || flags == 0) {
			flags |= XMIT_EXTENDED_FLAGS;
			io_write_shortint(io, (uint16_t)flags);
		} else {
			io_write_byte(io, (uint8_t)flags);
		}
	} else {
		if ((flags & 0xff) == 0) {
			if (S_ISDIR(mode))
				flags |= XMIT_LONG_NAME;
			else
				flags |= XMIT_TOP_DIR;
		}
		io_write_byte(io, (uint8_t)flags);
	}
	if (flags & XMIT_SAME_NAME)
		io_write_byte(io, (uint8_t)l1);
	if (flags & XMIT_LONG_NAME)
		io_write_varint30(io, (int32_t)l2);
	else
		io_write_byte(io, (uint8_t)l2);
	io_write(io, f->name + l1, l2);
	memcpy(pv->name, f->name, nlen + 1);
	pv->first = 0;
	pv->mode = mode;
	pv->mtime = f->st.mtime;
	pv->uid = f->st.uid;
	pv->gid = f->st.gid;
	if (!S_ISDIR(mode))
		pv->atime = f->st.atime;

	if (abbreviated) {
		io_write_varint(io, f->hl_ref);
		return;
	}
	io_write_varlong30(io, (int64_t)f->st.size, 3);
	if (!(flags & XMIT_SAME_TIME)) {
		if (proto >= 30)
			io_write_varlong(io, f->st.mtime, 4);
		else
			io_write_int32(io, (int32_t)f->st.mtime);
	}
	if (flags & XMIT_MOD_NSEC)
		io_write_varint(io, (int32_t)f->st.mtime_nsec);
	if (!(flags & XMIT_SAME_MODE))
		io_write_int32(io, (int32_t)mode);
	if (o->atimes && !S_ISDIR(mode) && !(flags & XMIT_SAME_ATIME))
		io_write_varlong(io, f->st.atime, 4);
	if (!(flags & XMIT_SAME_UID))
		io_write_varint30(io, (int32_t)f->st.uid);
	if (!(flags & XMIT_SAME_GID))
		io_write_varint30(io, (int32_t)f->st.gid);
	if (send_rdev) {
		if (proto < 28) {
			if (!(flags & XMIT_SAME_RDEV_PRE28))
				io_write_int32(io, (int32_t)(uint32_t)f->st.rdev);
			pv->rdev = f->st.rdev;
		} else if (is_special(mode)) {
			if (proto < 30)
				io_write_byte(io, 0);
			else
				io_write_varint(io, 0);
		} else {
			if (!(flags & XMIT_SAME_RDEV_MAJOR))
				io_write_varint30(io, (int32_t)major);
			if (flags & XMIT_RDEV_MINOR_8_PRE30)
				io_write_byte(io, (uint8_t)minor);
			else
				io_write_varint30(io, (int32_t)minor);
			pv->rdev_major = major;
		}
	}
	if (o->links && S_ISLNK(mode) && f->link) {
		size_t ll = strlen(f->link);
		io_write_varint30(io, (int32_t)ll);
		io_write(io, f->link, ll);
	}
	if (o->hard_links && proto < 30 &&
	    (proto == 27 ? S_ISREG(mode) : (flags & XMIT_HLINKED) != 0)) {
		if (proto == 27 || !(flags & XMIT_SAME_DEV_PRE30))
			io_write_longint(io, (int64_t)f->st.dev + 1);
		io_write_longint(io, (int64_t)f->st.ino);
		pv->dev = f->st.dev;
	}
	if (o->always_checksum && (S_ISREG(mode) || proto < 28)) {
		static const unsigned char zero[CSUM_MAX_LEN];
		io_write(io, S_ISREG(mode) && f->sum ? f->sum : zero, (size_t)csum_len(s->flist.type));
	}
}

/* The end-of-list marker with the io_error value (4.8). */
static void send_end(struct sess *s)
{
	struct io *io = &s->io;
	int err = s->opt.ignore_errors ? 0 : s->io_error;

	if (s->varint_flags) {
		io_write_varint(io, 0);
		io_write_varint(io, err);
	} else if (s->protocol >= 30 && err &&
		   (s->protocol >= 31 || (s->compat_flags & CF_SAFE_FLIST))) {
		io_write_shortint(io, XMIT_EXTENDED_FLAGS | XMIT_IO_ERROR_ENDLIST);
		io_write_varint(io, err);
	} else {
		io_write_byte(io, 0);
		if (s->protocol == 30 && err)
			io_send_int_msg(io, MSG_IO_ERROR, err);
	}
}

/* uid/gid name lists after the first list (no incremental recursion). */
static void send_id_list(struct sess *s, const struct flist *fl, int kind)
{
	struct io *io = &s->io;
	uint32_t *seen = NULL;
	size_t nseen = 0, cap = 0;

	if (!s->numeric_ids) {
		for (size_t i = 0; i < fl->n; i++) {
			uint32_t id = kind == PR_ID_USER ? fl->e[i].st.uid : fl->e[i].st.gid;
			size_t j;
			const char *name;

			if (id == 0)
				continue;
			for (j = 0; j < nseen && seen[j] != id; j++)
				;
			if (j < nseen)
				continue;
			if (nseen == cap) {
				cap = cap ? cap * 2 : 16;
				seen = xrealloc(seen, cap * sizeof(*seen));
			}
			seen[nseen++] = id;
			name = fsc_idname(kind, id);
			if (name == NULL)
				continue;
			io_write_varint30(io, (int32_t)id);
			io_write_byte(io, (uint8_t)strlen(name));
			io_write(io, name, strlen(name));
		}
	}
	io_write_varint30(io, 0);
	if (s->compat_flags & CF_ID0_NAMES) {
		const char *name = s->numeric_ids ? NULL : fsc_idname(kind, 0);
		size_t len = name ? strlen(name) : 0;

		io_write_byte(io, (uint8_t)len);
		io_write(io, name ? name : "", len);
	}
	free(seen);
}

size_t flist_send(struct sess *s, struct flist *fl)
{
	struct scan sc = { .s = s, .fl = fl };
	struct prev *pv = calloc(1, sizeof(*pv));
	int64_t t0 = now_ms(), t1;

	if (pv == NULL)
		mon_exit(RERR_MALLOC);
	pv->first = 1;
	for (size_t i = 0; i < s->nsrc; i++) {
		add_arg(s, fl, &sc, s->src[i]);
		scan_all(&sc);
	}
	free(sc.stack);
	sort_and_dedupe(s, fl);
	find_hard_links(s, fl);
	if (s->opt.always_checksum)
		file_sums(s, fl);
	t1 = now_ms();
	for (size_t i = 0; i < fl->n; i++) {
		send_entry(s, fl, i, pv);
		if (S_ISREG(fl->e[i].st.mode) || S_ISLNK(fl->e[i].st.mode))
			s->total_size += (int64_t)fl->e[i].st.size;
	}
	send_end(s);
	if (!s->inc_recurse && !s->opt.numeric_ids) {
		if (s->opt.owner)
			send_id_list(s, fl, PR_ID_USER);
		if (s->opt.group)
			send_id_list(s, fl, PR_ID_GROUP);
	}
	if (s->protocol < 30)
		io_write_int32(&s->io, s->opt.ignore_errors ? 0 : s->io_error);
	io_flush(&s->io);
	s->flist_buildtime_ms = t1 - t0 > 0 ? t1 - t0 : 1;
	s->flist_xfertime_ms = now_ms() - t1;
	free(pv);
	return fl->n;
}

void flist_free(struct flist *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		free(fl->e[i].name);
		free(fl->e[i].link);
		free(fl->e[i].sum);
	}
	for (size_t i = 0; i < fl->nroots; i++)
		free(fl->roots[i]);
	free(fl->e);
	free(fl->roots);
	memset(fl, 0, sizeof(*fl));
}
