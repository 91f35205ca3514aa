/* SPDX-License-Identifier: ISC */
/*
 * A module's "charset": with a client that asks for --iconv, file names
 * (and, with the client's 's' capability, symlink targets) go on the wire
 * in UTF-8, converted from the module's charset, as rsyncd converts them.
 *
 * glibc's iconv loads converter modules from disk when a converter is
 * opened, and the worker's sandbox leaves it no file to load: every
 * charset of the configuration is opened before the sandbox
 * (charset_preload, from the list in PR_M_INIT); the selected module's
 * pair is picked afterwards (charset_select).
 */
#ifndef PRSYNCD_CHARSET_H
#define PRSYNCD_CHARSET_H

#include <stddef.h>

#define CHARSET_MAX 16  /* distinct charsets opened before the sandbox */

/* Open the converters of each name in `names` (separated by single
 * spaces).  A name iconv does not know is remembered as unusable. */
void charset_preload(const char *names);

/* Use the module's charset.  0, or -1 if it was not preloaded or iconv
 * does not know it. */
int charset_select(const char *name);

/* Convert one name from the module's charset to UTF-8 (to = 1), or back
 * (to = 0), into out (cap bytes, NUL-terminated).  0, or -1 with errno
 * (EILSEQ, EINVAL, E2BIG) for a name that cannot be converted. */
int charset_convert(int to, const char *in, size_t inlen, char *out, size_t cap, size_t *outlen);

#endif
