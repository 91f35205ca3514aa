/* SPDX-License-Identifier: ISC */
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
#include "flconv.h"
#include "flist_int.h"
#include "fsclient.h"
#include "mon.h"
#include "prefault.h"

#define NAME_MAX_LEN 4095          /* receivers reject l1 + l2 >= 4096 */
/* Buffers for an argument being sanitized and joined: longer than any
 * argument (5120 bytes) or --files-from name, so nothing is cut short
 * before the monitor can say "too long". */
#define ARG_PATH_MAX (3 * PR_RELPATH_MAX)
#define FLIST_MAX_ENTRIES (16u << 20)

/* ---- small helpers ------------------------------------------------------ */

static struct io *fl_io; /* the session's, for a limit reached while listing */

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


static uint32_t add_root(struct flroots *r, const char *root, int slash)
{
	if (r->n && strcmp(r->v[r->n - 1], root) == 0 && r->slash[r->n - 1] == slash)
		return (uint32_t)(r->n - 1);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = fl_xrealloc(r->v, r->cap * sizeof(*r->v));
		r->slash = fl_xrealloc(r->slash, r->cap);
	}
	r->v[r->n] = fl_xstrdup(root);
	r->slash[r->n] = (unsigned char)slash;
	return (uint32_t)r->n++;
}

/* Chunks start small (most sub-lists are small) and double up to 64 KiB. */
#define ARENA_FIRST 1024
#define ARENA_MAX 65536

/* A million-entry list is what a session without incremental recursion
 * holds; flist.h says how an entry stays this small. */
_Static_assert(sizeof(struct fentry) == 48, "a list entry is 48 bytes");

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
		if (cap >= ARENA_MAX)
			prefault_range(c, sizeof(*c) + cap); /* filled before the next one */
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

/* The next entry of fl->e, the array grown by doubling.  Its fresh pages
 * are populated POPULATE_ENTRIES at a time, one system call for 16 pages
 * instead of a fault each (a hypervisor trap on the bench machine; the
 * list of a 100,000-entry tree faulted ~1,500 times), never more than
 * that ahead of use (src/proto/prefault.h). */
#define POPULATE_ENTRIES (65536 / sizeof(struct fentry))

static struct fentry *next_slot(struct flist *fl)
{
	if (fl->n == fl->cap) {
		fl->cap = fl->cap ? fl->cap * 2 : 32;
		fl->e = fl_xrealloc(fl->e, fl->cap * sizeof(*fl->e));
		fl->populated = fl->n; /* what lies beyond was never touched */
	}
	if (fl->n >= fl->populated && fl->cap >= POPULATE_ENTRIES) {
		size_t end = fl->n + POPULATE_ENTRIES < fl->cap ? fl->n + POPULATE_ENTRIES : fl->cap;

		prefault_range(&fl->e[fl->n], (end - fl->n) * sizeof(*fl->e));
		fl->populated = end;
	}
	return &fl->e[fl->n++];
}

static struct fentry *add_entry(struct flist *fl, const char *name, uint32_t root,
				const struct pr_stat *st, const char *link)
{
	struct fentry *f;

	if (fl->n >= FLIST_MAX_ENTRIES) {
		if (fl_io)
			io_fatal(fl_io, RERR_MALLOC, "ERROR: file list larger than %u entries [sender]",
				 FLIST_MAX_ENTRIES);
		mon_log(PR_LOG_ERR, "file list larger than %u entries", FLIST_MAX_ENTRIES);
		mon_exit(RERR_MALLOC);
	}
	f = next_slot(fl);
	memset(f, 0, sizeof(*f));
	f->name = arena_strdup(fl, name);
	f->st = (struct fstat){ .size = st->size, .mtime = st->mtime, .uid = st->uid, .gid = st->gid,
				.mtime_nsec = st->mtime_nsec, .mode = (uint16_t)st->mode,
				.root = (uint16_t)(root < FE_ROOT_EXT ? root : FE_ROOT_EXT) };
	if (S_ISDIR(st->mode) || st->nlink > 1 || S_ISCHR(st->mode) || S_ISBLK(st->mode) || link ||
	    (fl->keep_ino && S_ISREG(st->mode)) || fl->keep_atime || root >= FE_ROOT_EXT) {
		f->x = arena_zalloc_aligned(fl, sizeof(*f->x));
		f->x->root = root;
		f->x->atime = st->atime;
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

	f = next_slot(fl);
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


/* Copy the pieces into out: -1 if they do not fit with the NUL.  (No
 * snprintf: this runs two or three times per listed entry.) */
static int put2(char *out, size_t cap, const char *a, size_t alen, const char *b, size_t blen)
{
	size_t sep = alen > 0 && blen > 0;

	if (alen + sep + blen >= cap)
		return -1;
	memcpy(out, a, alen);
	if (sep)
		out[alen] = '/';
	memcpy(out + alen + sep, b, blen);
	out[alen + sep + blen] = '\0';
	return 0;
}

/* Join module-relative paths: "" + "x" = "x", "a" + "x" = "a/x". */
static int join(char *out, size_t cap, const char *a, const char *b)
{
	size_t alen = strcmp(a, ".") == 0 ? 0 : strlen(a);

	if (b[0] == '\0' || strcmp(b, ".") == 0)
		return put2(out, cap, a, alen, "", 0);
	return put2(out, cap, a, alen, b, strlen(b));
}

int flist_module_path(const struct flist *fl, const struct fentry *f, char *buf, size_t cap)
{
	return join(buf, cap, fl->roots->v[fe_root(f)], f->name);
}

/*
 * Sanitize a path argument into module-relative form: no empty, "." or
 * ".." components (".." removes the previous component and never climbs
 * above the module root).  *dotdir says whether the argument named a
 * directory's contents (trailing "/", "/." or "/..", or nothing at all).
 * The result is never longer than the input, so with cap > strlen(in)
 * nothing is ever dropped: an over-long name stays whole and the monitor
 * request for it fails with ENAMETOOLONG, as stat(2) fails for rsyncd.
 */
static int sanitize(const char *in, char *out, size_t cap, int *dotdir)
{
	int fits = 0;

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
		} else if (!last_special) {
			fits = -1;
		}
		if (!e) {
			p += len;
			break;
		}
		p = e + 1;
		last_special = 1; /* a trailing slash */
	}
	*dotdir = last_special || o == 0;
	return fits;
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
	int dot_sent;              /* the implied "." of a "./name" (-R) */
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

/*
 * A symlink entry under the link options (links.c): 0 to add it as the
 * link (link[] its target), 1 as its referent (*st), -1 when it is left
 * out, after rsync's message.  name: below the transfer root.
 */
static int apply_links(struct sess *s, const struct flroots *roots, uint32_t root, const char *mpath,
		       const char *name, struct pr_stat *st, char *link)
{
	char where[PR_RELPATH_MAX + 1], show[PR_RELPATH_MAX];
	int err;

	snprintf(where, sizeof(where), "%s%s", roots->slash[root] ? "/" : "", name);
	enum link_verdict v = links_apply(&s->links, mpath, where, st, link, &err);
	/* as stock, no error for a name the client's filters leave out */
	if (v < 0 && (filt_skip(s, name, roots->v[root], 0, FILT_ALL) || filt_skip(s, name, roots->v[root], 1, FILT_ALL)))
		return -1;
	switch (v) {
	case LINK_NO_REFERENT:
		io_msg(&s->io, MSG_ERROR_XFER, "symlink has no referent: \"%s\" (in %s)",
		       shown(mpath, show, sizeof(show)), s->hs.module);
		io_err_general(s);
		return -1;
	case LINK_ERROR:
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] readlink_stat(\"%s\" (in %s)) failed: %s (%d)",
		       shown(mpath, show, sizeof(show)), s->hs.module, strerror(err), err);
		io_err_general(s);
		return -1;
	default:
		return v == LINK_FOLLOWED;
	}
}

/*
 * Add an entry, with its ACL and xattrs (-A, -X) read first: stock leaves
 * out an entry whose lists cannot be read.  how: whose lists (xa_fetch's
 * XA_*; 1, XA_REFERENT, is a link sent as its referent).  NULL when left
 * out.
 */
static struct fentry *add_full(struct scan *sc, const char *name, uint32_t root, const struct pr_stat *st,
			       const char *link, int how)
{
	struct sess *s = sc->s;
	char mpath[PR_RELPATH_MAX];
	struct xa_ref xr = { 0, 0, 0 };
	struct fentry *f;

	if ((s->opt.acls || s->opt.xattrs) &&
	    (join(mpath, sizeof(mpath), sc->roots->v[root], name) < 0 || xa_fetch(s, mpath, st->mode, how, &xr) < 0))
		return NULL;
	f = add_entry(sc->fl, name, root, st, link);
	if (s->opt.acls || s->opt.xattrs) {
		if (f->x == NULL) {
			f->x = arena_zalloc_aligned(sc->fl, sizeof(*f->x));
			f->x->nlink = st->nlink;
			f->x->dev = st->dev;
			f->x->ino = st->ino;
			f->x->rdev = st->rdev;
		}
		f->x->xa = xr;
	}
	return f;
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
	int followed = 0;

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
	if (S_ISLNK(st.mode) && !s->links.copy_links) {
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
	}
	if (S_ISLNK(st.mode) && (followed = apply_links(s, sc->roots, sc->cur->root, mpath, name, &st, link)) < 0)
		return 0;
	if (filt_skip(s, name, sc->roots->v[sc->cur->root], S_ISDIR(st.mode), FILT_ALL))
		return 0;
	if (S_ISDIR(st.mode) && s->opt.one_file_system && st.dev != sc->cur->dev) {
		if (s->opt.one_file_system > 1)
			return 0;
		if ((f = add_full(sc, name, sc->cur->root, &st, NULL, followed)) != NULL)
			f->x->dir_role = DIR_NO_CONTENT;
		return 0;
	}
	if (!flconv_check(s, name, mpath, S_ISLNK(st.mode) ? link : NULL))
		return 0;
	if ((f = add_full(sc, name, sc->cur->root, &st, S_ISLNK(st.mode) ? link : NULL, followed)) == NULL)
		return 0;
	if (S_ISDIR(st.mode)) {
		f->x->dir_role = s->opt.recursive ? DIR_CONTENT : DIR_NO_CONTENT;
		f->x->depth = (uint16_t)(sc->cur->depth + 1);
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
			/* A "dir/" argument's own directory is "dir/." to stock. */
			if (strcmp(d.name, ".") == 0)
				snprintf(show, sizeof(show), "/%s%s.", sc->cur_path, sc->cur_path[0] ? "/" : "");
			else
				shown(sc->cur_path, show, sizeof(show));
			io_msg(&sc->s->io, MSG_ERROR_XFER, "rsync: [sender] opendir \"%s\" (in %s) failed: %s (%d)",
			       show, sc->s->hs.module, strerror(err), err);
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
		if ((f = add_full(sc, part, root, &st, NULL, XA_THROUGH)) != NULL)
			f->x->dir_role = DIR_IMPLIED;
	}
}

/* The transfer root as an implied "." directory (once a transfer). */
static void add_dot_dir(struct sess *s, struct scan *sc, uint32_t root)
{
	struct pr_stat st;

	struct fentry *f;

	sc->dot_sent = 1;
	if (fsc_stat(sc->roots->v[root], 1, &st, NULL, 0) == 0 && S_ISDIR(st.mode) &&
	    (f = add_full(sc, ".", root, &st, NULL, XA_THROUGH)) != NULL)
		f->x->dir_role = DIR_IMPLIED;
	(void)s;
}

/* ---- wildcard arguments (spec part 1, 4.5 step 4) ------------------------ */

#define GLOB_MAX 65536

struct globctx { const char *pat; char **out; size_t n, cap; const char *prefix; int dirs_only; };

static int glob_entry(void *ctx, const struct pr_dirent *d)
{
	struct globctx *g = ctx;
	char name[256], path[PR_RELPATH_MAX];
	struct pr_stat st;

	memcpy(name, d->name, d->name_len);
	name[d->name_len] = '\0';
	if (fnmatch(g->pat, name, 0) != 0 || g->n >= GLOB_MAX ||
	    join(path, sizeof(path), g->prefix, name) < 0)
		return 0;
	/* "pat/" matches directories only (links to them too), as glob(3) */
	if (g->dirs_only && !S_ISDIR(d->st.mode) &&
	    !(S_ISLNK(d->st.mode) && fsc_stat(path, 1, &st, NULL, 0) == 0 && S_ISDIR(st.mode)))
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
 * time against the module's directories; dirs_only: the last component
 * names directories only (the argument ended in '/').  Returns the number of matches
 * (in *out, sorted), or 0 when the pattern matched nothing (the caller
 * then uses it literally, as stock does).
 */
static size_t glob_expand(const char *path, int dirs_only, char ***out)
{
	char **cur = fl_xrealloc(NULL, sizeof(char *));
	size_t ncur = 1;
	const char *p = path;

	cur[0] = fl_xstrdup("");
	while (*p && ncur > 0) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char comp[256];

		if (len == 0) {
			p += len + (e != NULL);
			continue;
		}
		if (len >= sizeof(comp)) {
			/* no name that long exists: no match, the argument is
			 * then used as it is (and found too long) */
			for (size_t i = 0; i < ncur; i++)
				free(cur[i]);
			ncur = 0;
			break;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		struct globctx g = { .pat = comp, .dirs_only = dirs_only && (e == NULL || e[1] == '\0') };
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
	char **matches = NULL, clean[ARG_PATH_MAX];
	size_t n;
	int dotdir;

	if (strncmp(arg, mod, mlen) == 0 && (arg[mlen] == '/' || arg[mlen] == '\0'))
		p = arg + mlen;
	if (strpbrk(p, "*?[") == NULL || s->opt.relative) {
		add_one_arg(s, sc, arg);
		return;
	}
	/* As rsyncd: "." and ".." are resolved first, so "sub/../x*" is
	 * "x*" (and nothing is looked up under a name the client spelled
	 * with ".."). */
	sanitize(p, clean, sizeof(clean), &dotdir);
	n = glob_expand(clean, dotdir, &matches);
	if (n == 0)
		add_one_arg(s, sc, arg);
	for (size_t i = 0; i < n; i++) {
		char full[PR_RELPATH_MAX + 2];

		/* keep a trailing slash: it still means "the contents" */
		snprintf(full, sizeof(full), "/%s%s", matches[i], dotdir ? "/" : "");
		add_one_arg(s, sc, full);
		scan_all(sc);
		free(matches[i]);
	}
	free(matches);
}

/* The last argument directory found to be a directory: consecutive
 * arguments below one directory (a --files-from list) check it once, as
 * rsyncd changes into it once. */
static char last_dir_ok[ARG_PATH_MAX];
static int last_dir_valid;

/*
 * An argument split as rsyncd handles it: the directory it changes into
 * (rp) and the name it then looks up there (name; mpath is both joined).
 * slash: -R without "/./" (the transfer's top is "/"); dot_first: a
 * "./name" with -R, for which stock sends "." once, as implied.
 */
struct argp {
	char dir[ARG_PATH_MAX], kept[ARG_PATH_MAX], mpath[ARG_PATH_MAX];
	const char *rp, *name;
	int dotdir, implied, follow, slash, dot_first;
	int toolong; /* does not fit even these buffers: ENAMETOOLONG, never a shorter name */
};

/* A name too long for a module path stays whole through sanitize() (the
 * buffers here are three times a path), and the monitor request for it
 * then fails with ENAMETOOLONG, as stat(2) fails for rsyncd; one that
 * does not even fit here is marked toolong, with the same answer. */
static void arg_split(struct sess *s, const char *arg, struct argp *a)
{
	const char *mod = s->hs.module;
	size_t mlen = strlen(mod);
	const char *p = arg;
	static char prefix[ARG_PATH_MAX];
	int dummy;

	a->implied = a->slash = a->dot_first = 0;
	a->kept[0] = '\0';
	if (strncmp(arg, mod, mlen) == 0 && (arg[mlen] == '/' || arg[mlen] == '\0'))
		p = arg + mlen;
	if (s->opt.relative) {
		const char *split = strstr(p, "/./");

		if (split) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(split - p), p);
			p = split + 3;
		} else {
			prefix[0] = '\0';
		}
		a->toolong = sanitize(prefix, a->dir, sizeof(a->dir), &dummy) < 0 ||
			     sanitize(p, a->kept, sizeof(a->kept), &a->dotdir) < 0;
		a->rp = a->dir;
		a->slash = split == NULL;
		a->dot_first = p[0] == '.' && p[1] == '/' && a->kept[0];
		a->name = a->kept[0] ? a->kept : ".";
		a->implied = a->kept[0] != '\0'; /* added once the argument is known to be kept */
	} else {
		char *slash;

		a->toolong = sanitize(p, a->dir, sizeof(a->dir), &a->dotdir) < 0;
		if (a->dotdir) {
			a->rp = a->dir;
			a->name = ".";
		} else {
			slash = strrchr(a->dir, '/');
			if (slash) {
				*slash = '\0';
				a->rp = a->dir;
				snprintf(a->kept, sizeof(a->kept), "%s", slash + 1);
			} else {
				a->rp = "";
				snprintf(a->kept, sizeof(a->kept), "%s", a->dir);
			}
			a->name = a->kept;
		}
	}
	/* cannot fail: each part is shorter than the argument */
	(void)join(a->mpath, sizeof(a->mpath), a->rp, a->name);
	a->follow = a->dotdir || s->opt.copy_links;
}

static int arg_dir_known(const struct argp *a)
{
	return !a->rp[0] || (last_dir_valid && strcmp(a->rp, last_dir_ok) == 0);
}

/* Stock changes into the argument's directory first: a missing or
 * module-hidden one fails as a whole, with change_dir's message.  0 or -1. */
static int arg_enter(struct sess *s, const struct argp *a)
{
	static char show[ARG_PATH_MAX + 1];
	struct pr_stat st;
	int err;

	if (arg_dir_known(a))
		return 0;
	last_dir_valid = 0;
	err = fsc_stat(a->rp, 1, &st, NULL, 0);
	if (err == 0 && !S_ISDIR(st.mode))
		err = ENOTDIR;
	if (err) {
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(a->rp, show, sizeof(show)), s->hs.module, strerror(err), err);
		io_err_general(s);
		return -1;
	}
	strcpy(last_dir_ok, a->rp);
	last_dir_valid = 1;
	return 0;
}

/* The rest, once the name's own lookup answered err/st/link. */
static void arg_add(struct sess *s, struct scan *sc, struct argp *a, int err, struct pr_stat *st,
		    char *link)
{
	static char show[ARG_PATH_MAX + 1];
	const char *mod = s->hs.module;
	struct fentry *f;
	uint32_t root;
	int followed = 0;

	if (a->dot_first && !sc->dot_sent)
		add_dot_dir(s, sc, add_root(sc->roots, a->rp, a->slash));
	if (err) {
		if (err == ENOENT && s->opt.ignore_missing_args)
			return;
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] link_stat \"%s\" (in %s) failed: %s (%d)",
		       shown(a->mpath, show, sizeof(show)), mod, strerror(err), err);
		if (err != ENOENT)
			io_err_general(s);
		return;
	}
	/* Only a name that exists costs a root: names that do not, as most
	 * of a hostile list may, leave nothing behind. */
	root = add_root(sc->roots, a->rp, a->slash);
	if (S_ISLNK(st->mode) && (followed = apply_links(s, sc->roots, root, a->mpath, a->name, st, link)) < 0)
		return;
	if (!a->dotdir && filt_skip(s, a->name, a->rp, S_ISDIR(st->mode), FILT_ALL))
		return;
	/* Stock skips any directory, "dir/" and "." too, unless -r, -d or
	 * --list-only ask for directories (--files-from implies -d). */
	if (S_ISDIR(st->mode) && !s->opt.recursive && !s->opt.dirs && !s->opt.list_only) {
		/* (-R without "/./": stock's name keeps the module path's '/') */
		io_msg(&s->io, MSG_INFO, "skipping directory %s%s", s->opt.relative && a->slash ? "/" : "",
		       a->name);
		return;
	}
	if (a->implied)
		add_implied(s, sc, root, a->kept);
	/* (EPERM: the module's "open noatime" on a directory its uid does
	 * not own; stock's chdir works, its opendir fails, as ours will.) */
	if (S_ISDIR(st->mode) && a->dotdir && (err = fsc_list(a->mpath, probe_entry, NULL)) != 0 && err != EPERM) {
		/* Stock changes into a "dir/" argument first; when it cannot,
		 * the argument is skipped as a whole. */
		io_msg(&s->io, MSG_ERROR_XFER, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
		       shown(a->mpath, show, sizeof(show)), mod, strerror(err), err);
		io_err_general(s);
		return;
	}
	if (!flconv_check(s, a->name, a->mpath, S_ISLNK(st->mode) && link[0] ? link : NULL))
		return;
	f = add_full(sc, a->name, root, st, S_ISLNK(st->mode) && link[0] ? link : NULL,
		     followed || (a->dotdir && !S_ISDIR(st->mode)) ? XA_REFERENT : a->dotdir ? XA_THROUGH : XA_OWN);
	if (f == NULL || !S_ISDIR(st->mode))
		return;
	if (s->opt.recursive || a->dotdir) {
		f->x->dir_role = DIR_CONTENT_TOP;
		/* incremental: only "." is scanned into the first list */
		if (!sc->inc || strcmp(a->name, ".") == 0)
			push_dir(sc, a->name, root, st->dev, 0);
	} else {
		f->x->dir_role = DIR_NO_CONTENT;
	}
}

static void add_one_arg(struct sess *s, struct scan *sc, const char *arg)
{
	static struct argp a;
	static char link[FS_LINK_MAX];
	struct pr_stat st;
	int err;

	arg_split(s, arg, &a);
	if (arg_enter(s, &a) < 0)
		return;
	link[0] = '\0';
	err = a.toolong ? ENAMETOOLONG : fsc_stat(a.mpath, a.follow, &st, link, sizeof(link));
	arg_add(s, sc, &a, err, &st, link);
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

/* strchr(p, '/') for the few bytes left of a name, without a call */
static inline int has_slash(const unsigned char *p)
{
	for (; *p; p++)
		if (*p == '/')
			return 1;
	return 0;
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
	la = fe_is_dir(a) || has_slash(pa + i);
	lb = fe_is_dir(b) || has_slash(pb + i);
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

/* Right-before-left: entry x (of the right run) sorts before entry y. */
#define BEFORE(x, y) (flist_cmp(&fl->e[x], &fl->e[y], protocol) < 0)

/*
 * A stable bottom-up merge sort of the entries' indices, then the entries
 * moved once into that order.  Each merge copies out only the shorter of
 * its two runs (at most n/2 indices: 6 bytes an entry in all, at the
 * moment a whole list is in memory) and merges into the gap from the end
 * the copy freed; two runs already in order are left as they are.
 */
static void sort_entries(struct flist *fl, int protocol)
{
	size_t n = fl->n;
	uint32_t *a, *t;

	if (n < 2)
		return;
	a = malloc(n * sizeof(*a));
	t = malloc((n / 2 + 1) * sizeof(*t));
	if (a == NULL || t == NULL)
		mon_exit(RERR_MALLOC);
	prefault_range(a, n * sizeof(*a)); /* written whole */
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo + w < n; lo += 2 * w) {
			size_t mid = lo + w, hi = lo + 2 * w < n ? lo + 2 * w : n;

			if (!BEFORE(a[mid], a[mid - 1]))
				continue;
			if (mid - lo <= hi - mid) { /* the left run out; merge from the front */
				size_t nl = mid - lo, i = 0, j = mid, k = lo;

				memcpy(t, a + lo, nl * sizeof(*t));
				while (i < nl && j < hi)
					a[k++] = BEFORE(a[j], t[i]) ? a[j++] : t[i++];
				while (i < nl)
					a[k++] = t[i++];
			} else { /* the right run out; merge from the back */
				size_t nr = hi - mid, i = mid, j = nr, k = hi;

				memcpy(t, a + mid, nr * sizeof(*t));
				while (j > 0 && i > lo)
					a[--k] = BEFORE(t[j - 1], a[i - 1]) ? a[--i] : t[--j];
				while (j > 0)
					a[--k] = t[--j];
			}
		}
	}
#undef BEFORE
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
			if (fe_dir_role(&fl->e[i]) == DIR_CONTENT_TOP)
				fl->e[w - 1].x->dir_role = DIR_CONTENT_TOP;
			if (dropped_dir && fe_is_dir(&fl->e[i]) && fe_root(&fl->e[i]) != fe_root(&fl->e[w - 1]) &&
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

/* The directory --files-from names are relative to: as rsyncd, one that
 * cannot be entered ends the session (exit 3) before any name is read.
 * It is sanitized once, into out ("module/dir"), so a name costs its own
 * length and the clean base's, never the spelling the client sent. */
static void files_from_base(struct sess *s, const char *base, char *out, size_t cap)
{
	const char *mod = s->hs.module, *p = base;
	size_t mlen = strlen(mod);
	static char dir[ARG_PATH_MAX];
	struct pr_stat st;
	int dotdir, err = 0;

	if (strncmp(base, mod, mlen) == 0 && (base[mlen] == '/' || base[mlen] == '\0'))
		p = base + mlen;
	sanitize(p, dir, sizeof(dir), &dotdir);
	if (dir[0] && (err = fsc_stat(dir, 1, &st, NULL, 0)) == 0 && !S_ISDIR(st.mode))
		err = ENOTDIR;
	if (err)
		io_fatal(&s->io, RERR_FILESELECT, "rsync: [sender] change_dir \"%s\" (in %s) failed: %s (%d)",
			 p[0] ? p : "/", mod, strerror(err), err);
	snprintf(out, cap, "%s%s%s", mod, dir[0] ? "/" : "", dir);
}

/*
 * The names of a --files-from list, looked up FSC_STAT_BATCH at a time
 * (fsc_stat_many).  Only names below a directory already entered are
 * queued; a new directory first drains the queue, so every message the
 * client gets comes in the order of the list, as from a name-by-name walk.
 */
struct ffq {
	struct argp a[FSC_STAT_BATCH + 1], *slot[FSC_STAT_BATCH + 1];
	struct fsc_statq q[FSC_STAT_BATCH];
	size_t n;
};

static void ffq_drain(struct sess *s, struct scan *sc, struct ffq *f)
{
	for (size_t i = 0; i < f->n; i++) {
		f->q[i].path = f->slot[i]->mpath;
		f->q[i].follow = f->slot[i]->follow;
	}
	fsc_stat_many(f->q, f->n);
	for (size_t i = 0; i < f->n; i++) {
		arg_add(s, sc, f->slot[i], f->q[i].err, &f->q[i].st, f->q[i].link);
		scan_all(sc);
	}
	/* the slot after the queue may hold a name not yet queued */
	if (f->n > 0) {
		struct argp *t = f->slot[0];

		f->slot[0] = f->slot[f->n];
		f->slot[f->n] = t;
	}
	f->n = 0;
}

static void files_from_all(struct sess *s, struct scan *sc)
{
	static struct ffq f;
	static char name[PR_RELPATH_MAX], arg[ARG_PATH_MAX], base[ARG_PATH_MAX];
	int rc;

	files_from_base(s, s->opt.npaths ? s->opt.paths[0] : "", base, sizeof(base));
	for (size_t i = 0; i <= FSC_STAT_BATCH; i++)
		f.slot[i] = &f.a[i];
	f.n = 0;
	while ((rc = files_from_next(s, name, sizeof(name))) != 0) {
		struct argp *a = f.slot[f.n];

		if (sess_source_name(base, name, arg, sizeof(arg)) < 0)
			io_fatal(&s->io, RERR_PROTOCOL, "--files-from name too long [sender]");
		arg_split(s, arg, a);
		if (rc == 2 || a->toolong) {
			/* rsyncd looks up what fits of it; a cut name is another
			 * file, so this one is only reported, "too long", exit 23 */
			static char nolink[1];
			struct pr_stat st = { 0 };

			ffq_drain(s, sc, &f);
			arg_add(s, sc, f.slot[0], ENAMETOOLONG, &st, nolink);
			continue;
		}
		if (!arg_dir_known(a)) {
			ffq_drain(s, sc, &f); /* a now in slot 0 */
			if (arg_enter(s, f.slot[0]) < 0)
				continue;
		}
		if (++f.n == FSC_STAT_BATCH)
			ffq_drain(s, sc, &f);
	}
	ffq_drain(s, sc, &f);
}

void fl_build_args(struct sess *s, struct flist *fl, struct flroots *roots, int inc)
{
	struct scan sc = { .s = s, .fl = fl, .roots = roots, .inc = inc };

	fl_io = &s->io;
	for (size_t i = 0; i < s->nsrc; i++) {
		add_arg(s, &sc, s->src[i]);
		scan_all(&sc);
	}
	/* --files-from=-: each name as it arrives, never the list at once */
	if (s->opt.files_from_socket)
		files_from_all(s, &sc);
	free(sc.stack);
}

void fl_build_dirs(struct sess *s, struct flist *fl, struct flroots *roots,
		   const struct pdir *dirs, size_t n)
{
	struct scan sc = { .s = s, .fl = fl, .roots = roots, .inc = 1 };

	fl_io = &s->io;
	for (size_t i = 0; i < n; i++)
		push_dir(&sc, dirs[i].name, dirs[i].root, dirs[i].dev, dirs[i].depth);
	scan_all(&sc);
	free(sc.stack);
}

void fl_list_free(struct flist *fl)
{
	free(fl->dir_mpath);
	arena_free(fl);
	free(fl->e);
	free(fl->dir.name);
	memset(fl, 0, sizeof(*fl));
}
