#ifndef PRSYNCD_LISTENER_H
#define PRSYNCD_LISTENER_H

#include "config.h"

struct listener_opts {
	const char *config_path;  /* absolute, passed to every session */
	const char *address;      /* NULL: all addresses */
	int port;
	int no_detach;
	const char *pid_file;     /* NULL: none */
	int log_fd;               /* -1: syslog */
	const char *syslog_facility;
	const char *worker_path;  /* NULL: default */
	const char *worker_chroot;/* the chroot every worker uses */
};

/* Bind, detach, accept forever. Returns only on error or SIGTERM/SIGINT. */
int listener_run(const struct listener_opts *o);

#endif
