/* SPDX-License-Identifier: ISC */
/*
 * Between the parts of the file-list code: flist.c builds and sorts one
 * list, flenc.c encodes entries for the wire, xattr.c their ACLs and
 * xattrs, flset.c keeps the lists of a session (incremental recursion).
 * Not for other files.
 */
#ifndef PRSYNCD_FLIST_INT_H
#define PRSYNCD_FLIST_INT_H

#include <sys/stat.h>

#include "flist.h"

static inline int fe_is_dir(const struct fentry *f) { return S_ISDIR(f->st.mode); }
static inline uint64_t fe_dev(const struct fentry *f) { return f->x ? f->x->dev : 0; }
static inline uint64_t fe_rdev(const struct fentry *f) { return f->x ? f->x->rdev : 0; }
static inline uint32_t fe_nlink(const struct fentry *f) { return f->x ? f->x->nlink : 1; }
static inline int64_t fe_atime(const struct fentry *f) { return f->x ? f->x->atime : 0; }
static inline uint8_t fe_dir_role(const struct fentry *f) { return f->x ? f->x->dir_role : 0; }
static inline uint16_t fe_depth(const struct fentry *f) { return f->x ? f->x->depth : 0; }
static inline const char *fe_link(const struct fentry *f) { return f->x ? f->x->link : NULL; }

/* Allocation that ends the session when memory runs out. */
void *fl_xrealloc(void *p, size_t n);
char *fl_xstrdup(const char *s);

/* flist.c: the first list's entries from the source arguments (inc: only
 * "." arguments are scanned), or the contents of directories (one list). */
void fl_build_args(struct sess *s, struct flist *fl, struct flroots *roots, int inc);
void fl_build_dirs(struct sess *s, struct flist *fl, struct flroots *roots,
		   const struct pdir *dirs, size_t n);
/* Sort with the client's comparison and drop duplicates; a dropped
 * duplicate directory of another root goes to dropped_dir (or nowhere). */
void fl_sort_dedupe(struct sess *s, struct flist *fl,
		    void (*dropped_dir)(void *ctx, const struct fentry *f), void *ctx);
void fl_file_sums(struct sess *s, struct flist *fl);
struct fentry *fl_copy_entry(struct flist *fl, const struct fentry *src);
void fl_list_free(struct flist *fl);

/* flenc.c */
struct flenc *flenc_new(void);
void flenc_free(struct flenc *enc);
void flenc_entry(struct sess *s, const struct flist *fl, size_t idx, struct flenc *enc);
void flenc_end(struct sess *s, int err);
void flenc_id_list(struct sess *s, const struct flist *fl, int kind);
/* The name to send inline with an id the first time it is met
 * (incremental recursion), shared by entries and ACLs; else NULL. */
const char *flenc_new_id_name(struct sess *s, struct flenc *enc, int kind, uint32_t id);

#endif
