/* SPDX-License-Identifier: ISC */
/*
 * The selected module as the session uses it: its values with the
 * %VAR% references rsyncd defines per connection expanded (cfgvars.h),
 * at selection, before the module's path, ids and filters are used.
 */
#ifndef PRSYNCD_MODVARS_H
#define PRSYNCD_MODVARS_H

#include "config.h"

#define MODVARS_VALUE_MAX 65536 /* one expanded value */

struct modvars {
	struct cfg_module m;   /* the snapshot's module, expanded strings swapped in */
	char *owned[16];       /* those strings */
	int nowned;
};

/* Expand `in`'s strings for a client at addr (host: its name, as logged).
 * 0, or -1 (logged) if a value grows beyond MODVARS_VALUE_MAX or memory
 * is short. */
int modvars_expand(struct modvars *v, const struct cfg_module *in, const char *host, const char *addr,
		   const char *user);

/* Expand the session values in `in` as they are (a syslog tag: it only
 * names the session in a record's header), mod's path already expanded;
 * an unknown or unterminated %NAME stays as written, the result is cut
 * at cap - 1 bytes. */
void modvars_expand_text(char *out, size_t cap, const char *in, const struct cfg_module *mod, const char *host,
			 const char *addr, const char *user);

#endif
