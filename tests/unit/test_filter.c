/* The shared rule parser and matcher against stock behaviour: every row
 * of filter_cases.inc was produced by tests/tools/filter_cases.py from
 * `rsync -r --list-only --filter=RULE... src/` (rsync 3.x): whether the
 * path was listed.  Listed = no enclosing directory and not the path
 * itself is excluded by the first matching rule. */
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "unit.h"
#include "wildmatch.h"

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

int main(void)
{
	table();
	wild();
	parse();
	return unit_done("test_filter");
}
