/* SPDX-License-Identifier: ISC */
/*
 * Compiling wildcard patterns (see wildmatch.h), and the direct tests of
 * the simple shapes; the automaton is run by wildrun.c.
 *
 * Compiling splits the pattern into tokens: a literal byte, '?', a class
 * (a 256-bit set), '*' and '**' (a run of two or more stars).  Patterns
 * made of literals with at most one star at either end get a direct test
 * (pr_wild_match).  Everything else, and every PR_WILD_STREAM pattern,
 * becomes the automaton of wildprog.h: per token, which rows take which
 * bytes; equal byte columns are merged, so a pattern tells apart only a
 * handful of byte classes.
 */
#include <stdlib.h>
#include <string.h>

#include "wildmatch.h"
#include "wildprog.h"

enum tok { T_LIT, T_ANY, T_CLASS, T_STAR, T_DSTAR };


/* --- classes ------------------------------------------------------------ */

static int in_range(int c, int lo, int hi) { return c >= lo && c <= hi; }

/* The ASCII-only named classes of [[:name:]]; -1 for an unknown name. */
static int named_class(const char *name, size_t len)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
					     "lower", "print", "punct", "space", "upper", "xdigit" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return (int)i;
	return -1;
}

static int named_has(int idx, int c)
{
	int upper = in_range(c, 'A', 'Z'), lower = in_range(c, 'a', 'z'), digit = in_range(c, '0', '9');
	int graph = in_range(c, 0x21, 0x7e);
	int r[] = { upper || lower || digit, upper || lower, c == ' ' || c == '\t',
		    c < 0x20 || c == 0x7f, digit, graph, lower, graph || c == ' ',
		    graph && !(upper || lower || digit), c == ' ' || in_range(c, '\t', '\r'), upper,
		    digit || in_range(c, 'a', 'f') || in_range(c, 'A', 'F') };

	return r[idx];
}

static void set_add(uint8_t *set, int c) { set[c / 8] |= (uint8_t)(1u << (c % 8)); }
static int set_has(const uint8_t *set, int c) { return (set[c / 8] >> (c % 8)) & 1; }

/*
 * Parse the class starting at p[i] == '[' into set (32 bytes: the bytes it
 * takes, '/' never among them).  Sets *end to the offset after its ']', or
 * returns -1 if the class is malformed.  As in rsync: '!' or '^' first
 * negates; the first member may be ']'; "a-z" ranges over byte values;
 * '\' escapes; "[:" without a closing ":]" is a literal '['.
 */
static int parse_class(const char *p, size_t i, uint8_t *set, size_t *end)
{
	int negate = 0, prev = 0;
	size_t k = i + 1;

	memset(set, 0, 32);
	if (p[k] == '!' || p[k] == '^') {
		negate = 1;
		k++;
	}
	for (int first = 1;; first = 0) {
		int ch = (unsigned char)p[k];

		if (!first && ch == ']')
			break;
		if (ch == '\0')
			return -1;
		if (ch == '\\') {
			ch = (unsigned char)p[++k];
			if (ch == '\0')
				return -1;
			set_add(set, ch);
		} else if (ch == '-' && prev && p[k + 1] && p[k + 1] != ']') {
			int hi = (unsigned char)p[++k];
			if (hi == '\\' && (hi = (unsigned char)p[++k]) == '\0')
				return -1;
			for (int c = prev; c <= hi; c++)
				set_add(set, c);
			ch = 0;
		} else if (ch == '[' && p[k + 1] == ':') {
			size_t s = k + 2, e = s;
			while (p[e] && p[e] != ']')
				e++;
			if (!p[e])
				return -1;
			if (e == s || p[e - 1] != ':') {
				set_add(set, '['); /* not a named class: a plain '[' */
			} else {
				int idx = named_class(p + s, e - s - 1);
				if (idx < 0)
					return -1;
				for (int c = 0; c < 256; c++)
					if (named_has(idx, c))
						set_add(set, c);
				k = e;
				ch = 0;
			}
		} else {
			set_add(set, ch);
		}
		prev = ch;
		k++;
	}
	*end = k + 1;
	for (int b = 0; negate && b < 32; b++)
		set[b] = (uint8_t)~set[b];
	set[(unsigned char)'/' / 8] &= (uint8_t)~(1u << ('/' % 8));
	return 0;
}

/* --- tokens --------------------------------------------------------------- */

struct toks {
	uint8_t *type, *byte; /* per token; byte: the literal, or the class number */
	uint8_t (*cls)[32];   /* class sets */
	uint32_t *cidx;       /* per token: its class */
	size_t n, ncls;
};

/* Split p (plen bytes) into tokens; -1 if it can never match. */
static int tokenize(const char *p, size_t plen, unsigned opts, struct toks *t)
{
	t->n = t->ncls = 0;
	for (size_t i = 0; i < plen;) {
		size_t k = t->n++, end;

		if (opts & PR_WILD_RAW) {
			t->type[k] = T_LIT;
			t->byte[k] = (uint8_t)p[i++];
		} else if (p[i] == '*') {
			size_t run = 0;
			while (p[i + run] == '*')
				run++;
			t->type[k] = run > 1 ? T_DSTAR : T_STAR;
			i += run;
		} else if (p[i] == '\\') {
			if (p[i + 1] == '\0')
				return -1; /* a trailing '\' takes no byte */
			t->type[k] = T_LIT;
			t->byte[k] = (uint8_t)p[i + 1];
			i += 2;
		} else if (p[i] == '?') {
			t->type[k] = T_ANY;
			i++;
		} else if (p[i] == '[') {
			if (parse_class(p, i, t->cls[t->ncls], &end) < 0)
				return -1; /* rsync aborts the whole match on a malformed class */
			t->type[k] = T_CLASS;
			t->cidx[k] = (uint32_t)t->ncls++;
			i = end;
		} else {
			t->type[k] = T_LIT;
			t->byte[k] = (uint8_t)p[i++];
		}
	}
	return 0;
}

/* The fast-path shape of the tokens, or K_NFA. */
static enum pr_wild_kind shape(const struct toks *t, size_t *from, size_t *to)
{
	size_t lits = 0, n = t->n;

	for (size_t k = 0; k < n; k++)
		lits += t->type[k] == T_LIT;
	*from = 0;
	*to = n;
	if (lits == n)
		return K_LIT;
	if (lits + 1 != n)
		return K_NFA;
	if (t->type[n - 1] == T_STAR || t->type[n - 1] == T_DSTAR) {
		*to = n - 1;
		return t->type[n - 1] == T_STAR ? K_PRE1 : K_PRE2;
	}
	if (t->type[0] == T_STAR || t->type[0] == T_DSTAR) {
		*from = 1;
		return t->type[0] == T_STAR ? K_SUF1 : K_SUF2;
	}
	return K_NFA;
}

/* --- the automaton ---------------------------------------------------------- */

static void bit_set(uint64_t *v, size_t i) { v[i / 64] |= (uint64_t)1 << (i % 64); }

static uint64_t col_hash(const uint64_t *c, size_t words)
{
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < words; i++)
		h = (h ^ c[i]) * 0x100000001b3u;
	return h ^ (h >> 29);
}

/* Build map and tab for the tokens.  -1 if memory is short. */
static int build_nfa(struct pr_wild *w, const struct toks *t)
{
	size_t words = t->n / 64 + 1, ncol = 0;
	/* One column per byte, then the distinct ones; on the stack for the
	 * usual one-word automaton (rules are compiled by the thousand). */
	uint64_t small_cols[256], small_uniq[256];
	uint64_t *cols = small_cols, *uniq = small_uniq;
	uint8_t map[256];
	int16_t slot[512];
	uint8_t *blk;
	int rc = -1;

	if (words > 1) {
		cols = calloc(256 * words, sizeof(uint64_t));
		uniq = malloc(256 * words * sizeof(uint64_t));
		if (cols == NULL || uniq == NULL)
			goto out;
	} else {
		memset(small_cols, 0, sizeof(small_cols));
	}
	w->ntok = t->n;
	w->words = words;
	for (size_t k = 0; k < t->n; k++) {
		if (t->type[k] == T_LIT)
			bit_set(cols + t->byte[k] * words, k);
		else if (t->type[k] == T_CLASS)
			for (int c = 0; c < 256; c++)
				if (set_has(t->cls[t->cidx[k]], c))
					bit_set(cols + (size_t)c * words, k);
	}
	/* Merge equal columns: usually a handful of byte classes remain. */
	memset(slot, -1, sizeof(slot));
	for (int c = 0; c < 256; c++) {
		const uint64_t *col = cols + (size_t)c * words;
		size_t h = col_hash(col, words) % 512;

		while (slot[h] >= 0 && memcmp(uniq + (size_t)slot[h] * words, col, words * sizeof(uint64_t)) != 0)
			h = (h + 1) % 512;
		if (slot[h] < 0) {
			slot[h] = (int16_t)ncol;
			memcpy(uniq + ncol * words, col, words * sizeof(uint64_t));
			ncol++;
		}
		map[c] = (uint8_t)slot[h];
	}
	blk = malloc(256 + (R_N + ncol + 1) * words * sizeof(uint64_t));
	if (blk == NULL)
		goto out;
	w->map = blk;
	w->tab = (uint64_t *)(void *)(blk + 256);
	memcpy(w->map, map, 256);
	memset(w->tab, 0, R_N * words * sizeof(uint64_t));
	memcpy(w->tab + R_N * words, uniq, ncol * words * sizeof(uint64_t));
	w->scratch = w->tab + (R_N + ncol) * words;
	rc = 0;
out:
	if (cols != small_cols)
		free(cols);
	if (uniq != small_uniq)
		free(uniq);
	if (rc < 0)
		return -1;
	for (size_t k = 0; k < t->n; k++) {
		if (t->type[k] == T_STAR || t->type[k] == T_DSTAR) {
			bit_set(w->tab + R_STAR * words, k);
			bit_set(w->tab + R_ANYNS * words, k);
			if (t->type[k] == T_DSTAR)
				bit_set(w->tab + R_DSTAR * words, k);
		} else if (t->type[k] == T_ANY) {
			bit_set(w->tab + R_ANYNS * words, k);
		}
		w->slashes += t->type[k] == T_LIT && t->byte[k] == '/';
	}
	bit_set(w->tab + R_START * words, 0);
	if (t->n > 0 && (t->type[0] == T_STAR || t->type[0] == T_DSTAR))
		bit_set(w->tab + R_START * words, 1);
	return 0;
}

size_t pr_wild_slashes(const struct pr_wild *w) { return w->slashes; }

/* --- fast paths ------------------------------------------------------------ */

static int has_slash(const char *s, size_t n) { return memchr(s, '/', n) != NULL; }

/* Does the literal start text[s..len)?  Stops at the first difference. */
static int starts_at(const struct pr_wild *w, const char *text, size_t len, size_t s)
{
	if (len - s < w->lit_len)
		return 0;
	for (size_t i = 0; i < w->lit_len; i++)
		if (text[s + i] != w->lit[i])
			return 0;
	return 1;
}

static int ends(const struct pr_wild *w, const char *text, size_t len)
{
	return len >= w->lit_len && memcmp(text + len - w->lit_len, w->lit, w->lit_len) == 0;
}

/* A fast shape matched from the text's start. */
static int fast_start(const struct pr_wild *w, const char *text, size_t len)
{
	size_t l = w->lit_len;

	switch (w->kind) {
	case K_LIT: return len == l && memcmp(text, w->lit, l) == 0;
	case K_PRE1: return starts_at(w, text, len, 0) && !has_slash(text + l, len - l);
	case K_PRE2: return starts_at(w, text, len, 0);
	case K_SUF1: return ends(w, text, len) && !has_slash(text, len - l);
	case K_SUF2: return ends(w, text, len);
	default: return 0;
	}
}

/*
 * A fast shape matched at the start or after any '/'; -1 where that needs
 * the automaton (a prefix shape whose literal has a '/').
 *   literal: the one suffix of its length, at the start or after a '/';
 *   "*x": any suffix x (the star takes what follows the last '/' before it);
 *   "**x": as from the start ("**" takes any start);
 *   "x*" (x without '/'): the part after the last '/' must match;
 *   "x**" (x without '/'): some component starts with x.
 */
static int fast_any_slash(const struct pr_wild *w, const char *text, size_t len)
{
	size_t l = w->lit_len;
	const char *last;

	switch (w->kind) {
	case K_LIT: return ends(w, text, len) && (len == l || text[len - l - 1] == '/');
	case K_SUF1: return ends(w, text, len);
	case K_SUF2: return ends(w, text, len);
	case K_PRE1:
		if (w->lit_slash)
			return -1;
		last = memrchr(text, '/', len);
		return last ? fast_start(w, last + 1, len - (size_t)(last + 1 - text)) : fast_start(w, text, len);
	case K_PRE2:
		if (w->lit_slash)
			return -1;
		/* lit has no '/': each comparison ends at the next '/', so the
		 * scan reads every byte at most twice */
		for (size_t s = 0; s <= len; s++)
			if ((s == 0 || text[s - 1] == '/') && starts_at(w, text, len, s))
				return 1;
		return 0;
	default: return 0;
	}
}

int pr_wild_match(const struct pr_wild *w, const char *text, size_t len, enum pr_wild_where where)
{
	int r;

	if (w->kind == K_NEVER)
		return 0;
	if (w->kind != K_NFA) {
		pr_wild_work_done += len + w->lit_len;
		r = where == PR_WILD_START ? fast_start(w, text, len) : fast_any_slash(w, text, len);
		if (r >= 0)
			return r;
	}
	if (w->ntok > 0 && len > 0) {
		/* A final token that is not a star takes exactly the text's last
		 * byte: one table lookup rejects most names at once. */
		size_t k = w->ntok - 1, words = w->words;
		int c = (unsigned char)text[len - 1];
		const uint64_t *row = w->tab + (c == '/' ? R_DSTAR : R_ANYNS) * words;
		const uint64_t *col = w->tab + (R_N + w->map[c]) * words;
		uint64_t bit = (uint64_t)1 << (k % 64);

		if (!(w->tab[R_STAR * words + k / 64] & bit) && !((row[k / 64] | col[k / 64]) & bit))
			return 0;
	}
	return pr_wild_run(w, text, len, where);
}

/* --- compiling ------------------------------------------------------------- */

struct pr_wild *pr_wild_compile(const char *pat, unsigned opts)
{
	size_t plen = strnlen(pat, PR_WILD_PAT_MAX + 1), from, to;
	struct toks t = { 0 };
	struct pr_wild *w = NULL;
	enum pr_wild_kind k = K_NEVER;
	int ok;

	if (plen > PR_WILD_PAT_MAX)
		return calloc(1, sizeof(*w)); /* never matches */
	t.type = malloc(plen + 1);
	t.byte = malloc(plen + 1);
	t.cidx = malloc((plen + 1) * sizeof(*t.cidx));
	t.cls = malloc((plen / 2 + 1) * sizeof(*t.cls)); /* a class takes at least 3 bytes */
	if (t.type == NULL || t.byte == NULL || t.cidx == NULL || t.cls == NULL)
		goto out;
	ok = tokenize(pat, plen, opts, &t) == 0;
	if (ok)
		k = shape(&t, &from, &to);
	else
		from = to = 0;
	w = calloc(1, sizeof(*w) + (k == K_NFA ? 0 : to - from) + 1);
	if (w == NULL)
		goto out;
	w->kind = (uint8_t)k;
	if (ok && k != K_NFA) {
		for (size_t i = from; i < to; i++)
			w->lit[w->lit_len++] = (char)t.byte[i];
		w->lit_slash = has_slash(w->lit, w->lit_len);
	}
	if (ok && (k == K_NFA || (opts & PR_WILD_STREAM) || ((k == K_PRE1 || k == K_PRE2) && w->lit_slash)) &&
	    build_nfa(w, &t) < 0) {
		free(w);
		w = NULL;
	}
out:
	free(t.type);
	free(t.byte);
	free(t.cidx);
	free(t.cls);
	return w;
}

void pr_wild_free(struct pr_wild *w)
{
	if (w != NULL)
		free(w->map);
	free(w);
}

int pr_wildmatch(const char *pat, const char *text, size_t len, enum pr_wild_where where)
{
	struct pr_wild *w = pr_wild_compile(pat, 0);
	int r = w != NULL && pr_wild_match(w, text, len, where);

	pr_wild_free(w);
	return r;
}
