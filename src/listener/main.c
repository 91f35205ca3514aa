/* SPDX-License-Identifier: ISC */
/*
 * prsyncd: the listener's command line.  Each connection is served by a
 * separate binary, prsyncd-monitor (src/monitor/), which the listener
 * executes (listener.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "listener.h"
#include "log.h"
#include "safeopen.h"

#define DEFAULT_CONFIG "/etc/prsyncd.conf"
#define DEFAULT_STOP_TIMEOUT 60

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
		"  --stop-timeout=N  after SIGTERM, let sessions run up to N seconds (default %d)\n"
		"  --bwlimit=RATE    cap what every session sends at RATE KiB per second\n"
		"  --log-debug       also log prsyncd's own diagnostic lines (protocol, work counters)\n"
		"  --check-config    check the configuration and exit\n"
		"  --version         print the version and exit\n"
		"  --help            this text\n"
		"Started by systemd with sockets (LISTEN_FDS), or by inetd with a connection\n"
		"on standard input, it serves those instead of binding a port.\n",
		DEFAULT_STOP_TIMEOUT);
}

enum {
	OPT_CONFIG = 1000, OPT_PORT, OPT_ADDRESS, OPT_NO_DETACH, OPT_LOG_FILE, OPT_PID_FILE,
	OPT_CHECK, OPT_VERSION, OPT_HELP, OPT_WORKER, OPT_DAEMON, OPT_STOP_TIMEOUT,
	OPT_BWLIMIT, OPT_LOG_DEBUG,
};

static const struct option longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "address", required_argument, NULL, OPT_ADDRESS },
	{ "no-detach", no_argument, NULL, OPT_NO_DETACH },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ "pid-file", required_argument, NULL, OPT_PID_FILE },
	{ "stop-timeout", required_argument, NULL, OPT_STOP_TIMEOUT },
	{ "bwlimit", required_argument, NULL, OPT_BWLIMIT },
	{ "log-debug", no_argument, NULL, OPT_LOG_DEBUG },
	{ "check-config", no_argument, NULL, OPT_CHECK },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "daemon", no_argument, NULL, OPT_DAEMON }, /* accepted for rsync --daemon habits */
	/* Where prsyncd-worker lives when not next to prsyncd (tests, packaging). */
	{ "worker", required_argument, NULL, OPT_WORKER },
	{ NULL, 0, NULL, 0 },
};

static int parse_num(const char *s, int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		return -1;
	return (int)v;
}

/* PATH made absolute against the current directory, links left for
 * safe_open() to judge.  0, or -1 with errno set. */
static int absolute(const char *path, char *out, size_t outlen)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(out, outlen, "%s", path);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		n = snprintf(out, outlen, "%s/%s", cwd, path);
	else
		return -1;
	if (n < 0 || (size_t)n >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int open_log(const char *file, const struct cfg *cfg)
{
	if (file == NULL) {
		if (log_use_syslog(cfg->syslog_facility, cfg->syslog_tag) < 0) {
			fprintf(stderr, "prsyncd: unknown syslog facility '%s'\n", cfg->syslog_facility);
			return -2;
		}
		return -1;
	}
	char why[512];
	int fd = safe_open(file, O_WRONLY | O_APPEND | O_CREAT, 0640, why, sizeof(why));

	if (fd < 0) {
		fprintf(stderr, "prsyncd: log file %s: %s\n", file, why);
		return -2;
	}
	log_use_fd(fd);
	return fd;
}

int main(int argc, char **argv)
{
	struct listener_opts o = { .config_path = DEFAULT_CONFIG, .stop_timeout = DEFAULT_STOP_TIMEOUT };
	char cfgpath[PATH_MAX], abslog[PATH_MAX], abspid[PATH_MAX], err[CFG_ERR_MAX] = "";
	const char *log_file = NULL;
	struct socks sk;
	struct gen *g;
	int c, check = 0, bw;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG: o.config_path = optarg; break;
		case OPT_PORT:
			if ((o.port = parse_num(optarg, 1, 65535)) < 0) {
				fprintf(stderr, "prsyncd: invalid port '%s'\n", optarg);
				return 1;
			}
			break;
		case OPT_STOP_TIMEOUT:
			if ((o.stop_timeout = parse_num(optarg, 0, 86400)) < 0) {
				fprintf(stderr, "prsyncd: invalid stop timeout '%s'\n", optarg);
				return 1;
			}
			break;
		case OPT_BWLIMIT: /* KiB/s, a whole number, as rsyncd's daemon option */
			if ((bw = parse_num(optarg, 0, INT_MAX)) < 0) {
				fprintf(stderr, "prsyncd: invalid bwlimit '%s' (KiB per second, 0 for none)\n",
					optarg);
				return 1;
			}
			gen_set_bwlimit(bw);
			break;
		case OPT_LOG_DEBUG: gen_set_log_debug(1); break;
		case OPT_ADDRESS: o.address = optarg; break;
		case OPT_NO_DETACH: o.no_detach = 1; break;
		case OPT_LOG_FILE: log_file = optarg; break;
		case OPT_PID_FILE: o.pid_file = optarg; break;
		case OPT_CHECK: check = 1; break;
		case OPT_VERSION: printf("prsyncd %s\n", PRSYNCD_VERSION); return 0;
		case OPT_HELP: case 'h': usage(stdout); return 0;
		case OPT_DAEMON: break;
		case OPT_WORKER: o.worker_path = optarg; break;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "prsyncd: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	/* First, before anything is printed: under inetd stdout is the client. */
	if (!check && socks_detect(&sk, err, sizeof(err)) < 0) {
		fprintf(stderr, "prsyncd: %s\n", err);
		return 1;
	}
	notify_init();

	if (absolute(o.config_path, cfgpath, sizeof(cfgpath)) < 0) {
		fprintf(stderr, "prsyncd: config file %s: %s\n", o.config_path, strerror(errno));
		return 1;
	}
	o.config_path = cfgpath;
	if (check)
		return check_config(cfgpath);
	if ((g = gen_load(cfgpath, 1, err, sizeof(err))) == NULL) {
		fprintf(stderr, "prsyncd: %s\n", err);
		return 1;
	}
	/* Both kept for the listener's life, so copied here: g is freed by
	 * the first reload.  Absolute: reopened on SIGHUP and removed at exit
	 * after a detach has moved us to "/".  Not realpath(): that would
	 * follow the links safe_open() judges. */
	o.pid_file = o.pid_file ? o.pid_file : g->cfg.pid_file;
	log_file = log_file ? log_file : g->cfg.log_file;
	if (log_file && absolute(log_file, abslog, sizeof(abslog)) < 0) {
		fprintf(stderr, "prsyncd: log file %s: %s\n", log_file, strerror(errno));
		gen_put(g);
		return 1;
	}
	if (o.pid_file && absolute(o.pid_file, abspid, sizeof(abspid)) < 0) {
		fprintf(stderr, "prsyncd: pid file %s: %s\n", o.pid_file, strerror(errno));
		gen_put(g);
		return 1;
	}
	if (o.pid_file)
		o.pid_file = abspid;
	if (log_file)
		log_file = abslog;
	o.log_file = log_file;
	o.log_fd = open_log(log_file, &g->cfg);
	if (o.log_fd == -2) {
		gen_put(g);
		return 1;
	}
	for (size_t i = 0; i < g->cfg.nwarnings; i++)
		log_msg(PR_LOG_WARNING, "%s", g->cfg.warnings[i]);
	{
		char sum[CFG_SUMMARY_MAX];

		if (cfg_unknown_summary(&g->cfg, sum, sizeof(sum)) > 0)
			log_msg(PR_LOG_WARNING, "configuration %s: %s", cfgpath, sum);
	}
	return listener_run(&o, &sk, g);
}
