/* SPDX-License-Identifier: ISC */
/*
 * Parsing and matching single filter rules; see filter.h.  Written from
 * the protocol notes and rsync(1), checked against stock behaviour by the
 * table in tests/unit/test_filter.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "wildmatch.h"

const char pr_cvs_default[] =
	"RCS SCCS CVS CVS.adm RCSLOG cvslog.* tags TAGS .make.state .nse_depinfo "
	"*~ #* .#* ,* _$* *$ *.old *.bak *.BAK *.orig *.rej .del-* *.a *.olb *.o "
	"*.obj *.so *.exe *.Z *.elc *.ln core .svn/ .git/ .hg/ .bzr/";

/* Flags a merge rule or directive passes on to the rules it contains. */
#define FROM_TEMPLATE (PR_FR_ABS | PR_FR_INCLUDE | PR_FR_DIRONLY | PR_FR_NEGATE | PR_FR_PERISH)
#define SIDES (PR_FR_SENDER | PR_FR_RECEIVER)

static int is_space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* A long rule word ("exclude") ends at a blank, '_', ',' or the end.
 * Returns the offset of the word's last byte (or of the ','), or 0. */
static size_t long_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(s, word, n) != 0)
		return 0;
	if (is_space((unsigned char)s[n]) || s[n] == '_' || s[n] == '\0')
		return n - 1;
	return s[n] == ',' ? n : 0;
}

static int perr(char *err, size_t errlen, const char *what, const char *rule)
{
	snprintf(err, errlen, "%s: %.200s", what, rule);
	return -1;
}

/* The rule character of a new-style rule; advances *i past a long word. */
static int rule_char(const char *s, size_t *i)
{
	static const struct { const char *word; char ch; } words[] = {
		{ "clear", '!' }, { "dir-merge", ':' }, { "exclude", '-' }, { "hide", 'H' },
		{ "include", '+' }, { "merge", '.' }, { "protect", 'P' }, { "risk", 'R' },
		{ "show", 'S' },
	};

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		if (s[0] != words[k].word[0])
			continue;
		size_t n = long_word(s, words[k].word);
		if (n == 0)
			return 0; /* as rsync: a word's first letter alone is not a rule */
		*i = n;
		return words[k].ch;
	}
	if (s[1] == ',')
		*i = 1;
	return (unsigned char)s[0];
}

/* Flags for a rule character; -1 if unknown.  *side: the prefix names a side. */
static int64_t char_flags(int ch, int *side)
{
	*side = 0;
	switch (ch) {
	case ':': return PR_FR_MERGE | PR_FR_PERDIR;
	case '.': return PR_FR_MERGE;
	case '+': return PR_FR_INCLUDE;
	case '-': return 0;
	case 'S': *side = 1; return PR_FR_INCLUDE | PR_FR_SENDER;
	case 'H': *side = 1; return PR_FR_SENDER;
	case 'R': *side = 1; return PR_FR_INCLUDE | PR_FR_RECEIVER;
	case 'P': *side = 1; return PR_FR_RECEIVER;
	case '!': return PR_FR_CLEAR;
	default: return -1;
	}
}

/* One modifier; returns the new flags or -1 if it is not allowed here. */
static int64_t modifier(int c, uint32_t f, int side)
{
	int64_t bad = -1, g = f;
	int merge = (f & PR_FR_MERGE) != 0;

	switch (c) {
	case '-': return merge && !(f & PR_FR_NO_PREFIX) ? g | PR_FR_NO_PREFIX : bad;
	case '+': return merge && !(f & PR_FR_NO_PREFIX) ? g | PR_FR_NO_PREFIX | PR_FR_INCLUDE : bad;
	case '/': return g | PR_FR_ABS;
	case '!': return merge ? bad : g | PR_FR_NEGATE;
	case 'C':
		if ((f & PR_FR_NO_PREFIX) || side)
			return bad;
		return g | PR_FR_NO_PREFIX | PR_FR_WORDS | PR_FR_NO_INHERIT | PR_FR_CVS;
	case 'e': return merge ? g | PR_FR_EXCL_SELF : bad;
	case 'n': return merge ? g | PR_FR_NO_INHERIT : bad;
	case 'p': return g | PR_FR_PERISH;
	case 'r': return side ? bad : g | PR_FR_RECEIVER;
	case 's': return side ? bad : g | PR_FR_SENDER;
	case 'w': return merge ? g | PR_FR_WORDS : bad;
	case 'x': return g | PR_FR_XATTR;
	default: return bad;
	}
}

int pr_rule_parse(const char **sp, uint32_t tflags, unsigned xflags, struct pr_rule *out,
		  const char **pat, size_t *patlen, char *err, size_t errlen)
{
	const char *s = *sp, *start;
	uint32_t f = tflags & FROM_TEMPLATE;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (tflags & PR_FR_WORDS)
		while (is_space((unsigned char)*s))
			s++;
	start = s;
	if (*s == '\0') {
		*sp = s;
		return 0;
	}
	if (tflags & PR_FR_NO_PREFIX) {
		if (*s == '!' && (tflags & PR_FR_CVS))
			f |= PR_FR_CLEAR; /* tentative: only a lone "!" clears */
	} else if (xflags & PR_FX_OLD_PREFIXES) {
		if ((*s == '-' || *s == '+') && s[1] == ' ') {
			f = *s == '+' ? f | PR_FR_INCLUDE : f & ~PR_FR_INCLUDE;
			s += 2;
		} else if (*s == '!') {
			f |= PR_FR_CLEAR;
		}
	} else {
		size_t i = 0;
		int side, ch = rule_char(s, &i);
		int64_t cf = ch ? char_flags(ch, &side) : -1;

		if (cf < 0)
			return perr(err, errlen, "Unknown filter rule", start);
		f |= (uint32_t)cf;
		s += i;
		while (ch != '!' && *++s && *s != ' ' && *s != '_') {
			int64_t nf;

			if ((tflags & PR_FR_WORDS) && is_space((unsigned char)*s)) {
				s--;
				break;
			}
			if ((nf = modifier((unsigned char)*s, f, side)) < 0)
				return perr(err, errlen, "invalid modifier in filter rule", start);
			f = (uint32_t)nf;
		}
		if (*s)
			s++;
	}
	if (tflags & SIDES) {
		if (f & SIDES)
			return perr(err, errlen, "specified-side merge file contains specified-side filter", start);
		f |= tflags & SIDES;
	}
	if (tflags & PR_FR_WORDS) {
		len = 0;
		while (s[len] && !is_space((unsigned char)s[len]))
			len++;
	} else {
		len = strlen(s);
	}
	if (f & PR_FR_CLEAR) {
		if (!(tflags & PR_FR_NO_PREFIX) && !(xflags & PR_FX_OLD_PREFIXES) && len)
			return perr(err, errlen, "'!' rule has trailing characters", start);
		if (len > 1)
			f &= ~PR_FR_CLEAR;
	} else if (len == 0 && !(f & PR_FR_CVS)) {
		return perr(err, errlen, "unexpected end of filter rule", start);
	}
	out->flags = f;
	*pat = s;
	*patlen = len;
	*sp = s + len;
	return 1;
}

int pr_rule_finish(struct pr_rule *r, const char *pat, size_t len, unsigned xflags,
		   const char *anchor_dir)
{
	const char *suffix = "";
	size_t pre = 0, total;
	uint32_t slashes = 0;
	char *p;

	r->pat = NULL;
	r->prog = NULL;
	if (len > 1 && pat[len - 1] == '/') {
		len--;
		r->flags |= PR_FR_DIRONLY;
	}
	for (size_t i = 0; i < len; i++)
		slashes += pat[i] == '/';
	if (!(r->flags & (PR_FR_ABS | PR_FR_MERGE)) &&
	    (((xflags & PR_FX_ABS_IF_SLASH) && slashes) || (anchor_dir && len && pat[0] == '/'))) {
		r->flags |= PR_FR_ABS;
		if (anchor_dir && pat[0] == '/' && anchor_dir[0])
			pre = strlen(anchor_dir) + 1; /* "/dir" before "/pat" */
	}
	if ((xflags & PR_FX_DIR2WILD3) && (r->flags & PR_FR_DIRONLY) && !(r->flags & PR_FR_INCLUDE)) {
		r->flags &= ~PR_FR_DIRONLY;
		suffix = "/***";
		slashes++;
	}
	total = pre + len + strlen(suffix);
	if (total > PR_FILT_PAT_MAX || (p = malloc(total + 1)) == NULL)
		return -1;
	if (pre) {
		p[0] = '/';
		memcpy(p + 1, anchor_dir, pre - 1);
		for (size_t i = 0; i < pre; i++)
			slashes += p[i] == '/';
	}
	memcpy(p + pre, pat, len);
	strcpy(p + pre + len, suffix);
	r->pat = p;
	r->slash_cnt = slashes;
	if (strpbrk(p, "*[?")) {
		const char *w2 = strstr(p, "**");

		r->flags |= PR_FR_WILD;
		if (w2) {
			r->flags |= PR_FR_WILD2;
			if (w2 == p)
				r->flags |= PR_FR_WILD2_PFX;
			if (total >= 3 && strcmp(p + total - 3, "***") == 0)
				r->flags |= PR_FR_WILD3_SFX;
		}
		/* pr_rule_match gives the matcher the text after an anchoring '/' */
		if ((r->prog = pr_wild_compile(p[0] == '/' ? p + 1 : p, 0)) == NULL) {
			free(p);
			r->pat = NULL;
			return -1;
		}
	}
	return 0;
}

void pr_rule_free(struct pr_rule *r)
{
	free(r->pat);
	r->pat = NULL;
	pr_wild_free(r->prog);
	r->prog = NULL;
}

int pr_rule_for_sender(const struct pr_rule *r)
{
	return (r->flags & SIDES) != PR_FR_RECEIVER;
}

/* Start of the last n '/'-separated elements of t, or NULL if fewer. */
static const char *last_elements(const char *t, size_t len, uint32_t n)
{
	for (size_t i = len; i > 0; i--)
		if (t[i - 1] == '/' && --n == 0)
			return t + i;
	return n == 1 ? t : NULL;
}

void pr_name_init(struct pr_name *n, const char *name, const char *root)
{
	const char *base;

	if (name[0] == '/')
		name++;
	base = strrchr(name, '/');
	n->name = name;
	n->len = strlen(name);
	n->base = base ? base + 1 : name;
	n->base_len = n->len - (size_t)(n->base - name);
	n->root = root;
	n->root_len = strlen(root);
}

int pr_rule_match(const struct pr_rule *r, const char *name, const char *root, int is_dir)
{
	struct pr_name n;

	pr_name_init(&n, name, root);
	return pr_rule_match_name(r, &n, is_dir);
}

int pr_rule_match_name(const struct pr_rule *r, const struct pr_name *n, int is_dir)
{
	char buf[2 * 4096 + 8]; /* root + "/" + name + "/", when the text needs them */
	int hit = (r->flags & PR_FR_NEGATE) ? 0 : 1;
	const char *pat = r->pat, *t, *name = n->name;
	size_t len, nl = n->len, rl = 0, pre = 0, tl;
	int anchored = 0, sfx;

	if (nl == 0 || (r->flags & PR_FR_XATTR) || pat == NULL ||
	    ((r->flags & PR_FR_WILD) && r->prog == NULL))
		return 0;
	/* The text: the last component, or root/name for an absolute rule,
	 * or "/name" for a "**" prefix, or the name as given. */
	if (r->slash_cnt == 0 && !(r->flags & PR_FR_WILD2)) {
		name = n->base;
		nl = n->base_len;
	} else if ((r->flags & PR_FR_ABS) && n->root[0]) {
		rl = n->root_len;
		pre = rl + 1;
	} else if (r->flags & PR_FR_WILD2_PFX) {
		pre = 1;
	}
	len = pre + nl;
	if (len >= sizeof(buf) - 2)
		return 0;
	if (!is_dir && (r->flags & PR_FR_DIRONLY))
		return !hit;
	sfx = is_dir && (r->flags & PR_FR_WILD3_SFX);
	t = name;
	if (pre || sfx) {
		if (rl)
			memcpy(buf, n->root, rl);
		if (pre)
			buf[pre - 1] = '/';
		memcpy(buf + pre, name, nl);
		if (sfx)
			buf[len++] = '/';
		buf[len] = '\0';
		t = buf;
	}
	if (*pat == '/') {
		anchored = 1;
		pat++;
	}
	if (!anchored && r->slash_cnt && !(r->flags & PR_FR_WILD2)) {
		const char *e = last_elements(t, len, r->slash_cnt + 1);

		if (e == NULL)
			return !hit;
		tl = len - (size_t)(e - t);
		if (r->flags & PR_FR_WILD)
			return pr_wild_match(r->prog, e, tl, PR_WILD_START) ? hit : !hit;
		return strcmp(e, pat) == 0 ? hit : !hit;
	}
	if (!anchored && !(r->flags & PR_FR_WILD2_PFX) && (r->flags & PR_FR_WILD2)) {
		if (r->flags & PR_FR_WILD)
			return pr_wild_match(r->prog, t, len, PR_WILD_ANY_SLASH) ? hit : !hit;
	}
	if (r->flags & PR_FR_WILD)
		return pr_wild_match(r->prog, t, len, PR_WILD_START) ? hit : !hit;
	if (anchored)
		return strcmp(t, pat) == 0 ? hit : !hit;
	tl = strlen(pat);
	if (tl <= len && strcmp(t + len - tl, pat) == 0 && (tl == len || t[len - tl - 1] == '/'))
		return hit;
	return !hit;
}

int pr_rule_match_xattr(const struct pr_rule *r, const char *name)
{
	const char *pat = r->pat;
	int hit = (r->flags & PR_FR_NEGATE) ? 0 : 1;

	if (!(r->flags & PR_FR_XATTR) || pat == NULL || ((r->flags & PR_FR_WILD) && r->prog == NULL))
		return 0;
	/* an attribute name is one component: the whole of it is matched */
	if (r->flags & PR_FR_WILD)
		return pr_wild_match(r->prog, name, strlen(name), PR_WILD_START) ? hit : !hit;
	return strcmp(pat + (pat[0] == '/'), name) == 0 ? hit : !hit;
}

int pr_rules_check(const struct pr_rule *rules, size_t n, const char *name, const char *root,
		   int is_dir)
{
	struct pr_name nm;

	pr_name_init(&nm, name, root);
	for (size_t i = 0; i < n; i++)
		if (pr_rule_match_name(&rules[i], &nm, is_dir))
			return (rules[i].flags & PR_FR_INCLUDE) ? 1 : -1;
	return 0;
}
