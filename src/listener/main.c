/*
 * prsyncd: the listener's command line and start-up checks.  Each connection
 * is served by a separate binary, prsyncd-monitor (src/monitor/), which the
 * listener executes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "emptydir.h"
#include "fds.h"
#include "listener.h"
#include "log.h"

#define DEFAULT_CONFIG "/etc/prsyncd.conf"
#define DEFAULT_CHROOT "/run/prsyncd/empty"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: prsyncd [options]\n"
		"  --config=FILE     configuration file (default " DEFAULT_CONFIG ")\n"
		"  --port=N          listen on port N (overrides the config)\n"
		"  --address=ADDR    listen on ADDR only (overrides the config)\n"
		"  --no-detach       stay in the foreground\n"
		"  --log-file=FILE   log to FILE instead of the config's log file or syslog\n"
		"  --pid-file=FILE   write the listener's pid to FILE\n"
		"  --check-config    check the configuration and exit\n"
		"  --version         print the version and exit\n"
		"  --help            this text\n");
}

enum {
	OPT_CONFIG = 1000, OPT_PORT, OPT_ADDRESS, OPT_NO_DETACH, OPT_LOG_FILE, OPT_PID_FILE,
	OPT_CHECK, OPT_VERSION, OPT_HELP, OPT_WORKER, OPT_DAEMON,
};

static const struct option longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "address", required_argument, NULL, OPT_ADDRESS },
	{ "no-detach", no_argument, NULL, OPT_NO_DETACH },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "pid-file", required_argument, NULL, OPT_PID_FILE },
	{ "check-config", no_argument, NULL, OPT_CHECK },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "daemon", no_argument, NULL, OPT_DAEMON }, /* accepted for rsync --daemon habits */
	/* Where prsyncd-worker lives when not next to prsyncd (tests, packaging). */
	{ "worker", required_argument, NULL, OPT_WORKER },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char *config;
	const char *address;
	const char *log_file;
	const char *pid_file;
	const char *worker;
	int port;
	int no_detach, check;
};

static int parse_port(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > 65535)
		return -1;
	return (int)v;
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

/* Everything that must hold before the daemon accepts a connection. */
static int startup_checks(struct cfg *cfg, const char **chroot_dir, char *err, size_t errlen)
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

static int open_log(const struct opts *o, const struct cfg *cfg)
{
	const char *file = o->log_file ? o->log_file : cfg->log_file;

	if (file == NULL) {
		if (log_use_syslog(cfg->syslog_facility) < 0) {
			fprintf(stderr, "prsyncd: unknown syslog facility '%s'\n", cfg->syslog_facility);
			return -2;
		}
		return -1;
	}
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0) {
		fprintf(stderr, "prsyncd: log file %s: %s\n", file, strerror(errno));
		return -2;
	}
	log_use_fd(fd);
	return fd;
}

int main(int argc, char **argv)
{
	struct opts o = { .config = DEFAULT_CONFIG, .port = 0 };
	char cfgpath[PATH_MAX], err[CFG_ERR_MAX] = "";
	struct cfg cfg;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG: o.config = optarg; break;
		case OPT_PORT:
			if ((o.port = parse_port(optarg)) < 0) {
				fprintf(stderr, "prsyncd: invalid port '%s'\n", optarg);
				return 1;
			}
			break;
		case OPT_ADDRESS: o.address = optarg; break;
		case OPT_NO_DETACH: o.no_detach = 1; break;
		case OPT_LOG_FILE: o.log_file = optarg; break;
		case OPT_PID_FILE: o.pid_file = optarg; break;
		case OPT_CHECK: o.check = 1; break;
		case OPT_VERSION: printf("prsyncd %s\n", PRSYNCD_VERSION); return 0;
		case OPT_HELP: case 'h': usage(stdout); return 0;
		case OPT_DAEMON: break;
		case OPT_WORKER: o.worker = optarg; break;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "prsyncd: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}

	if (realpath(o.config, cfgpath) == NULL) {
		fprintf(stderr, "prsyncd: config file %s: %s\n", o.config, strerror(errno));
		return 1;
	}
	if (cfg_load(cfgpath, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "prsyncd: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < cfg.nwarnings; i++)
		fprintf(stderr, "prsyncd: warning: %s\n", cfg.warnings[i]);

	const char *chroot_dir = NULL;
	if (startup_checks(&cfg, &chroot_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "prsyncd: %s\n", err);
		cfg_free(&cfg);
		return 1;
	}
	if (o.check) {
		printf("%s: configuration OK (%zu module%s)\n", cfgpath, cfg.nmodules,
		       cfg.nmodules == 1 ? "" : "s");
		cfg_free(&cfg);
		return 0;
	}

	int log_fd = open_log(&o, &cfg);
	if (log_fd == -2) {
		cfg_free(&cfg);
		return 1;
	}
	for (size_t i = 0; i < cfg.nwarnings; i++)
		log_msg(PR_LOG_WARNING, "%s", cfg.warnings[i]);

	struct listener_opts lo = {
		.config_path = cfgpath,
		.address = o.address ? o.address : cfg.address,
		.port = o.port ? o.port : cfg.port,
		.no_detach = o.no_detach,
		.pid_file = o.pid_file ? o.pid_file : cfg.pid_file,
		.log_fd = log_fd,
		.syslog_facility = cfg.syslog_facility,
		.worker_path = o.worker,
		.worker_chroot = chroot_dir,
	};
	int rc = listener_run(&lo);
	cfg_free(&cfg);
	return rc;
}
