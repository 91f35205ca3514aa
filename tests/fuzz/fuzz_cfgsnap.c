/* SPDX-License-Identifier: ISC */
/* Fuzz the snapshot reader (src/priv/cfgsnap.c, cfgsnap_parse): the bytes
 * of a hostile configuration memfd.  Input byte 0 picks the shape:
 *   even  the rest is the whole snapshot, as is;
 *   odd   a valid snapshot of a configuration built in (two modules,
 *         every kind of field set), patched: the rest is (u16 offset,
 *         u8 value) triples, and bits 1-7 of byte 0 cut that many words
 *         off the end.
 * Whatever the bytes, the reader accepts or refuses without reading
 * outside the buffer; what it accepts is a usable configuration: every
 * string inside the buffer and NUL-terminated, every module named with an
 * absolute path, found by its own name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfgsnap.h"
#include "config.h"

static const char conf[] =
	"motd file = /etc/motd\n"
	"max connections per host = 3\n"
	"[pub]\n"
	"\tpath = /srv/pub\n"
	"\tcomment = public\n"
	"\tuid = nobody\n"
	"\tdont compress = *.gz\n"
	"\texclude = .git/ *.secret\n"
	"\tfilter = - core\n"
	"[Other]\n"
	"\tpath = /srv/other\n"
	"\tlist = no\n"
	"\tmax connections = -1\n";

static unsigned char *valid;
static size_t valid_len;

static void build_valid(void)
{
	struct cfg c;
	char err[CFG_ERR_MAX];

	if (cfg_parse("fuzz", conf, sizeof(conf) - 1, &c, err, sizeof(err)) < 0 ||
	    cfgsnap_build(&c, &valid, &valid_len, err, sizeof(err)) < 0)
		abort();
	cfg_free(&c);
}

#define USE_STR(f) if (c->f != NULL) sum += strlen(c->f);
#define USE_MSTR(f) if (m->f != NULL) sum += strlen(m->f);
#define USE_INT(f) sum += (size_t)(unsigned)c->f;
#define USE_MINT(f) sum += (size_t)(unsigned)m->f;
#define USE_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) if (c->f[i_] != NULL) sum += strlen(c->f[i_]);
#define USE_MSTRV(f, n) for (int i_ = 0; i_ < (n); i_++) if (m->f[i_] != NULL) sum += strlen(m->f[i_]);

/* Touch every field: ASan reports any string that is not inside the
 * buffer or not terminated. */
static size_t use(const struct cfg *c)
{
	size_t sum = 0;

	CFG_GLOBAL_FIELDS(USE_STR, USE_INT, USE_STRV)
	for (size_t i = 0; i < c->nmodules; i++) {
		const struct cfg_module *m = &c->modules[i];

		CFG_MODULE_FIELDS(USE_MSTR, USE_MINT, USE_MSTRV)
		if (m->name == NULL || m->path == NULL || m->path[0] != '/' ||
		    cfg_find_module(c, m->name) == NULL)
			abort();
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static volatile size_t sink;
	char err[CFG_ERR_MAX];
	unsigned char *buf;
	size_t len;
	struct cfg c;

	if (size < 1 || size > 1u << 20)
		return 0;
	if (valid == NULL)
		build_valid();
	if ((data[0] & 1) == 0) {
		len = size - 1;
		buf = malloc(len ? len : 1); /* exact size: ASan sees any overrun */
		if (buf == NULL)
			return 0;
		memcpy(buf, data + 1, len);
	} else {
		size_t cut = (size_t)(data[0] >> 1) * 4;

		len = cut < valid_len ? valid_len - cut : 0;
		buf = malloc(len ? len : 1);
		if (buf == NULL)
			return 0;
		memcpy(buf, valid, len);
		for (size_t i = 1; i + 3 <= size && len > 0; i += 3)
			buf[(data[i] | (size_t)data[i + 1] << 8) % len] = data[i + 2];
	}
	if (cfgsnap_parse(buf, len, &c, err, sizeof(err)) == 0) {
		sink = use(&c);
		cfgsnap_parsed_free(&c);
	} else if (err[0] == '\0') {
		abort(); /* refused without a reason */
	}
	free(buf);
	return 0;
}
