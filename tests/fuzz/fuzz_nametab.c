/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the names table reader (src/priv/nametab.c), which every session
 * monitor runs on the table the listener hands it: the input is a table.
 * Checks: nothing is read outside the buffer (ASan); a table accepted
 * obeys every rule (each entry found by name, its addresses inside the
 * addresses area); rebuilding an accepted table gives the same bytes (the
 * format has one spelling); a name taken from the input is found or not
 * without harm.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nametab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t *buf;
	struct nametab t;
	struct nametab_item *it;
	struct nametab_answer a;
	unsigned char *again;
	size_t len;
	char err[128], probe[NAMETAB_NAME_MAX + 1];

	if (size > (1u << 20))
		return 0;
	buf = malloc(size + 4); /* aligned, as a mapping is */
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	snprintf(probe, sizeof(probe), "%.*s", (int)(size < 16 ? size : 16), (const char *)data + (size > 32 ? 32 : 0));
	if (nametab_parse(buf, size, &t, err, sizeof(err)) < 0) {
		free(buf);
		return 0;
	}
	it = calloc(t.n + 1, sizeof(*it));
	if (it == NULL)
		abort();
	for (size_t i = 0; i < t.n; i++) {
		const uint32_t *e = t.entries + i * NAMETAB_ENTRY_WORDS;
		const char *name = t.strings + e[2];

		if (!nametab_find(&t, e[0], name, &a) || a.status != e[1])
			abort();
		if (a.addrs != NULL && (a.addrs < t.addrs || a.addrs + a.naddr > t.addrs + t.naddr))
			abort();
		it[i] = (struct nametab_item){ e[0], e[1], name, a.addrs, a.addrs ? a.naddr : 0, a.ifindex };
	}
	if (nametab_build(it, t.n, t.flags, &again, &len, err, sizeof(err)) < 0 || len != size ||
	    memcmp(again, buf, size) != 0)
		abort();
	(void)nametab_find(&t, NT_HOST, probe, &a);
	(void)nametab_find(&t, NT_IFACE, probe, &a);
	free(again);
	free(it);
	free(buf);
	return 0;
}
