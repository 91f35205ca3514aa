/*
 * rsync's wildcard dialect (spec part 2, 3.4), written from the
 * description: '?' and '[...]' match one byte other than '/', '*' a run of
 * non-'/' bytes, '**' (two or more stars) any run, '\x' the byte x.
 *
 * The matcher simulates the pattern as a set of states over the text, so
 * time is bounded by pattern length x text length and nothing recurses;
 * no input can make it backtrack exponentially or exhaust the stack.
 */
#ifndef PRSYNCD_WILDMATCH_H
#define PRSYNCD_WILDMATCH_H

#include <stddef.h>

/* Longest pattern accepted; longer ones never match. */
#define PR_WILD_PAT_MAX 8192u

enum pr_wild_where {
	PR_WILD_START = 0,     /* the whole text */
	PR_WILD_ANY_SLASH = 1, /* the whole text, or the part after any '/' */
};

/* Does pat match text (len bytes, no NUL inside)?  1 or 0.  A pattern
 * with a malformed class ("[abc", "[[:nope:]]") never matches. */
int pr_wildmatch(const char *pat, const char *text, size_t len, enum pr_wild_where where);

#endif
