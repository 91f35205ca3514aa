/* SPDX-License-Identifier: ISC */
/*
 * What one monitor<->worker exchange costs on this machine, in CPU time of
 * both processes together (docs/performance.md, "Where the time goes"):
 * a "worker" sends a request over a SOCK_SEQPACKET socketpair and waits
 * for the reply, a "monitor" (poll, then) receives it and answers, with a
 * descriptor riding along as an open's answer does.  Variants: today's fixed
 * 8 KiB records, records sized to their type, no poll before the receive,
 * an unanswered third record per exchange (a close report of its own, as
 * the retired PR_W_CLOSE was), and one request answered with 16
 * descriptors (prefetched opens).
 *
 *   bench/ipcspeed.sh [ROUNDS]
 *
 * Reports microseconds of CPU (user+system of both processes) and of wall
 * time per file, so the per-file channel cost of each design can be
 * compared directly.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXFD 16

struct variant {
	const char *name;
	size_t req, reply, close_rec;  /* bytes; close_rec 0: no CLOSE record */
	int poll_first;                /* monitor polls before each receive */
	int fds_per_reply;             /* descriptors per reply = files per exchange */
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_of(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int send_rec(int s, const void *buf, size_t n, const int *fds, int nfd)
{
	union {
		struct cmsghdr a;
		char b[CMSG_SPACE(sizeof(int) * MAXFD)];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfd > 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	}
	return sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* Receive one record; close any descriptors; returns the byte count. */
static ssize_t recv_rec(int s, void *buf, size_t cap)
{
	union {
		struct cmsghdr a;
		char b[CMSG_SPACE(sizeof(int) * MAXFD)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			     .msg_controllen = sizeof(ctl.b) };
	ssize_t n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			close(fd);
		}
	}
	return n;
}

static void monitor(int s, const struct variant *v, long rounds)
{
	static char in[8192], out[8192];
	int fds[MAXFD];

	for (int i = 0; i < v->fds_per_reply; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (long r = 0; r < rounds; r++) {
		int recs = v->close_rec ? 1 + v->fds_per_reply : 1;

		for (int k = 0; k < recs; k++) {
			if (v->poll_first) {
				struct pollfd p = { .fd = s, .events = POLLIN };
				poll(&p, 1, -1);
			}
			if (recv_rec(s, in, sizeof(in)) <= 0)
				_exit(1);
			if (k == 0) {
				memset(out, 0, v->reply);   /* as pr_msg_init does */
				if (send_rec(s, out, v->reply, fds, v->fds_per_reply) < 0)
					_exit(1);
			}
		}
	}
	_exit(0);
}

static void run(const struct variant *v, long rounds)
{
	static char in[8192], out[8192];
	int sv[2];
	pid_t pid;
	double c0 = cpu_of(RUSAGE_SELF), t0 = now(), c1, cc, t1;
	int st;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		exit(1);
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		monitor(sv[1], v, rounds);
	}
	close(sv[1]);
	for (long r = 0; r < rounds; r++) {
		memset(out, 0, v->req);
		if (send_rec(sv[0], out, v->req, NULL, 0) < 0 || recv_rec(sv[0], in, sizeof(in)) <= 0) {
			fprintf(stderr, "exchange failed\n");
			exit(1);
		}
		for (int k = 0; v->close_rec && k < v->fds_per_reply; k++) {
			memset(out, 0, v->close_rec);
			if (send_rec(sv[0], out, v->close_rec, NULL, 0) < 0)
				exit(1);
		}
	}
	close(sv[0]);
	waitpid(pid, &st, 0);
	t1 = now();
	c1 = cpu_of(RUSAGE_SELF);
	cc = cpu_of(RUSAGE_CHILDREN);
	{
		static double cc_before;
		double files = (double)rounds * v->fds_per_reply;
		printf("%-58s %7.2f %7.2f\n", v->name, ((c1 - c0) + (cc - cc_before)) * 1e6 / files,
		       (t1 - t0) * 1e6 / files);
		cc_before = cc;
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	const struct variant vs[] = {
		{ "today: 8 KiB OPEN, 8 KiB reply+fd, 8 KiB CLOSE, poll", 8192, 8192, 8192, 1, 1 },
		{ "the same without the poll", 8192, 8192, 8192, 0, 1 },
		{ "records sized to type (4114 / 104 / 20), poll", 4114, 104, 20, 1, 1 },
		{ "sized, no poll", 4114, 104, 20, 0, 1 },
		{ "sized, no poll, CLOSE implied (no record)", 4114, 104, 0, 0, 1 },
		{ "short path (80 B request), no poll, no CLOSE", 80, 104, 0, 0, 1 },
		{ "16 opens per request (16 fds per reply), sized, no CLOSE", 16 * 80, 16 * 104, 0, 0, 16 },
	};

	if (rounds < 100 || rounds > 100000000) {
		fprintf(stderr, "usage: ipcspeed [ROUNDS >= 100]\n");
		return 2;
	}
	printf("%ld exchanges per variant; microseconds per file: CPU (both processes), wall\n", rounds);
	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
		run(&vs[i], vs[i].fds_per_reply > 1 ? rounds / vs[i].fds_per_reply : rounds);
	return 0;
}
