/* SPDX-License-Identifier: ISC */
/*
 * The name-service channel, from both ends and hostile on each:
 *   - the monitor's side (src/monitor/nsquery.c) against a fake child that
 *     answers malformed, out-of-sequence, out-of-place, oversized records,
 *     a descriptor, too many groups, too late or not at all: every
 *     question fails (never a partial answer), the child is given up, and
 *     later questions fail at once; a failure the child reports fails
 *     the question only;
 *   - the child's side (nschild.c) against malformed requests: it stops;
 *     against good ones it answers as rsyncd finds groups and netgroups;
 *   - the real child, forked and confined as in a session: it runs as
 *     the worker user's ids (root mode) with no capability, no_new_privs,
 *     not dumpable, under its seccomp filter, and answers.
 */
#include "nschild.h"
#include "nsquery.h"
#include "nsrec.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monotime.h"

static int pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}

static void put(int fd, const struct nsrec *r)
{
	CHECK(send(fd, r, sizeof(*r), MSG_NOSIGNAL) == (ssize_t)sizeof(*r));
}

static struct nsrec rec(enum nsrec_type type, uint32_t seq, uint32_t status, uint32_t count, const char *a)
{
	struct nsrec r;

	nsrec_init(&r, type, seq);
	r.status = status;
	r.count = count;
	if (a != NULL)
		nsrec_set(&r, 'a', a);
	return r;
}

/* A fresh monitor side on a fake child (fake[1] is the child's end). */
static void fresh(struct nsq *q, int fake[2])
{
	CHECK(pair(fake) == 0);
	nsq_attach(q, fake[0]);
}

static int ask_groups(struct nsq *q, struct nsq_groups *g, int ms)
{
	return nsq_groups(q, "alice", now_ms() + ms, g);
}

static void test_monitor_side(void)
{
	struct nsq q;
	struct nsq_groups g;
	struct nsrec r;
	int fake[2];

	/* a good answer: two groups, the end */
	fresh(&q, fake);
	r = rec(NSANS_GROUP, 1, 0, 0, "staff"); put(fake[1], &r);
	r = rec(NSANS_GROUP, 1, 0, 1, "contractors"); put(fake[1], &r);
	r = rec(NSANS_END, 1, NS_OK, 2, NULL); put(fake[1], &r);
	CHECK(ask_groups(&q, &g, 1000) == 0 && g.n == 2 && strcmp(g.name[1], "contractors") == 0);
	nsq_groups_free(&g);
	/* a failure the child reports: this question fails, the next works */
	r = rec(NSANS_END, 2, NS_FAIL, 0, "getgrgid: Permission denied"); put(fake[1], &r);
	CHECK(ask_groups(&q, &g, 1000) < 0 && !q.failed && strstr(q.why, "Permission denied") != NULL);
	r = rec(NSANS_NETGROUP, 3, NS_IN, 0, NULL); put(fake[1], &r);
	CHECK(nsq_netgroup(&q, "trusted", "host.example", now_ms() + 1000) == 1);
	r = rec(NSANS_NETGROUP, 4, NS_FAIL, 0, "x"); put(fake[1], &r);
	CHECK(nsq_netgroup(&q, "trusted", "host.example", now_ms() + 1000) < 0 && !q.failed);
	/* the requests the fake child received are well formed */
	for (int i = 1; i <= 4; i++) {
		struct nsrec in;
		ssize_t n = recv(fake[1], &in, sizeof(in), MSG_DONTWAIT);

		CHECK(nsrec_check(&in, (size_t)n, NSREC_TO_CHILD) == NULL && in.seq == (uint32_t)i);
	}
	nsq_stop(&q);
	close(fake[1]);

	/* hostile answers: each fails the question and gives the child up */
	{
		struct { const char *name; struct nsrec r; size_t len; } bad[] = {
			{ "short", rec(NSANS_END, 1, NS_OK, 0, NULL), 20 },
			{ "magic", rec(NSANS_END, 1, NS_OK, 0, NULL), sizeof(struct nsrec) },
			{ "seq", rec(NSANS_END, 7, NS_OK, 0, NULL), sizeof(struct nsrec) },
			{ "type", rec(NSANS_NETGROUP, 1, NS_IN, 0, NULL), sizeof(struct nsrec) },
			{ "request", rec(NSREQ_GROUPS, 1, 0, 0, "x"), sizeof(struct nsrec) },
			{ "count", rec(NSANS_GROUP, 1, 0, 5, "g"), sizeof(struct nsrec) },
			{ "end count", rec(NSANS_END, 1, NS_OK, 3, NULL), sizeof(struct nsrec) },
			{ "empty group", rec(NSANS_GROUP, 1, 0, 0, NULL), sizeof(struct nsrec) },
			{ "status", rec(NSANS_END, 1, 9, 0, NULL), sizeof(struct nsrec) },
		};

		bad[1].r.magic ^= 1;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			fresh(&q, fake);
			CHECK(send(fake[1], &bad[i].r, bad[i].len, MSG_NOSIGNAL) == (ssize_t)bad[i].len);
			CHECK_MSG(ask_groups(&q, &g, 1000) < 0 && q.failed && g.n == 0, "%s", bad[i].name);
			CHECK_MSG(nsq_netgroup(&q, "x", "y", now_ms() + 1000) < 0, "%s: later questions fail", bad[i].name);
			close(fake[1]);
		}
	}
	/* a text field with bytes after its length */
	fresh(&q, fake);
	r = rec(NSANS_GROUP, 1, 0, 0, "staff");
	r.a[10] = 'x';
	put(fake[1], &r);
	CHECK(ask_groups(&q, &g, 1000) < 0 && q.failed && strstr(q.why, "malformed") != NULL);
	close(fake[1]);
	/* oversized: cut by the socket, refused */
	fresh(&q, fake);
	{
		char big[sizeof(struct nsrec) + 64] = { 0 };

		r = rec(NSANS_END, 1, NS_OK, 0, NULL);
		memcpy(big, &r, sizeof(r));
		CHECK(send(fake[1], big, sizeof(big), 0) == (ssize_t)sizeof(big));
		CHECK(ask_groups(&q, &g, 1000) < 0 && q.failed);
	}
	close(fake[1]);
	/* a descriptor along with a good record: refused, never installed */
	fresh(&q, fake);
	{
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), before = dup(0), after, mine = fake[0];
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
		struct iovec iov = { &r, sizeof(r) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		close(before);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &devnull, sizeof(int));
		r = rec(NSANS_END, 1, NS_OK, 0, NULL);
		CHECK(sendmsg(fake[1], &mh, 0) == (ssize_t)sizeof(r));
		CHECK(ask_groups(&q, &g, 1000) < 0 && q.failed && strstr(q.why, "descriptor") != NULL);
		after = dup(0); /* the lowest free: ours (closed with the child given up) or the one before */
		CHECK(after == (mine < before ? mine : before)); /* no descriptor was left behind */
		close(after);
		close(devnull);
	}
	close(fake[1]);
	/* silence: the deadline fails the question */
	fresh(&q, fake);
	{
		int64_t t0 = now_ms();

		CHECK(ask_groups(&q, &g, 300) < 0 && q.failed && strstr(q.why, "in time") != NULL);
		CHECK(now_ms() - t0 >= 300 && now_ms() - t0 < 3000);
	}
	close(fake[1]);
	/* the child gone */
	fresh(&q, fake);
	close(fake[1]);
	CHECK(ask_groups(&q, &g, 1000) < 0 && q.failed);
	/* volume: more group names than the monitor keeps */
	fresh(&q, fake);
	{
		static char name[NSREC_TEXT_MAX + 1];
		int got;

		memset(name, 'g', NSREC_TEXT_MAX);
		CHECK(fcntl(fake[1], F_SETFL, O_NONBLOCK) == 0);
		/* the socket holds a few; the rest is sent by a helper process */
		pid_t pid = fork();

		if (pid == 0) {
			close(fake[0]);
			(void)fcntl(fake[1], F_SETFL, 0);
			for (uint32_t i = 0; i < NSREC_GROUPS_MAX; i++) {
				struct nsrec x = rec(NSANS_GROUP, 1, 0, i, name);

				if (send(fake[1], &x, sizeof(x), MSG_NOSIGNAL) < 0)
					_exit(0);
			}
			_exit(0);
		}
		got = ask_groups(&q, &g, 20000);
		CHECK(got < 0 && q.failed && strstr(q.why, "8 MiB") != NULL);
		close(fake[1]);
		waitpid(pid, NULL, 0);
	}
	/* a user name that cannot be asked */
	fresh(&q, fake);
	{
		static char user[NSREC_TEXT_MAX + 2];

		memset(user, 'u', NSREC_TEXT_MAX + 1);
		CHECK(nsq_groups(&q, user, now_ms() + 1000, &g) < 0 && strstr(q.why, "longer") != NULL);
	}
	nsq_stop(&q);
	close(fake[1]);
	/* no child at all */
	nsq_init(&q, "none here");
	CHECK(ask_groups(&q, &g, 1000) < 0 && strcmp(q.why, "none here") == 0);
	CHECK(nsq_netgroup(&q, "a", "b", now_ms() + 1000) < 0);
}

/* The child's loop, unconfined, against requests written here. */
static int serve_one(const void *req, size_t len, struct nsrec *ans, size_t nans)
{
	int sv[2], st;
	size_t got = 0;
	pid_t pid;

	if (pair(sv) < 0)
		return -9;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(nschild_serve(sv[1]) == 0 ? 0 : 1);
	}
	close(sv[1]);
	if (send(sv[0], req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -8;
	/* until the answer's last record (or the child's end) */
	while (got < nans && recv(sv[0], &ans[got], sizeof(ans[0]), 0) == (ssize_t)sizeof(ans[0]))
		if (ans[got++].type != NSANS_GROUP)
			break;
	shutdown(sv[0], SHUT_WR);
	waitpid(pid, &st, 0);
	close(sv[0]);
	return WIFEXITED(st) ? WEXITSTATUS(st) * 100 + (int)got : -7;
}

static void test_child_side(void)
{
	struct nsrec q, a[64];
	struct passwd *pw = getpwuid(0);
	struct group *gr = getgrgid(pw->pw_gid);
	int rc;

	/* malformed requests: the child stops (exit 1) without an answer */
	q = rec(NSREQ_GROUPS, 1, 0, 0, "root");
	CHECK(serve_one(&q, 10, a, 1) == 100);
	q.magic = 0;
	CHECK(serve_one(&q, sizeof(q), a, 1) == 100);
	q = rec(NSANS_END, 1, NS_OK, 0, NULL);                 /* an answer type as a request */
	CHECK(serve_one(&q, sizeof(q), a, 1) == 100);
	q = rec(NSREQ_NETGROUP, 1, 0, 0, NULL);                /* no netgroup */
	CHECK(serve_one(&q, sizeof(q), a, 1) == 100);
	q = rec(NSREQ_GROUPS, 1, 1, 0, "root");                /* a status in a request */
	CHECK(serve_one(&q, sizeof(q), a, 1) == 100);
	/* good ones */
	q = rec(NSREQ_GROUPS, 5, 0, 0, "root");
	rc = serve_one(&q, sizeof(q), a, 64);
	CHECK(rc >= 2 && rc < 100);
	CHECK(a[0].type == NSANS_GROUP && a[0].seq == 5 && strcmp(a[0].a, gr->gr_name) == 0); /* primary first */
	CHECK(a[rc - 1].type == NSANS_END && a[rc - 1].status == NS_OK && a[rc - 1].count == (uint32_t)rc - 1);
	q = rec(NSREQ_GROUPS, 6, 0, 0, "no-such-user-prsyncd");
	CHECK(serve_one(&q, sizeof(q), a, 2) == 1 && a[0].type == NSANS_END && a[0].status == NS_OK && a[0].count == 0);
	q = rec(NSREQ_NETGROUP, 7, 0, 0, "no-such-netgroup");
	nsrec_set(&q, 'b', "host.example");
	CHECK(serve_one(&q, sizeof(q), a, 2) == 1 && a[0].type == NSANS_NETGROUP && a[0].status == NS_NOTIN);
}

/* The real child, as a session starts it. */
static void test_confined_child(void)
{
	struct nsq q;
	struct nsq_groups g;
	char path[64], line[256];
	int seccomp = -1, nnp = -1, uid = -1, capeff = -1, dumpable;
	FILE *f;

	if (geteuid() != 0) {
		printf("test_nschannel: not root, the confined child is not tried\n");
		return;
	}
	CHECK(nsq_start(&q, 1, 65534, 65534, -1) == 0);
	CHECK(nsq_groups(&q, "root", now_ms() + 10000, &g) == 0 && g.n >= 1 && strcmp(g.name[0], "root") == 0);
	nsq_groups_free(&g);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)q.pid);
	f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "Seccomp: %d", &seccomp);
		sscanf(line, "NoNewPrivs: %d", &nnp);
		sscanf(line, "Uid: %d", &uid);
		if (strncmp(line, "CapEff:", 7) == 0 || strncmp(line, "CapPrm:", 7) == 0 || strncmp(line, "CapBnd:", 7) == 0)
			capeff = (capeff > 0 ? capeff : 0) + (strtoull(line + 8, NULL, 16) != 0);
	}
	if (f != NULL)
		fclose(f);
	dumpable = 0;
	CHECK(seccomp == 2 && nnp == 1 && uid == 65534 && capeff == 0);
	/* not dumpable: /proc/PID/mem is root's, not the child's uid's */
	{
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)q.pid);
		dumpable = stat(path, &st) == 0 && st.st_uid == 65534;
		CHECK(!dumpable);
	}
	CHECK(nsq_netgroup(&q, "no-such-netgroup", "localhost", now_ms() + 10000) >= 0);
	nsq_stop(&q);
	CHECK(q.pid == 0 && q.fd < 0);
	/* a child killed mid-session: its questions fail, it is reaped */
	CHECK(nsq_start(&q, 1, 65534, 65534, -1) == 0);
	kill(q.pid, SIGKILL);
	CHECK(nsq_groups(&q, "root", now_ms() + 5000, &g) < 0 && q.failed && strstr(q.why, "signal 9") != NULL);
	CHECK(q.pid == 0);
	nsq_stop(&q);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_monitor_side();
	test_child_side();
	test_confined_child();
	return unit_done("test_nschannel");
}
