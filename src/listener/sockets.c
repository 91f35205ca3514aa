/* SPDX-License-Identifier: ISC */
/*
 * Where connections come from: sockets the listener binds itself, sockets
 * systemd hands over (socket activation), or one connection already
 * accepted by inetd or by systemd with Accept=yes.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listener.h"
#include "log.h"

#define BACKLOG 128
#define SD_LISTEN_FDS_START 3

/* 1: a listening stream socket, 0: a connected one, -1: neither. */
static int stream_kind(int fd)
{
	struct stat st;
	int type = 0, acc = 0;
	socklen_t len = sizeof(type), alen = sizeof(acc);

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &alen) < 0)
		return -1;
	return acc ? 1 : 0;
}

/* A connection from the network: inetd passes it on stdin (rsyncd's test
 * is "stdin is a socket"; we also want a TCP peer, so that a test harness
 * or a supervisor with a Unix socket on stdin does not switch modes). */
static int is_inet_conn(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return stream_kind(fd) == 0 && getpeername(fd, (struct sockaddr *)&ss, &len) == 0 &&
	       (ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
}

static int activated(struct socks *s, char *err, size_t errlen)
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	char *end;
	long p, n;
	int rc = 0;

	if (pid == NULL || nfds == NULL)
		return 0;
	p = strtol(pid, &end, 10);
	if (*pid == '\0' || *end != '\0' || p != (long)getpid())
		goto out; /* meant for another process */
	n = strtol(nfds, &end, 10);
	if (*nfds == '\0' || *end != '\0' || n < 1 || n > MAX_LISTEN) {
		snprintf(err, errlen, "LISTEN_FDS=%s: expected 1 to %d sockets", nfds, MAX_LISTEN);
		rc = -1;
		goto out;
	}
	for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		int kind = stream_kind(fd);

		if (kind < 0 || (kind == 0 && n != 1)) {
			snprintf(err, errlen, "inherited fd %d (LISTEN_FDS=%ld%s%s) is not a %s stream socket", fd, n,
				 names ? ", LISTEN_FDNAMES=" : "", names ? names : "", n == 1 ? "" : "listening");
			rc = -1;
			goto out;
		}
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (kind == 0) {
			s->mode = SOCK_INETD; /* Accept=yes without StandardInput=socket */
			s->conn = fd;
		} else {
			s->mode = SOCK_ACTIVATED;
			(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			s->fd[s->n++] = fd;
		}
	}
	rc = 1;
out:
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return rc;
}

int socks_detect(struct socks *s, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->mode = SOCK_BIND;
	s->conn = -1;
	if ((rc = activated(s, err, errlen)) != 0) {
		/* Accept=yes with StandardInput=socket: the copy on stdin must
		 * not outlive the session, nor take stray output. */
		if (rc > 0 && s->mode == SOCK_INETD && stream_kind(0) >= 0)
			null_stdio();
		return rc < 0 ? -1 : 0;
	}
	if (is_inet_conn(0)) {
		s->mode = SOCK_INETD;
		s->conn = fcntl(0, F_DUPFD_CLOEXEC, 10);
		if (s->conn < 0) {
			snprintf(err, errlen, "inetd mode: dup: %s", strerror(errno));
			return -1;
		}
		/* stdin, stdout (and for classic inetd stderr) are the client:
		 * nothing but the session may write there. */
		null_stdio();
	}
	return 0;
}

int socks_bind(struct socks *s, const char *address, int port, int backlog)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char portstr[16];
	int rc;

	snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(address, portstr, &hints, &res);
	if (rc != 0) {
		listener_err("address %s: %s", address ? address : "*", gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL && s->n < MAX_LISTEN; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		int one = 1;

		if (fd < 0)
			continue;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* Separate IPv4 and IPv6 sockets, so both can bind the port. */
		if (ai->ai_family == AF_INET6)
			(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, backlog > 0 ? backlog : BACKLOG) < 0) {
			listener_err("bind/listen on port %d (%s): %s", port,
				ai->ai_family == AF_INET6 ? "IPv6" : "IPv4", strerror(errno));
			close(fd);
			continue;
		}
		s->fd[s->n++] = fd;
	}
	freeaddrinfo(res);
	if (s->n == 0) {
		listener_err("could not listen on any address");
		return -1;
	}
	return 0;
}

void socks_close_listeners(struct socks *s)
{
	for (int i = 0; i < s->n; i++)
		close(s->fd[i]);
	s->n = 0;
}
