/*
 * prsyncd-worker: one per connection, re-executed by the session monitor
 * with an empty environment and exactly two descriptors of interest: the
 * client socket (PR_FD_CLIENT) and its end of the monitor channel
 * (PR_FD_IPC).  It confines itself before reading any client byte, then
 * speaks the rsync protocol; everything it learns about the filesystem
 * comes from the monitor.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "daemon.h"
#include "fds.h"
#include "mon.h"
#include "sandbox.h"

#ifdef PRSYNCD_TEST_HOOKS
/* LeakSanitizer needs ptrace and threads, which the sandbox forbids. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
#endif

static int is_seqpacket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET;
}

static struct conn client;

int main(int argc, char **argv)
{
	struct pr_msg init;
	struct pr_msg ready;
	struct handshake hs;
	char err[256];
	int motd_fd = -1;

	(void)argv;
	if (argc != 1 || !is_seqpacket(PR_FD_IPC)) {
		fprintf(stderr, "prsyncd-worker is started by prsyncd, not by hand\n");
		return 2;
	}
	mon_init(PR_FD_IPC);
	mon_expect(&init, PR_M_INIT, &motd_fd);

	if (sandbox_preload(err, sizeof(err)) < 0 ||
	    sandbox_enter(&init.u.init, err, sizeof(err)) < 0) {
		mon_log(PR_LOG_ERR, "worker sandbox setup failed: %s", err);
		mon_exit(3);
	}
	pr_msg_init(&ready, PR_W_READY);
	ready.u.ready.pid = (uint32_t)getpid();
	mon_send(&ready, -1);

	conn_init(&client, PR_FD_CLIENT);
	daemon_handshake(&client, &init.u.init, motd_fd, &hs);

	/* The transfer itself arrives with the sender issue; until then a
	 * selected module is refused explicitly, never half-served. */
	(void)conn_write_str(&client, "@ERROR: file transfer is not implemented yet in this prsyncd\n");
	mon_log(PR_LOG_WARNING, "module %s selected, but transfers are not implemented yet", hs.module);
	mon_exit(5);
}
