/* SPDX-License-Identifier: ISC */
/*
 * Filter rules (spec part 2, section 3; rsync(1) FILTER RULES): parsing one
 * rule and matching a name against it.  Shared by the worker (the client's
 * list, merge files, -C) and the monitor (module filters), so both sides
 * agree on what a rule means.  Lists, merge files and their layering are
 * the worker's business; the monitor only needs a flat list.
 */
#ifndef PRSYNCD_FILTER_H
#define PRSYNCD_FILTER_H

#include <stddef.h>
#include <stdint.h>

#define PR_FILT_PAT_MAX 4095u  /* rsync discards longer patterns */

/* Rule flags (the meaning a rule's prefix and modifiers give it). */
#define PR_FR_INCLUDE    0x00001u /* '+' (else exclude) */
#define PR_FR_NEGATE     0x00002u /* '!' modifier */
#define PR_FR_DIRONLY    0x00004u /* pattern ended in '/' */
#define PR_FR_ABS        0x00008u /* '/' modifier: match the module path */
#define PR_FR_SENDER     0x00010u /* 's', hide/show */
#define PR_FR_RECEIVER   0x00020u /* 'r', protect/risk */
#define PR_FR_PERISH     0x00040u /* 'p' */
#define PR_FR_XATTR      0x00080u /* 'x': about xattr names, never file names */
#define PR_FR_MERGE      0x00100u /* '.' or ':' */
#define PR_FR_PERDIR     0x00200u /* ':' dir-merge */
#define PR_FR_CVS        0x00400u /* 'C' */
#define PR_FR_NO_INHERIT 0x00800u /* 'n' */
#define PR_FR_EXCL_SELF  0x01000u /* 'e' */
#define PR_FR_WORDS      0x02000u /* 'w', or a word-split list */
#define PR_FR_NO_PREFIX  0x04000u /* '+' / '-' on a merge rule: bare patterns */
#define PR_FR_CLEAR      0x08000u /* '!' rule */
/* derived from the pattern */
#define PR_FR_WILD       0x10000u /* has * ? or [ */
#define PR_FR_WILD2      0x20000u /* has ** */
#define PR_FR_WILD2_PFX  0x40000u /* starts with ** */
#define PR_FR_WILD3_SFX  0x80000u /* ends with *** */

/* Parse options. */
#define PR_FX_OLD_PREFIXES 0x1u /* only "- " and "+ " prefixes (old protocols, rsyncd.conf) */
#define PR_FX_ABS_IF_SLASH 0x2u /* rsyncd.conf: any pattern with a '/' matches the module path */
#define PR_FX_DIR2WILD3    0x4u /* rsyncd.conf: "dir/" excludes also cover what is below */

struct pr_wild;

struct pr_rule {
	uint32_t flags;
	uint32_t slash_cnt;
	char *pat;       /* owned, NUL-terminated; for merge rules the file name */
	struct pr_wild *prog; /* owned: the compiled pattern (wildmatch.h) of a
			       * PR_FR_WILD rule, without an anchoring '/' */
};

/*
 * Parse the next rule of *s with the template flags tflags (inherited
 * from a merge rule or a config directive: PR_FR_INCLUDE, PR_FR_WORDS,
 * PR_FR_NO_PREFIX, PR_FR_CVS, sides).  Advances *s.  Returns 1 with
 * out->flags set and the pattern text in *pat / *patlen (inside *s; give
 * it to pr_rule_finish), 0 at the end of the text, -1 with a message in
 * err.  A clear rule comes back with PR_FR_CLEAR.
 */
int pr_rule_parse(const char **s, uint32_t tflags, unsigned xflags, struct pr_rule *out,
		  const char **pat, size_t *patlen, char *err, size_t errlen);

/*
 * Give a parsed rule its pattern: strip a trailing '/' (directory-only),
 * apply xflags, prefix `anchor_dir` (module path of the directory whose
 * merge file held the rule, or NULL) to an anchored pattern, and derive
 * the match flags, and compile a wildcard pattern (once: matching then
 * costs O(name x pattern / 64) at worst).  Returns 0, or -1 (no memory /
 * too long).
 */
int pr_rule_finish(struct pr_rule *r, const char *pat, size_t len, unsigned xflags,
		   const char *anchor_dir);

/* Free what pr_rule_finish allocated; safe to call twice. */
void pr_rule_free(struct pr_rule *r);

/*
 * Does rule r match?  name: the path relative to the transfer root, e.g.
 * "sub/x" (a leading '/' is ignored); root: the module path of the
 * transfer root ("" = the module root), which absolute rules put in front.
 * Negation is applied.  1 or 0.
 */
int pr_rule_match(const struct pr_rule *r, const char *name, const char *root, int is_dir);

/* Does an xattr rule ('x') match the attribute name?  0 for other rules
 * (they never match attribute names).  Negation is applied. */
int pr_rule_match_xattr(const struct pr_rule *r, const char *name);
/* A name prepared once for matching against many rules: the same
 * meaning as pr_rule_match's name and root, the lengths and the last
 * component found once instead of once per rule. */
struct pr_name {
	const char *name, *base, *root;
	size_t len, base_len, root_len;
};
void pr_name_init(struct pr_name *n, const char *name, const char *root);
int pr_rule_match_name(const struct pr_rule *r, const struct pr_name *n, int is_dir);

/* Does the rule apply on the sending side at all? */
int pr_rule_for_sender(const struct pr_rule *r);

/* A flat list of rules: first match wins.  Returns 1 (include), -1
 * (exclude) or 0 (no rule matched). */
int pr_rules_check(const struct pr_rule *rules, size_t n, const char *name, const char *root,
		   int is_dir);

/* The CVS default ignore patterns, space-separated. */
extern const char pr_cvs_default[];

#endif
