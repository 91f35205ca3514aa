/* SPDX-License-Identifier: ISC */
/* Fuzz the configuration parser (src/listener/config.c, cfg_parse): any
 * text is either parsed or refused with a "FILE:LINE: reason", in time and
 * memory linear in its size.  A parsed configuration keeps the parser's
 * promises (every module named, with an absolute path; counts within
 * their limits), and travels through the session snapshot
 * (cfgsnap_build, cfgsnap_parse) unchanged, field by field. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfgsnap.h"
#include "config.h"

static int same_str(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

#define EQ_STR(f) ok &= same_str(a->f, b->f);
#define EQ_INT(f) ok &= a->f == b->f;
#define EQ_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) ok &= same_str(a->f[i_], b->f[i_]);

static int same_module(const struct cfg_module *a, const struct cfg_module *b)
{
	int ok = 1;

	CFG_MODULE_FIELDS(EQ_STR, EQ_INT, EQ_STRV)
	return ok;
}

static int same_global(const struct cfg *a, const struct cfg *b)
{
	int ok = a->nmodules == b->nmodules;

	CFG_GLOBAL_FIELDS(EQ_STR, EQ_INT, EQ_STRV)
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg c, back;
	char err[CFG_ERR_MAX];
	unsigned char *blob;
	size_t len;

	if (size > 1u << 18)
		return 0;
	if (cfg_parse("fuzz.conf", (const char *)data, size, &c, err, sizeof(err)) < 0) {
		if (strncmp(err, "fuzz.conf:", 10) != 0)
			abort(); /* refused without saying where */
		return 0;
	}
	if (c.nmodules > CFG_MAX_MODULES)
		abort();
	for (size_t i = 0; i < c.nmodules; i++) {
		const struct cfg_module *m = &c.modules[i];

		if (m->name == NULL || m->name[0] == '\0' || m->path == NULL || m->path[0] != '/')
			abort();
		if (cfg_find_module(&c, m->name) == NULL)
			abort();
	}
	if (cfgsnap_build(&c, &blob, &len, err, sizeof(err)) == 0) {
		if (cfgsnap_parse(blob, len, &back, err, sizeof(err)) < 0 || !same_global(&c, &back))
			abort();
		for (size_t i = 0; i < c.nmodules; i++)
			if (!same_module(&c.modules[i], &back.modules[i]))
				abort();
		cfgsnap_parsed_free(&back);
		free(blob);
	}
	cfg_free(&c);
	return 0;
}
