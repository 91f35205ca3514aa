/* %VAR% expansion (cfgvars.h). */
#include <string.h>

#include "cfgvars.h"

#define NAME_MAX_LEN 255 /* longer "names" are left as written */

struct out {
	char *buf;
	size_t len, cap;
	int over;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->over || n >= o->cap - o->len) {
		size_t room = o->cap - o->len - 1;

		memcpy(o->buf + o->len, s, n < room ? n : room);
		o->len += n < room ? n : room;
		o->over = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

int cfgvars_expand(const char *in, char *out, size_t outlen, cfgvars_lookup_fn lookup, void *ctx)
{
	struct out o = { out, 0, outlen, 0 };
	const char *p = in;

	if (outlen == 0)
		return -1;
	while (*p) {
		const char *pct = strchr(p, '%'), *close;
		char name[NAME_MAX_LEN + 1];
		const char *val = NULL;
		size_t n;

		if (pct == NULL) {
			put(&o, p, strlen(p));
			break;
		}
		put(&o, p, (size_t)(pct - p));
		close = strchr(pct + 1, '%');
		if (close == NULL) {
			put(&o, pct, strlen(pct));
			break;
		}
		n = (size_t)(close - pct - 1);
		if (n > 0 && n <= NAME_MAX_LEN) {
			memcpy(name, pct + 1, n);
			name[n] = '\0';
			val = lookup(name, ctx);
		}
		if (val != NULL) {
			put(&o, val, strlen(val));
			p = close + 1;
		} else {
			/* As written, and the closing '%' may open the next one. */
			put(&o, pct, n + 1);
			p = close;
		}
	}
	o.buf[o.len] = '\0';
	return o.over ? -1 : 0;
}

int cfgvars_is_session_name(const char *name)
{
	return strncmp(name, "RSYNC_", 6) == 0;
}
