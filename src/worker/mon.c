/* SPDX-License-Identifier: ISC */
/*
 * The worker trusts the monitor's answers only after the shared validator
 * has accepted them; a malformed answer means a bug on the privileged side,
 * and the safe reaction is to stop.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mon.h"

struct pr_ipc mon_ipc;

#ifdef PRSYNCD_FUZZ
void (*mon_exit_hook)(int code);
#define EXIT(code) do { if (mon_exit_hook) mon_exit_hook(code); _exit(code); } while (0)
#else
#define EXIT(code) _exit(code)
#endif

void mon_init(int fd)
{
	pr_ipc_init(&mon_ipc, fd, pr_msg_validate_m2w);
}

static void log_text(enum pr_log_level level, const char *buf)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_LOG);
	m.u.log.level = level;
	pr_str_set_text_trunc(&m.u.log.text, buf);
	(void)pr_ipc_send(&mon_ipc, &m, -1);
}

void mon_log(enum pr_log_level level, const char *fmt, ...)
{
	char buf[PR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_text(level, buf);
}

static uint64_t client_records, client_bytes, dropped, dropped_bytes;

void mon_log_client(enum pr_log_level level, const char *fmt, ...)
{
	char buf[PR_TEXT_MAX];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	if (client_records >= MON_LOG_CLIENT_RECORDS || client_bytes + len > MON_LOG_CLIENT_BYTES) {
		dropped++;
		dropped_bytes += len;
		return;
	}
	client_records++;
	client_bytes += len;
	log_text(level, buf);
}

void mon_send(struct pr_msg *m, int fd)
{
	if (pr_ipc_send(&mon_ipc, m, fd) < 0)
		EXIT(12);
}

void mon_expect(struct pr_msg *m, enum pr_msg_type type, int *fd_out)
{
	mon_expect_either(m, type, type, fd_out);
}

void mon_expect_either(struct pr_msg *m, enum pr_msg_type type, enum pr_msg_type type2, int *fd_out)
{
	const char *why;
	int fd;
	enum pr_ipc_result r = pr_ipc_recv(&mon_ipc, m, &fd, &why);

	if (r != PR_IPC_OK || (m->h.type != type && m->h.type != type2)) {
		if (r == PR_IPC_OK && fd >= 0)
			close(fd);
		if (r == PR_IPC_INVALID)
			mon_log(PR_LOG_ERR, "invalid answer from the monitor: %s", why);
		else if (r == PR_IPC_OK)
			mon_log(PR_LOG_ERR, "unexpected answer %s from the monitor", pr_msg_type_name(m->h.type));
		EXIT(14);
	}
	if (fd_out)
		*fd_out = fd;
	else if (fd >= 0)
		close(fd);
}

void mon_expect_fds(struct pr_msg *m, enum pr_msg_type type, int *fds, size_t cap, size_t *nfds)
{
	const char *why;
	enum pr_ipc_result r = pr_ipc_recv_fds(&mon_ipc, m, fds, cap, nfds, &why);

	if (r != PR_IPC_OK || m->h.type != type) {
		if (r == PR_IPC_OK)
			for (size_t i = 0; i < *nfds; i++)
				close(fds[i]);
		if (r == PR_IPC_INVALID)
			mon_log(PR_LOG_ERR, "invalid answer from the monitor: %s", why);
		else if (r == PR_IPC_OK)
			mon_log(PR_LOG_ERR, "unexpected answer %s from the monitor", pr_msg_type_name(m->h.type));
		EXIT(14);
	}
}

void mon_exit(int code)
{
	struct pr_msg m;

	if (dropped > 0)
		mon_log(PR_LOG_WARNING, "%llu more client messages and errors (%llu bytes) not logged: "
			"the session's budget of %u records and %u bytes was spent",
			(unsigned long long)dropped, (unsigned long long)dropped_bytes,
			MON_LOG_CLIENT_RECORDS, MON_LOG_CLIENT_BYTES);

	pr_msg_init(&m, PR_W_EXIT);
	m.u.exit.code = (uint32_t)code & 0xff;
	(void)pr_ipc_send(&mon_ipc, &m, -1);
	EXIT(code);
}
