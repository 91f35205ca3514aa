/* SPDX-License-Identifier: ISC */
/*
 * prsyncd-monitor: one session monitor per connection, executed by the
 * listener with the client socket on fd 3 (PR_FD_CLIENT), with --log-fd
 * the log file on fd 4, the sealed configuration snapshot on fd 5
 * (PR_FD_CFG), its end of the listener channel on fd 6
 * (PR_FD_LISTENER) and the sealed names table on fd 7 (PR_FD_NAMES).  It
 * never opens the configuration file and resolves no configured name.
 * Not meant to be run by hand: it refuses any argument the listener does
 * not pass.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cfgsnap.h"
#include "fds.h"
#include "log.h"
#include "nametab.h"
#include "prefault.h"
#include "session.h"

/* About what a session's deepest calls use (log_msg's and resolve()'s
 * frames are 20 KiB each, stack-probed page by page). */
#define PREFAULT_STACK (112 * 1024)

enum { OPT_LOG_FD = 1000, OPT_WORKER };

static const struct option longopts[] = {
	{ "log-fd", no_argument, NULL, OPT_LOG_FD },
	{ "worker", required_argument, NULL, OPT_WORKER },
	{ NULL, 0, NULL, 0 },
};

static int is_seqpacket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET;
}

int main(int argc, char **argv)
{
	static struct cfg cfg;
	static struct nametab names;
	struct session_opts so = { .cfg = &cfg, .names = &names, .listener_fd = PR_FD_LISTENER };
	char err[CFG_ERR_MAX];
	int c, log_fd = 0;

	prefault_stack(PREFAULT_STACK);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LOG_FD: log_fd = 1; break;
		case OPT_WORKER: so.worker_path = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc || !is_seqpacket(PR_FD_LISTENER)) {
		fprintf(stderr, "prsyncd-monitor: started by prsyncd for each connection, not by hand\n");
		return 2;
	}
	(void)fcntl(PR_FD_LISTENER, F_SETFD, FD_CLOEXEC);
	/* SIGHUP is the listener's (reload, reopen its log): one that reaches
	 * a session, from "pkill -HUP prsyncd" or a hang-up of the process
	 * group, must not cut its transfer.  The worker inherits it. */
	signal(SIGHUP, SIG_IGN);
	if (log_fd)
		log_use_fd(PR_FD_LOG);
	if (cfgsnap_open(PR_FD_CFG, &cfg, err, sizeof(err)) < 0 ||
	    nametab_open(PR_FD_NAMES, &names, err, sizeof(err)) < 0) {
		if (!log_fd)
			(void)log_use_syslog("daemon", NULL);
		log_msg(PR_LOG_ERR, "%s", err);
		session_refuse("@ERROR: daemon configuration error");
		return 1;
	}
	close(PR_FD_CFG); /* the mappings stay */
	close(PR_FD_NAMES);
	if (!log_fd)
		(void)log_use_syslog(cfg.syslog_facility, cfg.syslog_tag);
	return session_main(&so);
}
