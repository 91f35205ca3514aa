#ifndef PRSYNCD_SESSION_H
#define PRSYNCD_SESSION_H

struct session_opts {
	const char *config_path;
	const char *worker_path;            /* NULL: next to prsyncd, else libexec */
	const char *worker_chroot_override; /* NULL: from the config */
};

/* Run one session on the client socket PR_FD_CLIENT; returns the exit status. */
int session_main(const struct session_opts *o);

#endif
