/* SPDX-License-Identifier: ISC */
/*
 * Numeric host tokens (hostlist.h).  The list is the operator's, checked
 * when the configuration is loaded; matching re-reads it each time (a few
 * tokens, once per connection) rather than keeping a compiled copy in the
 * snapshot.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "hostlist.h"

#define SEPARATORS ", \t\r\n"

struct token {
	uint8_t family;    /* 4 or 6 */
	uint8_t addr[16];  /* IPv4 in the first 4 bytes */
	uint8_t mask[16];
};

static int set_bits(uint8_t mask[16], const char *s, unsigned max)
{
	unsigned bits = 0;

	if (*s == '\0' || strlen(s) > 3 || strspn(s, "0123456789") != strlen(s))
		return -1;
	for (; *s; s++)
		bits = bits * 10 + (unsigned)(*s - '0');
	if (bits > max)
		return -1;
	for (unsigned i = 0; i < bits; i++)
		mask[i / 8] |= (uint8_t)(0x80u >> (i % 8));
	return 0;
}

/* One token of n bytes; -1 if it is not a numeric form. */
static int parse_token(const char *tok, size_t n, struct token *t)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char buf[2 * INET6_ADDRSTRLEN + 2], *slash;
	int v6, fold;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, tok, n);
	buf[n] = '\0';
	memset(t, 0, sizeof(*t));
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, t->addr) == 1)
		v6 = 0;
	else if (inet_pton(AF_INET6, buf, t->addr) == 1)
		v6 = 1;
	else
		return -1;
	/* Peers are keyed with IPv4-mapped addresses folded to IPv4. */
	fold = v6 && memcmp(t->addr, mapped, 12) == 0;
	if (slash == NULL)
		memset(t->mask, 0xff, v6 ? 16 : 4);
	else if (strchr(slash, '.') == NULL && strchr(slash, ':') == NULL) {
		if (set_bits(t->mask, slash, v6 ? 128 : 32) < 0)
			return -1;
	} else if (fold || inet_pton(v6 ? AF_INET6 : AF_INET, slash, t->mask) != 1)
		return -1;
	if (fold) {
		memmove(t->addr, t->addr + 12, 4);
		memmove(t->mask, t->mask + 12, 4);
		memset(t->addr + 4, 0, 12);
		memset(t->mask + 4, 0, 12);
	}
	t->family = v6 && !fold ? 6 : 4;
	return 0;
}

int hostlist_check(const char *list, char *why, size_t whylen)
{
	struct token t;

	for (const char *p = list; p && *p; ) {
		size_t n;

		p += strspn(p, SEPARATORS);
		n = strcspn(p, SEPARATORS);
		if (n > 0 && parse_token(p, n, &t) < 0) {
			if (whylen > 0)
				snprintf(why, whylen, "'%.*s' is not an address, ADDRESS/BITS or ADDRESS/MASK",
					 (int)(n > 80 ? 80 : n), p);
			return -1;
		}
		p += n;
	}
	return 0;
}

int hostlist_match(const char *list, uint8_t family, const uint8_t addr[16])
{
	struct token t;

	for (const char *p = list; p && *p; ) {
		size_t n, i;

		p += strspn(p, SEPARATORS);
		n = strcspn(p, SEPARATORS);
		if (n > 0 && parse_token(p, n, &t) == 0 && t.family == family) {
			for (i = 0; i < 16 && (addr[i] & t.mask[i]) == (t.addr[i] & t.mask[i]); i++)
				;
			if (i == 16)
				return 1;
		}
		p += n;
	}
	return 0;
}
