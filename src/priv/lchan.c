/* SPDX-License-Identifier: ISC */
/*
 * The session<->listener channel (format and rules in lchan.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lchan.h"
#include "monotime.h"

struct lchan_type_row {
	uint16_t type;
	enum lchan_dir dir;
	size_t body;
	const char *(*check)(const struct lchan_msg *m, size_t nmodules);
};

static const char *check_host(const struct lchan_msg *m, size_t nmodules)
{
	const struct lchan_host *h = &m->u.host;
	static const uint8_t zero[12];

	if (h->family != 4 && h->family != 6)
		return "HOST: family is not 4 or 6";
	if (h->proxied > 1)
		return "HOST: proxied is not 0 or 1";
	if (h->zero[0] || h->zero[1])
		return "HOST: padding not zero";
	if (h->family == 4 && memcmp(h->addr + 4, zero, sizeof(zero)) != 0)
		return "HOST: IPv4 address with bytes past the fourth";
	return NULL;
}

static const char *check_slot(const struct lchan_msg *m, size_t nmodules)
{
	return m->u.slot.module < nmodules ? NULL : "SLOT: module index out of range";
}

static const char *check_answer(const struct lchan_msg *m, size_t nmodules)
{
	const struct lchan_answer *a = &m->u.answer;

	if (a->request != LCHAN_HOST && a->request != LCHAN_SLOT)
		return "ANSWER: unknown request type";
	if (a->status < LCHAN_OK || a->status > LCHAN_REFUSED)
		return "ANSWER: unknown status";
	if (a->status != LCHAN_FULL && a->limit != 0)
		return "ANSWER: a limit without FULL";
	return NULL;
}

static const struct lchan_type_row types[] = {
	{ LCHAN_HOST, LCHAN_TO_LISTENER, sizeof(struct lchan_host), check_host },
	{ LCHAN_SLOT, LCHAN_TO_LISTENER, sizeof(struct lchan_slot), check_slot },
	{ LCHAN_ANSWER, LCHAN_TO_SESSION, sizeof(struct lchan_answer), check_answer },
};

void lchan_init(struct lchan *c, int fd)
{
	c->fd = fd;
	c->sent = 0;
	c->rcvd = 0;
}

int lchan_check(const struct lchan_msg *m, size_t n, enum lchan_dir dir, uint32_t seq,
		size_t nmodules, const char **why)
{
	const struct lchan_type_row *row = NULL;
	const uint8_t *raw = m->u.raw;

	if (n != LCHAN_MSG_SIZE) {
		*why = "record of the wrong size";
		return -1;
	}
	if (m->magic != LCHAN_MAGIC || m->zero != 0) {
		*why = "bad magic or header padding";
		return -1;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == m->type)
			row = &types[i];
	if (row == NULL || row->dir != dir) {
		*why = row ? "message type sent in the wrong direction" : "unknown message type";
		return -1;
	}
	if (m->seq != seq) {
		*why = "sequence number out of order";
		return -1;
	}
	for (size_t i = row->body; i < sizeof(m->u.raw); i++) {
		if (raw[i] != 0) {
			*why = "bytes after the body not zero";
			return -1;
		}
	}
	if ((*why = row->check(m, nmodules)) != NULL)
		return -1;
	return 0;
}

int lchan_send(struct lchan *c, struct lchan_msg *m)
{
	ssize_t n;

	m->magic = LCHAN_MAGIC;
	m->zero = 0;
	m->seq = ++c->sent;
	do {
		n = send(c->fd, m, sizeof(*m), MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != sizeof(*m)) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

ssize_t lchan_recv(struct lchan *c, struct lchan_msg *m, const char **why)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	int fds = 0;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	do {
		n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			close(fd);
			fds++;
		}
	}
	if (fds || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		*why = fds ? "a record carried a descriptor" : "record too long";
		return -2;
	}
	if (n == 0) {
		/* A zero-length record is not a hang-up unless poll says so. */
		struct pollfd p = { .fd = c->fd, .events = POLLIN };

		if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))
			return 0;
		*why = "empty record";
		return -2;
	}
	return n;
}

int lchan_ask(struct lchan *c, struct lchan_msg *req, struct lchan_answer *ans,
	      int timeout_ms, const char **why)
{
	int64_t end = now_ms() + timeout_ms;
	struct lchan_msg m;
	ssize_t n;

	if (c->fd < 0) {
		*why = "no channel to the listener";
		return -1;
	}
	if (lchan_send(c, req) < 0) {
		*why = "cannot send to the listener";
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int64_t left = end - now_ms();

		if (left <= 0) {
			*why = "the listener did not answer";
			return -1;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			*why = "poll on the listener channel failed";
			return -1;
		}
		n = lchan_recv(c, &m, why);
		if (n == -1 && errno == EAGAIN)
			continue;
		if (n == 0 || n == -1) {
			*why = "the listener closed the channel";
			return -1;
		}
		if (n < 0)
			return -1;
		if (lchan_check(&m, (size_t)n, LCHAN_TO_SESSION, c->rcvd + 1, 0, why) < 0)
			return -1;
		c->rcvd++;
		if (m.u.answer.request != req->type) {
			*why = "the listener answered another request";
			return -1;
		}
		*ans = m.u.answer;
		return 0;
	}
}

int lchan_addr_key(const struct sockaddr *sa, socklen_t len, uint8_t *family, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;

		*family = 4;
		memcpy(addr, &s4->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			*family = 4;
			memcpy(addr, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			*family = 6;
			memcpy(addr, s6->sin6_addr.s6_addr, 16);
		}
		return 0;
	}
	return -1;
}
