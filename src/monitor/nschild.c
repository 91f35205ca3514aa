/* SPDX-License-Identifier: ISC */
/*
 * The name-service child (nschild.h).  Every answer is one fixed record
 * (nsrec.h); every lookup error (as opposed to "no such entry") is sent as
 * a failure, never as an empty answer, so the monitor can refuse on it.
 */
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nschild.h"
#include "nsrec.h"
#include "policies.h"
#include "preconf.h"
#include "unpriv.h"

#define LOOKUP_BUF_MAX (1u << 20) /* a getpw*_r / getgr*_r buffer grows to this */

static int send_rec(int fd, const struct nsrec *r)
{
	ssize_t n;

	do
		n = send(fd, r, sizeof(*r), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*r) ? 0 : -1;
}

static int send_fail(int fd, enum nsrec_type type, uint32_t seq, const char *what, int err)
{
	struct nsrec r;
	char why[256];

	if (err)
		snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	else
		snprintf(why, sizeof(why), "%s", what);
	nsrec_init(&r, type, seq);
	r.status = NS_FAIL;
	nsrec_set(&r, 'a', why);
	return send_rec(fd, &r);
}

/* Room for one more try of a *_r call after ERANGE; -1 past the bound. */
static int grow(char **buf, size_t *cap)
{
	size_t n = *cap ? *cap * 2 : 1024;
	char *b;

	if (n > LOOKUP_BUF_MAX || (b = realloc(*buf, n)) == NULL)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

/* getpwnam_r (name set) or getpwuid_r: 1 found, 0 no such user, or a
 * lookup error as a negative errno value. */
static int get_user(const char *name, uid_t uid, struct passwd *pw, char **buf, size_t *cap)
{
	for (;;) {
		struct passwd *res = NULL;
		int rc = *cap == 0 ? ERANGE
			 : name ? getpwnam_r(name, pw, *buf, *cap, &res) : getpwuid_r(uid, pw, *buf, *cap, &res);

		if (rc == 0)
			return res != NULL;
		if (rc != ERANGE || grow(buf, cap) < 0)
			return -(rc ? rc : ENOMEM);
	}
}

static int get_group(gid_t gid, struct group *gr, char **buf, size_t *cap)
{
	for (;;) {
		struct group *res = NULL;
		int rc = *cap == 0 ? ERANGE : getgrgid_r(gid, gr, *buf, *cap, &res);

		if (rc == 0)
			return res != NULL;
		if (rc != ERANGE || grow(buf, cap) < 0)
			return -(rc ? rc : ENOMEM);
	}
}

/* The user's gids, primary first, as rsyncd's getallgroups() has them.
 * Their number, or -1 with *err (0: more than NSREC_GROUPS_MAX). */
static long user_gids(const struct passwd *pw, gid_t **out, int *err)
{
	int n = 64;
	gid_t *g = NULL, *grown;

	for (int tries = 0; tries < 4; tries++) {
		if (n < 1 || (unsigned)n > NSREC_GROUPS_MAX) {
			*err = 0;
			break;
		}
		if ((grown = realloc(g, (size_t)n * sizeof(*g))) == NULL) {
			*err = ENOMEM;
			break;
		}
		g = grown;
		if (getgrouplist(pw->pw_name, pw->pw_gid, g, &n) >= 0) {
			for (int i = 1; i < n; i++)
				if (g[i] == pw->pw_gid) { /* getgrouplist puts it first; rsyncd makes sure */
					g[i] = g[0];
					g[0] = pw->pw_gid;
				}
			*out = g;
			return n;
		}
		*err = EAGAIN; /* the list grew between two calls */
	}
	free(g);
	return -1;
}

static int answer_groups(int fd, const struct nsrec *q)
{
	struct passwd pw;
	struct group gr;
	char *pbuf = NULL, *gbuf = NULL;
	size_t pcap = 0, gcap = 0;
	gid_t *gids = NULL;
	long n = 0;
	uint32_t sent = 0;
	int rc, err = 0;
	struct nsrec r;

	/* rsyncd: the user by name, then the entry of its uid */
	rc = get_user(q->a, 0, &pw, &pbuf, &pcap);
	if (rc == 1)
		rc = get_user(NULL, pw.pw_uid, &pw, &pbuf, &pcap);
	if (rc < 0) {
		rc = send_fail(fd, NSANS_END, q->seq, "looking the user up", -rc);
		goto out;
	}
	if (rc == 1 && (n = user_gids(&pw, &gids, &err)) < 0) {
		rc = send_fail(fd, NSANS_END, q->seq, err ? "getgrouplist" : "more groups than NGROUPS_MAX (65536)", err);
		goto out;
	}
	rc = 0;
	for (long i = 0; i < n && rc == 0; i++) {
		int g = get_group(gids[i], &gr, &gbuf, &gcap);

		if (g < 0) {
			rc = send_fail(fd, NSANS_END, q->seq, "getgrgid", -g) < 0 ? -1 : 1;
			break;
		}
		if (g == 0)
			continue; /* a gid without a name: rsyncd leaves it out */
		nsrec_init(&r, NSANS_GROUP, q->seq);
		r.count = sent++;
		if (nsrec_set(&r, 'a', gr.gr_name) < 0) {
			rc = send_fail(fd, NSANS_END, q->seq, "a group name longer than 1024 bytes", 0) < 0 ? -1 : 1;
			break;
		}
		rc = send_rec(fd, &r);
	}
	if (rc == 0) {
		nsrec_init(&r, NSANS_END, q->seq);
		r.status = NS_OK;
		r.count = sent;
		rc = send_rec(fd, &r);
	}
	rc = rc < 0 ? -1 : 0;
out:
	free(pbuf);
	free(gbuf);
	free(gids);
	return rc;
}

/* innetgr cannot tell an error from "not a member": glibc's answer is
 * taken as it is (rsyncd takes it too). */
static int answer_netgroup(int fd, const struct nsrec *q)
{
	struct nsrec r;

	nsrec_init(&r, NSANS_NETGROUP, q->seq);
	r.status = innetgr(q->a, q->b, NULL, NULL) == 1 ? NS_IN : NS_NOTIN;
	return send_rec(fd, &r);
}

int nschild_serve(int fd)
{
	for (;;) {
		struct nsrec q;
		struct iovec iov = { &q, sizeof(q) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
		    nsrec_check(&q, (size_t)n, NSREC_TO_CHILD) != NULL)
			return -1;
		if ((q.type == NSREQ_GROUPS ? answer_groups(fd, &q) : answer_netgroup(fd, &q)) < 0)
			return -1;
	}
}

/* Exit statuses the monitor reports (nsquery.c): where confinement failed. */
void nschild_run(int fd, int drop, uid_t uid, gid_t gid)
{
	const char *why;
	char err[256];
	int ll;

	if ((fd = unpriv_begin(fd, "prsyncd-nsq")) < 0)
		_exit(NSCHILD_EXIT_BEGIN);
	if (unpriv_drop(drop, uid, gid, &why) < 0)
		_exit(NSCHILD_EXIT_DROP);
	if (landlock_readonly(&ll, err, sizeof(err)) < 0 ||
	    pr_policy_load_with(&pr_policy_nschild, MONITOR_POLICY_EXTRA, err, sizeof(err)) < 0)
		_exit(NSCHILD_EXIT_FILTER);
	_exit(nschild_serve(fd) == 0 ? 0 : NSCHILD_EXIT_PROTOCOL);
}
