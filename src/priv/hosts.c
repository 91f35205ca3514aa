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
#include <netdb.h>
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

/* A numeric address (no mask); 0, or -1 if it is not one. */
static int parse_addr(const char *text, int *family, unsigned char addr[16], uint32_t *scope)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(text, NULL, &hints, &res) != 0)
		return -1;
	*family = res->ai_family;
	*scope = 0;
	if (res->ai_family == AF_INET) {
		memcpy(addr, &((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr, 4);
	} else if (res->ai_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(void *)res->ai_addr;

		memcpy(addr, &s6->sin6_addr, 16);
		*scope = s6->sin6_scope_id;
	} else {
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	return 0;
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
static int parse_address(char *tok, struct hosts_token *t)
{
	char *slash = strchr(tok, '/');
	int rc;

	if (slash)
		*slash = '\0';
	rc = looks_numeric(tok) ? parse_addr(tok, &t->family, t->a, &t->scope) : -2;
	if (slash)
		*slash = '/';
	if (rc == -2)
		return 0;
	if (rc < 0)
		return -1;
	return parse_mask(slash ? slash + 1 : NULL, t->family, t->family == AF_INET ? 4 : 16, t->mask);
}

static int parse_token(struct hosts_token *t, char *tok, int toolong)
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
	addr = parse_address(tok, t);
	t->addr = (uint8_t)(addr > 0 ? addr : 0);
	return 0;
}

int hosts_parse(struct hosts_list *l, const char *list)
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
		if (parse_token(&l->t[l->n++], tok, toolong) < 0)
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

	if (t->netgroup)
		return ns->netgroup(ns->ctx, t->text, p->name) == 1;
	if (pr_wild_run(t->prog, lname, strlen(lname), PR_WILD_START))
		return 1;
	if (forward && t->fwd) {
		r = ns->forward(ns->ctx, t->text);
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
		if (l->t[i].toolong) {
			if (w == DENY)
				return 1; /* cannot be judged: refuse */
			continue;
		}
		if (token_matches(&l->t[i], p, lname, w, forward, ns, shown, showlen))
			return 1;
	}
	return 0;
}

int hosts_decide(const struct hosts_list *allow, const struct hosts_list *deny, const struct hosts_peer *p,
		 int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	char lname[HOSTS_TOKEN_MAX + 1];
	size_t i;

	for (i = 0; p->name[i] && i < HOSTS_TOKEN_MAX; i++)
		lname[i] = (char)tolower((unsigned char)p->name[i]);
	lname[i] = '\0';
	shown[0] = '\0';
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
	if (hosts_parse(&a, allow) == 0 && hosts_parse(&d, deny) == 0) {
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
		if (parse_address(tok, &t) < 0) {
			snprintf(bad, badlen, "%s", tok);
			return "has a malformed address or mask";
		}
	}
	return NULL;
}
