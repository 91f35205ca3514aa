/* SPDX-License-Identifier: ISC */
/*
 * A generation's names table (listener.h, names.h): published as a new
 * sealed memfd each time its answers change, so a session gets the
 * answers of the moment it starts and never a table being written.
 */
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "listener.h"
#include "log.h"
#include "monotime.h"

#ifdef PRSYNCD_TEST_HOOKS
#include <stdlib.h>

/* Test builds only: PRSYNCD_TEST_NAMES_REFRESH_MS shortens the interval
 * (t_names.sh watches a refresh without waiting a minute). */
int64_t names_refresh_ms(void)
{
	const char *v = getenv("PRSYNCD_TEST_NAMES_REFRESH_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;

	return ms >= 100 && ms <= NAMES_REFRESH_MS ? ms : NAMES_REFRESH_MS;
}
#else
int64_t names_refresh_ms(void)
{
	return NAMES_REFRESH_MS;
}
#endif

int names_publish(struct gen *g, char *err, size_t errlen)
{
	int64_t now = now_ms();
	int fd;

	names_ifaces(&g->names, now);
	if ((fd = names_table(&g->names, now, err, errlen)) < 0)
		return -1;
	if (g->names_fd >= 0)
		close(g->names_fd);
	g->names_fd = fd;
	return 0;
}

int names_start(struct names_job *j, struct gen *g)
{
	struct passwd *pw = NULL;
	int root = geteuid() == 0;

	/* the worker user: an id with nothing of its own (start-up checks) */
	if (root && ((pw = getpwnam(g->cfg.worker_user)) == NULL || pw->pw_uid == 0 || pw->pw_gid == 0)) {
		log_msg(PR_LOG_ERR, "resolver: worker user %s: unknown, or has uid/gid 0", g->cfg.worker_user);
		return -1;
	}
	return names_job_start(j, &g->names, root, root ? pw->pw_uid : 0, root ? pw->pw_gid : 0, now_ms());
}

int names_resolve_now(struct gen *g, char *err, size_t errlen)
{
	struct names_job j = { .pidfd = -1, .fd = -1, .done = 1 };

	if (g->names.nhosts > 0 && names_start(&j, g) == 0) {
		while (!j.done) {
			struct pollfd p = { .fd = j.fd, .events = POLLIN };
			int64_t left = j.deadline - now_ms();

			if (left > 0)
				(void)poll(&p, 1, (int)left);
			names_job_step(&j, now_ms());
		}
	}
	return names_publish(g, err, errlen);
}
