/*
 * prsyncd-monitor: one session monitor per connection, executed by the
 * listener with the client socket on fd 3 (PR_FD_CLIENT) and, with
 * --log-fd, the log file on fd 4.  Not meant to be run by hand: it
 * refuses any argument the listener does not pass.
 */
#include <getopt.h>
#include <stdio.h>

#include "config.h"
#include "fds.h"
#include "log.h"
#include "session.h"

enum { OPT_CONFIG = 1000, OPT_LOG_FD, OPT_WORKER, OPT_WORKER_CHROOT };

static const struct option longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "log-fd", no_argument, NULL, OPT_LOG_FD },
	{ "worker", required_argument, NULL, OPT_WORKER },
	{ "worker-chroot", required_argument, NULL, OPT_WORKER_CHROOT },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct session_opts so = { 0 };
	char err[CFG_ERR_MAX];
	struct cfg cfg;
	int c, log_fd = 0;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG: so.config_path = optarg; break;
		case OPT_LOG_FD: log_fd = 1; break;
		case OPT_WORKER: so.worker_path = optarg; break;
		case OPT_WORKER_CHROOT: so.worker_chroot_override = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc || so.config_path == NULL) {
		fprintf(stderr, "prsyncd-monitor: started by prsyncd for each connection, not by hand\n");
		return 2;
	}
	if (log_fd)
		log_use_fd(PR_FD_LOG);
	else if (cfg_load(so.config_path, &cfg, err, sizeof(err)) == 0) {
		(void)log_use_syslog(cfg.syslog_facility);
		cfg_free(&cfg);
	}
	return session_main(&so);
}
