/* SPDX-License-Identifier: ISC */
/*
 * For the fuzz targets that drive the worker's client side: the input
 * becomes what a client sent on a socket (then shut down), with room for
 * everything the worker writes back, so a run never blocks.  Returns the
 * worker's end in sv[0] and ours in sv[1], or -1.  Set mon_exit_hook to
 * fuzz_exit_hook and setjmp(fuzz_back) around the code under test.
 */
#ifndef PRSYNCD_FUZZ_SOCK_H
#define PRSYNCD_FUZZ_SOCK_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

/* Session ends (mon_exit) come back here instead of exiting. */
static jmp_buf fuzz_back;

static void fuzz_exit_hook(int code)
{
	(void)code;
	longjmp(fuzz_back, 1);
}

static inline int fuzz_client_socket(const uint8_t *data, size_t size, int sv[2])
{
	int big = 1 << 20;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	(void)setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (size > 0 && write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	shutdown(sv[1], SHUT_WR);
	return 0;
}

#endif
