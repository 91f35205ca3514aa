/* SPDX-License-Identifier: ISC */
/*
 * The sender's bulk output: io_write_literal (the token stream and its
 * MSG_DATA frames, written with writev instead of copied into the output
 * buffer) decodes to its input whatever was pending before it, with
 * frames no longer than a whole output buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conn.h"
#include "io.h"
#include "unit.h"

static unsigned char *pattern(size_t n, uint32_t seed)
{
	unsigned char *p = malloc(n);

	for (size_t i = 0; p != NULL && i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
	return p;
}

/* Read frames from fd until n payload bytes of MSG_DATA arrived. */
static size_t read_stream(int fd, unsigned char *out, size_t cap, size_t *frames, size_t *maxframe)
{
	size_t got = 0;

	*frames = *maxframe = 0;
	while (got < cap) {
		unsigned char h[4];
		size_t len;

		if (read(fd, h, 1) != 1 || read(fd, h + 1, 3) != 3)
			break;
		len = h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16;
		if (h[3] != 7 || got + len > cap)
			return (size_t)-1;
		for (size_t k = 0; k < len;) {
			ssize_t r = read(fd, out + got + k, len - k);
			if (r <= 0)
				return (size_t)-1;
			k += (size_t)r;
		}
		got += len;
		(*frames)++;
		if (len > *maxframe)
			*maxframe = len;
	}
	return got;
}

static void literal_case(size_t pending, size_t n, size_t chunk)
{
	unsigned char *d = pattern(n, (uint32_t)(n + pending));
	size_t pieces = chunk ? (n + chunk - 1) / chunk : 0, want = pending + n + 4 * pieces, frames, maxf;
	unsigned char *got = malloc(want + 16);
	int sv[2];
	pid_t pid;
	struct conn c;
	struct io io;

	CHECK(d != NULL && got != NULL && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		conn_init(&c, sv[1]);
		io_init(&io, &c, 31);
		io_start_mux(&io);
		for (size_t i = 0; i < pending; i++)
			io_write_byte(&io, (uint8_t)(0xa0 + i));
		io_write_literal(&io, d, n, chunk);
		io_flush(&io);
		_exit(0);
	}
	close(sv[1]);
	size_t r = read_stream(sv[0], got, want, &frames, &maxf);
	close(sv[0]);
	waitpid(pid, NULL, 0);
	CHECK_MSG(r == want, "pending %zu n %zu: %zu of %zu bytes", pending, n, r, want);
	CHECK_MSG(maxf <= 32768, "a frame of %zu bytes", maxf);
	if (r == want) {
		size_t pos = pending, off = 0;
		int ok = 1;

		for (size_t i = 0; i < pending; i++)
			ok &= got[i] == (unsigned char)(0xa0 + i);
		while (off < n && ok) {
			size_t k = n - off < chunk ? n - off : chunk;
			uint32_t v = got[pos] | (uint32_t)got[pos + 1] << 8 | (uint32_t)got[pos + 2] << 16 |
				     (uint32_t)got[pos + 3] << 24;

			ok &= v == k && memcmp(got + pos + 4, d + off, k) == 0;
			pos += 4 + k;
			off += k;
		}
		CHECK_MSG(ok, "pending %zu n %zu chunk %zu: the stream decodes to the input", pending, n, chunk);
	}
	free(d);
	free(got);
}

static void test_literal(void)
{
	static const size_t ns[] = { 1, 100, 16383, 16384, 32768, 32769, 65536, 262144, 262145, 1000003 };
	static const size_t pend[] = { 0, 1, 5, 4000, 32767 };

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (size_t j = 0; j < sizeof pend / sizeof pend[0]; j++)
			literal_case(pend[j], ns[i], 32768);
	literal_case(3, 300000, 1000);
	literal_case(0, 300000, 32768 - 4);
}

int main(void)
{
	test_literal();
	return unit_done("test_bulkio");
}
