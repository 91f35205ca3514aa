/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the server command line parser (src/worker/options.c).
 *
 * Input: byte 0 picks the protocol (27 + b % 6, i.e. 27..32) and, with its
 * top bit set, prepends a "--server" record so the fuzzer reaches the
 * option code without having to find that string first; bits 3-5 pick a
 * module's "refuse options" (refuse.c) to judge the options against.  The rest is
 * split on NUL into records (a trailing record without NUL counts too).
 *
 * Besides the sanitizers, check what the caller relies on: a success
 * leaves bounded, terminated fields and at most OPT_MAX_PATHS paths; a
 * failure leaves a non-empty, printable message and nothing allocated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "refuse.h"

static const char *const specs[8] = {
	NULL, "", "n c delete *links !safe-links zl", "* !a !v !r !l !p !t !g !o !D !e !server !sender",
	"archive no-perms del log-format s", "delete-before delete-during inplace partial z",
	"[a-z] !n !s", "no-iconv progress P D F",
};
static struct refuse ref;

static struct options o;

static void check_str(const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[4096];
	char *buf, **argv;
	size_t argc = 0;
	int protocol, rc;

	if (size < 1)
		return 0;
	protocol = 27 + data[0] % 6;
	buf = malloc(size);          /* records of data[1..], NUL-terminated */
	argv = malloc((size + 1) * sizeof(*argv));
	if (buf == NULL || argv == NULL)
		abort();
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	if (data[0] & 0x80)
		argv[argc++] = "--server";
	for (size_t i = 0; i < size - 1;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}

	if (specs[(data[0] >> 3) & 7]) {
		char nomatch[64];

		refuse_compile(&ref, specs[(data[0] >> 3) & 7], data[0] & 1, nomatch, sizeof(nomatch));
		rc = options_parse_refusing(&o, protocol, &ref, argv, argc, err, sizeof(err));
	} else {
		rc = options_parse(&o, protocol, argv, argc, err, sizeof(err));
	}
	if (rc == 0) {
		if (o.npaths > OPT_MAX_PATHS || !o.server)
			abort();
		for (size_t i = 0; i < o.npaths; i++)
			if (o.paths[i] == NULL || strlen(o.paths[i]) > OPT_MAX_ARG_LEN)
				abort();
		check_str(o.compress_choice, sizeof(o.compress_choice));
		check_str(o.skip_compress, sizeof(o.skip_compress));
		check_str(o.checksum_choice, sizeof(o.checksum_choice));
		check_str(o.files_from_path, sizeof(o.files_from_path));
		/* A compression level is any int here, as in rsync: the
		 * session clamps it for the compressor it picks (compress_sess.c). */
		if (o.timeout < 0 || o.bwlimit < 0 || o.block_size < 0)
			abort();
	} else {
		if (rc != -1 || err[0] == '\0' || o.npaths != 0)
			abort();
		for (const char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
	}
	options_free(&o);
	free(argv);
	free(buf);
	return 0;
}
