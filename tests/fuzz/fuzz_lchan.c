/* SPDX-License-Identifier: ISC */
/* Fuzz the listener channel (src/priv/lchan.c and the listener's table of
 * requests, src/listener/sessions.c): records a hostile session monitor
 * sends the listener, answers a hostile listener sends a session, and the
 * validator alone.  The input is a sequence of operations, each one byte
 * and a 32-byte record:
 *   op & 3 == 0  session (op >> 2) & 3 (of three) sends the record to the
 *                listener, which serves it; bit 0x40 attaches a
 *                descriptor, bit 0x80 repairs magic, padding and sequence
 *                number first (so requests get past the framing)
 *   op & 3 == 1  a session asks for a slot and the record comes back as
 *                the answer (repaired likewise with 0x80)
 *   op & 3 == 2  the validator on the first 32 - (op >> 3 & 7) bytes, in
 *                either direction (bit 0x04)
 *   op & 3 == 3  session (op >> 2) & 3 is reaped and a new one takes its
 *                row (slots are freed only here)
 * Invariants: every answer the listener sends passes the validator; a
 * host never holds more sessions than max connections per host, a module
 * never more slots than its max connections; nothing leaks. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lchan.h"
#include "listener.h"
#include "log.h"

#define NSESS 3

static const char conf[] =
	"max connections per host = 2\n"
	"[one]\n\tpath = /srv/one\n\tmax connections = 1\n"
	"[free]\n\tpath = /srv/free\n"
	"[none]\n\tpath = /srv/none\n\tmax connections = -1\n";

static struct gen *gen;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[CFG_ERR_MAX];
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	log_use_fd(null);
	gen = calloc(1, sizeof(*gen));
	if (gen == NULL || cfg_parse("fuzz", conf, sizeof(conf) - 1, &gen->cfg, err, sizeof(err)) < 0)
		abort();
	gen->snap_fd = -1;
	gen->refs = 1; /* the "current" reference: never freed */
	return 0;
}

struct end {
	pid_t pid;
	int fd;            /* the fuzzer's end of the session's channel */
	uint32_t sent, rcvd;
};

static void add_session(struct sessions *t, struct end *e, pid_t pid, int v6)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	int sv[2];

	e->pid = pid;
	e->fd = -1;
	e->sent = e->rcvd = 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	(void)fcntl(sv[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(sv[1], F_SETFL, O_NONBLOCK);
	inet_pton(AF_INET, "127.0.0.1", &s4.sin_addr);
	inet_pton(AF_INET6, "::1", &s6.sin6_addr);
	if (sessions_add(t, pid, sv[0], gen, v6 ? (struct sockaddr *)&s6 : (struct sockaddr *)&s4,
			 v6 ? sizeof(s6) : sizeof(s4)) == NULL)
		abort();
	e->fd = sv[1];
}

static struct sess *find(struct sessions *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].pid == pid)
			return &t->s[i];
	return NULL;
}

static void repair(struct lchan_msg *m, uint32_t seq)
{
	m->magic = LCHAN_MAGIC;
	m->zero = 0;
	m->seq = seq;
}

static void send_rec(int fd, const struct lchan_msg *m, int with_fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int extra = with_fd ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;

	if (extra >= 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &extra, sizeof(int));
	}
	(void)sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (extra >= 0)
		close(extra);
}

/* Whatever the listener answered must be a valid answer. */
static void drain(struct end *e)
{
	struct lchan_msg m;
	const char *why;

	for (;;) {
		ssize_t n = recv(e->fd, &m, sizeof(m), MSG_DONTWAIT);

		if (n <= 0)
			return;
		if (lchan_check(&m, (size_t)n, LCHAN_TO_SESSION, ++e->rcvd, 0, &why) < 0)
			abort();
	}
}

static void check_limits(const struct sessions *t)
{
	int per_module[3] = { 0 }, v4 = 0, v6 = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct sess *s = &t->s[i];

		if (s->slot >= 0)
			per_module[s->slot]++;
		if (s->has_host && s->host_fam == 4)
			v4++;
		else if (s->has_host)
			v6++;
	}
	if (per_module[0] > 1 || per_module[2] > 0 || v4 > 2 || v6 > 2)
		abort();
}

static void ask(const struct lchan_msg *rec, int op)
{
	struct lchan c;
	struct lchan_msg req = { .type = (op & 0x20) ? LCHAN_HOST : LCHAN_SLOT }, m = *rec;
	struct lchan_answer a;
	const char *why = "";
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (op & 0x80)
		repair(&m, 1);
	send_rec(sv[1], &m, op & 0x40); /* there before the question: no wait */
	lchan_init(&c, sv[0]);
	if (lchan_ask(&c, &req, &a, 1000, &why) == 0 &&
	    (a.request != req.type || a.status < LCHAN_OK || a.status > LCHAN_REFUSED))
		abort();
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sessions t = { 0 };
	struct end e[NSESS];
	pid_t next = 100;
	const char *why;

	for (int i = 0; i < NSESS; i++)
		add_session(&t, &e[i], next++, i == 2);
	for (size_t off = 0; off + 1 + LCHAN_MSG_SIZE <= size; off += 1 + LCHAN_MSG_SIZE) {
		int op = data[off], k = (op >> 2) & 3;
		struct lchan_msg m;
		struct sess *s;

		memcpy(&m, data + off + 1, sizeof(m));
		if (k >= NSESS)
			k = 0;
		switch (op & 3) {
		case 0:
			s = find(&t, e[k].pid);
			if (op & 0x80)
				repair(&m, e[k].sent + 1);
			send_rec(e[k].fd, &m, op & 0x40);
			e[k].sent++;
			if (s->chan.fd >= 0)
				sessions_serve(&t, s);
			drain(&e[k]);
			break;
		case 1:
			ask(&m, op);
			break;
		case 2:
			(void)lchan_check(&m, LCHAN_MSG_SIZE - ((size_t)(op >> 3) & 7),
					  (op & 4) ? LCHAN_TO_SESSION : LCHAN_TO_LISTENER, m.seq,
					  gen->cfg.nmodules, &why);
			break;
		case 3:
			sessions_remove(&t, e[k].pid);
			close(e[k].fd);
			add_session(&t, &e[k], next++, k == 2);
			break;
		}
		check_limits(&t);
	}
	for (int i = 0; i < NSESS; i++) {
		sessions_remove(&t, e[i].pid);
		close(e[i].fd);
	}
	free(t.s);
	return 0;
}
