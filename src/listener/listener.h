/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_LISTENER_H
#define PRSYNCD_LISTENER_H

#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "lchan.h"
#include "names.h"

#define MAX_LISTEN 16        /* listening sockets, bound or inherited */
#define MAX_SESSIONS 16384   /* concurrent sessions the listener tracks */

/*
 * One loaded configuration ("generation") and its sealed snapshot.  Each
 * session keeps the generation it was started with until it is reaped, so
 * a reload never changes what a running session sees.  gen.c.
 */
struct gen {
	struct cfg cfg;       /* worker_chroot is the effective directory */
	int snap_fd;          /* sealed memfd (cfgsnap.h), inherited by sessions */
	struct names names;   /* the names its lists ask about, and the answers */
	int names_fd;         /* sealed names table (nametab.h) of the answers; -1 until published */
	unsigned refs;        /* sessions using it, +1 while it is current */
	unsigned id;          /* 1, 2, ...: for log lines */
};

/* Parse path, run the start-up checks, build the snapshot.  NULL with the
 * reason in err.  Warnings go to stderr if to_stderr (start-up, before the
 * log is open), else to the log. */
struct gen *gen_load(const char *path, int to_stderr, char *err, size_t errlen);
void gen_put(struct gen *g);
/* Generations alive (each holds its snapshot's descriptor). */
unsigned gen_live(void);
/* The daemon's --bwlimit (KiB/s, 0 = none) for every generation to come. */
void gen_set_bwlimit(int kib);
/* --log-debug (0 or 1), likewise, and for the listener's own lines. */
void gen_set_log_debug(int on);

/* --- refresh.c: a generation's names table --------------------------------- */

/* Interfaces looked up again and a new sealed table of g's answers put in
 * place of the old one (sessions started from now on get it).  0, or -1
 * with err (the old table stays). */
int names_publish(struct gen *g, char *err, size_t errlen);
/* Start a run of the resolver for g's host names, as the worker user. */
int names_start(struct names_job *j, struct gen *g);
/* A run for g waited for here (start-up, inetd mode), then published. */
int names_resolve_now(struct gen *g, char *err, size_t errlen);
/* Between two runs for the configuration in force: NAMES_REFRESH_MS. */
int64_t names_refresh_ms(void);

/* The start-up checks of docs/architecture.md section 10; *chroot_dir is
 * the directory workers will use. */
int startup_checks(const struct cfg *cfg, const char **chroot_dir, char *err, size_t errlen);

/* --check-config (checkcfg.c): every problem of the file and of its
 * modules' uid, gid, path and charset, on stderr; 0, or 1 if any. */
int check_config(const char *file);

/* Kept for the listener's life: every string is main()'s (the command
 * line, or a copy), never a generation's, which a reload frees. */
struct listener_opts {
	const char *config_path;  /* absolute, parsed again on SIGHUP */
	const char *address;      /* command line override, else the config's */
	int port;                 /* command line override (0: the config's) */
	int no_detach;
	const char *pid_file;     /* absolute; NULL: none */
	const char *log_file;     /* absolute; NULL: syslog; reopened on SIGHUP */
	int log_fd;               /* -1: syslog */
	const char *worker_path;  /* NULL: default */
	int stop_timeout;         /* seconds sessions get after SIGTERM */
};


/* --- sockets.c ------------------------------------------------------------ */

enum sock_mode { SOCK_BIND, SOCK_ACTIVATED, SOCK_INETD };

struct socks {
	enum sock_mode mode;
	int n;                    /* listening sockets */
	int fd[MAX_LISTEN];
	int conn;                 /* SOCK_INETD: the connected socket */
};

/* Before anything is printed: sockets inherited from systemd (LISTEN_FDS,
 * LISTEN_PID, LISTEN_FDNAMES; listening ones, or one connection with
 * Accept=yes), a connection on standard input (inetd, as rsyncd detects
 * it), or neither (SOCK_BIND).  -1 with err on a broken inheritance. */
int socks_detect(struct socks *s, char *err, size_t errlen);
/* SOCK_BIND: bind address:port (NULL: every address). */
int socks_bind(struct socks *s, const char *address, int port, int backlog); /* "listen backlog" */
void socks_close_listeners(struct socks *s);

struct socks;
/* Listen (bound, socket-activated or inetd), accept, count, reload, stop.
 * Takes over g (the current generation).  Returns the exit status. */
int listener_run(const struct listener_opts *o, struct socks *sk, struct gen *g);
/* An error the listener logs; while it starts (not under inetd, where
 * stderr may be the client) also on stderr, "prsyncd: TEXT", so whoever
 * started it sees why it did not. */
void listener_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- sdnotify.c ----------------------------------------------------------- */

/* Send one NOTIFY_SOCKET datagram, if the variable was set at start-up.
 * notify_init() reads and clears it. */
void notify_init(void);
void notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int notify_enabled(void);

/* --- sessions.c ----------------------------------------------------------- */

struct sess {
	pid_t pid;
	struct lchan chan;        /* fd -1 once closed */
	struct gen *gen;
	unsigned state;           /* requests still permitted: SS_* bits */
	uint8_t peer_fam, peer[16];   /* the accepted socket's peer */
	uint8_t host_fam, host[16];   /* the address counted (after HOST) */
	int has_host;
	int slot;                 /* module index holding a slot, -1: none */
};

struct sessions {
	struct sess *s;
	size_t n, cap;
	size_t open;              /* channels still open: one descriptor each */
};

/* Room for one more session in the table: 0, or -1 (out of memory). */
int sessions_room(struct sessions *t);

struct sess *sessions_add(struct sessions *t, pid_t pid, int chan_fd, struct gen *g,
			  const struct sockaddr *peer, socklen_t peerlen);
/* Forget a reaped session: its slots are free from now on. */
void sessions_remove(struct sessions *t, pid_t pid);
/* Handle whatever arrived on a session's channel. */
void sessions_serve(struct sessions *t, struct sess *s);

#endif
