/* SPDX-License-Identifier: ISC */
/*
 * A module's "refuse options", judged as rsyncd 3.5 judges them: against
 * rsync's own option names (long names, letters, the "no-" forms), with
 * wildcards, "!" exceptions, the aliases that set the same thing, and
 * the options rsyncd refuses in every module.  The option parser asks
 * about each option as the client spelled it (refuse_check) and, once the
 * arguments are parsed, about what they imply (refuse_implied).
 */
#ifndef PRSYNCD_REFUSE_H
#define PRSYNCD_REFUSE_H

#include <stddef.h>

#include "options.h"

#define REFUSE_SPEC_MAX 1024   /* the directive's value, with its NUL */
#define REFUSE_NOPTS 288       /* at least the size of the option table */

struct refuse {
	unsigned char refused[REFUSE_NOPTS]; /* per option of the table */
	unsigned char seen[REFUSE_NOPTS];    /* the client used it (refuse_check) */
	int active;                          /* 0: nothing is judged (not a daemon session) */
};

/*
 * Build the set for a module: rsyncd's defaults (--copy-devices and
 * --write-devices refused), the directive's words in order, then what
 * rsyncd refuses after them whatever they say (--iconv without a module
 * charset, --log-file*).  `nomatch` gets the first word that names no
 * rsync option ("" if none), for rsyncd's log line.
 */
void refuse_compile(struct refuse *r, const char *spec, int have_charset, char *nomatch, size_t nomatchlen);

/*
 * One option as the client sent it: `name` is the long name as spelled
 * ("delete", "no-perms", "no-p"), or NULL for a letter of a cluster.
 * Returns 0, or -1 with rsyncd's text in err ("rsync: The server is
 * configured to refuse --dry-run (-n)").
 */
int refuse_check(struct refuse *r, const char *name, char letter, char *err, size_t errlen);

/* Is NAME ("delete", "no-perms") one of rsync 3.5.0's long option names?
 * Its table is the whole list, so the parser takes a --no-NAME only when
 * rsync has it. */
int refuse_known(const char *name);

/* After the last option: refusals rsyncd infers from the result (-z by
 * a compression level or choice, --delete by --remove-source-files or a
 * delete mode, --inplace by --append, --partial by --inplace, ...). */
int refuse_implied(const struct refuse *r, const struct options *o, char *err, size_t errlen);

#endif
