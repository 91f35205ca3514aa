#ifndef PRSYNCD_SESSION_H
#define PRSYNCD_SESSION_H

#include "config.h"

struct session_opts {
	const struct cfg *cfg;     /* from the snapshot (cfgsnap_open); the session takes it */
	const char *worker_path;   /* NULL: next to prsyncd-monitor, else libexec */
	int listener_fd;           /* the listener channel (lchan.h) */
};

/* Run one session on the client socket PR_FD_CLIENT; returns the exit status. */
int session_main(const struct session_opts *o);

#endif
