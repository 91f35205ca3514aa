/* SPDX-License-Identifier: ISC */
/*
 * The listener: gets connections (bound, socket-activated or inetd), and
 * for each one forks and executes the session monitor (prsyncd-monitor),
 * so every connection starts from a fresh address-space layout.  It never
 * reads from a client.  It keeps the table of running sessions, answers
 * their requests for connection slots (sessions.c), reaps them, reloads
 * the configuration on SIGHUP and stops on SIGTERM.
 *
 * Each session monitor starts with: fd 3 the client, fd 4 the log file
 * (with --log-fd), fd 5 the sealed configuration snapshot of the current
 * generation, fd 6 its end of the listener channel, fd 7 the generation's
 * sealed names table (names.h: resolved here, by a child, before the
 * generation serves, and refreshed while it is in force).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fds.h"
#include "monotime.h"
#include "sockopts.h"
#include "listener.h"
#include "log.h"
#include "reap.h"
#include "safeopen.h"

#define KILL_GRACE_MS 5000   /* after SIGTERM to sessions, before SIGKILL */
#define ACCEPT_BURST 64      /* connections taken per socket per wake-up */

struct lsn {
	const struct listener_opts *o;
	struct socks *sk;
	struct gen *cur;
	struct sessions t;
	int log_fd;
	int pid_fd;
	unsigned long started;
	int stopping;            /* 1: draining; 2: sessions told to end; 3: killed */
	int64_t deadline;        /* of the current stopping phase */
	int status_dirty;
	int64_t status_sent;
	int64_t full_logged;
	struct names_job job;    /* a run of the resolver, for cur or pending */
	struct gen *job_gen;     /* whose names it resolves; NULL: none */
	struct gen *pending;     /* a reloaded generation waiting for its names */
	int64_t next_refresh;    /* of cur's names */
};

static char monitor_exe[4096];

/* A helper binary: next to our own executable (a build tree, or a package
 * that keeps them together), else in the libexec directory. */
static int find_helper(const char *name, char *out, size_t outlen)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(out, outlen, "%s/%s", self, name);
			if (access(out, X_OK) == 0)
				return 0;
		}
	}
	snprintf(out, outlen, "%s/%s", PRSYNCD_LIBEXEC, name);
	return access(out, X_OK) == 0 ? 0 : -1;
}

/* One descriptor per running session (its channel) plus what the session
 * passes through: hundreds of idle clients must not exhaust the soft
 * limit while the hard limit allows more. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void send_status(struct lsn *l)
{
	notify_send("STATUS=%s%zu session%s running, %lu started; configuration %u", l->stopping ? "stopping: " : "",
		    l->t.n, l->t.n == 1 ? "" : "s", l->started, l->cur->id);
	l->status_dirty = 0;
	l->status_sent = now_ms();
}

/* Child side of start_session(), after vfork(): put each descriptor at
 * its number (all first moved above 10 so no dup2 clobbers another),
 * close the rest, exec.  It shares the listener's memory until the exec,
 * so it only makes system calls on its own descriptor table and signal
 * mask (signals stay blocked until then: the listener takes them from a
 * signalfd, with no handler that could run here) and never returns. */
static void exec_monitor(const struct lsn *l, int client, int chan, char *const argv[])
{
	char *const envp[] = { NULL };
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int c2 = fcntl(client, F_DUPFD_CLOEXEC, 10);
	int l2 = l->log_fd >= 0 ? fcntl(l->log_fd, F_DUPFD_CLOEXEC, 10) : -1;
	int s2 = fcntl(l->cur->snap_fd, F_DUPFD_CLOEXEC, 10);
	int h2 = fcntl(chan, F_DUPFD_CLOEXEC, 10);
	int n2 = fcntl(l->cur->names_fd, F_DUPFD_CLOEXEC, 10);
	if (c2 < 0 || s2 < 0 || h2 < 0 || n2 < 0 || (l->log_fd >= 0 && l2 < 0) ||
	    dup2(c2, PR_FD_CLIENT) < 0 || dup2(s2, PR_FD_CFG) < 0 || dup2(h2, PR_FD_LISTENER) < 0 ||
	    dup2(n2, PR_FD_NAMES) < 0 || (l2 >= 0 ? dup2(l2, PR_FD_LOG) < 0 : (close(PR_FD_LOG), 0)))
		_exit(127);
	close_range(PR_FD_NAMES + 1, ~0U, 0);
	null_stdio();
	execve(monitor_exe, argv, envp);
	_exit(127);
}

static void start_session(struct lsn *l, int client, const struct sockaddr *peer, socklen_t plen)
{
	static char workerarg[4200];
	char *argv[4];
	int sv[2], a = 0;
	pid_t pid;

	if (l->t.n >= MAX_SESSIONS) {
		if (now_ms() - l->full_logged > 10000) {
			log_msg(PR_LOG_ERR, "%d sessions running: refusing new connections", MAX_SESSIONS);
			l->full_logged = now_ms();
		}
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_msg(PR_LOG_ERR, "socketpair: %s", strerror(errno));
		return;
	}
	argv[a++] = (char *)"prsyncd-monitor";
	if (l->log_fd >= 0)
		argv[a++] = (char *)"--log-fd";
	if (l->o->worker_path) {
		snprintf(workerarg, sizeof(workerarg), "--worker=%s", l->o->worker_path);
		argv[a++] = workerarg;
	}
	argv[a] = NULL;
	/* vfork: no copy of the listener's page tables and no copy-on-write
	 * fault in either process for each connection. */
	pid = vfork();
	if (pid < 0) {
		log_msg(PR_LOG_ERR, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (pid == 0)
		exec_monitor(l, client, sv[1], argv);
	close(sv[1]);
	if (sessions_add(&l->t, pid, sv[0], l->cur, peer, plen) == NULL) {
		/* Cannot count it: it must not run uncounted. */
		log_msg(PR_LOG_ERR, "session table: out of memory; ending session %d", (int)pid);
		kill(pid, SIGKILL);
		close(sv[0]);
		return;
	}
	l->started++;
	l->status_dirty = 1;
}

static void accept_on(struct lsn *l, int lfd)
{
	for (int i = 0; i < ACCEPT_BURST; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int c = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);

		if (c < 0) {
			/* Out of descriptors: back off instead of spinning on
			 * the pending connection; others (ECONNABORTED): go on. */
			if (errno == EMFILE || errno == ENFILE) {
				log_msg(PR_LOG_ERR, "accept: %s", strerror(errno));
				poll(NULL, 0, 100);
			}
			if (errno != ECONNABORTED && errno != EINTR)
				return;
			continue;
		}
		sockopts_apply(c, l->cur->cfg.socket_options);
		start_session(l, c, (struct sockaddr *)&ss, len);
		close(c);
	}
}

/* An exclusive lock held for the listener's life: a second daemon on the
 * same pid file refuses to start instead of overwriting it. */
static int pidfile_open(const char *path)
{
	char buf[32], why[512];
	int fd, n;

	fd = safe_open(path, O_RDWR | O_CREAT, 0644, why, sizeof(why));
	if (fd < 0) {
		log_msg(PR_LOG_ERR, "pid file %s: %s", path, why);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = (int)read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		log_msg(PR_LOG_ERR, "pid file %s is held by a running prsyncd (pid %s)", path, buf);
		close(fd);
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		log_msg(PR_LOG_ERR, "pid file %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int detach(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		return -1;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	return 0;
}

/* logrotate moves the file and sends SIGHUP: new lines go to a new file.
 * Running sessions keep the descriptor they inherited. */
static void reopen_log(struct lsn *l)
{
	char why[512];
	int fd;

	if (l->o->log_file == NULL || l->log_fd < 0)
		return;
	fd = safe_open(l->o->log_file, O_WRONLY | O_APPEND | O_CREAT, 0640, why, sizeof(why));
	if (fd < 0) {
		log_msg(PR_LOG_ERR, "reopening log file %s: %s; still writing to the old one", l->o->log_file, why);
		return;
	}
	close(l->log_fd);
	l->log_fd = fd;
	log_use_fd(fd);
}

/* A loaded generation with its names table takes over new sessions. */
static void put_in_force(struct lsn *l, struct gen *g)
{
	const struct cfg *a = &l->cur->cfg, *b = &g->cfg;

	if (l->sk->mode == SOCK_BIND && (a->port != b->port ||
	    (a->address ? !b->address || strcmp(a->address, b->address) : b->address != NULL)))
		log_msg(PR_LOG_WARNING, "reload: 'port' and 'address' take effect at the next start");
	log_msg(PR_LOG_INFO, "reload: configuration %u in force for new sessions (%zu module%s); "
		"%zu running session%s keep theirs", g->id, b->nmodules, b->nmodules == 1 ? "" : "s",
		l->t.n, l->t.n == 1 ? "" : "s");
	gen_put(l->cur);
	l->cur = g;
	l->next_refresh = now_ms() + names_refresh_ms();
	notify_send("READY=1");
	send_status(l);
}

static void end_run(struct lsn *l)
{
	names_job_end(&l->job);
	l->job_gen = NULL;
}

static int start_run(struct lsn *l, struct gen *g)
{
	if (names_start(&l->job, g) < 0)
		return -1;
	l->job_gen = g;
	return 0;
}

/*
 * A reloaded generation is put in force once its host names are resolved
 * (a run of at most NAMES_RUN_MS, names.h): until then the previous one
 * serves, with its own rules and answers, so no deny list ever goes
 * unjudged and a new allow-listed name is not refused for want of an
 * answer.  Answers of names both share are carried over meanwhile.
 */
static void reload(struct lsn *l)
{
	struct timespec ts;
	char err[CFG_ERR_MAX] = "";
	struct gen *g;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	notify_send("RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading the configuration",
		    (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
	reopen_log(l);
	g = gen_load(l->o->config_path, 0, err, sizeof(err));
	if (g != NULL) {
		names_carry(&g->names, &l->cur->names);
		if (l->pending != NULL) /* a reload still resolving: its answers are newer */
			names_carry(&g->names, &l->pending->names);
		if (names_publish(g, err, sizeof(err)) < 0) {
			gen_put(g);
			g = NULL;
		}
	}
	if (g == NULL) {
		log_msg(PR_LOG_ERR, "reload: %s; configuration %u stays in force", err, l->cur->id);
		notify_send("READY=1");
		send_status(l);
		return;
	}
	end_run(l);
	if (l->pending != NULL)
		gen_put(l->pending); /* a reload that was still resolving: this one replaces it */
	l->pending = NULL;
	if (g->names.nhosts == 0 || start_run(l, g) < 0) {
		put_in_force(l, g);
		return;
	}
	log_msg(PR_LOG_INFO, "reload: configuration %u loaded; resolving its %zu host name%s before it is put in "
		"force", g->id, g->names.nhosts, g->names.nhosts == 1 ? "" : "s");
	l->pending = g;
}

/* The resolver's run and the refresh schedule: a run that ended is
 * published (and a pending generation put in force); the configuration
 * in force is refreshed every names_refresh_ms(). */
static void names_tick(struct lsn *l, int readable)
{
	int64_t now = now_ms();
	char err[CFG_ERR_MAX];
	struct gen *g = l->job_gen;

	if (g != NULL) {
		if (readable || now >= l->job.deadline || l->job.pid == 0)
			names_job_step(&l->job, now);
		if (!l->job.done)
			return;
		end_run(l);
		if (names_publish(g, err, sizeof(err)) < 0)
			log_msg(PR_LOG_ERR, "%s; sessions keep the last table", err);
		if (g == l->pending) {
			l->pending = NULL;
			put_in_force(l, g);
		}
		l->next_refresh = now + names_refresh_ms();
		return;
	}
	if (l->stopping || l->cur->names.n == 0 || now < l->next_refresh)
		return;
	/* interfaces only: looked up here, no child */
	if (l->cur->names.nhosts == 0 || start_run(l, l->cur) < 0) {
		if (l->cur->names.nhosts == 0 && names_publish(l->cur, err, sizeof(err)) < 0)
			log_msg(PR_LOG_ERR, "%s; sessions keep the last table", err);
		l->next_refresh = now + names_refresh_ms();
		return;
	}
	l->job.refresh = 1;
}

static void signal_sessions(struct lsn *l, int sig)
{
	for (size_t i = 0; i < l->t.n; i++)
		kill(l->t.s[i].pid, sig);
}

static void stop(struct lsn *l, int forced)
{
	if (!l->stopping) {
		l->stopping = 1;
		socks_close_listeners(l->sk);
		l->deadline = now_ms() + (int64_t)l->o->stop_timeout * 1000;
		notify_send("STOPPING=1");
		send_status(l);
		log_msg(PR_LOG_INFO, "stopping: no new connections; %zu session%s may run for up to %d s",
			l->t.n, l->t.n == 1 ? "" : "s", l->o->stop_timeout);
		if (!forced)
			return;
	}
	if (l->stopping == 1 && l->t.n > 0) {
		log_msg(PR_LOG_INFO, "stopping: ending %zu session%s", l->t.n, l->t.n == 1 ? "" : "s");
		signal_sessions(l, SIGTERM);
		l->stopping = 2;
		l->deadline = now_ms() + KILL_GRACE_MS;
	} else if (l->stopping == 2) {
		signal_sessions(l, SIGKILL);
		l->stopping = 3;
		l->deadline = now_ms() + KILL_GRACE_MS;
	}
}

static void reap(struct lsn *l)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (names_job_reaped(&l->job, pid, status))
			continue; /* the resolver: its channel says the rest */
		reap_report(pid, status); /* a monitor killed by a signal */
		sessions_remove(&l->t, pid);
		l->status_dirty = 1;
	}
}

static int handle_signals(struct lsn *l, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			stop(l, l->stopping != 0);
			break;
		case SIGHUP:
			if (l->sk->mode != SOCK_INETD && !l->stopping)
				reload(l);
			break;
		case SIGCHLD:
			break;
		}
	}
	reap(l);
	return 0;
}

static int serve(struct lsn *l, int sfd)
{
	struct pollfd *pfd = NULL;
	size_t cap = 0;

	for (;;) {
		size_t n = 0, nl = (size_t)l->sk->n, need = nl + 2 + l->t.n;
		int timeout = -1, jfd = l->job_gen != NULL ? l->job.fd : -1;

		if (l->sk->mode == SOCK_INETD && l->t.n == 0)
			break; /* its one session is over */
		if (l->stopping && (l->t.n == 0 || (l->stopping == 3 && now_ms() >= l->deadline)))
			break;
		if (need > cap) {
			struct pollfd *grown = realloc(pfd, need * 2 * sizeof(*pfd));

			if (grown == NULL) {
				log_msg(PR_LOG_ERR, "out of memory");
				poll(NULL, 0, 100);
				continue;
			}
			pfd = grown;
			cap = need * 2;
		}
		for (size_t i = 0; i < nl; i++)
			pfd[n++] = (struct pollfd){ .fd = l->sk->fd[i], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (size_t i = 0; i < l->t.n; i++)
			pfd[n++] = (struct pollfd){ .fd = l->t.s[i].chan.fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = jfd, .events = POLLIN }; /* -1: ignored by poll */
		if (l->stopping)
			timeout = (int)(l->deadline - now_ms() > 0 ? l->deadline - now_ms() : 0);
		if (l->job_gen != NULL || (!l->stopping && l->cur->names.n > 0)) {
			int64_t at = l->job_gen != NULL ? l->job.deadline : l->next_refresh, left = at - now_ms();

			left = left < 0 ? 0 : left > 3600000 ? 3600000 : left;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (l->status_dirty && notify_enabled()) {
			int64_t left = l->status_sent + 1000 - now_ms();

			if (left <= 0)
				send_status(l);
			else if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			log_msg(PR_LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		/* Channels first: the table's order is what pfd was built from. */
		for (size_t i = 0; i < l->t.n; i++)
			if (pfd[nl + 1 + i].revents && l->t.s[i].chan.fd == pfd[nl + 1 + i].fd)
				sessions_serve(&l->t, &l->t.s[i]);
		for (size_t i = 0; i < nl && !l->stopping; i++)
			if (pfd[i].revents & POLLIN)
				accept_on(l, pfd[i].fd);
		if (pfd[nl].revents & POLLIN)
			handle_signals(l, sfd);
		names_tick(l, jfd >= 0 && pfd[n - 1].revents != 0);
		if (l->stopping && now_ms() >= l->deadline && l->t.n > 0)
			stop(l, 1);
	}
	free(pfd);
	return 0;
}

int listener_run(const struct listener_opts *o, struct socks *sk, struct gen *g)
{
	struct lsn l = { .o = o, .sk = sk, .cur = g, .log_fd = o->log_fd, .pid_fd = -1,
			 .job = { .pidfd = -1, .fd = -1, .done = 1 } };
	char err[CFG_ERR_MAX];
	int sfd, detached = 0;
	sigset_t mask;

	if (find_helper("prsyncd-monitor", monitor_exe, sizeof(monitor_exe)) < 0) {
		log_msg(PR_LOG_ERR, "cannot find prsyncd-monitor next to prsyncd or in %s", PRSYNCD_LIBEXEC);
		return 1;
	}
	raise_nofile();
	if (sk->mode == SOCK_BIND &&
	    socks_bind(sk, o->address ? o->address : g->cfg.address, o->port ? o->port : g->cfg.port,
		       g->cfg.listen_backlog) < 0)
		return 1;
	if (sk->mode == SOCK_BIND && !o->no_detach) {
		if (detach() < 0) {
			log_msg(PR_LOG_ERR, "cannot detach: %s", strerror(errno));
			return 1;
		}
		detached = 1;
	}
	if (sk->mode != SOCK_INETD && o->pid_file && (l.pid_fd = pidfile_open(o->pid_file)) < 0)
		return 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGPIPE);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGPIPE);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		log_msg(PR_LOG_ERR, "signalfd: %s", strerror(errno));
		return 1;
	}
	reap_watch_start();
	/* The configured names, before any session needs them. */
	if (names_resolve_now(g, err, sizeof(err)) < 0) {
		log_msg(PR_LOG_ERR, "%s", err);
		return 1;
	}
	l.next_refresh = now_ms() + names_refresh_ms();
	if (sk->mode == SOCK_INETD) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (getpeername(sk->conn, (struct sockaddr *)&ss, &len) < 0)
			len = 0;
		int limited = g->cfg.max_connections_per_host > 0;

		for (size_t i = 0; i < g->cfg.nmodules; i++)
			limited |= g->cfg.modules[i].max_connections > 0;
		if (limited)
			log_msg(PR_LOG_WARNING, "inetd mode: each connection has its own prsyncd, so "
				"'max connections' and 'max connections per host' cannot be counted");
		start_session(&l, sk->conn, len ? (struct sockaddr *)&ss : NULL, len);
		close(sk->conn);
		sk->conn = -1;
	} else {
		log_msg(PR_LOG_INFO, "prsyncd version %s starting, %s %d socket%s", PRSYNCD_VERSION,
			sk->mode == SOCK_ACTIVATED ? "socket-activated with" : "listening on", sk->n,
			sk->n == 1 ? "" : "s");
		if (detached)
			notify_send("MAINPID=%d", (int)getpid());
		notify_send("READY=1");
		send_status(&l);
	}
	serve(&l, sfd);
	end_run(&l);
	if (l.pending != NULL)
		gen_put(l.pending);
	if (sk->mode != SOCK_INETD)
		log_msg(PR_LOG_INFO, "prsyncd exiting (%zu sessions still running)", l.t.n);
	if (l.pid_fd >= 0) {
		unlink(o->pid_file);
		close(l.pid_fd);
	}
	/* Forget sessions still running (they go on without us), so every
	 * generation is released: nothing is left for a leak check. */
	while (l.t.n > 0)
		sessions_remove(&l.t, l.t.s[0].pid);
	free(l.t.s);
	gen_put(l.cur);
	return 0;
}
