/* SPDX-License-Identifier: ISC */
/*
 * Framing for the monitor<->worker channel.  SOCK_SEQPACKET preserves record
 * boundaries, so a record is valid only if the kernel reports no truncation
 * and exactly the header plus the body length it states arrived; the
 * validator then checks that length against the type's and the content.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc.h"

/* Room for more descriptors than any type accepts, so extras are seen
 * (and closed) rather than silently truncated by the kernel. */
#define RECV_FDS_ROOM (PR_MSG_FDS_MAX + 4u)

void pr_ipc_init(struct pr_ipc *c, int fd, pr_msg_validator recv_check)
{
	c->fd = fd;
	c->recv_check = recv_check;
	c->send_seq = 0;
	c->recv_seq = 0;
}

int pr_ipc_send_fds(struct pr_ipc *c, struct pr_msg *m, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(PR_MSG_FDS_MAX * sizeof(int))];
	} ctl;
	/* The header and the body the type declares; a length beyond the
	 * union (only a test's forgery) is cut to it. */
	size_t len = sizeof(m->h) + (m->h.len <= PR_MSG_BODY_MAX ? m->h.len : PR_MSG_BODY_MAX);
	struct iovec iov = { .iov_base = m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = nfds ? CMSG_SPACE(nfds * sizeof(int)) : 0 };
	ssize_t n;

	if (nfds > PR_MSG_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	m->h.seq = ++c->send_seq;
	m->h.flags = (uint16_t)((m->h.flags & ~PR_F_FD) | (nfds ? PR_F_FD : 0));
	if (nfds > 0) { /* most records carry none: no control data to build */
		memset(&ctl, 0, sizeof(ctl));
		ctl.align = (struct cmsghdr){ .cmsg_len = CMSG_LEN(nfds * sizeof(int)),
					      .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS };
		memcpy(CMSG_DATA(&ctl.align), fds, nfds * sizeof(int));
	}
	do {
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n >= 0 && (size_t)n != len)
		errno = EMSGSIZE;
	return n >= 0 && (size_t)n == len ? 0 : -1;
}

int pr_ipc_send(struct pr_ipc *c, struct pr_msg *m, int fd_to_pass)
{
	return pr_ipc_send_fds(c, m, &fd_to_pass, fd_to_pass >= 0 ? 1 : 0);
}

/* Take every descriptor of a control buffer: the first `cap` into fds, the
 * rest closed.  Returns how many there were. */
static size_t take_fds(struct msghdr *mh, int *fds, size_t cap)
{
	size_t count = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		size_t nfd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (count < cap)
				fds[count] = fd;
			else
				close(fd);
			count++;
		}
	}
	return count;
}

static void close_all(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		close(fds[i]);
		fds[i] = -1;
	}
}

/* One record.  A unix socket whose peer closed with records of ours unread
 * reports ECONNRESET once, ahead of the records the peer sent before it
 * closed: those (a worker's last log line and exit status) are still
 * queued, so the reset is consumed and the read retried, once. */
static ssize_t recv_record(int fd, struct msghdr *mh)
{
	ssize_t n;

	for (int reset = 0;;) {
		n = recvmsg(fd, mh, MSG_CMSG_CLOEXEC);
		if (n >= 0 || (errno != EINTR && (errno != ECONNRESET || reset++)))
			return n;
	}
}

/* recvmsg returns 0 both for a closed peer and for an empty record; only
 * the hang-up flags tell them apart. */
static enum pr_ipc_result empty_record(int fd, const char **why)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP)))
		return PR_IPC_EOF;
	*why = "short record";
	return PR_IPC_INVALID;
}

/* Why a record of n bytes with nfds descriptors is invalid, or NULL (and
 * the sequence number taken) if it is not. */
static const char *check_record(struct pr_ipc *c, const struct pr_msg *m, ssize_t n,
				int msg_flags, size_t nfds, size_t cap)
{
	enum pr_msg_err e;

	if (msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return "oversized record or descriptor overflow";
	if ((size_t)n < sizeof(m->h))
		return "short record";
	if (m->h.len > PR_MSG_BODY_MAX)
		return pr_msg_strerror(PR_MSG_EBADLEN); /* no type has such a body */
	if ((size_t)n != sizeof(m->h) + m->h.len)
		return (size_t)n < sizeof(m->h) + m->h.len ? "short record" : "record longer than its header says";
	if (nfds > PR_MSG_FDS_MAX || nfds > cap)
		return cap <= 1 ? "more than one descriptor" : "too many descriptors";
	e = c->recv_check(m, (int)nfds);
	if (e != PR_MSG_OK)
		return pr_msg_strerror(e);
	if (m->h.seq != c->recv_seq + 1)
		return pr_msg_strerror(PR_MSG_EBADSEQ);
	c->recv_seq = m->h.seq;
	return NULL;
}

enum pr_ipc_result pr_ipc_recv_nofd(struct pr_ipc *c, struct pr_msg *m, const char **why)
{
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 }; /* no room for a descriptor */
	ssize_t n = recv_record(c->fd, &mh);

	*why = NULL;
	if (n < 0)
		return PR_IPC_ERR;
	if (mh.msg_flags & MSG_CTRUNC)
		*why = pr_msg_strerror(PR_MSG_EBADFD); /* the kernel dropped it */
	else if (n == 0)
		return empty_record(c->fd, why);
	else
		*why = check_record(c, m, n, mh.msg_flags, 0, 0);
	return *why ? PR_IPC_INVALID : PR_IPC_OK;
}

enum pr_ipc_result pr_ipc_recv_fds(struct pr_ipc *c, struct pr_msg *m, int *fds, size_t cap,
				   size_t *nfds_out, const char **why)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(RECV_FDS_ROOM * sizeof(int))];
	} ctl;
	int got[RECV_FDS_ROOM];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	ssize_t n = recv_record(c->fd, &mh);
	size_t nfds;

	*nfds_out = 0;
	*why = NULL;
	if (n < 0)
		return PR_IPC_ERR;
	nfds = take_fds(&mh, got, RECV_FDS_ROOM);
	if (n == 0 && nfds == 0)
		return empty_record(c->fd, why);
	*why = check_record(c, m, n, mh.msg_flags, nfds, cap);
	if (*why != NULL) {
		close_all(got, nfds < RECV_FDS_ROOM ? nfds : RECV_FDS_ROOM);
		return PR_IPC_INVALID;
	}
	memcpy(fds, got, nfds * sizeof(int));
	*nfds_out = nfds;
	return PR_IPC_OK;
}

enum pr_ipc_result pr_ipc_recv(struct pr_ipc *c, struct pr_msg *m, int *fd_out,
			       const char **why)
{
	size_t n;
	enum pr_ipc_result r = pr_ipc_recv_fds(c, m, fd_out, 1, &n, why);

	if (r != PR_IPC_OK || n == 0)
		*fd_out = -1;
	return r;
}

void pr_close_fds(const int *fds, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && fds[j] == fds[j - 1] + 1; j++)
			;
		if (j - i > 1 && fds[i] >= 0)
			close_range((unsigned)fds[i], (unsigned)fds[j - 1], 0);
		else
			for (size_t k = i; k < j; k++)
				close(fds[k]);
	}
}
