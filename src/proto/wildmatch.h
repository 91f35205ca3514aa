/* SPDX-License-Identifier: ISC */
/*
 * rsync's wildcard dialect (spec part 2, 3.4), written from the
 * description: '?' and '[...]' match one byte other than '/', '*' a run of
 * non-'/' bytes, '**' (two or more stars) any run, '\x' the byte x.
 *
 * A pattern is compiled once into a program: a literal, prefix or suffix
 * test where the pattern has that shape, otherwise a token automaton
 * simulated bit-parallel (one bit per token, one table row per class of
 * bytes the pattern tells apart).  A match then costs O(text x pattern/64)
 * word operations at worst, never recurses or backtracks, and a program's
 * memory is sized to its pattern: at most 2.4 KiB plus 34 bytes per pattern
 * byte, and a few dozen bytes for a literal, prefix or suffix shape.
 */
#ifndef PRSYNCD_WILDMATCH_H
#define PRSYNCD_WILDMATCH_H

#include <stddef.h>
#include <stdint.h>

/* Longest pattern accepted; longer ones never match. */
#define PR_WILD_PAT_MAX 8192u

enum pr_wild_where {
	PR_WILD_START = 0,     /* the whole text */
	PR_WILD_ANY_SLASH = 1, /* the whole text, or the part after any '/' */
};

/* Compile options. */
#define PR_WILD_RAW    0x1u /* every byte stands for itself (a pattern without wildcards,
			     * which rsync compares as a plain string: '\' included) */
#define PR_WILD_STREAM 0x2u /* build the automaton even for a fast-path shape, so the
			     * program can be fed piece by piece (pr_wild_feed) */

struct pr_wild;

/* Compile the NUL-terminated pattern.  NULL only if memory is short; a
 * pattern that can never match (longer than PR_WILD_PAT_MAX, a malformed
 * class such as "[abc" or "[[:nope:]]", a trailing '\') compiles to a
 * program that never matches. */
struct pr_wild *pr_wild_compile(const char *pat, unsigned opts);
void pr_wild_free(struct pr_wild *w);

/* Does the program match text (len bytes)?  1 or 0. */
int pr_wild_match(const struct pr_wild *w, const char *text, size_t len, enum pr_wild_where where);

/*
 * Incremental matching, for a PR_WILD_STREAM program: the state is
 * pr_wild_words(w) words; begin, feed the text in any number of pieces,
 * and ask whether what was fed so far matches.  Feeding "a" then "b" is
 * feeding "ab".  pr_wild_feed returns 0 once no continuation can match
 * (only possible with PR_WILD_START), else 1.
 */
size_t pr_wild_words(const struct pr_wild *w);
void pr_wild_begin(const struct pr_wild *w, uint64_t *st);
int pr_wild_feed(const struct pr_wild *w, uint64_t *st, const char *text, size_t len,
		 enum pr_wild_where where);
int pr_wild_accepts(const struct pr_wild *w, const uint64_t *st);

/* Does the program match text, run on its automaton alone: the same
 * answer as pr_wild_match, for a program compiled with PR_WILD_STREAM
 * (any other program never matches here).  The one matching function the
 * privileged processes call, in wildrun.c with begin/feed/accepts. */
int pr_wild_run(const struct pr_wild *w, const char *text, size_t len, enum pr_wild_where where);

/* How many '/' bytes any match consumes outside stars: the tokens that
 * can match '/' other than "**" (every one of them is a '/' literal). */
size_t pr_wild_slashes(const struct pr_wild *w);

/* Compile, match and free: for one-off matches.  0 also if memory is short. */
int pr_wildmatch(const char *pat, const char *text, size_t len, enum pr_wild_where where);

/* Work done by all matches so far in this process, in word operations
 * (bytes examined x state words): the tests bound it against the input. */
uint64_t pr_wild_work(void);

#endif
