/* SPDX-License-Identifier: ISC */
/*
 * Fuzz %VAR% expansion (src/priv/cfgvars.c): the listener expands every
 * configuration value, the session monitor the selected module's values
 * with the client's address and (DNS-given) name.  Input: byte 0 splits
 * the rest into a value and the text every defined name expands to.  The
 * result must be terminated, within its buffer, and -1 exactly when it
 * was cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfgvars.h"

static char val[512];

static const char *lookup(const char *name, void *ctx)
{
	(void)ctx;
	return strlen(name) % 3 == 0 ? NULL : val;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[4096], out[1024];
	size_t split;
	int rc;

	if (size < 1 || size > sizeof(in))
		return 0;
	split = data[0] % size;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	in[split] = '\0';
	if (strlen(in + split + (split < size - 1)) >= sizeof(val))
		return 0;
	strcpy(val, in + split + (split < size - 1));
	rc = cfgvars_expand(in, out, 1 + data[0] % sizeof(out), lookup, NULL);
	if (memchr(out, '\0', 1 + data[0] % sizeof(out)) == NULL)
		abort();
	if (rc == 0 && strchr(in, '%') == NULL && strcmp(in, out) != 0)
		abort();
	return 0;
}
