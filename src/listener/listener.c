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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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
#include "refusal.h"
#include "safeopen.h"

#define KILL_GRACE_MS 5000   /* after SIGTERM to sessions, before SIGKILL */
#define ACCEPT_BURST 64      /* connections taken per socket per wake-up */

/*
 * Descriptors.  A session holds one in the listener (its channel) until it
 * has claimed its module slot.  Starting one takes three more for a moment
 * (the client, the channel pair) and its child five duplicates before the
 * exec; a reload or a log reopened takes no more than that, and never at
 * the same time; a notify datagram one.  Each generation alive holds two
 * (its snapshot and its names table), a run of the resolver two (its
 * channel and pidfd).  A refused client holds one until
 * it hangs up (REFUSE_MAX at most, fewer than the slack above, so that a
 * refusal always has its descriptor).  A session is started only while all
 * of that fits under the soft limit, so the listener never runs out: a
 * client it cannot serve is told so (refusal.c).
 */
#define START_FDS 8
#define SPARE_FDS 2
#define BUSY_ERROR "@ERROR: too many connections to this server -- try again later"

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
	size_t fd_base;          /* open when serving began, with one generation */
	size_t fd_limit;         /* the soft RLIMIT_NOFILE */
	struct refusals ref;     /* refused clients, until they hang up */
	struct names_job job;    /* a run of the resolver, for cur or pending */
	struct gen *job_gen;     /* whose names it resolves; NULL: none */
	struct gen *pending;     /* a reloaded generation waiting for its names */
	int64_t next_refresh;    /* of cur's names */
};

static char monitor_exe[4096];
static int starting;         /* errors also on stderr (listener_err()) */

void listener_err(const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log_msg(PR_LOG_ERR, "%s", text);
	if (starting)
		fprintf(stderr, "prsyncd: %s\n", text);
}

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

/* One descriptor per session before its module slot (its channel):
 * hundreds of idle clients must not exhaust the soft limit while the hard
 * limit allows more.  Returns the soft limit in force. */
static size_t raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20) ? (1u << 20) : (size_t)rl.rlim_cur;
}

/* Descriptors open now (those of /proc/self/fd but the directory's own);
 * a guess on the safe side without /proc. */
static size_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (d == NULL)
		return 64;
	while (readdir(d) != NULL && n < (1u << 21))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." */
}

/* Channels the listener can still open for new sessions. */
static size_t chan_room(const struct lsn *l)
{
	unsigned gens = gen_live();
	size_t used = l->fd_base + (gens > 1 ? gens - 1 : 0) * 2 + (l->job_gen != NULL) * 2 + l->t.open + l->ref.n +
		      START_FDS + SPARE_FDS;

	return used < l->fd_limit ? l->fd_limit - used : 0;
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
static volatile int exec_errno; /* set by the child of start_session() if it fails */

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
	    dup2(n2, PR_FD_NAMES) < 0 || (l2 >= 0 ? dup2(l2, PR_FD_LOG) < 0 : (close(PR_FD_LOG), 0))) {
		exec_errno = errno;
		_exit(127);
	}
	close_range(PR_FD_NAMES + 1, ~0U, 0);
	null_stdio();
	/* The session's own process group, which its worker inherits and
	 * cannot leave (worker.policy has no setpgid or setsid): see reap(). */
	(void)setpgid(0, 0);
	execve(monitor_exe, argv, envp);
	exec_errno = errno; /* the parent reads it once vfork() returns */
	_exit(127);
}

/* A session monitor for the client (taken: kept by the monitor, or
 * refused).  The limits on sessions and on descriptors are checked first,
 * so that every failure can still answer the client. */
static void start_session(struct lsn *l, int client, const struct sockaddr *peer, socklen_t plen)
{
	static char workerarg[4200];
	char *argv[4], why[160];
	int sv[2], a = 0;
	pid_t pid;

	if (l->t.n >= MAX_SESSIONS) {
		snprintf(why, sizeof(why), "%d sessions running", MAX_SESSIONS);
		refusal_add(&l->ref, client, BUSY_ERROR, why);
		return;
	}
	if (chan_room(l) == 0) {
		snprintf(why, sizeof(why), "%zu sessions before module selection hold what the descriptor "
			 "limit (%zu) allows", l->t.open, l->fd_limit);
		refusal_add(&l->ref, client, BUSY_ERROR, why);
		return;
	}
	if (sessions_room(&l->t) < 0) {
		refusal_add(&l->ref, client, BUSY_ERROR, "session table: out of memory");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, sizeof(why), "socketpair: %s", strerror(errno));
		refusal_add(&l->ref, client, BUSY_ERROR, why);
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
	exec_errno = 0;
	pid = vfork();
	if (pid == 0)
		exec_monitor(l, client, sv[1], argv);
	close(sv[1]);
	if (pid < 0 || exec_errno != 0) {
		snprintf(why, sizeof(why), "%s %s: %s", pid < 0 ? "fork for" : "starting", monitor_exe,
			 strerror(pid < 0 ? errno : exec_errno));
		close(sv[0]);
		refusal_add(&l->ref, client, pid < 0 ? BUSY_ERROR : "@ERROR: daemon setup error", why);
		return; /* a child that failed is reaped as any other */
	}
	close(client); /* the monitor has it */
	if (sessions_add(&l->t, pid, sv[0], l->cur, peer, plen) == NULL) {
		/* Cannot count it: it must not run uncounted (sessions_room()
		 * made room, so this is not expected). */
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
	}
}

/* An exclusive lock held for the listener's life: a second daemon on the
 * same pid file refuses to start instead of overwriting it.  Taken before
 * the detach, while the terminal still sees why not (the lock belongs to
 * the open file, which the detached process inherits). */
static int pidfile_lock(const char *path)
{
	char buf[32], why[512];
	int fd, n;

	fd = safe_open(path, O_RDWR | O_CREAT, 0644, why, sizeof(why));
	if (fd < 0) {
		listener_err("pid file %s: %s", path, why);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = (int)read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		listener_err("pid file %s is held by a running prsyncd (pid %s)", path, buf);
		close(fd);
		return -1;
	}
	return fd;
}

static int pidfile_write(int fd, const char *path)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		listener_err("pid file %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
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

/* Under socket activation the sockets are systemd's: say that the
 * configuration's (or the command line's) port and address do nothing. */
static void warn_activated(const struct lsn *l, const struct cfg *c)
{
	int port = l->o->port ? l->o->port : c->port;
	const char *addr = l->o->address ? l->o->address : c->address;

	if (l->sk->mode == SOCK_ACTIVATED && (port != 873 || addr != NULL))
		log_msg(PR_LOG_WARNING, "socket-activated: port %d and address %s are ignored; the listening "
			"sockets are the ones systemd passed (the socket unit's ListenStream=)", port,
			addr ? addr : "(all)");
}

/* A loaded generation with its names table takes over new sessions. */
static void put_in_force(struct lsn *l, struct gen *g)
{
	const struct cfg *a = &l->cur->cfg, *b = &g->cfg;

	if (a->port != b->port || (a->address ? !b->address || strcmp(a->address, b->address) : b->address != NULL)) {
		if (l->sk->mode == SOCK_BIND)
			log_msg(PR_LOG_WARNING, "reload: 'port' and 'address' take effect at the next start");
		else
			warn_activated(l, b);
	}
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

static int is_session(const struct lsn *l, pid_t pid)
{
	for (size_t i = 0; i < l->t.n; i++)
		if (l->t.s[i].pid == pid)
			return 1;
	return 0;
}

/*
 * A session ends with its monitor: whatever is left of its process group
 * (a worker the monitor could no longer signal once it had dropped to a
 * module uid other than the worker's, for which the kernel does not send
 * the worker's parent-death signal either) is killed, while the monitor's
 * zombie still holds the group's number so that no other group can have
 * it, then the monitor is reaped.
 */
static void reap(struct lsn *l)
{
	siginfo_t si;
	pid_t pid;
	int status;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid <= 0)
			break;
		pid = si.si_pid;
		if (is_session(l, pid))
			(void)kill(-pid, SIGKILL);
		if (waitpid(pid, &status, 0) != pid)
			break;
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

/*
 * The loop.  Only open descriptors go into the poll set (a session's
 * channel is closed once it has claimed what it asks for), since poll()
 * refuses more entries than the descriptor limit (EINVAL): with closed
 * channels counted, 62 sessions under a limit of 64 stopped the listener.
 * chan_of[k] is the session of the k-th channel polled; the table is
 * only appended to (accept) and shrunk (reap) after the channels are
 * served.
 */
static int serve(struct lsn *l, int sfd)
{
	struct pollfd *pfd = NULL;
	size_t *chan_of = NULL, cap = 0;

	for (;;) {
		size_t n = 0, nl = (size_t)l->sk->n, need = nl + 2 + l->t.open + l->ref.n, nr = l->ref.n, nc = 0;
		int timeout = -1, jfd = l->job_gen != NULL ? l->job.fd : -1;

		if (l->sk->mode == SOCK_INETD && l->t.n == 0)
			break; /* its one session is over */
		if (l->stopping && (l->t.n == 0 || (l->stopping == 3 && now_ms() >= l->deadline)))
			break;
		if (need > cap) {
			struct pollfd *grown = realloc(pfd, need * 2 * sizeof(*pfd));
			size_t *grown_of = grown ? realloc(chan_of, need * 2 * sizeof(*chan_of)) : NULL;

			if (grown != NULL)
				pfd = grown;
			if (grown_of == NULL) {
				log_msg(PR_LOG_ERR, "out of memory");
				poll(NULL, 0, 100);
				continue;
			}
			chan_of = grown_of;
			cap = need * 2;
		}
		for (size_t i = 0; i < nl; i++)
			pfd[n++] = (struct pollfd){ .fd = l->sk->fd[i], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (size_t i = 0; i < l->t.n && nc < l->t.open; i++)
			if (l->t.s[i].chan.fd >= 0) {
				chan_of[nc++] = i;
				pfd[n++] = (struct pollfd){ .fd = l->t.s[i].chan.fd, .events = POLLIN };
			}
		refusal_poll(&l->ref, pfd + n, &timeout);
		n += nr;
		pfd[n++] = (struct pollfd){ .fd = jfd, .events = POLLIN }; /* -1: ignored by poll */
		if (l->stopping) {
			int64_t left = l->deadline - now_ms() > 0 ? l->deadline - now_ms() : 0;

			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
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
		/* Refused clients and channels first: the orders of ref and
		 * of the table are what pfd was built from. */
		refusal_sweep(&l->ref, pfd + n - 1 - nr);
		for (size_t k = 0; k < nc; k++)
			if (pfd[nl + 1 + k].revents && l->t.s[chan_of[k]].chan.fd == pfd[nl + 1 + k].fd)
				sessions_serve(&l->t, &l->t.s[chan_of[k]]);
		for (size_t i = 0; i < nl && !l->stopping; i++)
			if (pfd[i].revents & POLLIN)
				accept_on(l, pfd[i].fd);
		if (pfd[nl].revents & POLLIN)
			handle_signals(l, sfd);
		if (l->stopping && now_ms() >= l->deadline && l->t.n > 0)
			stop(l, 1);
		names_tick(l, jfd >= 0 && pfd[n - 1].revents != 0);
	}
	free(pfd);
	free(chan_of);
	return 0;
}

/* Listening sockets, the pid file (locked), the detach, the pid written,
 * the signals: 0, or -1 (logged). */
static int start_up(struct lsn *l, int *sfd, int *detached)
{
	const struct listener_opts *o = l->o;
	const struct cfg *c = &l->cur->cfg;
	sigset_t mask;

	if (find_helper("prsyncd-monitor", monitor_exe, sizeof(monitor_exe)) < 0) {
		listener_err("cannot find prsyncd-monitor next to prsyncd or in %s", PRSYNCD_LIBEXEC);
		return -1;
	}
	l->fd_limit = raise_nofile();
	if (l->sk->mode == SOCK_BIND &&
	    socks_bind(l->sk, o->address ? o->address : c->address, o->port ? o->port : c->port,
		       c->listen_backlog) < 0)
		return -1;
	if (l->sk->mode != SOCK_INETD && o->pid_file && (l->pid_fd = pidfile_lock(o->pid_file)) < 0)
		return -1;
	if (l->sk->mode == SOCK_BIND && !o->no_detach) {
		if (detach() < 0) {
			listener_err("cannot detach: %s", strerror(errno));
			return -1;
		}
		*detached = 1;
	}
	if (l->pid_fd >= 0 && pidfile_write(l->pid_fd, o->pid_file) < 0)
		return -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGPIPE);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGPIPE);
	*sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (*sfd < 0) {
		listener_err("signalfd: %s", strerror(errno));
		return -1;
	}
	reap_watch_start();
	warn_activated(l, c);
	return 0;
}

int listener_run(const struct listener_opts *o, struct socks *sk, struct gen *g)
{
	struct lsn l = { .o = o, .sk = sk, .cur = g, .log_fd = o->log_fd, .pid_fd = -1,
			 .job = { .pidfd = -1, .fd = -1, .done = 1 } };
	char err[CFG_ERR_MAX];
	int sfd = -1, detached = 0, rc = 0;

	starting = sk->mode != SOCK_INETD;
	if (start_up(&l, &sfd, &detached) < 0) {
		rc = 1;
		goto out;
	}
	/* The configured names, before any session needs them. */
	if (names_resolve_now(g, err, sizeof(err)) < 0) {
		listener_err("%s", err);
		rc = 1;
		goto out;
	}
	l.next_refresh = now_ms() + names_refresh_ms();
	starting = 0; /* from here on the log alone */
	l.fd_base = count_fds();
	if (l.fd_limit < MAX_SESSIONS + l.fd_base + START_FDS + SPARE_FDS + REFUSE_MAX && sk->mode != SOCK_INETD)
		log_msg(PR_LOG_WARNING, "descriptor limit %zu: at most %zu sessions before module selection "
			"at a time (only while a module has 'max connections': otherwise a session gives "
			"its descriptor back once its host is counted); clients beyond are refused",
			l.fd_limit, chan_room(&l));
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
		sk->conn = -1;
	} else {
		/* rsyncd's words where it binds ("listening on port N"), which
		 * log watchers look for */
		if (sk->mode == SOCK_BIND)
			log_msg(PR_LOG_INFO, "prsyncd version %s starting, listening on port %d (%d socket%s)",
				PRSYNCD_VERSION, o->port ? o->port : g->cfg.port, sk->n, sk->n == 1 ? "" : "s");
		else
			log_msg(PR_LOG_INFO, "prsyncd version %s starting, socket-activated with %d socket%s",
				PRSYNCD_VERSION, sk->n, sk->n == 1 ? "" : "s");
		if (detached)
			notify_send("MAINPID=%d", (int)getpid());
		notify_send("READY=1");
		send_status(&l);
	}
	serve(&l, sfd);
	if (sk->mode != SOCK_INETD)
		log_msg(PR_LOG_INFO, "prsyncd exiting (%zu sessions still running)", l.t.n);
out:
	starting = 0;
	end_run(&l);
	if (l.pending != NULL)
		gen_put(l.pending);
	refusal_drain(&l.ref);
	if (l.pid_fd >= 0) {
		unlink(o->pid_file);
		close(l.pid_fd);
	}
	if (sfd >= 0)
		close(sfd);
	socks_close_listeners(sk);
	/* Forget sessions still running (they go on without us), so every
	 * generation is released: nothing is left for a leak check. */
	while (l.t.n > 0)
		sessions_remove(&l.t, l.t.s[0].pid);
	free(l.t.s);
	gen_put(l.cur);
	return rc;
}
