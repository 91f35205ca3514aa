/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fds.h"
#include "hostile_common.h"

struct pr_ipc hw_ipc;

void hw_init(void)
{
	pr_ipc_init(&hw_ipc, PR_FD_IPC, pr_msg_validate_m2w);
}

void hw_read_line(char *buf, size_t cap)
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

void hw_report(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(PR_FD_CLIENT, line, (size_t)n);
}

void hw_await(const char *line)
{
	struct pollfd p = { .fd = PR_FD_CLIENT, .events = POLLIN };
	char go[64];

	hw_report("%s", line);
	if (poll(&p, 1, 20000) == 1)
		hw_read_line(go, sizeof(go));
}

int hw_wait_hangup(void)
{
	struct pollfd p = { .fd = hw_ipc.fd, .events = POLLIN };
	char buf[PR_MSG_SIZE];

	for (int i = 0; i < 200; i++) {
		if (poll(&p, 1, 100) > 0) {
			ssize_t n = recv(hw_ipc.fd, buf, sizeof(buf), 0);
			if (n == 0 || (n < 0 && errno != EINTR))
				return 0;
		}
	}
	return 1;
}

int hw_answer_fds(struct pr_msg *m, int *fds, size_t cap, size_t *nfds)
{
	struct pollfd p = { .fd = hw_ipc.fd, .events = POLLIN };
	const char *why;

	*nfds = 0;
	if (poll(&p, 1, 10000) != 1)
		return -1;
	return pr_ipc_recv_fds(&hw_ipc, m, fds, cap, nfds, &why) == PR_IPC_OK ? 0 : -1;
}

int hw_answer(struct pr_msg *m, int *fd)
{
	size_t n;
	int r = hw_answer_fds(m, fd, 1, &n);

	if (r < 0 || n == 0)
		*fd = -1;
	return r;
}

void hw_send(struct pr_msg *m)
{
	pr_ipc_send(&hw_ipc, m, -1);
}

void hw_ready(void)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_READY);
	m.u.ready.pid = (uint32_t)getpid();
	hw_send(&m);
}

void hw_send_exit(void)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_EXIT);
	hw_send(&m);
}

int hw_select(const char *name)
{
	struct pr_msg m;
	int fd;

	pr_msg_init(&m, PR_W_SELECT);
	pr_str_set_name(&m.u.wselect.module, name);
	hw_send(&m);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_SELECT || m.u.select.status != PR_SELECT_OK) {
		hw_report("SELECT failed %s", name);
		return -1;
	}
	hw_report("SELECTED ppid=%d pid=%d", (int)getppid(), (int)getpid());
	return 0;
}

int hw_start(const char *name)
{
	hw_ready();
	return hw_select(name);
}

void hw_send_path(enum pr_msg_type type, const char *path, uint32_t flags)
{
	struct pr_msg m;

	pr_msg_init(&m, type);
	if (type == PR_W_STAT || type == PR_W_XATTR) {
		m.u.stat.flags = flags;
		pr_str_set_relpath(&m.u.stat.path, path);
	} else if (type == PR_W_OPENV) {
		(void)pr_openv_add(&m.u.openv, path); /* the bytes as given: the monitor judges them */
	} else {
		pr_str_set_relpath(&m.u.path.path, path);
	}
	hw_send(&m);
}

int hw_open_answer(int *err, int *fd, uint32_t *handle)
{
	struct pr_msg m;
	int fds[PR_OPENV_MAX];
	size_t n = 0;

	*fd = -1;
	if (hw_answer_fds(&m, fds, PR_OPENV_MAX, &n) < 0 || m.h.type != PR_M_OPENV || m.u.mopenv.count != 1) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		close(fds[i]);
	*err = m.u.mopenv.e[0].err;
	*handle = m.u.mopenv.e[0].handle;
	if (n > 0)
		*fd = fds[0];
	return 0;
}

void hw_send_close(uint32_t handle)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_CLOSEV);
	m.u.closev.nclosed = 1;
	m.u.closev.closed[0] = handle;
	hw_send(&m);
}

int hw_sync(void)
{
	struct pr_msg m;
	int fd;

	hw_send_path(PR_W_STAT, "", 0);
	if (hw_answer(&m, &fd) < 0)
		return -1;
	if (fd >= 0)
		close(fd);
	return m.h.type == PR_M_STAT ? 0 : -1;
}
