/*
 * Module filters: see modfilter.h.  Each directive is parsed as rsyncd
 * parses it (which prefixes it allows, whether words or lines are rules);
 * patterns with a '/' match the whole module path and "dir/" excludes
 * also cover everything below (PR_FX_ABS_IF_SLASH, PR_FX_DIR2WILD3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modfilter.h"

#define DAEMON_X (PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3)

static const struct {
	uint32_t tflags;  /* template: default kind, word splitting */
	unsigned xflags;
	int lines;        /* a file: one rule per line, comments allowed */
} kinds[CFG_F_N] = {
	[CFG_F_FILTER] = { PR_FR_WORDS, DAEMON_X, 0 },
	[CFG_F_INCLUDE_FROM] = { PR_FR_INCLUDE, DAEMON_X | PR_FX_OLD_PREFIXES, 1 },
	[CFG_F_INCLUDE] = { PR_FR_INCLUDE | PR_FR_WORDS, DAEMON_X | PR_FX_OLD_PREFIXES, 0 },
	[CFG_F_EXCLUDE_FROM] = { 0, DAEMON_X | PR_FX_OLD_PREFIXES, 1 },
	[CFG_F_EXCLUDE] = { PR_FR_WORDS, DAEMON_X | PR_FX_OLD_PREFIXES, 0 },
};

static void clear(struct modfilter *mf)
{
	for (size_t i = 0; i < mf->n; i++)
		pr_rule_free(&mf->r[i]);
	mf->n = 0;
}

/* The rules of one line (or of the whole value, for word-split kinds). */
static int add_line(struct modfilter *mf, enum cfg_filt kind, const char *s, char *err, size_t errlen)
{
	for (;;) {
		struct pr_rule r;
		const char *pat;
		size_t len;
		int rc = pr_rule_parse(&s, kinds[kind].tflags, kinds[kind].xflags, &r, &pat, &len, err, errlen);

		if (rc <= 0)
			return rc;
		if (r.flags & PR_FR_MERGE) {
			snprintf(err, errlen, "merge and dir-merge rules are not supported in module filters");
			return -1;
		}
		if (r.flags & PR_FR_CVS) {
			snprintf(err, errlen, "-C rules are not supported in module filters");
			return -1;
		}
		if (len > PR_FILT_PAT_MAX) {
			snprintf(err, errlen, "filter pattern longer than %u bytes", PR_FILT_PAT_MAX);
			return -1;
		}
		if (mf == NULL)
			continue;
		if (r.flags & PR_FR_CLEAR) {
			clear(mf);
			continue;
		}
		/* Sides are not looked at: every rule hides, as written.  (rsyncd
		 * reads these before it knows it is the sender, and so drops
		 * hide/show rules and applies protect/risk ones on downloads;
		 * prsyncd never shows what any rule hides.) */
		if (mf->n == MODFILTER_RULES_MAX) {
			snprintf(err, errlen, "more than %u module filter rules", MODFILTER_RULES_MAX);
			return -1;
		}
		if (mf->n % 16 == 0) {
			struct pr_rule *g = realloc(mf->r, (mf->n + 16) * sizeof(*g));
			if (g == NULL) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			mf->r = g;
		}
		if (pr_rule_finish(&r, pat, len, kinds[kind].xflags, NULL) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		mf->r[mf->n++] = r;
	}
}

int modfilter_add(struct modfilter *mf, enum cfg_filt kind, const char *text, char *err, size_t errlen)
{
	char line[PR_FILT_PAT_MAX + 64];

	if (!kinds[kind].lines)
		return add_line(mf, kind, text, err, errlen);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\r\n");

		if (n >= sizeof(line)) {
			snprintf(err, errlen, "line longer than %zu bytes", sizeof(line) - 1);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if (line[0] && line[0] != ';' && line[0] != '#' && add_line(mf, kind, line, err, errlen) < 0)
			return -1;
		p += n;
		p += strspn(p, "\r\n");
	}
	return 0;
}

int modfilter_hides(const struct modfilter *mf, const char *path, int is_dir)
{
	char pre[4096];

	if (mf->n == 0 || path[0] == '\0')
		return 0;
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		size_t n = (size_t)(p - path);

		if (n >= sizeof(pre))
			return 1; /* cannot be checked: hidden */
		memcpy(pre, path, n);
		pre[n] = '\0';
		if (pr_rules_check(mf->r, mf->n, pre, "", 1) < 0)
			return 1;
	}
	return pr_rules_check(mf->r, mf->n, path, "", is_dir) < 0;
}

void modfilter_free(struct modfilter *mf)
{
	clear(mf);
	free(mf->r);
	mf->r = NULL;
}
