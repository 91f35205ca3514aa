/* SPDX-License-Identifier: ISC */
/*
 * Between the two halves of the configuration parser: cfgtext.c reads the
 * file (lines, sections, &include/&merge, messages), config.c knows the
 * directives.  The listener's only; not for other files.
 */
#ifndef PRSYNCD_CFGPARSE_H
#define PRSYNCD_CFGPARSE_H

#include <stdarg.h>
#include <stddef.h>

#include "config.h"

#define CFG_NPARAMS_MAX 128 /* rows of config.c's table, at most */
#define CFG_UNKNOWN_MAX 16  /* unknown names remembered, to warn once each */

struct parser {
	const char *name; /* the file being read (an included one while it is) */
	int line; /* first physical line of the logical line being handled */
	struct cfg *cfg;
	struct cfg_module defaults; /* module values for the next header */
	struct cfg_module *cur;     /* NULL while in the global context */
	struct cfg_module scratch;  /* takes a broken section's lines, to check them */
	size_t cap;
	unsigned char warned[CFG_NPARAMS_MAX]; /* per row of the table: warned once */
	char unknown[CFG_UNKNOWN_MAX][64];       /* unknown parameters warned about, once each */
	size_t nunknown;
	int depth;                  /* &include/&merge nesting */
	int nfiles;                 /* files read through them */
	struct cfg_errors *errors;  /* every error, or NULL */
	size_t nerrors;
	char *err;                  /* the first error */
	size_t errlen;
};

/* cfgtext.c: messages, "FILE:LINE: [module [M]: ]text".  An error is
 * recorded and the parse goes on; both return -1 and 0 as do_line would. */
__attribute__((format(printf, 3, 4)))
int cfg_fail_at(struct parser *p, int line, const char *fmt, ...);
#define fail(p, ...) cfg_fail_at((p), (p)->line, __VA_ARGS__)
__attribute__((format(printf, 3, 4)))
int cfg_warn_at(struct parser *p, int line, const char *fmt, ...);
__attribute__((format(printf, 3, 0)))
int cfg_vwarn(struct parser *p, int line, const char *fmt, va_list ap);
int cfg_is_blank(char ch);

/* config.c */
int cfg_defaults(struct cfg *c, struct cfg_module *d);  /* a fresh configuration */
int cfg_param(struct parser *p, char *key, char *raw);  /* one "key = value" */
int cfg_end_module(struct parser *p);                   /* the section is complete */
int cfg_finish(struct parser *p);                       /* after the last line */
int cfg_module_copy(struct cfg_module *dst, const struct cfg_module *src);
void cfg_module_free(struct cfg_module *m);

#endif
