/*
 * Module filters (rsyncd.conf filter, include from, include, exclude from,
 * exclude): checked when the configuration is read, compiled into one flat
 * rule list in rsyncd's order, and enforced by the monitor on every LIST,
 * STAT, OPEN and READLINK (fsreq.c).
 */
#ifndef PRSYNCD_MODFILTER_H
#define PRSYNCD_MODFILTER_H

#include <stddef.h>

#include "filter.h"

/* The directives, in the order rsyncd applies them. */
enum cfg_filt { CFG_F_FILTER, CFG_F_INCLUDE_FROM, CFG_F_INCLUDE, CFG_F_EXCLUDE_FROM,
		CFG_F_EXCLUDE, CFG_F_N };

#define MODFILTER_FILE_MAX (1u << 20)  /* an include/exclude from file */
#define MODFILTER_RULES_MAX 10000

struct modfilter {
	struct pr_rule *r;
	size_t n;
};

/*
 * Add the rules of one directive's value (for the "from" kinds: the file's
 * contents) to mf; mf NULL only checks.  Merge rules are refused (a module
 * has no per-directory merge files here).  Returns 0, or -1 with err set.
 */
int modfilter_add(struct modfilter *mf, enum cfg_filt kind, const char *text, char *err, size_t errlen);

/* Is the module path (no leading '/') hidden?  Every enclosing directory
 * is checked as a directory, then the path with its own type. */
int modfilter_hides(const struct modfilter *mf, const char *path, int is_dir);

void modfilter_free(struct modfilter *mf);

#endif
