/*
 * "hosts allow" / "hosts deny" (hosts.h).  Work per decision: one pass over
 * each list; per token at most one pattern match over the peer's name, one
 * numeric address parse and one question to the caller's name service.
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

/* An ADDRESS token against the peer: 1, 0; -1 if the token is malformed. */
static int match_address(const struct hosts_peer *p, char *tok)
{
	char *slash = strchr(tok, '/');
	unsigned char a[16], mask[16];
	uint32_t scope;
	int family, rc;
	size_t len;

	if (slash)
		*slash = '\0';
	rc = looks_numeric(tok) ? parse_addr(tok, &family, a, &scope) : -2;
	if (slash)
		*slash = '/';
	if (rc == -2)
		return 0; /* a name, not an address */
	if (rc < 0)
		return -1;
	len = family == AF_INET ? 4 : 16;
	rc = parse_mask(slash ? slash + 1 : NULL, family, len, mask);
	if (rc < 0)
		return -1;
	if (family != p->family || (scope != 0 && scope != p->scope))
		return 0;
	if (rc == 2)
		return 1;
	for (size_t i = 0; i < len; i++)
		if ((a[i] ^ p->addr[i]) & mask[i])
			return 0;
	return 1;
}

/* Everything but the address forms, in rsyncd's order. */
static int match_name(const struct hosts_peer *p, const char *lname, const char *tok, enum which w,
		      int forward, const struct hosts_ns *ns, char *shown, size_t showlen)
{
	int r;

	if (tok[0] == '@' && tok[1] != '\0')
		return ns && ns->netgroup ? ns->netgroup(ns->ctx, tok + 1, p->name) == 1 : 0;
	if (pr_wildmatch(tok, lname, strlen(lname), PR_WILD_START))
		return 1;
	if (!forward || tok[strspn(tok, ".0123456789")] == '\0' || tok[strcspn(tok, ":/*?[")] != '\0')
		return 0;
	r = ns && ns->forward ? ns->forward(ns->ctx, tok) : -1;
	if (r == 1 && p->undetermined && shown && showlen)
		snprintf(shown, showlen, "%s", tok);
	return r == 1 || (r < 0 && w == DENY);
}

static int list_matches(const char *list, enum which w, const struct hosts_peer *p, int forward,
			const struct hosts_ns *ns, char *shown, size_t showlen)
{
	char tok[HOSTS_TOKEN_MAX + 1], lname[HOSTS_TOKEN_MAX + 1];
	int toolong;
	size_t i;

	for (i = 0; p->name[i] && i < HOSTS_TOKEN_MAX; i++)
		lname[i] = (char)tolower((unsigned char)p->name[i]);
	lname[i] = '\0';
	while (next_token(&list, tok, &toolong)) {
		if (toolong) {
			if (w == DENY)
				return 1; /* cannot be judged: refuse */
			continue;
		}
		if (match_name(p, lname, tok, w, forward, ns, shown, showlen) || match_address(p, tok) == 1)
			return 1;
	}
	return 0;
}

int hosts_allowed(const char *allow, const char *deny, const struct hosts_peer *p, int forward,
		  const struct hosts_ns *ns, char *shown, size_t showlen)
{
	if (shown && showlen)
		shown[0] = '\0';
	if (allow && !*allow)
		allow = NULL;
	if (deny && !*deny)
		deny = NULL;
	if (allow) {
		if (list_matches(allow, ALLOW, p, forward, ns, shown, showlen))
			return 1;
		if (!deny)
			return 0;
	}
	if (deny && list_matches(deny, DENY, p, forward, ns, shown, showlen))
		return 0;
	if (shown && showlen)
		shown[0] = '\0'; /* only a decisive match names the peer */
	return 1;
}

const char *hosts_check(const char *list, char *bad, size_t badlen)
{
	static const struct hosts_peer none = { .family = AF_UNSPEC, .name = "" };
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
		if (match_address(&none, tok) < 0) {
			snprintf(bad, badlen, "%s", tok);
			return "has a malformed address or mask";
		}
	}
	return NULL;
}
