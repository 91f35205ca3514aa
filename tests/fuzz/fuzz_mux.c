/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the worker's reading of the client's data stream: the multiplexed
 * input of src/worker/io.c (frame headers, client messages, the fatal
 * paths) and the integer/string codecs over conn.c, as the sender reads
 * them after the setup.
 *
 * Input: byte 0 picks the protocol (27 + b % 6); byte 1 is a read script
 * (two bits per step: ndx, varint, vstring, raw bytes); the rest is what
 * the client sends.  Every way a session would end (EOF, a bad frame, a
 * fatal error) returns here through mon_exit_hook.
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_sock.h"
#include "io.h"
#include "mon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conn c;
	static struct io io;
	static char str[4096];
	static unsigned char raw[300];
	int sv[2];
	volatile int steps = 0;

	if (size < 2 || size > 100000)
		return 0;
	if (fuzz_client_socket(data + 2, size - 2, sv) < 0)
		return 0;
	mon_exit_hook = fuzz_exit_hook;
	if (setjmp(fuzz_back) == 0) {
		conn_init(&c, sv[0]);
		io_init(&io, &c, 27 + data[0] % 6);
		io_start_mux(&io);
		for (steps = 0; steps < 100000; steps++) {
			switch ((data[1] >> ((steps % 4) * 2)) & 3) {
			case 0: (void)io_read_ndx(&io); break;
			case 1: (void)io_read_varint(&io); break;
			case 2: (void)io_read_vstring(&io, str, sizeof(str)); break;
			default: io_read(&io, raw, (size_t)(data[0] % sizeof(raw))); break;
			}
		}
	}
	mon_exit_hook = NULL;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
