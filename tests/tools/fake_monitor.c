/* SPDX-License-Identifier: ISC */
/*
 * A hostile session monitor for the real worker.  It listens on
 * 127.0.0.1:PORT, accepts one client, starts the real prsyncd-worker
 * exactly as the monitor does (client on fd 3, a SOCK_SEQPACKET channel on
 * fd 4, empty environment), and answers its requests from a small made-up
 * module ("pub": a directory, a regular file "f", a long symlink "l")
 * until the point named by CASE, where it sends a crafted answer instead:
 *
 *   fake_monitor WORKER CHROOT PORT READYFILE CASE
 *
 * CASE is POINT:FAULT.  POINT is the answer to corrupt: init, modlist,
 * modlist_end, select, xferlog, stat, list, list_end, readlink, open (the
 * answer to OPENV, which the worker sends for the files it transfers),
 * idname, xattr, xattr_end, authreq (a login challenge in place of the
 * selection's answer).
 * FAULT is either generic (len, magic, seq, short, big, flagbad, fds2,
 * dir: a worker type, type: a valid answer of another type, unsolicited:
 * the right answer plus one nobody asked for) or specific to the point
 * (see the tables below).  The strings of a crafted answer carry the
 * marker "EVIL", which must never reach the client.
 *
 * At the end it prints one line for the test:
 *   RESULT case=C injected=yes|no status=exit:N|signal:N after=T,T,... log=TEXT
 * where `after` lists the types the worker sent after the crafted answer
 * (only PR_W_LOG and PR_W_EXIT are acceptable: no further request) and
 * `log` the last record the worker logged.  Every wait is bounded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fds.h"
#include "ipc.h"
#include "msg.h"

static struct pr_ipc ipc;
static char point[32], fault[32];
static int injected;
static char after[1024], last_log[PR_TEXT_MAX * 4];
static uint32_t next_handle;

/* --- sending ---------------------------------------------------------------- */

static int send_rec(struct pr_msg *m, const int *fds, int nfds, size_t len, int seq_skip)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE((PR_OPENV_MAX + 2) * sizeof(int))];
	} ctl;
	static char big[PR_MSG_SIZE + 128];
	struct iovec iov = { .iov_base = m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	ipc.send_seq += 1 + (uint32_t)seq_skip;
	m->h.seq = ipc.send_seq;
	if (len > sizeof(*m)) {
		memset(big, 0, sizeof(big));
		memcpy(big, m, sizeof(*m));
		iov.iov_base = big;
	}
	if (nfds > 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(ipc.fd, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* An honest answer, with the descriptor flag set to match. */
static void send_ok(struct pr_msg *m, const int *fds, int nfds)
{
	pr_ipc_send_fds(&ipc, m, fds, (size_t)nfds);
}

static int dev_null(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void fill_stat(struct pr_stat *st, uint32_t mode, uint64_t size)
{
	memset(st, 0, sizeof(*st));
	st->mode = mode;
	st->nlink = 1;
	st->size = size;
	st->mtime = 1700000000;
	st->uid = 1000;
	st->gid = 1000;
	st->dev = 1;
	st->ino = mode >> 12;
}

/* The file "f" the made-up module serves. */
static int file_fd(void)
{
	int fd = memfd_create("f", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, "hello\n", 6) != 6) {
		close(fd);
		return -1;
	}
	return fd;
}

/* --- crafted answers -------------------------------------------------------- */

static void set_unterminated(char *s, size_t cap, uint16_t *len)
{
	memset(s, 'E', cap);
	memcpy(s, "EVIL", 4);
	*len = 4;
}

/* Apply the point-specific FAULT to a good answer m; 1 if it was one. */
static int specific(struct pr_msg *m, int *fds, int *nfds)
{
	const char *f = fault;

	switch (m->h.type) {
	case PR_M_INIT: {
		struct pr_m_init *b = &m->u.init;

		if (!strcmp(f, "mode")) b->sandbox_mode = 7;
		else if (!strcmp(f, "uid0")) { b->sandbox_mode = PR_SANDBOX_ROOT; b->worker_uid = 0; b->worker_gid = 65534; }
		else if (!strcmp(f, "gid0")) { b->sandbox_mode = PR_SANDBOX_ROOT; b->worker_uid = 65534; b->worker_gid = 0; }
		else if (!strcmp(f, "uidmax")) { b->sandbox_mode = PR_SANDBOX_ROOT; b->worker_uid = UINT32_MAX; }
		else if (!strcmp(f, "timeout0")) b->handshake_timeout = 0;
		else if (!strcmp(f, "timeout-big")) b->handshake_timeout = 3601;
		else if (!strcmp(f, "motd-nofd")) b->has_motd = 1;
		else if (!strcmp(f, "fd-nomotd")) { fds[0] = dev_null(); *nfds = 1; m->h.flags |= PR_F_FD; }
		else if (!strcmp(f, "motd2")) { b->has_motd = 2; fds[0] = dev_null(); *nfds = 1; m->h.flags |= PR_F_FD; }
		else if (!strcmp(f, "proto26")) b->max_protocol = 26;
		else if (!strcmp(f, "proto33")) b->max_protocol = 33;
		else if (!strcmp(f, "chroot-rel")) pr_str_set_path(&b->chroot_dir, "EVIL/relative");
		else if (!strcmp(f, "chroot-dotdot")) pr_str_set_path(&b->chroot_dir, "/tmp/../EVIL");
		else if (!strcmp(f, "chroot-str")) set_unterminated(b->chroot_dir.s, sizeof(b->chroot_dir.s), &b->chroot_dir.len);
		else if (!strcmp(f, "addr-str")) set_unterminated(b->client_addr.s, sizeof(b->client_addr.s), &b->client_addr.len);
		else return 0;
		return 1;
	}
	case PR_M_MODLIST: {
		struct pr_m_modlist *b = &m->u.modlist;

		if (!strcmp(f, "name-empty")) { pr_str_set_name(&b->name, ""); pr_str_set_text(&b->comment, "EVIL"); }
		else if (!strcmp(f, "name-str")) set_unterminated(b->name.s, sizeof(b->name.s), &b->name.len);
		else if (!strcmp(f, "comment-str")) set_unterminated(b->comment.s, sizeof(b->comment.s), &b->comment.len);
		else if (!strcmp(f, "len-lie")) b->name.len = 2; /* "pub" with len 2: the NUL is not at len */
		else return 0;
		return 1;
	}
	case PR_M_AUTHREQ: {
		struct pr_str_name *c = &m->u.authreq.challenge;

		if (!strcmp(f, "chal-short")) pr_str_set_name(c, "EVILEVILEVILEVILEVILE");
		else if (!strcmp(f, "pad")) pr_str_set_name(c, "EVILEVILEVILEVILEVIL==");
		else if (!strcmp(f, "newline")) pr_str_set_name(c, "EVILEVILEVILEVILEVIL\n@ERROR: EVIL");
		else if (!strcmp(f, "blank")) pr_str_set_name(c, "EVILEVILEVILEVILEVIL EVIL");
		else if (!strcmp(f, "chal-long")) { memset(c->s, 'E', 100); c->s[100] = '\0'; c->len = 100; }
		else if (!strcmp(f, "str")) set_unterminated(c->s, sizeof(c->s), &c->len);
		else if (!strcmp(f, "timeout0")) m->u.authreq.timeout = 0;
		else return 0;
		return 1;
	}
	case PR_M_SELECT: {
		struct pr_m_select *b = &m->u.select;

		if (!strcmp(f, "status3")) b->status = 3;
		else if (!strcmp(f, "ok-with-error")) pr_str_set_text(&b->error, "@ERROR: EVIL");
		else if (!strcmp(f, "ok-module-empty")) pr_str_set_name(&b->module, "");
		else if (!strcmp(f, "ro2")) b->read_only = 2;
		else if (!strcmp(f, "numeric2")) b->numeric_ids = 2;
		else if (!strcmp(f, "module-str")) set_unterminated(b->module.s, sizeof(b->module.s), &b->module.len);
		else if (!strcmp(f, "dc-str")) set_unterminated(b->dont_compress.s, sizeof(b->dont_compress.s), &b->dont_compress.len);
		else if (!strcmp(f, "timeout-big")) b->timeout = PR_TIMEOUT_MAX + 1;
		else if (!strcmp(f, "args0")) b->args_timeout = 0;
		else if (!strcmp(f, "args-big")) b->args_timeout = 3601;
		else {
			/* the error forms */
			memset(b, 0, sizeof(*b));
			b->status = PR_SELECT_ERROR;
			if (!strcmp(f, "error-noprefix")) pr_str_set_text(&b->error, "EVIL: no prefix");
			else if (!strcmp(f, "error-newline")) pr_str_set_text(&b->error, "@ERROR: x\nEVIL");
			else if (!strcmp(f, "error-empty")) ;
			else if (!strcmp(f, "error-with-module")) { pr_str_set_text(&b->error, "@ERROR: EVIL"); pr_str_set_name(&b->module, "pub"); }
			else if (!strcmp(f, "error-ro")) { pr_str_set_text(&b->error, "@ERROR: EVIL"); b->read_only = 1; }
			else if (!strcmp(f, "error-str")) set_unterminated(b->error.s, sizeof(b->error.s), &b->error.len);
			else if (!strcmp(f, "error-timeout")) { pr_str_set_text(&b->error, "@ERROR: EVIL"); b->timeout = 5; }
			else return 0;
		}
		return 1;
	}
	case PR_M_STAT: {
		struct pr_m_stat *b = &m->u.mstat;

		if (!strcmp(f, "err-neg")) b->err = -1;
		else if (!strcmp(f, "err-big")) b->err = 4096;
		else if (!strcmp(f, "err-with-link")) { b->err = 2; b->link_state = PR_LINK_INLINE; pr_str_set_name(&b->link, "EVIL"); }
		else if (!strcmp(f, "nsec")) b->st.mtime_nsec = 1000000000u;
		else if (!strcmp(f, "mode0")) b->st.mode = 0644;
		else if (!strcmp(f, "mode-bits")) b->st.mode |= 0x10000000u;
		else if (!strcmp(f, "link-on-dir")) { b->link_state = PR_LINK_INLINE; pr_str_set_name(&b->link, "EVIL"); }
		else if (!strcmp(f, "lnk-none")) b->st.mode = 0120777;
		else if (!strcmp(f, "linkstate5")) b->link_state = 5;
		else if (!strcmp(f, "link-str")) set_unterminated(b->link.s, sizeof(b->link.s), &b->link.len);
		else return 0;
		return 1;
	}
	case PR_M_LIST: {
		struct pr_m_list *b = &m->u.list;
		struct pr_stat st;
		struct pr_dirent_hdr h;

		fill_stat(&st, 0100644, 6);
		if (!strcmp(f, "name-slash")) pr_list_add(b, &st, 0, "EVIL/x", 6, PR_LINK_NONE, NULL, 0);
		else if (!strcmp(f, "name-dot")) pr_list_add(b, &st, 0, ".", 1, PR_LINK_NONE, NULL, 0);
		else if (!strcmp(f, "name-dotdot")) pr_list_add(b, &st, 0, "..", 2, PR_LINK_NONE, NULL, 0);
		else if (!strcmp(f, "name-nul")) pr_list_add(b, &st, 0, "EV\0L", 4, PR_LINK_NONE, NULL, 0);
		else if (!strcmp(f, "count")) b->count++;
		else if (!strcmp(f, "zero")) { b->count = 0; b->used = 0; }
		else if (!strcmp(f, "used")) b->used = (uint32_t)sizeof(b->data) + 1;
		else if (!strcmp(f, "trunc")) b->used -= 1;
		else if (!strcmp(f, "err")) pr_list_add(b, &st, -5, "EVIL", 4, PR_LINK_NONE, NULL, 0);
		else if (!strcmp(f, "mode")) { st.mode = 0; pr_list_add(b, &st, 0, "EVIL", 4, PR_LINK_NONE, NULL, 0); }
		else if (!strcmp(f, "linkstate")) pr_list_add(b, &st, 0, "EVIL", 4, 5, NULL, 0);
		else if (!strcmp(f, "link-on-file")) pr_list_add(b, &st, 0, "EVIL", 4, PR_LINK_INLINE, "x", 1);
		else if (!strcmp(f, "lnk-none")) { st.mode = 0120777; pr_list_add(b, &st, 0, "EVIL", 4, PR_LINK_NONE, NULL, 0); }
		else if (!strcmp(f, "namelen0")) {
			memset(&h, 0, sizeof(h));
			h.st = st;
			memcpy(b->data + b->used, &h, sizeof(h));
			b->used += sizeof(h);
			b->count++;
		} else return 0;
		return 1;
	}
	case PR_M_LIST_END:
		if (!strcmp(f, "err-neg")) m->u.list_end.err = -1;
		else if (!strcmp(f, "err-big")) m->u.list_end.err = 5000;
		else return 0;
		return 1;
	case PR_M_READLINK: {
		struct pr_m_readlink *b = &m->u.readlink;

		if (!strcmp(f, "empty-ok")) pr_str_set_relpath(&b->target, "");
		else if (!strcmp(f, "err-with-target")) { b->err = 2; pr_str_set_relpath(&b->target, "EVIL"); }
		else if (!strcmp(f, "err-neg")) { b->err = -1; pr_str_set_relpath(&b->target, ""); }
		else if (!strcmp(f, "str")) set_unterminated(b->target.s, sizeof(b->target.s), &b->target.len);
		else return 0;
		return 1;
	}
	case PR_M_XFERLOG: {
		struct pr_m_xferlog *b = &m->u.xferlog;

		if (!strcmp(f, "files2")) b->files = 2;
		else if (!strcmp(f, "pid0")) b->pid = 0;
		else if (!strcmp(f, "pid-neg")) b->pid = 0x80000000u;
		else if (!strcmp(f, "format-str")) b->format.len = 5; /* "" with a length that lies */
		else if (!strcmp(f, "path-str")) b->path.s[0] = 'x'; /* no NUL where the length says */
		else return 0;
		return 1;
	}
	case PR_M_XATTR:
		if (!strcmp(f, "used0")) m->u.xattr.used = 0;
		else if (!strcmp(f, "used-big")) m->u.xattr.used = PR_XATTR_DATA + 1;
		else return 0;
		return 1;
	case PR_M_XATTR_END: {
		struct pr_m_xattr_end *b = &m->u.xattr_end;

		if (!strcmp(f, "err-neg")) { b->err = -1; b->count = b->total = 0; }
		else if (!strcmp(f, "err-with-count")) { b->err = 2; b->count = 1; b->total = 9; }
		else if (!strcmp(f, "count-big")) { b->count = PR_XATTR_COUNT_MAX + 1; b->total = 9; }
		else if (!strcmp(f, "total-big")) { b->count = 1; b->total = PR_XATTR_TOTAL_MAX + 1; }
		else if (!strcmp(f, "count-no-total")) { b->count = 1; b->total = 0; }
		else return 0;
		return 1;
	}
	case PR_M_OPENV: {
		/* the worker asked for "f" alone: e[0] is its answer */
		struct pr_m_openv *b = &m->u.mopenv;
		struct pr_openv_ent *e = &b->e[0];

		if (!strcmp(f, "nofd")) { close(fds[0]); *nfds = 0; m->h.flags &= (uint16_t)~PR_F_FD; }
		else if (!strcmp(f, "fd-with-err")) { e->err = 2; e->handle = 0; memset(&e->st, 0, sizeof(e->st)); }
		else if (!strcmp(f, "mode-dir")) e->st.mode = 040755;
		else if (!strcmp(f, "handle0")) e->handle = 0;
		else if (!strcmp(f, "nsec")) e->st.atime_nsec = 1000000000u;
		else if (!strcmp(f, "err-big")) {
			close(fds[0]);
			*nfds = 0;
			m->h.flags &= (uint16_t)~PR_F_FD;
			memset(e, 0, sizeof(*e));
			e->err = 99999;
			b->nfds = 0;
		}
		else if (!strcmp(f, "count0")) b->count = 0;
		else if (!strcmp(f, "count-more")) { b->count = 2; b->e[1].err = ENOENT; }
		else if (!strcmp(f, "count17")) b->count = PR_OPENV_MAX + 1;
		else if (!strcmp(f, "nfds-lie")) b->nfds = 2;
		else if (!strcmp(f, "after-count")) b->e[PR_OPENV_MAX - 1].err = ENOENT;
		else if (!strcmp(f, "err-with-handle")) { b->e[1] = *e; b->e[1].err = 2; b->count = 2; }
		else return 0;
		return 1;
	}
	case PR_M_IDNAME: {
		struct pr_m_idname *b = &m->u.midname;

		if (!strcmp(f, "found-empty")) { b->found = 1; pr_str_set_name(&b->name, ""); }
		else if (!strcmp(f, "found2")) b->found = 2;
		else if (!strcmp(f, "notfound-with-name")) { b->found = 0; pr_str_set_name(&b->name, "EVIL"); }
		else if (!strcmp(f, "str")) set_unterminated(b->name.s, sizeof(b->name.s), &b->name.len);
		else return 0;
		return 1;
	}
	default:
		return 0;
	}
}

/*
 * Send answer m (descriptor fd or -1), honestly unless this is the point
 * of the case; then craft it.  Semantic faults (a valid answer with a
 * descriptor that lies) are handled by the caller before this.
 */
static void answer_fds(struct pr_msg *m, const int *given, int ngiven, const char *here)
{
	int fds[PR_OPENV_MAX + 2], nfds = ngiven, skip = 0;
	size_t len = 0; /* 0: the record as pr_ipc_send frames it, after the fault */
	struct pr_msg other;

	memcpy(fds, given, (size_t)ngiven * sizeof(int));
	if (injected || strcmp(here, point) != 0) {
		send_ok(m, fds, nfds);
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		return;
	}
	injected = 1;
	/* the same flag rule pr_ipc_send applies, before the fault */
	m->h.flags = nfds ? PR_F_FD : 0;
	if (!strcmp(fault, "len")) m->h.len += 1;
	else if (!strcmp(fault, "magic")) m->h.magic = 0x45564c21u;
	else if (!strcmp(fault, "seq")) skip = 1;
	else if (!strcmp(fault, "short")) len = sizeof(m->h) + m->h.len < 101 ? sizeof(m->h) + m->h.len - 1 : 100;
	else if (!strcmp(fault, "big")) len = sizeof(*m) + 100;
	else if (!strcmp(fault, "flagbad")) m->h.flags |= 0x0200;
	else if (!strcmp(fault, "fds2")) { fds[nfds++] = dev_null(); if (nfds == 1) fds[nfds++] = dev_null(); m->h.flags |= PR_F_FD; }
	else if (!strcmp(fault, "dir")) m->h.type = PR_W_READY;
	else if (!strcmp(fault, "type")) {
		pr_msg_init(&other, m->h.type == PR_M_IDNAME ? PR_M_LIST_END : PR_M_IDNAME);
		*m = other;
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		fds[0] = -1;
		nfds = 0;
	} else if (!strcmp(fault, "unsolicited")) {
		send_ok(m, fds, nfds);
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		pr_msg_init(&other, PR_M_MODLIST_END);
		send_ok(&other, NULL, 0);
		return;
	} else if (!specific(m, fds, &nfds)) {
		fprintf(stderr, "fake_monitor: unknown fault %s for %s\n", fault, point);
		exit(3);
	}
	if (len == 0)
		len = sizeof(m->h) + (m->h.len <= PR_MSG_BODY_MAX ? m->h.len : PR_MSG_BODY_MAX);
	send_rec(m, fds, nfds, len, skip);
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void answer(struct pr_msg *m, int fd, const char *here)
{
	answer_fds(m, &fd, fd >= 0, here);
}

/* --- the made-up module ----------------------------------------------------- */

/* The descriptor for "f": the file, or at the "open" point the semantic
 * lies (a valid answer whose descriptor is not what it says). */
static int open_f(struct pr_stat *st)
{
	int fd = -1;

	if (!injected && strcmp(point, "open") == 0 && strcmp(fault, "pipe") == 0) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) == 0) {
			(void)!write(p[1], "hel", 3);
			close(p[1]);
			fd = p[0];
		}
		injected = 1;
	} else if (!injected && strcmp(point, "open") == 0 && strcmp(fault, "dirfd") == 0) {
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		injected = 1;
	} else if (!injected && strcmp(point, "open") == 0 && strcmp(fault, "size-lie") == 0) {
		fd = file_fd();
		st->size = 1 << 20;
		injected = 1;
	} else {
		fd = file_fd();
	}
	return fd;
}

static void serve_request(const struct pr_msg *r)
{
	struct pr_msg m;
	const char *path = r->u.path.path.s;

	switch (r->h.type) {
	case PR_W_MODLIST:
		pr_msg_init(&m, PR_M_MODLIST);
		pr_str_set_name(&m.u.modlist.name, "pub");
		pr_str_set_text(&m.u.modlist.comment, "a made-up module");
		answer(&m, -1, "modlist");
		pr_msg_init(&m, PR_M_MODLIST_END);
		answer(&m, -1, "modlist_end");
		break;
	case PR_W_SELECT:
		if (strcmp(point, "authreq") == 0 && !injected) {
			pr_msg_init(&m, PR_M_AUTHREQ);
			pr_str_set_name(&m.u.authreq.challenge, "Q2hhbGxlbmdlQ2hhbGxlbmdl");
			m.u.authreq.timeout = 30;
			answer(&m, -1, "authreq");
			break;
		}
		/* the answer after a login, or the plain one */
		__attribute__((fallthrough));
	case PR_W_AUTH:
		pr_msg_init(&m, PR_M_SELECT);
		m.u.select.status = PR_SELECT_OK;
		m.u.select.read_only = 1;
		m.u.select.numeric_ids = strcmp(point, "idname") == 0 ? 0 : 1;
		pr_str_set_name(&m.u.select.module, "pub");
		m.u.select.args_timeout = 30;
		answer(&m, -1, "select");
		break;
	case PR_W_START:
		/* no transfer records: the worker then sends none */
		pr_msg_init(&m, PR_M_XFERLOG);
		m.u.xferlog.pid = (uint32_t)getpid();
		answer(&m, -1, "xferlog");
		break;
	case PR_W_STAT:
		pr_msg_init(&m, PR_M_STAT);
		path = r->u.stat.path.s;
		if (path[0] == '\0')
			fill_stat(&m.u.mstat.st, 040755, 4096);
		else if (strcmp(path, "f") == 0)
			fill_stat(&m.u.mstat.st, 0100644, 6);
		else
			m.u.mstat.err = ENOENT;
		answer(&m, -1, "stat");
		break;
	case PR_W_LIST: {
		struct pr_stat st;

		pr_msg_init(&m, PR_M_LIST);
		if (path[0] == '\0') {
			fill_stat(&st, 0100644, 6);
			pr_list_add(&m.u.list, &st, 0, "f", 1, PR_LINK_NONE, NULL, 0);
			fill_stat(&st, 0120777, 300);
			pr_list_add(&m.u.list, &st, 0, "l", 1, PR_LINK_LONG, NULL, 0);
			answer(&m, -1, "list");
		}
		pr_msg_init(&m, PR_M_LIST_END);
		answer(&m, -1, "list_end");
		break;
	}
	case PR_W_READLINK: {
		char target[301];

		pr_msg_init(&m, PR_M_READLINK);
		memset(target, 'x', 300);
		target[300] = '\0';
		pr_str_set_relpath(&m.u.readlink.target, target);
		answer(&m, -1, "readlink");
		break;
	}
	case PR_W_XATTR: {
		/* "f" has one attribute, user.a = "1"; the rest none.  Semantic
		 * lies pass the validator: a malformed record, totals that do not
		 * match the pieces, more pieces than the bound. */
		static const unsigned char rec[] = { 6, 0, 1, 0, 0, 0, 'u', 's', 'e', 'r', '.', 'a', '1' };
		int here = !injected && strcmp(point, "xattr") == 0;
		uint32_t count = 0, total = 0;

		if (strcmp(r->u.stat.path.s, "f") == 0) {
			pr_msg_init(&m, PR_M_XATTR);
			memcpy(m.u.xattr.data, rec, sizeof(rec));
			m.u.xattr.used = sizeof(rec);
			if (here && strcmp(fault, "rec-bad") == 0) {
				m.u.xattr.data[0] = 0; /* a name of 0 bytes */
				injected = 1;
			} else if (here && strcmp(fault, "overflow") == 0) {
				m.u.xattr.used = PR_XATTR_DATA;
				for (uint32_t i = 0; i <= PR_XATTR_TOTAL_MAX / PR_XATTR_DATA; i++)
					send_ok(&m, NULL, 0);
				injected = 1;
			}
			answer(&m, -1, "xattr");
			count = 1;
			total = sizeof(rec);
		}
		pr_msg_init(&m, PR_M_XATTR_END);
		m.u.xattr_end.count = count;
		m.u.xattr_end.total = total;
		if (!injected && strcmp(point, "xattr_end") == 0 && strcmp(fault, "total-lie") == 0) {
			if (!count) { /* lie about one with records */
				send_ok(&m, NULL, 0);
				break;
			}
			m.u.xattr_end.total = total + 1;
			injected = 1;
		}
		answer(&m, -1, "xattr_end");
		break;
	}
	case PR_W_OPENV: {
		const char *p;
		size_t off = 0, len;
		int fds[PR_OPENV_MAX], nfds = 0;

		pr_msg_init(&m, PR_M_OPENV);
		while (m.u.mopenv.count < PR_OPENV_MAX && pr_openv_next(&r->u.openv, &off, &p, &len) == 1) {
			struct pr_openv_ent *e = &m.u.mopenv.e[m.u.mopenv.count++];

			if (strcmp(p, "f") != 0) {
				e->err = ENOENT;
				continue;
			}
			fill_stat(&e->st, 0100644, 6);
			e->handle = ++next_handle;
			fds[nfds++] = open_f(&e->st);
		}
		m.u.mopenv.nfds = (uint32_t)nfds;
		answer_fds(&m, fds, nfds, "open");
		break;
	}
	case PR_W_IDNAME:
		pr_msg_init(&m, PR_M_IDNAME);
		m.u.midname.found = 1;
		pr_str_set_name(&m.u.midname.name, "fakeuser");
		answer(&m, -1, "idname");
		break;
	default:
		break;
	}
}

static void note_after(const struct pr_msg *m)
{
	size_t n = strlen(after);

	if (injected && n + 32 < sizeof(after))
		snprintf(after + n, sizeof(after) - n, "%s%s", n ? "," : "", pr_msg_type_name(m->h.type));
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pr_msg init;
	int lfd, cfd, sv[2], status = 0, one = 1, exit_code = -1;
	pid_t w;
	FILE *rf;
	struct passwd *pw;
	char *const wargv[] = { (char *)"prsyncd-worker", NULL };
	char *const wenv[] = { NULL };
	int64_t end;

	if (argc != 6 || sscanf(argv[5], "%31[^:]:%31s", point, fault) != 2) {
		fprintf(stderr, "usage: fake_monitor WORKER CHROOT PORT READYFILE POINT:FAULT\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sa.sin_port = htons((uint16_t)atoi(argv[3]));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0) {
		perror("fake_monitor: listen");
		return 2;
	}
	if ((rf = fopen(argv[4], "w")) != NULL)
		fclose(rf);
	struct pollfd lp = { .fd = lfd, .events = POLLIN };
	if (poll(&lp, 1, 30000) != 1 || (cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		fprintf(stderr, "fake_monitor: no client\n");
		return 2;
	}
	close(lfd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return 2;
	w = fork();
	if (w == 0) {
		int n = open("/dev/null", O_RDWR);

		if (dup2(cfd, PR_FD_CLIENT) < 0 || dup2(sv[1], PR_FD_IPC) < 0)
			_exit(127);
		dup2(n, 0);
		dup2(n, 1);
		close_range(PR_FD_IPC + 1, ~0U, 0);
		execve(argv[1], wargv, wenv);
		_exit(127);
	}
	close(sv[1]);
	close(cfd);
	pr_ipc_init(&ipc, sv[0], pr_msg_validate_w2m);

	pr_msg_init(&init, PR_M_INIT);
	init.u.init.handshake_timeout = 10;
	init.u.init.max_protocol = 32;
	pr_str_set_text(&init.u.init.client_addr, "127.0.0.1");
	pr_str_set_path(&init.u.init.chroot_dir, argv[2]);
	pw = getpwnam("nobody");
	if (geteuid() == 0 && pw != NULL) {
		init.u.init.sandbox_mode = PR_SANDBOX_ROOT;
		init.u.init.worker_uid = pw->pw_uid;
		init.u.init.worker_gid = pw->pw_gid;
	} else {
		init.u.init.sandbox_mode = PR_SANDBOX_USERNS;
	}
	answer(&init, -1, "init");

	/* Serve until the worker hangs up, bounded to 30 s. */
	end = now_ms() + 30000;
	while (now_ms() < end) {
		struct pollfd p = { .fd = ipc.fd, .events = POLLIN };
		struct pr_msg m;
		const char *why;
		int fd;
		enum pr_ipc_result r;

		if (poll(&p, 1, 1000) != 1)
			continue;
		r = pr_ipc_recv(&ipc, &m, &fd, &why);
		if (r == PR_IPC_EOF || r == PR_IPC_ERR)
			break;
		if (r == PR_IPC_INVALID) {
			fprintf(stderr, "fake_monitor: invalid message from the worker: %s\n", why);
			break;
		}
		if (fd >= 0)
			close(fd);
		note_after(&m);
		if (m.h.type == PR_W_LOG) {
			snprintf(last_log, sizeof(last_log), "%s", m.u.log.text.s);
			continue;
		}
		if (m.h.type == PR_W_EXIT) {
			exit_code = (int)m.u.exit.code;
			continue;
		}
		if (m.h.type == PR_W_READY)
			continue;
		serve_request(&m);
	}
	close(ipc.fd);
	for (int i = 0; i < 200 && waitpid(w, &status, WNOHANG) == 0; i++)
		usleep(50000);
	if (waitpid(w, &status, WNOHANG) == 0) {
		kill(w, SIGKILL);
		waitpid(w, &status, 0);
		printf("RESULT case=%s:%s worker did not exit: killed\n", point, fault);
		return 1;
	}
	for (char *c = last_log; *c; c++)
		if (*c == '\n' || *c < 0x20)
			*c = ' ';
	printf("RESULT case=%s:%s injected=%s status=%s:%d announced=%d after=%s log=%s\n", point, fault,
	       injected ? "yes" : "no", WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), exit_code, after, last_log);
	return 0;
}
