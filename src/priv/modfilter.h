/* SPDX-License-Identifier: ISC */
/*
 * Module filters (rsyncd.conf filter, include from, include, exclude from,
 * exclude): checked when the configuration is read, compiled into one flat
 * rule list in rsyncd's order, and enforced by the monitor on every LIST,
 * STAT, OPEN and READLINK (fsreq.c) on the paths it really walks.
 *
 * A walk (struct mf_walk) judges a module path one component at a time,
 * as the path is reached: every enclosing directory as a directory, the
 * last component with its own type, first matching rule wins, exactly as
 * rsyncd's rules mean it (tests/unit/test_modfilter.c checks it against
 * the prefix-by-prefix reference).  Rules without a '/' look at one
 * component; the others carry their matcher state from one component to
 * the next, so judging a path costs O(path length x rules), whatever its
 * depth, instead of re-matching every prefix.
 */
#ifndef PRSYNCD_MODFILTER_H
#define PRSYNCD_MODFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"

/* The directives, in the order rsyncd applies them. */
enum cfg_filt { CFG_F_FILTER, CFG_F_INCLUDE_FROM, CFG_F_INCLUDE, CFG_F_EXCLUDE_FROM,
		CFG_F_EXCLUDE, CFG_F_N };

#define MODFILTER_FILE_MAX (1u << 20)  /* an include/exclude from file */
#define MODFILTER_RULES_MAX 10000

/* A module path has at most 4095 bytes, so at most this many components. */
#define MF_PATH_MAX 4095u
#define MF_DEPTH_MAX (MF_PATH_MAX / 2 + 1)

/* Verdict bits. */
#define MF_DIR    0x1u /* hidden if it is a directory */
#define MF_OTHER  0x2u /* hidden if it is anything else (file, symlink, device) */
#define MF_BOTH   (MF_DIR | MF_OTHER)
#define MF_PREFIX 0x4u /* an enclosing directory is hidden */

struct pr_wild;

/* How one rule meets module paths (filled in when the rule is added). */
struct mf_rule {
	uint8_t mode;          /* MF_M_* in modfilter.c */
	uint8_t where;         /* enum pr_wild_where, for a carried state */
	uint8_t pfx;           /* the text starts with '/' (a "**" prefix) */
	uint8_t sfx;           /* a directory's text ends with '/' ("***" suffix) */
	struct pr_wild *prog;  /* the carried-state program, or a wildcard rule's
				* whole-name one (last component, xattr name); NULL
				* for a plain name.  Compiled to stream: a walk only
				* runs it (wildrun.c), never compiles */
	size_t off, words;     /* where its state lives in a walk, and its size */
};

struct modfilter {
	struct pr_rule *r;
	struct mf_rule *m;
	size_t n;
	size_t words;          /* all carried states together */
	size_t maxw;           /* the largest one */
};

/*
 * Add the rules of one directive's value (for the "from" kinds: the file's
 * contents) to mf; mf NULL only checks.  Merge rules are refused (a module
 * has no per-directory merge files here).  Returns 0, or -1 with err set.
 */
int modfilter_add(struct modfilter *mf, enum cfg_filt kind, const char *text, char *err, size_t errlen);

void modfilter_free(struct modfilter *mf);

/* One-off: is the module path (no leading '/') hidden, with its own type
 * is_dir and every enclosing directory as a directory?  (A walk does this
 * without allocating; see mfw_walk_path.) */
int modfilter_hides(const struct modfilter *mf, const char *path, int is_dir);

/* Is the extended attribute name hidden by the module's xattr rules
 * ('x' modifier; first match wins, as rsyncd judges them)? */
int modfilter_hides_xattr(const struct modfilter *mf, const char *name);

/* A walk over module paths: the path reached so far and, for each rule,
 * its matcher state on it. */
struct mf_walk {
	const struct modfilter *mf;
	uint64_t *st;          /* carried states, mf->words */
	uint64_t *tmp;         /* scratch, 2 x mf->maxw */
	uint64_t *fed_id;      /* per rule: the push its state has reached */
	uint16_t *fed;         /* per rule: how many components its state holds */
	uint8_t *dead;         /* per rule: nothing below can match any more */
	size_t depth, len;
	uint64_t next_id;      /* 64 bits: never wraps, so an id is never reused */
	uint64_t id[MF_DEPTH_MAX + 1];     /* the push that made each component */
	uint16_t start[MF_DEPTH_MAX + 1];  /* where each component starts in path */
	char path[MF_PATH_MAX + 1];
	uint64_t steps;        /* work done, in matcher word steps and rule visits */
};

/* Set up a walk for mf (which must outlive it and not change), at the root.
 * Returns 0, or -1 if memory is short. */
int mfw_init(struct mf_walk *w, const struct modfilter *mf);
void mfw_free(struct mf_walk *w);

/* Back to the module root. */
void mfw_root(struct mf_walk *w);

/* Would `name` (one component, 1..255 bytes) in the current directory be
 * hidden?  want: MF_DIR, MF_OTHER or both; returns those of them that hide. */
unsigned mfw_judge(struct mf_walk *w, const char *name, size_t len, unsigned want);

/* Go down into `name` (judged first by the caller), or back up one level
 * (nothing happens at the root).  mfw_push returns -1 if the path would
 * exceed MF_PATH_MAX bytes. */
int mfw_push(struct mf_walk *w, const char *name, size_t len);
void mfw_pop(struct mf_walk *w);

/* The path reached, "" at the root. */
const char *mfw_path(const struct mf_walk *w);

/*
 * Judge a whole module path from the root (no leading '/', "" the root):
 * MF_PREFIX if an enclosing directory is hidden (the walk stops there),
 * else what mfw_judge says of the last component for `want`.  Leaves the
 * walk in the last component's directory.  A path over MF_PATH_MAX bytes
 * is hidden.
 */
unsigned mfw_walk_path(struct mf_walk *w, const char *path, unsigned want);

#endif
