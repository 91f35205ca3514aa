/* SPDX-License-Identifier: ISC */
/*
 * Hostile tests for the PROXY protocol header reader (src/monitor/proxy.c)
 * and the numeric host lists it trusts peers by (src/priv/hostlist.c).
 *
 *  1. version 1: valid lines, every way a line can be wrong or too long
 *  2. version 2: every family and command, TLVs skipped, lengths short,
 *     over the bound, as large as 16 bits allow
 *  3. the reader on a socket: exactly the header is consumed, a second
 *     header is left for the worker, truncated and silent peers, the
 *     deadline, a length over the bound refused before its bytes are read
 *  4. host lists: addresses, prefixes, masks, IPv4-mapped peers
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostlist.h"
#include "proxy.h"
#include "unit.h"

static const char sig2[] = "\r\n\r\n\0\r\nQUIT\n";

/* Feed bytes as the reader does (exactly what proxy_need asks for), then
 * parse.  Returns parse's result, -2 if the bytes ran out first, or -1
 * from proxy_need; *used: bytes taken. */
static int feed(const void *data, size_t len, struct proxy_addr *a, const char **why, size_t *used)
{
	const uint8_t *b = data;
	size_t have = 0;
	int need;

	*why = "";
	while ((need = proxy_need(b, have, why)) > 0) {
		if (have + (size_t)need > len) {
			*used = have;
			return -2;
		}
		have += (size_t)need;
	}
	*used = have;
	return need < 0 ? -1 : proxy_parse(b, have, a, why);
}

static void v1_ok(const char *line, int fam, const char *addr, int port)
{
	struct proxy_addr a;
	const char *why;
	char text[64] = "";
	size_t used;
	int rc = feed(line, strlen(line), &a, &why, &used);

	CHECK_MSG(rc == 0 && used == strlen(line), "\"%s\": rc %d (%s), used %zu", line, rc, why, used);
	if (rc != 0)
		return;
	CHECK_MSG(a.proxied == (fam != 0), "\"%s\": proxied %d", line, a.proxied);
	if (fam == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&a.ss)->sin_addr, text, sizeof(text));
	else if (fam == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a.ss)->sin6_addr, text, sizeof(text));
	if (fam != 0)
		CHECK_MSG(a.ss.ss_family == fam && strcmp(text, addr) == 0 &&
			  ntohs(((struct sockaddr_in *)&a.ss)->sin_port) == port &&
			  a.len == (fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)),
			  "\"%s\": got %s port %u", line, text, ntohs(((struct sockaddr_in *)&a.ss)->sin_port));
}

/* Refused, by proxy_need (-1) or by proxy_parse (-1), never run past. */
static void v1_bad(const char *line, const char *what)
{
	struct proxy_addr a;
	const char *why;
	size_t used;
	int rc = feed(line, strlen(line), &a, &why, &used);

	CHECK_MSG(rc == -1 && used <= PROXY_V1_MAX, "%s: \"%s\": rc %d (%s)", what, line, rc, why);
}

static void test_v1(void)
{
	char line[256];

	v1_ok("PROXY TCP4 192.0.2.7 198.51.100.1 40000 873\r\n", AF_INET, "192.0.2.7", 40000);
	v1_ok("PROXY TCP4 0.0.0.0 255.255.255.255 0 65535\r\n", AF_INET, "0.0.0.0", 0);
	v1_ok("PROXY TCP6 2001:db8::7 ::1 65535 873\r\n", AF_INET6, "2001:db8::7", 65535);
	v1_ok("PROXY TCP6 ::ffff:192.0.2.9 ::1 1 2\r\n", AF_INET6, "::ffff:192.0.2.9", 1);
	v1_ok("PROXY UNKNOWN\r\n", 0, NULL, 0);
	v1_ok("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n", 0, NULL, 0);
	/* the longest line the spec allows: 107 bytes with CRLF */
	snprintf(line, sizeof(line), "PROXY UNKNOWN %0*d\r\n", PROXY_V1_MAX - 16, 0);
	CHECK(strlen(line) == PROXY_V1_MAX);
	v1_ok(line, 0, NULL, 0);
	snprintf(line, sizeof(line), "PROXY UNKNOWN %0*d\r\n", PROXY_V1_MAX - 15, 0);
	v1_bad(line, "108 bytes");
	snprintf(line, sizeof(line), "PROXY TCP4 %0200d\r\n", 0);
	v1_bad(line, "oversized");

	v1_bad("@RSYNCD: 32.0 sha512\n\n", "no header: a client's greeting");
	v1_bad("GET / HTTP/1.0\r\n\r\n", "no header: another protocol");
	v1_bad("proxy TCP4 192.0.2.7 198.51.100.1 1 2\r\n", "lower-case PROXY");
	v1_bad("PROXY tcp4 192.0.2.7 198.51.100.1 1 2\r\n", "lower-case protocol");
	v1_bad("PROXY TCP5 192.0.2.7 198.51.100.1 1 2\r\n", "unknown protocol");
	v1_bad("PROXY UDP4 192.0.2.7 198.51.100.1 1 2\r\n", "UDP");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1 2\n", "LF without CR");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1 2\r\r\n", "CR CR LF");
	v1_bad("PROXY TCP4 192.0.2.7\r 198.51.100.1 1 2\r\n", "CR inside");
	v1_bad("PROXY TCP4 192.0.2.7\n198.51.100.1 1 2\r\n", "LF inside");
	v1_bad("PROXY  TCP4 192.0.2.7 198.51.100.1 1 2\r\n", "two spaces");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1 2 \r\n", "a trailing space");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1 2 3\r\n", "a seventh field");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1\r\n", "five fields");
	v1_bad("PROXY TCP4\r\n", "no addresses");
	v1_bad("PROXY \r\n", "nothing");
	v1_bad("PROXY TCP4 2001:db8::7 198.51.100.1 1 2\r\n", "TCP4 with an IPv6 source");
	v1_bad("PROXY TCP4 192.0.2.7 ::1 1 2\r\n", "TCP4 with an IPv6 destination");
	v1_bad("PROXY TCP6 192.0.2.7 ::1 1 2\r\n", "TCP6 with an IPv4 source");
	v1_bad("PROXY TCP4 192.0.2 198.51.100.1 1 2\r\n", "three-part address");
	v1_bad("PROXY TCP4 192.0.2.256 198.51.100.1 1 2\r\n", "octet 256");
	v1_bad("PROXY TCP4 192.0.2.07 198.51.100.1 1 2\r\n", "octal-looking octet");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 65536 2\r\n", "port 65536");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 99999 2\r\n", "port 99999");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 4294967297 2\r\n", "port overflowing 32 bits");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 -1 2\r\n", "negative port");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 +1 2\r\n", "signed port");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 080 2\r\n", "leading zero");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1 1 0x2\r\n", "hex port");
	v1_bad("PROXY TCP4 192.0.2.7 198.51.100.1  2\r\n", "empty port");
	{
		static const char nul[] = "PROXY TCP4 192.0.2.7\0198.51.100.1 1 2\r\n";
		struct proxy_addr a;
		const char *why;
		size_t used;

		CHECK_MSG(feed(nul, sizeof(nul) - 1, &a, &why, &used) == -1, "NUL inside accepted");
	}
	/* a whole buffer given to proxy_parse: over 107 bytes is refused even
	 * when it ends in CRLF (found by fuzz_proxy) */
	{
		struct proxy_addr a;
		const char *why;

		snprintf(line, sizeof(line), "PROXY UNKNOWN %0190d\r\n", 0);
		CHECK(proxy_parse((const uint8_t *)line, strlen(line), &a, &why) == -1 && strstr(why, "107"));
		snprintf(line, sizeof(line), "PROXY UNKNOWN\r\nPROXY UNKNOWN\r\n");
		CHECK(proxy_parse((const uint8_t *)line, strlen(line), &a, &why) == -1);
	}
	/* truncated: never complete, never more than the bound asked for */
	{
		static const char part[] = "PROXY TCP4 192.0.2.7 198.51.1";
		struct proxy_addr a;
		const char *why;
		size_t used;

		CHECK(feed(part, sizeof(part) - 1, &a, &why, &used) == -2 && used == sizeof(part) - 1);
		CHECK(proxy_parse((const uint8_t *)part, sizeof(part) - 1, &a, &why) == -1);
		CHECK(proxy_parse((const uint8_t *)part, 3, &a, &why) == -1);
		CHECK(proxy_parse((const uint8_t *)part, 0, &a, &why) == -1);
	}
}

/* A version 2 header: command, family byte, declared length, body. */
static size_t v2(uint8_t *out, uint8_t vercmd, uint8_t fam, uint16_t len, const void *body, size_t blen)
{
	memcpy(out, sig2, 12);
	out[12] = vercmd;
	out[13] = fam;
	out[14] = (uint8_t)(len >> 8);
	out[15] = (uint8_t)len;
	if (blen)
		memcpy(out + 16, body, blen);
	return 16 + blen;
}

static int v2_feed(uint8_t vercmd, uint8_t fam, uint16_t len, const void *body, size_t blen,
		   struct proxy_addr *a, const char **why)
{
	static uint8_t buf[16 + 70000];
	size_t used, n = v2(buf, vercmd, fam, len, body, blen);
	int rc = feed(buf, n, a, why, &used);

	CHECK_MSG(used <= PROXY_HEADER_MAX, "v2 %02x %02x len %u: used %zu", vercmd, fam, len, used);
	return rc;
}

static void test_v2(void)
{
	uint8_t body[600];
	struct proxy_addr a;
	const char *why;
	char text[64];

	memset(body, 0, sizeof(body));
	memcpy(body, "\xc0\x00\x02\x07\xc6\x33\x64\x01\x9c\x40\x03\x69", 12); /* 192.0.2.7:40000 -> :873 */
	CHECK(v2_feed(0x21, 0x11, 12, body, 12, &a, &why) == 0 && a.proxied && a.ss.ss_family == AF_INET &&
	      ntohs(((struct sockaddr_in *)&a.ss)->sin_port) == 40000);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&a.ss)->sin_addr, text, sizeof(text));
	CHECK(strcmp(text, "192.0.2.7") == 0);
	/* TLVs after the addresses are skipped, up to the bound */
	CHECK(v2_feed(0x21, 0x11, 16, body, 16, &a, &why) == 0 && a.proxied);
	CHECK(v2_feed(0x21, 0x11, PROXY_V2_LEN_MAX, body, PROXY_V2_LEN_MAX, &a, &why) == 0 && a.proxied);
	CHECK(v2_feed(0x21, 0x11, PROXY_V2_LEN_MAX + 1, body, PROXY_V2_LEN_MAX + 1, &a, &why) == -1 &&
	      strstr(why, "over 512"));
	CHECK(v2_feed(0x21, 0x11, 0xffff, body, 600, &a, &why) == -1);
	/* an IPv6 source */
	memset(body, 0, 36);
	body[0] = 0x20; body[1] = 0x01; body[2] = 0x0d; body[3] = 0xb8; body[15] = 7;
	body[32] = 0xff; body[33] = 0xff;
	CHECK(v2_feed(0x21, 0x21, 36, body, 36, &a, &why) == 0 && a.proxied && a.ss.ss_family == AF_INET6 &&
	      ntohs(((struct sockaddr_in6 *)&a.ss)->sin6_port) == 65535);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a.ss)->sin6_addr, text, sizeof(text));
	CHECK(strcmp(text, "2001:db8::7") == 0);
	/* the address block shorter than the family's */
	CHECK(v2_feed(0x21, 0x11, 11, body, 11, &a, &why) == -1 && strstr(why, "shorter"));
	CHECK(v2_feed(0x21, 0x21, 35, body, 35, &a, &why) == -1 && strstr(why, "shorter"));
	CHECK(v2_feed(0x21, 0x11, 0, body, 0, &a, &why) == -1);
	/* no IP address to take: the socket's peer stays */
	CHECK(v2_feed(0x20, 0x00, 0, body, 0, &a, &why) == 0 && !a.proxied);          /* LOCAL */
	CHECK(v2_feed(0x20, 0x11, 12, body, 12, &a, &why) == 0 && !a.proxied);         /* LOCAL with addresses */
	CHECK(v2_feed(0x20, 0x11, 3, body, 3, &a, &why) == 0 && !a.proxied);           /* LOCAL, short: skipped */
	CHECK(v2_feed(0x21, 0x00, 0, body, 0, &a, &why) == 0 && !a.proxied);           /* UNSPEC */
	CHECK(v2_feed(0x21, 0x31, 216, body, 216, &a, &why) == 0 && !a.proxied);       /* AF_UNIX */
	CHECK(v2_feed(0x21, 0x12, 12, body, 12, &a, &why) == 0 && !a.proxied);         /* datagram */
	CHECK(v2_feed(0x21, 0x10, 12, body, 12, &a, &why) == 0 && !a.proxied);         /* transport unspecified */
	/* values the spec says to refuse */
	for (unsigned c = 2; c < 16; c++)
		CHECK_MSG(v2_feed((uint8_t)(0x20 | c), 0x11, 12, body, 12, &a, &why) == -1, "command %u", c);
	for (unsigned v = 0; v < 16; v++)
		if (v != 2)
			CHECK_MSG(v2_feed((uint8_t)(v << 4 | 1), 0x11, 12, body, 12, &a, &why) == -1, "version %u", v);
	for (unsigned f = 4; f < 16; f++)
		CHECK_MSG(v2_feed(0x21, (uint8_t)(f << 4 | 1), 12, body, 12, &a, &why) == -1, "family %u", f);
	for (unsigned t = 3; t < 16; t++)
		CHECK_MSG(v2_feed(0x21, (uint8_t)(0x10 | t), 12, body, 12, &a, &why) == -1, "transport %u", t);
	/* a signature wrong in its last four bytes (the first eight decide the form) */
	{
		uint8_t buf[64];
		size_t used, n = v2(buf, 0x21, 0x11, 12, body, 12);

		buf[10] = 'X';
		CHECK(feed(buf, n, &a, &why, &used) == -1 && used == 16);
	}
	/* a whole buffer given to proxy_parse must be exactly one header */
	{
		uint8_t buf[64];
		size_t n = v2(buf, 0x21, 0x11, 12, body, 12);

		buf[n] = '@';
		CHECK(proxy_parse(buf, n + 1, &a, &why) == -1 && strstr(why, "after"));
		CHECK(proxy_parse(buf, n, &a, &why) == 0);
	}
	/* truncated inside the fixed part and inside the body */
	{
		uint8_t buf[64];
		size_t used, n = v2(buf, 0x21, 0x11, 12, body, 12);

		CHECK(feed(buf, 15, &a, &why, &used) == -2 && used == 8);
		CHECK(feed(buf, n - 1, &a, &why, &used) == -2 && used == 16);
		CHECK(proxy_parse(buf, n - 1, &a, &why) == -1);
	}
}

/* --- the reader on a socket ------------------------------------------------ */

static int pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
}

/* What is left in the socket after the header, up to cap bytes. */
static size_t rest(int fd, char *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;

	while (n < cap && poll(&p, 1, 100) == 1) {
		ssize_t r = recv(fd, buf + n, cap - n, MSG_DONTWAIT);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return n;
}

static void test_reader(void)
{
	static const char greet[] = "@RSYNCD: 32.0 sha512\n";
	struct proxy_addr a;
	const char *why;
	char buf[2048];
	int sv[2];
	size_t n;

	/* v1 then the greeting: exactly the header is taken */
	CHECK(pair(sv) == 0);
	n = (size_t)snprintf(buf, sizeof(buf), "PROXY TCP4 192.0.2.7 198.51.100.1 40000 873\r\n%s", greet);
	CHECK(write(sv[1], buf, n) == (ssize_t)n);
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == 0 && a.proxied);
	CHECK(rest(sv[0], buf, sizeof(buf)) == strlen(greet) && memcmp(buf, greet, strlen(greet)) == 0);
	close(sv[0]);
	close(sv[1]);

	/* a second header is not ours: it stays for the worker (which answers
	 * it as a bad greeting, as rsyncd does) */
	CHECK(pair(sv) == 0);
	n = (size_t)snprintf(buf, sizeof(buf), "PROXY TCP4 192.0.2.7 198.51.100.1 1 2\r\nPROXY TCP4 10.0.0.1 10.0.0.2 3 4\r\n");
	CHECK(write(sv[1], buf, n) == (ssize_t)n);
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == 0 && a.proxied);
	CHECK(rest(sv[0], buf, sizeof(buf)) == 34 && memcmp(buf, "PROXY TCP4 10.0.0.1", 19) == 0);
	close(sv[0]);
	close(sv[1]);

	/* v2 with TLVs, then the greeting */
	CHECK(pair(sv) == 0);
	{
		uint8_t h[64], body[20] = { 192, 0, 2, 7, 198, 51, 100, 1, 0x9c, 0x40, 0x03, 0x69, 4, 0, 1, 'x', 4, 0, 0 };
		size_t hl = v2(h, 0x21, 0x11, 19, body, 19);

		CHECK(write(sv[1], h, hl) == (ssize_t)hl && write(sv[1], greet, strlen(greet)) == (ssize_t)strlen(greet));
	}
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == 0 && a.proxied);
	CHECK(rest(sv[0], buf, sizeof(buf)) == strlen(greet));
	close(sv[0]);
	close(sv[1]);

	/* a length over the bound: refused after the 16 fixed bytes, the body unread */
	CHECK(pair(sv) == 0);
	{
		static uint8_t h[16 + 1000];
		size_t hl = v2(h, 0x21, 0x11, 1000, h + 16, 0) + 1000;

		CHECK(write(sv[1], h, hl) == (ssize_t)hl);
	}
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == -1 && strstr(why, "over 512"));
	CHECK(rest(sv[0], buf, sizeof(buf)) == 1000);
	close(sv[0]);
	close(sv[1]);

	/* absent: eight bytes of a greeting are enough to refuse */
	CHECK(pair(sv) == 0);
	CHECK(write(sv[1], greet, strlen(greet)) == (ssize_t)strlen(greet));
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == -1 && strcmp(why, "no PROXY header") == 0);
	CHECK(rest(sv[0], buf, sizeof(buf)) == strlen(greet) - 8);
	close(sv[0]);
	close(sv[1]);

	/* truncated, then the peer hangs up */
	CHECK(pair(sv) == 0);
	CHECK(write(sv[1], "PROXY TCP4 192.0.2.7", 20) == 20);
	close(sv[1]);
	CHECK(proxy_read_header(sv[0], 2000, &a, &why) == -1 && strstr(why, "closed"));
	close(sv[0]);

	/* a peer that sends part of a header and then nothing: the deadline */
	CHECK(pair(sv) == 0);
	CHECK(write(sv[1], "PROXY TC", 8) == 8);
	CHECK(proxy_read_header(sv[0], 300, &a, &why) == -1 && strcmp(why, "timed out") == 0);
	close(sv[0]);
	close(sv[1]);

	/* a slow but complete header, one byte at a time, within the deadline */
	CHECK(pair(sv) == 0);
	{
		static const char line[] = "PROXY TCP6 2001:db8::1 ::1 1 2\r\n";
		pid_t pid = fork();

		if (pid == 0) {
			for (size_t i = 0; i < sizeof(line) - 1; i++) {
				if (write(sv[1], line + i, 1) != 1)
					_exit(1);
				poll(NULL, 0, 5);
			}
			(void)!write(sv[1], greet, strlen(greet));
			_exit(0);
		}
		CHECK(pid > 0);
		CHECK(proxy_read_header(sv[0], 20000, &a, &why) == 0 && a.proxied && a.ss.ss_family == AF_INET6);
		waitpid(pid, NULL, 0);
		CHECK(rest(sv[0], buf, sizeof(buf)) == strlen(greet));
	}
	close(sv[0]);
	close(sv[1]);
}

/* --- host lists ------------------------------------------------------------ */

static int match4(const char *list, const char *addr)
{
	uint8_t a[16] = { 0 };

	CHECK(inet_pton(AF_INET, addr, a) == 1);
	return hostlist_match(list, 4, a);
}

static int match6(const char *list, const char *addr)
{
	uint8_t a[16] = { 0 };

	CHECK(inet_pton(AF_INET6, addr, a) == 1);
	return hostlist_match(list, 6, a);
}

static void test_hostlist(void)
{
	char why[160];

	CHECK(match4("127.0.0.1", "127.0.0.1") && !match4("127.0.0.1", "127.0.0.2"));
	CHECK(match4("10.0.0.1, 127.0.0.0/8", "127.9.9.9") && !match4("10.0.0.1, 127.0.0.0/8", "128.0.0.1"));
	CHECK(match4("10.0.0.0/255.0.0.0", "10.200.1.1") && !match4("10.0.0.0/255.0.0.0", "11.0.0.1"));
	CHECK(match4("0.0.0.0/0", "203.0.113.9"));
	CHECK(match4("192.0.2.7/32\t198.51.100.0/24", "198.51.100.99"));
	CHECK(!match4("::1", "127.0.0.1") && !match6("127.0.0.1", "::1"));
	CHECK(match6("::1", "::1") && match6("2001:db8::/32", "2001:db8:1::5") && !match6("2001:db8::/32", "2001:db9::1"));
	CHECK(match6("fe80::/ffc0::", "fe80::1"));
	/* peers are keyed with IPv4-mapped addresses folded to IPv4; so are tokens */
	CHECK(match4("::ffff:127.0.0.1", "127.0.0.1") && match4("::ffff:10.0.0.0/104", "10.1.2.3"));
	CHECK(!hostlist_match(NULL, 4, (const uint8_t[16]){ 127, 0, 0, 1 }));
	CHECK(!match4("", "127.0.0.1") && !match4(" , ", "127.0.0.1"));

	CHECK(hostlist_check("127.0.0.1 ::1, 10.0.0.0/8 fd00::/ffff::", why, sizeof(why)) == 0);
	CHECK(hostlist_check("", why, sizeof(why)) == 0);
	CHECK(hostlist_check("localhost", why, sizeof(why)) == -1 && strstr(why, "'localhost'"));
	CHECK(hostlist_check("10.0.0.1 *.example.org", why, sizeof(why)) == -1 && strstr(why, "*.example.org"));
	CHECK(hostlist_check("10.0.0.0/33", why, sizeof(why)) == -1);
	CHECK(hostlist_check("10.0.0.0/08x", why, sizeof(why)) == -1);
	CHECK(hostlist_check("10.0.0.0/1234", why, sizeof(why)) == -1);
	CHECK(hostlist_check("10.0.0.0/", why, sizeof(why)) == -1);
	CHECK(hostlist_check("10.0.0.0/ffff::", why, sizeof(why)) == -1);
	CHECK(hostlist_check("::ffff:10.0.0.0/255.0.0.0", why, sizeof(why)) == -1);
	{
		char long_token[300];

		memset(long_token, '1', sizeof(long_token) - 1);
		long_token[sizeof(long_token) - 1] = '\0';
		CHECK(hostlist_check(long_token, why, sizeof(why)) == -1 && strlen(why) < sizeof(why));
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_v1();
	test_v2();
	test_reader();
	test_hostlist();
	return unit_done("test_proxy");
}
