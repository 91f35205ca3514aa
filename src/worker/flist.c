/*
 * Building and sending file lists (spec part 2, sections 4 to 6).
 *
 * Each list is built from the monitor's answers, sorted with the client's
 * own comparison, de-duplicated, and sent in that sorted order: the
 * client's stable sort then leaves it unchanged, so transmission indexes
 * and file indexes coincide (which keeps hard-link references simple).
 * Directories are scanned with an explicit work list, never by recursion,
 * so a deep tree cannot exhaust the stack.  Without incremental recursion
 * the whole tree is one list; with it, the first list holds the top level
 * and each directory gets its own list later (flset_* at the end).
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

static uint32_t add_root(struct flroots *r, const char *root)
{
	if (r->n && strcmp(r->v[r->n - 1], root) == 0)
		return (uint32_t)(r->n - 1);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n] = xstrdup(root);
	return (uint32_t)r->n++;
}

/* Chunks start small (most sub-lists are small) and double up to 64 KiB. */
#define ARENA_FIRST 1024
#define ARENA_MAX 65536

static void *arena_alloc(struct flist *fl, size_t n)
{
	struct arena_chunk *c = fl->arena;

	if (c == NULL || c->cap - c->used < n) {
		size_t cap = c == NULL ? ARENA_FIRST : c->cap < ARENA_MAX ? c->cap * 2 : ARENA_MAX;

		if (cap < n)
			cap = n;

		c = malloc(sizeof(*c) + cap);
		if (c == NULL) {
			mon_log(PR_LOG_ERR, "out of memory building the file list");
			mon_exit(RERR_MALLOC);
		}
		c->used = 0;
		c->cap = cap;
		c->next = fl->arena;
		fl->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static void *arena_zalloc_aligned(struct flist *fl, size_t n)
{
	unsigned char *p = arena_alloc(fl, n + 7);
	size_t pad = (8 - ((uintptr_t)p & 7)) & 7;

	return memset(p + pad, 0, n);
}

static char *arena_strdup(struct flist *fl, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(arena_alloc(fl, n), s, n);
}

static void arena_free(struct flist *fl)
{
	while (fl->arena) {
		struct arena_chunk *next = fl->arena->next;

		free(fl->arena);
		fl->arena = next;
	}
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
		fl->cap = fl->cap ? fl->cap * 2 : 32;
		fl->e = xrealloc(fl->e, fl->cap * sizeof(*fl->e));
	}
	f = &fl->e[fl->n++];
	memset(f, 0, sizeof(*f));
	f->name = arena_strdup(fl, name);
	f->root = root;
	f->st = (struct fstat){ st->size, st->mtime, st->atime, st->mode, st->uid, st->gid, st->mtime_nsec };
	if (S_ISDIR(st->mode) || st->nlink > 1 || S_ISCHR(st->mode) || S_ISBLK(st->mode) || link ||
	    (fl->keep_ino && S_ISREG(st->mode))) {
		f->x = arena_zalloc_aligned(fl, sizeof(*f->x));
		f->x->dev = st->dev;
		f->x->ino = st->ino;
		f->x->rdev = st->rdev;
		f->x->nlink = st->nlink;
		f->x->link = link ? arena_strdup(fl, link) : NULL;
	}
	return f;
}

/* A copy of an entry of another list (names and extras copied too). */
static struct fentry *copy_entry(struct flist *fl, const struct fentry *src)
{
	struct fentry *f;

	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 32;
		fl->e = xrealloc(fl->e, fl->cap * sizeof(*fl->e));
	}
	f = &fl->e[fl->n++];
	*f = *src;
	f->name = arena_strdup(fl, src->name);
	if (src->x) {
		f->x = arena_zalloc_aligned(fl, sizeof(*f->x));
		*f->x = *src->x;
		f->x->link = src->x->link ? arena_strdup(fl, src->x->link) : NULL;
		f->x->sum = NULL; /* sums are computed when the list is finished */
	}
	return f;
}

static uint64_t fe_dev(const struct fentry *f) { return f->x ? f->x->dev : 0; }
static uint64_t fe_rdev(const struct fentry *f) { return f->x ? f->x->rdev : 0; }
static uint32_t fe_nlink(const struct fentry *f) { return f->x ? f->x->nlink : 1; }
static const char *fe_link(const struct fentry *f) { return f->x ? f->x->link : NULL; }

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
	return join(buf, cap, fl->roots->v[f->root], f->name);
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
	struct flist *fl;          /* the list being built */
	struct flroots *roots;
	int inc;                   /* incremental: subdirectories get their own lists */
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
		if (filt_skip(s, name, sc->roots->v[sc->cur->root], 0, FILT_ALL) ||
		    filt_skip(s, name, sc->roots->v[sc->cur->root], 1, FILT_ALL))
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
	if (filt_skip(s, name, sc->roots->v[sc->cur->root], S_ISDIR(st.mode), FILT_ALL))
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
		f->depth = (uint16_t)(sc->cur->depth + 1);
		if (s->opt.recursive && !sc->inc)
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
		if (join(sc->cur_path, sizeof(sc->cur_path), sc->roots->v[d.root], d.name) < 0) {
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
static void add_implied(struct sess *s, struct scan *sc, uint32_t root, const char *name)
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
		if (join(mpath, sizeof(mpath), sc->roots->v[root], part) < 0 ||
		    fsc_stat(mpath, 1, &st, NULL, 0) != 0 || !S_ISDIR(st.mode))
			continue;
		f = add_entry(sc->fl, part, root, &st, NULL);
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

static void add_one_arg(struct sess *s, struct scan *sc, const char *arg);

static int probe_entry(void *ctx, const struct pr_dirent *d)
{
	(void)ctx;
	(void)d;
	return 1; /* only whether the directory can be listed matters */
}

static void add_arg(struct sess *s, struct scan *sc, const char *arg)
{
	const char *mod = s->hs.module;
	size_t mlen = strlen(mod);
	const char *p = arg;
	char **matches = NULL;
	size_t n;

	if (strncmp(arg, mod, mlen) == 0 && (arg[mlen] == '/' || arg[mlen] == '\0'))
		p = arg + mlen;
	if (strpbrk(p, "*?[") == NULL || s->opt.relative) {
		add_one_arg(s, sc, arg);
		return;
	}
	n = glob_expand(p, &matches);
	if (n == 0)
		add_one_arg(s, sc, arg);
	for (size_t i = 0; i < n; i++) {
		char full[PR_RELPATH_MAX + 2];
		size_t plen = strlen(p);

		/* keep a trailing slash: it still means "the contents" */
		snprintf(full, sizeof(full), "/%s%s", matches[i], plen && p[plen - 1] == '/' ? "/" : "");
		add_one_arg(s, sc, full);
		scan_all(sc);
		free(matches[i]);
	}
	free(matches);
}

static void add_one_arg(struct sess *s, struct scan *sc, const char *arg)
{
	struct flroots *roots = sc->roots;
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
		root = add_root(roots, rootbuf);
		name = kept[0] ? kept : ".";
		implied = kept[0] != '\0'; /* added once the argument is known to be kept */
	} else {
		char *slash;

		sanitize(p, full, sizeof(full), &dotdir);
		if (dotdir) {
			root = add_root(roots, full);
			name = ".";
		} else {
			slash = strrchr(full, '/');
			if (slash) {
				*slash = '\0';
				root = add_root(roots, full);
				name = slash + 1;
			} else {
				root = add_root(roots, "");
				name = full;
			}
			snprintf(kept, sizeof(kept), "%s", name);
			name = kept;
		}
	}
	if (join(mpath, sizeof(mpath), roots->v[root], name) < 0)
		return;
	/* Stock changes into the argument's directory first: a missing or
	 * module-hidden one fails as a whole, with change_dir's message. */
	err = roots->v[root][0] ? fsc_stat(roots->v[root], 1, &st, NULL, 0) : 0;
	if (err == 0 && roots->v[root][0] && !S_ISDIR(st.mode))
		err = ENOTDIR;
	if (err) {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(roots->v[root], show, sizeof(show)), mod, strerror(err), err);
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
	if (!dotdir && filt_skip(s, name, roots->v[root], S_ISDIR(st.mode), FILT_ALL))
		return;
	if (S_ISDIR(st.mode) && !s->opt.recursive && !s->opt.dirs && !dotdir) {
		io_msg(&s->io, MSG_INFO, "skipping directory %s", name);
		return;
	}
	if (implied)
		add_implied(s, sc, root, kept);
	if (S_ISDIR(st.mode) && dotdir && (err = fsc_list(mpath, probe_entry, NULL)) != 0) {
		/* Stock changes into a "dir/" argument first; when it cannot,
		 * the argument is skipped as a whole. */
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(mpath, show, sizeof(show)), mod, strerror(err), err);
		io_err_general(s);
		return;
	}
	f = add_entry(sc->fl, name, root, &st, S_ISLNK(st.mode) && link[0] ? link : NULL);
	if (!S_ISDIR(st.mode))
		return;
	if (s->opt.recursive || dotdir) {
		f->dir_role = DIR_CONTENT_TOP;
		/* incremental: only "." is scanned into the first list */
		if (!sc->inc || strcmp(name, ".") == 0)
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

/*
 * Stable sort of a list without copying it: a merge sort of 32-bit
 * indexes, then the entries are permuted in place along the permutation's
 * cycles.  (qsort would need a full temporary copy of the entries, which
 * doubles a large list's memory at its peak.)
 */
static void sort_entries(struct flist *fl, int protocol)
{
	size_t n = fl->n;
	uint32_t *a, *t;

	if (n < 2)
		return;
	a = malloc(n * sizeof(*a));
	t = malloc(n * sizeof(*t));
	if (a == NULL || t == NULL)
		mon_exit(RERR_MALLOC);
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				t[k++] = flist_cmp(&fl->e[a[j]], &fl->e[a[i]], protocol) < 0 ? a[j++] : a[i++];
			while (i < mid)
				t[k++] = a[i++];
			while (j < hi)
				t[k++] = a[j++];
		}
		uint32_t *swap = a;
		a = t;
		t = swap;
	}
	/* position j receives the entry that was at a[j] */
	for (size_t i = 0; i < n; i++) {
		struct fentry saved;
		size_t j = i;

		if (a[i] == i)
			continue;
		saved = fl->e[i];
		for (;;) {
			size_t k = a[j];

			a[j] = (uint32_t)j;
			if (k == i) {
				fl->e[j] = saved;
				break;
			}
			fl->e[j] = fl->e[k];
			j = k;
		}
	}
	free(a);
	free(t);
}

static void add_also(struct flset *set, const struct fentry *f);

/* set: with incremental recursion, where a dropped duplicate directory's
 * contents go (stock lists same-named directories together). */
static void sort_and_dedupe(struct sess *s, struct flist *fl, struct flset *set)
{
	size_t w = 0;

	sort_entries(fl, s->protocol);
	/* Duplicates (overlapping arguments) sort next to each other; keep the
	 * first, as the receiver would. */
	for (size_t i = 0; i < fl->n; i++) {
		if (w > 0 && strcmp(fl->e[w - 1].name, fl->e[i].name) == 0 &&
		    is_dir(&fl->e[w - 1]) == is_dir(&fl->e[i])) {
			if (fl->e[i].dir_role == DIR_CONTENT_TOP)
				fl->e[w - 1].dir_role = DIR_CONTENT_TOP;
			if (set && is_dir(&fl->e[i]) && fl->e[i].root != fl->e[w - 1].root &&
			    strcmp(fl->e[i].name, ".") != 0)
				add_also(set, &fl->e[i]);
			continue;
		}
		fl->e[w++] = fl->e[i];
	}
	fl->n = w;
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
		if (f->x == NULL) {
			f->x = arena_zalloc_aligned(fl, sizeof(*f->x));
			f->x->nlink = 1;
		}
		f->x->sum = memset(arena_alloc(fl, CSUM_MAX_LEN), 0, CSUM_MAX_LEN);
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
			csum_file_final(&cf, f->x->sum);
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

/* (dev, ino) -> transmission index of a hard-link group's first member,
 * for the whole session (protocol >= 30 -H).  Open addressing. */
struct hl_slot { uint64_t dev, ino; int32_t first; int used; };
struct hlmap { struct hl_slot *t; size_t cap, n; };

/* Ids whose names were considered already (incremental recursion sends
 * each name once, inline). */
struct idset { uint32_t *v; size_t n, cap; };

struct flenc {
	struct prev pv;
	struct hlmap hl;
	struct idset users, groups;
};

static uint64_t hl_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino + 0x632be59bd9b4e019ull + (dev << 6));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* The first member's index, or -1 after recording `idx` as the first. */
static int32_t hl_lookup(struct hlmap *m, uint64_t dev, uint64_t ino, int32_t idx)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct hl_slot *nt = calloc(ncap, sizeof(*nt));

		if (nt == NULL)
			mon_exit(RERR_MALLOC);
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->t[j].used)
				continue;
			for (i = hl_hash(m->t[j].dev, m->t[j].ino) & (ncap - 1); nt[i].used; i = (i + 1) & (ncap - 1))
				;
			nt[i] = m->t[j];
		}
		free(m->t);
		m->t = nt;
		m->cap = ncap;
	}
	for (i = hl_hash(dev, ino) & (m->cap - 1); m->t[i].used; i = (i + 1) & (m->cap - 1)) {
		if (m->t[i].dev == dev && m->t[i].ino == ino)
			return m->t[i].first;
	}
	m->t[i] = (struct hl_slot){ dev, ino, idx, 1 };
	m->n++;
	return -1;
}

/* 1 the first time an id is seen. */
static int idset_add(struct idset *set, uint32_t id)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i] == id)
			return 0;
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->v = xrealloc(set->v, set->cap * sizeof(*set->v));
	}
	set->v[set->n++] = id;
	return 1;
}

/* The name to send inline for a uid/gid (incremental recursion), or NULL. */
static const char *inline_name(struct sess *s, struct idset *set, int kind, uint32_t id)
{
	if (!s->inc_recurse || s->numeric_ids || id == 0 || !idset_add(set, id))
		return NULL;
	return fsc_idname(kind, id);
}

static int is_device(uint32_t mode) { return S_ISCHR(mode) || S_ISBLK(mode); }
static int is_special(uint32_t mode) { return S_ISFIFO(mode) || S_ISSOCK(mode); }

static void write_name(struct io *io, const char *name)
{
	size_t len = strnlen(name, 255);

	io_write_byte(io, (uint8_t)len);
	io_write(io, name, len);
}

/* Send one entry (spec part 2, 4.2-4.5). */
static void send_entry(struct sess *s, const struct flist *fl, size_t idx, struct flenc *enc)
{
	struct prev *pv = &enc->pv;
	const struct fentry *f = &fl->e[idx];
	int32_t hl_ref = -1;
	int hl_first = 0;
	char uname[256], gname[256];
	const char *un = NULL, *gn = NULL;
	const struct options *o = &s->opt;
	struct io *io = &s->io;
	int proto = s->protocol;
	uint32_t mode = f->st.mode;
	uint32_t flags = 0;
	size_t l1 = 0, l2, nlen = strlen(f->name);
	int send_rdev = (o->devices && is_device(mode)) ||
			(o->specials && is_special(mode) && proto < 31);
	uint64_t rdev = fe_rdev(f);
	uint32_t major = major(rdev), minor = minor(rdev);
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
			if (is_special(mode) || rdev == pv->rdev)
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
	else if ((un = inline_name(s, &enc->users, PR_ID_USER, f->st.uid)) != NULL)
		flags |= XMIT_USER_NAME_FOLLOWS;
	if (!o->group || (f->st.gid == pv->gid && !pv->first))
		flags |= XMIT_SAME_GID;
	else if ((gn = inline_name(s, &enc->groups, PR_ID_GROUP, f->st.gid)) != NULL)
		flags |= XMIT_GROUP_NAME_FOLLOWS;
	/* the name buffer is reused by the next lookup: copy */
	if (un) {
		snprintf(uname, sizeof(uname), "%s", un);
		un = uname;
	}
	if (gn) {
		snprintf(gname, sizeof(gname), "%s", gn);
		gn = gname;
	}
	if (f->st.mtime == pv->mtime)
		flags |= XMIT_SAME_TIME;
	if (proto >= 31 && f->st.mtime_nsec)
		flags |= XMIT_MOD_NSEC;
	if (o->atimes && !S_ISDIR(mode) && f->st.atime == pv->atime)
		flags |= XMIT_SAME_ATIME;
	if (o->hard_links && proto >= 30 && !S_ISDIR(mode) && fe_nlink(f) > 1) {
		hl_ref = hl_lookup(&enc->hl, f->x->dev, f->x->ino, fl->ndx_start + (int32_t)idx);
		hl_first = hl_ref < 0;
	}
	if (hl_first || hl_ref >= 0) {
		flags |= XMIT_HLINKED;
		if (hl_first)
			flags |= XMIT_HLINK_FIRST;
		else if (hl_ref >= fl->ndx_start)
			abbreviated = 1; /* the receiver copies the rest from the same list */
	} else if (o->hard_links && proto >= 28 && proto < 30 && !S_ISDIR(mode) && fe_nlink(f) > 1) {
		flags |= XMIT_HLINKED;
		if (fe_dev(f) == pv->dev)
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

	if (hl_ref >= 0)
		io_write_varint(io, hl_ref);
	if (abbreviated)
		return;
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
	if (un)
		write_name(io, un);
	if (!(flags & XMIT_SAME_GID))
		io_write_varint30(io, (int32_t)f->st.gid);
	if (gn)
		write_name(io, gn);
	if (send_rdev) {
		if (proto < 28) {
			if (!(flags & XMIT_SAME_RDEV_PRE28))
				io_write_int32(io, (int32_t)(uint32_t)rdev);
			pv->rdev = rdev;
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
	if (o->links && S_ISLNK(mode) && fe_link(f)) {
		size_t ll = strlen(fe_link(f));
		io_write_varint30(io, (int32_t)ll);
		io_write(io, fe_link(f), ll);
	}
	if (o->hard_links && proto < 30 &&
	    (proto == 27 ? S_ISREG(mode) : (flags & XMIT_HLINKED) != 0)) {
		if (proto == 27 || !(flags & XMIT_SAME_DEV_PRE30))
			io_write_longint(io, (int64_t)fe_dev(f) + 1);
		io_write_longint(io, (int64_t)(f->x ? f->x->ino : 0));
		pv->dev = fe_dev(f);
	}
	if (o->always_checksum && (S_ISREG(mode) || proto < 28)) {
		static const unsigned char zero[CSUM_MAX_LEN];
		io_write(io, S_ISREG(mode) && f->x && f->x->sum ? f->x->sum : zero, (size_t)csum_len(s->flist.type));
	}
}

/* The end-of-list marker with the io_error value (4.8). */
static void send_end(struct sess *s, int err)
{
	struct io *io = &s->io;

	if (s->opt.ignore_errors)
		err = 0;

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

/* ---- the lists of a session ---------------------------------------------- */

#define LIST_IDLE_MAX 2000    /* entries held before idle sending pauses */

static void list_free(struct flist *fl)
{
	arena_free(fl);
	free(fl->e);
	memset(fl, 0, sizeof(*fl));
}

struct flset *flset_new(struct sess *s)
{
	struct flset *set = calloc(1, sizeof(*set));

	if (set == NULL || (set->enc = calloc(1, sizeof(*set->enc))) == NULL)
		mon_exit(RERR_MALLOC);
	set->s = s;
	set->enc->pv.first = 1;
	return set;
}

void flset_free(struct flset *set)
{
	for (size_t i = 0; i < set->nheld; i++) {
		list_free(set->held[i]);
		free(set->held[i]);
	}
	for (size_t i = 0; i < set->npending; i++)
		free(set->pending[i].name);
	list_free(&set->extras);
	for (size_t i = 0; i < set->nalso; i++)
		free(set->also[i].name);
	free(set->also);
	for (size_t i = 0; i < set->roots.n; i++)
		free(set->roots.v[i]);
	free(set->roots.v);
	free(set->held);
	free(set->pending);
	free(set->enc->hl.t);
	free(set->enc->users.v);
	free(set->enc->groups.v);
	free(set->enc);
	free(set);
}

static struct flist *list_new(struct flset *set)
{
	struct flist *fl = calloc(1, sizeof(*fl));

	if (fl == NULL)
		mon_exit(RERR_MALLOC);
	fl->roots = &set->roots;
	fl->keep_ino = set->s->protocol < 28 && set->s->opt.hard_links;
	return fl;
}

/* Sort, sum, send; the list joins the held ones. */
static void list_finish_and_send(struct flset *set, struct flist *fl, int err)
{
	struct sess *s = set->s;

	sort_and_dedupe(s, fl, s->inc_recurse ? set : NULL);
	if (s->opt.always_checksum)
		file_sums(s, fl);
	fl->ndx_start = set->next_ndx;
	for (size_t i = 0; i < fl->n; i++) {
		send_entry(s, fl, i, set->enc);
		if (S_ISREG(fl->e[i].st.mode) || S_ISLNK(fl->e[i].st.mode))
			s->total_size += (int64_t)fl->e[i].st.size;
	}
	send_end(s, err);
	set->next_ndx += (int32_t)fl->n + 1;
	if (set->nheld == set->held_cap) {
		set->held_cap = set->held_cap ? set->held_cap * 2 : 16;
		set->held = xrealloc(set->held, set->held_cap * sizeof(*set->held));
	}
	set->held[set->nheld++] = fl;
	set->held_entries += fl->n;
}

/* Every directory of a just-sent list is numbered (the client's dir_ndx)
 * and, except ".", waits for its own list: pushed in reverse so that the
 * stack pops them in sorted order, giving depth-first pre-order. */
static void queue_dirs(struct flset *set, const struct flist *fl)
{
	size_t first = set->npending;

	for (size_t i = 0; i < fl->n; i++) {
		const struct fentry *f = &fl->e[i];
		int32_t dn;

		if (!is_dir(f))
			continue;
		dn = set->ndirs++;
		if (strcmp(f->name, ".") == 0)
			continue;
		if (set->npending == set->pending_cap) {
			set->pending_cap = set->pending_cap ? set->pending_cap * 2 : 64;
			set->pending = xrealloc(set->pending, set->pending_cap * sizeof(*set->pending));
		}
		set->pending[set->npending++] = (struct pdir){
			xstrdup(f->name), f->root, f->dir_role, f->depth, fe_dev(f), dn
		};
	}
	for (size_t i = first, j = set->npending; i + 1 < j; i++, j--) {
		struct pdir t = set->pending[i];
		set->pending[i] = set->pending[j - 1];
		set->pending[j - 1] = t;
	}
}

static void add_also(struct flset *set, const struct fentry *f)
{
	if (f->dir_role != DIR_CONTENT_TOP && f->dir_role != DIR_CONTENT)
		return;
	if (set->nalso == set->also_cap) {
		set->also_cap = set->also_cap ? set->also_cap * 2 : 8;
		set->also = xrealloc(set->also, set->also_cap * sizeof(*set->also));
	}
	set->also[set->nalso++] = (struct pdir){ xstrdup(f->name), f->root, f->dir_role, f->depth, fe_dev(f), -1 };
}

static int cmp_extra(const void *x, const void *y)
{
	const struct fentry *a = x, *b = y;

	if (a->root != b->root)
		return a->root < b->root ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Move the -R names whose parent is `dir` (same root) into fl. */
static void take_extras(struct flset *set, const struct pdir *d, struct flist *fl)
{
	struct flist *x = &set->extras;
	size_t dlen = strlen(d->name), lo = 0, hi = x->n;

	while (lo < hi) { /* first entry >= (root, "dir/") */
		size_t mid = lo + (hi - lo) / 2;
		const struct fentry *f = &x->e[mid];
		int c = f->root != d->root ? (f->root < d->root ? -1 : 1) : strncmp(f->name, d->name, dlen);

		if (c == 0)
			c = f->name[dlen] == '\0' ? -1 : (unsigned char)f->name[dlen] < '/' ? -1 : 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->n; i++) {
		struct fentry *f = &x->e[i];
		struct fentry *n;

		if (f->root != d->root || strncmp(f->name, d->name, dlen) != 0 || f->name[dlen] != '/')
			break;
		if (strchr(f->name + dlen + 1, '/') != NULL || f->st.mode == 0)
			continue;
		n = copy_entry(fl, f);
		n->sent = 0;
		f->st.mode = 0; /* taken */
	}
}

size_t flset_send_first(struct flset *set)
{
	struct sess *s = set->s;
	struct flist *fl = list_new(set);
	struct scan sc = { .s = s, .fl = fl, .roots = &set->roots, .inc = s->inc_recurse };
	int64_t t0 = now_ms(), t1;
	size_t w = 0;

	for (size_t i = 0; i < s->nsrc; i++) {
		add_arg(s, &sc, s->src[i]);
		scan_all(&sc);
	}
	free(sc.stack);
	if (s->inc_recurse) {
		/* -R names below the top level wait for their parent's list */
		for (size_t i = 0; i < fl->n; i++) {
			if (strchr(fl->e[i].name, '/') == NULL) {
				fl->e[w++] = fl->e[i];
				continue;
			}
			(void)copy_entry(&set->extras, &fl->e[i]);
		}
		fl->n = w;
		if (set->extras.n > 1)
			qsort(set->extras.e, set->extras.n, sizeof(*set->extras.e), cmp_extra);
		set->next_ndx = 1;
	}
	t1 = now_ms();
	list_finish_and_send(set, fl, s->io_error);
	set->last_io_error = s->io_error;
	if (!s->inc_recurse && !s->opt.numeric_ids) {
		if (s->opt.owner)
			send_id_list(s, fl, PR_ID_USER);
		if (s->opt.group)
			send_id_list(s, fl, PR_ID_GROUP);
	}
	if (s->protocol < 30)
		io_write_int32(&s->io, s->opt.ignore_errors ? 0 : s->io_error);
	if (s->inc_recurse) {
		queue_dirs(set, fl);
		/* A one-entry first list makes the client look for one more
		 * list at once (single-file transfer or not). */
		flset_fill(set, 1000);
	}
	io_flush(&s->io);
	s->flist_buildtime_ms = t1 - t0 > 0 ? t1 - t0 : 1;
	s->flist_xfertime_ms = now_ms() - t1;
	return fl->n;
}

/* Send the next directory's list, or NDX_FLIST_EOF when none is left. */
static void send_next(struct flset *set)
{
	struct sess *s = set->s;
	struct pdir d;
	struct flist *fl;
	int err;

	if (set->npending == 0) {
		io_write_ndx(&s->io, NDX_FLIST_EOF);
		set->eof_sent = 1;
		return;
	}
	d = set->pending[--set->npending];
	fl = list_new(set);
	if (d.dir_role == DIR_CONTENT_TOP || d.dir_role == DIR_CONTENT) {
		struct scan sc = { .s = s, .fl = fl, .roots = &set->roots, .inc = 1 };

		push_dir(&sc, d.name, d.root, d.dev, d.depth);
		/* the same directory name under other roots, if any */
		for (size_t i = 0; i < set->nalso;) {
			if (strcmp(set->also[i].name, d.name) != 0) {
				i++;
				continue;
			}
			push_dir(&sc, set->also[i].name, set->also[i].root, set->also[i].dev, set->also[i].depth);
			free(set->also[i].name);
			set->also[i] = set->also[--set->nalso];
		}
		scan_all(&sc);
		free(sc.stack);
	}
	take_extras(set, &d, fl);
	io_write_ndx(&s->io, NDX_FLIST_OFFSET - d.dir_ndx);
	/* a sub-list reports io_error only when it changed since the last */
	err = s->io_error != set->last_io_error ? s->io_error : 0;
	set->last_io_error = s->io_error;
	list_finish_and_send(set, fl, err);
	queue_dirs(set, fl);
	free(d.name);
}

void flset_fill(struct flset *set, size_t want)
{
	/* Bounded: each round sends one of finitely many directories or EOF. */
	while (set->s->inc_recurse && !set->eof_sent && set->held_entries < want)
		send_next(set);
}

void flset_idle(void *arg)
{
	struct flset *set = arg;
	struct sess *s = set->s;

	while (s->inc_recurse && !set->eof_sent && !conn_readable(s->c)) {
		if (set->held_entries >= LIST_IDLE_MAX && set->nheld > 1)
			break;
		send_next(set);
		io_flush(&s->io);
	}
}

struct fentry *flset_find(struct flset *set, int32_t ndx, struct flist **flp, int *placeholder)
{
	size_t lo = 0, hi = set->nheld;

	/* the last list whose placeholder (ndx_start - 1) is <= ndx */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->held[mid]->ndx_start - 1 <= ndx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	struct flist *fl = set->held[lo - 1];
	*flp = fl;
	*placeholder = 0;
	if (ndx == fl->ndx_start - 1) {
		*placeholder = 1;
		return NULL;
	}
	if ((int64_t)ndx - fl->ndx_start >= (int64_t)fl->n)
		return NULL;
	return &fl->e[ndx - fl->ndx_start];
}

void flset_retire(struct flset *set)
{
	if (set->nheld == 0)
		return;
	set->held_entries -= set->held[0]->n;
	list_free(set->held[0]);
	free(set->held[0]);
	memmove(set->held, set->held + 1, (set->nheld - 1) * sizeof(*set->held));
	set->nheld--;
}
