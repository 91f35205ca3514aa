/* SPDX-License-Identifier: ISC */
/*
 * Running a compiled wildcard program over a text (wildmatch.h): all that
 * the privileged processes execute of the matcher once a client or a
 * worker supplies the text, since they compile their patterns from the
 * configuration beforehand (with PR_WILD_STREAM, so every program has its
 * automaton).  The work is one table row per byte and a few word
 * operations per 64 pattern tokens: O(text x pattern/64), no recursion,
 * no backtracking, no allocation (the state row is the compiler's).
 *
 * A step: the states whose token takes the byte (its class row, or '/'
 * for "**" and any other byte for '?', '*', "**") advance one token,
 * except that a star token stays (it may take more); then every state on
 * a star also stands after it (the star taking nothing).  Two stars are
 * never adjacent (a run of stars is one token), so that is one shift.
 */
#include <string.h>

#include "wildmatch.h"
#include "wildprog.h"

uint64_t pr_wild_work_done;

uint64_t pr_wild_work(void) { return pr_wild_work_done; }

/* One byte for a one-word automaton. */
static uint64_t step1(const struct pr_wild *w, uint64_t s, int c)
{
	const uint64_t *tab = w->tab;
	uint64_t star = tab[R_STAR];
	uint64_t x = s & (tab[R_N + w->map[c]] | (c == '/' ? tab[R_DSTAR] : tab[R_ANYNS]));
	uint64_t n = ((x & ~star) << 1) | (x & star);

	return n | ((n & star) << 1);
}

/* One byte for a wider automaton, s updated in place: the same with the
 * shifts carried from word to word. */
static void stepw(const struct pr_wild *w, uint64_t *s, int c)
{
	size_t words = w->words;
	const uint64_t *star = w->tab + R_STAR * words;
	const uint64_t *acc = w->tab + (c == '/' ? R_DSTAR : R_ANYNS) * words;
	const uint64_t *col = w->tab + (R_N + w->map[c]) * words;
	uint64_t carry = 0, carry2 = 0;

	for (size_t i = 0; i < words; i++) {
		uint64_t x = s[i] & (col[i] | acc[i]);
		uint64_t mv = x & ~star[i];
		uint64_t n = (mv << 1) | carry | (x & star[i]);
		uint64_t cl;

		carry = mv >> 63;
		cl = n & star[i];
		n |= (cl << 1) | carry2;
		carry2 = cl >> 63;
		s[i] = n;
	}
}

static int any_bit(const uint64_t *s, size_t words)
{
	for (size_t i = 0; i < words; i++)
		if (s[i])
			return 1;
	return 0;
}

size_t pr_wild_words(const struct pr_wild *w) { return w->tab ? w->words : 1; }

void pr_wild_begin(const struct pr_wild *w, uint64_t *st)
{
	if (w->tab == NULL)
		st[0] = 0;
	else
		memcpy(st, w->tab + R_START * w->words, w->words * sizeof(uint64_t));
}

int pr_wild_feed(const struct pr_wild *w, uint64_t *st, const char *text, size_t len,
		 enum pr_wild_where where)
{
	size_t words = w->words;

	if (w->tab == NULL)
		return 0;
	pr_wild_work_done += len * words;
	for (size_t t = 0; t < len; t++) {
		int c = (unsigned char)text[t];

		if (words == 1)
			st[0] = step1(w, st[0], c);
		else
			stepw(w, st, c);
		if (where == PR_WILD_ANY_SLASH && c == '/')
			for (size_t i = 0; i < words; i++)
				st[i] |= w->tab[R_START * words + i];
		else if (where == PR_WILD_START && !any_bit(st, words))
			return 0; /* nothing can revive a dead match */
	}
	return where == PR_WILD_ANY_SLASH || any_bit(st, words);
}

int pr_wild_accepts(const struct pr_wild *w, const uint64_t *st)
{
	return w->tab != NULL && ((st[w->ntok / 64] >> (w->ntok % 64)) & 1);
}

int pr_wild_run(const struct pr_wild *w, const char *text, size_t len, enum pr_wild_where where)
{
	/* A wide automaton's states live in the row the compiler set aside:
	 * no allocation here, so no failure that would read as "no match"
	 * (an exclude or a deny that did not apply). */
	uint64_t *st = w->scratch;

	if (w->tab == NULL)
		return 0;
	pr_wild_begin(w, st);
	return pr_wild_feed(w, st, text, len, where) && pr_wild_accepts(w, st);
}
