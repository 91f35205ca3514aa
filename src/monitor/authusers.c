/* SPDX-License-Identifier: ISC */
/*
 * "auth users" rules (authusers.h): split and compiled once, from the
 * configuration; nothing here sees a client's bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "authusers.h"
#include "config.h"
#include "wildmatch.h"

/* A rule comes from one configuration line: the compiler takes it whole. */
_Static_assert(CFG_MAX_LINE <= PR_WILD_PAT_MAX, "an auth users rule fits the pattern compiler");

/* The ":deny" / ":ro" / ":rw" option after a rule. */
static char kind_of(const char *opt)
{
	if ((opt[0] | 0x20) == 'd')
		return 'd';
	if ((opt[0] | 0x20) != 'r')
		return ' ';
	return (opt[1] | 0x20) == 'o' ? 'r' : (opt[1] | 0x20) == 'w' ? 'w' : ' ';
}

static int add(struct authusers *u, const char *s, size_t n)
{
	char *tok, *opt;
	struct authuser_rule *g, *r;

	if (n > PR_WILD_PAT_MAX || (tok = malloc(n + 1)) == NULL)
		return -1;
	memcpy(tok, s, n);
	tok[n] = '\0';
	if ((g = realloc(u->r, (u->n + 1) * sizeof(*g))) == NULL) {
		free(tok);
		return -1;
	}
	u->r = g;
	r = &u->r[u->n];
	r->kind = ' ';
	if ((opt = strchr(tok, ':')) != NULL) {
		*opt++ = '\0';
		r->kind = kind_of(opt);
	}
	r->group = tok[0] == '@';
	r->prog = pr_wild_compile(tok + r->group, PR_WILD_STREAM);
	free(tok);
	if (r->prog == NULL)
		return -1;
	u->n++;
	return 0;
}

int authusers_compile(struct authusers *u, const char *list)
{
	const char *sep = list && list[0] == ',' ? "," : " ,\t";

	authusers_free(u); /* the rules of the module compiled before, if any */
	for (const char *p = list ? list + strspn(list, sep) : ""; *p; p += strspn(p, sep)) {
		const char *s = p;
		size_t n = strcspn(p, sep);

		p += n;
		while (sep[1] == '\0' && n > 0 && (*s == ' ' || *s == '\t')) /* comma mode: trimmed */
			s++, n--;
		while (sep[1] == '\0' && n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n > 0 && add(u, s, n) < 0) {
			authusers_free(u);
			return -1;
		}
	}
	return 0;
}

void authusers_free(struct authusers *u)
{
	for (size_t i = 0; i < u->n; i++)
		pr_wild_free(u->r[i].prog);
	free(u->r);
	memset(u, 0, sizeof(*u));
}
