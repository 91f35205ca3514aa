/* SPDX-License-Identifier: ISC */
/*
 * "hosts allow" / "hosts deny" as rsyncd 3.5.0 decides them
 * (rsyncd.conf(5)), as a pure function of the list, the peer and the
 * answers of the name service, which the caller supplies (the session
 * monitor asks them before the worker exists; the listener's configuration
 * check and the fuzz target ask none).
 *
 * A list is split on blanks, tabs and commas and lower-cased.  Each token
 * matches the peer if one of these does:
 *   @NETGROUP   the peer's name is in the netgroup (and nothing else is tried)
 *   PATTERN     the peer's name, lower-cased, matches the token as an rsync
 *               wildcard pattern (an exact name is a pattern without wildcards)
 *   NAME        with forward lookup on, for a token that is a plain name (not
 *               all digits and dots, none of the bytes : / * ? [): one of the name's IPv4
 *               addresses is the peer's (rsyncd asks gethostbyname, so an
 *               IPv6 peer never matches this way).  A name that does not
 *               resolve matches in a deny list (rsync 3.5.0 fails closed,
 *               CVE-2026-70452) and not in an allow list.
 *   ADDRESS     a numeric IPv4 or IPv6 address, optionally /BITS or /MASK
 *               (a mask written as an address of the same family): the
 *               peer's address under the mask; /0 matches every address of
 *               the family; a scope (fe80::1%eth0) must be the peer's.
 *               Read as getaddrinfo(AI_NUMERICHOST) reads it, without it:
 *               IPv4 in inet_aton's forms, IPv6 with inet_pton, and an
 *               interface named in a scope looked up through the caller
 *               (hosts_scopes), so parsing makes no system call.
 * Precedence: a match in "hosts allow" admits; otherwise, with an allow list
 * and no deny list, the peer is refused; otherwise a match in "hosts deny"
 * refuses; everything else is admitted.
 *
 * No token is ever skipped: one that cannot be judged (longer than
 * HOSTS_TOKEN_MAX, an address whose scope names no known interface, a name
 * or netgroup whose lookup failed) matches in a deny list and does not
 * admit in an allow list, and the caller is told (hosts_ns.unjudged, or
 * its own lookup functions).
 */
#ifndef PRSYNCD_HOSTS_H
#define PRSYNCD_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#define HOSTS_TOKEN_MAX 255 /* longer tokens are refused by the configuration check */

struct hosts_peer {
	int family;              /* AF_INET or AF_INET6 (mapped IPv4 given as AF_INET) */
	unsigned char addr[16];  /* network order; 4 bytes for AF_INET */
	uint32_t scope;          /* AF_INET6 scope id, 0 if none */
	const char *name;        /* reverse name, "UNKNOWN", or "UNDETERMINED" (any length) */
	int undetermined;        /* name is the "no reverse lookup" placeholder */
};

/* The name service, asked only for tokens that need it.  deny: the token
 * is in the deny list (for the callee's log line: a failure there counts
 * as a match). */
struct hosts_ns {
	/* NAME resolves to the peer's IPv4 address: 1; resolves, not the
	 * peer's: 0; does not resolve, or its answer is not known: -1. */
	int (*forward)(void *ctx, const char *name, int deny);
	/* The peer's name is in netgroup GROUP: 1; not: 0; the question
	 * could not be answered: -1. */
	int (*netgroup)(void *ctx, const char *group, const char *host, int deny);
	void *ctx;
	/* Optional: a token that cannot be judged (too long, or an address
	 * with an unknown scope) was met; it refuses in a deny list and does
	 * not admit in an allow list. */
	void (*unjudged)(void *ctx, const char *token, const char *why, int deny);
};

/* Interface names in scopes (fe80::1%eth0), as getaddrinfo looks them up
 * for link-local addresses: the interface's index, 0 if there is no such
 * interface, -1 if that is not known. */
struct hosts_scopes {
	long (*index)(void *ctx, const char *ifname);
	void *ctx;
};

struct pr_wild;

/* One token of a list, parsed once from the configuration (hosts_parse). */
struct hosts_token {
	char *text;             /* the token lower-cased; a netgroup's name without '@' */
	struct pr_wild *prog;   /* the token as a pattern on the peer's name (stream program) */
	uint8_t netgroup;       /* @NETGROUP */
	uint8_t toolong;        /* longer than HOSTS_TOKEN_MAX: cannot be judged */
	uint8_t bad;            /* an address that cannot be read (an unknown scope): cannot be judged */
	uint8_t fwd;            /* a plain name: asked to the forward lookup */
	uint8_t addr;           /* 0 not an address (or malformed), 1 under mask, 2 every address */
	int family;
	uint32_t scope;
	unsigned char a[16], mask[16];
};

struct hosts_list {
	int set;                /* the directive is set (not NULL, not "") */
	size_t n;
	struct hosts_token *t;
};

/* Parse list (configuration text; NULL: unset).  sc: the interfaces of
 * scopes (NULL: none is known).  0, or -1 if memory is short (l is then
 * empty and unset). */
int hosts_parse(struct hosts_list *l, const char *list, const struct hosts_scopes *sc);
void hosts_list_free(struct hosts_list *l);

/*
 * rsyncd's decision for the peer: 1 admitted, 0 refused, from the parsed
 * lists alone (no parsing here).  forward: the module's "forward lookup".
 * When the peer is admitted or refused through a forward lookup while its
 * name is undetermined, rsyncd shows the configured name instead: it is
 * copied to shown (showlen bytes, at least 1), else shown is set to "".
 * ns and both its lookup functions are required (the callers always give
 * them).  0 as well if memory is short.
 */
int hosts_decide(const struct hosts_list *allow, const struct hosts_list *deny, const struct hosts_peer *p,
		 int forward, const struct hosts_ns *ns, char *shown, size_t showlen);

/* hosts_parse both lists (no scope is known), hosts_decide, free them: for
 * one-off decisions (tests).  Refuses (0) if memory is short.  shown may be
 * NULL here. */
int hosts_allowed(const char *allow, const char *deny, const struct hosts_peer *p, int forward,
		  const struct hosts_ns *ns, char *shown, size_t showlen);

/* Configuration check of one list: NULL, or why it is refused, with the
 * offending token copied to bad. */
const char *hosts_check(const char *list, char *bad, size_t badlen);

#endif
