/* SPDX-License-Identifier: ISC */
/*
 * The session monitor's side of its name-service child (nschild.h): the
 * questions whose answers depend on the client, asked after the monitor
 * has confined itself, each within a deadline.
 *
 * A question fails (and says why in q->why) when the child reports a
 * lookup error, when no answer arrives in time, when an answer is
 * malformed, out of sequence or over a bound, or when the child is gone.
 * The caller then refuses as the rule demands (a @group :deny rule or a
 * netgroup in "hosts deny" counts as matching, an allow rule does not
 * admit) and logs it.  After anything but a reported lookup error the
 * child is ended and every later question fails at once.
 *
 * Calls: poll, sendmsg(MSG_NOSIGNAL), recvmsg(MSG_CMSG_CLOEXEC) on the
 * channel, pidfd_send_signal(SIGKILL) and wait4 for the child, read of
 * /dev/kmsg for a seccomp kill: all in policy/preselect.policy.
 */
#ifndef PRSYNCD_NSQUERY_H
#define PRSYNCD_NSQUERY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of group names kept for one user (names of NSREC_TEXT_MAX bytes
 * at most, NSREC_GROUPS_MAX of them): more is a failure. */
#define NSQ_GROUP_BYTES_MAX (8u << 20)
/* How long one access or auth decision may wait for the child. */
#define NSQ_TIMEOUT_MS 10000

struct nsq {
	pid_t pid;        /* the child; 0: none (never started, or reaped) */
	int pidfd, fd;    /* -1: none */
	int kmsg_fd;      /* /dev/kmsg, for a seccomp kill's syscall (not owned); -1 */
	uint32_t seq;
	int failed;       /* gone or misbehaved: every question fails */
	char why[256];    /* the last failure */
};

struct nsq_groups {
	size_t n, cap;
	char **name;      /* in the child's order: the primary group first */
};

/* An nsq without a child: every question fails with why. */
void nsq_init(struct nsq *q, const char *why);

/* Fork the child (before the monitor confines itself).  drop: give it
 * uid/gid (the monitor runs as root).  0, or -1 (logged; every question
 * then fails). */
int nsq_start(struct nsq *q, int drop, uid_t uid, gid_t gid, int kmsg_fd);

/* Use fd (a SOCK_SEQPACKET socket whose other end answers as the child
 * would) instead of a child: tests. */
void nsq_attach(struct nsq *q, int fd);

/* The groups of user, as rsyncd finds them (an unknown user has none).
 * 0 with g filled (nsq_groups_free), or -1 (q->why). */
int nsq_groups(struct nsq *q, const char *user, int64_t deadline_ms, struct nsq_groups *g);
void nsq_groups_free(struct nsq_groups *g);

/* Is host in netgroup group?  1, 0, or -1 (q->why). */
int nsq_netgroup(struct nsq *q, const char *group, const char *host, int64_t deadline_ms);

/* End the child (SIGKILL through its pidfd, reaped) and close the
 * channel: once no more questions can come, and before the monitor
 * gives up the right to signal it. */
void nsq_stop(struct nsq *q);

#endif
