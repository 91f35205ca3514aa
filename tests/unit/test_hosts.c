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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static int lookups;

/* good.example is 10.0.0.2 and 10.9.9.9; other.example is 10.0.0.3;
 * v6.example has only an IPv6 address; everything else does not resolve. */
static int fwd(void *ctx, const char *name)
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

static int netgroup(void *ctx, const char *group, const char *host)
{
	(void)ctx;
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
	struct hosts_ns ns = { fwd, netgroup, &p };
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
	/* malformed tokens never match (and the configuration refuses them) */
	CHECK(!ALLOWS("10.0.0.0/33", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/-1", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.0/8x", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("10.0.0.300", "10.0.0.1", "UNKNOWN"));
	CHECK(!ALLOWS("::1/129", "::1", "UNKNOWN"));
	CHECK(!DENIES("10.0.0.0/33", "10.0.0.1", "UNKNOWN"));
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
	ns = (struct hosts_ns){ fwd, netgroup, &p };
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

	CHECK(hosts_parse(&allow, text) == 0 && allow.set && allow.n == 4);
	memset(text, 'z', strlen(text)); /* the lists keep no pointer into the text */
	CHECK(hosts_parse(&deny, NULL) == 0 && !deny.set && deny.n == 0);
	CHECK(hosts_parse(&blank, " ,\t") == 0 && blank.set && blank.n == 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hosts_peer p = peer(addrs[i], names[i]);
		struct hosts_ns ns = { fwd, netgroup, &p };

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

int main(void)
{
	test_parsed();
	test_addresses();
	test_names();
	test_precedence();
	test_check();
	return unit_done("test_hosts");
}
