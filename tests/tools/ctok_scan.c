/* SPDX-License-Identifier: ISC */
/*
 * Check our token-stream decoders against stock's encoders: find, in a
 * batch file a stock client wrote (--write-batch records the stream the
 * sender produced), a compressed token stream that our decoder turns into
 * TARGET given BASIS as the receiver's old file.
 *
 *   ctok_scan BATCH BASIS TARGET BLOCK_LENGTH PROTOCOL FORMAT
 *
 * Exit 0 and one line when some offset decodes to exactly TARGET, 1 when
 * none does, 2 on usage or I/O errors.  Trying every offset avoids parsing
 * the file list; the decoder rejects garbage on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"

#define FILE_MAX (64u << 20)

struct src {
	const unsigned char *p;
	size_t n, pos;
};

static int rd(void *ctx, unsigned char *p, size_t n)
{
	struct src *s = ctx;

	if (n > s->n - s->pos)
		return -1;
	memcpy(p, s->p + s->pos, n);
	s->pos += n;
	return 0;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || (size_t)len > FILE_MAX) {
		fprintf(stderr, "ctok_scan: cannot read %s\n", path);
		exit(2);
	}
	rewind(f);
	p = malloc((size_t)len + 1);
	if (p == NULL || fread(p, 1, (size_t)len, f) != (size_t)len)
		exit(2);
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* Decode one file's stream at `at`; 1 if it reproduces the target. */
static int try_at(const unsigned char *b, size_t bn, size_t at, const unsigned char *old, size_t on,
		  const unsigned char *tgt, size_t tn, size_t bl, int proto, enum cpres type,
		  size_t *nblocks, size_t *used)
{
	struct src s = { b + at, bn - at, 0 };
	struct ctok_dec *d = ctok_dec_new(type, proto, rd, &s);
	int32_t count = (int32_t)((on + bl - 1) / bl);
	size_t got = 0;
	int ok = 0;

	if (d == NULL || ctok_dec_begin(d, count) != 0)
		exit(2);
	*nblocks = 0;
	for (;;) {
		const unsigned char *data;
		size_t len;
		int32_t idx;
		int t = ctok_dec_next(d, &data, &len, &idx);

		if (t == CTOK_ERR)
			break;
		if (t == CTOK_END) {
			ok = got == tn;
			break;
		}
		if (t == CTOK_BLOCK) {
			size_t off = (size_t)idx * bl;
			data = old + off;
			len = off + bl <= on ? bl : on - off;
			if (ctok_dec_block(d, data, len) != 0)
				break;
			(*nblocks)++;
		}
		if (len > tn - got || memcmp(tgt + got, data, len) != 0)
			break;
		got += len;
	}
	ctok_dec_free(d);
	*used = s.pos;
	return ok;
}

int main(int argc, char **argv)
{
	size_t bn, on, tn, bl, nblocks, used;
	unsigned char *b, *old, *tgt;
	int proto, type;

	if (argc != 7 || (bl = strtoul(argv[4], NULL, 10)) == 0 || (type = cpres_from_name(argv[6])) <= 0) {
		fprintf(stderr, "usage: ctok_scan BATCH BASIS TARGET BLOCK_LENGTH PROTOCOL FORMAT\n");
		return 2;
	}
	proto = atoi(argv[5]);
	b = slurp(argv[1], &bn);
	old = slurp(argv[2], &on);
	tgt = slurp(argv[3], &tn);
	int rc = 1;
	for (size_t at = 0; at < bn && rc; at++) {
		if (try_at(b, bn, at, old, on, tgt, tn, bl, proto, (enum cpres)type, &nblocks, &used)) {
			printf("%s: stream at offset %zu (%zu bytes, %zu block tokens) decodes to the target\n",
			       argv[6], at, used, nblocks);
			rc = 0;
		}
	}
	if (rc)
		printf("%s: no stream in %s decodes to the target\n", argv[6], argv[1]);
	free(b);
	free(old);
	free(tgt);
	return rc;
}
