/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the daemon handshake text phase (src/worker/daemon.c over conn.c):
 * greeting parsing, the optional #early_input block, the request line.
 * There is no monitor behind the channel, so the first request to it (the
 * module listing or selection) ends the run, as does every error: both
 * return here through mon_exit_hook.
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "fuzz_sock.h"
#include "mon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conn c;
	static struct handshake hs;
	struct pr_m_init init;
	int sv[2];

	if (size > 100000)
		return 0;
	if (fuzz_client_socket(data, size, sv) < 0)
		return 0;
	memset(&init, 0, sizeof(init));
	init.handshake_timeout = 5;
	init.max_protocol = 32;
	mon_ipc.fd = -1;         /* no monitor: the first request fails */
	mon_exit_hook = fuzz_exit_hook;
	if (setjmp(fuzz_back) == 0) {
		conn_init(&c, sv[0]);
		(void)daemon_handshake(&c, &init, -1, &hs);
	}
	mon_exit_hook = NULL;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
