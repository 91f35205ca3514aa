/* SPDX-License-Identifier: ISC */
/*
 * The client's filter rules on the sending side (spec part 2, section 3):
 * the received list, -C, and per-directory merge files.  Module filters
 * are not here: the monitor enforces them, and a module-hidden name simply
 * does not exist for the worker (LIST omits it, STAT/OPEN/READLINK say
 * ENOENT), which is what rsyncd's sender shows a client too.
 *
 * Contract for the file-list builder (flist.c):
 *
 *   filt_enter_dir(s, dir, depth)
 *     Call once before listing each directory whose entries will be
 *     checked.  dir: the directory's module path ("" = module root, no
 *     leading or trailing '/').  depth: 0 for the top directory of a
 *     source argument (the argument itself, or "." for "dir/"), parent's
 *     depth + 1 below it.  Per-directory merge files of depth >= depth are
 *     dropped, then this directory's are read (via the monitor).  Any
 *     depth-first order works: a directory is entered after its parent and
 *     before any of its own subdirectories' entries are checked, and a
 *     later entry at depth d replaces everything at depths >= d.
 *
 *   filt_skip(s, name, root, is_dir, level)
 *     Whether to leave an entry out of the list.  name: the entry's name
 *     relative to the transfer root, as sent to the client ("sub/x", or
 *     "a/b/c" with -R).  root: the transfer root's module path
 *     (fl->roots[f->root]).  is_dir: S_ISDIR of the entry as it will be
 *     sent (after any -L/-k replacement).  level: FILT_ALL for directory
 *     entries and top-level arguments other than dot-dirs ("dir/", ".");
 *     FILT_SERVER for -R implied directories (stock checks only the
 *     module's rules there, which the monitor already applied, so this
 *     never skips).  Dot-dir arguments are not checked at all.
 *     An excluded directory is not listed and not descended.
 */
#ifndef PRSYNCD_FILTERS_H
#define PRSYNCD_FILTERS_H

#include "sess.h"

enum filt_level { FILT_SERVER = 1, FILT_ALL = 2 };

/* Add the filter arguments of the command line (s->opt.filters), reading
 * the files they name; 0, or -1 with the text of rsyncd's refusal in err
 * (a rejected --exclude-from/--include-from).  Any other failure ends the
 * session as rsyncd's ends it: logged, the connection closed. */
int filters_from_args(struct sess *s, char *err, size_t errlen);
/* Read and parse the client's filter list (and add the -C rules). */
void filters_recv(struct sess *s);

void filt_enter_dir(struct sess *s, const char *dir, int depth);
/* Rule-list entries visited so far by filt_skip (the tests bound it). */
uint64_t filt_checks(void);
int filt_skip(struct sess *s, const char *name, const char *root, int is_dir, enum filt_level level);

/* The client's xattr rules ('x'): are there any, and is an attribute name
 * left out by them? */
int filt_has_xattr_rules(void);
int filt_xattr_skip(const char *name);
/* --files-from=-: the next name of the client's list, read as the list
 * streams in (nothing else is read from the client meanwhile).  Returns
 * 1 with the name in name (cap bytes), 2 with its first cap - 1 bytes if
 * it is longer, 0 once the list has ended. */
int files_from_next(struct sess *s, char *name, size_t cap);

#endif
