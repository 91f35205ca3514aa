/* SPDX-License-Identifier: ISC */
/*
 * Module filters: see modfilter.h.  Each directive is parsed as rsyncd
 * parses it (which prefixes it allows, whether words or lines are rules);
 * patterns with a '/' match the whole module path and "dir/" excludes
 * also cover everything below (PR_FX_ABS_IF_SLASH, PR_FX_DIR2WILD3).
 *
 * How a rule meets a module path p (pr_rule_match with root "", which is
 * what module rules mean) decides its mode here:
 *   BASE    no '/' and no "**": the last component alone;
 *   STREAM  the whole path (anchored rules, "**" rules; as "/p" for a
 *           leading "**"), matched from its start or from any component
 *           start, so the matcher state after "a/b" is carried on to
 *           "a/b/c" instead of starting again;
 *   TAIL    a '/' but no "**" and no anchor: the last k+1 components,
 *           where k is the number of '/' in the pattern.  Outside "**"
 *           only a '/' literal takes a '/', so when the pattern has k of
 *           them a match from any component start covers exactly those
 *           components: a STREAM from any start.  When some '/' of the
 *           pattern sits in a class (never matching), nothing ever matches:
 *           FALSE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modfilter.h"
#include "wildmatch.h"

#define DAEMON_X (PR_FX_ABS_IF_SLASH | PR_FX_DIR2WILD3)

enum { MF_M_OFF, MF_M_FALSE, MF_M_BASE, MF_M_STREAM };

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
	for (size_t i = 0; i < mf->n; i++) {
		pr_rule_free(&mf->r[i]);
		pr_wild_free(mf->m[i].prog);
	}
	mf->n = mf->words = mf->maxw = 0;
}

/* A wildcard rule matched against one whole name: its program (the text
 * after an anchoring '/', as pr_rule_finish compiles it for the worker). */
static int whole_name(const struct pr_rule *r, struct mf_rule *m, int mode)
{
	m->mode = (uint8_t)mode;
	if (!(r->flags & PR_FR_WILD))
		return 0;
	m->prog = pr_wild_compile(r->pat + (r->pat[0] == '/'), PR_WILD_STREAM);
	return m->prog == NULL ? -1 : 0;
}

/* The mode of rule r on module paths; compiles the program it runs. */
static int classify(const struct pr_rule *r, struct mf_rule *m)
{
	const char *pat = r->pat;
	uint32_t f = r->flags;
	int anchored = pat[0] == '/', tail;

	memset(m, 0, sizeof(*m));
	if (f & PR_FR_XATTR)
		return whole_name(r, m, MF_M_OFF);
	if (r->slash_cnt == 0 && !(f & PR_FR_WILD2))
		return whole_name(r, m, MF_M_BASE);
	tail = !anchored && !(f & PR_FR_WILD2);
	m->mode = MF_M_STREAM;
	m->pfx = (f & PR_FR_WILD2_PFX) != 0;
	m->sfx = (f & PR_FR_WILD3_SFX) != 0;
	m->where = tail || (!anchored && !(f & PR_FR_WILD2_PFX)) ? PR_WILD_ANY_SLASH : PR_WILD_START;
	m->prog = pr_wild_compile(pat + anchored, PR_WILD_STREAM | ((f & PR_FR_WILD) ? 0 : PR_WILD_RAW));
	if (m->prog == NULL)
		return -1;
	if (tail && pr_wild_slashes(m->prog) != r->slash_cnt) {
		pr_wild_free(m->prog);
		m->prog = NULL;
		m->mode = MF_M_FALSE;
		return 0;
	}
	m->words = pr_wild_words(m->prog);
	return 0;
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
			struct mf_rule *h = g ? realloc(mf->m, (mf->n + 16) * sizeof(*h)) : NULL;

			if (g != NULL)
				mf->r = g;
			if (h == NULL) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			mf->m = h;
		}
		if (pr_rule_finish(&r, pat, len, kinds[kind].xflags, NULL) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (classify(&r, &mf->m[mf->n]) < 0) {
			pr_rule_free(&r);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		mf->m[mf->n].off = mf->words;
		mf->words += mf->m[mf->n].words;
		if (mf->m[mf->n].words > mf->maxw)
			mf->maxw = mf->m[mf->n].words;
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

void modfilter_free(struct modfilter *mf)
{
	clear(mf);
	free(mf->r);
	free(mf->m);
	mf->r = NULL;
	mf->m = NULL;
}

/* --- walks ------------------------------------------------------------------ */

int mfw_init(struct mf_walk *w, const struct modfilter *mf)
{
	memset(w, 0, sizeof(*w));
	w->mf = mf;
	w->next_id = 1;
	if (mf->n == 0)
		return 0; /* nothing to judge, nothing to allocate */
	w->st = calloc(mf->words ? mf->words : 1, sizeof(uint64_t));
	w->tmp = calloc(2 * (mf->maxw ? mf->maxw : 1), sizeof(uint64_t));
	w->fed_id = calloc(mf->n, sizeof(uint64_t));
	w->fed = calloc(mf->n, sizeof(uint16_t));
	w->dead = calloc(mf->n, 1);
	if (w->st == NULL || w->tmp == NULL || w->fed_id == NULL || w->fed == NULL || w->dead == NULL) {
		mfw_free(w);
		return -1;
	}
	for (size_t i = 0; i < mf->n; i++)
		if (mf->m[i].mode == MF_M_STREAM)
			w->fed[i] = UINT16_MAX; /* not begun */
	return 0;
}

void mfw_free(struct mf_walk *w)
{
	free(w->st);
	free(w->tmp);
	free(w->fed_id);
	free(w->fed);
	free(w->dead);
	w->st = w->tmp = NULL;
	w->fed_id = NULL;
	w->fed = NULL;
	w->dead = NULL;
}

void mfw_root(struct mf_walk *w)
{
	w->depth = w->len = 0;
	w->path[0] = '\0';
}

const char *mfw_path(const struct mf_walk *w) { return w->path; }

int mfw_push(struct mf_walk *w, const char *name, size_t len)
{
	size_t at = w->len + (w->depth > 0);

	if (at + len > MF_PATH_MAX || w->depth == MF_DEPTH_MAX)
		return -1;
	if (w->depth > 0)
		w->path[w->len] = '/';
	memcpy(w->path + at, name, len);
	w->len = at + len;
	w->path[w->len] = '\0';
	w->depth++;
	w->start[w->depth] = (uint16_t)at;
	w->id[w->depth] = w->next_id++;
	return 0;
}

void mfw_pop(struct mf_walk *w)
{
	if (w->depth == 0)
		return;
	w->len = w->depth > 1 ? (size_t)w->start[w->depth] - 1 : 0;
	w->path[w->len] = '\0';
	w->depth--;
}

static void feed(struct mf_walk *w, const struct mf_rule *m, uint64_t *st, size_t i, const char *s, size_t n)
{
	w->steps += n * m->words;
	if (!pr_wild_feed(m->prog, st, s, n, (enum pr_wild_where)m->where))
		w->dead[i] = 1;
}

/* Bring rule i's carried state to the current path.  It is still good if
 * the component it last took was not replaced since (every push has a
 * new id, and going back up then down again replaces what lies below);
 * otherwise it starts again from the root.  A state that died stays dead
 * for everything below the component where it died. */
static void catch_up(struct mf_walk *w, size_t i)
{
	const struct mf_rule *m = &w->mf->m[i];
	uint64_t *st = w->st + m->off;
	size_t d = w->fed[i];

	if (d == UINT16_MAX || d > w->depth || (d > 0 && w->id[d] != w->fed_id[i])) {
		pr_wild_begin(m->prog, st);
		w->dead[i] = 0;
		d = 0;
		if (m->pfx)
			feed(w, m, st, i, "/", 1);
	}
	for (; d < w->depth && !w->dead[i]; d++) {
		size_t s = w->start[d + 1], e = d + 1 < w->depth ? (size_t)w->start[d + 2] - 1 : w->len;

		if (d > 0)
			feed(w, m, st, i, "/", 1);
		if (!w->dead[i])
			feed(w, m, st, i, w->path + s, e - s);
	}
	w->fed[i] = (uint16_t)d;
	w->fed_id[i] = d ? w->id[d] : 0;
}

/* Does rule i's pattern take "path/name" (raw[0]: as a directory, raw[1]:
 * as anything else)? */
static void raw_match(struct mf_walk *w, size_t i, const char *name, size_t len, int raw[2])
{
	const struct pr_rule *r = &w->mf->r[i];
	const struct mf_rule *m = &w->mf->m[i];
	uint64_t *t = w->tmp, *t2 = w->tmp + w->mf->maxw;
	int alive;

	raw[0] = raw[1] = 0;
	w->steps++;
	if (m->mode == MF_M_BASE) {
		if (r->flags & PR_FR_WILD) {
			w->steps += len;
			raw[0] = raw[1] = pr_wild_run(m->prog, name, len, PR_WILD_START);
		} else {
			raw[0] = raw[1] = strlen(r->pat) == len && memcmp(r->pat, name, len) == 0;
		}
		return;
	}
	if (m->mode != MF_M_STREAM)
		return;
	catch_up(w, i);
	if (w->dead[i])
		return;
	memcpy(t, w->st + m->off, m->words * sizeof(uint64_t));
	w->steps += (len + 1) * m->words;
	alive = (w->depth == 0 || pr_wild_feed(m->prog, t, "/", 1, (enum pr_wild_where)m->where)) &&
		pr_wild_feed(m->prog, t, name, len, (enum pr_wild_where)m->where);
	if (!alive)
		return;
	raw[1] = pr_wild_accepts(m->prog, t);
	raw[0] = raw[1];
	if (m->sfx) {
		memcpy(t2, t, m->words * sizeof(uint64_t));
		raw[0] = pr_wild_feed(m->prog, t2, "/", 1, (enum pr_wild_where)m->where) &&
			 pr_wild_accepts(m->prog, t2);
	}
}

unsigned mfw_judge(struct mf_walk *w, const char *name, size_t len, unsigned want)
{
	const struct modfilter *mf = w->mf;
	unsigned decided = 0, hidden = 0;

	for (size_t i = 0; i < mf->n && decided != want; i++) {
		const struct pr_rule *r = &mf->r[i];
		int hit = (r->flags & PR_FR_NEGATE) ? 0 : 1, raw[2];

		if (mf->m[i].mode == MF_M_OFF)
			continue; /* an xattr rule matches no name, negated or not */
		raw_match(w, i, name, len, raw);
		for (int k = 0; k < 2; k++) {
			unsigned bit = k == 0 ? MF_DIR : MF_OTHER;
			int match = (k == 1 && (r->flags & PR_FR_DIRONLY)) ? !hit : raw[k] ? hit : !hit;

			if (!(want & bit) || (decided & bit) || !match)
				continue;
			decided |= bit;
			if (!(r->flags & PR_FR_INCLUDE))
				hidden |= bit;
		}
	}
	return hidden;
}

unsigned mfw_walk_path(struct mf_walk *w, const char *path, unsigned want)
{
	mfw_root(w);
	if (path[0] == '\0')
		return 0; /* the module root is never hidden */
	for (;;) {
		const char *slash = strchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : strlen(path);

		if (slash == NULL)
			return n > 255 ? want & MF_BOTH : mfw_judge(w, path, n, want);
		if (n > 255 || mfw_judge(w, path, n, MF_DIR) || mfw_push(w, path, n) < 0)
			return MF_PREFIX;
		path = slash + 1;
	}
}

int modfilter_hides_xattr(const struct modfilter *mf, const char *name)
{
	for (size_t i = 0; i < mf->n; i++) {
		const struct pr_rule *r = &mf->r[i];
		int hit = (r->flags & PR_FR_NEGATE) ? 0 : 1, raw;

		/* pr_rule_match_xattr, on the stream program */
		if (!(r->flags & PR_FR_XATTR))
			continue;
		raw = (r->flags & PR_FR_WILD) ? pr_wild_run(mf->m[i].prog, name, strlen(name), PR_WILD_START) :
		      strcmp(r->pat + (r->pat[0] == '/'), name) == 0;
		if (raw ? hit : !hit)
			return !(r->flags & PR_FR_INCLUDE);
	}
	return 0;
}

int modfilter_hides(const struct modfilter *mf, const char *path, int is_dir)
{
	struct mf_walk *w;
	unsigned v;

	if (mf->n == 0 || path[0] == '\0')
		return 0;
	if ((w = malloc(sizeof(*w))) == NULL || mfw_init(w, mf) < 0) {
		free(w);
		return 1; /* cannot be checked: hidden */
	}
	v = mfw_walk_path(w, path, is_dir ? MF_DIR : MF_OTHER);
	mfw_free(w);
	free(w);
	return v != 0;
}
