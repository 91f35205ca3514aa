/* SPDX-License-Identifier: ISC */
/*
 * rsync's integer encodings (spec part 1, section 2).  Encoders write into
 * a caller's small array and return the byte count; decoders read from a
 * byte source and reject every out-of-range form instead of guessing.
 */
#ifndef PRSYNCD_WIRE_H
#define PRSYNCD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_VARINT_MAX 5
#define WIRE_VARLONG_MAX 9
#define WIRE_NDX_MAX 6

#define NDX_DONE (-1)
#define NDX_FLIST_EOF (-2)
#define NDX_DEL_STATS (-3)
#define NDX_FLIST_OFFSET (-101)

size_t wire_put_int32(unsigned char out[4], int32_t v);
size_t wire_put_varint(unsigned char out[WIRE_VARINT_MAX], int32_t v);
/* varlong with at least min_bytes (1..8) bytes */
size_t wire_put_varlong(unsigned char out[WIRE_VARLONG_MAX], int64_t v, int min_bytes);
/* longint (protocol < 30): int32 for 0..INT32_MAX, else FF FF FF FF + int64 */
size_t wire_put_longint(unsigned char out[12], int64_t v);

/* The per-direction state of the byte-reduced ndx encoding (protocol >= 30). */
struct ndx_state {
	int32_t prev_pos;  /* starts at -1 */
	int32_t prev_neg;  /* starts at 1 */
};
void ndx_state_init(struct ndx_state *s);
size_t wire_put_ndx(struct ndx_state *s, unsigned char out[WIRE_NDX_MAX], int32_t ndx);

/* A byte source for decoders: returns 0 on success, <0 to abort. */
typedef int (*wire_read_fn)(void *ctx, void *buf, size_t n);

enum { WIRE_OK = 0, WIRE_EINVAL = -100 };

int wire_get_int32(wire_read_fn rd, void *ctx, int32_t *out);
int wire_get_varint(wire_read_fn rd, void *ctx, int32_t *out);
int wire_get_varlong(wire_read_fn rd, void *ctx, int min_bytes, int64_t *out);
int wire_get_longint(wire_read_fn rd, void *ctx, int64_t *out);
int wire_get_ndx(struct ndx_state *s, wire_read_fn rd, void *ctx, int32_t *out);
/* vstring: 1 or 2 length bytes; rejects len >= cap (out gets a NUL). */
int wire_get_vstring(wire_read_fn rd, void *ctx, char *out, size_t cap, size_t *len);
size_t wire_put_vstring_hdr(unsigned char out[2], size_t len);

#endif
