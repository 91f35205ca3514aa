/* SPDX-License-Identifier: ISC */
/* Integer codecs against the byte sequences captured in the spec. */
#include <string.h>

#include "unit.h"
#include "wire.h"

struct src { const unsigned char *p; size_t n, pos; };

static int rd(void *ctx, void *buf, size_t n)
{
	struct src *s = ctx;

	if (s->n - s->pos < n)
		return -1;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return 0;
}

static int bytes_eq(const unsigned char *a, size_t na, const char *hex)
{
	unsigned char want[16];
	size_t nw = 0;

	for (const char *h = hex; *h; h += (h[2] == ' ' ? 3 : 2)) {
		unsigned v;
		sscanf(h, "%2x", &v);
		want[nw++] = (unsigned char)v;
		if (!h[2])
			break;
	}
	return na == nw && memcmp(a, want, nw) == 0;
}

static void varint_case(int32_t v, const char *hex)
{
	unsigned char b[WIRE_VARINT_MAX];
	size_t n = wire_put_varint(b, v);
	struct src s = { b, n, 0 };
	int32_t back = 0;

	CHECK_MSG(bytes_eq(b, n, hex), "varint %d", v);
	CHECK(wire_get_varint(rd, &s, &back) == WIRE_OK && back == v && s.pos == n);
}

static void varlong_case(int64_t v, int min, const char *hex)
{
	unsigned char b[WIRE_VARLONG_MAX];
	size_t n = wire_put_varlong(b, v, min);
	struct src s = { b, n, 0 };
	int64_t back = 0;

	CHECK_MSG(bytes_eq(b, n, hex), "varlong %lld/%d", (long long)v, min);
	CHECK(wire_get_varlong(rd, &s, min, &back) == WIRE_OK && back == v && s.pos == n);
}

static void roundtrip_varlong(int64_t v, int min)
{
	unsigned char b[WIRE_VARLONG_MAX];
	size_t n = wire_put_varlong(b, v, min);
	struct src s = { b, n, 0 };
	int64_t back = 0;

	CHECK_MSG(wire_get_varlong(rd, &s, min, &back) == WIRE_OK && back == v && s.pos == n,
		  "varlong roundtrip %lld min %d", (long long)v, min);
}

int main(void)
{
	varint_case(0x1ff, "81 ff");
	varint_case(0x1fe, "81 fe");
	varint_case(0x3e, "3e");
	varint_case(0, "00");
	varint_case(0x18, "18");
	varint_case(0x2c01, "ac 01");
	varint_case(0x20a0, "a0 a0");
	varint_case(65534, "c0 fe ff");
	varint_case(155203368, "e9 28 37 40");
	varint_case(518438596, "f0 c4 be e6 1e");
	varint_case(-1, "f0 ff ff ff ff");
	varlong_case(20, 3, "00 14 00");
	varlong_case(70017, 3, "01 81 11");
	varlong_case(3000017, 3, "2d d1 c6");
	varlong_case(9002276, 3, "80 24 5d 89");
	varlong_case(4096, 3, "00 00 10");
	varlong_case(192, 3, "00 c0 00");
	varlong_case(1577836800, 4, "5e 00 e1 0b");
	for (int min = 1; min <= 8; min++) {
		roundtrip_varlong(0, min);
		roundtrip_varlong(1, min);
		roundtrip_varlong(INT64_MAX, min);
		roundtrip_varlong(-1, min);
		roundtrip_varlong(1LL << 40, min);
		roundtrip_varlong((1LL << 56) - 1, min);
	}

	/* ndx: captured sequences */
	{
		struct ndx_state st;
		unsigned char b[WIRE_NDX_MAX];
		ndx_state_init(&st);
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, 0), "01"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, 2), "02"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, NDX_DEL_STATS), "ff 02"));
		ndx_state_init(&st);
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, -102), "ff 65"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, NDX_FLIST_EOF), "ff fe 80 02 00 00"));
		ndx_state_init(&st);
		(void)wire_put_ndx(&st, b, 0);
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, 7), "07"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, 40002), "fe 80 42 9c 00"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, 70001), "fe 75 2f"));
		CHECK(bytes_eq(b, wire_put_ndx(&st, b, NDX_DONE), "00"));
	}
	/* ndx decode round trip across forms */
	{
		static const int32_t seq[] = { 0, 1, 5, 300, 299, 70000, 69000, -1, -102, -103, -2, 1000000, 3 };
		struct ndx_state w, r;
		unsigned char buf[256];
		size_t n = 0;
		ndx_state_init(&w);
		ndx_state_init(&r);
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
			n += wire_put_ndx(&w, buf + n, seq[i]);
		struct src s = { buf, n, 0 };
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
			int32_t v = 0;
			CHECK_MSG(wire_get_ndx(&r, rd, &s, &v) == WIRE_OK && v == seq[i], "ndx %d", seq[i]);
		}
	}
	/* malformed input is rejected, not wrapped */
	{
		static const unsigned char bad_varint[] = { 0xf8, 0, 0, 0, 0, 0 };
		struct src s = { bad_varint, sizeof(bad_varint), 0 };
		int32_t v;
		CHECK(wire_get_varint(rd, &s, &v) == WIRE_EINVAL);
		static const unsigned char bad_vl[] = { 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
		struct src s2 = { bad_vl, sizeof(bad_vl), 0 };
		int64_t l;
		CHECK(wire_get_varlong(rd, &s2, 3, &l) == WIRE_EINVAL);
		static const unsigned char shortv[] = { 0x81 };
		struct src s3 = { shortv, 1, 0 };
		CHECK(wire_get_varint(rd, &s3, &v) < 0);
		char str[8];
		size_t len;
		static const unsigned char longstr[] = { 0x80, 0x09, 'a' };
		struct src s4 = { longstr, sizeof(longstr), 0 };
		CHECK(wire_get_vstring(rd, &s4, str, sizeof(str), &len) == WIRE_EINVAL);
		static const unsigned char okstr[] = { 3, 'a', 'b', 'c' };
		struct src s5 = { okstr, sizeof(okstr), 0 };
		CHECK(wire_get_vstring(rd, &s5, str, sizeof(str), &len) == WIRE_OK && len == 3 &&
		      strcmp(str, "abc") == 0);
	}
	/* longint */
	{
		unsigned char b[12];
		CHECK(wire_put_longint(b, 5) == 4);
		CHECK(wire_put_longint(b, 1LL << 33) == 12 && b[0] == 0xff && b[8] == 2);
		struct src s = { b, 12, 0 };
		int64_t v;
		CHECK(wire_get_longint(rd, &s, &v) == WIRE_OK && v == 1LL << 33);
	}
	return unit_done("test_wire");
}
