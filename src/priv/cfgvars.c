/* SPDX-License-Identifier: ISC */
/* %VAR% expansion (cfgvars.h). */
#include <string.h>

#include "cfgvars.h"

#define NAME_MAX_LEN 255 /* longer "names" are left as written */

int cfgvars_expand(const char *in, char *out, size_t outlen, cfgvars_lookup_fn lookup, void *ctx)
{
	size_t o = 0;
	int over = 0;

	if (outlen == 0)
		return -1;
	for (const char *p = in; *p;) {
		const char *close = *p == '%' ? strchr(p + 1, '%') : NULL;
		size_t n = close ? (size_t)(close - p - 1) : 0, len;
		char name[NAME_MAX_LEN + 1];
		const char *val = NULL;

		if (n > 0 && n <= NAME_MAX_LEN) {
			memcpy(name, p + 1, n);
			name[n] = '\0';
			val = lookup(name, ctx);
		}
		/* The value, or one byte as written: the closing '%' of a
		 * reference left so may open the next one. */
		len = val ? strlen(val) : 1;
		if (len >= outlen - o) {
			len = outlen - o - 1;
			over = 1;
		}
		memcpy(out + o, val ? val : p, len);
		o += len;
		p = val ? close + 1 : p + 1;
	}
	out[o] = '\0';
	return over ? -1 : 0;
}

int cfgvars_is_session_name(const char *name)
{
	return strncmp(name, "RSYNC_", 6) == 0;
}
