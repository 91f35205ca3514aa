/* SPDX-License-Identifier: ISC */
/*
 * Integer encodings of the rsync protocol.  The decoders are the first
 * code to touch integers from the network, so each one bounds what it
 * accepts: varints longer than their type, ndx values beyond INT32_MAX and
 * oversized strings are errors, never silently wrapped.
 */
#include <string.h>

#include "wire.h"

size_t wire_put_int32(unsigned char out[4], int32_t v)
{
	uint32_t u = (uint32_t)v;

	out[0] = (unsigned char)u;
	out[1] = (unsigned char)(u >> 8);
	out[2] = (unsigned char)(u >> 16);
	out[3] = (unsigned char)(u >> 24);
	return 4;
}

/* Shared by varint and varlong: the value as LE bytes, at least min_bytes. */
static size_t put_var(unsigned char *out, uint64_t u, int min_bytes, int max_bytes)
{
	unsigned char b[9];
	int k, extra;

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(u >> (8 * i));
	b[8] = 0;
	for (k = max_bytes - 1; k > min_bytes - 1 && b[k] == 0; k--)
		;
	/* k = index of the highest byte that must be sent */
	extra = k - (min_bytes - 1);
	if (b[k] < (0x80u >> extra)) {
		out[0] = (unsigned char)(b[k] | (0xff00u >> extra));
		memcpy(out + 1, b, (size_t)k);
		return (size_t)k + 1;
	}
	out[0] = (unsigned char)(0xff00u >> (extra + 1));
	memcpy(out + 1, b, (size_t)k + 1);
	return (size_t)k + 2;
}

size_t wire_put_varint(unsigned char out[WIRE_VARINT_MAX], int32_t v)
{
	return put_var(out, (uint32_t)v, 1, 4);
}

size_t wire_put_varlong(unsigned char out[WIRE_VARLONG_MAX], int64_t v, int min_bytes)
{
	return put_var(out, (uint64_t)v, min_bytes, 8);
}

size_t wire_put_longint(unsigned char out[12], int64_t v)
{
	if (v >= 0 && v <= 0x7fffffff)
		return wire_put_int32(out, (int32_t)v);
	memset(out, 0xff, 4);
	wire_put_int32(out + 4, (int32_t)(uint32_t)((uint64_t)v & 0xffffffffu));
	wire_put_int32(out + 8, (int32_t)(uint32_t)((uint64_t)v >> 32));
	return 12;
}

void ndx_state_init(struct ndx_state *s)
{
	s->prev_pos = -1;
	s->prev_neg = 1;
}

size_t wire_put_ndx(struct ndx_state *s, unsigned char out[WIRE_NDX_MAX], int32_t ndx)
{
	size_t n = 0;
	int32_t num, diff;

	if (ndx == NDX_DONE) {
		out[0] = 0;
		return 1;
	}
	if (ndx >= 0) {
		num = ndx;
		diff = num - s->prev_pos;
		s->prev_pos = num;
	} else {
		out[n++] = 0xff;
		num = -ndx;
		diff = num - s->prev_neg;
		s->prev_neg = num;
	}
	if (diff > 0 && diff < 0xfe) {
		out[n++] = (unsigned char)diff;
	} else if (diff < 0 || diff > 0x7fff) {
		out[n++] = 0xfe;
		out[n++] = (unsigned char)((num >> 24) | 0x80);
		out[n++] = (unsigned char)num;
		out[n++] = (unsigned char)(num >> 8);
		out[n++] = (unsigned char)(num >> 16);
	} else {
		out[n++] = 0xfe;
		out[n++] = (unsigned char)(diff >> 8);
		out[n++] = (unsigned char)diff;
	}
	return n;
}

int wire_get_int32(wire_read_fn rd, void *ctx, int32_t *out)
{
	unsigned char b[4];
	int r = rd(ctx, b, 4);

	if (r < 0)
		return r;
	*out = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			 (uint32_t)b[3] << 24);
	return WIRE_OK;
}

/* Decode the prefix form; max_total bounds the bytes the type can hold. */
static int get_var(wire_read_fn rd, void *ctx, int min_bytes, int max_total, uint64_t *out)
{
	unsigned char first, b[9] = { 0 };
	int extra, r;

	if ((r = rd(ctx, &first, 1)) < 0)
		return r;
	for (extra = 0; extra < 8 && (first & (0x80u >> extra)); extra++)
		;
	if (min_bytes + extra > max_total)
		return WIRE_EINVAL;
	if (min_bytes - 1 + extra > 0 && (r = rd(ctx, b, (size_t)(min_bytes - 1 + extra))) < 0)
		return r;
	/* the first byte's remaining bits are the most significant part */
	unsigned mask = extra >= 7 ? 0u : (1u << (7 - extra)) - 1;
	if (min_bytes - 1 + extra < 8)
		b[min_bytes - 1 + extra] = (unsigned char)(first & mask);
	else if ((first & mask) != 0)
		return WIRE_EINVAL;
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	*out = v;
	return WIRE_OK;
}

int wire_get_varint(wire_read_fn rd, void *ctx, int32_t *out)
{
	uint64_t v;
	int r = get_var(rd, ctx, 1, 5, &v);

	if (r < 0)
		return r;
	if (v > 0xffffffffu)
		return WIRE_EINVAL;
	*out = (int32_t)(uint32_t)v;
	return WIRE_OK;
}

int wire_get_varlong(wire_read_fn rd, void *ctx, int min_bytes, int64_t *out)
{
	uint64_t v;
	int r;

	if (min_bytes < 1 || min_bytes > 8)
		return WIRE_EINVAL;
	r = get_var(rd, ctx, min_bytes, 9, &v);
	if (r < 0)
		return r;
	*out = (int64_t)v;
	return WIRE_OK;
}

int wire_get_longint(wire_read_fn rd, void *ctx, int64_t *out)
{
	int32_t lo, hi, v;
	int r;

	if ((r = wire_get_int32(rd, ctx, &v)) < 0)
		return r;
	if (v != -1) {
		*out = v;
		return WIRE_OK;
	}
	if ((r = wire_get_int32(rd, ctx, &lo)) < 0 || (r = wire_get_int32(rd, ctx, &hi)) < 0)
		return r;
	*out = (int64_t)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo);
	return WIRE_OK;
}

int wire_get_ndx(struct ndx_state *s, wire_read_fn rd, void *ctx, int32_t *out)
{
	unsigned char b[4];
	int32_t *prev = &s->prev_pos;
	int neg = 0, r;
	int64_t num;

	if ((r = rd(ctx, b, 1)) < 0)
		return r;
	if (b[0] == 0) {
		*out = NDX_DONE;
		return WIRE_OK;
	}
	if (b[0] == 0xff) {
		neg = 1;
		prev = &s->prev_neg;
		if ((r = rd(ctx, b, 1)) < 0)
			return r;
	}
	if (b[0] == 0xfe) {
		if ((r = rd(ctx, b, 2)) < 0)
			return r;
		if (b[0] & 0x80) {
			unsigned char hi = b[0] & 0x7f, lo0 = b[1];
			if ((r = rd(ctx, b, 2)) < 0)
				return r;
			num = (int64_t)hi << 24 | (int64_t)b[1] << 16 | (int64_t)b[0] << 8 | lo0;
		} else {
			num = (int64_t)*prev + ((int64_t)b[0] << 8 | b[1]);
		}
	} else {
		num = (int64_t)*prev + b[0];
	}
	if (num < 0 || num > INT32_MAX)
		return WIRE_EINVAL;
	*prev = (int32_t)num;
	*out = neg ? -(int32_t)num : (int32_t)num;
	return WIRE_OK;
}

int wire_get_vstring(wire_read_fn rd, void *ctx, char *out, size_t cap, size_t *len)
{
	unsigned char b[2];
	size_t n;
	int r;

	if ((r = rd(ctx, b, 1)) < 0)
		return r;
	n = b[0];
	if (n & 0x80) {
		if ((r = rd(ctx, b + 1, 1)) < 0)
			return r;
		n = ((n & 0x7f) << 8) | b[1];
	}
	if (n >= cap)
		return WIRE_EINVAL;
	if (n > 0 && (r = rd(ctx, out, n)) < 0)
		return r;
	out[n] = '\0';
	*len = n;
	return WIRE_OK;
}

size_t wire_put_vstring_hdr(unsigned char out[2], size_t len)
{
	if (len < 0x80) {
		out[0] = (unsigned char)len;
		return 1;
	}
	out[0] = (unsigned char)(0x80 | (len >> 8));
	out[1] = (unsigned char)len;
	return 2;
}
