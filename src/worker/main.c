/* SPDX-License-Identifier: ISC */
/*
 * prsyncd-worker: one per connection, re-executed by the session monitor
 * with an empty environment and exactly two descriptors of interest: the
 * client socket (PR_FD_CLIENT) and its end of the monitor channel
 * (PR_FD_IPC).  It confines itself before reading any client byte, then
 * speaks the rsync protocol; everything it learns about the filesystem
 * comes from the monitor.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "charset.h"
#include "conn.h"
#include "daemon.h"
#include "filesfrom.h"
#include "filters.h"
#include "sess.h"
#include "xattr.h"
#include "fds.h"
#include "mon.h"
#include "prefault.h"
#include "sandbox.h"

#ifdef PRSYNCD_TEST_HOOKS
/* LeakSanitizer needs ptrace and threads, which the sandbox forbids. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0:symbolize=0"; }
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "symbolize=0:print_stacktrace=1"; }
#endif

static int is_seqpacket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET;
}

static struct conn client;
static struct sess sess;

int main(int argc, char **argv)
{
	struct pr_msg init;
	struct pr_msg ready;
	char err[256];
	int motd_fd = -1;

	(void)argv;
	/* Before the sandbox: the stack the session will use and its state
	 * (options and I/O, ~74 KiB, cleared at setup), each in one call
	 * instead of a trap per page (src/proto/prefault.h). */
	prefault_stack(96 * 1024);
	prefault_range(&sess, sizeof(sess));
	if (argc != 1 || !is_seqpacket(PR_FD_IPC)) {
		fprintf(stderr, "prsyncd-worker is started by prsyncd, not by hand\n");
		return 2;
	}
	mon_init(PR_FD_IPC);
	/* A closed client must surface as EPIPE, not kill us mid-message. */
	signal(SIGPIPE, SIG_IGN);
	mon_expect(&init, PR_M_INIT, &motd_fd);
	charset_preload(init.u.init.charsets.s); /* reads converter modules from disk */

	if (sandbox_preload(err, sizeof(err)) < 0 ||
	    sandbox_enter(&init.u.init, err, sizeof(err)) < 0) {
		mon_log(PR_LOG_ERR, "worker sandbox setup failed: %s", err);
		mon_exit(3);
	}
	pr_msg_init(&ready, PR_W_READY);
	ready.u.ready.pid = (uint32_t)getpid();
	mon_send(&ready, -1);

	conn_init(&client, PR_FD_CLIENT);
	daemon_handshake(&client, &init.u.init, motd_fd, &sess.hs);
	if (conn_write_str(&client, "@RSYNCD: OK\n") != CONN_OK)
		mon_exit(10);

	sess.c = &client;
	sess.protocol = sess.hs.protocol;
	setup_session(&sess);
	filters_recv(&sess);
	xa_init(&sess);
	files_from_recv(&sess);
	sender_run(&sess);
}
