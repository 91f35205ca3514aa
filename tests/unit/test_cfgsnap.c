/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the configuration snapshot (src/priv/cfgsnap.c): every
 * field survives the trip, the reader refuses every corruption of the
 * blob, and a snapshot that is not sealed is refused.
 */
#include "cfgsnap.h"
#include "config.h"
#include "unit.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char conf[] =
	"port = 8873\nmotd file = /etc/motd\nmax connections per host = 7\nreverse lookup = no\n"
	"exclude = *.o\nmax connections = 3\n"
	"[pub]\npath = /srv/pub\ncomment = public files\nmax connections = -1\ndont compress = *.gz\n"
	"[second]\npath = /srv/2\nlist = no\nuid = 1000\nfilter = - *.key\nlock file = /run/l\n";

static int streq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Every field, compared through the same lists the snapshot uses. */
#define EQ_STR(f) ok = ok && streq(a->f, b->f);
#define EQ_INT(f) ok = ok && a->f == b->f;
#define EQ_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) ok = ok && streq(a->f[i_], b->f[i_]);

static int same_module(const struct cfg_module *a, const struct cfg_module *b)
{
	int ok = 1;

	CFG_MODULE_FIELDS(EQ_STR, EQ_INT, EQ_STRV)
	return ok;
}

static int same(const struct cfg *a, const struct cfg *b)
{
	int ok = a->nmodules == b->nmodules;

	CFG_GLOBAL_FIELDS(EQ_STR, EQ_INT, EQ_STRV)
	for (size_t i = 0; ok && i < a->nmodules; i++)
		ok = same_module(&a->modules[i], &b->modules[i]);
	return ok;
}

static int parses(const unsigned char *buf, size_t len)
{
	struct cfg c;
	char err[256];
	void *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, buf, len);
	rc = cfgsnap_parse(copy, len, &c, err, sizeof(err));
	if (rc == 0)
		cfgsnap_parsed_free(&c);
	else
		CHECK_MSG(strstr(err, "configuration snapshot") != NULL, "%s", err);
	free(copy);
	return rc == 0;
}

static void test_roundtrip(struct cfg *src)
{
	unsigned char *buf;
	size_t len;
	struct cfg c;
	char err[256];

	CHECK(cfgsnap_build(src, &buf, &len, err, sizeof(err)) == 0);
	CHECK(cfgsnap_parse(buf, len, &c, err, sizeof(err)) == 0);
	CHECK(same(src, &c));
	CHECK(c.nmodules == 2 && c.modules[0].max_connections == -1 && c.max_connections_per_host == 7);
	CHECK(streq(c.modules[1].filt[CFG_F_FILTER], "- *.key") && c.modules[0].filt[CFG_F_FILTER] == NULL);
	CHECK(streq(cfg_find_module(&c, "second")->path, "/srv/2") && cfg_find_module(&c, "Second") == NULL);
	CHECK(c.nwarnings == 0 && c.warnings == NULL);
	/* strings point into the blob */
	CHECK((const unsigned char *)c.modules[0].path > buf && (const unsigned char *)c.modules[0].path < buf + len);
	cfgsnap_parsed_free(&c);
	free(buf);
}

/* Flip, zero or bump every header word and a sample of the rest: the
 * reader refuses each or (for a byte that only changes a string's
 * content) returns a configuration that still parses. */
static void test_corruptions(struct cfg *src)
{
	unsigned char *buf;
	size_t len;
	char err[256];
	uint32_t *w;

	CHECK(cfgsnap_build(src, &buf, &len, err, sizeof(err)) == 0);
	w = (uint32_t *)(void *)buf;
	CHECK(parses(buf, len));
	for (int i = 0; i < CFGSNAP_HDR_WORDS; i++) {
		uint32_t keep = w[i];
		static const uint32_t bad[] = { 0, 1, 0xffffffffu, 0x7fffffffu, 1025 };

		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			if (bad[k] == keep)
				continue;
			w[i] = bad[k];
			CHECK_MSG(!parses(buf, len), "header word %d = %u accepted", i, bad[k]);
		}
		w[i] = keep + 1;
		CHECK_MSG(!parses(buf, len), "header word %d + 1 accepted", i);
		w[i] = keep;
	}
	/* Truncated or extended blobs. */
	for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 97))
		CHECK_MSG(!parses(buf, cut), "truncated to %zu accepted", cut);
	{
		unsigned char *big = calloc(1, len + 8);

		memcpy(big, buf, len);
		CHECK(!parses(big, len + 4));
		free(big);
	}
	/* Each string slot (found through the same lists): offset and length
	 * out of place, NULL with a length. */
	size_t words = (len - w[7]) / 4, nslot = 0, slots[4096];
	size_t at = CFGSNAP_HDR_WORDS;
#define S_STR(f) slots[nslot++] = at; at += 2;
#define S_INT(f) at++;
#define S_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) { slots[nslot++] = at; at += 2; }
	CFG_GLOBAL_FIELDS(S_STR, S_INT, S_STRV)
	for (size_t m = 0; m < src->nmodules; m++) {
		CFG_MODULE_FIELDS(S_STR, S_INT, S_STRV)
	}
	CHECK(at == words);
	for (size_t k = 0; k < nslot; k++) {
		size_t i = slots[k];
		uint32_t off = w[i], slen = w[i + 1];

		if (off == 0xffffffffu) {
			w[i + 1] = 1;
			CHECK_MSG(!parses(buf, len), "NULL string at word %zu with a length", i);
			w[i + 1] = 0;
			continue;
		}
		w[i] = off + 1;
		CHECK_MSG(!parses(buf, len), "string at word %zu moved", i);
		w[i] = off;
		w[i + 1] = slen + 1;
		CHECK_MSG(!parses(buf, len), "string at word %zu lengthened", i);
		w[i + 1] = slen ? slen - 1 : 0xffffffffu;
		CHECK_MSG(!parses(buf, len), "string at word %zu shortened", i);
		w[i + 1] = slen;
	}
	/* A NUL inside a string, and a missing terminator. */
	{
		unsigned char *strs = buf + (len - w[7]);
		size_t slen = w[7];

		for (size_t i = 0; i < slen; i++) {
			unsigned char keep = strs[i];

			strs[i] = keep ? 0 : 'x';
			CHECK_MSG(!parses(buf, len), "strings byte %zu changed to %u accepted", i, strs[i]);
			strs[i] = keep;
		}
	}
	CHECK(parses(buf, len));
	free(buf);
}

static void test_sealed(struct cfg *src)
{
	char err[256];
	struct cfg c;
	int fd = cfgsnap_create(src, err, sizeof(err));

	CHECK_MSG(fd >= 0, "%s", err);
	if (fd < 0)
		return;
	CHECK((fcntl(fd, F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)) ==
	      (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL));
	CHECK(write(fd, "x", 1) < 0 && ftruncate(fd, 0) < 0);
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED);
	CHECK(cfgsnap_open(fd, &c, err, sizeof(err)) == 0);
	CHECK(same(src, &c));
	free(c.modules); /* the mapping stays, as in a session */
	close(fd);

	/* The same bytes in a memfd that is not sealed are refused. */
	unsigned char *buf;
	size_t len;
	fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	CHECK(cfgsnap_build(src, &buf, &len, err, sizeof(err)) == 0 && write(fd, buf, len) == (ssize_t)len);
	CHECK(cfgsnap_open(fd, &c, err, sizeof(err)) < 0 && strstr(err, "sealed") != NULL);
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK) == 0);
	CHECK(cfgsnap_open(fd, &c, err, sizeof(err)) < 0); /* F_SEAL_SEAL missing */
	close(fd);
	free(buf);
	CHECK(cfgsnap_open(0, &c, err, sizeof(err)) < 0);
}

int main(void)
{
	struct cfg src;
	char err[CFG_ERR_MAX];

	if (cfg_parse("t.conf", conf, strlen(conf), &src, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	test_roundtrip(&src);
	test_corruptions(&src);
	test_sealed(&src);
	cfg_free(&src);
	return unit_done("test_cfgsnap");
}
