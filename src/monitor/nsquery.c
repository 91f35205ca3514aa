/* SPDX-License-Identifier: ISC */
/*
 * The monitor's side of the name-service channel (nsquery.h).  One
 * question is outstanding at a time; every answer is checked alone
 * (nsrec_check) and against the question (type, sequence number, the
 * groups' count), and the wait for it is bounded by the caller's
 * deadline.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "monotime.h"
#include "nschild.h"
#include "nsquery.h"
#include "nsrec.h"
#include "seccomp_policy.h"
#include "sigsys.h"

void nsq_init(struct nsq *q, const char *why)
{
	memset(q, 0, sizeof(*q));
	q->pidfd = q->fd = q->kmsg_fd = -1;
	q->failed = 1;
	snprintf(q->why, sizeof(q->why), "%s", why);
}

void nsq_attach(struct nsq *q, int fd)
{
	nsq_init(q, "");
	q->fd = fd;
	q->failed = 0;
}

int nsq_start(struct nsq *q, int drop, uid_t uid, gid_t gid, int kmsg_fd)
{
	int sv[2];
	pid_t pid;

	nsq_init(q, "the name-service child did not start");
	q->kmsg_fd = kmsg_fd;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_msg(PR_LOG_ERR, "name-service child: socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		nschild_run(sv[1], drop, uid, gid);
	}
	close(sv[1]);
	if (pid < 0 || (q->pidfd = pidfd_open(pid, 0)) < 0) {
		log_msg(PR_LOG_ERR, "name-service child: %s: %s", pid < 0 ? "fork" : "pidfd_open", strerror(errno));
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(sv[0]);
		return -1;
	}
	q->pid = pid;
	q->fd = sv[0];
	q->failed = 0;
	return 0;
}

/* How the child ended, for the log line (reaped here if it has). */
static void describe_end(struct nsq *q, char *out, size_t outlen)
{
	int status = 0, sig;
	pid_t w = 0;

	snprintf(out, outlen, "the name-service child is gone");
	/* bounded: a child that closed its channel exits at once */
	for (int i = 0; q->pid > 0 && i < 20 && (w = wait4(q->pid, &status, WNOHANG, NULL)) == 0; i++)
		poll(NULL, 0, 10);
	if (w != q->pid)
		return;
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (sig == SIGSYS) {
		long nr = sigsys_lookup(q->kmsg_fd, q->pid);
		const char *name = pr_syscall_name(nr);

		snprintf(out, outlen, "the name-service child was killed by its seccomp filter (syscall %ld, %s): "
			 "a name service it may not use", nr, name ? name : "not reported");
	} else if (sig) {
		snprintf(out, outlen, "the name-service child was killed by signal %d", sig);
	} else {
		int st = WEXITSTATUS(status);

		snprintf(out, outlen, "the name-service child %s (status %d)",
			 st == NSCHILD_EXIT_BEGIN || st == NSCHILD_EXIT_DROP || st == NSCHILD_EXIT_FILTER
			 ? "could not confine itself" : st == NSCHILD_EXIT_PROTOCOL ? "ended on a request" : "exited", st);
	}
	q->pid = 0;
}

/* The child failed: record why, end it, and fail every later question. */
static int broken(struct nsq *q, const char *why)
{
	if (why != q->why)
		snprintf(q->why, sizeof(q->why), "%s", why);
	q->failed = 1;
	nsq_stop(q);
	return -1;
}

static int ask(struct nsq *q, const struct nsrec *r)
{
	struct iovec iov = { (void *)(uintptr_t)r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do
		n = sendmsg(q->fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*r)) {
		char why[200];

		describe_end(q, why, sizeof(why));
		return broken(q, why);
	}
	return 0;
}

/* The next answer to question seq of type want (or NSANS_END/GROUP for a
 * groups question), within the deadline.  0, or -1 (the child is ended). */
static int answer(struct nsq *q, struct nsrec *r, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = q->fd, .events = POLLIN };
		struct iovec iov = { r, sizeof(*r) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		int64_t left = deadline - now_ms();
		const char *why;
		char end[200];
		ssize_t n;
		int rc;

		if (left <= 0)
			return broken(q, "no answer from the name-service child in time");
		rc = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (rc < 0 && errno != EINTR) {
			snprintf(q->why, sizeof(q->why), "poll: %s", strerror(errno));
			return broken(q, q->why);
		}
		if (rc <= 0)
			continue;
		n = recvmsg(q->fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			describe_end(q, end, sizeof(end));
			return broken(q, end);
		}
		/* no control buffer: a descriptor sent along is never installed */
		if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
			why = "oversized, or with a descriptor";
		else if ((why = nsrec_check(r, (size_t)n, NSREC_TO_MONITOR)) == NULL && r->seq != q->seq)
			why = "out of sequence";
		if (why == NULL)
			return 0;
		snprintf(q->why, sizeof(q->why), "a malformed answer from the name-service child (%s)", why);
		return broken(q, q->why);
	}
}

/* A failure the child reported: the question fails, the child stays. */
static int reported(struct nsq *q, const struct nsrec *r)
{
	snprintf(q->why, sizeof(q->why), "the name service failed (%s)", r->a);
	return -1;
}

void nsq_groups_free(struct nsq_groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->name[i]);
	free(g->name);
	memset(g, 0, sizeof(*g));
}

static int add_group(struct nsq_groups *g, const struct nsrec *r, size_t *bytes)
{
	char **grown;

	*bytes += r->alen + 1;
	if (*bytes > NSQ_GROUP_BYTES_MAX)
		return -1;
	if (g->n == g->cap) {
		if ((grown = realloc(g->name, (g->cap ? g->cap * 2 : 16) * sizeof(*grown))) == NULL)
			return -1;
		g->name = grown;
		g->cap = g->cap ? g->cap * 2 : 16;
	}
	if ((g->name[g->n] = strdup(r->a)) == NULL)
		return -1;
	g->n++;
	return 0;
}

int nsq_groups(struct nsq *q, const char *user, int64_t deadline_ms, struct nsq_groups *g)
{
	struct nsrec r;
	size_t bytes = 0;

	memset(g, 0, sizeof(*g));
	if (q->failed)
		return -1;
	nsrec_init(&r, NSREQ_GROUPS, ++q->seq);
	if (nsrec_set(&r, 'a', user) < 0) {
		snprintf(q->why, sizeof(q->why), "the user name is longer than %u bytes", NSREC_TEXT_MAX);
		return -1;
	}
	if (ask(q, &r) < 0)
		return -1;
	for (;;) {
		if (answer(q, &r, deadline_ms) < 0)
			break;
		if (r.type == NSANS_GROUP && r.count == g->n && add_group(g, &r, &bytes) == 0)
			continue;
		if (r.type == NSANS_GROUP) {
			broken(q, r.count != g->n ? "the name-service child sent groups out of order"
				  : "more group names than the monitor keeps (8 MiB)");
			break;
		}
		if (r.type == NSANS_END && r.status == NS_OK && r.count == g->n)
			return 0;
		if (r.type == NSANS_END && r.status == NS_FAIL) {
			nsq_groups_free(g);
			return reported(q, &r);
		}
		broken(q, "an answer from the name-service child that does not fit the question");
		break;
	}
	nsq_groups_free(g);
	return -1;
}

int nsq_netgroup(struct nsq *q, const char *group, const char *host, int64_t deadline_ms)
{
	struct nsrec r;

	if (q->failed)
		return -1;
	nsrec_init(&r, NSREQ_NETGROUP, ++q->seq);
	if (nsrec_set(&r, 'a', group) < 0 || nsrec_set(&r, 'b', host) < 0) {
		snprintf(q->why, sizeof(q->why), "a name longer than %u bytes", NSREC_TEXT_MAX);
		return -1;
	}
	if (ask(q, &r) < 0 || answer(q, &r, deadline_ms) < 0)
		return -1;
	if (r.type != NSANS_NETGROUP)
		return broken(q, "an answer from the name-service child that does not fit the question");
	if (r.status == NS_FAIL)
		return reported(q, &r);
	return r.status == NS_IN;
}

void nsq_stop(struct nsq *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	if (q->pid > 0 && q->pidfd >= 0 && pidfd_send_signal(q->pidfd, SIGKILL, NULL, 0) == 0)
		while (wait4(q->pid, NULL, 0, NULL) < 0 && errno == EINTR)
			;
	else if (q->pid > 0)
		(void)wait4(q->pid, NULL, WNOHANG, NULL);
	if (q->pidfd >= 0)
		close(q->pidfd);
	q->pidfd = -1;
	q->pid = 0;
}
