/* SPDX-License-Identifier: ISC */
/* Fuzz the session monitor from the worker's side: every record a
 * compromised worker can send, through the receive path (framing,
 * sequence numbers, descriptors), the shared validators (src/proto/msg.c)
 * and the dispatch table with its state rules and handlers
 * (src/monitor/session.c, fsreq.c, resolve.c, the module filters), in any
 * order.  The modules live in a fake tree in a temporary directory: files,
 * directories, hidden paths, symlinks inside, escaping, absolute and
 * looping, a FIFO, a 255-byte name.  Selection asks a listener the fuzzer
 * plays (it grants the slot); the monitor's confinement is a no-op in this
 * build (PRSYNCD_FUZZ), so everything stays in one process.
 *
 * The input is a sequence of records, each [op][len lo][len hi][len bytes]:
 *   op & 0x0f  the type: READY, LOG, MODLIST, SELECT, EXIT, LIST, STAT,
 *              OPENV (of one path), CLOSEV (of one handle), READLINK, IDNAME,
 *              or (11-15) any type number
 *              taken from the bytes
 *   op & 0x10  the bytes are the raw body (else they fill the type's
 *              fields: strings as strings, numbers as numbers)
 *   op & 0x20  a descriptor travels with the record
 *   op & 0x40  the header comes from the bytes too (magic, flags, seq, len)
 *   op & 0x80  the record is cut short by the next byte's worth
 * Invariants: every answer the monitor sends passes the worker's validator
 * with the right sequence number; no file outside the module or hidden by
 * its filters is ever opened for the worker (by content: only "visible"
 * bytes may arrive); nothing leaks or crashes. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsreq.h"
#include "ipc.h"
#include "lchan.h"
#include "log.h"
#include "msg.h"
#include "nametab.h"
#include "session.h"

static struct cfg cfg;
static struct nametab names; /* empty: the modules' lists have no names */
static unsigned char *names_buf; /* what names points into */
static struct fs_idmap ids;
static char top[64];

static const struct { uint16_t type; size_t size; } types[] = {
	{ PR_W_READY, sizeof(struct pr_w_ready) },   { PR_W_LOG, sizeof(struct pr_w_log) },
	{ PR_W_MODLIST, 0 },                         { PR_W_SELECT, sizeof(struct pr_w_select) },
	{ PR_W_EXIT, sizeof(struct pr_w_exit) },     { PR_W_LIST, sizeof(struct pr_w_path) },
	{ PR_W_STAT, sizeof(struct pr_w_stat) },     { PR_W_OPENV, sizeof(struct pr_w_openv) },
	{ PR_W_CLOSEV, sizeof(struct pr_w_closev) }, { PR_W_READLINK, sizeof(struct pr_w_path) },
	{ PR_W_IDNAME, sizeof(struct pr_w_idname) },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static void put(const char *rel, const char *content)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, strlen(content)) < 0)
		abort();
	close(fd);
}

static void dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		abort();
}

static void link_to(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (symlink(target, p) < 0 && errno != EEXIST)
		abort();
}

/* The module tree: "visible" files say so; everything a module's filters
 * hide, or outside the module, says "SECRET". */
static void make_tree(void)
{
	char name[256], conf[2048];
	int n;

	snprintf(top, sizeof(top), "/tmp/prsyncd-fuzz-dispatch.XXXXXX");
	if (mkdtemp(top) == NULL)
		abort();
	put("outside", "SECRET");
	dir("mod");
	put("mod/a", "visible a");
	dir("mod/d");
	put("mod/d/b", "visible b");
	dir("mod/d/e");
	put("mod/d/e/c", "visible c");
	dir("mod/hidden");
	put("mod/hidden/h", "SECRET");
	put("mod/x.secret", "SECRET");
	dir("mod/.git");
	put("mod/.git/config", "SECRET");
	link_to("a", "mod/l");
	link_to("d", "mod/dl");
	link_to("hidden/h", "mod/to-hidden");
	link_to("hidden", "mod/to-hidden-dir");
	link_to("../outside", "mod/up");
	link_to("../../../../../../../../outside", "mod/d/far-up");
	link_to("/etc/passwd", "mod/abs");
	link_to("loop2", "mod/loop1");
	link_to("loop1", "mod/loop2");
	link_to("/proc/self/fd/0", "mod/magic");
	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(conf, sizeof(conf), "mod/%s", name);
	put(conf, "visible long");
	snprintf(conf, sizeof(conf), "%s/mod/fifo", top);
	(void)mkfifo(conf, 0644);
	n = snprintf(conf, sizeof(conf),
		     "[mod]\n\tpath = %s/mod\n\tuid = 0\n\tgid = 0\n\tnumeric ids = no\n"
		     "\texclude = hidden/ *.secret .git/\n"
		     "[plain]\n\tpath = %s/mod/d\n\tcomment = plain\n"
		     "[unlisted]\n\tpath = %s/mod\n\tlist = no\n\tfilter = - /d/e/\n"
		     "[gone]\n\tpath = %s/nonexistent\n"
		     "[badid]\n\tpath = %s/mod\n\tuid = no-such-user-prsyncd\n",
		     top, top, top, top, top);
	if (n <= 0 || cfg_parse("fuzz", conf, (size_t)n, &cfg, NULL, 0) < 0)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_use_fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
	make_tree();
	fs_idmap_load(&ids, &cfg); /* once: NSS is the same for every run */
	{
		size_t len;
		char err[128];

		if (nametab_build(NULL, 0, 0, &names_buf, &len, err, sizeof(err)) < 0 ||
		    nametab_parse(names_buf, len, &names, err, sizeof(err)) < 0)
			abort();
	}
	return 0;
}

static void set_str(uint16_t *len, char *s, size_t max, const uint8_t *b, size_t n)
{
	size_t k = 0;

	while (k < n && k + 1 < max && b[k] != 0)
		k++;
	memcpy(s, b, k);
	s[k] = '\0';
	*len = (uint16_t)k;
}

static uint32_t u32(const uint8_t *b, size_t n)
{
	uint32_t v = 0;

	memcpy(&v, b, n < 4 ? n : 4);
	return v;
}

/* Fill a record of the type from the bytes, field by field. */
static void fill(struct pr_msg *m, const uint8_t *b, size_t n)
{
	switch (m->h.type) {
	case PR_W_READY: m->u.ready.pid = u32(b, n); break;
	case PR_W_LOG:
		m->u.log.level = n ? b[0] % 6 : 3;
		if (n)
			set_str(&m->u.log.text.len, m->u.log.text.s, PR_TEXT_MAX, b + 1, n - 1);
		break;
	case PR_W_SELECT: set_str(&m->u.wselect.module.len, m->u.wselect.module.s, PR_NAME_MAX, b, n); break;
	case PR_W_EXIT: m->u.exit.code = n ? b[0] : 0; break;
	case PR_W_STAT:
		m->u.stat.flags = n ? b[0] & 3 : 0;
		if (n)
			set_str(&m->u.stat.path.len, m->u.stat.path.s, PR_RELPATH_MAX, b + 1, n - 1);
		break;
	case PR_W_LIST: case PR_W_READLINK:
		set_str(&m->u.path.path.len, m->u.path.path.s, PR_RELPATH_MAX, b, n);
		break;
	case PR_W_OPENV: {
		char path[PR_RELPATH_MAX];
		uint16_t len;

		set_str(&len, path, sizeof(path), b, n);
		(void)pr_openv_add(&m->u.openv, path); /* as given: the monitor judges it */
		break;
	}
	case PR_W_CLOSEV:
		m->u.closev.nclosed = 1;
		m->u.closev.closed[0] = u32(b, n);
		break;
	case PR_W_IDNAME:
		m->u.idname.kind = n ? 1u + (b[0] & 1) : 1;
		m->u.idname.id = n > 1 ? u32(b + 1, n - 1) : 0;
		break;
	}
}

static void send_rec(int fd, const void *rec, size_t len, int with_fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)rec, .iov_len = len };
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
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		abort(); /* one record at a time: there is always room */
	if (extra >= 0)
		close(extra);
}

/* Read every answer: each must be valid and in sequence; an opened file
 * must be a visible one. */
static void drain(struct pr_ipc *w)
{
	for (;;) {
		struct pr_msg m;
		const char *why;
		char buf[16];
		int fd;
		enum pr_ipc_result r;

		if (recv(w->fd, buf, 1, MSG_PEEK | MSG_DONTWAIT) < 0)
			return;
		r = pr_ipc_recv(w, &m, &fd, &why);
		if (r != PR_IPC_OK) {
			fprintf(stderr, "monitor sent an invalid record (%d): %s\n", (int)r, why ? why : "?");
			abort();
		}
		if (fd >= 0) {
			ssize_t n = pread(fd, buf, sizeof(buf), 0);

			if (m.h.type != PR_M_OPENV || (n > 0 && memcmp(buf, "visible", n < 7 ? (size_t)n : 7) != 0))
				abort();
			close(fd);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lchan_msg ans = { .type = LCHAN_ANSWER, .seq = 1 };
	struct pr_ipc w;
	struct session *s;
	int wsv[2], lsv[2], big = 1 << 22;
	uint32_t seq = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, wsv) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, lsv) < 0)
		abort();
	/* A LIST may answer with many records before the fuzzer reads. */
	(void)setsockopt(wsv[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	(void)setsockopt(wsv[1], SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	ans.magic = LCHAN_MAGIC;
	ans.u.answer.request = LCHAN_SLOT;
	ans.u.answer.status = LCHAN_OK;
	if (send(lsv[1], &ans, sizeof(ans), MSG_NOSIGNAL) != sizeof(ans))
		abort();
	pr_ipc_init(&w, wsv[1], pr_msg_validate_m2w);
	s = session_fuzz_new(&cfg, &names, &ids, wsv[0], lsv[0]);
	if (s == NULL)
		abort();
	for (size_t off = 0; off + 3 <= size;) {
		unsigned op = data[off];
		size_t n = data[off + 1] | (size_t)data[off + 2] << 8, t = op & 0x0f;
		const uint8_t *b = data + off + 3;
		struct pr_msg m;
		size_t len = sizeof(m);

		if (n > size - off - 3)
			n = size - off - 3;
		off += 3 + n;
		memset(&m, 0, sizeof(m));
		m.h.magic = PR_MSG_MAGIC;
		m.h.seq = ++seq;
		m.h.flags = (op & 0x20) ? PR_F_FD : 0;
		if (t < NTYPES) {
			m.h.type = types[t].type;
			m.h.len = (uint32_t)types[t].size;
		} else {
			m.h.type = n ? b[0] : 0;
			m.h.len = n > 1 ? b[1] * 32u : 0;
		}
		if (op & 0x10)
			memcpy(m.u.raw, b, n < sizeof(m.u.raw) ? n : sizeof(m.u.raw));
		else
			fill(&m, b, n);
		if ((op & 0x40) && n >= sizeof(m.h))
			memcpy(&m.h, b, sizeof(m.h));
		if ((op & 0x80) && n > 0)
			len -= 1u + b[n - 1];
		send_rec(wsv[1], &m, len, op & 0x20);
		if (session_fuzz_step(s) < 0)
			break;
		drain(&w);
	}
	drain(&w);
	session_fuzz_free(s);
	close(wsv[1]);
	close(lsv[1]);
	return 0;
}
