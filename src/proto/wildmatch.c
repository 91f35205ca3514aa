/*
 * Wildcard matching as a state-set simulation (see wildmatch.h).
 *
 * A state is a byte offset into the pattern where a token starts; the
 * accepting state is the pattern's end.  A star token may stay where it is
 * on a byte (any byte for "**", any but '/' for "*") or be skipped without
 * consuming one.  Every other token consumes exactly one byte.  The set of
 * live states is a fixed-size bitmap, so memory is constant too.
 */
#include <stdint.h>
#include <string.h>

#include "wildmatch.h"

#define WORDS ((PR_WILD_PAT_MAX + 64) / 64)

struct set { uint64_t w[WORDS]; };

static void set_add(struct set *s, size_t i) { s->w[i / 64] |= (uint64_t)1 << (i % 64); }
static int set_has(const struct set *s, size_t i) { return (s->w[i / 64] >> (i % 64)) & 1; }

static int in_range(int c, int lo, int hi) { return c >= lo && c <= hi; }

/* The ASCII-only named classes of [[:name:]]; -1 for an unknown name. */
static int named_class(const char *name, size_t len, int c)
{
	static const char *const names[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
					     "lower", "print", "punct", "space", "upper", "xdigit" };
	int upper = in_range(c, 'A', 'Z'), lower = in_range(c, 'a', 'z'), digit = in_range(c, '0', '9');
	int graph = in_range(c, 0x21, 0x7e);
	int r[] = { upper || lower || digit, upper || lower, c == ' ' || c == '\t',
		    c < 0x20 || c == 0x7f, digit, graph, lower, graph || c == ' ',
		    graph && !(upper || lower || digit), c == ' ' || in_range(c, '\t', '\r'), upper,
		    digit || in_range(c, 'a', 'f') || in_range(c, 'A', 'F') };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return r[i];
	return -1;
}

/*
 * Parse the class starting at p[i] == '['.  Sets *end to the offset after
 * its ']' and returns whether byte c is in it (before the '/' rule), or -1
 * if the class is malformed.  As in rsync: '!' or '^' first negates; the
 * first member may be ']'; "a-z" ranges over byte values; '\' escapes;
 * "[:" without a closing ":]" is a literal '['.
 */
static int class_match(const char *p, size_t i, int c, size_t *end)
{
	int negate = 0, matched = 0, prev = 0;
	size_t k = i + 1;

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
			matched |= c == ch;
		} else if (ch == '-' && prev && p[k + 1] && p[k + 1] != ']') {
			int hi = (unsigned char)p[++k];
			if (hi == '\\' && (hi = (unsigned char)p[++k]) == '\0')
				return -1;
			matched |= c >= prev && c <= hi;
			ch = 0;
		} else if (ch == '[' && p[k + 1] == ':') {
			size_t s = k + 2, e = s;
			while (p[e] && p[e] != ']')
				e++;
			if (!p[e])
				return -1;
			if (e == s || p[e - 1] != ':') {
				matched |= c == '['; /* not a named class: a plain '[' */
			} else {
				int r = named_class(p + s, e - s - 1, c);
				if (r < 0)
					return -1;
				matched |= r;
				k = e;
				ch = 0;
			}
		} else {
			matched |= c == ch;
		}
		prev = ch;
		k++;
	}
	*end = k + 1;
	return matched != negate;
}

/* Offset after the token at i, for tokens that consume one byte; sets
 * *ok to whether byte c is accepted.  Stars are handled by the caller. */
static size_t step(const char *p, size_t i, int c, int *ok)
{
	size_t end;
	int r;

	switch (p[i]) {
	case '\\':
		*ok = p[i + 1] != '\0' && c == (unsigned char)p[i + 1];
		return p[i + 1] ? i + 2 : i + 1;
	case '?':
		*ok = c != '/';
		return i + 1;
	case '[':
		r = class_match(p, i, c, &end);
		*ok = r > 0 && c != '/';
		return r < 0 ? i + 1 : end;
	default:
		*ok = c == (unsigned char)p[i];
		return i + 1;
	}
}

static size_t star_len(const char *p, size_t i)
{
	size_t k = i;

	while (p[k] == '*')
		k++;
	return k - i;
}

/* Add state i and everything reachable from it without consuming. */
static void add_closure(struct set *s, const char *p, size_t i)
{
	while (!set_has(s, i)) {
		set_add(s, i);
		if (p[i] != '*')
			break;
		i += star_len(p, i);
	}
}

/* Every class must parse, or the pattern can never match (rsync aborts
 * the whole match on a malformed class, wherever it is). */
static int pattern_ok(const char *p, size_t plen)
{
	for (size_t i = 0; i < plen;) {
		size_t end;

		if (p[i] == '\\')
			i += p[i + 1] ? 2 : 1;
		else if (p[i] != '[')
			i++;
		else if (class_match(p, i, 0, &end) < 0)
			return 0;
		else
			i = end;
	}
	return 1;
}

int pr_wildmatch(const char *pat, const char *text, size_t len, enum pr_wild_where where)
{
	size_t plen = strnlen(pat, PR_WILD_PAT_MAX + 1);
	struct set cur, next;

	if (plen > PR_WILD_PAT_MAX || !pattern_ok(pat, plen))
		return 0;
	memset(&cur, 0, sizeof(cur));
	add_closure(&cur, pat, 0);
	for (size_t t = 0; t < len; t++) {
		int c = (unsigned char)text[t], any = 0;

		memset(&next, 0, sizeof(next));
		for (size_t wi = 0; wi < WORDS; wi++) {
			for (uint64_t bits = cur.w[wi]; bits; bits &= bits - 1) {
				size_t i = wi * 64 + (size_t)__builtin_ctzll(bits);
				int ok;
				size_t n;

				if (i >= plen)
					continue; /* the end state consumes nothing */
				if (pat[i] == '*') {
					if (star_len(pat, i) > 1 || c != '/') {
						add_closure(&next, pat, i);
						any = 1;
					}
					continue;
				}
				n = step(pat, i, c, &ok);
				if (ok) {
					add_closure(&next, pat, n);
					any = 1;
				}
			}
		}
		if (where == PR_WILD_ANY_SLASH && c == '/') {
			add_closure(&next, pat, 0);
			any = 1;
		}
		if (!any && where == PR_WILD_START)
			return 0; /* nothing can revive a dead match */
		cur = next;
	}
	return set_has(&cur, plen);
}
