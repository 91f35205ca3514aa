/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the session<->listener channel: the validator refuses
 * every malformed record (src/priv/lchan.c), and the listener's table
 * (src/listener/sessions.c) counts, refuses and frees slots as documented,
 * whatever a hostile session sends.
 */
#include "lchan.h"
#include "listener.h"
#include "unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct lchan_msg mk(uint16_t type, uint32_t seq)
{
	struct lchan_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = LCHAN_MAGIC;
	m.type = type;
	m.seq = seq;
	return m;
}

static int ok(const struct lchan_msg *m, enum lchan_dir d)
{
	const char *why = NULL;

	return lchan_check(m, sizeof(*m), d, 1, 4, &why) == 0;
}

static void test_validator(void)
{
	struct lchan_msg m = mk(LCHAN_HOST, 1);
	const char *why;

	m.u.host.family = 4;
	CHECK(ok(&m, LCHAN_TO_LISTENER));
	CHECK(!ok(&m, LCHAN_TO_SESSION));                       /* direction */
	CHECK(lchan_check(&m, sizeof(m) - 1, LCHAN_TO_LISTENER, 1, 4, &why) < 0);
	CHECK(lchan_check(&m, sizeof(m), LCHAN_TO_LISTENER, 2, 4, &why) < 0 && strstr(why, "sequence"));
	m.magic ^= 1;
	CHECK(!ok(&m, LCHAN_TO_LISTENER));
	m.magic ^= 1;
	m.zero = 1;
	CHECK(!ok(&m, LCHAN_TO_LISTENER));
	m.zero = 0;
	for (unsigned f = 0; f < 256; f++) {
		m.u.host.family = (uint8_t)f;
		CHECK(ok(&m, LCHAN_TO_LISTENER) == (f == 4 || f == 6));
	}
	m.u.host.family = 4;
	m.u.host.proxied = 2;
	CHECK(!ok(&m, LCHAN_TO_LISTENER));
	m.u.host.proxied = 1;
	CHECK(ok(&m, LCHAN_TO_LISTENER));
	m.u.host.zero[1] = 1;
	CHECK(!ok(&m, LCHAN_TO_LISTENER));
	m.u.host.zero[1] = 0;
	for (int i = 4; i < 16; i++) {
		m.u.host.addr[i] = 1;
		CHECK_MSG(!ok(&m, LCHAN_TO_LISTENER), "IPv4 byte %d", i);
		m.u.host.family = 6;
		CHECK(ok(&m, LCHAN_TO_LISTENER));
		m.u.host.family = 4;
		m.u.host.addr[i] = 0;
	}
	for (unsigned t = 0; t < 70; t++) {
		struct lchan_msg u = mk((uint16_t)t, 1);

		if (t == LCHAN_HOST || t == LCHAN_SLOT || t == LCHAN_ANSWER)
			continue;
		CHECK(!ok(&u, LCHAN_TO_LISTENER) && !ok(&u, LCHAN_TO_SESSION));
	}

	m = mk(LCHAN_SLOT, 1);
	for (uint32_t i = 0; i < 6; i++) {
		m.u.slot.module = i;
		CHECK(ok(&m, LCHAN_TO_LISTENER) == (i < 4));
	}
	m.u.slot.module = 0xffffffffu;
	CHECK(!ok(&m, LCHAN_TO_LISTENER));
	m.u.slot.module = 0;
	for (size_t i = sizeof(m.u.slot); i < sizeof(m.u.raw); i++) {
		m.u.raw[i] = 0x80;
		CHECK_MSG(!ok(&m, LCHAN_TO_LISTENER), "slot trailing byte %zu", i);
		m.u.raw[i] = 0;
	}

	m = mk(LCHAN_ANSWER, 1);
	m.u.answer.request = LCHAN_SLOT;
	m.u.answer.status = LCHAN_OK;
	CHECK(ok(&m, LCHAN_TO_SESSION) && !ok(&m, LCHAN_TO_LISTENER));
	m.u.answer.limit = 3;
	CHECK(!ok(&m, LCHAN_TO_SESSION));
	m.u.answer.status = LCHAN_FULL;
	CHECK(ok(&m, LCHAN_TO_SESSION));
	m.u.answer.status = 0;
	CHECK(!ok(&m, LCHAN_TO_SESSION));
	m.u.answer.status = 4;
	CHECK(!ok(&m, LCHAN_TO_SESSION));
	m.u.answer.status = LCHAN_FULL;
	m.u.answer.request = LCHAN_ANSWER;
	CHECK(!ok(&m, LCHAN_TO_SESSION));
}

/* Framing: a descriptor or an oversized record is refused. */
static void test_framing(void)
{
	int sv[2];
	struct lchan a, b;
	struct lchan_msg m = mk(LCHAN_SLOT, 0), r;
	const char *why = NULL;
	char big[64] = { 0 };

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	lchan_init(&a, sv[0]);
	lchan_init(&b, sv[1]);
	CHECK(lchan_send(&a, &m) == 0 && m.seq == 1);
	CHECK(lchan_recv(&b, &r, &why) == (ssize_t)sizeof(r) && r.type == LCHAN_SLOT);
	CHECK(lchan_recv(&b, &r, &why) == -1 && errno == EAGAIN);
	CHECK(send(sv[0], big, sizeof(big), 0) == sizeof(big));
	CHECK(lchan_recv(&b, &r, &why) == -2 && strstr(why, "too long"));
	{
		union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		int fd = 0;

		memset(&ctl, 0, sizeof(ctl));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		CHECK(sendmsg(sv[0], &mh, 0) == (ssize_t)sizeof(m));
		CHECK(lchan_recv(&b, &r, &why) == -2 && strstr(why, "descriptor"));
	}
	close(sv[0]);
	CHECK(lchan_recv(&b, &r, &why) == 0);
	close(sv[1]);
}

/* The listener's table: one fake session per socketpair. */
struct fake {
	struct lchan c;   /* the session's end */
	struct sess *s;
	pid_t pid;
};

static struct gen *mkgen(int per_host, int m0, int m1)
{
	struct gen *g = calloc(1, sizeof(*g));
	char err[256];
	char text[256];

	snprintf(text, sizeof(text), "max connections per host = %d\n[a]\npath=/a\nmax connections = %d\n"
		 "[b]\npath=/b\nmax connections = %d\n[c]\npath=/c\n", per_host, m0, m1);
	CHECK(cfg_parse("t", text, strlen(text), &g->cfg, err, sizeof(err)) == 0);
	g->snap_fd = -1;
	g->refs = 1;
	return g;
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static void start(struct sessions *t, struct fake *f, pid_t pid, struct gen *g, const char *addr)
{
	int sv[2];
	struct sockaddr_in p = v4(addr);

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	lchan_init(&f->c, sv[0]);
	f->pid = pid;
	f->s = sessions_add(t, pid, sv[1], g, (struct sockaddr *)&p, sizeof(p));
	CHECK(f->s != NULL);
}

static struct sess *find(struct sessions *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].pid == pid)
			return &t->s[i];
	return NULL;
}

/* Send req as session f, let the listener serve it, return the answer's
 * status (0: no answer, the channel was closed). */
static int ask(struct sessions *t, struct fake *f, struct lchan_msg *req, int32_t *limit)
{
	struct lchan_msg a;
	const char *why;
	ssize_t n;

	CHECK(lchan_send(&f->c, req) == 0);
	sessions_serve(t, find(t, f->pid));
	n = lchan_recv(&f->c, &a, &why);
	if (n != (ssize_t)sizeof(a))
		return 0;
	CHECK(lchan_check(&a, (size_t)n, LCHAN_TO_SESSION, f->c.rcvd + 1, 0, &why) == 0);
	f->c.rcvd++;
	if (limit)
		*limit = a.u.answer.limit;
	return a.u.answer.status;
}

static int host(struct sessions *t, struct fake *f, const char *addr, int proxied, int32_t *limit)
{
	struct lchan_msg m = mk(LCHAN_HOST, 0);
	struct sockaddr_in p = v4(addr);

	CHECK(lchan_addr_key((struct sockaddr *)&p, sizeof(p), &m.u.host.family, m.u.host.addr) == 0);
	m.u.host.proxied = (uint8_t)proxied;
	return ask(t, f, &m, limit);
}

static int slot(struct sessions *t, struct fake *f, uint32_t mod, int32_t *limit)
{
	struct lchan_msg m = mk(LCHAN_SLOT, 0);

	m.u.slot.module = mod;
	return ask(t, f, &m, limit);
}

static void test_limits(void)
{
	struct sessions t = { 0 };
	struct fake f[8];
	struct gen *g = mkgen(3, 2, -1), *g2;
	int32_t lim = 0;

	/* per host: 3 from 10.0.0.1, the fourth is FULL; another host is not */
	for (int i = 0; i < 4; i++)
		start(&t, &f[i], 100 + i, g, "10.0.0.1");
	CHECK(host(&t, &f[0], "10.0.0.1", 0, NULL) == LCHAN_OK);
	CHECK(host(&t, &f[1], "10.0.0.1", 0, NULL) == LCHAN_OK);
	CHECK(host(&t, &f[2], "10.0.0.1", 0, NULL) == LCHAN_OK);
	CHECK(host(&t, &f[3], "10.0.0.1", 0, &lim) == LCHAN_FULL && lim == 3);
	CHECK(find(&t, 103)->chan.fd < 0); /* nothing more after a refusal */
	start(&t, &f[4], 104, g, "10.0.0.2");
	/* claiming another address than the socket's peer, or a PROXY one */
	CHECK(host(&t, &f[4], "10.0.0.3", 0, NULL) == LCHAN_REFUSED);
	start(&t, &f[5], 105, g, "10.0.0.2");
	CHECK(host(&t, &f[5], "10.0.0.2", 1, NULL) == LCHAN_REFUSED);
	start(&t, &f[6], 106, g, "10.0.0.2");
	CHECK(host(&t, &f[6], "10.0.0.2", 0, NULL) == LCHAN_OK);

	/* SLOT before HOST, twice HOST, out-of-range module: channel closed */
	start(&t, &f[7], 107, g, "10.0.0.9");
	CHECK(slot(&t, &f[7], 0, NULL) == 0 && find(&t, 107)->chan.fd < 0);
	CHECK(host(&t, &f[0], "10.0.0.1", 0, NULL) == 0 && find(&t, 100)->chan.fd < 0);
	CHECK(slot(&t, &f[1], 3, NULL) == 0 && find(&t, 101)->chan.fd < 0);

	/* module a: limit 2 (f[2], f[6] take it; a new one is FULL) */
	CHECK(slot(&t, &f[2], 0, NULL) == LCHAN_OK);
	CHECK(slot(&t, &f[6], 0, NULL) == LCHAN_OK);
	CHECK(find(&t, 102)->chan.fd < 0); /* the last request: closed */
	sessions_remove(&t, 100);
	sessions_remove(&t, 101);
	start(&t, &f[0], 200, g, "10.0.0.1");
	CHECK(host(&t, &f[0], "10.0.0.1", 0, NULL) == LCHAN_OK);
	CHECK(slot(&t, &f[0], 0, &lim) == LCHAN_FULL && lim == 2);
	/* module b: negative, nobody; module c: unlimited */
	start(&t, &f[1], 201, g, "10.0.0.5");
	CHECK(host(&t, &f[1], "10.0.0.5", 0, NULL) == LCHAN_OK);
	CHECK(slot(&t, &f[1], 1, &lim) == LCHAN_FULL && lim == -1);
	/* after a reload: limits of the new generation, counts across both */
	g2 = mkgen(0, 3, 0);
	start(&t, &f[3], 202, g2, "10.0.0.1");
	CHECK(host(&t, &f[3], "10.0.0.1", 0, NULL) == LCHAN_OK); /* no per-host limit now */
	CHECK(slot(&t, &f[3], 0, NULL) == LCHAN_OK);              /* third of a, limit 3 */
	start(&t, &f[4], 203, g2, "10.0.0.8");
	CHECK(host(&t, &f[4], "10.0.0.8", 0, NULL) == LCHAN_OK);
	CHECK(slot(&t, &f[4], 0, &lim) == LCHAN_FULL && lim == 3);
	/* reaping frees the slot */
	sessions_remove(&t, 102);
	start(&t, &f[5], 204, g2, "10.0.0.8");
	CHECK(host(&t, &f[5], "10.0.0.8", 0, NULL) == LCHAN_OK);
	CHECK(slot(&t, &f[5], 0, NULL) == LCHAN_OK);

	while (t.n > 0)
		sessions_remove(&t, t.s[0].pid);
	for (int i = 0; i < 8; i++)
		close(f[i].c.fd);
	gen_put(g);
	gen_put(g2);
	free(t.s);
}

int main(void)
{
	test_validator();
	test_framing();
	test_limits();
	return unit_done("test_lchan");
}
