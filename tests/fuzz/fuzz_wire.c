/* SPDX-License-Identifier: ISC */
/* Fuzz the integer decoders: any input either decodes or is rejected,
 * and whatever decodes re-encodes to a value that decodes the same. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

struct src { const uint8_t *p; size_t n, pos; };

static int rd(void *ctx, void *buf, size_t n)
{
	struct src *s = ctx;

	if (s->n - s->pos < n)
		return -1;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size, 0 };
	struct ndx_state st;
	char str[256];

	ndx_state_init(&st);
	while (s.pos < s.n) {
		uint8_t op;
		int32_t v;
		int64_t l;
		size_t len;

		if (rd(&s, &op, 1) < 0)
			break;
		switch (op % 6) {
		case 0:
			if (wire_get_varint(rd, &s, &v) == WIRE_OK) {
				unsigned char b[WIRE_VARINT_MAX];
				struct src t = { b, wire_put_varint(b, v), 0 };
				int32_t w;
				if (wire_get_varint(rd, &t, &w) != WIRE_OK || w != v)
					__builtin_trap();
			}
			break;
		case 1:
		case 2: {
			int min = 1 + op % 8;
			if (wire_get_varlong(rd, &s, min, &l) == WIRE_OK) {
				unsigned char b[WIRE_VARLONG_MAX];
				struct src t = { b, wire_put_varlong(b, l, min), 0 };
				int64_t w;
				if (wire_get_varlong(rd, &t, min, &w) != WIRE_OK || w != l)
					__builtin_trap();
			}
			break;
		}
		case 3:
			(void)wire_get_ndx(&st, rd, &s, &v);
			break;
		case 4:
			(void)wire_get_vstring(rd, &s, str, sizeof(str), &len);
			break;
		default:
			(void)wire_get_longint(rd, &s, &l);
			break;
		}
	}
	return 0;
}
