/* SPDX-License-Identifier: ISC */
/*
 * Lookups over a loaded configuration, shared by the listener (which
 * parses the file) and the session monitor (which holds a snapshot of it
 * and does not link the parser).
 */
#include <string.h>

#include "config.h"

/* Exact and case-sensitive, as rsyncd matches module names. */
const struct cfg_module *cfg_find_module(const struct cfg *c, const char *name)
{
	for (size_t i = 0; i < c->nmodules; i++)
		if (strcmp(c->modules[i].name, name) == 0)
			return &c->modules[i];
	return NULL;
}
