/* SPDX-License-Identifier: ISC */
/*
 * A hostile stand-in for prsyncd-worker aimed at the batched opens
 * (PR_W_OPENV, PR_W_CLOSEV).  Started by the monitor like the real worker
 * (client socket on fd 3, channel on fd 4), it reads one line "MODE MODULE"
 * from the test client, selects MODULE, and then:
 *
 *   same PATH...       each path alone (an OPENV of one), then all of them
 *                      by one OPENV: prints "SAME i err_alone err_batch"
 *                      per path and "SAME-ALL yes|no" (judged alike)
 *   quota N            OPENVs of 16 paths without reporting a close, N
 *                      paths in all: "QUOTA ok=.. emfile=.."; then one
 *                      OPENV reporting every handle closed: "AFTER ok=.."
 *   churn N            N files opened 16 per OPENV, each batch's handles
 *                      reported closed by the next: "CHURN ok=.."
 *   closev             two opened, both closed by CLOSEV, then 16 more
 *   close-unknown      OPENV reporting a handle never handed out
 *   close-twice        OPENV reporting the same handle twice
 *   closev-unknown     CLOSEV of a handle never handed out
 *   closev-stale       CLOSEV of a handle already reported closed
 *   before-select      OPENV before any module is selected
 *
 * "HOLD NAME" waits (bounded) for the client's "go", so the test can count
 * the monitor's descriptors; results go to the client as text lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fds.h"
#include "hostile_common.h"
#include "ipc.h"
#include "msg.h"

/* One OPENV of paths[0..n) reporting closed[0..nc); errs/handles filled,
 * descriptors closed at once.  Returns how many succeeded, -1 on no answer. */
static int openv(const char *const *paths, size_t n, const uint32_t *closed, size_t nc,
		 int *errs, uint32_t *handles)
{
	struct pr_msg m;
	int fds[PR_OPENV_MAX], ok = 0;
	size_t nfds;

	pr_msg_init(&m, PR_W_OPENV);
	for (size_t i = 0; i < n; i++)
		if (pr_openv_add(&m.u.openv, paths[i]) < 0)
			return -1;
	m.u.openv.nclosed = (uint32_t)nc;
	if (nc > 0)
		memcpy(m.u.openv.closed, closed, nc * sizeof(*closed));
	if (pr_ipc_send(&hw_ipc, &m, -1) < 0 || hw_answer_fds(&m, fds, PR_OPENV_MAX, &nfds) < 0 || m.h.type != PR_M_OPENV ||
	    m.u.mopenv.count != n)
		return -1;
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	for (size_t i = 0; i < n; i++) {
		errs[i] = m.u.mopenv.e[i].err;
		handles[i] = m.u.mopenv.e[i].handle;
		ok += errs[i] == 0;
	}
	return ok;
}

static void closev(const uint32_t *h, size_t n)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_CLOSEV);
	m.u.closev.nclosed = (uint32_t)n;
	memcpy(m.u.closev.closed, h, n * sizeof(*h));
	hw_send(&m);
}

/* One path alone, its handle given back at once: the error it gets. */
static int open_single(const char *path)
{
	int err;
	uint32_t h;

	if (openv(&path, 1, NULL, 0, &err, &h) < 0)
		return -1;
	if (err == 0)
		closev(&h, 1);
	return err;
}

static int mode_same(char **paths, size_t n)
{
	int single[PR_OPENV_MAX], errs[PR_OPENV_MAX], all = 1;
	uint32_t h[PR_OPENV_MAX];

	if (n == 0 || n > PR_OPENV_MAX)
		return 3;
	for (size_t i = 0; i < n; i++)
		single[i] = open_single(paths[i]);
	if (openv((const char *const *)paths, n, NULL, 0, errs, h) < 0) {
		hw_report("OPENV no answer");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		hw_report("SAME %zu %d %d", i, single[i], errs[i]);
		all &= single[i] == errs[i];
	}
	hw_report("SAME-ALL %s", all ? "yes" : "no");
	hw_send_exit();
	return 0;
}

static const char *const sixteen[PR_OPENV_MAX] = {
	"file", "file", "file", "file", "file", "file", "file", "file",
	"file", "file", "file", "file", "file", "file", "file", "file",
};

static int mode_quota(int total)
{
	uint32_t held[64], h[PR_OPENV_MAX];
	int errs[PR_OPENV_MAX], ok = 0, emfile = 0, other = 0, after;
	size_t nheld = 0;

	for (int done = 0; done < total; done += PR_OPENV_MAX) {
		int r = openv(sixteen, PR_OPENV_MAX, NULL, 0, errs, h);

		if (r < 0) {
			hw_report("OPENV no answer at %d", done);
			return 1;
		}
		for (size_t i = 0; i < PR_OPENV_MAX; i++) {
			if (errs[i] == 0 && nheld < 64)
				held[nheld++] = h[i];
			ok += errs[i] == 0;
			emfile += errs[i] == EMFILE;
			other += errs[i] != 0 && errs[i] != EMFILE;
		}
	}
	hw_report("QUOTA n=%d ok=%d emfile=%d other=%d", total, ok, emfile, other);
	hw_await("HOLD quota");
	after = nheld <= PR_CLOSEV_MAX ? openv(sixteen, PR_OPENV_MAX, held, nheld, errs, h) : -1;
	hw_report("AFTER ok=%d", after);
	hw_send_exit();
	return 0;
}

static int mode_churn(int total)
{
	uint32_t prev[PR_OPENV_MAX], h[PR_OPENV_MAX];
	int errs[PR_OPENV_MAX], ok = 0;
	size_t nprev = 0;

	for (int done = 0; done < total; done += PR_OPENV_MAX) {
		int r = openv(sixteen, PR_OPENV_MAX, prev, nprev, errs, h);

		if (r < 0) {
			hw_report("OPENV no answer at %d", done);
			return 1;
		}
		ok += r;
		nprev = 0;
		for (size_t i = 0; i < PR_OPENV_MAX; i++)
			if (errs[i] == 0)
				prev[nprev++] = h[i];
	}
	closev(prev, nprev);
	/* CLOSEV has no answer: without this the test could count the
	 * monitor's descriptors before it handled it */
	if (hw_sync() < 0)
		hw_report("STAT no answer");
	hw_report("CHURN n=%d ok=%d", total, ok);
	hw_await("HOLD churn");
	hw_send_exit();
	return 0;
}

static int mode_closev(void)
{
	uint32_t h[PR_OPENV_MAX], h2[PR_OPENV_MAX];
	int errs[PR_OPENV_MAX], r;

	/* 16 + 16 fill the quota; CLOSEV gives two back */
	if (openv(sixteen, PR_OPENV_MAX, NULL, 0, errs, h) != PR_OPENV_MAX ||
	    openv(sixteen, PR_OPENV_MAX, NULL, 0, errs, h2) != PR_OPENV_MAX) {
		hw_report("CLOSEV setup failed");
		return 1;
	}
	closev(h, 2);
	r = openv(sixteen, 3, NULL, 0, errs, h);
	hw_report("CLOSEV ok=%d third=%d", r, errs[2]);
	hw_send_exit();
	return 0;
}

static int mode_bad_close(const char *c)
{
	uint32_t h[PR_OPENV_MAX], bad[2];
	int errs[PR_OPENV_MAX];

	if (openv(sixteen, 1, NULL, 0, errs, h) != 1) {
		hw_report("setup failed");
		return 1;
	}
	if (strcmp(c, "close-unknown") == 0) {
		bad[0] = h[0] + 1000;
		openv(sixteen, 1, bad, 1, errs, h);
	} else if (strcmp(c, "close-twice") == 0) {
		bad[0] = bad[1] = h[0];
		openv(sixteen, 1, bad, 2, errs, h);
	} else if (strcmp(c, "closev-unknown") == 0) {
		bad[0] = h[0] + 1000;
		closev(bad, 1);
	} else if (strcmp(c, "closev-stale") == 0) {
		closev(h, 1);
		closev(h, 1);
	} else {
		return 3;
	}
	hw_report("SENT %s", c);
	return hw_wait_hangup();
}

int main(void)
{
	char line[4096], *argv[PR_OPENV_MAX + 2], *save = NULL;
	size_t argc = 0;
	int n;

	hw_init();
	{
		struct pr_msg init;
		int fds[PR_OPENV_MAX];
		size_t nfds;

		if (hw_answer_fds(&init, fds, PR_OPENV_MAX, &nfds) < 0 || init.h.type != PR_M_INIT)
			return 1;
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
	}
	hw_read_line(line, sizeof(line));
	for (char *t = strtok_r(line, " ", &save); t != NULL && argc < PR_OPENV_MAX + 2; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	if (argc < 2)
		return 3;
	if (strcmp(argv[0], "before-select") == 0) {
		struct pr_msg m;

		pr_msg_init(&m, PR_W_READY);
		m.u.ready.pid = (uint32_t)getpid();
		hw_send(&m);
		pr_msg_init(&m, PR_W_OPENV);
		pr_openv_add(&m.u.openv, "file");
		hw_send(&m);
		hw_report("SENT before-select");
		return hw_wait_hangup();
	}
	if (hw_start(argv[1]) < 0)
		return 1;
	if (strcmp(argv[0], "same") == 0)
		return mode_same(argv + 2, argc - 2);
	if (strcmp(argv[0], "quota") == 0 && argc == 3 && (n = atoi(argv[2])) > 0)
		return mode_quota(n);
	if (strcmp(argv[0], "churn") == 0 && argc == 3 && (n = atoi(argv[2])) > 0)
		return mode_churn(n);
	if (strcmp(argv[0], "closev") == 0)
		return mode_closev();
	return mode_bad_close(argv[0]);
}
