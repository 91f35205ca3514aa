/*
 * The listener: binds, accepts, and for each connection forks and
 * executes the session monitor (prsyncd-monitor), so every connection
 * starts from a fresh address-space layout.  It never reads from a client; it
 * only counts and reaps its children.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"
#include "listener.h"
#include "log.h"
#include "reap.h"

#define MAX_LISTEN 8
#define BACKLOG 64

static char monitor_exe[4096];

static int bind_all(const struct listener_opts *o, int *fds)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char port[16];
	int n = 0, rc;

	snprintf(port, sizeof(port), "%d", o->port);
	rc = getaddrinfo(o->address, port, &hints, &res);
	if (rc != 0) {
		log_msg(PR_LOG_ERR, "address %s: %s", o->address ? o->address : "*", gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL && n < MAX_LISTEN; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		int one = 1;

		if (fd < 0)
			continue;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* Separate IPv4 and IPv6 sockets, so both can bind the port. */
		if (ai->ai_family == AF_INET6)
			(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, BACKLOG) < 0) {
			log_msg(PR_LOG_ERR, "bind/listen on port %d (%s): %s", o->port,
				ai->ai_family == AF_INET6 ? "IPv6" : "IPv4", strerror(errno));
			close(fd);
			continue;
		}
		fds[n++] = fd;
	}
	freeaddrinfo(res);
	if (n == 0)
		log_msg(PR_LOG_ERR, "could not listen on any address");
	return n ? n : -1;
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

static int start_session(const struct listener_opts *o, int client)
{
	char cfgarg[4200], workerarg[4200], chrootarg[4200];
	char *argv[8];
	char *const envp[] = { NULL };
	int a = 0;
	sigset_t none;
	pid_t pid = fork();

	if (pid < 0) {
		log_msg(PR_LOG_ERR, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return 0;
	/* Child: the client becomes PR_FD_CLIENT, the log PR_FD_LOG.  Both are
	 * first moved out of the way so neither dup2 can clobber the other. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int c2 = fcntl(client, F_DUPFD_CLOEXEC, 10);
	int l2 = o->log_fd >= 0 ? fcntl(o->log_fd, F_DUPFD_CLOEXEC, 10) : -1;
	if (c2 < 0 || (o->log_fd >= 0 && l2 < 0) || dup2(c2, PR_FD_CLIENT) < 0 ||
	    (l2 >= 0 && dup2(l2, PR_FD_LOG) < 0))
		_exit(127);
	close_range(o->log_fd >= 0 ? PR_FD_LOG + 1 : PR_FD_CLIENT + 1, ~0U, 0);
	null_stdio();
	snprintf(cfgarg, sizeof(cfgarg), "--config=%s", o->config_path);
	argv[a++] = (char *)"prsyncd-monitor";
	argv[a++] = cfgarg;
	if (o->log_fd >= 0)
		argv[a++] = (char *)"--log-fd";
	if (o->worker_path) {
		snprintf(workerarg, sizeof(workerarg), "--worker=%s", o->worker_path);
		argv[a++] = workerarg;
	}
	snprintf(chrootarg, sizeof(chrootarg), "--worker-chroot=%s", o->worker_chroot);
	argv[a++] = chrootarg;
	argv[a] = NULL;
	execve(monitor_exe, argv, envp);
	_exit(127);
}

static int write_pid_file(const char *path)
{
	char buf[32];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		log_msg(PR_LOG_ERR, "pid file %s: %s", path, strerror(errno));
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	close(fd);
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

int listener_run(const struct listener_opts *o)
{
	struct pollfd pfd[MAX_LISTEN + 1];
	int lfd[MAX_LISTEN], nl, sfd, running = 1, children = 0;
	sigset_t mask;

	if (find_helper("prsyncd-monitor", monitor_exe, sizeof(monitor_exe)) < 0) {
		log_msg(PR_LOG_ERR, "cannot find prsyncd-monitor next to prsyncd or in %s", PRSYNCD_LIBEXEC);
		return 1;
	}
	nl = bind_all(o, lfd);
	if (nl < 0)
		return 1;
	if (!o->no_detach && detach() < 0) {
		log_msg(PR_LOG_ERR, "cannot detach: %s", strerror(errno));
		return 1;
	}
	if (o->pid_file && write_pid_file(o->pid_file) < 0)
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
	log_msg(PR_LOG_INFO, "prsyncd version %s starting, listening on port %d", PRSYNCD_VERSION, o->port);

	for (int i = 0; i < nl; i++)
		pfd[i] = (struct pollfd){ .fd = lfd[i], .events = POLLIN };
	pfd[nl] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	while (running) {
		if (poll(pfd, (nfds_t)nl + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_msg(PR_LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (pfd[nl].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
					running = 0;
			}
			pid_t pid;
			int status;

			while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
				children--;
				reap_report(pid, status); /* a monitor killed by a signal */
			}
		}
		for (int i = 0; i < nl && running; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			int c = accept4(lfd[i], NULL, NULL, SOCK_CLOEXEC);
			if (c < 0) {
				/* Out of descriptors: back off instead of spinning on
				 * the pending connection; others (ECONNABORTED): go on. */
				if (errno == EMFILE || errno == ENFILE) {
					log_msg(PR_LOG_ERR, "accept: %s", strerror(errno));
					poll(NULL, 0, 100);
				}
				continue;
			}
			if (start_session(o, c) == 0)
				children++;
			close(c);
		}
	}
	log_msg(PR_LOG_INFO, "prsyncd exiting (%d sessions still running)", children);
	if (o->pid_file)
		unlink(o->pid_file);
	return 0;
}
