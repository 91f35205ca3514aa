/* SPDX-License-Identifier: ISC */
/* Module filters walked one component at a time (src/priv/modfilter.c)
 * against the reference that re-matched every directory prefix with the
 * plain matcher (tests/unit/wild_ref.inc): random rules of every directive
 * kind and random paths, whole paths and walks that go up and down again;
 * and the work of a deep path bounded by its length times the rules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "modfilter.h"
#include "unit.h"
#include "wildmatch.h"

#include "wild_ref.inc"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const comps[] = { "a", "b", "ab", ".git", "core", "x.key", "c", "a.b", "[x]", "**" };
#define NCOMPS (sizeof(comps) / sizeof(comps[0]))

/* A pattern from pieces that cover every rule mode: no '/', '/' inside,
 * anchored, "**" prefix, "***" suffix, classes holding '/', escapes. */
static void rand_pattern(char *out, size_t cap)
{
	static const char *const pieces[] = {
		"a", "b", "ab", ".git", "core", "*.key", "x.key", "*", "**", "***", "?", "/", "/", "[ab]",
		"[!a]", "[/a]", "\\/", "\\*", "c", "a*", "*b", "[[:alpha:]]", "[x]", "\\[x]",
	};
	size_t n = 0;
	unsigned k = 1 + rnd(4);

	out[0] = '\0';
	for (unsigned i = 0; i < k; i++) {
		const char *p = pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))];
		size_t l = strlen(p);

		if (n + l + 2 > cap)
			break;
		memcpy(out + n, p, l + 1);
		n += l;
	}
	if (rnd(3) == 0 && n + 2 < cap)
		strcpy(out + n, "/"); /* a directory rule */
}

/* One to four rules as one of the module directives. */
static void rand_rules(struct modfilter *mf)
{
	static const char *const pre[] = { "- ", "+ ", "-! ", "-/ ", "P ", "H ", "+! " };
	char text[512], pat[64], why[256];
	size_t n = 0;
	enum cfg_filt kind = (enum cfg_filt)(rnd(3) == 0 ? CFG_F_EXCLUDE : rnd(2) ? CFG_F_INCLUDE : CFG_F_FILTER);
	unsigned k = 1 + rnd(4);

	text[0] = '\0';
	for (unsigned i = 0; i < k; i++) {
		rand_pattern(pat, sizeof(pat));
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s%s", i ? " " : "",
				      kind == CFG_F_FILTER ? pre[rnd(7)] : "", pat);
	}
	if (kind == CFG_F_FILTER) { /* the filter directive splits on blanks: "-_pat" style */
		for (char *p = text; *p; p++)
			if (p[0] == ' ' && p > text && strchr("-+!/PH", p[-1]))
				p[0] = '_';
	}
	if (modfilter_add(mf, kind, text, why, sizeof(why)) < 0)
		modfilter_free(mf);
}

static void rand_path(char *out, size_t cap, unsigned maxdepth)
{
	size_t n = 0;
	unsigned d = 1 + rnd(maxdepth);

	out[0] = '\0';
	for (unsigned i = 0; i < d; i++) {
		const char *c = comps[rnd(NCOMPS)];
		size_t l = strlen(c);

		if (n + l + 2 > cap)
			break;
		if (i)
			out[n++] = '/';
		memcpy(out + n, c, l + 1);
		n += l;
	}
}

static void dump_rules(const struct modfilter *mf)
{
	for (size_t i = 0; i < mf->n; i++)
		fprintf(stderr, "    rule %zu: flags %#x slashes %u pat [%s]\n", i, mf->r[i].flags,
			mf->r[i].slash_cnt, mf->r[i].pat);
}

static int n_hidden, n_judged;

static void whole_paths(void)
{
	int bad = 0;

	for (int iter = 0; iter < 6000 && bad < 5; iter++) {
		struct modfilter mf = { 0 };
		struct mf_walk *w = malloc(sizeof(*w));

		rand_rules(&mf);
		if (w == NULL || mfw_init(w, &mf) < 0) {
			CHECK(0);
			free(w);
			modfilter_free(&mf);
			continue;
		}
		for (int k = 0; k < 8; k++) {
			char path[128];
			unsigned v;

			rand_path(path, sizeof(path), 6);
			v = mfw_walk_path(w, path, MF_BOTH);
			for (int d = 0; d < 2; d++) {
				int want = ref_hides(mf.r, mf.n, path, d);
				int got = (v & MF_PREFIX) || (v & (d ? MF_DIR : MF_OTHER));

				if (got != want) {
					bad++;
					CHECK_MSG(0, "path [%s] dir %d: walk %d (bits %#x), reference %d", path, d, got, v, want);
					dump_rules(&mf);
				} else {
					unit_passed++;
				}
				n_hidden += want;
				n_judged++;
				CHECK(modfilter_hides(&mf, path, d) == want);
			}
		}
		mfw_free(w);
		free(w);
		modfilter_free(&mf);
	}
}

/* Up and down: the carried states must follow every pop and push. */
static void walks(void)
{
	int bad = 0;

	for (int iter = 0; iter < 3000 && bad < 5; iter++) {
		struct modfilter mf = { 0 };
		struct mf_walk *w = malloc(sizeof(*w));

		rand_rules(&mf);
		if (w == NULL || mfw_init(w, &mf) < 0) {
			CHECK(0);
			free(w);
			modfilter_free(&mf);
			continue;
		}
		for (int k = 0; k < 40; k++) {
			const char *c = comps[rnd(NCOMPS)];
			char full[4200];
			unsigned op = rnd(4);

			if (op == 0) {
				mfw_pop(w);
			} else if (op == 1 && w->depth < 12) {
				CHECK(mfw_push(w, c, strlen(c)) == 0);
			} else {
				unsigned v = mfw_judge(w, c, strlen(c), MF_BOTH);

				snprintf(full, sizeof(full), "%s%s%s", mfw_path(w), w->depth ? "/" : "", c);
				for (int d = 0; d < 2; d++) {
					int want = ref_rules_check(mf.r, mf.n, full, "", d) < 0;
					int got = (v & (d ? MF_DIR : MF_OTHER)) != 0;

					if (got != want) {
						bad++;
						CHECK_MSG(0, "walk at [%s] name [%s] dir %d: %d, reference %d",
							  mfw_path(w), c, d, got, want);
						dump_rules(&mf);
					} else {
						unit_passed++;
					}
				}
			}
			if (rnd(16) == 0)
				mfw_root(w);
		}
		mfw_free(w);
		free(w);
		modfilter_free(&mf);
	}
}

/* The review's case: ~2047 components against ".git/" and "**\/core/":
 * one walk costs at most a few matcher steps per byte and rule. */
static void deep(void)
{
	static const char *const rules[] = { ".git/", "- **/core/", "- /a/a/a/b", "- a/*/b" };
	static const enum cfg_filt kinds[] = { CFG_F_EXCLUDE, CFG_F_FILTER, CFG_F_FILTER, CFG_F_FILTER };
	static char path[MF_PATH_MAX + 16];
	size_t n = 0;

	while (n + 2 <= 4093) {
		path[n++] = 'a';
		path[n++] = '/';
	}
	path[n++] = 'a';
	path[n] = '\0';
	for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
		struct modfilter mf = { 0 };
		struct mf_walk *w = malloc(sizeof(*w));
		char why[128], one[32];
		uint64_t limit;
		unsigned v;

		snprintf(one, sizeof(one), "%s", rules[k]);
		if (kinds[k] == CFG_F_FILTER)
			one[1] = '_';
		CHECK(modfilter_add(&mf, kinds[k], one, why, sizeof(why)) == 0 && mf.n == 1);
		CHECK(w != NULL && mfw_init(w, &mf) == 0);
		if (w == NULL)
			continue;
		v = mfw_walk_path(w, path, MF_BOTH);
		CHECK(v == 0); /* (the reference needs seconds here: it is the quadratic case) */
		/* per byte: the carried state takes it once, the leaf test once
		 * more; per component: a rule visit and the separator */
		limit = 4 * (uint64_t)n * mf.n + 16;
		CHECK_MSG(w->steps <= limit, "rule %s: %llu steps for %zu bytes (limit %llu)", rules[k],
			  (unsigned long long)w->steps, n, (unsigned long long)limit);
		/* and hidden at the end, found in the same single pass */
		strcpy(path + n - 1, k == 0 ? ".git" : k == 1 ? "core" : "b");
		v = mfw_walk_path(w, path, MF_BOTH);
		CHECK_MSG(((v & MF_DIR) != 0) == (k != 2) && !(v & MF_PREFIX), "rule %s at the end: %#x", rules[k], v);
		path[n - 1] = 'a';
		path[n] = '\0';
		mfw_free(w);
		free(w);
		modfilter_free(&mf);
	}
}

int main(void)
{
	whole_paths();
	walks();
	deep();
	printf("test_modfilter: %d of %d random paths hidden\n", n_hidden, n_judged);
	return unit_done("test_modfilter");
}
