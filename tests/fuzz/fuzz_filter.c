/* SPDX-License-Identifier: ISC */
/* Fuzz rule parsing and matching: the input is "RULES\0NAME" (or RULES
 * alone, matched against a few fixed names).  Any rule text either parses
 * or is refused; parsed rules match any name in bounded time and memory,
 * under each parse mode (client list, rsyncd.conf directives, merge-file
 * templates).  The compiled matcher must agree with the plain reference
 * simulator it replaced (tests/unit/wild_ref.inc) on every rule, name and
 * transfer root, whole or fed in pieces. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "modfilter.h"
#include "wildmatch.h"

#include "../unit/wild_ref.inc"

#define MAXIN 8192

static void one_mode(const char *rules, const char *name, uint32_t tflags, unsigned xflags)
{
	const char *s = rules;
	char err[256];

	for (int i = 0; i < 64; i++) {
		struct pr_rule r;
		const char *pat;
		size_t len;
		int rc = pr_rule_parse(&s, tflags, xflags, &r, &pat, &len, err, sizeof(err));

		if (rc <= 0)
			break;
		if (len > PR_FILT_PAT_MAX)
			continue;
		if (pr_rule_finish(&r, pat, len, xflags, (tflags & PR_FR_WORDS) ? "sub/dir" : NULL) < 0)
			continue;
		for (int d = 0; d < 2; d++) {
			if (pr_rule_match(&r, name, "", d) != ref_rule_match(&r, name, "", d) ||
			    pr_rule_match(&r, name, "top/x", d) != ref_rule_match(&r, name, "top/x", d))
				abort();
		}
		pr_rule_free(&r);
		if (!(tflags & PR_FR_WORDS))
			break; /* one rule per line */
	}
}

/* A module path as the monitor sees them: components of 1..255 bytes. */
static int module_path(const char *p)
{
	size_t n = 0;

	if (*p == '\0' || strlen(p) > MF_PATH_MAX)
		return 0;
	for (; *p; p++) {
		if (*p != '/')
			n++;
		else if (n == 0)
			return 0;
		else
			n = 0;
		if (n > 255)
			return 0;
	}
	return n > 0;
}

/* The rules as module directives: the walk that judges one component at
 * a time agrees with the prefix-by-prefix reference. */
static void module_rules(const char *rules, const char *name)
{
	static const enum cfg_filt kinds[] = { CFG_F_FILTER, CFG_F_EXCLUDE, CFG_F_INCLUDE };
	static struct mf_walk w;
	char why[256];

	if (!module_path(name))
		return;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct modfilter mf = { 0 };
		unsigned v;

		if (modfilter_add(&mf, kinds[k], rules, why, sizeof(why)) == 0 && mfw_init(&w, &mf) == 0) {
			v = mfw_walk_path(&w, name, MF_BOTH);
			for (int d = 0; d < 2; d++)
				if (((v & MF_PREFIX) || (v & (d ? MF_DIR : MF_OTHER))) != ref_hides(mf.r, mf.n, name, d))
					abort();
			mfw_free(&w);
		}
		modfilter_free(&mf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[MAXIN + 1];
	const char *name;
	size_t rl;

	if (size > MAXIN)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	rl = strlen(buf);
	name = rl < size ? buf + rl + 1 : "sub/deep/file.c";
	one_mode(buf, name, 0, 0);
	one_mode(buf, name, 0, PR_FX_OLD_PREFIXES);
	one_mode(buf, name, PR_FR_WORDS, PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3);
	one_mode(buf, name, PR_FR_WORDS | PR_FR_INCLUDE, PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3 | PR_FX_OLD_PREFIXES);
	one_mode(buf, name, PR_FR_NO_PREFIX | PR_FR_WORDS | PR_FR_CVS, 0);
	module_rules(buf, name);
	/* the raw matcher, both anchorings, pattern = rules text: whole, and
	 * fed in two pieces cut where the name's first '/' is */
	{
		size_t nl = strlen(name), cut = strcspn(name, "/");
		struct pr_wild *w = pr_wild_compile(buf, PR_WILD_STREAM);
		uint64_t *st = w ? malloc(pr_wild_words(w) * sizeof(uint64_t)) : NULL;

		for (int where = 0; where < 2 && st; where++) {
			int want = ref_wildmatch(buf, name, nl, (enum pr_wild_where)where);
			int alive;

			if (pr_wildmatch(buf, name, nl, (enum pr_wild_where)where) != want ||
			    pr_wild_match(w, name, nl, (enum pr_wild_where)where) != want ||
			    pr_wild_run(w, name, nl, (enum pr_wild_where)where) != want)
				abort();
			pr_wild_begin(w, st);
			alive = pr_wild_feed(w, st, name, cut, (enum pr_wild_where)where) &&
				pr_wild_feed(w, st, name + cut, nl - cut, (enum pr_wild_where)where);
			if ((alive && pr_wild_accepts(w, st)) != want)
				abort();
		}
		free(st);
		pr_wild_free(w);
	}
	return 0;
}
