/* SPDX-License-Identifier: ISC */
/*
 * "socket options": rsyncd's list of NAME[=VALUE] words (separated by
 * blanks or commas), set on every accepted connection.
 */
#ifndef PRSYNCD_SOCKOPTS_H
#define PRSYNCD_SOCKOPTS_H

#include <stddef.h>

/* NULL if the list can be kept (at most 1023 bytes), else why not. */
const char *sockopts_check(const char *spec);

/* NULL if every word names an option rsyncd knows; else what becomes of
 * the first that does not (rsyncd logs it at each connection and sets
 * the others: so do we, with a warning at load). */
const char *sockopts_unknown(const char *spec);

/* Set them on a connection; one that the kernel refuses is skipped (rsyncd
 * logs it and goes on). */
void sockopts_apply(int fd, const char *spec);

#endif
