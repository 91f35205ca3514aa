/* SPDX-License-Identifier: ISC */
/* The shared rule parser and matcher against stock behaviour: every row
 * of filter_cases.inc was produced by tests/tools/filter_cases.py from
 * `rsync -r --list-only --filter=RULE... src/` (rsync 3.x): whether the
 * path was listed.  Listed = no enclosing directory and not the path
 * itself is excluded by the first matching rule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "unit.h"
#include "wildmatch.h"

#include "wild_ref.inc"

struct row { const char *rules, *path; int is_dir, listed; };

static const struct row rows[] = {
#include "filter_cases.inc"
};

#define MAXR 8

static size_t parse_rules(const char *text, struct pr_rule *r)
{
	char buf[512], err[256];
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *line = strtok(buf, "\n"); line && n < MAXR; line = strtok(NULL, "\n")) {
		const char *s = line, *pat;
		size_t plen;
		struct pr_rule one;

		if (pr_rule_parse(&s, 0, 0, &one, &pat, &plen, err, sizeof(err)) != 1) {
			CHECK_MSG(0, "rule %s: %s", line, err);
			continue;
		}
		if (pr_rule_finish(&one, pat, plen, 0, NULL) < 0 || !pr_rule_for_sender(&one)) {
			pr_rule_free(&one);
			continue;
		}
		r[n++] = one;
	}
	return n;
}

static int listed(const struct pr_rule *r, size_t n, const char *path, int is_dir)
{
	char pre[512];

	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(pre, sizeof(pre), "%.*s", (int)(p - path), path);
		if (pr_rules_check(r, n, pre, "", 1) < 0)
			return 0;
	}
	return pr_rules_check(r, n, path, "", is_dir) >= 0;
}

static void table(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pr_rule r[MAXR];
		size_t n = parse_rules(rows[i].rules, r);
		int got = listed(r, n, rows[i].path, rows[i].is_dir);

		CHECK_MSG(got == rows[i].listed, "rules [%s] path %s: listed %d, stock %d",
			  rows[i].rules, rows[i].path, got, rows[i].listed);
		for (size_t k = 0; k < n; k++)
			pr_rule_free(&r[k]);
	}
}

static int wm(const char *p, const char *t) { return pr_wildmatch(p, t, strlen(t), PR_WILD_START); }

static void wild(void)
{
	char big[PR_WILD_PAT_MAX + 2];

	CHECK(wm("a*b", "axxb") && !wm("a*b", "a/b") && wm("a**b", "a/x/b"));
	CHECK(wm("*", "abc") && !wm("*", "a/c") && wm("**", "a/c"));
	CHECK(wm("[]]", "]") && wm("[!a]", "b") && !wm("[!a]", "/") && !wm("[a", "a"));
	CHECK(wm("\\*", "*") && !wm("\\*", "x") && !wm("a\\", "a"));
	CHECK(wm("[[:alpha:]]", "q") && !wm("[[:nope:]]", "q") && wm("[[:x]", "[") && wm("[[:x]", ":"));
	/* many stars against a long text: bounded, and still correct */
	memset(big, '*', 200);
	strcpy(big + 200, "b");
	CHECK(wm(big, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
	CHECK(!wm(big, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(!wm(big, "a")); /* too long: never matches */
	CHECK(pr_wildmatch("b/c", "a/b/c", 5, PR_WILD_ANY_SLASH) && !pr_wildmatch("b/c", "a/b/c", 5, PR_WILD_START));
}

static void parse(void)
{
	static const char *bad[] = { "x foo", "-Z foo", "+e foo", "-", "! x", ".! f", "Hs foo", "e foo" };
	static const char *good[] = { "-s foo", "include foo", "exclude,s foo", "dir-merge .f", ":n- .f",
				      "-,! foo", "merge_f", "!", "+/ /x", "-C", "hide x", "show x", "protect x",
				      "risk x", ".e- f", ":+w f", "clear" };
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *s = bad[i], *pat;
		size_t pl;
		struct pr_rule r;
		CHECK_MSG(pr_rule_parse(&s, 0, 0, &r, &pat, &pl, err, sizeof(err)) < 0, "%s", bad[i]);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *s = good[i], *pat;
		size_t pl;
		struct pr_rule r;
		CHECK_MSG(pr_rule_parse(&s, 0, 0, &r, &pat, &pl, err, sizeof(err)) == 1, "%s: %s", good[i], err);
	}
	/* word-split directive values, as rsyncd.conf gives them */
	{
		const char *s = "  *.bin  secret/ ", *pat;
		size_t pl;
		struct pr_rule r;
		CHECK(pr_rule_parse(&s, PR_FR_WORDS, PR_FX_OLD_PREFIXES, &r, &pat, &pl, err, sizeof(err)) == 1 &&
		      pl == 5 && memcmp(pat, "*.bin", 5) == 0);
		CHECK(pr_rule_parse(&s, PR_FR_WORDS, PR_FX_OLD_PREFIXES, &r, &pat, &pl, err, sizeof(err)) == 1 &&
		      pl == 7);
		CHECK(pr_rule_finish(&r, pat, pl, PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3, NULL) == 0 &&
		      strcmp(r.pat, "secret/***") == 0);
		CHECK(pr_rule_match(&r, "secret", "", 1) && pr_rule_match(&r, "secret/x", "", 0) &&
		      pr_rule_match(&r, "a/secret/x", "", 0) && !pr_rule_match(&r, "secretx", "", 0));
		pr_rule_free(&r);
		CHECK(pr_rule_parse(&s, PR_FR_WORDS, PR_FX_OLD_PREFIXES, &r, &pat, &pl, err, sizeof(err)) == 0);
	}
	/* an anchored rule from a merge file in "sub" is anchored there */
	{
		const char *s = "- /x", *pat;
		size_t pl;
		struct pr_rule r;
		CHECK(pr_rule_parse(&s, 0, 0, &r, &pat, &pl, err, sizeof(err)) == 1);
		CHECK(pr_rule_finish(&r, pat, pl, 0, "sub") == 0 && strcmp(r.pat, "/sub/x") == 0);
		CHECK(pr_rule_match(&r, "sub/x", "", 0) && pr_rule_match(&r, "x", "sub", 0) &&
		      !pr_rule_match(&r, "x", "", 0));
		pr_rule_free(&r);
	}
}

/* --- the compiled matcher against the plain reference -------------------- */

static uint64_t rng = 0x2545f4914f6cdd1du;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A random pattern from pieces that exercise every token and class rule. */
static void rand_pattern(char *out, size_t cap, unsigned maxpieces)
{
	static const char *const pieces[] = {
		"a", "b", "/", "*", "**", "***", "?", "[ab]", "[!a]", "[^/]", "[]a]", "[a-c]", "[-a]",
		"[a-]", "[[:alpha:]]", "[[:digit:]x]", "[[:nope:]]", "[[:x]", "[\\]]", "[a", "\\*",
		"\\", "\\a", "\\/", ".", "ab", "a/", "/a", "[/]", "[.-0]", "[!]", "]", "-", ":",
	};
	size_t n = 0;
	unsigned k = 1 + rnd(maxpieces);

	out[0] = '\0';
	for (unsigned i = 0; i < k; i++) {
		const char *pc = pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))];
		size_t l = strlen(pc);

		if (n + l + 1 > cap)
			break;
		memcpy(out + n, pc, l + 1);
		n += l;
	}
}

static void rand_text(char *out, size_t cap, unsigned maxlen)
{
	static const char alpha[] = "ab/ab/c.0-]*?[\\:x";
	unsigned n = rnd(maxlen + 1);

	if (n >= cap)
		n = (unsigned)cap - 1;
	for (unsigned i = 0; i < n; i++)
		out[i] = alpha[rnd(sizeof(alpha) - 1)];
	out[n] = '\0';
}

/* A text shaped like the pattern (wildcards replaced by sample bytes), so
 * that a good share of the random cases match. */
static void text_like(const char *pat, char *out, size_t cap)
{
	static const char fill[] = "ab/.x";
	size_t n = 0;

	for (const char *p = pat; *p && n + 4 < cap; p++) {
		if (*p == '*') {
			for (unsigned k = rnd(3); k > 0; k--)
				out[n++] = fill[rnd(sizeof(fill) - 1)];
		} else if (*p == '?') {
			out[n++] = fill[rnd(sizeof(fill) - 1)];
		} else if (*p == '[') {
			const char *e = strchr(p + 2, ']');
			out[n++] = p[1 + rnd(2)] ? p[1 + rnd(2)] : 'a';
			if (e)
				p = e;
		} else if (*p == '\\' && p[1]) {
			out[n++] = *++p;
		} else if (rnd(8)) {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

static void cross_wild(void)
{
	char pat[128], text[64];
	int bad = 0;

	for (int i = 0; i < 40000 && bad < 10; i++) {
		struct pr_wild *w, *ws;
		size_t tl;

		rand_pattern(pat, sizeof(pat), 8);
		if (rnd(2))
			rand_text(text, sizeof(text), 12);
		else
			text_like(pat, text, sizeof(text));
		tl = strlen(text);
		w = pr_wild_compile(pat, 0);
		ws = pr_wild_compile(pat, PR_WILD_STREAM);
		for (int where = 0; where < 2 && w && ws; where++) {
			int want = ref_wildmatch(pat, text, tl, (enum pr_wild_where)where);
			int got = pr_wild_match(w, text, tl, (enum pr_wild_where)where);
			int gots = pr_wild_match(ws, text, tl, (enum pr_wild_where)where);
			int run = pr_wild_run(ws, text, tl, (enum pr_wild_where)where);
			uint64_t st[4];
			size_t cut = tl ? rnd((unsigned)tl + 1) : 0;
			int alive;

			/* fed in two pieces, the streaming program agrees too */
			pr_wild_begin(ws, st);
			alive = pr_wild_feed(ws, st, text, cut, (enum pr_wild_where)where);
			if (alive)
				alive = pr_wild_feed(ws, st, text + cut, tl - cut, (enum pr_wild_where)where);
			if (got != want || gots != want || run != want || (alive && pr_wild_accepts(ws, st)) != want) {
				bad++;
				CHECK_MSG(0, "pattern [%s] text [%s] where %d: ref %d, compiled %d, stream %d/%d, run %d",
					  pat, text, where, want, got, gots, alive && pr_wild_accepts(ws, st), run);
			}
		}
		CHECK(w != NULL && ws != NULL && pr_wild_words(ws) <= 4);
		pr_wild_free(w);
		pr_wild_free(ws);
	}
	/* and each raw (wildcard-free) program is a plain string comparison */
	for (int i = 0; i < 2000; i++) {
		struct pr_wild *w;

		rand_pattern(pat, sizeof(pat), 4);
		w = pr_wild_compile(pat, PR_WILD_RAW);
		CHECK(w && pr_wild_match(w, pat, strlen(pat), PR_WILD_START));
		CHECK(w && !pr_wild_match(w, "zz", 2, PR_WILD_START));
		pr_wild_free(w);
	}
}

/* Long patterns: several state words, and the shapes with a fast path. */
static void wide(void)
{
	static char pat[PR_WILD_PAT_MAX + 1], text[3 * 4096];
	struct pr_wild *w;

	/* 300 tokens: a*a*a*...  against texts that do and do not match */
	for (size_t i = 0; i < 150; i++)
		memcpy(pat + 2 * i, "a*", 2);
	pat[300] = 'b';
	pat[301] = '\0';
	memset(text, 'a', 400);
	text[400] = 'b';
	w = pr_wild_compile(pat, 0);
	CHECK(w && pr_wild_words(w) == 5);
	CHECK(w && pr_wild_match(w, text, 401, PR_WILD_START) == ref_wildmatch(pat, text, 401, PR_WILD_START));
	CHECK(w && pr_wild_match(w, text, 401, PR_WILD_START) == 1 && !pr_wild_match(w, text, 400, PR_WILD_START));
	text[100] = '/';
	CHECK(w && !pr_wild_match(w, text, 401, PR_WILD_START) && !ref_wildmatch(pat, text, 401, PR_WILD_START));
	pr_wild_free(w);
	/* a carry across words on every byte: ** then 100 literals */
	strcpy(pat, "**");
	memset(pat + 2, 'x', 100);
	pat[102] = '\0';
	memset(text, 'x', 3000);
	w = pr_wild_compile(pat, PR_WILD_STREAM);
	CHECK(w && pr_wild_match(w, text, 3000, PR_WILD_START) && !pr_wild_match(w, text, 99, PR_WILD_START));
	CHECK(w && pr_wild_run(w, text, 3000, PR_WILD_START) && !pr_wild_run(w, text, 99, PR_WILD_START));
	CHECK(w && ref_wildmatch(pat, text, 3000, PR_WILD_START));
	pr_wild_free(w);
	/* the fast shapes */
	CHECK(pr_wildmatch("abc", "abc", 3, PR_WILD_START) && !pr_wildmatch("abc", "abcd", 4, PR_WILD_START));
	CHECK(pr_wildmatch("ab*", "abx", 3, PR_WILD_START) && !pr_wildmatch("ab*", "ab/x", 4, PR_WILD_START));
	CHECK(pr_wildmatch("ab**", "ab/x", 4, PR_WILD_START) && !pr_wildmatch("ab**", "a", 1, PR_WILD_START));
	CHECK(pr_wildmatch("*.c", "x.c", 3, PR_WILD_START) && !pr_wildmatch("*.c", "d/x.c", 5, PR_WILD_START));
	CHECK(pr_wildmatch("**.c", "d/x.c", 5, PR_WILD_START) && !pr_wildmatch("**.c", "x.h", 3, PR_WILD_START));
	/* the automaton alone runs only programs compiled to stream */
	w = pr_wild_compile("ab*", 0);
	CHECK(w && pr_wild_match(w, "abx", 3, PR_WILD_START) && !pr_wild_run(w, "abx", 3, PR_WILD_START));
	pr_wild_free(w);
	w = pr_wild_compile("ab*", PR_WILD_STREAM);
	CHECK(w && pr_wild_run(w, "abx", 3, PR_WILD_START) && !pr_wild_run(w, "ab/x", 4, PR_WILD_START));
	pr_wild_free(w);
	CHECK(pr_wildmatch("*.c", "d/x.c", 5, PR_WILD_ANY_SLASH) && pr_wildmatch("x.c", "d/x.c", 5, PR_WILD_ANY_SLASH));
	CHECK(!pr_wildmatch("x.c", "dx.c", 4, PR_WILD_ANY_SLASH) && pr_wildmatch("x*", "a/xy", 4, PR_WILD_ANY_SLASH));
	CHECK(pr_wildmatch("x**", "a/xy/z", 6, PR_WILD_ANY_SLASH) && !pr_wildmatch("x**", "ax/y", 4, PR_WILD_ANY_SLASH));
	CHECK(pr_wildmatch("a/x**", "b/a/xy", 6, PR_WILD_ANY_SLASH) && !pr_wildmatch("a/x*", "a/x/y", 5, PR_WILD_ANY_SLASH));
	/* a long path against a long prefix: linear, and right */
	memset(pat, 0, sizeof(pat));
	for (size_t i = 0; i < 2000; i++)
		memcpy(pat + 2 * i, "a/", 2);
	strcpy(pat + 4000, "***");
	memcpy(text, pat, 4000);
	CHECK(pr_wildmatch(pat, text, 4000, PR_WILD_START) && pr_wildmatch(pat, text, 4000, PR_WILD_ANY_SLASH));
	CHECK(!pr_wildmatch(pat, text, 3999, PR_WILD_START) && ref_wildmatch(pat, text, 4000, PR_WILD_START));
}

/* Rules on top of the matcher: the same answers as before compiling. */
static void cross_rules(void)
{
	static const char *const prefixes[] = { "- ", "+ ", "-! ", "-/ ", "- /", "+ /" };
	static const char *const roots[] = { "", "top", "top/x" };
	static const unsigned xmodes[] = { 0, PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3, PR_FX_DIR2WILD3 };
	char rule[160], pat[128], name[64], err[256];
	int bad = 0;

	for (int i = 0; i < 30000 && bad < 10; i++) {
		const char *s = rule, *pp;
		size_t pl;
		struct pr_rule r;
		unsigned xf = xmodes[rnd(3)];

		rand_pattern(pat, sizeof(pat), 5);
		if (rnd(3) == 0)
			strcat(pat, "/");
		snprintf(rule, sizeof(rule), "%s%s", prefixes[rnd(6)], pat);
		if (pr_rule_parse(&s, 0, 0, &r, &pp, &pl, err, sizeof(err)) != 1)
			continue;
		if (pl > PR_FILT_PAT_MAX || pr_rule_finish(&r, pp, pl, xf, rnd(2) ? "sub" : NULL) < 0)
			continue;
		for (int k = 0; k < 4; k++) {
			const char *root = roots[rnd(3)];
			int d = (int)rnd(2);

			if (rnd(2))
				rand_text(name, sizeof(name), 10);
			else
				text_like(pat, name, sizeof(name));
			if (pr_rule_match(&r, name, root, d) != ref_rule_match(&r, name, root, d)) {
				bad++;
				CHECK_MSG(0, "rule [%s] x%u name [%s] root [%s] dir %d: compiled %d, reference %d",
					  rule, xf, name, root, d, pr_rule_match(&r, name, root, d),
					  ref_rule_match(&r, name, root, d));
			} else {
				unit_passed++;
			}
		}
		pr_rule_free(&r);
		pr_rule_free(&r); /* twice is harmless */
	}
}

int main(void)
{
	table();
	wild();
	parse();
	cross_wild();
	wide();
	cross_rules();
	return unit_done("test_filter");
}
