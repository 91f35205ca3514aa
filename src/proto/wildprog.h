/* SPDX-License-Identifier: ISC */
/*
 * The compiled form of a wildcard pattern, shared by the compiler
 * (wildmatch.c, trusted input in the privileged processes: configuration)
 * and the runner (wildrun.c, which takes the text to match).  Not for
 * other files: they see struct pr_wild as opaque (wildmatch.h).
 */
#ifndef PRSYNCD_WILDPROG_H
#define PRSYNCD_WILDPROG_H

#include <stddef.h>
#include <stdint.h>

enum pr_wild_kind { K_NEVER, K_LIT, K_PRE1, K_PRE2, K_SUF1, K_SUF2, K_NFA };

/*
 * The automaton: state i means "tokens before i matched", state ntok
 * accepts.  Rows of tab, `words` words each: the star tokens, the "**"
 * tokens, the tokens taking any byte but '/', the start states; then one
 * row per class of bytes the pattern tells apart (map: byte -> class),
 * the tokens taking a byte of that class.
 */
enum { R_STAR, R_DSTAR, R_ANYNS, R_START, R_N };

struct pr_wild {
	uint8_t kind;      /* enum pr_wild_kind */
	uint8_t lit_slash; /* the fast-path literal contains '/' */
	size_t lit_len;
	size_t ntok, words, slashes;
	uint8_t *map;      /* byte -> class row; NULL without an automaton */
	uint64_t *tab;     /* R_N rows, then the class rows */
	uint64_t *scratch; /* one row after them: pr_wild_run's states (one thread) */
	char lit[];        /* the literal part of a fast-path shape */
};

/* Word operations done by all matches so far (pr_wild_work()). */
extern uint64_t pr_wild_work_done;

#endif
