/* SPDX-License-Identifier: ISC */
/*
 * "hosts allow" / "hosts deny" (hosts.h).  The lists are parsed from the
 * configuration (hosts_parse: numeric addresses and masks, patterns
 * compiled); a decision (hosts_decide) only compares the peer with the
 * parsed tokens.  Work per decision: one pass over each list; per token at
 * most one run of a compiled pattern over the peer's name (linear in it),
 * one masked comparison and one question to the caller's name service.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hosts.h"
#include "wildmatch.h"

#define SEPARATORS " ,\t"

enum which { ALLOW, DENY };

/* Next token of *list, lower-cased into tok; 0 at the end.  An over-long
 * token comes back empty with *toolong set. */
static int next_token(const char **list, char tok[HOSTS_TOKEN_MAX + 1], int *toolong)
{
	const char *s = *list + strspn(*list, SEPARATORS);
	size_t n = strcspn(s, SEPARATORS);

	*list = s + n;
	*toolong = n > HOSTS_TOKEN_MAX;
	if (n == 0)
		return 0;
	if (*toolong)
		n = 0;
	for (size_t i = 0; i < n; i++)
		tok[i] = (char)tolower((unsigned char)s[i]);
	tok[n] = '\0';
	return 1;
}

/*
 * The scope after '%' of IPv6 address a, as glibc's getaddrinfo reads it:
 * for a link-local or node/link-local multicast address first an
 * interface name, then (for any address) a decimal number up to
 * UINT32_MAX.  0, or -1 if it is neither, or names an interface whose
 * index is not known.
 */
static int parse_scope(const char *sc, const unsigned char a[16], const struct hosts_scopes *scopes, uint32_t *out)
{
	int ifname = (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || (a[0] == 0xff && ((a[1] & 0x0f) == 1 || (a[1] & 0x0f) == 2));
	unsigned long long v = 0;
	size_t i;

	if (ifname) {
		long idx = scopes != NULL ? scopes->index(scopes->ctx, sc) : -1;

		if (idx < 0 || (unsigned long)idx > UINT32_MAX)
			return -1; /* the interface's existence decides, and it is not known */
		if (idx > 0) {
			*out = (uint32_t)idx;
			return 0;
		}
	}
	for (i = 0; sc[i] >= '0' && sc[i] <= '9' && v <= UINT32_MAX; i++)
		v = v * 10 + (unsigned)(sc[i] - '0');
	if (i == 0 || sc[i] != '\0' || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A numeric address (no mask) as getaddrinfo(AI_NUMERICHOST) reads one,
 * without calling it (it would look a scope's interface up itself, with
 * a socket): IPv4 in inet_aton's forms (text is digits and dots, or has a
 * ':'), IPv6 with inet_pton and an optional %scope.  0, or -1 if it is
 * not an address (or its scope cannot be read). */
static int parse_addr(const char *text, int *family, unsigned char addr[16], uint32_t *scope,
		      const struct hosts_scopes *scopes)
{
	char a6[INET6_ADDRSTRLEN + 1];
	const char *pct;
	struct in_addr in;
	size_t n;

	*scope = 0;
	if (strchr(text, ':') == NULL) {
		if (inet_aton(text, &in) == 0)
			return -1;
		*family = AF_INET;
		memcpy(addr, &in, 4);
		return 0;
	}
	pct = strchr(text, '%');
	n = pct ? (size_t)(pct - text) : strlen(text);
	if (n >= sizeof(a6))
		return -1;
	memcpy(a6, text, n);
	a6[n] = '\0';
	if (inet_pton(AF_INET6, a6, addr) != 1)
		return -1;
	*family = AF_INET6;
	return pct ? parse_scope(pct + 1, addr, scopes, scope) : 0;
}

/* rsyncd's test for "this token is an address": digits and dots only, or a ':'. */
static int looks_numeric(const char *a)
{
	return a[strspn(a, ".0123456789")] == '\0' || strchr(a, ':') != NULL;
}

/*
 * The mask of an ADDRESS token of family (len bytes): /BITS or /MASK, or
 * all ones without a slash.  1 = the mask is in mask, 2 = /0 (every
 * address), -1 = malformed.
 */
static int parse_mask(const char *m, int family, size_t len, unsigned char mask[16])
{
	long bits = (long)len * 8;
	char *end;

	if (m != NULL && inet_pton(family, m, mask) == 1)
		return 1;
	if (m != NULL) {
		bits = strtol(m, &end, 10);
		if (*m == '\0' || *end != '\0' || bits < 0 || bits > (long)len * 8)
			return -1;
		if (bits == 0)
			return 2;
	}
	for (size_t i = 0; i < len; i++, bits -= 8)
		mask[i] = bits >= 8 ? 0xff : bits <= 0 ? 0 : (unsigned char)(0xff << (8 - bits));
	return 1;
}

/* The ADDRESS form of tok into t: 1, 2 (/0: every address of its family),
 * 0 if tok is a name, -1 if it is a malformed address. */
static int parse_address(char *tok, struct hosts_token *t, const struct hosts_scopes *sc)
{
	char *slash = strchr(tok, '/');
	int rc;

	if (slash)
		*slash = '\0';
	rc = looks_numeric(tok) ? parse_addr(tok, &t->family, t->a, &t->scope, sc) : -2;
	if (slash)
		*slash = '/';
	if (rc == -2)
		return 0;
	if (rc < 0)
		return -1;
	return parse_mask(slash ? slash + 1 : NULL, t->family, t->family == AF_INET ? 4 : 16, t->mask);
}

static int parse_token(struct hosts_token *t, char *tok, int toolong, const struct hosts_scopes *sc)
{
	int addr;

	memset(t, 0, sizeof(*t));
	if ((t->toolong = (uint8_t)toolong) != 0)
		return 0;
	t->netgroup = tok[0] == '@' && tok[1] != '\0';
	if ((t->text = strdup(tok + t->netgroup)) == NULL)
		return -1;
	if (t->netgroup)
		return 0;
	if ((t->prog = pr_wild_compile(tok, PR_WILD_STREAM)) == NULL)
		return -1;
	t->fwd = tok[strspn(tok, ".0123456789")] != '\0' && tok[strcspn(tok, ":/*?[")] == '\0';
	addr = parse_address(tok, t, sc);
	t->addr = (uint8_t)(addr > 0 ? addr : 0);
	/* the configuration check refused every other malformed address:
	 * what is left is a scope whose interface is unknown now */
	t->bad = addr < 0;
	return 0;
}

int hosts_parse(struct hosts_list *l, const char *list, const struct hosts_scopes *sc)
{
	char tok[HOSTS_TOKEN_MAX + 1];
	int toolong;

	memset(l, 0, sizeof(*l));
	l->set = list != NULL && *list != '\0';
	while (l->set && next_token(&list, tok, &toolong)) {
		struct hosts_token *g = realloc(l->t, (l->n + 1) * sizeof(*g));

		if (g == NULL)
			goto fail;
		l->t = g;
		if (parse_token(&l->t[l->n++], tok, toolong, sc) < 0)
			goto fail;
	}
	return 0;
fail:
	hosts_list_free(l);
	return -1;
}

void hosts_list_free(struct hosts_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->t[i].text);
		pr_wild_free(l->t[i].prog);
	}
	free(l->t);
	memset(l, 0, sizeof(*l));
}

/* --- decisions: the peer against parsed tokens ------------------------------ */

static int address_matches(const struct hosts_token *t, const struct hosts_peer *p)
{
	if (t->addr == 0 || t->family != p->family || (t->scope != 0 && t->scope != p->scope))
		return 0;
	if (t->addr == 2)
		return 1;
	for (size_t i = 0; i < (t->family == AF_INET ? 4u : 16u); i++)
		if ((t->a[i] ^ p->addr[i]) & t->mask[i])
			return 0;
	return 1;
}

/* One token, in rsyncd's order: netgroup, pattern, forward lookup, address. */
static int token_matches(const struct hosts_token *t, const struct hosts_peer *p, const char *lname,
			 enum which w, int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	int r;

	if (t->netgroup) {
		r = ns->netgroup(ns->ctx, t->text, p->name, w == DENY);
		return r == 1 || (r < 0 && w == DENY);
	}
	if (pr_wild_run(t->prog, lname, strlen(lname), PR_WILD_START))
		return 1;
	if (forward && t->fwd) {
		r = ns->forward(ns->ctx, t->text, w == DENY);
		if (r == 1 && p->undetermined)
			snprintf(shown, showlen, "%s", t->text);
		return r == 1 || (r < 0 && w == DENY); /* a plain name is never an address */
	}
	return address_matches(t, p);
}

static int list_matches(const struct hosts_list *l, enum which w, const struct hosts_peer *p, const char *lname,
			int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct hosts_token *t = &l->t[i];

		if (t->toolong || t->bad) {
			if (ns->unjudged != NULL)
				ns->unjudged(ns->ctx, t->toolong ? "" : t->text,
					     t->toolong ? "longer than 255 bytes" : "its scope names no known interface",
					     w == DENY);
			if (w == DENY)
				return 1; /* cannot be judged: refuse */
			continue;
		}
		if (token_matches(t, p, lname, w, forward, ns, shown, showlen))
			return 1;
	}
	return 0;
}

/* The decision on the peer's lower-cased name, whole: a name cut short
 * could match a pattern the name itself does not. */
static int decide(const struct hosts_list *allow, const struct hosts_list *deny, const struct hosts_peer *p,
		  const char *lname, int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	if (allow->set) {
		if (list_matches(allow, ALLOW, p, lname, forward, ns, shown, showlen))
			return 1;
		if (!deny->set)
			return 0;
	}
	if (deny->set && list_matches(deny, DENY, p, lname, forward, ns, shown, showlen))
		return 0;
	shown[0] = '\0'; /* only a decisive match names the peer */
	return 1;
}

int hosts_decide(const struct hosts_list *allow, const struct hosts_list *deny, const struct hosts_peer *p,
		 int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	size_t n = strlen(p->name);
	char *lname = malloc(n + 1);
	int r;

	shown[0] = '\0';
	if (lname == NULL)
		return 0;
	for (size_t i = 0; i <= n; i++)
		lname[i] = (char)tolower((unsigned char)p->name[i]);
	r = decide(allow, deny, p, lname, forward, ns, shown, showlen);
	free(lname);
	return r;
}

int hosts_allowed(const char *allow, const char *deny, const struct hosts_peer *p, int forward,
		  const struct hosts_ns *ns, char *shown, size_t showlen)
{
	struct hosts_list a, d;
	char scratch[HOSTS_TOKEN_MAX + 1];
	int r = 0;

	if (shown == NULL || showlen == 0) { /* hosts_decide always fills one in */
		shown = scratch;
		showlen = sizeof(scratch);
	}
	shown[0] = '\0';
	if (hosts_parse(&a, allow, NULL) == 0 && hosts_parse(&d, deny, NULL) == 0) {
		r = hosts_decide(&a, &d, p, forward, ns, shown, showlen);
		hosts_list_free(&d);
	}
	hosts_list_free(&a);
	return r;
}

const char *hosts_check(const char *list, char *bad, size_t badlen)
{
	struct hosts_token t;
	char tok[HOSTS_TOKEN_MAX + 1];
	int toolong;

	while (next_token(&list, tok, &toolong)) {
		char *pct = strchr(tok, '%'), *slash;

		if (toolong) {
			snprintf(bad, badlen, "(a token of more than %d bytes)", HOSTS_TOKEN_MAX);
			return "has a token longer than 255 bytes";
		}
		/* a scope names an interface that may only appear later */
		if (pct != NULL && (slash = strchr(pct, '/')) != NULL)
			memmove(pct, slash, strlen(slash) + 1);
		else if (pct != NULL)
			*pct = '\0';
		if (parse_address(tok, &t, NULL) < 0) {
			snprintf(bad, badlen, "%s", tok);
			return "has a malformed address or mask";
		}
	}
	return NULL;
}
