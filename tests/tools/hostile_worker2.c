/* SPDX-License-Identifier: ISC */
/*
 * A second hostile stand-in for prsyncd-worker (see hostile_worker.c for
 * the first): it completes the attack on the session monitor.  Started by
 * the monitor exactly like the real worker (client socket on fd 3, channel
 * on fd 4), it reads one mode line from the test client and then:
 *
 *   hdr FAULT TYPE   a worker request of TYPE (every one of the fourteen),
 *                    broken in one way: len (body length), fd (a descriptor
 *                    rides along), flagfd (descriptor flag, no descriptor),
 *                    flagbad (unknown flag bit), magic, field (a body field
 *                    out of range), str (an unterminated string)
 *   dir TYPE         a monitor-to-worker type sent by the worker
 *   fds K            a record carrying K descriptors
 *   unread           a pipe with data in it sent to the monitor: a child
 *                    reports afterwards whether the monitor read from it
 *   oos CASE         a valid request in a state that does not permit it
 *   repeat-select N, repeat-idname N, open-quota N, open-close N,
 *   list-flood N, list-noread N, log-flood N LEN   repetition and volume
 *   ftype            every file type through STAT/OPEN/READLINK/LIST
 *   swap N           requests racing a symlink swap done by the test
 *   proc             magic links, with a module whose path is /proc
 *   auth-line KIND   a login's response line that is garbage: long (no
 *                    blank), blank (an empty user), ctrl (control bytes)
 *   auth-silent      a challenge never answered: the handshake deadline ends it
 *
 * Results go to the client as text lines; "HOLD NAME" waits (bounded) for
 * the client's "go", so the test can read the monitor's /proc entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fds.h"
#include "hostile_common.h"
#include "ipc.h"
#include "msg.h"

/* One record with the next sequence number, flags as given, optional
 * descriptors: the raw way to send what pr_ipc_send would not. */
static int send_rec(struct pr_msg *m, const int *fds, int nfds, int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(32 * sizeof(int))];
	} ctl;
	/* the record is the header and the body its length states */
	size_t len = sizeof(m->h) + (m->h.len <= PR_MSG_BODY_MAX ? m->h.len : PR_MSG_BODY_MAX);
	struct iovec iov = { .iov_base = m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	m->h.seq = ++hw_ipc.send_seq;
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
	return sendmsg(hw_ipc.fd, &mh, MSG_NOSIGNAL | flags) == (ssize_t)len ? 0 : -1;
}

/* The module "auth" asks for a login: the monitor's challenge must come. */
static int begin_auth(void)
{
	struct pr_msg m;
	int fd;

	pr_msg_init(&m, PR_W_SELECT);
	pr_str_set_name(&m.u.wselect.module, "auth");
	hw_send(&m);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_AUTHREQ) {
		hw_report("AUTHREQ missing");
		return -1;
	}
	hw_report("CHALLENGE %s", m.u.authreq.challenge.s);
	return 0;
}

/* --- the fourteen worker requests, valid, then broken ---------------------- */

/* fs: 1 = after selecting "pub", 2 = after the challenge of "auth" */
static const struct { const char *name; enum pr_msg_type type; int fs; } wtypes[] = {
	{ "READY", PR_W_READY, 0 },     { "LOG", PR_W_LOG, 0 },       { "MODLIST", PR_W_MODLIST, 0 },
	{ "SELECT", PR_W_SELECT, 0 },   { "EXIT", PR_W_EXIT, 0 },     { "LIST", PR_W_LIST, 1 },
	{ "STAT", PR_W_STAT, 1 },       { "READLINK", PR_W_READLINK, 1 }, { "IDNAME", PR_W_IDNAME, 1 },
	{ "HELLO", PR_W_HELLO, 0 },     { "AUTH", PR_W_AUTH, 2 }, { "XATTR", PR_W_XATTR, 1 },
	{ "OPENV", PR_W_OPENV, 1 },     { "CLOSEV", PR_W_CLOSEV, 1 },
};

static const struct { const char *name; enum pr_msg_type type; } mtypes[] = {
	{ "INIT", PR_M_INIT }, { "MODLIST", PR_M_MODLIST }, { "MODLIST_END", PR_M_MODLIST_END },
	{ "SELECT", PR_M_SELECT }, { "LIST", PR_M_LIST }, { "LIST_END", PR_M_LIST_END },
	{ "STAT", PR_M_STAT }, { "READLINK", PR_M_READLINK },
	{ "IDNAME", PR_M_IDNAME }, { "AUTHREQ", PR_M_AUTHREQ }, { "XATTR", PR_M_XATTR }, { "XATTR_END", PR_M_XATTR_END }, { "OPENV", PR_M_OPENV },
};

static void build_valid(struct pr_msg *m, enum pr_msg_type t)
{
	pr_msg_init(m, t);
	switch (t) {
	case PR_W_READY: m->u.ready.pid = (uint32_t)getpid(); break;
	case PR_W_LOG: m->u.log.level = PR_LOG_INFO; pr_str_set_text(&m->u.log.text, "x"); break;
	case PR_W_SELECT: pr_str_set_name(&m->u.wselect.module, "pub"); break;
	case PR_W_STAT: case PR_W_XATTR: pr_str_set_relpath(&m->u.stat.path, "file"); break;
	case PR_W_LIST: case PR_W_READLINK: pr_str_set_relpath(&m->u.path.path, "file"); break;
	case PR_W_IDNAME: m->u.idname.kind = PR_ID_USER; break;
	case PR_W_HELLO: m->u.hello.protocol = 32; pr_str_set_text(&m->u.hello.digests, "sha512 md5"); break;
	case PR_W_AUTH: pr_str_set_text(&m->u.auth.line, "alice AAAA"); break;
	case PR_W_OPENV: pr_openv_add(&m->u.openv, "file"); break;
	case PR_W_CLOSEV: m->u.closev.nclosed = 1; m->u.closev.closed[0] = 1; break;
	default: break;
	}
}

/* Break one body field of a valid message; 0 if the type has none. */
static int bad_field(struct pr_msg *m)
{
	switch (m->h.type) {
	case PR_W_READY: m->u.ready.pid = 0; return 1;
	case PR_W_LOG: m->u.log.level = 5; return 1;
	case PR_W_SELECT: pr_str_set_name(&m->u.wselect.module, ""); return 1;
	case PR_W_EXIT: m->u.exit.code = 256; return 1;
	case PR_W_STAT: case PR_W_XATTR: m->u.stat.flags = 0x80; return 1;
	case PR_W_LIST: case PR_W_READLINK: pr_str_set_relpath(&m->u.path.path, "a/../file"); return 1;
	case PR_W_IDNAME: m->u.idname.kind = 0; return 1;
	case PR_W_HELLO: m->u.hello.protocol = 26; return 1;
	case PR_W_AUTH: pr_str_set_text(&m->u.auth.line, "alice AAAA\nbob BBBB"); return 1;
	case PR_W_OPENV: m->u.openv.count = 2; return 1;   /* one path packed */
	case PR_W_CLOSEV: m->u.closev.closed[0] = 0; return 1;
	default: return 0;
	}
}

/* An unterminated counted string; 0 if the type has none. */
static int bad_str(struct pr_msg *m)
{
	char *s;
	size_t cap;
	uint16_t *len;

	switch (m->h.type) {
	case PR_W_LOG: s = m->u.log.text.s; cap = sizeof(m->u.log.text.s); len = &m->u.log.text.len; break;
	case PR_W_SELECT: s = m->u.wselect.module.s; cap = sizeof(m->u.wselect.module.s); len = &m->u.wselect.module.len; break;
	case PR_W_STAT: case PR_W_XATTR: s = m->u.stat.path.s; cap = sizeof(m->u.stat.path.s); len = &m->u.stat.path.len; break;
	case PR_W_LIST: case PR_W_READLINK:
		s = m->u.path.path.s; cap = sizeof(m->u.path.path.s); len = &m->u.path.path.len; break;
	case PR_W_HELLO: s = m->u.hello.digests.s; cap = sizeof(m->u.hello.digests.s); len = &m->u.hello.digests.len; break;
	case PR_W_AUTH: s = m->u.auth.line.s; cap = sizeof(m->u.auth.line.s); len = &m->u.auth.line.len; break;
	case PR_W_OPENV:
		/* a packed path that is not a clean module path */
		pr_msg_init(m, PR_W_OPENV);
		return pr_openv_add(&m->u.openv, "a/../file") == 0;
	default: return 0;
	}
	memset(s, 'A', cap);
	*len = 3;
	return 1;
}

static int mode_hdr(const char *fault, const char *tname)
{
	struct pr_msg m;
	size_t i;
	int fd = -1, flags = 0;

	for (i = 0; i < sizeof(wtypes) / sizeof(wtypes[0]) && strcmp(wtypes[i].name, tname) != 0; i++)
		;
	if (i == sizeof(wtypes) / sizeof(wtypes[0]))
		return 3;
	if (wtypes[i].type != PR_W_READY)
		hw_ready();
	if (wtypes[i].fs == 1 && hw_select("pub") < 0)
		return 1;
	if (wtypes[i].fs == 2 && begin_auth() < 0)
		return 1;
	build_valid(&m, wtypes[i].type);
	if (strcmp(fault, "len") == 0) {
		m.h.len += 1;
	} else if (strcmp(fault, "fd") == 0) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		m.h.flags |= PR_F_FD;
	} else if (strcmp(fault, "flagfd") == 0) {
		m.h.flags |= PR_F_FD;
	} else if (strcmp(fault, "flagbad") == 0) {
		m.h.flags |= 0x0100;
	} else if (strcmp(fault, "magic") == 0) {
		m.h.magic ^= 0x01000000u;
	} else if (strcmp(fault, "field") == 0) {
		if (!bad_field(&m))
			return 3;
	} else if (strcmp(fault, "str") == 0) {
		if (!bad_str(&m))
			return 3;
	} else {
		return 3;
	}
	hw_report("SENT %s %s", fault, tname);
	send_rec(&m, fd >= 0 ? &fd : NULL, fd >= 0, flags);
	return hw_wait_hangup();
}

static int mode_dir(const char *tname)
{
	struct pr_msg m;
	size_t i;

	for (i = 0; i < sizeof(mtypes) / sizeof(mtypes[0]) && strcmp(mtypes[i].name, tname) != 0; i++)
		;
	if (i == sizeof(mtypes) / sizeof(mtypes[0]))
		return 3;
	hw_ready();
	pr_msg_init(&m, mtypes[i].type);
	send_rec(&m, NULL, 0, 0);
	return hw_wait_hangup();
}

static int mode_fds(int k)
{
	struct pr_msg m;
	int fds[32];

	if (k < 1 || k > 32)
		return 3;
	hw_ready();
	for (int i = 0; i < k; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	build_valid(&m, PR_W_LOG);
	m.h.flags |= PR_F_FD;
	send_rec(&m, fds, k, 0);
	return hw_wait_hangup();
}

/*
 * A descriptor the monitor must drop unread: the read end of a pipe with
 * six bytes in it.  A child keeps a copy, waits until the monitor is gone,
 * and reports how many bytes are still in the pipe.
 */
static int mode_unread(void)
{
	struct pr_msg m;
	int p[2], sync[2], monitor = (int)getppid();
	char b;
	pid_t child;

	if (pipe2(p, O_CLOEXEC) < 0 || write(p[1], "CANARY", 6) != 6 || pipe2(sync, O_CLOEXEC) < 0)
		return 2;
	hw_ready();
	child = fork();
	if (child == 0) {
		int left = -1;

		/* out of the session's process group, which the listener
		 * kills with the monitor (the real worker cannot leave it:
		 * worker.policy has no setpgid), so it can report after; the
		 * parent waits for that before it ends the session */
		(void)setpgid(0, 0);
		(void)!write(sync[1], "x", 1);
		close(hw_ipc.fd);
		for (int i = 0; i < 200 && kill(monitor, 0) == 0; i++)
			usleep(100000);
		if (ioctl(p[0], FIONREAD, &left) < 0)
			left = -1;
		hw_report("UNREAD monitor_gone=%s bytes=%d", kill(monitor, 0) < 0 ? "yes" : "no", left);
		_exit(0);
	}
	close(sync[1]);
	if (child < 0 || read(sync[0], &b, 1) != 1)
		return 2;
	close(sync[0]);
	build_valid(&m, PR_W_LOG);
	m.h.flags |= PR_F_FD;
	send_rec(&m, &p[0], 1, 0);
	close(p[0]);
	close(p[1]);
	return hw_wait_hangup();
}

/* --- requests in states that do not permit them ------------------------------ */

static void drain_modlist(void)
{
	struct pr_msg m;
	int fd;

	for (int i = 0; i < 2000 && hw_answer(&m, &fd) == 0; i++) {
		if (fd >= 0)
			close(fd);
		if (m.h.type == PR_M_MODLIST_END)
			return;
	}
}

static int mode_oos(const char *c)
{
	struct pr_msg m;

	if (strcmp(c, "READY-twice") == 0) {
		hw_ready();
		hw_ready();
	} else if (strcmp(c, "MODLIST-before-READY") == 0) {
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
	} else if (strcmp(c, "LIST-before-READY") == 0) {
		hw_send_path(PR_W_LIST, "", 0);
	} else if (strcmp(c, "MODLIST-twice") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
		drain_modlist();
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
	} else if (strcmp(c, "SELECT-after-MODLIST") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
		drain_modlist();
		build_valid(&m, PR_W_SELECT);
		hw_send(&m);
	} else if (strcmp(c, "LIST-after-MODLIST") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
		drain_modlist();
		hw_send_path(PR_W_LIST, "", 0);
	} else if (strcmp(c, "MODLIST-after-SELECT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		pr_msg_init(&m, PR_W_MODLIST);
		hw_send(&m);
	} else if (strcmp(c, "READY-after-SELECT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		hw_ready();
	} else if (strcmp(c, "SELECT-after-failed-SELECT") == 0) {
		hw_ready();
		build_valid(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "nopath");
		hw_send(&m);
		if (hw_select("pub") == 0)
			return 1;
	} else if (strcmp(c, "LOG-after-EXIT") == 0) {
		hw_ready();
		hw_send_exit();
		build_valid(&m, PR_W_LOG);
		hw_send(&m);
	} else if (strcmp(c, "EXIT-twice") == 0) {
		hw_ready();
		hw_send_exit();
		hw_send_exit();
	} else if (strcmp(c, "READY-after-EXIT") == 0) {
		hw_send_exit(); /* EXIT is permitted before READY */
		hw_ready();
	} else if (strcmp(c, "AUTH-before-SELECT") == 0) {
		hw_ready();
		build_valid(&m, PR_W_AUTH);
		hw_send(&m);
	} else if (strcmp(c, "AUTH-after-SELECT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		build_valid(&m, PR_W_AUTH);
		hw_send(&m);
	} else if (strcmp(c, "AUTH-twice") == 0) {
		int fd;

		hw_ready();
		if (begin_auth() < 0)
			return 1;
		build_valid(&m, PR_W_AUTH);
		hw_send(&m);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_SELECT || m.u.select.status != PR_SELECT_ERROR)
			return 1;
		hw_report("AUTH refused: %s", m.u.select.error.s);
		build_valid(&m, PR_W_AUTH);
		hw_send(&m);
	} else if (strcmp(c, "SELECT-during-AUTH") == 0) {
		hw_ready();
		if (begin_auth() < 0)
			return 1;
		build_valid(&m, PR_W_SELECT);
		hw_send(&m);
	} else if (strcmp(c, "HELLO-after-SELECT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		build_valid(&m, PR_W_HELLO);
		hw_send(&m);
	} else if (strcmp(c, "HELLO-during-AUTH") == 0) {
		hw_ready();
		if (begin_auth() < 0)
			return 1;
		build_valid(&m, PR_W_HELLO);
		hw_send(&m);
	} else if (strcmp(c, "OPEN-after-EXIT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		hw_send_exit();
		hw_send_path(PR_W_OPENV, "file", 0);
	} else if (strcmp(c, "XATTR-before-SELECT") == 0) {
		hw_ready();
		hw_send_path(PR_W_XATTR, "file", 0);
	} else if (strcmp(c, "XATTR-after-EXIT") == 0) {
		hw_ready();
		if (hw_select("pub") < 0)
			return 1;
		hw_send_exit();
		hw_send_path(PR_W_XATTR, "file", PR_STAT_FOLLOW);
	} else {
		return 3;
	}
	return hw_wait_hangup();
}

/* A garbage response line: the monitor answers the selection with its
 * refusal (and logs why), it does not end the session. */
static int mode_auth_line(const char *kind)
{
	struct pr_msg m;
	char line[PR_TEXT_MAX];
	int fd;

	if (strcmp(kind, "long") == 0) {
		memset(line, 'x', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\0';
	} else if (strcmp(kind, "blank") == 0) {
		snprintf(line, sizeof(line), " AAAA");
	} else if (strcmp(kind, "ctrl") == 0) {
		snprintf(line, sizeof(line), "al\033[31mice\r AAAA");
	} else {
		return 3;
	}
	hw_ready();
	pr_msg_init(&m, PR_W_HELLO);
	m.u.hello.protocol = 32;
	pr_str_set_text(&m.u.hello.digests, "md5");
	hw_send(&m);
	if (begin_auth() < 0)
		return 1;
	pr_msg_init(&m, PR_W_AUTH);
	pr_str_set_text(&m.u.auth.line, line);
	hw_send(&m);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_SELECT) {
		hw_report("AUTH no answer");
		return 1;
	}
	hw_report("AUTH %s status=%u error=%s", kind, m.u.select.status, m.u.select.error.s);
	hw_send_exit();
	return hw_wait_hangup();
}

/* --- repetition and volume ----------------------------------------------------- */

static int mode_repeat_select(int n)
{
	struct pr_msg m;
	int fd, errors = 0;

	hw_ready();
	for (int i = 0; i < n; i++) {
		build_valid(&m, PR_W_SELECT);
		snprintf(m.u.wselect.module.s, sizeof(m.u.wselect.module.s), "nosuch%d", i);
		m.u.wselect.module.len = (uint16_t)strlen(m.u.wselect.module.s);
		hw_send(&m);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_SELECT)
			break;
		errors += m.u.select.status == PR_SELECT_ERROR;
	}
	hw_report("REPEAT-SELECT n=%d errors=%d", n, errors);
	if (hw_select("pub") < 0)
		return 1;
	hw_send_exit();
	return 0;
}

static int mode_repeat_idname(int n)
{
	struct pr_msg m;
	int fd, answered = 0, found = 0;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		pr_msg_init(&m, PR_W_IDNAME);
		m.u.idname.kind = i % 2 ? PR_ID_GROUP : PR_ID_USER;
		m.u.idname.id = (uint32_t)(i % 7 == 0 ? 0 : i);
		hw_send(&m);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_IDNAME)
			break;
		answered++;
		found += m.u.midname.found == 1;
	}
	hw_report("REPEAT-IDNAME n=%d answered=%d found=%d", n, answered, found);
	hw_send_exit();
	return 0;
}

static int open_one(const char *path, uint32_t *handle, int *err)
{
	int fd;

	hw_send_path(PR_W_OPENV, path, 0);
	if (hw_open_answer(err, &fd, handle) < 0) {
		*err = -1;
		return -1;
	}
	return fd;
}

static void close_one(int fd, uint32_t handle)
{
	close(fd);
	hw_send_close(handle);
}

/* N opens, none closed: the monitor's quota answers EMFILE beyond 32. */
static int mode_open_quota(int n)
{
	int fds[64], nfd = 0, ok = 0, emfile = 0, other = 0, err;
	uint32_t handles[64], h;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		int fd = open_one("file", &h, &err);

		if (err < 0) {
			hw_report("OPEN no answer at %d", i);
			break;
		}
		if (fd >= 0 && nfd < 64) {
			fds[nfd] = fd;
			handles[nfd++] = h;
			ok++;
		} else if (fd >= 0) {
			close(fd);
			ok++;
		} else if (err == EMFILE) {
			emfile++;
		} else {
			other++;
		}
	}
	hw_report("QUOTA n=%d ok=%d emfile=%d other=%d", n, ok, emfile, other);
	hw_await("HOLD quota");
	for (int i = 0; i < nfd; i++)
		close_one(fds[i], handles[i]);
	int fd = open_one("file", &h, &err);
	hw_report("AFTER-CLOSE err=%d fd=%s", err, fd >= 0 ? "yes" : "no");
	if (fd >= 0)
		close_one(fd, h);
	hw_send_exit();
	return 0;
}

/* N open/close pairs; each descriptor is dropped unread. */
static int mode_open_close(int n)
{
	int ok = 0, err;
	uint32_t h;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		int fd = open_one("file", &h, &err);

		if (fd < 0)
			break;
		ok++;
		close_one(fd, h);
	}
	hw_report("OPEN-CLOSE n=%d ok=%d", n, ok);
	hw_await("HOLD openclose");
	hw_send_exit();
	return 0;
}

/* One LIST, answers read; returns the number of entries, -1 on error. */
static int list_one(const char *path, int *err)
{
	struct pr_msg m;
	struct pr_dirent d;
	int fd, n = 0;

	hw_send_path(PR_W_LIST, path, 0);
	for (int i = 0; i < 100000; i++) {
		size_t off = 0;

		if (hw_answer(&m, &fd) < 0)
			return -1;
		if (m.h.type == PR_M_LIST_END) {
			*err = m.u.list_end.err;
			return n;
		}
		if (m.h.type != PR_M_LIST)
			return -1;
		while (pr_list_next(&m.u.list, &off, &d) == 1)
			n++;
	}
	return -1;
}

static int mode_list_flood(int n)
{
	long entries = 0;
	int done = 0, err = 0;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	for (int i = 0; i < 100; i++)
		list_one("many", &err);
	hw_await("HOLD list100");
	for (int i = 0; i < n; i++) {
		int e = list_one("many", &err);

		if (e < 0 || err != 0)
			break;
		entries += e;
		done++;
	}
	hw_report("LIST-FLOOD n=%d done=%d entries=%ld", n, done, entries);
	hw_await("HOLD listN");
	hw_send_exit();
	return 0;
}

/* Requests sent as fast as the channel takes them, no answer read, then
 * the channel closed: the monitor, blocked sending, must end cleanly. */
static int mode_list_noread(int n)
{
	struct pr_msg m;
	int sent = 0;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		pr_msg_init(&m, PR_W_LIST);
		pr_str_set_relpath(&m.u.path.path, "many");
		if (send_rec(&m, NULL, 0, MSG_DONTWAIT) < 0) {
			hw_ipc.send_seq--;
			break;
		}
		sent++;
	}
	hw_report("LIST-NOREAD sent=%d", sent);
	hw_await("HOLD noread");
	_exit(0);
}

static int mode_log_flood(int n, int len)
{
	struct pr_msg m;
	char text[PR_TEXT_MAX];

	if (len < 32 || len >= (int)PR_TEXT_MAX)
		return 3;
	hw_ready();
	for (int i = 0; i < n; i++) {
		int k = snprintf(text, sizeof(text), "flood %d \001\033[2J\r\n2026/01/01 00:00:00 [1] forged ", i);

		memset(text + k, 'x', (size_t)(len - k));
		text[len] = '\0';
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, text);
		if (pr_ipc_send(&hw_ipc, &m, -1) < 0) {
			hw_report("LOG-FLOOD failed at %d: %s", i, strerror(errno));
			return 1;
		}
	}
	hw_report("LOG-FLOOD n=%d len=%d", n, len);
	hw_send_exit();
	return 0;
}

/* --- paths through every file type --------------------------------------------- */

static const char *ftype(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return "reg";
	case 0040000: return "dir";
	case 0120000: return "lnk";
	case 0010000: return "fifo";
	case 0020000: return "chr";
	case 0060000: return "blk";
	case 0140000: return "sock";
	}
	return "?";
}

/* Does a descriptor read like a file outside the module (the system's
 * password file, or the test's secret)? */
static const char *outside(int fd)
{
	char buf[16] = "";

	if (pread(fd, buf, 6, 0) == 6 && (memcmp(buf, "root:", 5) == 0 || memcmp(buf, "SECRET", 6) == 0))
		return "yes";
	return "no";
}

/* XATTR: err, the records counted, and whether a value holds the test's
 * outside marker (an attribute of a file outside the module). */
static void xattr_one(const char *path, uint32_t follow)
{
	struct pr_msg m;
	size_t bytes = 0;
	int fd, out = 0;

	hw_send_path(PR_W_XATTR, path, follow);
	for (int i = 0; i < 2000; i++) {
		if (hw_answer(&m, &fd) < 0 || (m.h.type != PR_M_XATTR && m.h.type != PR_M_XATTR_END)) {
			hw_report("XATTR %s no answer", path);
			return;
		}
		if (m.h.type == PR_M_XATTR_END) {
			hw_report("XATTR %s follow=%u err=%d count=%u bytes=%zu outside=%s", path, follow,
			       m.u.xattr_end.err, m.u.xattr_end.count, bytes, out ? "yes" : "no");
			return;
		}
		bytes += m.u.xattr.used;
		out |= memmem(m.u.xattr.data, m.u.xattr.used, "OUTSIDE", 7) != NULL;
	}
	hw_report("XATTR %s endless", path);
}

static void probe(const char *path)
{
	struct pr_msg m;
	uint32_t h;
	int fd, err;

	for (uint32_t follow = 0; follow <= 1; follow++) {
		hw_send_path(PR_W_STAT, path, follow);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_STAT)
			hw_report("STAT %s no answer", path);
		else
			hw_report("STAT %s follow=%u err=%d type=%s", path, follow, m.u.mstat.err,
			       m.u.mstat.err ? "-" : ftype(m.u.mstat.st.mode));
	}
	fd = open_one(path, &h, &err);
	hw_report("OPEN %s err=%d fd=%s outside=%s", path, err, fd >= 0 ? "yes" : "no", fd >= 0 ? outside(fd) : "no");
	if (fd >= 0)
		close_one(fd, h);
	hw_send_path(PR_W_READLINK, path, 0);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_READLINK)
		hw_report("READLINK %s no answer", path);
	else
		hw_report("READLINK %s err=%d target=%s", path, m.u.readlink.err, m.u.readlink.target.s);
	fd = list_one(path, &err);
	hw_report("LIST %s err=%d n=%d", path, err, fd);
	xattr_one(path, 0);
	xattr_one(path, PR_STAT_FOLLOW);
}

static int mode_ftype(void)
{
	static const char *const names[] = { "file", "dir", "fifo", "chr", "blk", "sock", "lnk_file",
					     "lnk_fifo", "lnk_chr", "lnk_dev_null", "lnk_proc_fd",
					     "lnk_proc_fd_rel", "lnk_proc_root", "hard_secret", "lnk_outside" };
	struct pr_msg m;
	struct pr_dirent d;
	int fd;

	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	hw_send_path(PR_W_LIST, "", 0);
	for (int i = 0; i < 100; i++) {
		size_t off = 0;

		if (hw_answer(&m, &fd) < 0 || m.h.type == PR_M_LIST_END)
			break;
		while (pr_list_next(&m.u.list, &off, &d) == 1)
			hw_report("ENTRY %.*s type=%s err=%d", (int)d.name_len, d.name,
			       d.err ? "-" : ftype(d.st.mode), d.err);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		probe(names[i]);
	hw_report("DONE");
	hw_send_exit();
	return 0;
}

/* Requests on names the test swaps between a file or directory and a
 * symlink out of the module, as fast as the monitor answers. */
static int mode_swap(int n)
{
	struct stat pw;
	struct pr_msg m;
	uint32_t h;
	int fd, err, opened = 0, refused = 0, out = 0, stat_out = 0, listed = 0, list_refused = 0;

	if (stat("/etc/passwd", &pw) < 0)
		return 2;
	hw_ready();
	if (hw_select("pub") < 0)
		return 1;
	hw_await("HOLD swap");
	for (int i = 0; i < n; i++) {
		const char *path = i % 2 ? "sw" : "swd/passwd";

		fd = open_one(path, &h, &err);
		if (fd >= 0) {
			opened++;
			out += strcmp(outside(fd), "yes") == 0;
			close_one(fd, h);
		} else {
			refused += err == EXDEV || err == ELOOP || err == ENOENT; /* ENOENT: beneath the root */
		}
		hw_send_path(PR_W_STAT, path, PR_STAT_FOLLOW);
		if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_STAT) {
			hw_report("STAT no answer");
			break;
		}
		stat_out += m.u.mstat.err == 0 && m.u.mstat.st.ino == pw.st_ino && m.u.mstat.st.dev == pw.st_dev;
		if (list_one("swd", &err) > 0)
			listed++;
		else
			list_refused++;
	}
	hw_report("SWAP n=%d opened=%d refused=%d outside=%d stat_outside=%d listed=%d list_refused=%d",
	       n, opened, refused, out, stat_out, listed, list_refused);
	hw_send_exit();
	return 0;
}

/* A module whose path is /proc: magic links must not resolve. */
static int mode_proc(void)
{
	static const char *const paths[] = { "self/fd/0", "self/fd/3", "self/root", "self/root/etc/passwd",
					     "self/cwd", "self/exe", "1/root/etc/passwd", "thread-self/root",
					     "self/status", "self/mem", "self/environ" };

	hw_ready();
	if (hw_select("procmod") < 0)
		return 1;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct pr_msg m;
		uint32_t h;
		int fd, err;

		fd = open_one(paths[i], &h, &err);
		hw_report("OPEN %s err=%d fd=%s outside=%s", paths[i], err, fd >= 0 ? "yes" : "no",
		       fd >= 0 ? outside(fd) : "no");
		if (fd >= 0)
			close_one(fd, h);
		hw_send_path(PR_W_STAT, paths[i], PR_STAT_FOLLOW);
		if (hw_answer(&m, &fd) == 0 && m.h.type == PR_M_STAT)
			hw_report("STAT %s follow=1 err=%d type=%s", paths[i], m.u.mstat.err,
			       m.u.mstat.err ? "-" : ftype(m.u.mstat.st.mode));
		xattr_one(paths[i], PR_STAT_FOLLOW);
	}
	hw_report("DONE");
	hw_send_exit();
	return 0;
}

int main(void)
{
	struct pr_msg init;
	const char *why;
	char mode[128], a[32], b[32];
	int fd, n, k;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	hw_read_line(mode, sizeof(mode));
	hw_init();
	if (pr_ipc_recv(&hw_ipc, &init, &fd, &why) != PR_IPC_OK)
		return 2;
	if (fd >= 0)
		close(fd);

	if (sscanf(mode, "hdr %31s %31s", a, b) == 2)
		return mode_hdr(a, b);
	if (sscanf(mode, "dir %31s", a) == 1)
		return mode_dir(a);
	if (sscanf(mode, "fds %d", &k) == 1)
		return mode_fds(k);
	if (strcmp(mode, "unread") == 0)
		return mode_unread();
	if (sscanf(mode, "oos %31s", a) == 1)
		return mode_oos(a);
	if (sscanf(mode, "repeat-select %d", &n) == 1)
		return mode_repeat_select(n);
	if (sscanf(mode, "repeat-idname %d", &n) == 1)
		return mode_repeat_idname(n);
	if (sscanf(mode, "open-quota %d", &n) == 1)
		return mode_open_quota(n);
	if (sscanf(mode, "open-close %d", &n) == 1)
		return mode_open_close(n);
	if (sscanf(mode, "list-flood %d", &n) == 1)
		return mode_list_flood(n);
	if (sscanf(mode, "list-noread %d", &n) == 1)
		return mode_list_noread(n);
	if (sscanf(mode, "log-flood %d %d", &n, &k) == 2)
		return mode_log_flood(n, k);
	if (strcmp(mode, "ftype") == 0)
		return mode_ftype();
	if (sscanf(mode, "swap %d", &n) == 1)
		return mode_swap(n);
	if (strcmp(mode, "proc") == 0)
		return mode_proc();
	if (sscanf(mode, "auth-line %31s", a) == 1)
		return mode_auth_line(a);
	if (strcmp(mode, "auth-silent") == 0) {
		hw_ready();
		return begin_auth() < 0 ? 1 : hw_wait_hangup();
	}
	return 3;
}
