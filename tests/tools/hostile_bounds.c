/* SPDX-License-Identifier: ISC */
/*
 * A hostile stand-in for prsyncd-worker that tries to make its session
 * monitor work, log or live without bound (t_hostile_bounds.sh).  Started
 * by the monitor as the real worker is, it reads one mode line from the
 * test client and then:
 *
 *   select-flood N   N selections of modules that do not exist, each
 *                    answer awaited ("ANSWERED K" for the first three and
 *                    the last): only the first may be answered
 *   select-twice M   a selection of M, then another of M: what the two
 *                    answers say (a missing module and an unlisted one
 *                    the client may not use must look alike)
 *   eloop-flood N    after selecting "pub", N STATs of the link loop
 *                    "loop" (each one a refusal the monitor logs)
 *   xfer-flood N     after selecting "pub" and START, N transfer lines
 *   exit-silent [M]  READY (and a selection of M), EXIT, then silence for
 *                    up to 40 s with the client socket held: the monitor
 *                    must end the session (and so this process) first
 *   silent M         a selection of M, then silence for up to 60 s, the
 *                    client socket held and never used: the monitor's
 *                    backstop (clientidle.h) must end the session when
 *                    M has a timeout, or once the client has gone
 *
 * Results go to the client as text lines.  Every wait is bounded.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fds.h"
#include "hostile_common.h"
#include "ipc.h"
#include "msg.h"

/* SELECT name; 1 and the answer in *m if one came, else 0. */
static int select_once(const char *name, struct pr_msg *m)
{
	int fd;

	pr_msg_init(m, PR_W_SELECT);
	pr_str_set_name(&m->u.wselect.module, name);
	hw_send(m);
	if (hw_answer(m, &fd) < 0)
		return 0;
	if (fd >= 0)
		close(fd);
	return 1;
}

static int mode_select_flood(int n)
{
	struct pr_msg m;
	char name[32];
	int answered = 0;

	hw_ready();
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "nosuch%d", i);
		if (!select_once(name, &m) || m.h.type != PR_M_SELECT)
			break;
		/* said as it happens: a monitor that ends the session kills
		 * this process before a summary could be sent */
		if (++answered <= 3 || answered == n)
			hw_report("ANSWERED %d", answered);
	}
	hw_report("SELECT-FLOOD n=%d answered=%d", n, answered);
	return 0;
}

static int mode_select_twice(const char *name)
{
	struct pr_msg m;

	hw_ready();
	if (!select_once(name, &m)) {
		hw_report("FIRST no answer");
		return 1;
	}
	hw_report("FIRST type=%s status=%u error=%s", pr_msg_type_name(m.h.type), m.u.select.status,
		  m.u.select.error.s);
	hw_report("SECOND sent");
	hw_report("SECOND answered=%s", select_once(name, &m) ? "yes" : "no");
	return 0;
}

static int mode_eloop_flood(int n)
{
	struct pr_msg m;
	int answered = 0, eloop = 0, fd;

	if (hw_start("pub") < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		hw_send_path(PR_W_STAT, "loop", PR_STAT_FOLLOW);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_STAT)
			break;
		if (fd >= 0)
			close(fd);
		answered++;
		eloop += m.u.mstat.err == 40; /* ELOOP */
	}
	hw_report("ELOOP-FLOOD n=%d answered=%d eloop=%d", n, answered, eloop);
	hw_send_exit();
	return hw_wait_hangup();
}

static int mode_xfer_flood(int n)
{
	struct pr_msg m;
	int fd;

	if (hw_start("pub") < 0)
		return 1;
	pr_msg_init(&m, PR_W_START);
	m.u.start.sender = 1;
	pr_str_set_relpath(&m.u.start.request, "pub/");
	hw_send(&m);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_XFERLOG || m.u.xferlog.files != 1) {
		hw_report("XFERLOG missing");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		pr_msg_init(&m, PR_W_XFER);
		snprintf(m.u.xfer.line.s, sizeof(m.u.xfer.line.s), "send xflood %d", i);
		m.u.xfer.line.len = (uint16_t)strlen(m.u.xfer.line.s);
		if (pr_ipc_send(&hw_ipc, &m, -1) < 0)
			break;
	}
	hw_report("XFER-FLOOD n=%d", n);
	hw_send_exit();
	return hw_wait_hangup();
}

static int mode_exit_silent(const char *module)
{
	if (module[0] != '\0') {
		if (hw_start(module) < 0)
			return 1;
	} else {
		hw_ready();
	}
	hw_send_exit();
	hw_report("ENDING ppid=%d pid=%d", (int)getppid(), (int)getpid());
	(void)poll(NULL, 0, 40000);
	hw_report("SILENCE over: still alive after 40 s");
	return 0;
}

static int mode_silent(const char *module)
{
	if (hw_start(module) < 0)
		return 1;
	hw_report("SILENT ppid=%d pid=%d", (int)getppid(), (int)getpid());
	(void)poll(NULL, 0, 60000);
	return 0;
}

int main(void)
{
	struct pr_msg init;
	const char *why;
	char mode[128], a[64] = "";
	int fd, n;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	hw_read_line(mode, sizeof(mode));
	hw_init();
	if (pr_ipc_recv(&hw_ipc, &init, &fd, &why) != PR_IPC_OK)
		return 2;
	if (fd >= 0)
		close(fd);
	if (sscanf(mode, "select-flood %d", &n) == 1)
		return mode_select_flood(n);
	if (sscanf(mode, "select-twice %63s", a) == 1)
		return mode_select_twice(a);
	if (sscanf(mode, "eloop-flood %d", &n) == 1)
		return mode_eloop_flood(n);
	if (sscanf(mode, "xfer-flood %d", &n) == 1)
		return mode_xfer_flood(n);
	if (sscanf(mode, "silent %63s", a) == 1)
		return mode_silent(a);
	if (strncmp(mode, "exit-silent", 11) == 0) {
		(void)sscanf(mode, "exit-silent %63s", a);
		return mode_exit_silent(a);
	}
	return 3;
}
