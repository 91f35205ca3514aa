/* SPDX-License-Identifier: ISC */
/*
 * A stand-in for prsyncd-worker that attacks the session monitor.  The
 * monitor starts it exactly like the real worker (client socket on fd 3,
 * channel on fd 4, empty environment).  It reads one line from the client
 * naming the misbehaviour, performs it, and waits for the monitor's
 * reaction.  "normal" execs the real worker next to this program's build
 * directory, so one daemon instance can show that it keeps serving.
 * The test client sends the mode line before anything else.
 *
 * The filesystem modes (after selecting module "pub") report each answer
 * to the client as a text line, e.g. "OPEN link_to_etc/passwd err=18 fd=-1",
 * and for every descriptor received whether its first bytes look like
 * /etc/passwd, so the test can prove nothing outside the module was opened.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fds.h"
#include "hostile_common.h"
#include "ipc.h"
#include "msg.h"

/* Send raw bytes as one record, bypassing the sequence counter. */
static void send_raw(const void *p, size_t n)
{
	(void)send(hw_ipc.fd, p, n, MSG_NOSIGNAL);
}

/* --- filesystem modes ---------------------------------------------------- */

/* A well-formed request of each filesystem type. */
static void send_valid(const char *op)
{
	struct pr_msg m;

	if (strcmp(op, "CLOSEV") == 0) {
		hw_send_close(1);
	} else if (strcmp(op, "IDNAME") == 0) {
		pr_msg_init(&m, PR_W_IDNAME);
		m.u.idname.kind = PR_ID_USER;
		hw_send(&m);
	} else {
		hw_send_path(strcmp(op, "LIST") == 0 ? PR_W_LIST : strcmp(op, "STAT") == 0 ? PR_W_STAT :
			  strcmp(op, "OPENV") == 0 ? PR_W_OPENV : strcmp(op, "XATTR") == 0 ? PR_W_XATTR :
			  PR_W_READLINK, "file", 0);
	}
}

/* Does a received descriptor read like the system's password file? */
static const char *looks_like_passwd(int fd)
{
	char buf[16] = "";

	return pread(fd, buf, 5, 0) == 5 && memcmp(buf, "root:", 5) == 0 ? "yes" : "no";
}

/* The first line of a received descriptor's file, for the report. */
static const char *first_line(int fd, char *buf, size_t cap)
{
	ssize_t n = pread(fd, buf, cap - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The answer to an OPENV of one path already sent. */
static int open_answer(const char *path, uint32_t *handle)
{
	char line[64];
	int fd, err;

	if (hw_open_answer(&err, &fd, handle) < 0) {
		hw_report("OPEN %s no answer", path);
		return -1;
	}
	hw_report("OPEN %s err=%d fd=%s passwd=%s data=%s", path, err, fd >= 0 ? "yes" : "-1",
	       fd >= 0 ? looks_like_passwd(fd) : "no", fd >= 0 ? first_line(fd, line, sizeof(line)) : "");
	return fd;
}

static int do_open(const char *path, uint32_t *handle)
{
	hw_send_path(PR_W_OPENV, path, 0);
	return open_answer(path, handle);
}

static void do_close(int fd, uint32_t handle)
{
	close(fd);
	hw_send_close(handle);
}

static void open_close(const char *path)
{
	uint32_t h;
	int fd = do_open(path, &h);

	if (fd >= 0)
		do_close(fd, h);
}

static void stat_answer(const char *path, uint32_t flags)
{
	struct pr_msg m;
	struct stat etc;
	int fd, is_etc;

	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_STAT) {
		hw_report("STAT %s no answer", path);
		return;
	}
	is_etc = stat("/etc", &etc) == 0 && m.u.mstat.err == 0 &&
		 m.u.mstat.st.ino == etc.st_ino && m.u.mstat.st.dev == etc.st_dev;
	hw_report("STAT %s follow=%u err=%d mode=%o link=%u target=%s is_etc=%s size=%llu ino=%llu", path, flags,
	       m.u.mstat.err, m.u.mstat.st.mode, m.u.mstat.link_state, m.u.mstat.link.s,
	       is_etc ? "yes" : "no", (unsigned long long)m.u.mstat.st.size,
	       (unsigned long long)m.u.mstat.st.ino);
}

static void do_stat(const char *path, uint32_t flags)
{
	hw_send_path(PR_W_STAT, path, flags);
	stat_answer(path, flags);
}

/* XATTR: the answer's err and count, the names, and whether a value
 * holds the test's marker for what must not be read ("LEAKED"). */
static void do_xattr(const char *path, uint32_t flags)
{
	char names[1024] = "";
	struct pr_msg m;
	size_t used = 0, bytes = 0;
	int fd, leak = 0;

	hw_send_path(PR_W_XATTR, path, flags);
	for (int i = 0; i < 2000; i++) {
		if (hw_answer(&m, &fd) < 0 || (m.h.type != PR_M_XATTR && m.h.type != PR_M_XATTR_END)) {
			hw_report("XATTR %s no answer", path);
			return;
		}
		if (m.h.type == PR_M_XATTR_END) {
			hw_report("XATTR %s follow=%u err=%d count=%u leak=%s names=%s", path, flags, m.u.xattr_end.err,
			       m.u.xattr_end.count, leak ? "yes" : "no", names);
			return;
		}
		leak |= memmem(m.u.xattr.data, m.u.xattr.used, "LEAKED", 6) != NULL;
		/* the names, from records that fit one piece (the test's are small) */
		for (size_t off = 0; bytes == 0 && off + 6 <= m.u.xattr.used;) {
			uint16_t nl;
			uint32_t vl;
			int w;

			memcpy(&nl, m.u.xattr.data + off, 2);
			memcpy(&vl, m.u.xattr.data + off + 2, 4);
			if (off + 6 + nl + vl > m.u.xattr.used)
				break;
			w = snprintf(names + used, sizeof(names) - used, "%s%.*s", used ? "," : "", (int)nl,
				     (const char *)m.u.xattr.data + off + 6);
			if (w > 0 && (size_t)w < sizeof(names) - used)
				used += (size_t)w;
			off += 6u + nl + vl;
		}
		bytes += m.u.xattr.used;
	}
	hw_report("XATTR %s endless", path);
}

static void do_list(const char *path)
{
	char names[4096] = "";
	struct pr_msg m;
	struct pr_dirent d;
	size_t off, used = 0;
	int fd, n = 0;

	hw_send_path(PR_W_LIST, path, 0);
	for (int i = 0; i < 10000; i++) {
		if (hw_answer(&m, &fd) < 0) {
			hw_report("LIST %s no answer", path);
			return;
		}
		if (m.h.type == PR_M_LIST_END) {
			hw_report("LIST %s err=%d n=%d names=%s", path, m.u.list_end.err, n, names);
			return;
		}
		for (off = 0; m.h.type == PR_M_LIST && pr_list_next(&m.u.list, &off, &d) == 1; n++) {
			int w = snprintf(names + used, sizeof(names) - used, "%s%.*s%s%.*s", n ? "," : "",
					 (int)d.name_len, d.name, d.link_state == PR_LINK_INLINE ? "->" :
					 d.link_state == PR_LINK_LONG ? "->LONG" : d.link_state ? "->ERR" : "",
					 (int)d.link_len, d.link);
			if (w > 0 && (size_t)w < sizeof(names) - used)
				used += (size_t)w;
		}
	}
}

static void do_readlink(const char *path)
{
	struct pr_msg m;
	int fd;

	hw_send_path(PR_W_READLINK, path, 0);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_READLINK) {
		hw_report("READLINK %s no answer", path);
		return;
	}
	hw_report("READLINK %s err=%d len=%u", path, m.u.readlink.err, m.u.readlink.target.len);
}

static void do_idname(uint32_t kind, uint32_t id)
{
	struct pr_msg m;
	int fd;

	pr_msg_init(&m, PR_W_IDNAME);
	m.u.idname.kind = kind;
	m.u.idname.id = id;
	hw_send(&m);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_IDNAME) {
		hw_report("IDNAME %u %u no answer", kind, id);
		return;
	}
	hw_report("IDNAME %u %u found=%u name=%s", kind, id, m.u.midname.found, m.u.midname.name.s);
}

/* More OPENs than the monitor's cap, none closed; then close them all. */
static void open_cap(void)
{
	int fds[40], ok = 0, emfile = 0;
	uint32_t handles[40];

	for (int i = 0; i < 40; i++)
		fds[i] = -1;
	for (int i = 0; i < 40; i++) {
		int err;

		hw_send_path(PR_W_OPENV, "file", 0);
		if (hw_open_answer(&err, &fds[i], &handles[i]) < 0)
			break;
		ok += fds[i] >= 0;
		emfile += err == EMFILE;
	}
	hw_report("CAP ok=%d emfile=%d", ok, emfile);
	for (int i = 0; i < 40; i++)
		if (fds[i] >= 0)
			do_close(fds[i], handles[i]);
}

/* Every semantic attack that passes the validator, in one session. */
static int fs_script(void)
{
	struct pr_msg m;

	if (hw_start("pub") < 0)
		return 1;
	do_list("");
	do_stat("", 0);
	open_close("link_to_etc/passwd");
	open_close("link_to_etc/\n2026/01/01 00:00:00 [1] forged\033[2J");
	open_close("abs_link");
	open_close("up_link");
	do_stat("link_to_etc", PR_STAT_FOLLOW);
	do_stat("link_to_etc", 0);
	do_stat("link_to_etc/passwd", 0);
	do_list("link_to_etc");
	do_readlink("link_to_etc");
	do_readlink("file");
	do_readlink("long_link");
	do_stat("long_link", 0);
	open_close("d");
	open_close("fifo");
	open_close("in_link");
	do_stat("in_link", PR_STAT_FOLLOW);
	do_xattr("link_to_etc", PR_STAT_FOLLOW);
	do_xattr("link_to_etc/passwd", 0);
	do_xattr("abs_link", PR_STAT_FOLLOW);
	do_xattr("up_link", PR_STAT_FOLLOW);
	do_xattr("up_link", 0);
	do_xattr("in_link", PR_STAT_FOLLOW);
	do_xattr("file", 0);
	open_close("file");
	open_cap();
	open_close("file");
	do_idname(PR_ID_USER, 0);
	do_idname(PR_ID_GROUP, 0);
	do_idname(PR_ID_USER, 4000000000u);
	do_list("d");
	hw_await("SWAP");
	open_close("d/passwd");
	do_stat("d/passwd", PR_STAT_FOLLOW);
	do_list("d");
	hw_report("DONE");
	pr_msg_init(&m, PR_W_EXIT);
	hw_send(&m);
	return 0;
}

/* Module "hid" (module filters): ask for hidden names every way there is.
 * Each must look absent; what is not hidden must still be served. */
static int fs_hidden(void)
{
	static const char *const opens[] = { "top.key", "secret/s.txt", "secret", "pub/hidden.key",
					     "pub/sub/n.key", "hlink", "pub/ok.txt", "dironly" };
	static const char *const stats[] = { "top.key", "secret", "secret/s.txt", "secret/inner",
					     "pub/hidden.key", "pub/sub/n.key", "hlink", "nosuch", "dironly",
					     "pub/ok.txt" };
	static const char *const lists[] = { "", "secret", "secret/inner", "pub", "top.key", "pub/sub" };
	static const char *const links[] = { "hlink", "secret/l", "pub/ok.txt" };
	struct pr_msg m;

	if (hw_start("hid") < 0)
		return 1;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		do_list(lists[i]);
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		open_close(opens[i]);
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		do_stat(stats[i], 0);
		do_stat(stats[i], PR_STAT_FOLLOW);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		do_readlink(links[i]);
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		do_xattr(stats[i], 0);
		do_xattr(stats[i], PR_STAT_FOLLOW);
	}
	/* "hid" uses numeric ids (chroot default): no names to learn */
	do_idname(PR_ID_USER, 0);
	do_idname(PR_ID_GROUP, 0);
	hw_report("DONE");
	pr_msg_init(&m, PR_W_EXIT);
	hw_send(&m);
	return 0;
}

/* Module "lnk" (module filters: /private/ and *.key hidden): symlinks into
 * hidden places, chains, loops, escapes, long chains, every request type
 * through them; and links into visible places that must keep working. */
static int fs_links(void)
{
	static const char *const hidden_open[] = { "alias/s.txt", "alias/inner/i.txt", "chain_a/s.txt",
						   "pub/up/s.txt", "dotdot_priv" };
	static const char *const follow_stat[] = { "alias", "alias/s.txt", "alias/inner", "klink", "slink",
						   "chain_a", "chain_a/inner/i.txt", "pub/up", "pub/up/s.txt",
						   "loop_a", "self", "abs", "esc", "publink", "publink/ok.txt",
						   "dotdot_ok", "l0", "m0", "pub/sub/klink2", "intdir/x" };
	static const char *const lists[] = { "", "alias/inner", "chain_a/inner", "pub/up/inner", "publink/sub",
					     "abs", "esc/x", "loop_a/x", "alias", "publink", "rootabsdir", "chain_a" };
	static const char *const links[] = { "alias/inner/ilink", "chain_a/inner/ilink", "publink/sub/klink2",
					     "alias", "klink", "publink/sub/ok_link" };
	struct pr_msg m;

	if (hw_start("lnk") < 0)
		return 1;
	for (size_t i = 0; i < sizeof(hidden_open) / sizeof(hidden_open[0]); i++)
		open_close(hidden_open[i]);
	open_close("klink");          /* followed, onto a hidden file */
	open_close("slink");
	open_close("rootabs");        /* absolute: from the module root, as in a chroot */
	open_close("rootesc");        /* ".." above the root stays at the root */
	open_close("rootpriv");       /* absolute, onto a hidden file */
	open_close("l0");             /* 40 links */
	open_close("m0");             /* 41 */
	open_close("abs/passwd");
	open_close("esc/passwd");
	open_close("loop_a/x");
	open_close("publink/ok.txt"); /* visible through a link */
	open_close("publink/sub/n");
	open_close("dotdot_ok");
	for (size_t i = 0; i < sizeof(follow_stat) / sizeof(follow_stat[0]); i++) {
		do_stat(follow_stat[i], 0);
		do_stat(follow_stat[i], PR_STAT_FOLLOW);
	}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		do_list(lists[i]);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		do_readlink(links[i]);
	for (size_t i = 0; i < sizeof(hidden_open) / sizeof(hidden_open[0]); i++)
		do_xattr(hidden_open[i], PR_STAT_FOLLOW);
	for (size_t i = 0; i < sizeof(follow_stat) / sizeof(follow_stat[0]); i++)
		do_xattr(follow_stat[i], PR_STAT_FOLLOW);
	do_xattr("rootpriv", PR_STAT_FOLLOW);
	do_xattr("rootabs", PR_STAT_FOLLOW);
	do_stat("pub/ok.txt", 0); /* the inode the swap test compares with */
	hw_report("DONE");
	pr_msg_init(&m, PR_W_EXIT);
	hw_send(&m);
	return 0;
}

/*
 * A link swapped in the middle of a walk, at a fixed point: the monitor
 * (test build) holds a link named "prsyncd-test-hold" looked up but unread
 * until our next request; meanwhile the test renames a link to a hidden
 * place over it.  What the walk reads must be the link it holds.
 */
static int fs_swap_mid(void)
{
	struct pr_msg m;
	uint32_t h;
	int fd;

	if (hw_start("lnk") < 0)
		return 1;
	/* a file link: hold -> pub/ok.txt, swapped for one to private/s.txt */
	hw_send_path(PR_W_STAT, "prsyncd-test-hold", PR_STAT_FOLLOW);
	hw_await("SWAPMID1");
	hw_send_path(PR_W_STAT, "pub/ok.txt", 0); /* releases the held walk */
	stat_answer("prsyncd-test-hold", PR_STAT_FOLLOW);
	stat_answer("pub/ok.txt", 0);
	/* afresh: the new link, refused (the dummy request releases the hold) */
	hw_send_path(PR_W_STAT, "prsyncd-test-hold", PR_STAT_FOLLOW);
	hw_send_path(PR_W_STAT, "pub/ok.txt", 0);
	stat_answer("prsyncd-test-hold", PR_STAT_FOLLOW);
	stat_answer("pub/ok.txt", 0);
	/* a directory link in the middle of a path: w/hold -> ../pub, swapped
	 * for one to ../private */
	hw_send_path(PR_W_OPENV, "w/prsyncd-test-hold/ok.txt", 0);
	hw_await("SWAPMID2");
	hw_send_path(PR_W_STAT, "pub/ok.txt", 0);
	fd = open_answer("w/prsyncd-test-hold/ok.txt", &h);
	stat_answer("pub/ok.txt", 0);
	if (fd >= 0)
		do_close(fd, h);
	hw_send_path(PR_W_OPENV, "w/prsyncd-test-hold/s.txt", 0);
	hw_send_path(PR_W_STAT, "pub/ok.txt", 0);
	fd = open_answer("w/prsyncd-test-hold/s.txt", &h);
	stat_answer("pub/ok.txt", 0);
	if (fd >= 0)
		do_close(fd, h);
	hw_report("DONE");
	pr_msg_init(&m, PR_W_EXIT);
	hw_send(&m);
	return 0;
}

/* An OPENV of one path: n raw bytes, then `after` where a valid one has its NUL. */
static int openv_bad_send(struct pr_msg *m, const char *s, uint16_t n, char after)
{
	struct pr_w_openv *b = &m->u.openv;

	memcpy(b->data, &n, sizeof(n));
	memcpy(b->data + sizeof(n), s, n);
	b->data[sizeof(n) + n] = (unsigned char)after;
	b->used = (uint32_t)(sizeof(n) + n + 1u);
	b->count = 1;
	hw_send(m);
	return hw_wait_hangup();
}

/* The path cases of fs_bad, packed as OPENV packs them. */
static int openv_bad(struct pr_msg *m, const char *c)
{
	static char as[PR_RELPATH_MAX];

	memset(as, 'a', sizeof(as));
	if (strcmp(c, "long") == 0)
		return openv_bad_send(m, as, (uint16_t)sizeof(as), '\0');
	if (strcmp(c, "nul") == 0)
		return openv_bad_send(m, "a\0b", 3, '\0');
	if (strcmp(c, "unterminated") == 0)
		return openv_bad_send(m, as, 10, 'a');
	return openv_bad_send(m, c, (uint16_t)strlen(c), '\0');
}

/* "bad OP CASE": a request the validator must refuse, after selection. */
static int fs_bad(const char *op, const char *c)
{
	static const struct { const char *name; enum pr_msg_type type; } ops[] = {
		{ "LIST", PR_W_LIST }, { "OPENV", PR_W_OPENV }, { "STAT", PR_W_STAT },
		{ "READLINK", PR_W_READLINK }, { "IDNAME", PR_W_IDNAME }, { "CLOSEV", PR_W_CLOSEV },
		{ "XATTR", PR_W_XATTR },
	};
	struct pr_msg m;
	struct pr_str_relpath *p;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[i].name, op) != 0; i++)
		;
	if (i == sizeof(ops) / sizeof(ops[0]) || hw_start("pub") < 0)
		return 3;
	pr_msg_init(&m, ops[i].type);
	if (ops[i].type == PR_W_OPENV)
		return openv_bad(&m, c);
	p = ops[i].type == PR_W_STAT || ops[i].type == PR_W_XATTR ? &m.u.stat.path : &m.u.path.path;
	if (strcmp(c, "kind3") == 0) {
		m.u.idname.kind = 3;
	} else if (strcmp(c, "handle0") == 0) {
		m.u.closev.nclosed = 1; /* and the handle it counts left 0 */
	} else if (strcmp(c, "flags") == 0) {
		m.u.stat.flags = 2;
	} else if (strcmp(c, "long") == 0) {
		memset(p->s, 'a', sizeof(p->s));
		p->len = sizeof(p->s);
	} else if (strcmp(c, "nul") == 0) {
		memcpy(p->s, "a\0b", 3);
		p->len = 3;
	} else if (strcmp(c, "unterminated") == 0) {
		memset(p->s, 'a', sizeof(p->s));
		p->len = 10;
	} else {
		pr_str_set_relpath(p, c); /* "..", "a/../b", "/etc", "a//b", "a/", "." */
	}
	hw_send(&m);
	return hw_wait_hangup();
}

/* --- transfer-log modes ------------------------------------------------- */

/* A valid transfer log line, as the worker formats it. */
static void xfer_valid(struct pr_msg *m, const char *line)
{
	pr_msg_init(m, PR_W_XFER);
	m->u.xfer.line.len = (uint16_t)strlen(line);
	memcpy(m->u.xfer.line.s, line, m->u.xfer.line.len);
}

static void start_valid(const char *request)
{
	struct pr_msg m;

	pr_msg_init(&m, PR_W_START);
	m.u.start.sender = 1;
	pr_str_set_relpath(&m.u.start.request, request);
	hw_send(&m);
}

/* START, and its answer reported to the client ("XFERLOG files=F ..."). */
static int start_answered(const char *request)
{
	struct pr_msg m;
	int fd;

	start_valid(request);
	if (hw_answer(&m, &fd) < 0 || m.h.type != PR_M_XFERLOG) {
		hw_report("XFERLOG no answer");
		return -1;
	}
	hw_report("XFERLOG files=%u pid=%s format=%s host=%s addr=%s user=%s module=%s path=%s", m.u.xferlog.files,
		  m.u.xferlog.pid > 1 ? "ok" : "bad", m.u.xferlog.format.s, m.u.xferlog.host.s, m.u.xferlog.addr.s,
		  m.u.xferlog.user.s, m.u.xferlog.module.s, m.u.xferlog.path.s);
	return 0;
}

/*
 * "start-..." and "xfer-..." modes: the transfer-log records sent
 * malformed, out of state, repeated or unasked.  "xfer-injection" sends
 * valid ones whose text tries to forge log lines, then exits.
 */
static int xfer_mode(const char *mode)
{
	struct pr_msg m;

	if (strcmp(mode, "start-out-of-state") == 0) {
		hw_ready();
		start_valid("pub/");
	} else if (strcmp(mode, "start-bad-sender") == 0) {
		if (hw_start("pub") < 0)
			return 1;
		pr_msg_init(&m, PR_W_START);
		m.u.start.sender = 7;
		hw_send(&m);
	} else if (strcmp(mode, "start-unterminated") == 0) {
		if (hw_start("pub") < 0)
			return 1;
		pr_msg_init(&m, PR_W_START);
		memset(m.u.start.request.s, 'A', sizeof(m.u.start.request.s));
		m.u.start.request.len = 10;
		hw_send(&m);
	} else if (strcmp(mode, "start-newline") == 0) {
		if (hw_start("logged") < 0)
			return 1;
		start_valid("logged/\n2026/01/01 00:00:00 [1] forged start\033[2J");
	} else if (strcmp(mode, "start-twice") == 0) {
		if (hw_start("logged") < 0 || start_answered("logged/") < 0)
			return 1;
		start_valid("logged/");
	} else if (strcmp(mode, "start-answer") == 0) {
		if (hw_start("logged") < 0 || start_answered("logged/") < 0)
			return 1;
		pr_msg_init(&m, PR_W_EXIT);
		hw_send(&m);
		return 0;
	} else if (strcmp(mode, "xfer-unasked") == 0) {
		if (hw_start("pub") < 0 || start_answered("pub/") < 0)
			return 1;
		xfer_valid(&m, "send dir/file 6");
		hw_send(&m);
	} else if (strcmp(mode, "xfer-before-start") == 0) {
		if (hw_start("logged") < 0)
			return 1;
		xfer_valid(&m, "send dir/file 6");
		hw_send(&m);
	} else if (strncmp(mode, "xfer-ctl-", 9) == 0) {
		/* a line with a raw control byte: newline, CR, ESC, DEL-adjacent 0x1f */
		static const struct { const char *name; char c; } ctl[] = {
			{ "nl", '\n' }, { "cr", '\r' }, { "esc", '\033' }, { "us", '\037' },
		};
		size_t i = 0;

		while (i < sizeof(ctl) / sizeof(ctl[0]) && strcmp(mode + 9, ctl[i].name) != 0)
			i++;
		if (i == sizeof(ctl) / sizeof(ctl[0]))
			return 3;
		if (hw_start("logged") < 0 || start_answered("logged/") < 0)
			return 1;
		xfer_valid(&m, "send x? 2026/01/01 00:00:00 [1] forged file");
		m.u.xfer.line.s[6] = ctl[i].c;
		hw_send(&m);
	} else if (strcmp(mode, "xfer-unterminated") == 0) {
		if (hw_start("logged") < 0 || start_answered("logged/") < 0)
			return 1;
		xfer_valid(&m, "");
		memset(m.u.xfer.line.s, 'A', sizeof(m.u.xfer.line.s));
		m.u.xfer.line.len = 10;
		hw_send(&m);
	} else if (strcmp(mode, "xfer-wrong-length") == 0) {
		if (hw_start("logged") < 0 || start_answered("logged/") < 0)
			return 1;
		xfer_valid(&m, "send dir/file 6");
		m.h.len -= 1;
		hw_send(&m);
	} else if (strcmp(mode, "xfer-injection") == 0) {
		/* a request and a line with a tab, UTF-8 and an escape's text,
		 * written as they are; then a raw newline */
		if (hw_start("logged") < 0 || start_answered("logged/\\#012 2026/01/01 00:00:00 [1] forged start") < 0)
			return 1;
		xfer_valid(&m, "send tab\there caf\303\251 x\\#012 kept");
		hw_send(&m);
		xfer_valid(&m, "send x\n2026/01/01 00:00:00 [1] forged file");
		hw_send(&m);
	} else {
		return 3;
	}
	return hw_wait_hangup();
}

int main(void)
{
	struct pr_msg m, init;
	const char *why;
	char mode[128], op[16], c[64];
	int fd;

	/* As the real worker: die with the monitor, which may be unable to
	 * kill us once it runs as the module's user. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);

	/* The mode comes first, before INIT is taken off the channel, so that
	 * "normal" can hand the untouched channel to the real worker. */
	hw_read_line(mode, sizeof(mode));
	if (strcmp(mode, "normal") == 0) {
		char self[4096], path[4200];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		char *const argv[] = { (char *)"prsyncd-worker", NULL };
		char *const envp[] = { NULL };

		if (n <= 0)
			return 2;
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(path, sizeof(path), "%s/../prsyncd-worker", self);
		execve(path, argv, envp);
		return 2;
	}
	hw_init();
	if (pr_ipc_recv(&hw_ipc, &init, &fd, &why) != PR_IPC_OK)
		return 2;
	if (fd >= 0)
		close(fd);

	if (strcmp(mode, "unknown-type") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		m.h.type = 999;
		hw_send(&m);
	} else if (strcmp(mode, "wrong-length") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_SELECT);
		m.h.len += 1;
		pr_str_set_name(&m.u.wselect.module, "pub");
		hw_send(&m);
	} else if (strcmp(mode, "unterminated-string") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_SELECT);
		memset(m.u.wselect.module.s, 'A', sizeof(m.u.wselect.module.s));
		m.u.wselect.module.len = 10;
		hw_send(&m);
	} else if (strcmp(mode, "out-of-state") == 0) {
		/* SELECT before READY: the worker claims a module unconfined. */
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		hw_send(&m);
	} else if (strcmp(mode, "second-select") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		hw_send(&m);
		pr_ipc_recv(&hw_ipc, &m, &fd, &why);
		pr_msg_init(&m, PR_W_SELECT);
		pr_str_set_name(&m.u.wselect.module, "pub");
		hw_send(&m);
	} else if (strcmp(mode, "short-record") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		send_raw(&m, 100);
	} else if (strcmp(mode, "oversized-record") == 0) {
		static char big[PR_MSG_SIZE + 512];
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		memcpy(big, &m, sizeof(m));
		send_raw(big, sizeof(big));
	} else if (strcmp(mode, "bad-seq") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "hello");
		m.h.seq = 77;
		send_raw(&m, sizeof(m.h) + m.h.len);
	} else if (strcmp(mode, "unexpected-fd") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "with fd");
		pr_ipc_send(&hw_ipc, &m, 0);
	} else if (strcmp(mode, "bad-log-level") == 0) {
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = 9;
		pr_str_set_text(&m.u.log.text, "x");
		hw_send(&m);
	} else if (strcmp(mode, "log-injection") == 0) {
		/* A valid record whose text tries to forge a second log line. */
		hw_ready();
		pr_msg_init(&m, PR_W_LOG);
		m.u.log.level = PR_LOG_INFO;
		pr_str_set_text(&m.u.log.text, "first\n2026/01/01 00:00:00 [1] forged line\033[2J");
		hw_send(&m);
		pr_msg_init(&m, PR_W_EXIT);
		hw_send(&m);
		return 0;
	} else if (sscanf(mode, "bad %15s %63s", op, c) == 2) {
		return fs_bad(op, c);
	} else if (strcmp(mode, "fs-script") == 0) {
		return fs_script();
	} else if (strcmp(mode, "fs-hidden") == 0) {
		return fs_hidden();
	} else if (strcmp(mode, "fs-links") == 0) {
		return fs_links();
	} else if (strcmp(mode, "fs-swap-mid") == 0) {
		return fs_swap_mid();
	} else if (strncmp(mode, "fs-hold", 7) == 0) {
		/* "fs-hold [MODULE]": selected and confined, the monitor is held
		 * while the test reads its /proc entry. */
		if (hw_start(mode[7] == ' ' ? mode + 8 : "pub") < 0)
			return 1;
		hw_await("HOLD");
		pr_msg_init(&m, PR_W_EXIT);
		hw_send(&m);
		return 0;
	} else if (sscanf(mode, "fs-before-select %15s", op) == 1) {
		/* A valid filesystem request, but no module selected yet. */
		hw_ready();
		send_valid(op);
	} else if (strcmp(mode, "fs-after-unknown-module") == 0) {
		if (hw_start("nosuchmodule") == 0)
			return 1;
		hw_send_path(PR_W_OPENV, "file", 0);
	} else if (sscanf(mode, "die %15s", op) == 1) {
		/* Die by a signal after selection: the confined monitor reports it. */
		int sig = strcmp(op, "SIGSYS") == 0 ? SIGSYS : SIGTERM;

		if (hw_start("pub") < 0)
			return 1;
		signal(sig, SIG_DFL);
		raise(sig);
		return 1;
	} else if (strncmp(mode, "close-unknown", 13) == 0) {
		/* "close-unknown [MODULE]" */
		if (hw_start(mode[13] == ' ' ? mode + 14 : "pub") < 0)
			return 1;
		hw_send_close(12345);
	} else if (strncmp(mode, "start-", 6) == 0 || strncmp(mode, "xfer-", 5) == 0) {
		return xfer_mode(mode);
	} else if (strcmp(mode, "silent") == 0) {
		/* Never becomes ready: the handshake deadline must kill us. */
		for (int i = 0; i < 600; i++)
			sleep(1);
		return 0;
	} else {
		return 3;
	}
	return hw_wait_hangup();
}
