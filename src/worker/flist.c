/*
 * Building and sending file lists (spec part 2, sections 4 to 6).
 *
 * Each list is built from the monitor's answers, sorted with the client's
 * own comparison, de-duplicated, and sent in that sorted order: the
 * client's stable sort then leaves it unchanged, so transmission indexes
 * and file indexes coincide (which keeps hard-link references simple).
 * Directories are scanned with an explicit work list, never by recursion,
 * so a deep tree cannot exhaust the stack.  Encoding is in flenc.c, the
 * session's lists (incremental recursion) in flset.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filters.h"
#include "flist_int.h"
#include "fsclient.h"
#include "mon.h"

#define NAME_MAX_LEN 4095          /* receivers reject l1 + l2 >= 4096 */
#define FLIST_MAX_ENTRIES (16u << 20)

/* ---- small helpers ------------------------------------------------------ */

void *fl_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL) {
		mon_log(PR_LOG_ERR, "out of memory building the file list");
		mon_exit(RERR_MALLOC);
	}
	return q;
}

char *fl_xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		mon_exit(RERR_MALLOC);
	return d;
}


static uint32_t add_root(struct flroots *r, const char *root)
{
	if (r->n && strcmp(r->v[r->n - 1], root) == 0)
		return (uint32_t)(r->n - 1);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = fl_xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n] = fl_xstrdup(root);
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
		fl->e = fl_xrealloc(fl->e, fl->cap * sizeof(*fl->e));
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
struct fentry *fl_copy_entry(struct flist *fl, const struct fentry *src)
{
	struct fentry *f;

	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 32;
		fl->e = fl_xrealloc(fl->e, fl->cap * sizeof(*fl->e));
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
		sc->stack = fl_xrealloc(sc->stack, sc->cap * sizeof(*sc->stack));
	}
	sc->stack[sc->n].name = fl_xstrdup(name);
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
		g->out = fl_xrealloc(g->out, g->cap * sizeof(*g->out));
	}
	g->out[g->n++] = fl_xstrdup(path);
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
	char **cur = fl_xrealloc(NULL, sizeof(char *));
	size_t ncur = 1;
	const char *p = path;

	cur[0] = fl_xstrdup("");
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
					g.out = fl_xrealloc(g.out, (g.n + 1) * sizeof(*g.out));
					g.out[g.n++] = fl_xstrdup(joined);
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

/*
 * Protocol >= 29 compares names segment by segment: at the first segment
 * that differs, an entry that ends there as a non-directory sorts before
 * one that goes on (or is a directory), two directory levels compare as
 * "name/", two last segments of non-directories byte by byte (a prefix
 * first); "." (a dot-dir) sorts first.  It is done in one pass: find the
 * first byte where the names differ, then decide from the segment that
 * byte is in.  (A sort of a million entries makes twenty million of these.)
 */
static int is_dot_dir(const struct fentry *f)
{
	return fe_is_dir(f) && f->name[0] == '.' && f->name[1] == '\0';
}

int flist_cmp(const struct fentry *a, const struct fentry *b, int protocol)
{
	const unsigned char *pa = (const unsigned char *)a->name, *pb = (const unsigned char *)b->name;
	int la, lb, ca, cb;
	size_t i = 0;

	if (protocol < 29) {
		int c = strcmp(a->name, b->name);

		return c < 0 ? -1 : c > 0;
	}
	if (is_dot_dir(a) || is_dot_dir(b))
		return is_dot_dir(a) && is_dot_dir(b) ? 0 : is_dot_dir(a) ? -1 : 1;
	while (pa[i] == pb[i] && pa[i] != '\0')
		i++;
	if (pa[i] == pb[i]) /* the same name: a non-directory first */
		return fe_is_dir(a) == fe_is_dir(b) ? 0 : fe_is_dir(a) ? 1 : -1;
	/* the differing segment: a directory level if a '/' follows in it, or
	 * if it is the last and the entry is a directory */
	la = strchr((const char *)pa + i, '/') != NULL || fe_is_dir(a);
	lb = strchr((const char *)pb + i, '/') != NULL || fe_is_dir(b);
	if (la != lb)
		return la ? 1 : -1;
	ca = pa[i];
	cb = pb[i];
	if (!la)
		return ca < cb ? -1 : 1;
	/* directory levels compare as "name/": a directory's end is its '/' */
	if (ca == '\0')
		ca = '/';
	if (cb == '\0')
		cb = '/';
	if (ca != cb)
		return ca < cb ? -1 : 1;
	/* the same segment, and one name ends there: it goes first */
	return pa[i] == '\0' ? -1 : 1;
}

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

/* set: with incremental recursion, where a dropped duplicate directory's
 * contents go (stock lists same-named directories together). */
void fl_sort_dedupe(struct sess *s, struct flist *fl,
		    void (*dropped_dir)(void *ctx, const struct fentry *f), void *ctx)
{
	size_t w = 0;

	sort_entries(fl, s->protocol);
	/* Duplicates (overlapping arguments) sort next to each other; keep the
	 * first, as the receiver would. */
	for (size_t i = 0; i < fl->n; i++) {
		if (w > 0 && strcmp(fl->e[w - 1].name, fl->e[i].name) == 0 &&
		    fe_is_dir(&fl->e[w - 1]) == fe_is_dir(&fl->e[i])) {
			if (fl->e[i].dir_role == DIR_CONTENT_TOP)
				fl->e[w - 1].dir_role = DIR_CONTENT_TOP;
			if (dropped_dir && fe_is_dir(&fl->e[i]) && fl->e[i].root != fl->e[w - 1].root &&
			    strcmp(fl->e[i].name, ".") != 0)
				dropped_dir(ctx, &fl->e[i]);
			continue;
		}
		fl->e[w++] = fl->e[i];
	}
	fl->n = w;
}

/* The sum of one opened file: its st_size bytes as it was opened (stock
 * sums the size it listed), stopping early if it shrank. */
static void file_sum(struct sess *s, const struct fsc_opened *o, unsigned char *sum)
{
	static unsigned char buf[256 * 1024];
	struct csum_file cf;
	uint64_t off = 0;

	if (csum_file_init(&cf, &s->flist, 0) < 0)
		return;
	while (off < o->st.size) {
		size_t want = o->st.size - off < sizeof(buf) ? (size_t)(o->st.size - off) : sizeof(buf);
		ssize_t n = pread(o->fd, buf, want, (off_t)off);

		if (n <= 0)
			break;
		csum_file_update(&cf, buf, (size_t)n);
		off += (uint64_t)n;
	}
	csum_file_final(&cf, sum);
}

/* -c: the whole-file sum of every regular file, unseeded.  The files are
 * opened PR_OPENV_MAX at a time: a listing names them all in advance. */
void fl_file_sums(struct sess *s, struct flist *fl)
{
	static char paths[PR_OPENV_MAX][PR_RELPATH_MAX];
	const char *ask[PR_OPENV_MAX];
	struct fsc_opened got[PR_OPENV_MAX];
	size_t which[PR_OPENV_MAX];

	for (size_t i = 0; i < fl->n;) {
		size_t n = 0, asked;

		for (; i < fl->n && n < PR_OPENV_MAX; i++) {
			struct fentry *f = &fl->e[i];

			if (!S_ISREG(f->st.mode))
				continue;
			if (f->x == NULL) {
				f->x = arena_zalloc_aligned(fl, sizeof(*f->x));
				f->x->nlink = 1;
			}
			f->x->sum = memset(arena_alloc(fl, CSUM_MAX_LEN), 0, CSUM_MAX_LEN);
			if (flist_module_path(fl, f, paths[n], sizeof(paths[n])) < 0)
				continue; /* unreadable: an all-zero sum, as stock sends */
			ask[n] = paths[n];
			which[n++] = i;
		}
		for (size_t done = 0; done < n; done += asked) {
			asked = fsc_openv(ask + done, n - done, got);
			if (asked == 0)
				break; /* no handle left: cannot happen, we hold none */
			for (size_t k = 0; k < asked; k++) {
				if (got[k].err != 0)
					continue;
				file_sum(s, &got[k], fl->e[which[done + k]].x->sum);
				fsc_close(got[k].fd, got[k].handle);
			}
		}
	}
}

/* ---- entry points for flset.c -------------------------------------------- */

void fl_build_args(struct sess *s, struct flist *fl, struct flroots *roots, int inc)
{
	struct scan sc = { .s = s, .fl = fl, .roots = roots, .inc = inc };

	for (size_t i = 0; i < s->nsrc; i++) {
		add_arg(s, &sc, s->src[i]);
		scan_all(&sc);
	}
	free(sc.stack);
}

void fl_build_dirs(struct sess *s, struct flist *fl, struct flroots *roots,
		   const struct pdir *dirs, size_t n)
{
	struct scan sc = { .s = s, .fl = fl, .roots = roots, .inc = 1 };

	for (size_t i = 0; i < n; i++)
		push_dir(&sc, dirs[i].name, dirs[i].root, dirs[i].dev, dirs[i].depth);
	scan_all(&sc);
	free(sc.stack);
}

void fl_list_free(struct flist *fl)
{
	arena_free(fl);
	free(fl->e);
	memset(fl, 0, sizeof(*fl));
}
