/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the chmod rules of "outgoing chmod" (src/proto/chmod.c): the
 * listener parses the operator's value, the worker applies it to every
 * mode it sends.  Input: the value (NUL-terminated here).  A value that
 * parses must keep every mode's type bits and never change a symlink.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chmod.h"

static struct chmod_rules c;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t modes[] = { S_IFREG | 0644, S_IFDIR | 0755, S_IFREG | 07777, S_IFDIR, S_IFLNK | 0777,
					  S_IFIFO | 0600, S_IFREG | 0711 };
	char spec[2048];

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (chmod_parse(&c, spec, size ? data[0] & 0777 : 022) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		uint32_t m = chmod_apply(&c, modes[i]);

		if ((m & S_IFMT) != (modes[i] & S_IFMT) || (m & ~(uint32_t)(S_IFMT | 07777)) != 0)
			abort();
		if (S_ISLNK(modes[i]) && m != modes[i])
			abort();
	}
	return 0;
}
