/* SPDX-License-Identifier: ISC */
/*
 * Compression for one session: what the client asked for (options and the
 * name-list negotiation, spec part 1 5.2/5.3) and the per-file token sink
 * the sender uses.  Kept apart from setup.c and sender.c so those only make
 * three calls.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compress_sess.h"
#include "mon.h"

static int io_out(void *ctx, const unsigned char *p, size_t n)
{
	io_write(ctx, p, n); /* ends the session itself on failure */
	return 0;
}

int compress_options(struct sess *s, int negotiated, char *err, size_t errlen)
{
	const struct options *o = &s->opt;
	const char *choice = o->compress_choice;

	s->cpres = CPRES_NONE;
	s->cpres_list = 0;
	/* -zz means zlibx; "auto" is the same as no choice */
	if (choice[0] == '\0' && o->compress > 1)
		choice = "zlibx";
	if (strcasecmp(choice, "auto") == 0)
		choice = "";
	if (choice[0]) {
		int t = cpres_from_name(choice);
		if (t < 0) {
			snprintf(err, errlen, "unknown compress name: %s", choice);
			return -1;
		}
		s->cpres = (enum cpres)t;
	} else if (o->compress || o->compress_level != -1) {
		/* a level alone asks for compression too (stock's CPRES_AUTO) */
		s->cpres = CPRES_ZLIB;
		s->cpres_list = negotiated;
	}
	return 0;
}

void compress_write_list(struct sess *s)
{
	if (s->cpres_list)
		io_write_vstring(&s->io, CPRES_OUR_LIST);
}

void compress_read_list(struct sess *s)
{
	if (s->cpres_list) {
		char theirs[256];
		int pick;

		io_read_vstring(&s->io, theirs, sizeof(theirs));
		pick = cpres_pick(theirs);
		if (pick < 0) {
			/* like stock: no message to the client, it reports the lists */
			mon_log(PR_LOG_WARNING, "no compression in common with the client (%s)", theirs);
			mon_exit(RERR_UNSUPPORTED);
		}
		s->cpres = (enum cpres)pick;
	}
	s->clevel = cpres_level(&s->cpres, s->opt.compress_level != -1, s->opt.compress_level);
}

int compress_sink(struct sess *s, struct token_sink *sink, const char *name)
{
	if (s->cpres == CPRES_NONE)
		return 0;
	if (s->cenc == NULL) {
		s->cenc = ctok_enc_new(s->cpres, s->clevel, s->protocol, io_out, &s->io);
		if (s->cenc == NULL)
			return -1;
	}
	int low = (s->cpres == CPRES_ZLIB || s->cpres == CPRES_ZLIBX) &&
		  cpres_dont_compress(s->hs.dont_compress, s->opt.skip_compress, name);
	if (ctok_enc_begin(s->cenc, low) != 0)
		return -1;
	ctok_enc_sink(s->cenc, sink);
	return 0;
}

const char *compress_error(const struct sess *s)
{
	const char *m = s->cenc ? ctok_enc_error(s->cenc) : "";

	if (s->cpres != CPRES_NONE && s->cenc == NULL)
		return "cannot set up the compressor";
	return m[0] ? m : "reading or matching the file failed";
}
