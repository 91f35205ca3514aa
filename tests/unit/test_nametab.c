/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the names table (src/priv/nametab.c) and its sealed
 * memfd (sealed.c): what the listener builds the monitor reads back and
 * finds; every rule of the format is enforced on a table that breaks it
 * (order, duplicates, offsets, counts, statuses, trailing bytes, header);
 * any single corrupted word is refused or read as a table that still
 * obeys every rule; an unsealed memfd is refused.
 */
#include "nametab.h"
#include "sealed.h"
#include "unit.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t ip(const char *s)
{
	uint32_t v;

	inet_pton(AF_INET, s, &v);
	return v;
}

static unsigned char *sample(size_t *len)
{
	static uint32_t a1[2], a2[1];
	struct nametab_item it[] = {
		{ NT_HOST, NT_RESOLVED, "a.example", a1, 2, 0 },
		{ NT_HOST, NT_NOTFOUND, "b.example", NULL, 0, 0 },
		{ NT_HOST, NT_RESOLVED, "c.example", a2, 1, 0 },
		{ NT_HOST, NT_UNKNOWN, "d.example", NULL, 0, 0 },
		{ NT_IFACE, NT_RESOLVED, "eth0", NULL, 0, 2 },
		{ NT_IFACE, NT_NOTFOUND, "gone0", NULL, 0, 0 },
	};
	unsigned char *buf;
	char err[128];

	a1[0] = ip("10.0.0.1");
	a1[1] = ip("10.0.0.2");
	a2[0] = ip("192.0.2.7");
	CHECK(nametab_build(it, 6, NT_FLAG_CLIENT_QUERIES, &buf, len, err, sizeof(err)) == 0);
	return buf;
}

static void test_roundtrip(void)
{
	size_t len;
	unsigned char *buf = sample(&len);
	struct nametab t;
	struct nametab_answer a;
	char err[128];

	CHECK(nametab_parse(buf, len, &t, err, sizeof(err)) == 0 && t.n == 6 && t.naddr == 3 &&
	      t.flags == NT_FLAG_CLIENT_QUERIES);
	CHECK(nametab_find(&t, NT_HOST, "a.example", &a) && a.status == NT_RESOLVED && a.naddr == 2 &&
	      a.addrs[1] == ip("10.0.0.2"));
	CHECK(nametab_find(&t, NT_HOST, "c.example", &a) && a.naddr == 1 && a.addrs[0] == ip("192.0.2.7"));
	CHECK(nametab_find(&t, NT_HOST, "b.example", &a) && a.status == NT_NOTFOUND && a.naddr == 0 && !a.addrs);
	CHECK(nametab_find(&t, NT_HOST, "d.example", &a) && a.status == NT_UNKNOWN);
	CHECK(nametab_find(&t, NT_IFACE, "eth0", &a) && a.ifindex == 2);
	CHECK(nametab_find(&t, NT_IFACE, "gone0", &a) && a.status == NT_NOTFOUND);
	CHECK(!nametab_find(&t, NT_HOST, "eth0", &a));      /* kinds are apart */
	CHECK(!nametab_find(&t, NT_HOST, "e.example", &a));
	CHECK(!nametab_find(&t, NT_HOST, "", &a));
	free(buf);
	/* an empty table */
	CHECK(nametab_build(NULL, 0, 0, &buf, &len, err, sizeof(err)) == 0 && len == NAMETAB_HDR_WORDS * 4);
	CHECK(nametab_parse(buf, len, &t, err, sizeof(err)) == 0 && t.n == 0 && !nametab_find(&t, NT_HOST, "x", &a));
	free(buf);
}

static void test_builder_refuses(void)
{
	uint32_t one = 1, many[NAMETAB_ADDRS_MAX + 1] = { 0 };
	unsigned char *buf = NULL;
	size_t len;
	char err[128], longname[NAMETAB_NAME_MAX + 2];
	struct nametab_item unsorted[] = { { NT_HOST, NT_NOTFOUND, "b", NULL, 0, 0 },
					   { NT_HOST, NT_NOTFOUND, "a", NULL, 0, 0 } };
	struct nametab_item dup[] = { { NT_HOST, NT_NOTFOUND, "a", NULL, 0, 0 },
				      { NT_HOST, NT_FAILED, "a", NULL, 0, 0 } };
	struct nametab_item bad[] = { { NT_HOST, NT_RESOLVED, "a", NULL, 0, 0 } };
	struct nametab_item toomany[] = { { NT_HOST, NT_RESOLVED, "a", many, NAMETAB_ADDRS_MAX + 1, 0 } };
	struct nametab_item noif[] = { { NT_IFACE, NT_RESOLVED, "a", &one, 0, 0 } };
	struct nametab_item longn[] = { { NT_HOST, NT_NOTFOUND, longname, NULL, 0, 0 } };

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK(nametab_build(unsorted, 2, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(nametab_build(dup, 2, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(nametab_build(bad, 1, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(nametab_build(toomany, 1, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(nametab_build(noif, 1, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(nametab_build(longn, 1, 0, &buf, &len, err, sizeof(err)) < 0);
	CHECK(buf == NULL);
}

/* A copy of the sample with word i set to v: refused, or (if accepted)
 * still a table whose every entry can be found. */
static int corrupt(size_t i, uint32_t v)
{
	size_t len;
	unsigned char *buf = sample(&len);
	uint32_t *w = (uint32_t *)(void *)buf;
	struct nametab t;
	char err[128];
	int rc;

	if (i * 4 + 4 > len) {
		free(buf);
		return -1;
	}
	w[i] = v;
	rc = nametab_parse(buf, len, &t, err, sizeof(err));
	if (rc == 0) {
		for (size_t k = 0; k < t.n; k++) {
			const uint32_t *e = t.entries + k * NAMETAB_ENTRY_WORDS;
			struct nametab_answer a;

			CHECK(nametab_find(&t, e[0], t.strings + e[2], &a));
			CHECK(a.naddr <= NAMETAB_ADDRS_MAX && (a.addrs == NULL || a.addrs + a.naddr <= t.addrs + t.naddr));
		}
	}
	free(buf);
	return rc;
}

static void test_reader_refuses(void)
{
	static const uint32_t values[] = { 0, 1, 2, 3, 4, 5, 7, 0x80000000u, 0xffffffffu, 0xfffffffcu };
	size_t len, accepted = 0, tried = 0;
	unsigned char *buf = sample(&len), *big;
	struct nametab t;
	char err[128];

	for (size_t i = 0; i * 4 + 4 <= len; i++)
		for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++, tried++)
			accepted += corrupt(i, values[k]) == 0;
	CHECK_MSG(accepted < tried / 4, "%zu of %zu corruptions accepted", accepted, tried);
	/* specific rules */
	CHECK(corrupt(0, NAMETAB_MAGIC + 1) < 0);
	CHECK(corrupt(2, (uint32_t)len + 4) < 0);        /* total */
	CHECK(corrupt(6, 2) < 0);                        /* unknown flag */
	CHECK(corrupt(7, 1) < 0);                        /* reserved */
	CHECK(corrupt(8 + 0 * 6 + 1, 5) < 0);            /* status */
	CHECK(corrupt(8 + 1 * 6 + 2, 0) < 0);            /* name offset out of place */
	CHECK(corrupt(8 + 2 * 6 + 4, 0) < 0);            /* addresses out of place */
	CHECK(corrupt(8 + 2 * 6 + 5, 2) < 0);            /* a count past the addresses */
	CHECK(corrupt(8 + 1 * 6 + 4, 1) < 0);            /* an answer for a name that did not resolve */
	CHECK(corrupt(8 + 4 * 6 + 4, 0) < 0);            /* a resolved interface without index */
	CHECK(corrupt(8 + 0 * 6 + 0, NT_IFACE) < 0);     /* order: an interface before hosts */
	/* trailing bytes, a short buffer, a misaligned one */
	big = calloc(1, len + 8);
	memcpy(big, buf, len);
	CHECK(nametab_parse(big, len + 4, &t, err, sizeof(err)) < 0);
	CHECK(nametab_parse(buf, len - 1, &t, err, sizeof(err)) < 0);
	CHECK(nametab_parse(buf, 8, &t, err, sizeof(err)) < 0);
	memmove(big + 1, buf, len);
	CHECK(nametab_parse(big + 1, len, &t, err, sizeof(err)) < 0);
	/* a name whose NUL is not where its length says */
	memcpy(big, buf, len);
	big[len - 1] = 'x';
	CHECK(nametab_parse(big, len, &t, err, sizeof(err)) < 0);
	free(big);
	free(buf);
}

static void test_sealed(void)
{
	size_t len, mlen;
	unsigned char *buf = sample(&len);
	char err[128];
	int fd = sealed_create("test", buf, len, err, sizeof(err)), plain;
	struct nametab t;

	CHECK(fd >= 0 && nametab_open(fd, &t, err, sizeof(err)) == 0 && t.n == 6);
	CHECK(write(fd, "x", 1) < 0);                   /* sealed */
	close(fd);
	plain = memfd_create("plain", MFD_CLOEXEC);
	CHECK(plain >= 0 && write(plain, buf, len) == (ssize_t)len);
	CHECK(nametab_open(plain, &t, err, sizeof(err)) < 0 && strstr(err, "not a sealed memfd") != NULL);
	CHECK(sealed_map(plain, 1, 2, &mlen, err, sizeof(err)) == NULL);
	close(plain);
	free(buf);
}

int main(void)
{
	test_roundtrip();
	test_builder_refuses();
	test_reader_refuses();
	test_sealed();
	return unit_done("test_nametab");
}
