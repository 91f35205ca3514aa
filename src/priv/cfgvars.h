/* SPDX-License-Identifier: ISC */
/*
 * %VAR% references in configuration values, expanded as rsyncd 3.5.0
 * expands them (checked against it, tests/integration/t_confdirs.sh):
 *
 *  - "%NAME%" becomes NAME's value when NAME is defined; the scan goes on
 *    after the closing '%'.
 *  - Anything else is left as written: an undefined or empty name ("%%",
 *    "%NOPE%"), or a '%' without a closing one.  The closing '%' of a
 *    reference left as written may open the next one: "%NOPE%HOME%"
 *    gives "%NOPE" and HOME's value.  "%%" is not an escape; it stays.
 *  - A value is not expanded again.
 *
 * When: the listener expands every value with its own environment as it
 * reads the file, except the names rsyncd only defines during a
 * connection (cfgvars_is_session_name), which stay for the session
 * monitor to expand in the selected module's values (RSYNC_MODULE_NAME,
 * RSYNC_MODULE_PATH, RSYNC_HOST_ADDR, RSYNC_HOST_NAME, RSYNC_USER_NAME).
 * rsyncd expands a string when it first uses it, with the same result.
 */
#ifndef PRSYNCD_CFGVARS_H
#define PRSYNCD_CFGVARS_H

#include <stddef.h>

/* The value of NAME, or NULL to leave the reference as written. */
typedef const char *(*cfgvars_lookup_fn)(const char *name, void *ctx);

/* Expand `in` into out (outlen bytes).  0, or -1 if the result does not
 * fit (out then holds a truncated copy). */
int cfgvars_expand(const char *in, char *out, size_t outlen, cfgvars_lookup_fn lookup, void *ctx);

/* Is NAME one rsyncd defines per connection (RSYNC_*)?  Such names are
 * not looked up in the listener's environment. */
int cfgvars_is_session_name(const char *name);

#endif
