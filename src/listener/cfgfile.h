/* SPDX-License-Identifier: ISC */
/*
 * Reading configuration files: the main file, the files of &include and
 * &merge, and the files of the "include from"/"exclude from" directives.
 * The listener's only.
 */
#ifndef PRSYNCD_CFGFILE_H
#define PRSYNCD_CFGFILE_H

#include <stddef.h>

#define CFGFILE_MAX (1024 * 1024)  /* any one file */
#define CFGFILE_DIR_MAX 1024       /* files taken from one &include/&merge directory */

/*
 * Read a regular file of at most max bytes, without NUL bytes, into a new
 * NUL-terminated buffer (*len bytes before the NUL).  A FIFO or device in
 * its place is refused without blocking.  0, or -1 with the reason in why.
 */
int cfgfile_read(const char *path, size_t max, char **out, size_t *len, char *why, size_t whylen);

/*
 * What an &include or &merge names: the file itself, or, for a directory,
 * its files whose names end in `suffix` (".conf" or ".inc"), in byte
 * order of their names, not recursing.  *paths is a new array of new
 * strings (free with cfgfile_free_list).  0, or -1 with why.
 */
int cfgfile_list(const char *path, const char *suffix, char ***paths, size_t *n, char *why, size_t whylen);
void cfgfile_free_list(char **paths, size_t n);

#endif
