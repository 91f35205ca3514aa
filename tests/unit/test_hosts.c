/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for hosts allow/deny (src/priv/hosts.c): every token form of
 * rsyncd.conf(5), rsyncd 3.5.0's precedence, forward lookups failing closed
 * in a deny list, the name shown for an undetermined peer, the
 * configuration check.  The name service is a table here; the behaviour it
 * stands for is compared with rsyncd in t_access.sh.
 */
#include "hosts.h"
#include "unit.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static int lookups;

/* good.example is 10.0.0.2 and 10.9.9.9; other.example is 10.0.0.3;
 * v6.example has only an IPv6 address; everything else does not resolve. */
static int fwd(void *ctx, const char *name, int deny)
{
	const struct hosts_peer *p = ctx;
	unsigned char a[4];

	lookups++;
	if (strcmp(name, "good.example") == 0)
		return p->family == AF_INET && inet_pton(AF_INET, "10.0.0.2", a) == 1 && memcmp(a, p->addr, 4) == 0;
	if (strcmp(name, "other.example") == 0 || strcmp(name, "v6.example") == 0)
		return 0;
	return -1;
}

/* "broken" stands for a netgroup whose lookup fails */
static int netgroup(void *ctx, const char *group, const char *host, int deny)
{
	(void)ctx;
	if (strcmp(group, "broken") == 0)
		return -1;
	return strcmp(group, "trusted") == 0 && strcmp(host, "Host.Example") == 0;
}

static struct hosts_peer peer(const char *addr, const char *name)
{
	struct hosts_peer p = { .name = name, .undetermined = strcmp(name, "UNDETERMINED") == 0 };

	if (inet_pton(AF_INET, addr, p.addr) == 1) {
		p.family = AF_INET;
	} else {
		p.family = AF_INET6;
		inet_pton(AF_INET6, addr, p.addr);
	}
	return p;
}

static int decide(const char *allow, const char *deny, const char *addr, const char *name, int forward)
{
	struct hosts_peer p = peer(addr, name);
	struct hosts_ns ns = { fwd, netgroup, &p, NULL };
	char shown[256];

	return hosts_allowed(allow, deny, &p, forward, &ns, shown, sizeof(shown));
}

#define ALLOWS(list, addr, name) decide((list), NULL, (addr), (name), 1)
#define DENIES(list, addr, name) !decide(NULL, (list), (addr), (name), 1)

static void test_addresses(void)
{
	CHECK(ALLOWS("10.0.0.2", "10.0.0.2", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.2", "10.0.0.3", "UNKNOWN"));
	CHECK(ALLOWS("10.0.0.0/8", "10.200.1.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/8", "11.0.0.1", "UNKNOWN"));
	CHECK(ALLOWS("10.1.0.0/255.255.0.0", "10.1.77.3", "UNKNOWN"));
	CHECK(!ALLOWS("10.1.0.0/255.255.0.0", "10.2.77.3", "UNKNOWN"));
	CHECK(ALLOWS("10.1.2.128/25", "10.1.2.200", "UNKNOWN"));
	CHECK(!ALLOWS("10.1.2.128/25", "10.1.2.100", "UNKNOWN"));
	CHECK(ALLOWS("0.0.0.0/0", "192.0.2.1", "UNKNOWN"));
	CHECK(!ALLOWS("0.0.0.0/0", "::1", "UNKNOWN"));       /* /0 is per family */
	CHECK(ALLOWS("127.1", "127.0.0.1", "UNKNOWN"));      /* inet_aton's forms, as getaddrinfo */
	CHECK(ALLOWS("::1", "::1", "UNKNOWN"));
	CHECK(!ALLOWS("::1", "127.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("127.0.0.1", "::1", "UNKNOWN"));
	CHECK(ALLOWS("2001:db8::/32", "2001:db8:1::5", "UNKNOWN"));
	CHECK(!ALLOWS("2001:db8::/32", "2001:db9::5", "UNKNOWN"));
	CHECK(ALLOWS("2001:db8::/ffff:ffff::", "2001:db8:ff::1", "UNKNOWN"));
	CHECK(ALLOWS("::/0", "2001:db8::1", "UNKNOWN"));
	CHECK(ALLOWS("fe80::/10", "fe80::1234", "UNKNOWN"));
	/* malformed tokens (the configuration refuses them) cannot be
	 * judged: they admit nobody in an allow list, refuse in a deny list */
	CHECK(!ALLOWS("10.0.0.0/33", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/-1", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/8x", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.300", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("::1/129", "::1", "UNKNOWN"));
	CHECK(DENIES("10.0.0.0/33", "10.0.0.1", "UNKNOWN"));
	CHECK(DENIES("10.0.0.300", "192.0.2.1", "UNKNOWN"));
	/* separators: blanks, tabs, commas, in any number */
	CHECK(ALLOWS(" 1.1.1.1,,\t 10.0.0.2 ,", "10.0.0.2", "UNKNOWN"));
	CHECK(!ALLOWS(" , ,\t", "10.0.0.2", "UNKNOWN"));
}

static void test_names(void)
{
	char shown[256];
	struct hosts_peer p;
	struct hosts_ns ns;

	/* patterns against the reverse name, case-insensitively */
	CHECK(ALLOWS("*.example", "10.0.0.9", "Host.Example"));
	CHECK(ALLOWS("HOST.EXAMPLE", "10.0.0.9", "host.example"));
	CHECK(ALLOWS("[a-h]ost.example", "10.0.0.9", "host.example"));
	CHECK(ALLOWS("h?st.*", "10.0.0.9", "host.example"));
	CHECK(!ALLOWS("*.example", "10.0.0.9", "host.example.org"));
	CHECK(!ALLOWS("*.example", "10.0.0.9", "UNKNOWN"));
	CHECK(ALLOWS("unknown", "10.0.0.9", "UNKNOWN"));
	/* netgroups */
	CHECK(ALLOWS("@trusted", "10.0.0.9", "Host.Example"));
	CHECK(!ALLOWS("@trusted", "10.0.0.9", "other.example"));
	CHECK(!ALLOWS("@", "10.0.0.9", "Host.Example"));
	/* a netgroup whose lookup fails refuses in a deny list and admits
	 * nobody in an allow list */
	CHECK(DENIES("@broken", "10.0.0.9", "Host.Example"));
	CHECK(!ALLOWS("@broken", "10.0.0.9", "Host.Example"));
	CHECK(ALLOWS("@broken 10.0.0.9", "10.0.0.9", "Host.Example"));
	/* forward lookups: IPv4 only, as gethostbyname */
	lookups = 0;
	CHECK(ALLOWS("good.example", "10.0.0.2", "UNDETERMINED"));
	CHECK(lookups == 1);
	CHECK(!ALLOWS("good.example", "10.0.0.3", "UNDETERMINED"));
	CHECK(!ALLOWS("good.example", "::ffff:10.0.0.2", "UNDETERMINED"));
	CHECK(!decide("good.example", NULL, "10.0.0.2", "UNDETERMINED", 0)); /* forward lookup = no */
	/* no lookup for addresses, patterns or names with ':' '/' */
	lookups = 0;
	CHECK(!ALLOWS("1.2.3.4 *.example h?st [ab]c good.example/8", "10.0.0.2", "UNKNOWN"));
	CHECK(lookups == 0);
	/* an unresolvable name refuses in a deny list (3.5.0), not in an allow list */
	CHECK(DENIES("nosuch.invalid", "10.0.0.2", "UNKNOWN"));
	CHECK(DENIES("v6only-and-unresolvable", "::1", "UNKNOWN"));
	CHECK(!DENIES("other.example", "10.0.0.2", "UNKNOWN"));
	CHECK(!DENIES("v6.example", "::1", "UNKNOWN"));
	CHECK(!ALLOWS("nosuch.invalid", "10.0.0.2", "UNKNOWN"));
	CHECK(decide(NULL, "nosuch.invalid", "10.0.0.2", "UNKNOWN", 0)); /* no lookup, no refusal */
	/* the configured name is shown for an undetermined peer */
	p = peer("10.0.0.2", "UNDETERMINED");
	ns = (struct hosts_ns){ fwd, netgroup, &p, NULL };
	CHECK(hosts_allowed("good.example", NULL, &p, 1, &ns, shown, sizeof(shown)) == 1 &&
	      strcmp(shown, "good.example") == 0);
	CHECK(hosts_allowed(NULL, "x.invalid good.example", &p, 1, &ns, shown, sizeof(shown)) == 0 &&
	      strcmp(shown, "") == 0); /* refused by the unresolvable one first */
	CHECK(hosts_allowed(NULL, "Good.Example", &p, 1, &ns, shown, sizeof(shown)) == 0 &&
	      strcmp(shown, "good.example") == 0);
	p = peer("10.0.0.2", "named.example");
	CHECK(hosts_allowed("good.example", NULL, &p, 1, &ns, shown, sizeof(shown)) == 1 && shown[0] == '\0');
	/* an over-long token: refuses in a deny list, skipped in an allow list */
	{
		static char list[HOSTS_TOKEN_MAX + 32];

		memset(list, 'a', HOSTS_TOKEN_MAX + 1);
		strcpy(list + HOSTS_TOKEN_MAX + 1, " 10.0.0.2");
		CHECK(ALLOWS(list, "10.0.0.2", "UNKNOWN"));
		CHECK(DENIES(list, "10.0.0.7", "UNKNOWN"));
	}
}

static void test_precedence(void)
{
	/* no lists: everyone */
	CHECK(decide(NULL, NULL, "10.0.0.2", "UNKNOWN", 1));
	CHECK(decide("", "", "10.0.0.2", "UNKNOWN", 1));
	/* allow only: only the listed */
	CHECK(decide("10.0.0.2", "", "10.0.0.2", "UNKNOWN", 1));
	CHECK(!decide("10.0.0.2", NULL, "10.0.0.3", "UNKNOWN", 1));
	/* deny only: all but the listed */
	CHECK(!decide(NULL, "10.0.0.0/24", "10.0.0.3", "UNKNOWN", 1));
	CHECK(decide(NULL, "10.0.0.0/24", "10.0.1.3", "UNKNOWN", 1));
	/* both: allow wins, then deny, then admitted */
	CHECK(decide("10.0.0.2", "*", "10.0.0.2", "UNKNOWN", 1));
	CHECK(!decide("10.0.0.2", "*", "10.0.0.3", "UNKNOWN", 1));
	CHECK(decide("10.0.0.2", "10.9.0.0/16", "10.0.0.3", "UNKNOWN", 1));
}

static void test_check(void)
{
	char bad[HOSTS_TOKEN_MAX + 1];
	static char list[HOSTS_TOKEN_MAX + 8];

	CHECK(hosts_check("", bad, sizeof(bad)) == NULL);
	CHECK(hosts_check("10.0.0.0/8, ::1 2001:db8::/ffff:: host.example *.x @ng [a-z] 127.1", bad, sizeof(bad)) == NULL);
	CHECK(hosts_check("fe80::1%nosuchif0 fe80::%nosuchif0/64", bad, sizeof(bad)) == NULL);
	CHECK(hosts_check("10.0.0.0/33", bad, sizeof(bad)) != NULL && strcmp(bad, "10.0.0.0/33") == 0);
	CHECK(hosts_check("ok 1.2.3.4/255.0.x.0", bad, sizeof(bad)) != NULL && strcmp(bad, "1.2.3.4/255.0.x.0") == 0);
	CHECK(hosts_check("1.2.3.4.5", bad, sizeof(bad)) != NULL);
	CHECK(hosts_check("::1::2", bad, sizeof(bad)) != NULL);
	CHECK(hosts_check("/8", bad, sizeof(bad)) != NULL);
	memset(list, 'h', HOSTS_TOKEN_MAX + 1);
	CHECK(hosts_check(list, bad, sizeof(bad)) != NULL);
}

/* Lists parsed once serve any number of peers: the parsed form, not the
 * text, decides. */
static void test_parsed(void)
{
	struct hosts_list allow, deny, blank;
	char shown[256], *text = strdup("10.0.0.0/8, *.Example @trusted ::1");
	const char *addrs[] = { "10.1.2.3", "192.168.1.1", "::1", "::2", "192.168.1.1" };
	const char *names[] = { "x", "y", "y", "y", "a.example" };
	const int want[] = { 1, 0, 1, 0, 1 };

	CHECK(hosts_parse(&allow, text, NULL) == 0 && allow.set && allow.n == 4);
	memset(text, 'z', strlen(text)); /* the lists keep no pointer into the text */
	CHECK(hosts_parse(&deny, NULL, NULL) == 0 && !deny.set && deny.n == 0);
	CHECK(hosts_parse(&blank, " ,\t", NULL) == 0 && blank.set && blank.n == 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hosts_peer p = peer(addrs[i], names[i]);
		struct hosts_ns ns = { fwd, netgroup, &p, NULL };

		CHECK_MSG(hosts_decide(&allow, &deny, &p, 1, &ns, shown, sizeof(shown)) == want[i], "peer %s %s",
			  addrs[i], names[i]);
		/* a set list without a token admits nobody; an unset one everybody */
		CHECK(hosts_decide(&blank, &deny, &p, 1, &ns, shown, sizeof(shown)) == 0);
		CHECK(hosts_decide(&deny, &deny, &p, 1, &ns, shown, sizeof(shown)) == 1);
	}
	hosts_list_free(&allow);
	hosts_list_free(&deny);
	hosts_list_free(&blank);
	free(text);
}

/* eth0 is interface 2; "gone0" and digits name no interface; anything
 * else is not known */
static long ifindex(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "eth0") == 0)
		return 2;
	return strcmp(name, "gone0") == 0 || (name[0] >= '0' && name[0] <= '9') ? 0 : -1;
}

static int unjudged_calls;

static void unjudged(void *ctx, const char *token, const char *why, int deny)
{
	(void)ctx, (void)token, (void)why, (void)deny;
	unjudged_calls++;
}

static int decide_scoped(const char *allow, const char *deny, const char *addr, uint32_t scope)
{
	static const struct hosts_scopes sc = { ifindex, NULL };
	struct hosts_peer p = peer(addr, "UNKNOWN");
	struct hosts_ns ns = { fwd, netgroup, &p, unjudged };
	struct hosts_list a, d;
	char shown[256];
	int r;

	p.scope = scope;
	if (hosts_parse(&a, allow, &sc) < 0 || hosts_parse(&d, deny, &sc) < 0)
		return -1;
	r = hosts_decide(&a, &d, &p, 1, &ns, shown, sizeof(shown));
	hosts_list_free(&a);
	hosts_list_free(&d);
	return r;
}

/* Scopes, read without getaddrinfo: a link-local address's scope is first
 * an interface (asked of the caller), then a number; other addresses take
 * a number only.  One that cannot be read is a token that cannot be
 * judged, never one that is skipped. */
static void test_scopes(void)
{
	CHECK(decide_scoped("fe80::1%eth0", NULL, "fe80::1", 2) == 1);
	CHECK(decide_scoped("fe80::1%eth0", NULL, "fe80::1", 3) == 0);
	CHECK(decide_scoped("fe80::1%3", NULL, "fe80::1", 3) == 1);
	CHECK(decide_scoped("fe80::/64%eth0", NULL, "fe80::1", 2) == 0);      /* the mask after the scope */
	CHECK(decide_scoped("fe80::%eth0/64", NULL, "fe80::9", 2) == 1);
	CHECK(decide_scoped("2001:db8::1%7", NULL, "2001:db8::1", 7) == 1);
	CHECK(decide_scoped("2001:db8::1%eth0", NULL, "2001:db8::1", 2) == 0); /* a name only for link-local */
	unjudged_calls = 0;
	CHECK(decide_scoped(NULL, "fe80::1%gone0", "fe80::1", 2) == 0);        /* no such interface: unreadable */
	CHECK(decide_scoped(NULL, "fe80::1%unknown0", "2001:db8::5", 0) == 0); /* not known: refuses */
	CHECK(decide_scoped("fe80::1%unknown0 fe80::1", NULL, "fe80::1", 0) == 1); /* an allow list goes on */
	CHECK(decide_scoped("fe80::1%unknown0", NULL, "fe80::1", 2) == 0);
	CHECK(decide_scoped(NULL, "fe80::1%99999999999", "fe80::1", 2) == 0);
	CHECK(unjudged_calls == 5);
}

/* The address forms getaddrinfo(AI_NUMERICHOST) reads, compared with it
 * on strings of digits, dots and colons (no scope: no system call). */
static void test_numeric_like_getaddrinfo(void)
{
	static const char alphabet[] = "0123456789..::f";
	unsigned seed = 12345;

	for (int n = 0; n < 20000; n++) {
		char tok[24], shown[64];
		size_t len = 1 + (seed >> 8) % 20;
		struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *res;
		struct hosts_peer p = { .name = "UNKNOWN" };
		struct hosts_ns ns = { fwd, netgroup, &p, NULL };
		int want, got;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			tok[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		tok[len] = '\0';
		if (strchr(tok, ':') == NULL && tok[strspn(tok, ".0123456789")] != '\0')
			continue; /* a name, not an address */
		want = getaddrinfo(tok, NULL, &hints, &res) == 0;
		if (want) {
			p.family = res->ai_family;
			memcpy(p.addr, res->ai_family == AF_INET
			       ? (const void *)&((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr
			       : (const void *)&((struct sockaddr_in6 *)(void *)res->ai_addr)->sin6_addr,
			       res->ai_family == AF_INET ? 4 : 16);
			freeaddrinfo(res);
		}
		/* an address admits itself; what getaddrinfo refuses, the
		 * configuration check refuses too */
		got = want ? hosts_allowed(tok, NULL, &p, 0, &ns, shown, sizeof(shown))
			   : hosts_check(tok, shown, sizeof(shown)) != NULL;
		CHECK_MSG(got == 1, "%s (getaddrinfo %s)", tok, want ? "reads it" : "refuses it");
	}
}

/* The peer's name is matched whole, however long. */
static void test_long_name(void)
{
	static char name[600], pat[HOSTS_TOKEN_MAX + 1];

	memset(name, 'a', sizeof(name) - 1);
	memset(pat, 'a', HOSTS_TOKEN_MAX);
	CHECK(!ALLOWS(pat, "10.0.0.2", name));  /* the first 255 bytes are not the name */
	CHECK(decide(NULL, pat, "10.0.0.2", name, 0));
	CHECK(ALLOWS("a*", "10.0.0.2", name));
	name[590] = 'b';
	CHECK(DENIES("*b*", "10.0.0.2", name));
}

int main(void)
{
	test_scopes();
	test_numeric_like_getaddrinfo();
	test_long_name();
	test_parsed();
	test_addresses();
	test_names();
	test_precedence();
	test_check();
	return unit_done("test_hosts");
}
