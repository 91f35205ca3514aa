/* SPDX-License-Identifier: ISC */
/*
 * "auth users" rules, compiled from the configuration before the worker
 * exists (auth_init), so that a login only runs the compiled patterns
 * (wildrun.c) against the client's user name and the user's groups.
 *
 * A list that starts with a comma is split on commas only, each rule
 * trimmed of blanks (rsync 3.5.0), else on blanks, tabs and commas.  A
 * rule is PATTERN or @PATTERN (a group), optionally followed by ":deny",
 * ":ro" or ":rw" (case-insensitive; anything else grants nothing
 * special).  A rule is as long as the configuration line allows
 * (CFG_MAX_LINE), which the pattern compiler takes whole
 * (PR_WILD_PAT_MAX): no rule is cut or left out.
 */
#ifndef PRSYNCD_AUTHUSERS_H
#define PRSYNCD_AUTHUSERS_H

#include <stddef.h>

struct pr_wild;

struct authusers {
	size_t n;
	struct authuser_rule {
		char kind;             /* 'd' :deny, 'r' :ro, 'w' :rw, ' ' none */
		char group;            /* 1: an @group rule */
		struct pr_wild *prog;  /* the pattern, compiled to stream */
	} *r;
};

/* Compile the rules of list (NULL: none) into u, replacing those it held
 * (u: zeroed, or compiled before).  0, or -1 if memory is short or a rule
 * is longer than the pattern compiler takes (u is then empty: the caller
 * refuses the login). */
int authusers_compile(struct authusers *u, const char *list);

void authusers_free(struct authusers *u);

#endif
