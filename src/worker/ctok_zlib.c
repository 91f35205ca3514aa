/* SPDX-License-Identifier: ISC */
/*
 * zlibx and zlib (spec part 2, 11.3 and 11.4): one raw deflate stream per
 * file, sync-flushed before each token with the 00 00 ff ff trailer left
 * off.  zlib also puts every matched block into the history; with stock
 * zlib (no Z_INSERT_ONLY) the sender deflates the block with a sync flush
 * and throws the output away, the receiver feeds its inflater a stored
 * block.  Both cut blocks into pieces of at most 65535 bytes, and before
 * protocol 31 every piece repeats the block's start (a stock bug the wire
 * format now depends on).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ctok.h"

#define ZWINDOW_BITS (-15)     /* raw deflate, 32 KiB window */
#define ZMEM_LEVEL 8
#define PIECE_MAX 0xffff
#define ZBUF 16384

static const unsigned char sync_trailer[4] = { 0x00, 0x00, 0xff, 0xff };

/* The next piece of a matched block: [*off, *off + return) */
static size_t next_piece(int protocol, size_t *off, size_t *left)
{
	size_t k = *left > PIECE_MAX ? PIECE_MAX : *left;

	*left -= k;
	if (protocol >= 31)
		*off += k;
	return k;
}

/* ---- deflate side --------------------------------------------------------- */

struct zenc {
	z_stream zs;
	int live;
	int cur_level;
	unsigned char buf[4 + ZBUF];
};

static int zenc_open(struct ctok_enc *e, struct zenc *z, int level)
{
	if (z->live)
		deflateEnd(&z->zs);
	memset(&z->zs, 0, sizeof(z->zs));
	z->live = 0;
	if (deflateInit2(&z->zs, level, Z_DEFLATED, ZWINDOW_BITS, ZMEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		return cenc_fail(e, "deflateInit2 failed");
	z->live = 1;
	z->cur_level = level;
	return 0;
}

static int zenc_begin(struct ctok_enc *e, int low)
{
	struct zenc *z = e->be;
	int level = low ? Z_NO_COMPRESSION : e->level;

	/* A level change gets a fresh stream: deflateParams on a used stream
	 * may emit a block, and the file's stream must start clean. */
	if (!z->live || level != z->cur_level)
		return zenc_open(e, z, level);
	if (deflateReset(&z->zs) != Z_OK)
		return cenc_fail(e, "deflateReset failed");
	return 0;
}

static int zenc_put(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	struct zenc *z = e->be;

	while (n > 0) {
		uInt k = n > (1u << 20) ? (1u << 20) : (uInt)n;

		z->zs.next_in = (Bytef *)(uintptr_t)p;
		z->zs.avail_in = k;
		do {
			z->zs.next_out = z->buf;
			z->zs.avail_out = ZBUF;
			int r = deflate(&z->zs, Z_NO_FLUSH);
			if (r != Z_OK && r != Z_BUF_ERROR)
				return cenc_fail(e, "deflate returned %d", r);
			if (cenc_data(e, z->buf, ZBUF - z->zs.avail_out) != 0)
				return -1;
		} while (z->zs.avail_in > 0 || z->zs.avail_out == 0);
		p += k;
		n -= k;
	}
	return 0;
}

/* Sync flush, holding back the last 4 bytes until we know they are the
 * trailer to drop. */
static int zenc_flush(struct ctok_enc *e)
{
	struct zenc *z = e->be;
	size_t held = 0;

	z->zs.next_in = NULL;
	z->zs.avail_in = 0;
	do {
		z->zs.next_out = z->buf + held;
		z->zs.avail_out = (uInt)(sizeof(z->buf) - held);
		int r = deflate(&z->zs, Z_SYNC_FLUSH);
		if (r != Z_OK && r != Z_BUF_ERROR)
			return cenc_fail(e, "deflate (flush) returned %d", r);
		size_t tot = sizeof(z->buf) - z->zs.avail_out;
		if (tot > 4) {
			if (cenc_data(e, z->buf, tot - 4) != 0)
				return -1;
			memmove(z->buf, z->buf + tot - 4, 4);
			held = 4;
		} else {
			held = tot;
		}
	} while (z->zs.avail_out == 0);
	if (held != 4 || memcmp(z->buf, sync_trailer, 4) != 0)
		return cenc_fail(e, "deflate sync flush without its trailer");
	return 0;
}

/* zlib only: the matched block joins the history, output discarded. */
static int zenc_see(struct ctok_enc *e, const unsigned char *p, size_t n)
{
	struct zenc *z = e->be;
	size_t off = 0, left = n;

	while (left > 0) {
		size_t at = off, k = next_piece(e->protocol, &off, &left);

		z->zs.next_in = (Bytef *)(uintptr_t)(p + at);
		z->zs.avail_in = (uInt)k;
		do {
			z->zs.next_out = z->buf;
			z->zs.avail_out = ZBUF;
			int r = deflate(&z->zs, Z_SYNC_FLUSH);
			if (r == Z_BUF_ERROR)
				break;
			if (r != Z_OK)
				return cenc_fail(e, "deflate (history) returned %d", r);
		} while (z->zs.avail_in > 0 || z->zs.avail_out == 0);
	}
	return 0;
}

static void zenc_free(struct ctok_enc *e)
{
	struct zenc *z = e->be;

	if (z && z->live)
		deflateEnd(&z->zs);
	free(z);
	e->be = NULL;
}

static const struct cenc_ops zlibx_enc_ops = { zenc_begin, zenc_put, zenc_flush, NULL, zenc_free };
static const struct cenc_ops zlib_enc_ops = { zenc_begin, zenc_put, zenc_flush, zenc_see, zenc_free };

int cenc_zlib_init(struct ctok_enc *e)
{
	struct zenc *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return -1;
	if (e->level < Z_NO_COMPRESSION || e->level > Z_BEST_COMPRESSION)
		e->level = 6;
	e->be = z;
	e->ops = e->type == CPRES_ZLIB ? &zlib_enc_ops : &zlibx_enc_ops;
	return 0;
}

/* ---- inflate side --------------------------------------------------------- */

struct zdec {
	z_stream zs;
	unsigned char scratch[ZBUF];
};

static int zdec_begin(struct ctok_dec *d)
{
	struct zdec *z = d->be;

	if (inflateReset(&z->zs) != Z_OK)
		return cdec_fail(d, "inflateReset failed");
	z->zs.avail_in = 0;
	return 0;
}

static int zdec_in(struct ctok_dec *d, const unsigned char *p, size_t n)
{
	struct zdec *z = d->be;

	z->zs.next_in = (Bytef *)(uintptr_t)p;
	z->zs.avail_in = (uInt)n;
	return 0;
}

static int zdec_sync(struct ctok_dec *d)
{
	return zdec_in(d, sync_trailer, sizeof(sync_trailer));
}

static int zdec_out(struct ctok_dec *d, unsigned char *buf, size_t cap, size_t *got)
{
	struct zdec *z = d->be;

	z->zs.next_out = buf;
	z->zs.avail_out = (uInt)cap;
	int r = inflate(&z->zs, Z_SYNC_FLUSH);
	if (r != Z_OK && r != Z_BUF_ERROR)
		return cdec_fail(d, "inflate returned %d%s%s", r, z->zs.msg ? ": " : "",
				 z->zs.msg ? z->zs.msg : "");
	*got = cap - z->zs.avail_out;
	if (*got == 0 && z->zs.avail_in > 0)
		return cdec_fail(d, "inflate made no progress");
	return 0;
}

/* Run one piece of input through the inflater, expecting `want` bytes out
 * (nothing else may come out: the stream is at a sync point). */
static int zdec_feed(struct ctok_dec *d, const unsigned char *p, size_t n, size_t want)
{
	struct zdec *z = d->be;
	size_t got_total = 0;

	z->zs.next_in = (Bytef *)(uintptr_t)p;
	z->zs.avail_in = (uInt)n;
	do {
		size_t got = 0;
		if (zdec_out(d, z->scratch, sizeof(z->scratch), &got) != 0)
			return -1;
		got_total += got;
		if (got_total > want)
			return cdec_fail(d, "history insert produced extra output");
		if (got == 0)
			break;
	} while (z->zs.avail_in > 0 || z->zs.avail_out == 0);
	if (z->zs.avail_in != 0 || got_total != want)
		return cdec_fail(d, "history insert out of step");
	return 0;
}

static int zdec_see(struct ctok_dec *d, const unsigned char *p, size_t n)
{
	size_t off = 0, left = n;

	while (left > 0) {
		size_t at = off, k = next_piece(d->protocol, &off, &left);
		unsigned char hdr[5] = { 0x00, (unsigned char)(k & 0xff), (unsigned char)(k >> 8),
					 (unsigned char)~(k & 0xff), (unsigned char)~(k >> 8) };

		if (zdec_feed(d, hdr, sizeof(hdr), 0) != 0 || zdec_feed(d, p + at, k, k) != 0)
			return -1;
	}
	return 0;
}

static void zdec_free(struct ctok_dec *d)
{
	struct zdec *z = d->be;

	if (z)
		inflateEnd(&z->zs);
	free(z);
	d->be = NULL;
}

static const struct cdec_ops zlibx_dec_ops = { zdec_begin, zdec_in, zdec_sync, zdec_out, NULL, zdec_free };
static const struct cdec_ops zlib_dec_ops = { zdec_begin, zdec_in, zdec_sync, zdec_out, zdec_see, zdec_free };

int cdec_zlib_init(struct ctok_dec *d)
{
	struct zdec *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return -1;
	if (inflateInit2(&z->zs, ZWINDOW_BITS) != Z_OK) {
		free(z);
		return -1;
	}
	d->be = z;
	d->ops = d->type == CPRES_ZLIB ? &zlib_dec_ops : &zlibx_dec_ops;
	return 0;
}
