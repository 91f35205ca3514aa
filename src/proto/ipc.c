/*
 * Framing for the monitor<->worker channel.  SOCK_SEQPACKET preserves record
 * boundaries, so a record is valid only if exactly PR_MSG_SIZE bytes arrive
 * and the kernel reports no truncation; the validator then checks content.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc.h"

void pr_ipc_init(struct pr_ipc *c, int fd, enum pr_msg_dir recv_dir)
{
	c->fd = fd;
	c->recv_dir = recv_dir;
	c->send_seq = 0;
	c->recv_seq = 0;
}

int pr_ipc_send(struct pr_ipc *c, struct pr_msg *m, int fd_to_pass)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	m->h.seq = ++c->send_seq;
	m->h.flags &= (uint16_t)~PR_F_FD;
	if (fd_to_pass >= 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd_to_pass, sizeof(int));
		m->h.flags |= PR_F_FD;
	}
	do {
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != sizeof(*m)) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* Close every descriptor in a control buffer; returns how many there were. */
static int take_fds(struct msghdr *mh, int *first)
{
	int count = 0;

	*first = -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		size_t nfd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*first < 0)
				*first = fd;
			else
				close(fd);
			count++;
		}
	}
	return count;
}

enum pr_ipc_result pr_ipc_recv(struct pr_ipc *c, struct pr_msg *m, int *fd_out,
			       const char **why)
{
	union {
		struct cmsghdr align;
		/* room for more than we accept, so extras are seen and closed */
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	enum pr_msg_err e;
	ssize_t n;
	int fd, nfds;

	*fd_out = -1;
	*why = NULL;
	do {
		n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return PR_IPC_ERR;
	nfds = take_fds(&mh, &fd);
	if (n == 0 && nfds == 0) {
		/* recvmsg returns 0 both for a closed peer and for an empty
		 * record; only the hang-up flags tell them apart. */
		struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };

		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP)))
			return PR_IPC_EOF;
		*why = "short record";
		return PR_IPC_INVALID;
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		*why = "oversized record or descriptor overflow";
		goto invalid;
	}
	if ((size_t)n != sizeof(*m)) {
		*why = "short record";
		goto invalid;
	}
	if (nfds > 1) {
		*why = "more than one descriptor";
		goto invalid;
	}
	e = pr_msg_validate(m, c->recv_dir, nfds == 1);
	if (e != PR_MSG_OK) {
		*why = pr_msg_strerror(e);
		goto invalid;
	}
	if (m->h.seq != c->recv_seq + 1) {
		*why = pr_msg_strerror(PR_MSG_EBADSEQ);
		goto invalid;
	}
	c->recv_seq = m->h.seq;
	*fd_out = fd;
	return PR_IPC_OK;
invalid:
	if (fd >= 0)
		close(fd);
	return PR_IPC_INVALID;
}
