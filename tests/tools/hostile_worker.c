/*
 * A stand-in for prsyncd-worker that attacks the session monitor.  The
 * monitor starts it exactly like the real worker (client socket on fd 3,
 * channel on fd 4, empty environment).  It reads one line from the client
 * naming the misbehaviour, performs it, and waits for the monitor's
 * reaction.  "normal" execs the real worker next to this program's build
 * directory, so one daemon instance can show that it keeps serving.
 * The test client sends the mode line before anything else.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fds.h"
#include "ipc.h"
#include "msg.h"

static struct pr_ipc ipc;

static void read_line(char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		char c;
		if (read(PR_FD_CLIENT, &c, 1) != 1 || c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
}

static void ready(void)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_READY);
	m.u.ready.pid = (uint32_t)getpid();
	pr_ipc_send(&ipc, &m, -1);
}

/* Send raw bytes as one record, bypassing the sequence counter. */
static void send_raw(const void *p, size_t n)
{
	(void)send(ipc.fd, p, n, MSG_NOSIGNAL);
}

/* Wait until the monitor hangs up (it must), bounded to 20 s. */
static int wait_hangup(void)
{
	struct pollfd p = { .fd = ipc.fd, .events = POLLIN };
	char buf[PR_MSG_SIZE];

	for (int i = 0; i < 200; i++) {
		if (poll(&p, 1, 100) > 0) {
			ssize_t n = recv(ipc.fd, buf, sizeof(buf), 0);
			if (n == 0 || (n < 0 && errno != EINTR))
				return 0;
		}
	}
	return 1;
}

int main(void)
{
	struct pr_msg m, init;
	const char *why;
	char mode[128];
	int fd;

	/* The mode comes first, before INIT is taken off the channel, so that
	 * "normal" can hand the untouched channel to the real worker. */
	read_line(mode, sizeof(mode));
	if (strcmp(mode, "normal") == 0) {
		char self[4096], path[4200];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		char *const argv[] = { (char *)"prsyncd-worker", NULL };
		char *const envp[] = { NULL };

		if (n <= 0)
			return 2;
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(path, sizeof(path), "%s/../prsyncd-worker", self);
		execve(path, argv, envp);
		return 2;
	}
	pr_ipc_init(&ipc, PR_FD_IPC, PR_DIR_TO_WORKER);
	if (pr_ipc_recv(&ipc, &init, &fd, &why) != PR_IPC_OK)
		return 2;
	if (fd >= 0)
		close(fd);

	if (strcmp(mode, "unknown-type") == 0) {
		ready();
		pr_msg_init(&m, PR_W_LOG);
		m.h.type = 999;
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "wrong-length") == 0) {
		ready();
		pr_msg_init(&m, PR_W_SELECT);
		m.h.len += 1;
		pr_str_set_name(&m.u.wselect.module, "pub");
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "unterminated-string") == 0) {
		ready();
		pr_msg_init(&m, PR_W_SELECT);
		memset(m.u.wselect.module.s, 'A', sizeof(m.u.wselect.module.s));
		m.u.wselect.module.len = 10;
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "out-of-state") == 0) {
		/* SELECT before READY: the worker claims a module unconfined. */
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "second-select") == 0) {
		ready();
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		pr_ipc_send(&ipc, &m, -1);
		pr_ipc_recv(&ipc, &m, &fd, &why);
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "short-record") == 0) {
		ready();
		pr_msg_init(&m, PR_W_LOG);
		send_raw(&m, 100);
	} else if (strcmp(mode, "oversized-record") == 0) {
		static char big[PR_MSG_SIZE + 512];
		ready();
		pr_msg_init(&m, PR_W_LOG);
		memcpy(big, &m, sizeof(m));
		send_raw(big, sizeof(big));
	} else if (strcmp(mode, "bad-seq") == 0) {
		ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "hello");
		m.h.seq = 77;
		send_raw(&m, sizeof(m));
	} else if (strcmp(mode, "unexpected-fd") == 0) {
		ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "with fd");
		pr_ipc_send(&ipc, &m, 0);
	} else if (strcmp(mode, "bad-log-level") == 0) {
		ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = 9;
		pr_str_set_text(&m.u.log.text, "x");
		pr_ipc_send(&ipc, &m, -1);
	} else if (strcmp(mode, "log-injection") == 0) {
		/* A valid record whose text tries to forge a second log line. */
		ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "first\n2026/01/01 00:00:00 [1] forged line\033[2J");
		pr_ipc_send(&ipc, &m, -1);
		pr_msg_init(&m, PR_W_EXIT);
		pr_ipc_send(&ipc, &m, -1);
		return 0;
	} else if (strcmp(mode, "silent") == 0) {
		/* Never becomes ready: the handshake deadline must kill us. */
		for (int i = 0; i < 600; i++)
			sleep(1);
		return 0;
	} else {
		return 3;
	}
	return wait_hangup();
}
