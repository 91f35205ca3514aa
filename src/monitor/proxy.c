/* SPDX-License-Identifier: ISC */
/*
 * PROXY protocol header reader (proxy.h).  What is read, and why it stops
 * where it does:
 *
 *   version 2: the 12-byte signature, version/command, family/transport,
 *     a 16-bit length L (at most PROXY_V2_LEN_MAX), then exactly L bytes:
 *     the addresses and any TLVs, which are skipped;
 *   version 1: "PROXY " and one line of at most 107 bytes ending in CRLF,
 *     read one byte at a time so the first byte of the rsync greeting that
 *     follows is never taken.
 *
 * The reader asks proxy_need() how many bytes the header certainly still
 * has and reads exactly those; proxy_parse() then judges the whole header.
 * Both are pure functions of the bytes (tests/fuzz/fuzz_proxy.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostlist.h"
#include "lchan.h"
#include "log.h"
#include "monotime.h"
#include "proxy.h"

static const uint8_t sig2[12] = { '\r', '\n', '\r', '\n', 0, '\r', '\n', 'Q', 'U', 'I', 'T', '\n' };

static int bad(const char **why, const char *reason)
{
	*why = reason;
	return -1;
}

int proxy_need(const uint8_t *buf, size_t have, const char **why)
{
	size_t len;

	/* Both forms are longer than 8 bytes ("PROXY UNKNOWN\r\n" is 15). */
	if (have < 8)
		return (int)(8 - have);
	if (memcmp(buf, sig2, 8) == 0) {
		if (have < 16)
			return (int)(16 - have);
		if (memcmp(buf, sig2, 12) != 0)
			return bad(why, "bad version 2 signature");
		if ((buf[12] >> 4) != 2)
			return bad(why, "version 2 signature with another version number");
		len = (size_t)buf[14] << 8 | buf[15];
		if (len > PROXY_V2_LEN_MAX)
			return bad(why, "version 2 length over 512 bytes");
		if (have > 16 + len) /* as below: only a caller of proxy_parse() */
			return bad(why, "bytes after the version 2 header");
		return have < 16 + len ? (int)(16 + len - have) : 0;
	}
	if (memcmp(buf, "PROXY ", 6) != 0)
		return bad(why, "no PROXY header");
	if (have > PROXY_V1_MAX) /* the reader never gets here; proxy_parse()'s callers may */
		return bad(why, "version 1 line longer than 107 bytes");
	if (buf[have - 1] == '\n')
		return buf[have - 2] == '\r' ? 0 : bad(why, "version 1 line not ended by CRLF");
	return have < PROXY_V1_MAX ? 1 : bad(why, "version 1 line longer than 107 bytes");
}

/* Decimal 0..65535, no sign, no leading zero: one to five digits and
 * nothing else (what strtoul would skip or overflow on is refused). */
static int parse_port(const char *s, uint16_t *port)
{
	size_t n = strspn(s, "0123456789");
	unsigned long v = strtoul(s, NULL, 10);

	if (n == 0 || n > 5 || s[n] != '\0' || (n > 1 && s[0] == '0') || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static void set_addr(struct proxy_addr *out, int v6, const uint8_t *addr, uint16_t port)
{
	memset(&out->ss, 0, sizeof(out->ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->ss;

		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, addr, 16);
		a->sin6_port = htons(port);
		out->len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&out->ss;

		a->sin_family = AF_INET;
		memcpy(&a->sin_addr, addr, 4);
		a->sin_port = htons(port);
		out->len = sizeof(*a);
	}
	out->proxied = 1;
}

/* "PROXY TCP4|TCP6 SRC DST SPORT DPORT\r\n", single spaces, or "PROXY UNKNOWN...". */
static int parse_v1(const uint8_t *buf, size_t len, struct proxy_addr *out, const char **why)
{
	char line[PROXY_V1_MAX + 1], *tok[6] = { NULL };
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	size_t n = len - 2, ntok = 0;
	int v6;

	memcpy(line, buf, n);
	line[n] = '\0';
	if (memchr(line, '\0', n) != NULL || memchr(line, '\r', n) != NULL || memchr(line, '\n', n) != NULL)
		return bad(why, "version 1 line with a NUL, CR or LF inside");
	if (strncmp(line, "PROXY UNKNOWN", 13) == 0 && (line[13] == '\0' || line[13] == ' '))
		return 0; /* the rest may be anything: the peer's own address is used */
	for (char *p = line; p != NULL && ntok < 7; ntok++) {
		if (ntok < 6)
			tok[ntok] = p;
		if ((p = strchr(p, ' ')) != NULL)
			*p++ = '\0';
	}
	if (ntok != 6)
		return bad(why, "version 1 line is not PROXY, protocol, two addresses and two ports");
	if (strcmp(tok[1], "TCP4") == 0)
		v6 = 0;
	else if (strcmp(tok[1], "TCP6") == 0)
		v6 = 1;
	else
		return bad(why, "version 1 protocol is not TCP4, TCP6 or UNKNOWN");
	if (inet_pton(v6 ? AF_INET6 : AF_INET, tok[2], src) != 1 ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, tok[3], dst) != 1)
		return bad(why, "version 1 address is not of the protocol's family");
	if (parse_port(tok[4], &sport) < 0 || parse_port(tok[5], &dport) < 0)
		return bad(why, "version 1 port is not a number from 0 to 65535");
	set_addr(out, v6, src, sport);
	return 0;
}

static int parse_v2(const uint8_t *buf, size_t len, struct proxy_addr *out, const char **why)
{
	unsigned cmd = buf[12] & 0x0f, fam = buf[13] >> 4, proto = buf[13] & 0x0f;
	size_t alen = len - 16;

	if (cmd > 1)
		return bad(why, "version 2 command is neither LOCAL nor PROXY");
	if (fam > 3 || proto > 2)
		return bad(why, "version 2 family or transport out of range");
	/* LOCAL (a health check), UNSPEC, AF_UNIX and datagrams: the spec
	 * says to use the real connection's endpoints. */
	if (cmd == 0 || proto != 1 || (fam != 1 && fam != 2))
		return 0;
	if (alen < (fam == 1 ? 12u : 36u))
		return bad(why, "version 2 length shorter than its addresses");
	if (fam == 1)
		set_addr(out, 0, buf + 16, (uint16_t)(buf[24] << 8 | buf[25]));
	else
		set_addr(out, 1, buf + 16, (uint16_t)(buf[48] << 8 | buf[49]));
	return 0; /* bytes after the addresses are TLVs: skipped, never read */
}

int proxy_parse(const uint8_t *buf, size_t len, struct proxy_addr *out, const char **why)
{
	const char *w = NULL;

	memset(out, 0, sizeof(*out));
	if (len > PROXY_HEADER_MAX || proxy_need(buf, len, &w) != 0)
		return bad(why, w ? w : "incomplete header");
	return buf[0] == 'P' ? parse_v1(buf, len, out, why) : parse_v2(buf, len, out, why);
}

int proxy_read_header(int fd, int timeout_ms, struct proxy_addr *out, const char **why)
{
	uint8_t buf[PROXY_HEADER_MAX];
	int64_t deadline = now_ms() + timeout_ms;
	size_t have = 0;
	int need;

	while ((need = proxy_need(buf, have, why)) > 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if ((size_t)need > sizeof(buf) - have)
			return bad(why, "header over the size bound"); /* proxy_need never asks this */
		if (left <= 0)
			return bad(why, "timed out");
		if (poll(&p, 1, (int)left) <= 0)
			continue; /* EINTR or the deadline: judged above */
		n = recv(fd, buf + have, (size_t)need, 0);
		if (n == 0)
			return bad(why, "connection closed before the header ended");
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return bad(why, "read error");
		have += n > 0 ? (size_t)n : 0;
	}
	return need < 0 ? -1 : proxy_parse(buf, have, out, why);
}

int proxy_start(const struct cfg *cfg, int fd, struct sockaddr_storage *peer, socklen_t *peerlen,
		int *proxied)
{
	struct proxy_addr pa;
	uint8_t fam = 0, key[16];
	char text[64] = "UNKNOWN";
	const char *why = "";

	*proxied = 0;
	if (*peerlen > 0 && lchan_addr_key((struct sockaddr *)peer, *peerlen, &fam, key) == 0)
		(void)inet_ntop(fam == 4 ? AF_INET : AF_INET6, key, text, sizeof(text));
	/* rsyncd's words: no name has been looked up yet. */
	if (fam == 0 || !hostlist_match(cfg->proxy_protocol_hosts, fam, key)) {
		log_msg(PR_LOG_INFO, "proxy protocol rejected from untrusted peer UNDETERMINED (%s)", text);
		return -1;
	}
	if (proxy_read_header(fd, cfg->handshake_timeout * 1000, &pa, &why) < 0) {
		log_msg(PR_LOG_INFO, "proxy protocol header from UNDETERMINED (%s) rejected: %s", text, why);
		return -1;
	}
	if (pa.proxied) {
		*peer = pa.ss;
		*peerlen = pa.len;
		*proxied = 1;
	}
	return 0;
}
