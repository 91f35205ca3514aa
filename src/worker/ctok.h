/* SPDX-License-Identifier: ISC */
/*
 * Inside the compressed token streams: the framing (ctok_enc.c,
 * ctok_dec.c) is shared, each format plugs in a small backend
 * (ctok_zlib.c, ctok_zstd.c, ctok_lz4.c).
 */
#ifndef PRSYNCD_CTOK_H
#define PRSYNCD_CTOK_H

#include "compress.h"

/* Flag bytes of the framing (spec part 2, 11.2). */
#define CTOK_END_FLAG 0x00
#define CTOK_TOKEN_LONG 0x20
#define CTOK_TOKENRUN_LONG 0x21
#define CTOK_DATA_FLAG 0x40
#define CTOK_TOKEN_REL 0x80
#define CTOK_TOKENRUN_REL 0xC0
#define CTOK_RUN_MAX 65535     /* extra blocks after the first in one run */

struct ctok_enc;

struct cenc_ops {
	int (*begin)(struct ctok_enc *e, int low);          /* per-file reset */
	int (*put)(struct ctok_enc *e, const unsigned char *p, size_t n); /* literal bytes */
	int (*flush)(struct ctok_enc *e);                   /* a token or END follows */
	int (*see)(struct ctok_enc *e, const unsigned char *p, size_t n); /* matched block */
	void (*free)(struct ctok_enc *e);
};

struct ctok_enc {
	const struct cenc_ops *ops;
	void *be;                   /* backend state */
	enum cpres type;
	int level, protocol;
	ctok_write_fn out;
	void *out_ctx;
	/* framing state, per file */
	int pending;                /* literal bytes went in since the last flush */
	int have_run;
	int32_t run_start, run_last, prev_end;
	/* compressed bytes not yet written as a record */
	unsigned char rec[2 + CTOK_MAX_DATA];
	size_t rec_n;
	char err[160];
};

/* For backends: queue compressed bytes (records are cut at CTOK_MAX_DATA),
 * or write exactly one record (lz4: one record = one block). */
int cenc_data(struct ctok_enc *e, const unsigned char *p, size_t n);
int cenc_record(struct ctok_enc *e, const unsigned char *p, size_t n);
int cenc_fail(struct ctok_enc *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cenc_zlib_init(struct ctok_enc *e);
int cenc_zstd_init(struct ctok_enc *e);
int cenc_lz4_init(struct ctok_enc *e);

struct ctok_dec;

struct cdec_ops {
	int (*begin)(struct ctok_dec *d);
	/* take one record's compressed bytes (the backend may keep the pointer
	 * until its output is drained) */
	int (*in)(struct ctok_dec *d, const unsigned char *p, size_t n);
	/* the end of a flush before a token or END (zlib: the stripped trailer);
	 * NULL if the format has none */
	int (*sync)(struct ctok_dec *d);
	/* decompressed output of what went in: *got = 0 when drained */
	int (*out)(struct ctok_dec *d, unsigned char *buf, size_t cap, size_t *got);
	int (*see)(struct ctok_dec *d, const unsigned char *p, size_t n);
	void (*free)(struct ctok_dec *d);
};

#define CTOK_OUT_CAP 32768

struct ctok_dec {
	const struct cdec_ops *ops;
	void *be;
	enum cpres type;
	int protocol;
	ctok_read_fn in;
	void *in_ctx;
	int32_t count;              /* blocks in the basis */
	int32_t prev_end;
	int32_t run_next, run_left; /* blocks of a run still to hand out */
	int draining;               /* output of the last input not yet handed out */
	int saw_data;               /* data since the last token (zlib needs a sync) */
	int held_flag;              /* flag read while a sync was due, or -1 */
	int ended;
	unsigned char rec[CTOK_MAX_DATA];
	unsigned char out[CTOK_OUT_CAP];
	char err[160];
};

int cdec_fail(struct ctok_dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cdec_zlib_init(struct ctok_dec *d);
int cdec_zstd_init(struct ctok_dec *d);
int cdec_lz4_init(struct ctok_dec *d);

#endif
