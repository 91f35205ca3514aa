/* SPDX-License-Identifier: ISC */
/*
 * The batched-open messages (PR_W_OPENV, PR_W_CLOSEV, PR_M_OPENV): every
 * field of each refused when malformed, the path packing, and the channel
 * carrying several descriptors per record (all closed when the record is
 * refused).  The generic header, direction and length tests of test_msg.c
 * cover these types too (they are in its types[]).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc.h"
#include "msg.h"
#include "unit.h"

#define M_REG 0100644u
#define M_DIR 0040755u

static void expect(enum pr_msg_err want, const struct pr_msg *m, enum pr_msg_dir d, int nfds,
		   const char *what)
{
	enum pr_msg_err got = pr_msg_validate(m, d, nfds);

	CHECK_MSG(got == want, "%s: got \"%s\", want \"%s\"", what, pr_msg_strerror(got),
		  pr_msg_strerror(want));
}

static void refused(const struct pr_msg *m, enum pr_msg_dir d, int nfds, const char *what)
{
	CHECK_MSG(pr_msg_validate(m, d, nfds) != PR_MSG_OK, "%s: accepted", what);
}

static struct pr_stat st_of(uint32_t mode)
{
	struct pr_stat st;

	memset(&st, 0, sizeof(st));
	st.mode = mode;
	st.nlink = 1;
	st.size = 4096;
	st.mtime = 1700000000;
	st.dev = 0x801;
	st.ino = 99;
	return st;
}

static char longpath[PR_RELPATH_MAX + 1];

/* "aaa.../aaa..." of len bytes, components of 255 at most */
static const char *path_of(size_t len)
{
	for (size_t i = 0; i < len; i++)
		longpath[i] = (i % 256 == 255) ? '/' : 'a';
	if (len > 0 && longpath[len - 1] == '/')
		longpath[len - 1] = 'b';
	longpath[len] = '\0';
	return longpath;
}

/* ---- OPENV requests ---------------------------------------------------- */

static void wopenv(struct pr_msg *m, size_t npaths, uint32_t nclosed)
{
	char p[32];

	pr_msg_init(m, PR_W_OPENV);
	for (size_t i = 0; i < npaths; i++) {
		snprintf(p, sizeof(p), "d/f%zu", i);
		CHECK(pr_openv_add(&m->u.openv, p) == 0);
	}
	m->u.openv.nclosed = nclosed;
	for (uint32_t i = 0; i < nclosed; i++)
		m->u.openv.closed[i] = 100 + i;
}

/* Put raw bytes at the end of the path data (a forged entry). */
static void raw_entry(struct pr_msg *m, uint16_t len, const void *bytes, size_t n)
{
	struct pr_w_openv *b = &m->u.openv;

	memcpy(b->data + b->used, &len, sizeof(len));
	memcpy(b->data + b->used + sizeof(len), bytes, n);
	b->used += (uint32_t)(sizeof(len) + n);
	b->count++;
}

static void test_wopenv(void)
{
	const enum pr_msg_dir D = PR_DIR_TO_MONITOR;
	struct pr_msg m;
	size_t off, len;
	const char *p;
	int n;

	for (size_t k = 1; k <= PR_OPENV_MAX; k++) {
		wopenv(&m, k, (uint32_t)(k * 2 <= PR_CLOSEV_MAX ? k * 2 : PR_CLOSEV_MAX));
		expect(PR_MSG_OK, &m, D, 0, "OPENV of k paths");
	}
	wopenv(&m, 1, PR_CLOSEV_MAX);
	expect(PR_MSG_OK, &m, D, 0, "OPENV reporting every handle closed");
	expect(PR_MSG_EBADFD, &m, D, 1, "OPENV with a descriptor");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_WORKER, 0, "OPENV to the worker");

	/* the longest path fits alone; root "" is a path as in OPEN */
	pr_msg_init(&m, PR_W_OPENV);
	CHECK(pr_openv_add(&m.u.openv, path_of(PR_RELPATH_MAX - 1)) == 0);
	CHECK(pr_openv_add(&m.u.openv, path_of(PR_RELPATH_MAX - 1)) < 0);
	CHECK(pr_openv_add(&m.u.openv, path_of(PR_RELPATH_MAX)) < 0);
	expect(PR_MSG_OK, &m, D, 0, "OPENV of a 4095-byte path");
	CHECK(pr_openv_add(&m.u.openv, "") == 0);
	expect(PR_MSG_OK, &m, D, 0, "OPENV of the module root");

	/* more than PR_OPENV_MAX paths cannot be built ... */
	wopenv(&m, PR_OPENV_MAX, 0);
	CHECK(pr_openv_add(&m.u.openv, "x") < 0 && m.u.openv.count == PR_OPENV_MAX);
	/* ... nor forged */
	raw_entry(&m, 1, "x", 2);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "OPENV of 17 paths");

	/* walking what was packed gives it back */
	wopenv(&m, 3, 0);
	off = 0;
	n = 0;
	while (pr_openv_next(&m.u.openv, &off, &p, &len) == 1) {
		char want[32];

		snprintf(want, sizeof(want), "d/f%d", n++);
		CHECK(len == strlen(want) && strcmp(p, want) == 0);
	}
	CHECK(n == 3 && off == m.u.openv.used);

	/* counts */
	wopenv(&m, 2, 0);
	m.u.openv.count = 0;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "count 0 with paths");
	pr_msg_init(&m, PR_W_OPENV);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "no path at all");
	wopenv(&m, 2, 0);
	m.u.openv.count = 3;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "count above the paths");
	m.u.openv.count = 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "count below the paths");
	m.u.openv.count = 0xffffffffu;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "count 2^32-1");

	/* used */
	wopenv(&m, 2, 0);
	m.u.openv.used += 1;
	refused(&m, D, 0, "used one past the data");
	wopenv(&m, 2, 0);
	m.u.openv.used -= 1;
	refused(&m, D, 0, "used cuts the last NUL");
	m.u.openv.used = PR_OPENV_DATA + 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "used beyond the buffer");
	m.u.openv.used = 0xffffffffu;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "used 2^32-1");
	wopenv(&m, 2, 0);
	m.u.openv.data[PR_OPENV_DATA - 1] = 'x';
	expect(PR_MSG_EBADFIELD, &m, D, 0, "bytes after used");
	wopenv(&m, 2, 0);
	m.u.openv.data[m.u.openv.used] = 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a byte just after used");

	/* the entries themselves */
	{
		static const struct { const char *s; size_t n; const char *what; } bad[] = {
			{ "../etc/passwd", 13, "a .. component" },
			{ "/etc/passwd", 11, "an absolute path" },
			{ "a//b", 4, "an empty component" },
			{ "a/./b", 5, "a . component" },
			{ "a/", 2, "a trailing slash" },
			{ "..", 2, "just .." },
			{ ".", 1, "just ." },
			{ "a\0b", 3, "a NUL inside" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char rec[16];

			memcpy(rec, bad[i].s, bad[i].n);
			rec[bad[i].n] = '\0';
			pr_msg_init(&m, PR_W_OPENV);
			CHECK(pr_openv_add(&m.u.openv, "ok") == 0);
			raw_entry(&m, (uint16_t)bad[i].n, rec, bad[i].n + 1);
			expect(PR_MSG_EBADSTR, &m, D, 0, bad[i].what);
		}
	}
	pr_msg_init(&m, PR_W_OPENV);
	raw_entry(&m, 3, "abcd", 4);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "no NUL after the path");
	pr_msg_init(&m, PR_W_OPENV);
	raw_entry(&m, 200, "ab", 3);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a length past used");
	pr_msg_init(&m, PR_W_OPENV);
	raw_entry(&m, 0xffff, "ab", 3);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "length 65535");
	pr_msg_init(&m, PR_W_OPENV);
	CHECK(pr_openv_add(&m.u.openv, "ok") == 0);
	m.u.openv.data[m.u.openv.used++] = 1; /* half a length */
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a truncated entry header");
	pr_msg_init(&m, PR_W_OPENV);
	memcpy(m.u.openv.data, "\x04\x00" "abcd", 6); /* len 4, then no room for NUL */
	m.u.openv.used = 6;
	m.u.openv.count = 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "the NUL beyond used");
	pr_msg_init(&m, PR_W_OPENV);
	memcpy(m.u.openv.data, "\x01\x10" "a", 4); /* a length of 4097 */
	m.u.openv.used = 4;
	m.u.openv.count = 1;
	refused(&m, D, 0, "a length of 4097");

	/* closed handles */
	wopenv(&m, 1, 2);
	m.u.openv.closed[1] = 0;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "handle 0 in the closed list");
	wopenv(&m, 1, 2);
	m.u.openv.closed[2] = 9;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a handle after nclosed");
	wopenv(&m, 1, 0);
	m.u.openv.closed[PR_CLOSEV_MAX - 1] = 9;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a handle in the last slot, nclosed 0");
	wopenv(&m, 1, PR_CLOSEV_MAX);
	m.u.openv.nclosed = PR_CLOSEV_MAX + 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "nclosed 33");
	m.u.openv.nclosed = 0xffffffffu;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "nclosed 2^32-1");
}

/* ---- CLOSEV ------------------------------------------------------------ */

static void test_closev(void)
{
	const enum pr_msg_dir D = PR_DIR_TO_MONITOR;
	struct pr_msg m;

	for (uint32_t n = 1; n <= PR_CLOSEV_MAX; n++) {
		pr_msg_init(&m, PR_W_CLOSEV);
		m.u.closev.nclosed = n;
		for (uint32_t i = 0; i < n; i++)
			m.u.closev.closed[i] = i + 1;
		expect(PR_MSG_OK, &m, D, 0, "CLOSEV of n handles");
	}
	expect(PR_MSG_EBADFD, &m, D, 1, "CLOSEV with a descriptor");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_WORKER, 0, "CLOSEV to the worker");
	m.u.closev.nclosed = PR_CLOSEV_MAX + 1;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "nclosed 33");
	pr_msg_init(&m, PR_W_CLOSEV);
	expect(PR_MSG_EBADFIELD, &m, D, 0, "nclosed 0");
	m.u.closev.closed[0] = 5;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "nclosed 0 with a handle");
	m.u.closev.nclosed = 2;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "second handle 0");
	m.u.closev.closed[1] = 6;
	m.u.closev.closed[7] = 6;
	expect(PR_MSG_EBADFIELD, &m, D, 0, "a handle after nclosed");
}

/* ---- OPENV answers ----------------------------------------------------- */

/* count answers; ok[i] says which succeed (handle 10+i) */
static void mopenv(struct pr_msg *m, uint32_t count, const int *ok)
{
	pr_msg_init(m, PR_M_OPENV);
	m->u.mopenv.count = count;
	for (uint32_t i = 0; i < count; i++) {
		struct pr_openv_ent *e = &m->u.mopenv.e[i];

		if (ok[i]) {
			e->handle = 10 + i;
			e->st = st_of(M_REG);
			m->u.mopenv.nfds++;
		} else {
			e->err = ENOENT;
		}
	}
	if (m->u.mopenv.nfds)
		m->h.flags = PR_F_FD;
}

static void test_mopenv(void)
{
	const enum pr_msg_dir D = PR_DIR_TO_WORKER;
	static const int all[PR_OPENV_MAX] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const int some[4] = { 1, 0, 1, 0 };
	struct pr_msg m;

	mopenv(&m, PR_OPENV_MAX, all);
	expect(PR_MSG_OK, &m, D, PR_OPENV_MAX, "16 successes, 16 descriptors");
	expect(PR_MSG_EBADFD, &m, D, PR_OPENV_MAX - 1, "16 successes, 15 descriptors");
	expect(PR_MSG_EBADFD, &m, D, PR_OPENV_MAX + 1, "16 successes, 17 descriptors");
	expect(PR_MSG_EBADFD, &m, D, 0, "16 successes, none");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, PR_OPENV_MAX, "answer to the monitor");
	mopenv(&m, 4, some);
	expect(PR_MSG_OK, &m, D, 2, "two of four");
	expect(PR_MSG_EBADFD, &m, D, 1, "two of four, one descriptor");
	expect(PR_MSG_EBADFD, &m, D, 3, "two of four, three descriptors");
	m.u.mopenv.nfds = 3;
	expect(PR_MSG_EBADFD, &m, D, 3, "nfds says three, two succeed");
	m.u.mopenv.nfds = 2;
	m.h.flags = 0;
	expect(PR_MSG_EBADFD, &m, D, 2, "descriptors without PR_F_FD");

	/* counts */
	mopenv(&m, 4, some);
	m.u.mopenv.count = 0;
	refused(&m, D, 2, "count 0");
	mopenv(&m, 4, some);
	m.u.mopenv.count = 3;
	refused(&m, D, 2, "an answer after count");
	mopenv(&m, PR_OPENV_MAX, all);
	m.u.mopenv.count = PR_OPENV_MAX + 1;
	expect(PR_MSG_EBADFIELD, &m, D, PR_OPENV_MAX, "count 17");

	/* a success must be a regular file with a handle, distinct */
	mopenv(&m, 4, some);
	m.u.mopenv.e[0].st = st_of(M_DIR);
	expect(PR_MSG_EBADFIELD, &m, D, 2, "a directory opened");
	mopenv(&m, 4, some);
	m.u.mopenv.e[2].handle = 0;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "handle 0");
	mopenv(&m, 4, some);
	m.u.mopenv.e[2].handle = m.u.mopenv.e[0].handle;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "the same handle twice");
	mopenv(&m, 4, some);
	m.u.mopenv.e[2].st.mtime_nsec = 1000000000u;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "nanoseconds out of range");

	/* an error carries nothing else */
	mopenv(&m, 4, some);
	m.u.mopenv.e[1].handle = 3;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "an error with a handle");
	mopenv(&m, 4, some);
	m.u.mopenv.e[1].st.size = 1;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "an error with a stat");
	mopenv(&m, 4, some);
	m.u.mopenv.e[1].err = -1;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "errno -1");
	m.u.mopenv.e[1].err = 4096;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "errno 4096");

	/* nothing after count */
	mopenv(&m, 4, some);
	m.u.mopenv.e[5].err = ENOENT;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "an error after count");
	mopenv(&m, 4, some);
	m.u.mopenv.e[PR_OPENV_MAX - 1].handle = 77;
	expect(PR_MSG_EBADFIELD, &m, D, 2, "a handle in the last slot");
	mopenv(&m, 4, some);
	m.u.mopenv.e[4].st = st_of(M_REG);
	expect(PR_MSG_EBADFIELD, &m, D, 2, "a stat after count");
}

/* ---- the channel with several descriptors ----------------------------- */

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

static void test_channel(void)
{
	int sv[2], p[2], fds[PR_OPENV_MAX + 4], got[PR_OPENV_MAX], before;
	static const int some[4] = { 1, 0, 1, 0 };
	static const int all[PR_OPENV_MAX] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct pr_ipc mon, wrk;
	struct pr_msg m, r;
	const char *why;
	size_t n;
	int one;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 || pipe(p) < 0) {
		CHECK_MSG(0, "socketpair/pipe: %s", strerror(errno));
		return;
	}
	pr_ipc_init(&mon, sv[0], pr_msg_validate_w2m);
	pr_ipc_init(&wrk, sv[1], pr_msg_validate_m2w);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		fds[i] = p[i % 2];
	before = count_fds();

	/* the record is its header and body, not 8 KiB */
	mopenv(&m, 4, some);
	CHECK(pr_ipc_send_fds(&mon, &m, fds, 2) == 0);
	CHECK(recv(sv[1], &r, sizeof(r), MSG_PEEK | MSG_TRUNC) == (ssize_t)(sizeof(m.h) + sizeof(struct pr_m_openv)));
	CHECK(pr_ipc_recv_fds(&wrk, &r, got, PR_OPENV_MAX, &n, &why) == PR_IPC_OK);
	CHECK(n == 2 && r.h.type == PR_M_OPENV && r.u.mopenv.count == 4 && r.u.mopenv.e[2].handle == 12);
	CHECK(count_fds() == before + 2);
	for (size_t i = 0; i < n; i++)
		close(got[i]);

	mopenv(&m, PR_OPENV_MAX, all);
	CHECK(pr_ipc_send_fds(&mon, &m, fds, PR_OPENV_MAX) == 0);
	CHECK(pr_ipc_recv_fds(&wrk, &r, got, PR_OPENV_MAX, &n, &why) == PR_IPC_OK && n == PR_OPENV_MAX);
	CHECK(count_fds() == before + (int)PR_OPENV_MAX);
	for (size_t i = 0; i < n; i++)
		close(got[i]);
	CHECK(count_fds() == before);

	/* refused: too few, too many for the type, more than the receiver
	 * takes; every descriptor closed, the sequence not advanced */
	mopenv(&m, 4, some);
	CHECK(pr_ipc_send_fds(&mon, &m, fds, 1) == 0);
	CHECK(pr_ipc_recv_fds(&wrk, &r, got, PR_OPENV_MAX, &n, &why) == PR_IPC_INVALID && n == 0);
	CHECK(count_fds() == before);
	mon.send_seq--;
	CHECK(pr_ipc_send_fds(&mon, &m, fds, 3) == 0);
	CHECK(pr_ipc_recv_fds(&wrk, &r, got, PR_OPENV_MAX, &n, &why) == PR_IPC_INVALID && n == 0);
	CHECK(count_fds() == before);
	mon.send_seq--;
	CHECK(pr_ipc_send_fds(&mon, &m, fds, 2) == 0);
	CHECK(pr_ipc_recv(&wrk, &r, &one, &why) == PR_IPC_INVALID && one == -1);
	CHECK_MSG(why && strstr(why, "more than one descriptor"), "why %s", why ? why : "-");
	CHECK(count_fds() == before);
	mon.send_seq--;
	CHECK(pr_ipc_send_fds(&mon, &m, fds, PR_OPENV_MAX + 1) < 0 && errno == EINVAL);
	mon.send_seq = wrk.recv_seq;
	CHECK(count_fds() == before);

	/* raw: 20 descriptors on one record */
	{
		union { struct cmsghdr a; char b[CMSG_SPACE(20 * sizeof(int))]; } ctl;
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m.h) + m.h.len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
				     .msg_controllen = sizeof(ctl.b) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

		mopenv(&m, PR_OPENV_MAX, all);
		m.h.seq = wrk.recv_seq + 1;
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(20 * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, 20 * sizeof(int));
		CHECK(sendmsg(sv[0], &mh, 0) == (ssize_t)iov.iov_len);
		CHECK(pr_ipc_recv_fds(&wrk, &r, got, PR_OPENV_MAX, &n, &why) == PR_IPC_INVALID);
		CHECK(count_fds() == before);
	}

	/* an OPENV request travels at its size too */
	wopenv(&m, 3, 2);
	CHECK(pr_ipc_send(&wrk, &m, -1) == 0);
	CHECK(pr_ipc_recv(&mon, &r, &one, &why) == PR_IPC_OK && one == -1 && r.u.openv.count == 3);

	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/* pr_close_fds: closes exactly the descriptors given (runs of ascending
 * consecutive numbers with one close_range, the rest alone), whatever
 * their order, and no other. */
static void test_close_fds(void)
{
	int fds[12], keep, n = 0, list[12];

	for (int i = 0; i < 12; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	keep = fds[5]; /* a hole in the middle of a run stays open */
	for (int i = 11; i >= 0; i--)
		if (i != 5 && i != 9)
			list[n++] = fds[i];
	list[n++] = fds[9];
	CHECK(fds[0] >= 0 && fds[11] >= 0);
	pr_close_fds(list, (size_t)n);
	for (int i = 0; i < 12; i++)
		CHECK_MSG((fcntl(fds[i], F_GETFD) >= 0) == (i == 5), "fd %d (#%d) open state", fds[i], i);
	close(keep);
	pr_close_fds(list, 0);
}

int main(void)
{
	test_wopenv();
	test_closev();
	test_mopenv();
	test_channel();
	test_close_fds();
	return unit_done("test_openv");
}
