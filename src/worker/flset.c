/* SPDX-License-Identifier: ISC */
/*
 * The file lists of a session (spec part 2, section 6).  Without
 * incremental recursion there is one list, kept to the end.  With it, the
 * first list holds the top level; every other directory waits on a stack
 * and gets its own list, listed only when its turn comes, in depth-first
 * pre-order with children sorted.  Each NDX_DONE from the client retires
 * the oldest list, so the worker holds the frontier of the walk and the
 * lists the client still has: memory follows the width of the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flist_int.h"
#include "mon.h"

static void add_also(void *ctx, const struct fentry *f);

#define LIST_IDLE_MAX 2000    /* entries held before idle sending pauses */

struct flset *flset_new(struct sess *s)
{
	struct flset *set = calloc(1, sizeof(*set));

	if (set == NULL)
		mon_exit(RERR_MALLOC);
	set->enc = flenc_new();
	set->s = s;
	return set;
}

void flset_free(struct flset *set)
{
	for (size_t i = 0; i < set->nheld; i++) {
		fl_list_free(set->held[i]);
		free(set->held[i]);
	}
	for (size_t i = 0; i < set->npending; i++)
		free(set->pending[i].name);
	fl_list_free(&set->extras);
	for (size_t i = 0; i < set->nalso; i++)
		free(set->also[i].name);
	free(set->also);
	for (size_t i = 0; i < set->roots.n; i++)
		free(set->roots.v[i]);
	free(set->roots.v);
	free(set->roots.slash);
	free(set->held);
	free(set->pending);
	flenc_free(set->enc);
	free(set);
}

static struct flist *list_new(struct flset *set)
{
	struct flist *fl = calloc(1, sizeof(*fl));

	if (fl == NULL)
		mon_exit(RERR_MALLOC);
	fl->roots = &set->roots;
	fl->keep_ino = set->s->protocol < 28 && set->s->opt.hard_links;
	fl->keep_atime = set->s->opt.atimes;
	return fl;
}

/* Sort, sum, send; the list joins the held ones. */
static void list_finish_and_send(struct flset *set, struct flist *fl, int err)
{
	struct sess *s = set->s;

	fl_sort_dedupe(s, fl, s->inc_recurse ? add_also : NULL, set);
	if (s->opt.always_checksum)
		fl_file_sums(s, fl);
	fl->ndx_start = set->next_ndx;
	for (size_t i = 0; i < fl->n; i++) {
		flenc_entry(s, fl, i, set->enc);
		if (s->opt.acls || s->opt.xattrs) {
			static const struct xa_ref none;
			xa_send(s, set->enc, fl->e[i].st.mode, fl->e[i].x ? &fl->e[i].x->xa : &none);
		}
		if (S_ISREG(fl->e[i].st.mode) || S_ISLNK(fl->e[i].st.mode))
			s->total_size += (int64_t)fl->e[i].st.size;
	}
	flenc_end(s, err);
	set->next_ndx += (int32_t)fl->n + 1;
	if (set->nheld == set->held_cap) {
		set->held_cap = set->held_cap ? set->held_cap * 2 : 16;
		set->held = fl_xrealloc(set->held, set->held_cap * sizeof(*set->held));
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

		if (!fe_is_dir(f))
			continue;
		dn = set->ndirs++;
		if (strcmp(f->name, ".") == 0)
			continue;
		if (set->npending == set->pending_cap) {
			set->pending_cap = set->pending_cap ? set->pending_cap * 2 : 64;
			set->pending = fl_xrealloc(set->pending, set->pending_cap * sizeof(*set->pending));
		}
		set->pending[set->npending++] = (struct pdir){
			fl_xstrdup(f->name), fe_root(f), fe_dir_role(f), fe_depth(f), fe_dev(f), dn, f->st,
			f->x ? f->x->xa : (struct xa_ref){ 0, 0, 0 }
		};
	}
	for (size_t i = first, j = set->npending; i + 1 < j; i++, j--) {
		struct pdir t = set->pending[i];
		set->pending[i] = set->pending[j - 1];
		set->pending[j - 1] = t;
	}
}

static void add_also(void *ctx, const struct fentry *f)
{
	struct flset *set = ctx;

	if (fe_dir_role(f) != DIR_CONTENT_TOP && fe_dir_role(f) != DIR_CONTENT)
		return;
	if (set->nalso == set->also_cap) {
		set->also_cap = set->also_cap ? set->also_cap * 2 : 8;
		set->also = fl_xrealloc(set->also, set->also_cap * sizeof(*set->also));
	}
	set->also[set->nalso++] = (struct pdir){ fl_xstrdup(f->name), fe_root(f), fe_dir_role(f), fe_depth(f), fe_dev(f), -1,
						 f->st, f->x ? f->x->xa : (struct xa_ref){ 0, 0, 0 } };
}

static int cmp_extra(const void *x, const void *y)
{
	const struct fentry *a = x, *b = y;

	if (fe_root(a) != fe_root(b))
		return fe_root(a) < fe_root(b) ? -1 : 1;
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
		int c = fe_root(f) != d->root ? (fe_root(f) < d->root ? -1 : 1) : strncmp(f->name, d->name, dlen);

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

		if (fe_root(f) != d->root || strncmp(f->name, d->name, dlen) != 0 || f->name[dlen] != '/')
			break;
		if (strchr(f->name + dlen + 1, '/') != NULL || f->st.mode == 0)
			continue;
		n = fl_copy_entry(fl, f);
		n->st.sent = 0;
		f->st.mode = 0; /* taken */
	}
}

size_t flset_send_first(struct flset *set)
{
	struct sess *s = set->s;
	struct flist *fl = list_new(set);
	int64_t t0 = conn_now_ms(), t1;
	size_t w = 0;

	fl_build_args(s, fl, &set->roots, s->inc_recurse);
	if (s->inc_recurse) {
		/* -R names below the top level wait for their parent's list */
		for (size_t i = 0; i < fl->n; i++) {
			if (strchr(fl->e[i].name, '/') == NULL) {
				fl->e[w++] = fl->e[i];
				continue;
			}
			(void)fl_copy_entry(&set->extras, &fl->e[i]);
		}
		fl->n = w;
		if (set->extras.n > 1)
			qsort(set->extras.e, set->extras.n, sizeof(*set->extras.e), cmp_extra);
		set->next_ndx = 1;
	}
	t1 = conn_now_ms();
	list_finish_and_send(set, fl, s->io_error);
	set->last_io_error = s->io_error;
	if (!s->inc_recurse && !s->opt.numeric_ids) {
		if (s->opt.owner || s->opt.acls)
			flenc_id_list(s, fl, PR_ID_USER);
		if (s->opt.group || s->opt.acls)
			flenc_id_list(s, fl, PR_ID_GROUP);
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
	s->flist_xfertime_ms = conn_now_ms() - t1;
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
		struct pdir *dirs = fl_xrealloc(NULL, (1 + set->nalso) * sizeof(*dirs));
		size_t nd = 0;

		dirs[nd++] = d;
		/* the same directory name under other roots, if any */
		for (size_t i = 0; i < set->nalso;) {
			if (strcmp(set->also[i].name, d.name) != 0) {
				i++;
				continue;
			}
			dirs[nd++] = set->also[i];
			set->also[i] = set->also[--set->nalso];
		}
		fl_build_dirs(s, fl, &set->roots, dirs, nd);
		for (size_t i = 1; i < nd; i++)
			free(dirs[i].name);
		free(dirs);
	}
	take_extras(set, &d, fl);
	if (s->opt.xattrs) {
		char mpath[PR_RELPATH_MAX];

		fl->dir_xa = d.xa;
		if (d.root < set->roots.n &&
		    snprintf(mpath, sizeof(mpath), "%s%s%s", set->roots.v[d.root], set->roots.v[d.root][0] ? "/" : "",
			     d.name) < (int)sizeof(mpath))
			fl->dir_mpath = fl_xstrdup(mpath);
	}
	io_write_ndx(&s->io, NDX_FLIST_OFFSET - d.dir_ndx);
	/* a sub-list reports io_error only when it changed since the last */
	err = s->io_error != set->last_io_error ? s->io_error : 0;
	set->last_io_error = s->io_error;
	list_finish_and_send(set, fl, err);
	queue_dirs(set, fl);
	fl->dir = (struct fentry){ .name = d.name, .st = d.st }; /* the list frees it */
	fl->dir.st.root = (uint16_t)(d.root < FE_ROOT_EXT ? d.root : FE_ROOT_EXT);
	if (d.root >= FE_ROOT_EXT) {
		fl->dir_x = (struct fext){ .root = d.root, .nlink = 1 };
		fl->dir.x = &fl->dir_x;
	}
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

const struct fentry *flset_list_dir(const struct flist *fl)
{
	if (fl->dir.name != NULL)
		return &fl->dir;
	return fl->ndx_start == 1 && fl->n > 0 && strcmp(fl->e[0].name, ".") == 0 ? &fl->e[0] : NULL;
}

void flset_retire(struct flset *set)
{
	if (set->nheld == 0)
		return;
	set->held_entries -= set->held[0]->n;
	fl_list_free(set->held[0]);
	free(set->held[0]);
	memmove(set->held, set->held + 1, (set->nheld - 1) * sizeof(*set->held));
	set->nheld--;
}
