/* SPDX-License-Identifier: ISC */
/*
 * Configuration generations: the file parsed once, checked, and sealed
 * into the snapshot that every session of this generation maps, with the
 * names its hosts lists ask about (names.h; resolved and published as a
 * table by refresh.c before sessions use it).  A reload builds a new
 * generation; the old one lives until its last session is reaped.
 */
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfgsnap.h"
#include "emptydir.h"
#include "listener.h"
#include "log.h"

#define DEFAULT_CHROOT "/run/prsyncd/empty"

static unsigned live;

unsigned gen_live(void)
{
	return live;
}

/* Can this kernel give an unprivileged process its own user namespace? */
static int userns_available(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 0;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) < 0)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int startup_checks(const struct cfg *cfg, const char **chroot_dir, char *err, size_t errlen)
{
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam(cfg->worker_user);

		if (pw == NULL) {
			snprintf(err, errlen, "worker user '%s' does not exist", cfg->worker_user);
			return -1;
		}
		if (pw->pw_uid == 0 || pw->pw_gid == 0) {
			snprintf(err, errlen, "worker user '%s' has uid or gid 0: refusing to run workers as root",
				 cfg->worker_user);
			return -1;
		}
		*chroot_dir = cfg->worker_chroot;
		return emptydir_check(cfg->worker_chroot, 0, 1, err, errlen);
	}
	if (!userns_available()) {
		snprintf(err, errlen,
			 "started as uid %u, and this kernel does not allow unprivileged user namespaces, "
			 "which prsyncd needs to confine its workers without root; run prsyncd as root "
			 "(it drops privileges per session) or allow user namespaces",
			 (unsigned)geteuid());
		return -1;
	}
	if (strcmp(cfg->worker_chroot, DEFAULT_CHROOT) == 0) {
		/* The system location needs root; use a per-user empty directory. */
		static char dir[128];

		snprintf(dir, sizeof(dir), "/tmp/prsyncd-empty-%u", (unsigned)geteuid());
		*chroot_dir = dir;
	} else {
		*chroot_dir = cfg->worker_chroot;
	}
	return emptydir_check(*chroot_dir, geteuid(), 1, err, errlen);
}

/* The daemon's --bwlimit: set once, before the first generation, and
 * given to every generation (a reload keeps the command line's cap). */
static int daemon_bwlimit;

void gen_set_bwlimit(int kib)
{
	daemon_bwlimit = kib > 0 ? kib : 0;
}

/* --log-debug, likewise kept across reloads. */
static int daemon_log_debug;

void gen_set_log_debug(int on)
{
	daemon_log_debug = on != 0;
	log_set_debug(daemon_log_debug);
}

struct gen *gen_load(const char *path, int to_stderr, char *err, size_t errlen)
{
	static unsigned next_id = 1;
	struct gen *g = calloc(1, sizeof(*g));
	const char *chroot_dir = NULL;
	char *dir, sum[CFG_SUMMARY_MAX];

	if (g == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g->snap_fd = -1;
	g->names_fd = -1;
	if (cfg_load(path, &g->cfg, err, errlen) < 0) {
		free(g);
		return NULL;
	}
	for (size_t i = 0; i < g->cfg.nwarnings; i++) {
		if (to_stderr)
			fprintf(stderr, "prsyncd: warning: %s\n", g->cfg.warnings[i]);
		else
			log_msg(PR_LOG_WARNING, "%s", g->cfg.warnings[i]);
	}
	if (cfg_unknown_summary(&g->cfg, sum, sizeof(sum)) > 0) {
		if (to_stderr)
			fprintf(stderr, "prsyncd: warning: %s: %s\n", path, sum);
		else
			log_msg(PR_LOG_WARNING, "configuration %s: %s", path, sum);
	}
	if (startup_checks(&g->cfg, &chroot_dir, err, errlen) < 0)
		goto fail;
	/* Sessions get the directory their workers really use. */
	if ((dir = strdup(chroot_dir)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	free(g->cfg.worker_chroot);
	g->cfg.worker_chroot = dir;
	g->cfg.bwlimit = daemon_bwlimit;
	g->cfg.log_debug = daemon_log_debug;
	if ((g->snap_fd = cfgsnap_create(&g->cfg, err, errlen)) < 0 ||
	    names_collect(&g->cfg, &g->names, err, errlen) < 0)
		goto fail;
	g->refs = 1;
	g->id = next_id++;
	live++;
	return g;
fail:
	if (g->snap_fd >= 0)
		close(g->snap_fd);
	names_free(&g->names); /* whatever names_collect() had made */
	cfg_free(&g->cfg);
	free(g);
	return NULL;
}

void gen_put(struct gen *g)
{
	if (g == NULL || --g->refs > 0)
		return;
	if (g->snap_fd >= 0)
		close(g->snap_fd);
	if (g->names_fd >= 0)
		close(g->names_fd);
	names_free(&g->names);
	cfg_free(&g->cfg);
	free(g);
	live--;
}
