/* SPDX-License-Identifier: ISC */
/*
 * Hostile tests for the monitor<->worker messages (src/proto/msg.c) and
 * their channel framing (src/proto/ipc.c).
 *
 *  1. every type: well formed -> OK in its direction, EBADDIR in the other
 *  2. header: magic, type, exact body length, flags, descriptor rules
 *  3. every body field, including every counted string of every type,
 *     module-relative paths, stat records and the packed LIST entries
 *  4. the counted-string setters, pr_list_add and pr_list_next
 *  5. the channel over a real SOCK_SEQPACKET socketpair
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc.h"
#include "msg.h"
#include "unit.h"

/* ---------------------------------------------------------------------- */
/* The table this file expects msg.c to implement.                         */

struct type_info {
	enum pr_msg_type type;
	enum pr_msg_dir dir;
	uint32_t len;
	int fd_ok;
};

static const struct type_info types[] = {
	{ PR_M_INIT, PR_DIR_TO_WORKER, sizeof(struct pr_m_init), 1 },
	{ PR_M_MODLIST, PR_DIR_TO_WORKER, sizeof(struct pr_m_modlist), 0 },
	{ PR_M_MODLIST_END, PR_DIR_TO_WORKER, 0, 0 },
	{ PR_M_SELECT, PR_DIR_TO_WORKER, sizeof(struct pr_m_select), 0 },
	{ PR_W_READY, PR_DIR_TO_MONITOR, sizeof(struct pr_w_ready), 0 },
	{ PR_W_LOG, PR_DIR_TO_MONITOR, sizeof(struct pr_w_log), 0 },
	{ PR_W_MODLIST, PR_DIR_TO_MONITOR, 0, 0 },
	{ PR_W_SELECT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_select), 0 },
	{ PR_W_EXIT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_exit), 0 },
	{ PR_M_LIST, PR_DIR_TO_WORKER, sizeof(struct pr_m_list), 0 },
	{ PR_M_LIST_END, PR_DIR_TO_WORKER, sizeof(struct pr_m_list_end), 0 },
	{ PR_M_STAT, PR_DIR_TO_WORKER, sizeof(struct pr_m_stat), 0 },
	{ PR_M_READLINK, PR_DIR_TO_WORKER, sizeof(struct pr_m_readlink), 0 },
	{ PR_M_IDNAME, PR_DIR_TO_WORKER, sizeof(struct pr_m_idname), 0 },
	{ PR_W_LIST, PR_DIR_TO_MONITOR, sizeof(struct pr_w_path), 0 },
	{ PR_W_STAT, PR_DIR_TO_MONITOR, sizeof(struct pr_w_stat), 0 },
	{ PR_W_READLINK, PR_DIR_TO_MONITOR, sizeof(struct pr_w_path), 0 },
	{ PR_W_IDNAME, PR_DIR_TO_MONITOR, sizeof(struct pr_w_idname), 0 },
	{ PR_M_AUTHREQ, PR_DIR_TO_WORKER, sizeof(struct pr_m_authreq), 0 },
	{ PR_W_AUTH, PR_DIR_TO_MONITOR, sizeof(struct pr_w_auth), 0 },
	{ PR_W_HELLO, PR_DIR_TO_MONITOR, sizeof(struct pr_w_hello), 0 },
	{ PR_W_START, PR_DIR_TO_MONITOR, sizeof(struct pr_w_start), 0 },
	{ PR_M_XFERLOG, PR_DIR_TO_WORKER, sizeof(struct pr_m_xferlog), 0 },
	{ PR_W_XFER, PR_DIR_TO_MONITOR, sizeof(struct pr_w_xfer), 0 },
	{ PR_M_XATTR, PR_DIR_TO_WORKER, sizeof(struct pr_m_xattr), 0 },
	{ PR_M_XATTR_END, PR_DIR_TO_WORKER, sizeof(struct pr_m_xattr_end), 0 },
	{ PR_W_XATTR, PR_DIR_TO_MONITOR, sizeof(struct pr_w_stat), 0 },
	{ PR_M_OPENV, PR_DIR_TO_WORKER, sizeof(struct pr_m_openv), 1 },
	{ PR_W_OPENV, PR_DIR_TO_MONITOR, sizeof(struct pr_w_openv), 0 },
	{ PR_W_CLOSEV, PR_DIR_TO_MONITOR, sizeof(struct pr_w_closev), 0 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static enum pr_msg_dir other_dir(enum pr_msg_dir d)
{
	return d == PR_DIR_TO_WORKER ? PR_DIR_TO_MONITOR : PR_DIR_TO_WORKER;
}

static enum pr_msg_dir dir_of(uint16_t type)
{
	return type < PR_W_READY ? PR_DIR_TO_WORKER : PR_DIR_TO_MONITOR;
}

/* ---------------------------------------------------------------------- */
/* Well-formed messages of every type.                                     */

static char big[5001];

/* big[] as a string of n 'a's */
static const char *as(size_t n)
{
	memset(big, 'a', n);
	big[n] = '\0';
	return big;
}


static void set_name(struct pr_str_name *d, const char *s)
{
	CHECK_MSG(pr_str_set_name(d, s) == 0, "pr_str_set_name(\"%s\")", s);
}

static void set_text(struct pr_str_text *d, const char *s)
{
	CHECK_MSG(pr_str_set_text(d, s) == 0, "pr_str_set_text(\"%s\")", s);
}

static void set_path(struct pr_str_path *d, const char *s)
{
	CHECK_MSG(pr_str_set_path(d, s) == 0, "pr_str_set_path(\"%s\")", s);
}

static void set_relpath(struct pr_str_relpath *d, const char *s)
{
	CHECK_MSG(pr_str_set_relpath(d, s) == 0, "pr_str_set_relpath(\"%.60s\")", s);
}

/* st_mode values of every file type the validators know */
#define M_SOCK 0140755u
#define M_LNK 0120777u
#define M_REG 0100644u
#define M_BLK 0060660u
#define M_DIR 0040755u
#define M_CHR 0020620u
#define M_FIFO 0010600u

/* A sane stat record of the given st_mode. */
static struct pr_stat st_of(uint32_t mode)
{
	struct pr_stat st;

	memset(&st, 0, sizeof(st));
	st.mode = mode;
	st.nlink = 1;
	st.size = 12345;
	st.mtime = 1700000000;
	st.mtime_nsec = 999999999u;
	st.uid = 1000;
	st.gid = 1000;
	st.dev = 0x801;
	st.ino = 424242;
	st.atime = -1; /* times before 1970 are fine */
	st.atime_nsec = 0;
	return st;
}

/* A stat record no validator would accept for an entry that exists. */
static struct pr_stat st_garbage(void)
{
	struct pr_stat st;

	memset(&st, 0xa5, sizeof(st));
	return st;
}

/* Append one entry through pr_list_add; it must fit. */
static void list_add(struct pr_msg *m, uint32_t mode, int32_t err, const char *name,
		     uint32_t link_state, const char *link)
{
	struct pr_stat st = st_of(mode);

	CHECK_MSG(pr_list_add(&m->u.list, &st, err, name, strlen(name), link_state, link,
			      link ? strlen(link) : 0) == 0, "pr_list_add(\"%s\")", name);
}

static void base_init(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_INIT);
	m->u.init.sandbox_mode = PR_SANDBOX_ROOT;
	m->u.init.worker_uid = 65534;
	m->u.init.worker_gid = 65534;
	m->u.init.handshake_timeout = 30;
	m->u.init.has_motd = 0;
	m->u.init.max_protocol = 31;
	set_path(&m->u.init.chroot_dir, "/run/prsyncd/empty");
	set_text(&m->u.init.client_addr, "192.0.2.1");
}

/* INIT carrying the MOTD descriptor: validate with have_fd = 1. */
static void base_init_motd(struct pr_msg *m)
{
	base_init(m);
	m->u.init.has_motd = 1;
	m->h.flags = PR_F_FD;
}

static void base_modlist(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_MODLIST);
	set_name(&m->u.modlist.name, "pub");
	set_text(&m->u.modlist.comment, "public files");
}

static void base_select_ok(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_SELECT);
	m->u.select.status = PR_SELECT_OK;
	m->u.select.read_only = 1;
	set_name(&m->u.select.module, "pub");
	m->u.select.args_timeout = 30;
}

static void base_select_err(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_SELECT);
	m->u.select.status = PR_SELECT_ERROR;
	set_text(&m->u.select.error, "@ERROR: Unknown module 'x'");
}

static void base_log(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_LOG);
	m->u.log.level = PR_LOG_INFO;
	set_text(&m->u.log.text, "connect from client");
}

static void base_wselect(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_SELECT);
	set_name(&m->u.wselect.module, "pub");
}

/* One regular file. */
static void base_list(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_LIST);
	list_add(m, M_REG, 0, "file", PR_LINK_NONE, NULL);
}

static void base_list_end(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_LIST_END);
	m->u.list_end.err = 0;
}

/* STAT answer for a regular file. */
static void base_mstat(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_STAT);
	m->u.mstat.err = 0;
	m->u.mstat.link_state = PR_LINK_NONE;
	m->u.mstat.st = st_of(M_REG);
}

/* STAT answer for a symlink with its target inline. */
static void base_mstat_link(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_STAT);
	m->u.mstat.err = 0;
	m->u.mstat.link_state = PR_LINK_INLINE;
	m->u.mstat.st = st_of(M_LNK);
	set_name(&m->u.mstat.link, "../target");
}

/* The answer to an OPENV of one path that failed: no descriptor. */
static void base_open_err(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_OPENV);
	m->u.mopenv.count = 1;
	m->u.mopenv.e[0].err = ENOENT;
}

/* The answer to an OPENV of one path that succeeded: validate with
 * have_fd = 1. */
static void base_open_fd(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_OPENV);
	m->u.mopenv.count = 1;
	m->u.mopenv.nfds = 1;
	m->u.mopenv.e[0].handle = 7;
	m->u.mopenv.e[0].st = st_of(M_REG);
	m->h.flags = PR_F_FD;
}

static void base_readlink(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_READLINK);
	m->u.readlink.err = 0;
	set_relpath(&m->u.readlink.target, "../elsewhere/target");
}

static void base_midname(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_IDNAME);
	m->u.midname.found = 1;
	set_name(&m->u.midname.name, "daemon");
}

static void base_wlist(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_LIST);
	set_relpath(&m->u.path.path, "dir/sub");
}

static void base_wstat(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_STAT);
	m->u.stat.flags = 0;
	set_relpath(&m->u.stat.path, "dir/file");
}

static void base_wreadlink(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_READLINK);
	set_relpath(&m->u.path.path, "dir/link");
}

static void base_start(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_START);
	m->u.start.sender = 1;
	set_relpath(&m->u.start.request, "mod/dir mod/file");
}

static void base_xferlog(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_XFERLOG);
	m->u.xferlog.files = 1;
	m->u.xferlog.pid = 4242;
	set_text(&m->u.xferlog.format, "%o %h [%a] %m (%u) %f %l");
	set_text(&m->u.xferlog.host, "client.example");
	set_name(&m->u.xferlog.addr, "192.0.2.7");
	set_name(&m->u.xferlog.module, "mod");
	CHECK(pr_str_set_relpath(&m->u.xferlog.path, "/srv/mod") == 0);
}

/* One line as the worker formats it (tab and UTF-8 kept, rsyncd's escapes). */
static void base_xfer(struct pr_msg *m)
{
	static const char line[] = ">f+++++++++ dir/caf\303\251\tx \\#012 6";

	pr_msg_init(m, PR_W_XFER);
	m->u.xfer.line.len = (uint16_t)strlen(line);
	memcpy(m->u.xfer.line.s, line, sizeof(line));
}

static void base_wxattr(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_XATTR);
	m->u.stat.flags = 0;
	set_relpath(&m->u.stat.path, "dir/file");
}

static void base_mxattr(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_XATTR);
	static const unsigned char rec[11] = { 1, 0, 2, 0, 0, 0, 'a', 'x', 'y' };

	m->u.xattr.used = 9;
	memcpy(m->u.xattr.data, rec, 9);
}

static void base_mxattr_end(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_XATTR_END);
	m->u.xattr_end.count = 1;
	m->u.xattr_end.total = 9;
}

/* OPENV of two paths, reporting one closed handle. */
static void base_wopenv(struct pr_msg *m)
{
	pr_msg_init(m, PR_W_OPENV);
	m->u.openv.nclosed = 1;
	m->u.openv.closed[0] = 7;
	CHECK(pr_openv_add(&m->u.openv, "dir/a") == 0 && pr_openv_add(&m->u.openv, "dir/b") == 0);
}

/* OPENV answer of two failures: no descriptor. */
static void base_mopenv(struct pr_msg *m)
{
	pr_msg_init(m, PR_M_OPENV);
	m->u.mopenv.count = 2;
	m->u.mopenv.e[0].err = ENOENT;
	m->u.mopenv.e[1].err = EACCES;
}

/* A valid message of the type, without descriptor. */
static void build(struct pr_msg *m, enum pr_msg_type t)
{
	switch (t) {
	case PR_M_INIT: base_init(m); return;
	case PR_M_MODLIST: base_modlist(m); return;
	case PR_M_SELECT: base_select_ok(m); return;
	case PR_W_LOG: base_log(m); return;
	case PR_W_SELECT: base_wselect(m); return;
	case PR_W_READY:
		pr_msg_init(m, t);
		m->u.ready.pid = 4242;
		return;
	case PR_W_EXIT:
		pr_msg_init(m, t);
		m->u.exit.code = 0;
		return;
	case PR_M_LIST: base_list(m); return;
	case PR_M_LIST_END: base_list_end(m); return;
	case PR_M_STAT: base_mstat(m); return;
	case PR_M_READLINK: base_readlink(m); return;
	case PR_M_IDNAME: base_midname(m); return;
	case PR_W_LIST: base_wlist(m); return;
	case PR_W_STAT: base_wstat(m); return;
	case PR_W_READLINK: base_wreadlink(m); return;
	case PR_W_XATTR: base_wxattr(m); return;
	case PR_M_XATTR: base_mxattr(m); return;
	case PR_M_XATTR_END: base_mxattr_end(m); return;
	case PR_W_START: base_start(m); return;
	case PR_M_XFERLOG: base_xferlog(m); return;
	case PR_W_XFER: base_xfer(m); return;
	case PR_W_IDNAME:
		pr_msg_init(m, t);
		m->u.idname.kind = PR_ID_USER;
		m->u.idname.id = 1000;
		return;
	case PR_M_AUTHREQ:
		pr_msg_init(m, t);
		set_name(&m->u.authreq.challenge, "AbCdEfGhIjKlMnOpQrSt+/");
		m->u.authreq.timeout = 30;
		return;
	case PR_W_AUTH:
		pr_msg_init(m, t);
		set_text(&m->u.auth.line, "alice 3Fz0rYq9mwwjqTKi7pPbbA");
		return;
	case PR_W_HELLO:
		pr_msg_init(m, t);
		m->u.hello.protocol = 32;
		set_text(&m->u.hello.digests, "sha512 sha256 sha1 md5 md4");
		return;
	case PR_W_OPENV: base_wopenv(m); return;
	case PR_M_OPENV: base_mopenv(m); return;
	case PR_W_CLOSEV:
		pr_msg_init(m, t);
		m->u.closev.nclosed = 2;
		m->u.closev.closed[0] = 7;
		m->u.closev.closed[1] = 8;
		return;
	default:
		pr_msg_init(m, t); /* the body-less types */
		return;
	}
}

/* ---------------------------------------------------------------------- */
/* Assertions.                                                             */

static void expect(enum pr_msg_err want, const struct pr_msg *m, enum pr_msg_dir d,
		   int fd, const char *what)
{
	enum pr_msg_err got = pr_msg_validate(m, d, fd);

	CHECK_MSG(got == want, "%s: %s: got \"%s\", want \"%s\"",
		  pr_msg_type_name(m->h.type), what, pr_msg_strerror(got),
		  pr_msg_strerror(want));
}

/* Refused, with no opinion about which error code. */
static void reject(const struct pr_msg *m, enum pr_msg_dir d, int fd, const char *what)
{
	CHECK_MSG(pr_msg_validate(m, d, fd) != PR_MSG_OK, "%s: %s: accepted",
		  pr_msg_type_name(m->h.type), what);
}

/*
 * Either an exact code, or REJECT: refused, and which code is the validator's
 * business (cross-field inconsistencies that could fairly be called either a
 * bad string or a bad field).
 */
#define REJECT (-1)

static void verdict(int want, const struct pr_msg *m, enum pr_msg_dir d, int fd,
		    const char *what)
{
	if (want == REJECT)
		reject(m, d, fd, what);
	else
		expect((enum pr_msg_err)want, m, d, fd, what);
}

/* Field test on a fresh well-formed message of type t. */
#define FIELD(t, want, field, value, what) do { \
	struct pr_msg m_; \
	build(&m_, (t)); \
	m_.field = (value); \
	expect((want), &m_, dir_of(t), 0, (what)); \
} while (0)

/* ---------------------------------------------------------------------- */
/* 1. every type, both directions                                          */

static void test_types_table(void)
{
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		pr_msg_init(&m, types[i].type);
		CHECK_MSG(m.h.magic == PR_MSG_MAGIC && m.h.type == types[i].type &&
			  m.h.flags == 0 && m.h.seq == 0 && m.h.len == types[i].len,
			  "pr_msg_init(%s) header", pr_msg_type_name(types[i].type));
		CHECK_MSG(strcmp(pr_msg_type_name(types[i].type), "unknown") != 0,
			  "type %u has no name", (unsigned)types[i].type);
	}
	CHECK(strcmp(pr_msg_type_name(PR_M_INIT), "PR_M_INIT") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_M_LIST), "PR_M_LIST") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_M_IDNAME), "PR_M_IDNAME") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_W_STAT), "PR_W_STAT") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_W_IDNAME), "PR_W_IDNAME") == 0);
	CHECK(strcmp(pr_msg_type_name(0), "unknown") == 0);
	CHECK(strcmp(pr_msg_type_name(12), "unknown") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_W_AUTH), "PR_W_AUTH") == 0);
	CHECK(strcmp(pr_msg_type_name(63), "unknown") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_MSG_TYPE_MAX), "unknown") == 0);
	CHECK(strcmp(pr_msg_type_name(0x0100 | PR_M_INIT), "unknown") == 0);

	/* every type msg.c knows is in types[], so the generic tests cover it */
	{
		unsigned untested = 0;

		for (unsigned t = 0; t <= 0xffff; t++) {
			int listed = 0;

			for (size_t i = 0; i < NTYPES; i++)
				listed |= types[i].type == t;
			if (!listed && strcmp(pr_msg_type_name((uint16_t)t), "unknown") != 0) {
				fprintf(stderr, "type %u (%s) has a row in msg.c but not in types[]\n",
					t, pr_msg_type_name((uint16_t)t));
				untested++;
			}
		}
		CHECK_MSG(untested == 0, "%u types missing from types[]", untested);
	}
}

static void test_directions(void)
{
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		build(&m, types[i].type);
		expect(PR_MSG_OK, &m, types[i].dir, 0, "well formed");
		expect(PR_MSG_EBADDIR, &m, other_dir(types[i].dir), 0, "wrong direction");
		expect(PR_MSG_EBADDIR, &m, (enum pr_msg_dir)0, 0, "direction 0");
		expect(PR_MSG_EBADDIR, &m, (enum pr_msg_dir)3, 0, "direction 3");
	}
	base_init_motd(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 1, "with MOTD descriptor");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, 1, "with MOTD, wrong direction");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 2, "two descriptors where one may come");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 7, "seven descriptors where one may come");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, -1, "a negative descriptor count");
	base_select_err(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "ERROR answer");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, 0, "ERROR answer, wrong direction");
	base_open_fd(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 1, "OPEN with its descriptor");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, 1, "OPEN with descriptor, wrong direction");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 7, "OPEN with seven descriptors");
	base_mstat_link(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "STAT of a symlink");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, 0, "STAT of a symlink, wrong direction");
}

/* ---------------------------------------------------------------------- */
/* 2. header                                                               */

static void test_magic(void)
{
	static const uint32_t bad[] = { 0, PR_MSG_MAGIC ^ 1u, 0x314d5250u /* swapped */,
					PR_MSG_MAGIC + 1u, 0xffffffffu };
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			build(&m, types[i].type);
			m.h.magic = bad[j];
			expect(PR_MSG_EBADMAGIC, &m, types[i].dir, 0, "bad magic");
		}
	}
}

static void test_unknown_types(void)
{
	/* gaps of the enum, its ends, and real types with a high byte set
	 * (a validator comparing only the low byte would take them) */
	static const uint16_t bad[] = { PR_MSG_NONE, 12, 14, 17, 21, 26, 63, PR_MSG_TYPE_MAX, 80, 86, 90,
					8, 71, 72, /* retired: OPEN's answer, OPEN, CLOSE */
					127, 128, 0x0100 | PR_M_INIT, 0x0100 | PR_M_OPENV,
					0x0100 | PR_W_READY, 0x0100 | PR_W_STAT, 0x8000,
					0xfffe, 0xffff };
	struct pr_msg m;

	for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
		char what[64];

		snprintf(what, sizeof(what), "type %u", (unsigned)bad[j]);
		pr_msg_init(&m, PR_M_MODLIST_END);
		m.h.type = bad[j];
		m.h.len = 0;
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_WORKER, 0, what);
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_MONITOR, 0, what);
		/* a body that would fit some real type does not help */
		m.h.len = sizeof(struct pr_w_exit);
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_MONITOR, 0, what);
		m.h.len = sizeof(struct pr_m_list);
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_WORKER, 0, what);
		m.h.len = sizeof(struct pr_w_path);
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_MONITOR, 0, what);
		m.h.flags = PR_F_FD;
		m.h.len = sizeof(struct pr_m_openv);
		expect(PR_MSG_EBADTYPE, &m, PR_DIR_TO_WORKER, 1, what);
	}
}

static void test_body_length(void)
{
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		uint32_t len = types[i].len;
		const uint32_t cand[] = {
			len + 1, len - 1 /* wraps for 0 */, 0, (uint32_t)PR_MSG_BODY_MAX,
			(uint32_t)PR_MSG_BODY_MAX + 1, PR_MSG_SIZE, 0xffffffffu,
			sizeof(struct pr_w_exit), sizeof(struct pr_w_path),
			len + 0x10000u /* equal to len in 16 bits */, len | 0x80000000u,
		};
		uint32_t bad[sizeof(cand) / sizeof(cand[0])];
		size_t n = 0;

		/* every candidate but the right length itself */
		for (size_t j = 0; j < sizeof(cand) / sizeof(cand[0]); j++)
			if (cand[j] != len)
				bad[n++] = cand[j];
		CHECK(n >= 8);
		for (size_t j = 0; j < n; j++) {
			char what[64];

			snprintf(what, sizeof(what), "body length %u (want %u)",
				 (unsigned)bad[j], (unsigned)len);
			build(&m, types[i].type);
			m.h.len = bad[j];
			expect(PR_MSG_EBADLEN, &m, types[i].dir, 0, what);
		}
	}
}

static void test_flags(void)
{
	static const uint16_t bad[] = { 0x0002, 0x0004, 0x0100, 0x8000, 0xfffe,
					0xffff, PR_F_FD | 0x0002 };
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			char what[64];

			snprintf(what, sizeof(what), "flags 0x%04x", (unsigned)bad[j]);
			build(&m, types[i].type);
			m.h.flags = bad[j];
			expect(PR_MSG_EBADFLAGS, &m, types[i].dir, 0, what);
			expect(PR_MSG_EBADFLAGS, &m, types[i].dir, 1, what);
		}
	}
}

static void test_fd_rules(void)
{
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		build(&m, types[i].type);
		m.h.flags = PR_F_FD;
		expect(PR_MSG_EBADFD, &m, types[i].dir, 0, "PR_F_FD without descriptor");
		if (!types[i].fd_ok)
			expect(PR_MSG_EBADFD, &m, types[i].dir, 1,
			       "descriptor on a type that may not carry one");
		build(&m, types[i].type);
		expect(PR_MSG_EBADFD, &m, types[i].dir, 1, "descriptor without PR_F_FD");
	}
	/* INIT is the one type that may carry one, and only with has_motd. */
	base_init_motd(&m);
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 0, "has_motd, PR_F_FD, no descriptor");
	m.h.flags = 0;
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 1, "has_motd, descriptor, no PR_F_FD");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 0, "has_motd=1, nothing sent");
	base_init(&m);
	m.h.flags = PR_F_FD;
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 1, "descriptor but has_motd=0");

	/* OPEN carries one iff err == 0 */
	base_open_fd(&m);
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 0, "OPEN err 0, PR_F_FD, no descriptor");
	m.h.flags = 0;
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 1, "OPEN err 0, descriptor, no PR_F_FD");
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 0, "OPEN err 0, nothing sent");
	base_open_err(&m);
	m.h.flags = PR_F_FD;
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 1, "OPEN err ENOENT with a descriptor");
}

/* ---------------------------------------------------------------------- */
/* 3. body fields                                                          */

static void test_init_fields(void)
{
	struct pr_msg m;

	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.sandbox_mode, 0, "sandbox_mode 0");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.sandbox_mode, 3, "sandbox_mode 3");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.sandbox_mode, 0xffffffffu,
	      "sandbox_mode huge");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.sandbox_mode, PR_SANDBOX_USERNS, "USERNS mode");

	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.worker_uid, 0, "ROOT mode, uid 0");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.worker_gid, 0, "ROOT mode, gid 0");
	base_init(&m);
	m.u.init.worker_uid = m.u.init.worker_gid = 0;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ROOT mode, uid and gid 0");
	m.u.init.sandbox_mode = PR_SANDBOX_USERNS;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "USERNS mode, uid and gid 0");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.worker_uid, 1, "ROOT mode, uid 1");
	/* (uid_t)-1 means "unchanged" to setresuid: never a uid to drop to */
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.worker_uid, 0xffffffffu,
	      "ROOT mode, uid 0xffffffff");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.worker_gid, 0xffffffffu,
	      "ROOT mode, gid 0xffffffff");
	base_init(&m);
	m.u.init.worker_uid = m.u.init.worker_gid = 0xffffffffu;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ROOT mode, uid and gid 0xffffffff");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.worker_uid, 0xfffffffeu, "ROOT mode, uid 0xfffffffe");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.worker_gid, 0xfffffffeu, "ROOT mode, gid 0xfffffffe");

	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.handshake_timeout, 0, "timeout 0");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.handshake_timeout, 3601, "timeout 3601");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.handshake_timeout, 0xffffffffu,
	      "timeout huge");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.handshake_timeout, 1, "timeout 1");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.handshake_timeout, 3600, "timeout 3600");

	/* has_motd: must be 0/1 and match the descriptor */
	base_init(&m);
	m.u.init.has_motd = 2;
	reject(&m, PR_DIR_TO_WORKER, 0, "has_motd 2");
	m.h.flags = PR_F_FD;
	reject(&m, PR_DIR_TO_WORKER, 1, "has_motd 2 with descriptor");
	m.u.init.has_motd = 0xffffffffu;
	reject(&m, PR_DIR_TO_WORKER, 1, "has_motd huge with descriptor");
	base_init(&m);
	m.u.init.has_motd = 1;
	expect(PR_MSG_EBADFD, &m, PR_DIR_TO_WORKER, 0, "has_motd 1 without descriptor");

	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.max_protocol, 0, "max_protocol 0");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.max_protocol, 26, "max_protocol 26");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.max_protocol, 33, "max_protocol 33");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.max_protocol, 0xffffffffu,
	      "max_protocol huge");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.max_protocol, 27, "max_protocol 27");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.max_protocol, 32, "max_protocol 32");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.bwlimit, 0, "bwlimit 0 (none)");
	FIELD(PR_M_INIT, PR_MSG_OK, u.init.bwlimit, PR_BWLIMIT_MAX, "bwlimit max");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.bwlimit, PR_BWLIMIT_MAX + 1u, "bwlimit over int");
	FIELD(PR_M_INIT, PR_MSG_EBADFIELD, u.init.bwlimit, 0xffffffffu, "bwlimit -1");

	/* charsets: names separated by single spaces, printable ASCII */
	{
		static const struct { const char *s; enum pr_msg_err want; } cs[] = {
			{ "", PR_MSG_OK }, { "UTF-8", PR_MSG_OK }, { "UTF-8 ISO-8859-1 CP1252", PR_MSG_OK },
			{ " UTF-8", PR_MSG_EBADFIELD }, { "UTF-8 ", PR_MSG_EBADFIELD },
			{ "UTF-8  X", PR_MSG_EBADFIELD }, { "UTF-8\tX", PR_MSG_EBADFIELD },
			{ "\xc3\xa9", PR_MSG_EBADFIELD }, { "a\x7f", PR_MSG_EBADFIELD },
		};

		for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
			base_init(&m);
			set_text(&m.u.init.charsets, cs[i].s);
			expect(cs[i].want, &m, PR_DIR_TO_WORKER, 0, "charsets list");
		}
	}
}

static void chroot_case(enum pr_msg_err want, const char *dir)
{
	struct pr_msg m;
	char what[64];

	snprintf(what, sizeof(what), "chroot_dir \"%s\"", dir);
	base_init(&m);
	set_path(&m.u.init.chroot_dir, dir);
	expect(want, &m, PR_DIR_TO_WORKER, 0, what);
}

static void test_init_chroot(void)
{
	chroot_case(PR_MSG_EBADFIELD, "");
	chroot_case(PR_MSG_EBADFIELD, "run/prsyncd/empty");
	chroot_case(PR_MSG_EBADFIELD, ".");
	chroot_case(PR_MSG_EBADFIELD, "..");
	chroot_case(PR_MSG_EBADFIELD, "../x");
	chroot_case(PR_MSG_EBADFIELD, "/..");
	chroot_case(PR_MSG_EBADFIELD, "/../etc");
	chroot_case(PR_MSG_EBADFIELD, "/srv/..");
	chroot_case(PR_MSG_EBADFIELD, "/srv/../etc");
	chroot_case(PR_MSG_EBADFIELD, "/srv/x/../../..");
	chroot_case(PR_MSG_EBADFIELD, "//..");
	chroot_case(PR_MSG_OK, "/");
	chroot_case(PR_MSG_OK, "/srv/x.y/.z");
}

static void test_modlist_fields(void)
{
	struct pr_msg m;

	base_modlist(&m);
	set_name(&m.u.modlist.name, "");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "empty name");
	base_modlist(&m);
	set_text(&m.u.modlist.comment, "");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "empty comment");
}

static void select_error_case(enum pr_msg_err want, const char *text)
{
	struct pr_msg m;
	char what[96];

	snprintf(what, sizeof(what), "ERROR text \"%s\"", text);
	base_select_err(&m);
	set_text(&m.u.select.error, text);
	expect(want, &m, PR_DIR_TO_WORKER, 0, what);
}

static void test_select_fields(void)
{
	struct pr_msg m;

	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.status, 0, "status 0");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.status, 3, "status 3");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.status, 0xffffffffu, "status huge");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.read_only, 2, "read_only 2");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.read_only, 0xffffffffu,
	      "read_only huge");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.read_only, 0, "read_only 0");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.numeric_ids, 2, "numeric_ids 2");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.numeric_ids, 0xffffffffu,
	      "numeric_ids huge");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.numeric_ids, 1, "numeric_ids 1");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.module_flags, PR_MOD_ALL, "module_flags, all known");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.module_flags, PR_MOD_MUNGE, "module_flags munge");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.module_flags, PR_MOD_ALL + 1u, "module_flags unknown bit");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.module_flags, 0x80000000u, "module_flags high bit");
	base_select_err(&m);
	m.u.select.module_flags = PR_MOD_MUNGE;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with module_flags");

	base_select_ok(&m);
	set_name(&m.u.select.module, "");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "OK with empty module");
	base_select_ok(&m);
	set_text(&m.u.select.error, "@ERROR: x");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "OK with an error text");

	base_select_err(&m);
	m.u.select.read_only = 2;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with read_only 2");
	/* an ERROR answer carries the text and nothing else */
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.numeric_ids, 0, "OK, numeric_ids 0");
	base_select_err(&m);
	m.u.select.read_only = 1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with read_only 1");
	base_select_err(&m);
	m.u.select.numeric_ids = 1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with numeric_ids 1");
	base_select_err(&m);
	m.u.select.numeric_ids = 2;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with numeric_ids 2");
	base_select_err(&m);
	set_name(&m.u.select.module, "pub");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with a module name");
	/* dont compress: any bounded text with OK, nothing with ERROR */
	base_select_ok(&m);
	set_text(&m.u.select.dont_compress, "*.gz *.bin");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "OK with dont compress");
	base_select_err(&m);
	set_text(&m.u.select.dont_compress, "*.gz");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with dont compress");
	base_select_ok(&m);
	m.u.select.dont_compress.len = 3; /* no NUL where the length says */
	memset(m.u.select.dont_compress.s, 'x', sizeof(m.u.select.dont_compress.s));
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_WORKER, 0, "dont compress not terminated");

	/* What the sender does per module: OK only, each field bounded. */
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.write_only, 1, "write_only 1");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.write_only, 2, "write_only 2");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.ignore_errors, 1, "ignore_errors 1");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.ignore_errors, 0xffffffffu, "ignore_errors huge");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.max_verbosity, PR_VERBOSITY_MAX, "max_verbosity at its bound");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.max_verbosity, PR_VERBOSITY_MAX + 1, "max_verbosity beyond");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.chmod_umask, 0777, "chmod_umask 0777");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.chmod_umask, 01000, "chmod_umask 01000");
	{
		static const char *const bad_cs[] = { "UTF 8", " x", "x\t", "x\x7f", "\xc3\xa9", "a\nb" };

		for (size_t i = 0; i < sizeof(bad_cs) / sizeof(bad_cs[0]); i++) {
			base_select_ok(&m);
			set_name(&m.u.select.charset, bad_cs[i]);
			expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "charset with a blank or non-ASCII byte");
		}
		base_select_ok(&m);
		set_name(&m.u.select.charset, "ISO-8859-15");
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "charset ISO-8859-15");
	}
	{
		static const char *const what[] = { "write_only", "ignore_errors", "max_verbosity", "chmod_umask",
						    "refuse", "outgoing_chmod", "charset" };

		for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
			base_select_err(&m);
			switch (i) {
			case 0: m.u.select.write_only = 1; break;
			case 1: m.u.select.ignore_errors = 1; break;
			case 2: m.u.select.max_verbosity = 1; break;
			case 3: m.u.select.chmod_umask = 022; break;
			case 4: set_text(&m.u.select.refuse, "n"); break;
			case 5: set_text(&m.u.select.outgoing_chmod, "a+r"); break;
			default: set_name(&m.u.select.charset, "UTF-8"); break;
			}
			expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, what[i]);
		}
	}
	/* timeouts: bounded with OK, absent with ERROR */
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.timeout, 0, "timeout 0");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.timeout, PR_TIMEOUT_MAX, "timeout max");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.timeout, PR_TIMEOUT_MAX + 1, "timeout too big");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.timeout, 0xffffffffu, "timeout huge");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.args_timeout, 0, "args_timeout 0");
	FIELD(PR_M_SELECT, PR_MSG_OK, u.select.args_timeout, 3600, "args_timeout 3600");
	FIELD(PR_M_SELECT, PR_MSG_EBADFIELD, u.select.args_timeout, 3601, "args_timeout 3601");
	base_select_err(&m);
	m.u.select.timeout = 5;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with a timeout");
	base_select_err(&m);
	m.u.select.args_timeout = 5;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with an args_timeout");

	select_error_case(PR_MSG_EBADFIELD, "");
	select_error_case(PR_MSG_EBADFIELD, "ERROR: x");
	select_error_case(PR_MSG_EBADFIELD, " @ERROR: x");
	select_error_case(PR_MSG_EBADFIELD, "@error: x");
	select_error_case(PR_MSG_EBADFIELD, "@ERRO");
	select_error_case(PR_MSG_EBADFIELD, "@RSYNCD: EXIT");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: a\nb");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: x\n");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: x\n@RSYNCD: OK");
	/* the text must start with "@ERROR: ", colon and space included */
	select_error_case(PR_MSG_EBADFIELD, "@ERROR");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR:");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR:x");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR x");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR\t: x");
	select_error_case(PR_MSG_EBADFIELD, "\n@ERROR: x");
	select_error_case(PR_MSG_OK, "@ERROR: x");
	select_error_case(PR_MSG_OK, "@ERROR: access denied to pub from host");
}

static void test_worker_fields(void)
{
	FIELD(PR_W_LOG, PR_MSG_EBADFIELD, u.log.level, 0, "level 0");
	FIELD(PR_W_LOG, PR_MSG_EBADFIELD, u.log.level, 5, "level 5");
	FIELD(PR_W_LOG, PR_MSG_EBADFIELD, u.log.level, 0xffffffffu, "level huge");
	FIELD(PR_W_LOG, PR_MSG_OK, u.log.level, PR_LOG_ERR, "level ERR");
	FIELD(PR_W_LOG, PR_MSG_OK, u.log.level, PR_LOG_DEBUG, "level DEBUG");

	FIELD(PR_W_READY, PR_MSG_EBADFIELD, u.ready.pid, 0, "pid 0");
	FIELD(PR_W_READY, PR_MSG_OK, u.ready.pid, 1, "pid 1");
	FIELD(PR_W_READY, PR_MSG_OK, u.ready.pid, 0xffffffffu, "pid huge");

	FIELD(PR_W_EXIT, PR_MSG_EBADFIELD, u.exit.code, 256, "code 256");
	FIELD(PR_W_EXIT, PR_MSG_EBADFIELD, u.exit.code, 0xffffffffu, "code huge");
	FIELD(PR_W_EXIT, PR_MSG_OK, u.exit.code, 255, "code 255");

	{
		struct pr_msg m;

		base_wselect(&m);
		set_name(&m.u.wselect.module, "");
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_MONITOR, 0, "empty module");
		/* one line from the client: the monitor's @ERROR echo of it
		 * must stay one line (found by fuzz_dispatch) */
		set_name(&m.u.wselect.module, "a\nb");
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_MONITOR, 0, "module with a newline");
	}
}

/* Daemon auth: HELLO, AUTHREQ and AUTH, each malformed every way. */
static void test_auth_fields(void)
{
	struct pr_msg m;

	FIELD(PR_W_HELLO, PR_MSG_EBADFIELD, u.hello.protocol, 26, "protocol 26");
	FIELD(PR_W_HELLO, PR_MSG_EBADFIELD, u.hello.protocol, 33, "protocol 33");
	FIELD(PR_W_HELLO, PR_MSG_EBADFIELD, u.hello.protocol, 0xffffffffu, "protocol huge");
	FIELD(PR_W_HELLO, PR_MSG_OK, u.hello.protocol, 27, "protocol 27");
	build(&m, PR_W_HELLO);
	set_text(&m.u.hello.digests, "");
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "no digest list");
	set_text(&m.u.hello.digests, "md5\nmd4");
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "newline in the list");
	build(&m, PR_W_HELLO);
	m.u.hello.digests.len = PR_TEXT_MAX;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "list length out of range");
	build(&m, PR_W_HELLO);
	m.u.hello.digests.len = 3; /* NUL inside */
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "list shorter than its bytes");
	build(&m, PR_W_HELLO);
	memset(m.u.hello.digests.s, 'a', sizeof(m.u.hello.digests.s));
	m.u.hello.digests.len = PR_TEXT_MAX - 1;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "list without its NUL");

	build(&m, PR_W_AUTH);
	set_text(&m.u.auth.line, "");
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "empty response (the monitor refuses it)");
	set_text(&m.u.auth.line, "alice x\n");
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "newline in the response");
	build(&m, PR_W_AUTH);
	m.u.auth.line.len = 2;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "response length wrong");
	build(&m, PR_W_AUTH);
	m.u.auth.line.len = 0xffff;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "response length huge");

	build(&m, PR_M_AUTHREQ);
	set_name(&m.u.authreq.challenge, "AbCdEfGhIjKlMnOpQrStU");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "challenge too short");
	set_name(&m.u.authreq.challenge, as(PR_CHALLENGE_MAX + 1));
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "challenge too long");
	set_name(&m.u.authreq.challenge, "AbCdEfGhIjKlMnOpQrSt\n/");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "newline in the challenge");
	set_name(&m.u.authreq.challenge, "AbCdEfGhIjKlMnOpQrSt=/");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "padding in the challenge");
	set_name(&m.u.authreq.challenge, "AbCdEfGhIjKlMnOpQrSt +");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "space in the challenge");
	set_name(&m.u.authreq.challenge, as(PR_CHALLENGE_MAX));
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "longest challenge");
	build(&m, PR_M_AUTHREQ);
	m.u.authreq.challenge.len = 30;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_WORKER, 0, "challenge length past its NUL");
	build(&m, PR_M_AUTHREQ);
	m.u.authreq.timeout = 0;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "login timeout 0");
	m.u.authreq.timeout = 3601;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "login timeout over an hour");
	m.u.authreq.timeout = 3600;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "login timeout of an hour");
}

/* ---------------------------------------------------------------------- */
/* 3a. module-relative paths                                               */

static char rp_buf[2 * PR_RELPATH_MAX];

/* n bytes of components of comp bytes each, joined by '/'; no '/' at the end */
static const char *path_of(size_t n, size_t comp)
{
	for (size_t i = 0; i < n; i++)
		rp_buf[i] = (i + 1) % (comp + 1) == 0 && i + 1 < n ? '/' : 'a' + (char)(i % 26);
	rp_buf[n] = '\0';
	return rp_buf;
}

/* pr_relpath_ok on len bytes of s, with a NUL after them (unless s says otherwise) */
static void relpath_case(int want, const char *s, size_t len, const char *what)
{
	static char buf[2 * PR_RELPATH_MAX];

	memmove(buf, s, len);
	buf[len] = '\0';
	CHECK_MSG(pr_relpath_ok(buf, len) == want, "pr_relpath_ok(%s, len %zu) != %d", what,
		  len, want);
}

#define RP(want, lit) relpath_case((want), (lit), sizeof(lit) - 1, "\"" lit "\"")

static void (*const path_bases[])(struct pr_msg *) = {
	base_wlist, base_wstat, base_wreadlink, base_wxattr,
};

static struct pr_str_relpath *path_field(struct pr_msg *m)
{
	return m->h.type == PR_W_STAT || m->h.type == PR_W_XATTR ? &m->u.stat.path : &m->u.path.path;
}

/* Every path-carrying request with path s (len bytes, then a NUL). */
static void path_msg_case(enum pr_msg_err want, const char *s, size_t len, const char *what)
{
	for (size_t i = 0; i < sizeof(path_bases) / sizeof(path_bases[0]); i++) {
		struct pr_msg m;
		struct pr_str_relpath *p;

		path_bases[i](&m);
		p = path_field(&m);
		memset(p->s, 0, sizeof(p->s));
		memcpy(p->s, s, len);
		p->len = (uint16_t)len;
		expect(want, &m, PR_DIR_TO_MONITOR, 0, what);
	}
}

#define PM(want, lit) path_msg_case((want), (lit), sizeof(lit) - 1, "path \"" lit "\"")

static void test_relpath(void)
{
	char c255[300], c256[300];

	RP(1, "");
	RP(1, "a");
	RP(1, "a/b");
	RP(1, "a b/c");
	RP(1, "dir/sub/file.txt");
	RP(1, "...");
	RP(1, ".a");
	RP(1, "a.");
	RP(1, "..a");
	RP(1, "a/.../b");
	RP(1, "a/.b/c..");
	RP(1, "\n/\x01/\xff");
	RP(1, "a\\b");

	RP(0, "/");
	RP(0, "//");
	RP(0, "/a");
	RP(0, "a/");
	RP(0, "a/b/");
	RP(0, "a//b");
	RP(0, ".");
	RP(0, "..");
	RP(0, "./a");
	RP(0, "../a");
	RP(0, "a/.");
	RP(0, "a/..");
	RP(0, "a/./b");
	RP(0, "a/../b");
	RP(0, "a/b/../../..");
	RP(0, "./");
	RP(0, "/..");

	/* NUL inside */
	relpath_case(0, "a\0b", 3, "\"a\\0b\"");
	relpath_case(0, "\0", 1, "\"\\0\"");
	relpath_case(0, "a/\0", 3, "\"a/\\0\"");
	/* unterminated: the byte at len is not NUL */
	{
		char s[4] = { 'a', 'b', 'c', '\0' };

		CHECK_MSG(pr_relpath_ok(s, 2) == 0, "pr_relpath_ok(\"abc\", 2): unterminated");
		CHECK_MSG(pr_relpath_ok(s, 0) == 0, "pr_relpath_ok(\"abc\", 0): unterminated");
	}

	/* components: 255 bytes is the most */
	memset(c255, 'c', 255);
	c255[255] = '\0';
	memset(c256, 'c', 256);
	c256[256] = '\0';
	relpath_case(1, c255, 255, "255-byte component");
	relpath_case(0, c256, 256, "256-byte component");
	{
		char s[600];

		snprintf(s, sizeof(s), "a/%s/b", c255);
		relpath_case(1, s, strlen(s), "a/<255>/b");
		snprintf(s, sizeof(s), "a/%s/b", c256);
		relpath_case(0, s, strlen(s), "a/<256>/b");
		snprintf(s, sizeof(s), "a/%s", c256);
		relpath_case(0, s, strlen(s), "a/<256>");
		snprintf(s, sizeof(s), "%s/b", c256);
		relpath_case(0, s, strlen(s), "<256>/b");
	}

	/* whole path: 4095 bytes is the most */
	relpath_case(1, path_of(PR_RELPATH_MAX - 1, 255), PR_RELPATH_MAX - 1,
		     "4095 bytes, 255-byte components");
	relpath_case(1, path_of(PR_RELPATH_MAX - 1, 1), PR_RELPATH_MAX - 1,
		     "4095 bytes, 1-byte components");
	/* (100-byte components: too long is the only thing wrong with them) */
	relpath_case(0, path_of(PR_RELPATH_MAX, 100), PR_RELPATH_MAX, "4096 bytes");
	relpath_case(0, path_of(PR_RELPATH_MAX + 1, 100), PR_RELPATH_MAX + 1, "4097 bytes");
	relpath_case(0, path_of(2 * PR_RELPATH_MAX - 1, 100), 2 * PR_RELPATH_MAX - 1,
		     "8191 bytes");

	/* the same rules in every request that carries a path */
	PM(PR_MSG_OK, "");
	PM(PR_MSG_OK, "a");
	PM(PR_MSG_OK, "a b/c");
	PM(PR_MSG_OK, "...");
	PM(PR_MSG_EBADSTR, "/");
	PM(PR_MSG_EBADSTR, "/etc/passwd");
	PM(PR_MSG_EBADSTR, "a/");
	PM(PR_MSG_EBADSTR, "a//b");
	PM(PR_MSG_EBADSTR, ".");
	PM(PR_MSG_EBADSTR, "..");
	PM(PR_MSG_EBADSTR, "../x");
	PM(PR_MSG_EBADSTR, "./a");
	PM(PR_MSG_EBADSTR, "a/./b");
	PM(PR_MSG_EBADSTR, "a/../b");
	PM(PR_MSG_EBADSTR, "a/..");
	path_msg_case(PR_MSG_EBADSTR, "a\0b", 3, "path \"a\\0b\"");
	path_msg_case(PR_MSG_OK, c255, 255, "path <255>");
	path_msg_case(PR_MSG_EBADSTR, c256, 256, "path <256>");
	path_msg_case(PR_MSG_OK, path_of(PR_RELPATH_MAX - 1, 255), PR_RELPATH_MAX - 1,
		      "path of 4095 bytes");
	path_msg_case(PR_MSG_OK, path_of(PR_RELPATH_MAX - 1, 3), PR_RELPATH_MAX - 1,
		      "path of 4095 bytes, 3-byte components");
	{
		/* len 4096: the buffer is full of a well-formed path and there is
		 * no room for its NUL; the byte after is a zeroed tail */
		struct pr_msg m;

		base_wlist(&m);
		memcpy(m.u.path.path.s, path_of(PR_RELPATH_MAX, 100), PR_RELPATH_MAX);
		m.u.path.path.len = PR_RELPATH_MAX;
		expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "path len 4096");
		base_wstat(&m);
		memcpy(m.u.stat.path.s, path_of(PR_RELPATH_MAX, 100), PR_RELPATH_MAX);
		m.u.stat.path.len = PR_RELPATH_MAX;
		expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "STAT path len 4096");
	}
}

/* ---------------------------------------------------------------------- */
/* 3b. filesystem requests and answers                                     */

static void test_wstat_fields(void)
{
	FIELD(PR_W_STAT, PR_MSG_OK, u.stat.flags, 0, "flags 0");
	FIELD(PR_W_STAT, PR_MSG_OK, u.stat.flags, PR_STAT_FOLLOW, "flags FOLLOW");
	FIELD(PR_W_STAT, PR_MSG_EBADFIELD, u.stat.flags, 2, "flags 2");
	FIELD(PR_W_STAT, PR_MSG_EBADFIELD, u.stat.flags, PR_STAT_FOLLOW | 2, "flags 3");
	FIELD(PR_W_STAT, PR_MSG_EBADFIELD, u.stat.flags, 0x100, "flags 0x100");
	FIELD(PR_W_STAT, PR_MSG_EBADFIELD, u.stat.flags, 0x80000000u, "flags 0x80000000");
	FIELD(PR_W_STAT, PR_MSG_EBADFIELD, u.stat.flags, 0xffffffffu, "flags huge");
}

/* The transfer log's records: every field out of range, and the
 * cross-field rules (a sum only for a regular file, a target exactly when
 * a link kind says so, a symlink target only on a symlink). */
static void test_xferlog_fields(void)
{
	struct pr_msg m;

	FIELD(PR_W_START, PR_MSG_OK, u.start.sender, 0, "sender 0 (a push)");
	FIELD(PR_W_START, PR_MSG_EBADFIELD, u.start.sender, 2, "sender 2");
	FIELD(PR_W_START, PR_MSG_EBADFIELD, u.start.sender, 0xffffffffu, "sender huge");
	base_start(&m);
	set_relpath(&m.u.start.request, "");
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "empty request");
	set_relpath(&m.u.start.request, "../../etc/passwd \t\\#033[2J");
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "request is log text, not a path");
	for (unsigned c = 1; c < 0x20; c++) {
		base_start(&m);
		m.u.start.request.s[2] = (char)c;
		expect(c == '\t' ? PR_MSG_OK : PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a control byte in the request");
	}

	FIELD(PR_M_XFERLOG, PR_MSG_OK, u.xferlog.files, 0, "no lines");
	FIELD(PR_M_XFERLOG, PR_MSG_EBADFIELD, u.xferlog.files, 2, "files 2");
	FIELD(PR_M_XFERLOG, PR_MSG_EBADFIELD, u.xferlog.pid, 0, "pid 0");
	FIELD(PR_M_XFERLOG, PR_MSG_OK, u.xferlog.pid, INT32_MAX, "pid INT32_MAX");
	FIELD(PR_M_XFERLOG, PR_MSG_EBADFIELD, u.xferlog.pid, 0x80000000u, "pid negative as int");
	base_xferlog(&m);
	set_text(&m.u.xferlog.format, "");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "an empty format");

	/* the line: any text but a control byte other than tab */
	base_xfer(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "a line with tab, UTF-8 and escapes");
	m.u.xfer.line.len = 0;
	memset(m.u.xfer.line.s, 0, sizeof(m.u.xfer.line.s));
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "an empty line (an empty log format)");
	for (unsigned c = 1; c < 0x20; c++) {
		base_xfer(&m);
		m.u.xfer.line.s[3] = (char)c;
		expect(c == '\t' ? PR_MSG_OK : PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a control byte in the line");
	}
	base_xfer(&m);
	m.u.xfer.line.s[m.u.xfer.line.len - 1] = '\n';
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a newline at the line's end");
	base_xfer(&m);
	m.u.xfer.line.s[5] = (char)0x7f;
	m.u.xfer.line.s[6] = (char)0xff;
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "DEL and high bytes (rsyncd keeps them)");
	base_xfer(&m);
	m.u.xfer.line.len++;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a length past the NUL");
	base_xfer(&m);
	m.u.xfer.line.s[2] = '\0';
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a NUL inside the line");
	base_xfer(&m);
	memset(m.u.xfer.line.s, 'A', sizeof(m.u.xfer.line.s));
	m.u.xfer.line.len = PR_XFER_LINE_MAX - 1;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a full line without its NUL");
	m.u.xfer.line.s[PR_XFER_LINE_MAX - 1] = '\0';
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "the longest line");
	m.u.xfer.line.len = 0xffff;
	expect(PR_MSG_EBADSTR, &m, PR_DIR_TO_MONITOR, 0, "a length past the buffer");
}

/* XATTR and its answers: a request's flags, the pieces' sizes, the end's
 * errno and totals (bounded, and no totals with an error). */
static void test_xattr_fields(void)
{
	struct pr_msg m;

	FIELD(PR_W_XATTR, PR_MSG_OK, u.stat.flags, PR_STAT_FOLLOW, "flags FOLLOW");
	FIELD(PR_W_XATTR, PR_MSG_EBADFIELD, u.stat.flags, 2, "flags 2");
	FIELD(PR_W_XATTR, PR_MSG_EBADFIELD, u.stat.flags, 0xffffffffu, "flags huge");
	FIELD(PR_M_XATTR, PR_MSG_EBADFIELD, u.xattr.used, 0, "used 0");
	FIELD(PR_M_XATTR, PR_MSG_OK, u.xattr.used, PR_XATTR_DATA, "used, all of it");
	FIELD(PR_M_XATTR, PR_MSG_EBADFIELD, u.xattr.used, PR_XATTR_DATA + 1, "used beyond the data");
	FIELD(PR_M_XATTR, PR_MSG_EBADFIELD, u.xattr.used, 0xffffffffu, "used huge");
	FIELD(PR_M_XATTR_END, PR_MSG_OK, u.xattr_end.count, PR_XATTR_COUNT_MAX, "count at the bound");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.count, PR_XATTR_COUNT_MAX + 1, "count beyond");
	FIELD(PR_M_XATTR_END, PR_MSG_OK, u.xattr_end.total, PR_XATTR_TOTAL_MAX, "total at the bound");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.total, PR_XATTR_TOTAL_MAX + 1, "total beyond");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.err, -1, "err negative");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.err, 4096, "err huge");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.count, 0, "records without a count");
	FIELD(PR_M_XATTR_END, PR_MSG_EBADFIELD, u.xattr_end.total, 0, "a count without bytes");
	pr_msg_init(&m, PR_M_XATTR_END);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "none at all");
	m.u.xattr_end.err = 2;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "an error, nothing else");
	m.u.xattr_end.count = 1;
	m.u.xattr_end.total = 9;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "an error with records");
	base_mxattr(&m);
	m.h.flags = PR_F_FD;
	reject(&m, PR_DIR_TO_WORKER, 1, "a piece with a descriptor");
	base_wxattr(&m);
	m.h.len = sizeof(struct pr_w_path);
	expect(PR_MSG_EBADLEN, &m, PR_DIR_TO_MONITOR, 0, "XATTR with a LIST body");
}

static void test_close_idname_fields(void)
{
	FIELD(PR_W_IDNAME, PR_MSG_EBADFIELD, u.idname.kind, 0, "kind 0");
	FIELD(PR_W_IDNAME, PR_MSG_EBADFIELD, u.idname.kind, 3, "kind 3");
	FIELD(PR_W_IDNAME, PR_MSG_EBADFIELD, u.idname.kind, 0xffffffffu, "kind huge");
	FIELD(PR_W_IDNAME, PR_MSG_OK, u.idname.kind, PR_ID_GROUP, "kind GROUP");
	FIELD(PR_W_IDNAME, PR_MSG_OK, u.idname.id, 0, "id 0");
	FIELD(PR_W_IDNAME, PR_MSG_OK, u.idname.id, 0xffffffffu, "id huge");

	{
		struct pr_msg m;

		FIELD(PR_M_IDNAME, PR_MSG_EBADFIELD, u.midname.found, 2, "found 2");
		FIELD(PR_M_IDNAME, PR_MSG_EBADFIELD, u.midname.found, 0xffffffffu, "found huge");
		FIELD(PR_M_IDNAME, PR_MSG_EBADFIELD, u.midname.found, 0, "found 0 with a name");
		base_midname(&m);
		set_name(&m.u.midname.name, "");
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "found 1 with an empty name");
		m.u.midname.found = 0;
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "found 0, empty name");
		m.u.midname.found = 2;
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "found 2, empty name");
		base_midname(&m);
		set_name(&m.u.midname.name, as(255));
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "found 1, 255-byte name");
		set_name(&m.u.midname.name, "a");
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "found 1, 1-byte name");
	}
}

/* Bad stat records, each a change to a sane one of the given mode. */
struct bad_stat {
	const char *what;
	uint32_t mode;             /* replaces st.mode if non-zero... */
	int mode_is_zero;          /* ...or st.mode = 0 */
	uint32_t or_mode;          /* bits or-ed into st.mode */
	uint32_t mtime_nsec, atime_nsec; /* replace if non-zero */
};

static const struct bad_stat bad_stats[] = {
	{ "mode 0", 0, 1, 0, 0, 0 },
	{ "mode 0644 (no type)", 0000644, 0, 0, 0, 0 },
	{ "mode type 0110000", 0110644, 0, 0, 0, 0 },
	{ "mode type 0030000", 0030644, 0, 0, 0, 0 },
	{ "mode type 0050000", 0050644, 0, 0, 0, 0 },
	{ "mode type 0070000", 0070644, 0, 0, 0, 0 },
	{ "mode type 0130000", 0130644, 0, 0, 0, 0 },
	{ "mode type 0150000", 0150644, 0, 0, 0, 0 },
	{ "mode type 0160000", 0160644, 0, 0, 0, 0 },
	{ "mode type 0170000", 0170644, 0, 0, 0, 0 },
	{ "mode bit 0200000", 0, 0, 0200000, 0, 0 },
	{ "mode bit 0x80000000", 0, 0, 0x80000000u, 0, 0 },
	{ "mode all ones", 0xffffffffu, 0, 0, 0, 0 },
	{ "mtime_nsec 1e9", 0, 0, 0, 1000000000u, 0 },
	{ "mtime_nsec huge", 0, 0, 0, 0xffffffffu, 0 },
	{ "atime_nsec 1e9", 0, 0, 0, 0, 1000000000u },
	{ "atime_nsec huge", 0, 0, 0, 0, 0xffffffffu },
};
#define NBAD_STATS (sizeof(bad_stats) / sizeof(bad_stats[0]))

static void apply_bad_stat(struct pr_stat *st, const struct bad_stat *b)
{
	if (b->mode_is_zero)
		st->mode = 0;
	else if (b->mode)
		st->mode = b->mode;
	st->mode |= b->or_mode;
	if (b->mtime_nsec)
		st->mtime_nsec = b->mtime_nsec;
	if (b->atime_nsec)
		st->atime_nsec = b->atime_nsec;
}

static const uint32_t good_modes[] = { M_SOCK, M_LNK, M_REG, M_BLK, M_DIR, M_CHR, M_FIFO,
				       0107777 /* every permission bit */, 0100000 };
#define NGOOD_MODES (sizeof(good_modes) / sizeof(good_modes[0]))

static void test_list_end_fields(void)
{
	FIELD(PR_M_LIST_END, PR_MSG_OK, u.list_end.err, ENOENT, "err ENOENT");
	FIELD(PR_M_LIST_END, PR_MSG_OK, u.list_end.err, 4095, "err 4095");
	FIELD(PR_M_LIST_END, PR_MSG_EBADFIELD, u.list_end.err, 4096, "err 4096");
	FIELD(PR_M_LIST_END, PR_MSG_EBADFIELD, u.list_end.err, -1, "err -1");
	FIELD(PR_M_LIST_END, PR_MSG_EBADFIELD, u.list_end.err, INT32_MIN, "err INT32_MIN");
	FIELD(PR_M_LIST_END, PR_MSG_EBADFIELD, u.list_end.err, INT32_MAX, "err INT32_MAX");
}

static void test_mstat_fields(void)
{
	struct pr_msg m;

	/* a failed stat: the errno and nothing else */
	FIELD(PR_M_STAT, PR_MSG_OK, u.mstat.err, ENOENT, "err ENOENT");
	FIELD(PR_M_STAT, PR_MSG_OK, u.mstat.err, 4095, "err 4095");
	FIELD(PR_M_STAT, PR_MSG_EBADFIELD, u.mstat.err, 4096, "err 4096");
	FIELD(PR_M_STAT, PR_MSG_EBADFIELD, u.mstat.err, -1, "err -1");
	FIELD(PR_M_STAT, PR_MSG_EBADFIELD, u.mstat.err, INT32_MIN, "err INT32_MIN");
	base_mstat(&m);
	m.u.mstat.err = EACCES;
	m.u.mstat.st = st_garbage();
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "err EACCES, garbage stat");
	base_mstat_link(&m);
	m.u.mstat.err = ENOENT;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err ENOENT with an inline link");
	m.u.mstat.link_state = PR_LINK_NONE;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err ENOENT, link NONE, link text");
	for (uint32_t ls = PR_LINK_INLINE; ls <= PR_LINK_ERROR; ls++) {
		base_mstat(&m);
		m.u.mstat.err = ENOENT;
		m.u.mstat.link_state = ls;
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err ENOENT with a link state");
	}

	/* symlinks */
	base_mstat_link(&m);
	set_name(&m.u.mstat.link, as(PR_LINK_INLINE_MAX));
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "inline link of PR_LINK_INLINE_MAX bytes");
	set_name(&m.u.mstat.link, "/absolute/target");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "inline absolute link (a target is data)");
	set_name(&m.u.mstat.link, "");
	verdict(REJECT, &m, PR_DIR_TO_WORKER, 0, "link INLINE, empty link");
	base_mstat_link(&m);
	m.u.mstat.link_state = PR_LINK_LONG;
	verdict(REJECT, &m, PR_DIR_TO_WORKER, 0, "link LONG with a link text");
	m.u.mstat.link_state = PR_LINK_ERROR;
	verdict(REJECT, &m, PR_DIR_TO_WORKER, 0, "link ERROR with a link text");
	m.u.mstat.link_state = PR_LINK_NONE;
	verdict(REJECT, &m, PR_DIR_TO_WORKER, 0, "link NONE with a link text");
	m.u.mstat.link_state = 4;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "link state 4");
	m.u.mstat.link_state = 0xffffffffu;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "link state huge");
	base_mstat_link(&m);
	set_name(&m.u.mstat.link, "");
	m.u.mstat.link_state = PR_LINK_LONG;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "symlink, LONG");
	m.u.mstat.link_state = PR_LINK_ERROR;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "symlink, ERROR");
	m.u.mstat.link_state = 4;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "symlink, link state 4");
	/*
	 * PR_LINK_NONE means "not a symlink (or err != 0)" (msg.h): a symlink
	 * that was read must say INLINE, LONG or ERROR.
	 */
	m.u.mstat.link_state = PR_LINK_NONE;
	reject(&m, PR_DIR_TO_WORKER, 0, "symlink, err 0, link NONE (msg.h: NONE = not a symlink)");

	/* link states belong to symlinks only */
	for (size_t i = 0; i < NGOOD_MODES; i++) {
		char what[80];

		if ((good_modes[i] & 0170000) == 0120000)
			continue;
		base_mstat(&m);
		m.u.mstat.st = st_of(good_modes[i]);
		snprintf(what, sizeof(what), "mode 0%o, NONE", (unsigned)good_modes[i]);
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, what);
		for (uint32_t ls = PR_LINK_INLINE; ls <= PR_LINK_ERROR; ls++) {
			m.u.mstat.link_state = ls;
			if (ls == PR_LINK_INLINE)
				set_name(&m.u.mstat.link, "target");
			else
				set_name(&m.u.mstat.link, "");
			snprintf(what, sizeof(what), "mode 0%o, link state %u",
				 (unsigned)good_modes[i], (unsigned)ls);
			expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, what);
		}
	}

	/* bad stat records (only err == 0 has one) */
	for (size_t i = 0; i < NBAD_STATS; i++) {
		base_mstat(&m);
		apply_bad_stat(&m.u.mstat.st, &bad_stats[i]);
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, bad_stats[i].what);
		m.u.mstat.err = EIO;
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "bad stat ignored with err != 0");
	}
	FIELD(PR_M_STAT, PR_MSG_OK, u.mstat.st.mtime_nsec, 0, "mtime_nsec 0");
	FIELD(PR_M_STAT, PR_MSG_OK, u.mstat.st.atime_nsec, 999999999u, "atime_nsec 999999999");
}

static void test_readlink_fields(void)
{
	struct pr_msg m;

	base_readlink(&m);
	set_relpath(&m.u.readlink.target, "");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err 0, empty target");
	m.u.readlink.err = EINVAL;
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "err EINVAL, empty target");
	m.u.readlink.err = 4096;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err 4096");
	m.u.readlink.err = -1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err -1");
	m.u.readlink.err = INT32_MIN;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "err INT32_MIN");
	FIELD(PR_M_READLINK, PR_MSG_EBADFIELD, u.readlink.err, EIO, "err EIO with a target");
	FIELD(PR_M_READLINK, PR_MSG_EBADFIELD, u.readlink.err, -1, "err -1 with a target");

	/* a target is data, not a module path: any bytes but NUL, up to 4095 */
	base_readlink(&m);
	set_relpath(&m.u.readlink.target, "/etc/../x//y/");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "absolute, unnormalised target");
	set_relpath(&m.u.readlink.target, as(PR_RELPATH_MAX - 1));
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "target of 4095 bytes");
	set_relpath(&m.u.readlink.target, "x");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "target of 1 byte");
}

/* ---------------------------------------------------------------------- */
/* 3c. PR_M_LIST: packed entries                                           */

#define HDR_SIZE sizeof(struct pr_dirent_hdr)

static struct pr_dirent_hdr hd(uint32_t mode, int32_t err, uint32_t link_state,
			       size_t name_len, size_t link_len)
{
	struct pr_dirent_hdr h;

	memset(&h, 0, sizeof(h));
	h.st = st_of(mode);
	h.err = err;
	h.link_state = link_state;
	h.name_len = (uint16_t)name_len;
	h.link_len = (uint16_t)link_len;
	return h;
}

/* Append an entry byte for byte, whatever it says; count + 1. */
static void raw_pack(struct pr_msg *m, const struct pr_dirent_hdr *h, const void *name,
		     size_t nlen, const void *link, size_t llen)
{
	struct pr_m_list *b = &m->u.list;
	size_t need = HDR_SIZE + nlen + llen;

	if (b->used > sizeof(b->data) || need > sizeof(b->data) - b->used) {
		CHECK_MSG(0, "raw_pack: %zu bytes do not fit", need);
		return;
	}
	memcpy(b->data + b->used, h, HDR_SIZE);
	if (nlen)
		memcpy(b->data + b->used + HDR_SIZE, name, nlen);
	if (llen)
		memcpy(b->data + b->used + HDR_SIZE + nlen, link, llen);
	b->used += (uint32_t)need;
	b->count++;
}

/*
 * One entry (header h, then nlen name bytes, then llen link bytes), alone in
 * a LIST and between two good entries.
 */
static void ent_case(int want, struct pr_dirent_hdr h, const char *name, size_t nlen,
		     const char *link, size_t llen, const char *what)
{
	struct pr_msg m;
	char w[160];

	pr_msg_init(&m, PR_M_LIST);
	raw_pack(&m, &h, name, nlen, link, llen);
	snprintf(w, sizeof(w), "entry %s, alone", what);
	verdict(want, &m, PR_DIR_TO_WORKER, 0, w);

	pr_msg_init(&m, PR_M_LIST);
	list_add(&m, M_DIR, 0, "before", PR_LINK_NONE, NULL);
	raw_pack(&m, &h, name, nlen, link, llen);
	list_add(&m, M_LNK, 0, "after", PR_LINK_INLINE, "before");
	snprintf(w, sizeof(w), "entry %s, in the middle", what);
	verdict(want, &m, PR_DIR_TO_WORKER, 0, w);
}

/* An entry whose header lengths match its bytes. */
static void ent(int want, uint32_t mode, int32_t err, uint32_t ls, const char *name,
		size_t nlen, const char *link, size_t llen, const char *what)
{
	ent_case(want, hd(mode, err, ls, nlen, llen), name, nlen, link, llen, what);
}

#define ENT(want, mode, err, ls, name, link, what) \
	ent((want), (mode), (err), (ls), (name), sizeof(name) - 1, (link), \
	    sizeof(link) - 1, (what))

static void test_list_entries(void)
{
	char n255[256], n256[257];

	memset(n255, 'n', 255);
	n255[255] = '\0';
	memset(n256, 'n', 256);
	n256[256] = '\0';

	/* accepted */
	ENT(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, "file", "", "regular file");
	ENT(PR_MSG_OK, M_LNK, 0, PR_LINK_INLINE, "link", "../some/target", "symlink, inline target");
	ENT(PR_MSG_OK, M_LNK, 0, PR_LINK_INLINE, "link", "/abs", "symlink, absolute target");
	ENT(PR_MSG_OK, M_LNK, 0, PR_LINK_LONG, "link", "", "symlink, LONG");
	ENT(PR_MSG_OK, M_LNK, 0, PR_LINK_ERROR, "link", "", "symlink, ERROR");
	ENT(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, "...", "", "name \"...\"");
	ENT(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, ".a", "", "name \".a\"");
	ENT(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, "..a", "", "name \"..a\"");
	ENT(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, "a b\n\t\\\xff", "", "odd bytes in a name");
	ent(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, n255, 255, NULL, 0, "255-byte name");
	ent(PR_MSG_OK, M_LNK, 0, PR_LINK_INLINE, n255, 255, n255, 255,
	    "255-byte name, 255-byte target");
	ent(PR_MSG_OK, M_REG, 0, PR_LINK_NONE, "x", 1, NULL, 0, "1-byte name");
	for (size_t i = 0; i < NGOOD_MODES; i++) {
		char what[64];

		snprintf(what, sizeof(what), "mode 0%o", (unsigned)good_modes[i]);
		ENT(PR_MSG_OK, good_modes[i], 0,
		    (good_modes[i] & 0170000) == 0120000 ? PR_LINK_LONG : PR_LINK_NONE,
		    "e", "", what);
	}
	/* a failed lstat: the stat means nothing */
	{
		struct pr_dirent_hdr h = hd(M_REG, ENOENT, PR_LINK_NONE, 4, 0);

		h.st = st_garbage();
		ent_case(PR_MSG_OK, h, "gone", 4, NULL, 0, "err ENOENT, garbage stat");
		h.err = 4095;
		ent_case(PR_MSG_OK, h, "gone", 4, NULL, 0, "err 4095, garbage stat");
		h.st = st_of(0);
		ent_case(PR_MSG_OK, h, "gone", 4, NULL, 0, "err 4095, mode 0");
	}

	/* header lengths */
	ent_case(PR_MSG_EBADFIELD, hd(M_REG, 0, PR_LINK_NONE, 0, 0), NULL, 0, NULL, 0,
		 "name_len 0");
	ent_case(PR_MSG_EBADFIELD, hd(M_REG, 0, PR_LINK_NONE, 0, 0), "x", 1, NULL, 0,
		 "name_len 0 before a name byte");
	ent(PR_MSG_EBADFIELD, M_REG, 0, PR_LINK_NONE, n256, 256, NULL, 0, "name_len 256");
	ent_case(PR_MSG_EBADFIELD, hd(M_REG, 0, PR_LINK_NONE, 0xffff, 0), "x", 1, NULL, 0,
		 "name_len 0xffff");
	ent(PR_MSG_EBADFIELD, M_LNK, 0, PR_LINK_INLINE, "l", 1, n256, 256, "link_len 256");
	ent_case(PR_MSG_EBADFIELD, hd(M_LNK, 0, PR_LINK_INLINE, 1, 0xffff), "lt", 2, NULL, 0,
		 "link_len 0xffff");

	/* names */
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, ".", "", "name \".\"");
	ENT(PR_MSG_EBADSTR, M_DIR, 0, PR_LINK_NONE, "..", "", "name \"..\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "/", "", "name \"/\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "a/b", "", "name \"a/b\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "../x", "", "name \"../x\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "a/", "", "name \"a/\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "/etc", "", "name \"/etc\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "\0", "", "name \"\\0\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "a\0b", "", "name \"a\\0b\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, "ab\0", "", "name \"ab\\0\"");
	ENT(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, ".\0", "", "name \".\\0\"");
	ENT(PR_MSG_EBADSTR, M_REG, ENOENT, PR_LINK_NONE, "..", "", "name \"..\", err ENOENT");
	n255[100] = '/';
	ent(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, n255, 255, NULL, 0, "'/' inside 255 bytes");
	n255[100] = '\0';
	ent(PR_MSG_EBADSTR, M_REG, 0, PR_LINK_NONE, n255, 255, NULL, 0, "NUL inside 255 bytes");
	n255[100] = 'n';

	/* symlink targets */
	ENT(PR_MSG_EBADSTR, M_LNK, 0, PR_LINK_INLINE, "l", "a\0b", "target with NUL");
	ENT(PR_MSG_EBADSTR, M_LNK, 0, PR_LINK_INLINE, "l", "\0", "target \"\\0\"");
	ENT(PR_MSG_EBADSTR, M_LNK, 0, PR_LINK_INLINE, "l", "ab\0", "target ending in NUL");
	ENT(REJECT, M_LNK, 0, PR_LINK_INLINE, "l", "", "INLINE, link_len 0");
	ENT(REJECT, M_LNK, 0, PR_LINK_NONE, "l", "t", "NONE, link_len 1");
	ENT(REJECT, M_REG, 0, PR_LINK_NONE, "l", "t", "regular file, NONE, link_len 1");
	ENT(REJECT, M_LNK, 0, PR_LINK_LONG, "l", "t", "LONG, link_len 1");
	ENT(REJECT, M_LNK, 0, PR_LINK_ERROR, "l", "t", "ERROR, link_len 1");
	ENT(PR_MSG_EBADFIELD, M_LNK, 0, 4, "l", "", "link state 4");
	ENT(PR_MSG_EBADFIELD, M_LNK, 0, 0xffffffffu, "l", "", "link state huge");
	ENT(REJECT, M_LNK, 0, 4, "l", "t", "link state 4, link_len 1");
	/* PR_LINK_NONE means "not a symlink (or err != 0)" (msg.h) */
	ENT(REJECT, M_LNK, 0, PR_LINK_NONE, "l", "",
	    "symlink, err 0, link NONE (msg.h: NONE = not a symlink)");

	/* link states belong to symlinks that were lstat'ed */
	for (size_t i = 0; i < NGOOD_MODES; i++) {
		char what[64];

		if ((good_modes[i] & 0170000) == 0120000)
			continue;
		snprintf(what, sizeof(what), "mode 0%o, INLINE", (unsigned)good_modes[i]);
		ENT(PR_MSG_EBADFIELD, good_modes[i], 0, PR_LINK_INLINE, "e", "t", what);
		snprintf(what, sizeof(what), "mode 0%o, LONG", (unsigned)good_modes[i]);
		ENT(PR_MSG_EBADFIELD, good_modes[i], 0, PR_LINK_LONG, "e", "", what);
		snprintf(what, sizeof(what), "mode 0%o, ERROR", (unsigned)good_modes[i]);
		ENT(PR_MSG_EBADFIELD, good_modes[i], 0, PR_LINK_ERROR, "e", "", what);
	}
	ENT(REJECT, M_LNK, ENOENT, PR_LINK_INLINE, "l", "t", "err ENOENT, INLINE");
	ENT(PR_MSG_EBADFIELD, M_LNK, ENOENT, PR_LINK_LONG, "l", "", "err ENOENT, LONG");
	ENT(PR_MSG_EBADFIELD, M_LNK, EACCES, PR_LINK_ERROR, "l", "", "err EACCES, ERROR");
	ENT(REJECT, M_LNK, ENOENT, PR_LINK_NONE, "l", "t", "err ENOENT, NONE, link_len 1");

	/* errno */
	ENT(PR_MSG_EBADFIELD, M_REG, -1, PR_LINK_NONE, "e", "", "err -1");
	ENT(PR_MSG_EBADFIELD, M_REG, 4096, PR_LINK_NONE, "e", "", "err 4096");
	ENT(PR_MSG_EBADFIELD, M_REG, INT32_MIN, PR_LINK_NONE, "e", "", "err INT32_MIN");
	ENT(PR_MSG_EBADFIELD, M_REG, INT32_MAX, PR_LINK_NONE, "e", "", "err INT32_MAX");

	/* stat records of entries that exist */
	for (size_t i = 0; i < NBAD_STATS; i++) {
		struct pr_dirent_hdr h = hd(M_REG, 0, PR_LINK_NONE, 1, 0);

		apply_bad_stat(&h.st, &bad_stats[i]);
		ent_case(PR_MSG_EBADFIELD, h, "e", 1, NULL, 0, bad_stats[i].what);
	}
}

static void test_list_framing(void)
{
	struct pr_msg m;
	const uint32_t e1 = (uint32_t)(HDR_SIZE + 4); /* base_list's entry */

	pr_msg_init(&m, PR_M_LIST);
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "no entries");
	m.u.list.count = 1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "count 1, used 0");

	base_list(&m);
	CHECK(m.u.list.count == 1 && m.u.list.used == e1);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "one entry");

	/* count */
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.count, 0, "count 0, one entry");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.count, 2, "count 2, one entry");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.count, 0xffffffffu, "count huge");
	base_list(&m);
	list_add(&m, M_DIR, 0, "d", PR_LINK_NONE, NULL);
	list_add(&m, M_LNK, 0, "l", PR_LINK_INLINE, "d");
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "three entries");
	m.u.list.count = 2;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "count 2, three entries");
	m.u.list.count = 4;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "count 4, three entries");

	/* used beyond the data */
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, PR_LIST_DATA + 1, "used PR_LIST_DATA+1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, PR_LIST_DATA + HDR_SIZE,
	      "used PR_LIST_DATA+header");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, 0x80000000u, "used 0x80000000");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, 0xffffffffu, "used huge");
	/* zeroed bytes after the entry are not an entry */
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, PR_LIST_DATA, "used PR_LIST_DATA");

	/* used off an entry boundary */
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, 0, "used 0, count 1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, 1, "used 1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, HDR_SIZE - 1, "used header-1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, HDR_SIZE, "used header only");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, e1 - 1, "used entry-1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, e1 + 1, "used entry+1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, e1 + HDR_SIZE - 1,
	      "used entry+header-1");
	FIELD(PR_M_LIST, PR_MSG_EBADFIELD, u.list.used, e1 + HDR_SIZE, "used entry+header");
	base_list(&m);
	list_add(&m, M_REG, 0, "second", PR_LINK_NONE, NULL);
	m.u.list.used--;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "two entries, used one short");
	m.u.list.count = 1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0,
	       "two entries, used one short, count 1");
	m.u.list.used = e1 + 1;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "used one byte into the second");
	/* a header that claims more name than there is */
	base_list(&m);
	{
		struct pr_dirent_hdr h;

		memcpy(&h, m.u.list.data, HDR_SIZE);
		h.name_len = 5;
		memcpy(m.u.list.data, &h, HDR_SIZE);
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "name_len past used");
		h.name_len = 4;
		h.link_len = 1;
		h.st.mode = M_LNK;
		h.link_state = PR_LINK_INLINE;
		memcpy(m.u.list.data, &h, HDR_SIZE);
		expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "link_len past used");
	}
}

/* Fill a LIST with pr_list_add until it refuses; returns how many fit. */
static uint32_t fill_list(struct pr_msg *m, size_t name_len)
{
	char name[256];
	struct pr_stat st = st_of(M_REG);
	uint32_t n = 0;

	pr_msg_init(m, PR_M_LIST);
	for (;;) {
		snprintf(name, sizeof(name), "%0*u", (int)name_len, (unsigned)n);
		if (pr_list_add(&m->u.list, &st, 0, name, name_len, PR_LINK_NONE, NULL, 0) < 0)
			break;
		if (++n > PR_LIST_DATA) {
			CHECK_MSG(0, "pr_list_add never refuses");
			break;
		}
	}
	return n;
}

static void test_list_full(void)
{
	static const size_t lens[] = { 1, 6, 100, 255 };
	struct pr_msg m, before;

	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t e = HDR_SIZE + lens[k];
		uint32_t want = (uint32_t)(PR_LIST_DATA / e), n = fill_list(&m, lens[k]);
		struct pr_dirent d;
		size_t off = 0;
		uint32_t walked = 0;
		char what[64];

		snprintf(what, sizeof(what), "full list of %zu-byte names", lens[k]);
		CHECK_MSG(n == want && m.u.list.count == want && m.u.list.used == want * e,
			  "%s: %u added, count %u, used %u; want %u, used %zu", what, n,
			  m.u.list.count, m.u.list.used, want, want * e);
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, what);
		while (pr_list_next(&m.u.list, &off, &d) == 1) {
			char name[256];

			snprintf(name, sizeof(name), "%0*u", (int)lens[k], walked);
			if (d.name_len != lens[k] || memcmp(d.name, name, lens[k]) != 0)
				break;
			walked++;
		}
		CHECK_MSG(walked == n && off == m.u.list.used, "%s: walked %u of %u", what,
			  walked, n);
	}

	/* packed to the last byte: an entry of exactly the room left fits */
	{
		struct pr_stat st = st_of(M_REG);
		char name[256];
		uint32_t n = 0;

		pr_msg_init(&m, PR_M_LIST);
		memset(name, 'f', sizeof(name));
		for (;;) {
			size_t room = PR_LIST_DATA - m.u.list.used, nlen;

			if (room - HDR_SIZE <= 255) {
				nlen = room - HDR_SIZE;
				CHECK(pr_list_add(&m.u.list, &st, 0, name, nlen, PR_LINK_NONE,
						  NULL, 0) == 0);
				n++;
				break;
			}
			/* leave room for at least a header and one byte */
			nlen = room - 2 * HDR_SIZE - 1;
			if (nlen > 255)
				nlen = 255;
			name[0] = (char)('a' + n % 26);
			CHECK(pr_list_add(&m.u.list, &st, 0, name, nlen, PR_LINK_NONE, NULL, 0) == 0);
			n++;
		}
		CHECK(m.u.list.used == PR_LIST_DATA && m.u.list.count == n);
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "packed to the last byte");
		memcpy(&before, &m, sizeof(m));
		CHECK(pr_list_add(&m.u.list, &st, 0, "x", 1, PR_LINK_NONE, NULL, 0) == -1);
		CHECK_MSG(memcmp(&m, &before, sizeof(m)) == 0, "refused add changed a full list");
		expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "still valid after a refused add");
	}

	/* one byte short of room for the next entry */
	{
		struct pr_stat st = st_of(M_REG);
		size_t room;

		pr_msg_init(&m, PR_M_LIST);
		m.u.list.used = (uint32_t)(PR_LIST_DATA - HDR_SIZE - 10);
		room = PR_LIST_DATA - m.u.list.used;
		CHECK(pr_list_add(&m.u.list, &st, 0, as(room - HDR_SIZE + 1),
				  room - HDR_SIZE + 1, PR_LINK_NONE, NULL, 0) == -1);
		CHECK(pr_list_add(&m.u.list, &st, 0, "abcdefgh", 8, PR_LINK_INLINE, "xyz", 3) == -1);
		CHECK(m.u.list.count == 0 && m.u.list.used == PR_LIST_DATA - HDR_SIZE - 10);
		CHECK(pr_list_add(&m.u.list, &st, 0, as(room - HDR_SIZE), room - HDR_SIZE,
				  PR_LINK_NONE, NULL, 0) == 0);
		CHECK(m.u.list.count == 1 && m.u.list.used == PR_LIST_DATA);
	}
}

static void test_list_add_next(void)
{
	struct pr_msg m, before;
	struct pr_stat st = st_of(M_REG), lst = st_of(M_LNK), gst = st_garbage();
	struct pr_dirent d;
	size_t off = 0;
	char n256[300];

	memset(n256, 'n', sizeof(n256));

	/* pr_list_add refuses what no entry may hold, and changes nothing */
	pr_msg_init(&m, PR_M_LIST);
	list_add(&m, M_REG, 0, "first", PR_LINK_NONE, NULL);
	memcpy(&before, &m, sizeof(m));
	CHECK(pr_list_add(&m.u.list, &st, 0, "", 0, PR_LINK_NONE, NULL, 0) == -1);
	CHECK(pr_list_add(&m.u.list, &st, 0, n256, 256, PR_LINK_NONE, NULL, 0) == -1);
	CHECK(pr_list_add(&m.u.list, &st, 0, n256, 0xffff, PR_LINK_NONE, NULL, 0) == -1);
	CHECK(pr_list_add(&m.u.list, &st, 0, n256, (size_t)-1, PR_LINK_NONE, NULL, 0) == -1);
	CHECK(pr_list_add(&m.u.list, &lst, 0, "l", 1, PR_LINK_INLINE, n256, 256) == -1);
	CHECK(pr_list_add(&m.u.list, &lst, 0, "l", 1, PR_LINK_INLINE, n256, (size_t)-1) == -1);
	CHECK_MSG(memcmp(&m, &before, sizeof(m)) == 0, "refused pr_list_add changed the list");
	/* nor does it write past the data of a list whose used is already bad */
	m.u.list.used = PR_LIST_DATA + 1;
	CHECK(pr_list_add(&m.u.list, &st, 0, "x", 1, PR_LINK_NONE, NULL, 0) == -1);
	m.u.list.used = 0xffffffffu;
	CHECK(pr_list_add(&m.u.list, &st, 0, "x", 1, PR_LINK_NONE, NULL, 0) == -1);
	CHECK(m.u.list.count == 1);

	/* pr_list_next returns what pr_list_add packed */
	pr_msg_init(&m, PR_M_LIST);
	CHECK(pr_list_add(&m.u.list, &st, 0, "file.txt", 8, PR_LINK_NONE, NULL, 0) == 0);
	CHECK(pr_list_add(&m.u.list, &lst, 0, "link", 4, PR_LINK_INLINE, "../target", 9) == 0);
	CHECK(pr_list_add(&m.u.list, &gst, EACCES, "secret", 6, PR_LINK_NONE, NULL, 0) == 0);
	CHECK(pr_list_add(&m.u.list, &lst, 0, n256, 255, PR_LINK_INLINE, n256, 255) == 0);
	CHECK(m.u.list.count == 4 &&
	      m.u.list.used == 4 * HDR_SIZE + 8 + 4 + 9 + 6 + 255 + 255);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "four entries by pr_list_add");

	CHECK(pr_list_next(&m.u.list, &off, &d) == 1);
	CHECK(off == HDR_SIZE + 8);
	CHECK(d.name_len == 8 && memcmp(d.name, "file.txt", 8) == 0 && d.link_len == 0 &&
	      d.link_state == PR_LINK_NONE && d.err == 0 &&
	      memcmp(&d.st, &st, sizeof(st)) == 0);
	CHECK(d.name == (const char *)m.u.list.data + HDR_SIZE);

	CHECK(pr_list_next(&m.u.list, &off, &d) == 1);
	CHECK(d.name_len == 4 && memcmp(d.name, "link", 4) == 0 && d.link_len == 9 &&
	      memcmp(d.link, "../target", 9) == 0 && d.link == d.name + 4 &&
	      d.link_state == PR_LINK_INLINE && d.err == 0 &&
	      memcmp(&d.st, &lst, sizeof(lst)) == 0);

	CHECK(pr_list_next(&m.u.list, &off, &d) == 1);
	CHECK(d.name_len == 6 && memcmp(d.name, "secret", 6) == 0 && d.link_len == 0 &&
	      d.err == EACCES && memcmp(&d.st, &gst, sizeof(gst)) == 0);

	CHECK(pr_list_next(&m.u.list, &off, &d) == 1);
	CHECK(d.name_len == 255 && memcmp(d.name, n256, 255) == 0 && d.link_len == 255 &&
	      memcmp(d.link, n256, 255) == 0 && d.link_state == PR_LINK_INLINE);
	CHECK(off == m.u.list.used);

	CHECK(pr_list_next(&m.u.list, &off, &d) == 0);
	CHECK(pr_list_next(&m.u.list, &off, &d) == 0);
	CHECK(off == m.u.list.used);

	/* an empty list walks to its end at once */
	pr_msg_init(&m, PR_M_LIST);
	off = 0;
	CHECK(pr_list_next(&m.u.list, &off, &d) == 0 && off == 0);

	/* on data nobody validated, it stops instead of reading past the buffer */
	base_list(&m);
	off = 0;
	m.u.list.used = PR_LIST_DATA + 1;
	CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	m.u.list.used = 0xffffffffu;
	CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	base_list(&m);
	off = (size_t)m.u.list.used + 1;
	CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	off = 0;
	m.u.list.used = HDR_SIZE - 1;
	CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	m.u.list.used = HDR_SIZE + 3;
	CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	CHECK(off == 0);
	/* a header at the very end of the data claiming a name beyond it */
	pr_msg_init(&m, PR_M_LIST);
	{
		struct pr_dirent_hdr h = hd(M_REG, 0, PR_LINK_NONE, 255, 255);

		memcpy(m.u.list.data + PR_LIST_DATA - HDR_SIZE, &h, HDR_SIZE);
		m.u.list.used = PR_LIST_DATA;
		m.u.list.count = 1;
		off = PR_LIST_DATA - HDR_SIZE;
		CHECK(pr_list_next(&m.u.list, &off, &d) == -1);
	}
}

/* ---------------------------------------------------------------------- */
/* 3d. every counted string of every type                                  */

/* All five counted-string types share one layout; the tests rely on it. */
_Static_assert(offsetof(struct pr_str_name, len) == offsetof(struct pr_str_text, len) &&
	       offsetof(struct pr_str_name, len) == offsetof(struct pr_str_path, len) &&
	       offsetof(struct pr_str_name, len) == offsetof(struct pr_str_relpath, len) &&
	       offsetof(struct pr_str_name, len) == offsetof(struct pr_str_log, len),
	       "counted string layout");
_Static_assert(offsetof(struct pr_str_name, s) == offsetof(struct pr_str_text, s) &&
	       offsetof(struct pr_str_name, s) == offsetof(struct pr_str_path, s) &&
	       offsetof(struct pr_str_name, s) == offsetof(struct pr_str_relpath, s) &&
	       offsetof(struct pr_str_name, s) == offsetof(struct pr_str_log, s),
	       "counted string layout");
#define STR_LEN_OFF offsetof(struct pr_str_name, len)
#define STR_S_OFF offsetof(struct pr_str_name, s)

struct str_field {
	const char *name;
	void (*base)(struct pr_msg *m);
	size_t off;          /* of the counted string inside struct pr_msg */
	size_t cap;          /* sizeof its buffer */
	const char *prefix;  /* keeps the content otherwise valid */
	size_t next_off;     /* the counted string right after it (may be empty), or 0 */
	size_t comp;         /* module-relative path: '/' after every comp bytes */
};

#define SF(n, fn, member, pfx, next) \
	{ n, fn, offsetof(struct pr_msg, member), \
	  sizeof(((struct pr_msg *)0)->member.s), pfx, next, 0 }
/* a module-relative path, filled as 100-byte components */
#define SFP(n, fn, member) \
	{ n, fn, offsetof(struct pr_msg, member), \
	  sizeof(((struct pr_msg *)0)->member.s), "a", 0, 100 }
#define OFF(member) offsetof(struct pr_msg, member)

static const struct str_field str_fields[] = {
	SF("init.chroot_dir", base_init, u.init.chroot_dir, "/", OFF(u.init.client_addr)),
	SF("init.client_addr", base_init, u.init.client_addr, "", 0),
	SF("modlist.name", base_modlist, u.modlist.name, "m", OFF(u.modlist.comment)),
	SF("modlist.comment", base_modlist, u.modlist.comment, "", 0),
	SF("select.module", base_select_ok, u.select.module, "m", OFF(u.select.error)),
	SF("select.error", base_select_err, u.select.error, "@ERROR: ", 0),
	SF("select.refuse", base_select_ok, u.select.refuse, "", 0),
	SF("select.outgoing_chmod", base_select_ok, u.select.outgoing_chmod, "", 0),
	SF("select.charset", base_select_ok, u.select.charset, "", 0),
	SF("init.charsets", base_init, u.init.charsets, "", 0),
	SF("log.text", base_log, u.log.text, "", 0),
	SF("wselect.module", base_wselect, u.wselect.module, "m", 0),
	SF("mstat.link", base_mstat_link, u.mstat.link, "t", 0),
	SF("readlink.target", base_readlink, u.readlink.target, "t", 0),
	SF("midname.name", base_midname, u.midname.name, "n", 0),
	SFP("wlist.path", base_wlist, u.path.path),
	SFP("wstat.path", base_wstat, u.stat.path),
	SFP("wreadlink.path", base_wreadlink, u.path.path),
	SF("start.request", base_start, u.start.request, "", 0),
	SF("xferlog.format", base_xferlog, u.xferlog.format, "", OFF(u.xferlog.host)),
	SF("xferlog.host", base_xferlog, u.xferlog.host, "", OFF(u.xferlog.addr)),
	SF("xferlog.addr", base_xferlog, u.xferlog.addr, "", OFF(u.xferlog.user)),
	SF("xferlog.user", base_xferlog, u.xferlog.user, "", OFF(u.xferlog.module)),
	SF("xferlog.module", base_xferlog, u.xferlog.module, "", OFF(u.xferlog.path)),
	SF("xferlog.path", base_xferlog, u.xferlog.path, "/", 0),
	SF("xfer.line", base_xfer, u.xfer.line, "", 0),
};

static char *str_s(struct pr_msg *m, const struct str_field *f)
{
	return (char *)m + f->off + STR_S_OFF;
}

static void str_setlen(struct pr_msg *m, const struct str_field *f, uint16_t len)
{
	memcpy((char *)m + f->off + STR_LEN_OFF, &len, sizeof(len));
}

/* A valid string of n bytes: the prefix, then 'a's (a path's components
 * separated by '/'), then NULs. */
static void str_fill(struct pr_msg *m, const struct str_field *f, size_t n)
{
	char *s = str_s(m, f);
	size_t p = strlen(f->prefix);

	memset(s, 0, f->cap);
	memcpy(s, f->prefix, p);
	if (n > p)
		memset(s + p, 'a', n - p);
	if (f->comp)
		for (size_t i = p; i + 1 < n; i++)
			if ((i + 1) % (f->comp + 1) == 0)
				s[i] = '/';
	str_setlen(m, f, (uint16_t)n);
}

static void str_case(const struct str_field *f, enum pr_msg_err want, size_t n,
		     long len, long pos, char c, const char *what)
{
	struct pr_msg m;
	char w[128];

	f->base(&m);
	str_fill(&m, f, n);
	if (len >= 0)
		str_setlen(&m, f, (uint16_t)len);
	if (pos >= 0)
		str_s(&m, f)[pos] = c;
	snprintf(w, sizeof(w), "%s: %s", f->name, what);
	expect(want, &m, dir_of(m.h.type), 0, w);
}

/*
 * len == capacity with every byte of the buffer non-NUL and a NUL in the
 * byte right after it: a validator that accepted len == capacity would read
 * s[capacity] (outside the field) and find a terminator there.  The byte
 * after the buffer is the low byte of the next counted string's len, so that
 * string is made empty (len 0 is valid for all of them), or the zeroed tail
 * of the union for the last field of a body.
 */
static void str_full_case(const struct str_field *f)
{
	struct pr_msg m;
	char w[128];
	size_t after = f->off + STR_S_OFF + f->cap;

	f->base(&m);
	str_fill(&m, f, f->cap);
	str_setlen(&m, f, (uint16_t)f->cap);
	if (f->next_off) {
		CHECK(f->next_off + STR_LEN_OFF == after);
		memset((char *)&m + f->next_off, 0, STR_S_OFF + 1); /* len 0, s "" */
	} else if (after < sizeof(m)) {
		((unsigned char *)&m)[after] = 0;
	}
	snprintf(w, sizeof(w), "%s: len == capacity, buffer full, NUL just after", f->name);
	expect(PR_MSG_EBADSTR, &m, dir_of(m.h.type), 0, w);
}

static void test_strings(void)
{
	for (size_t i = 0; i < sizeof(str_fields) / sizeof(str_fields[0]); i++) {
		const struct str_field *f = &str_fields[i];
		long cap = (long)f->cap;

		str_case(f, PR_MSG_OK, 10, -1, -1, 0, "10 bytes");
		str_case(f, PR_MSG_OK, f->cap - 1, -1, -1, 0, "len == capacity-1");
		str_case(f, PR_MSG_EBADSTR, 10, cap, -1, 0, "len == capacity");
		str_full_case(f);
		str_case(f, PR_MSG_EBADSTR, 10, cap + 1, -1, 0, "len == capacity+1");
		str_case(f, PR_MSG_EBADSTR, 10, 0xffff, -1, 0, "len 0xffff");
		str_case(f, PR_MSG_EBADSTR, 10, -1, 10, 'x', "s[len] not NUL");
		str_case(f, PR_MSG_EBADSTR, 10, 9, -1, 0, "len one short of the string");
		str_case(f, PR_MSG_EBADSTR, 10, 0, -1, 0, "len 0, s non-empty");
		str_case(f, PR_MSG_EBADSTR, f->cap - 1, -1, cap - 1, 'x',
			 "no NUL anywhere in the buffer");
		str_case(f, PR_MSG_EBADSTR, 10, -1, 8, 0, "interior NUL");
		str_case(f, PR_MSG_EBADSTR, 10, -1, 0, 0, "NUL at s[0], len 10");
		str_case(f, PR_MSG_EBADSTR, f->cap - 1, -1, cap - 2, 0,
			 "interior NUL at capacity-2");
		str_case(f, PR_MSG_OK, 10, -1, cap - 1, 'z', "junk after the terminator");
	}
}

/* ---------------------------------------------------------------------- */
/* 4. string setters                                                       */

static int tail_zero(const char *s, size_t from, size_t cap)
{
	for (size_t i = from; i < cap; i++)
		if (s[i] != '\0')
			return 0;
	return 1;
}

static void test_setters(void)
{
	struct pr_str_name n, n0;
	struct pr_str_text t, t0;
	struct pr_str_path p, p0;
	static struct pr_str_relpath r, r0;

	CHECK(pr_str_set_name(&n, as(PR_NAME_MAX - 1)) == 0);
	CHECK(n.len == PR_NAME_MAX - 1 && n.s[PR_NAME_MAX - 1] == '\0' &&
	      memcmp(n.s, big, PR_NAME_MAX - 1) == 0);
	n0 = n;
	CHECK(pr_str_set_name(&n, as(PR_NAME_MAX)) == -1);
	CHECK(pr_str_set_name(&n, as(5000)) == -1);
	CHECK_MSG(memcmp(&n, &n0, sizeof(n)) == 0, "refused name changed the destination");
	CHECK(pr_str_set_name(&n, "") == 0 && n.len == 0 && tail_zero(n.s, 0, PR_NAME_MAX));
	CHECK(pr_str_set_name(&n, as(PR_NAME_MAX - 1)) == 0 &&
	      pr_str_set_name(&n, "ab") == 0);
	CHECK(n.len == 2 && memcmp(n.s, "ab", 3) == 0 && tail_zero(n.s, 2, PR_NAME_MAX));

	CHECK(pr_str_set_text(&t, as(PR_TEXT_MAX - 1)) == 0);
	CHECK(t.len == PR_TEXT_MAX - 1 && t.s[PR_TEXT_MAX - 1] == '\0');
	t0 = t;
	CHECK(pr_str_set_text(&t, as(PR_TEXT_MAX)) == -1);
	CHECK(pr_str_set_text(&t, as(5000)) == -1);
	CHECK_MSG(memcmp(&t, &t0, sizeof(t)) == 0, "refused text changed the destination");
	CHECK(pr_str_set_text(&t, "xyz") == 0 && t.len == 3 &&
	      tail_zero(t.s, 3, PR_TEXT_MAX));

	CHECK(pr_str_set_path(&p, as(PR_PATH_MAX - 1)) == 0);
	CHECK(p.len == PR_PATH_MAX - 1 && p.s[PR_PATH_MAX - 1] == '\0');
	p0 = p;
	CHECK(pr_str_set_path(&p, as(PR_PATH_MAX)) == -1);
	CHECK(pr_str_set_path(&p, as(5000)) == -1);
	CHECK_MSG(memcmp(&p, &p0, sizeof(p)) == 0, "refused path changed the destination");
	CHECK(pr_str_set_path(&p, "/") == 0 && p.len == 1 && tail_zero(p.s, 1, PR_PATH_MAX));

	CHECK(pr_str_set_relpath(&r, as(PR_RELPATH_MAX - 1)) == 0);
	CHECK(r.len == PR_RELPATH_MAX - 1 && r.s[PR_RELPATH_MAX - 1] == '\0' &&
	      memcmp(r.s, big, PR_RELPATH_MAX - 1) == 0);
	r0 = r;
	CHECK(pr_str_set_relpath(&r, as(PR_RELPATH_MAX)) == -1);
	CHECK(pr_str_set_relpath(&r, as(5000)) == -1);
	CHECK_MSG(memcmp(&r, &r0, sizeof(r)) == 0, "refused relpath changed the destination");
	CHECK(pr_str_set_relpath(&r, "") == 0 && r.len == 0 && tail_zero(r.s, 0, PR_RELPATH_MAX));
	CHECK(pr_str_set_relpath(&r, as(PR_RELPATH_MAX - 1)) == 0 &&
	      pr_str_set_relpath(&r, "a/b") == 0);
	CHECK(r.len == 3 && memcmp(r.s, "a/b", 4) == 0 && tail_zero(r.s, 3, PR_RELPATH_MAX));
	CHECK(pr_relpath_ok(r.s, r.len));
}

static void test_text_trunc(void)
{
	struct pr_msg m;

	pr_str_set_text_trunc(&m.u.log.text, as(PR_TEXT_MAX - 1));
	CHECK(m.u.log.text.len == PR_TEXT_MAX - 1 && m.u.log.text.s[PR_TEXT_MAX - 1] == '\0');
	pr_str_set_text_trunc(&m.u.log.text, as(PR_TEXT_MAX));
	CHECK(m.u.log.text.len == PR_TEXT_MAX - 1 && m.u.log.text.s[PR_TEXT_MAX - 1] == '\0');
	CHECK(memcmp(m.u.log.text.s, big, PR_TEXT_MAX - 1) == 0);
	pr_str_set_text_trunc(&m.u.log.text, as(5000));
	CHECK(m.u.log.text.len == PR_TEXT_MAX - 1 && m.u.log.text.s[PR_TEXT_MAX - 1] == '\0');
	pr_str_set_text_trunc(&m.u.log.text, "short");
	CHECK(m.u.log.text.len == 5 && strcmp(m.u.log.text.s, "short") == 0 &&
	      tail_zero(m.u.log.text.s, 5, PR_TEXT_MAX));

	/* a truncated record is still a valid LOG message */
	pr_msg_init(&m, PR_W_LOG);
	m.u.log.level = PR_LOG_WARNING;
	pr_str_set_text_trunc(&m.u.log.text, as(5000));
	expect(PR_MSG_OK, &m, PR_DIR_TO_MONITOR, 0, "truncated text");
}

/* ---------------------------------------------------------------------- */
/* 5. the channel                                                          */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

struct chan {
	int sv[2];
	struct pr_ipc mon;  /* sv[0]: receives worker -> monitor */
	struct pr_ipc wrk;  /* sv[1]: receives monitor -> worker */
};

/* Non-blocking, so that a test bug fails instead of hanging. */
static int chan_open(struct chan *c)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, c->sv) < 0) {
		CHECK_MSG(0, "socketpair: %s", strerror(errno));
		return -1;
	}
	pr_ipc_init(&c->mon, c->sv[0], pr_msg_validate_w2m);
	pr_ipc_init(&c->wrk, c->sv[1], pr_msg_validate_m2w);
	return 0;
}

static void chan_close(struct chan *c)
{
	if (c->sv[0] >= 0)
		close(c->sv[0]);
	if (c->sv[1] >= 0)
		close(c->sv[1]);
}

/* One record of len bytes from buf with nfds descriptors, bypassing ipc.c. */
static int raw_send(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(8 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

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
	n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	CHECK_MSG(n == (ssize_t)len, "raw sendmsg of %zu bytes: %s", len,
		  n < 0 ? strerror(errno) : "short");
	return n == (ssize_t)len ? 0 : -1;
}

/* The length of m's record on the channel: the header and its body. */
#define REC(m) (sizeof((m)->h) + (m)->h.len)

/* A valid message of type t with sequence number seq, as raw bytes. */
static void raw_msg(struct pr_msg *m, enum pr_msg_type t, uint32_t seq)
{
	build(m, t);
	m->h.seq = seq;
}

/* The next receive must be PR_IPC_INVALID; why_sub (if any) in the reason. */
static void expect_invalid(struct pr_ipc *c, const char *why_sub, const char *what)
{
	struct pr_msg m;
	const char *why = NULL;
	int fd = -2;
	enum pr_ipc_result r = pr_ipc_recv(c, &m, &fd, &why);

	CHECK_MSG(r == PR_IPC_INVALID, "%s: result %d, want PR_IPC_INVALID", what, (int)r);
	CHECK_MSG(fd == -1, "%s: fd_out %d on an invalid record", what, fd);
	CHECK_MSG(why != NULL && (why_sub == NULL || strstr(why, why_sub) != NULL),
		  "%s: why \"%s\", want \"%s\"", what, why ? why : "(null)",
		  why_sub ? why_sub : "(any)");
}

/* The next receive must be PR_IPC_OK with a message of type t, seq seq, no fd. */
static void expect_recv(struct pr_ipc *c, struct pr_msg *m, enum pr_msg_type t,
			uint32_t seq, const char *what)
{
	const char *why = NULL;
	int fd = -2;
	enum pr_ipc_result r = pr_ipc_recv(c, m, &fd, &why);

	CHECK_MSG(r == PR_IPC_OK, "%s: result %d (%s)", what, (int)r, why ? why : "-");
	CHECK_MSG(r != PR_IPC_OK || (m->h.type == t && m->h.seq == seq && fd == -1),
		  "%s: type %u seq %u fd %d, want type %u seq %u fd -1", what,
		  (unsigned)m->h.type, (unsigned)m->h.seq, fd, (unsigned)t, (unsigned)seq);
	if (fd >= 0)
		close(fd);
}

static void test_ipc_roundtrip(void)
{
	struct chan c;
	struct pr_msg m, r;

	if (chan_open(&c) < 0)
		return;
	/* worker -> monitor, seq 1, 2, 3 */
	pr_msg_init(&m, PR_W_READY);
	m.u.ready.pid = 1234;
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0 && m.h.seq == 1);
	pr_msg_init(&m, PR_W_LOG);
	m.u.log.level = PR_LOG_INFO;
	pr_str_set_text_trunc(&m.u.log.text, "hello");
	m.h.flags = PR_F_FD; /* stale flag: send must clear it without a descriptor */
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0 && m.h.seq == 2 && m.h.flags == 0);
	pr_msg_init(&m, PR_W_EXIT);
	m.u.exit.code = 7;
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0 && m.h.seq == 3);

	expect_recv(&c.mon, &r, PR_W_READY, 1, "roundtrip 1");
	CHECK(r.u.ready.pid == 1234);
	expect_recv(&c.mon, &r, PR_W_LOG, 2, "roundtrip 2");
	CHECK(r.u.log.level == PR_LOG_INFO && strcmp(r.u.log.text.s, "hello") == 0);
	expect_recv(&c.mon, &r, PR_W_EXIT, 3, "roundtrip 3");
	CHECK(r.u.exit.code == 7 && c.mon.recv_seq == 3);

	/* the other direction counts on its own */
	build(&m, PR_M_MODLIST);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0 && m.h.seq == 1);
	build(&m, PR_M_MODLIST_END);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0 && m.h.seq == 2);
	expect_recv(&c.wrk, &r, PR_M_MODLIST, 1, "other direction 1");
	CHECK(strcmp(r.u.modlist.name.s, "pub") == 0);
	expect_recv(&c.wrk, &r, PR_M_MODLIST_END, 2, "other direction 2");

	/* nothing else is queued */
	{
		const char *why;
		int fd;

		errno = 0;
		CHECK(pr_ipc_recv(&c.mon, &r, &fd, &why) == PR_IPC_ERR && errno == EAGAIN);
	}
	chan_close(&c);
}

static void test_ipc_fd(void)
{
	struct chan c;
	struct pr_msg m, r;
	const char *why = NULL;
	int p[2], fd = -1, before;
	char buf[8] = { 0 };

	if (chan_open(&c) < 0)
		return;
	if (pipe(p) < 0) {
		CHECK_MSG(0, "pipe: %s", strerror(errno));
		chan_close(&c);
		return;
	}
	before = count_fds();
	base_init(&m);
	m.u.init.has_motd = 1;
	CHECK(pr_ipc_send(&c.mon, &m, p[0]) == 0 && m.h.seq == 1 && m.h.flags == PR_F_FD);
	CHECK(pr_ipc_recv(&c.wrk, &r, &fd, &why) == PR_IPC_OK);
	CHECK_MSG(fd >= 0 && fd != p[0] && fd != p[1], "received fd %d (sent %d)", fd, p[0]);
	CHECK(r.h.type == PR_M_INIT && r.h.seq == 1 && r.u.init.has_motd == 1);
	CHECK(count_fds() == before + 1);
	if (fd >= 0) {
		CHECK(write(p[1], "motd", 4) == 4);
		CHECK(read(fd, buf, sizeof(buf)) == 4 && memcmp(buf, "motd", 4) == 0);
		CHECK_MSG((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "received fd not close-on-exec");
		close(fd);
	}
	CHECK(count_fds() == before);
	close(p[0]);
	close(p[1]);
	chan_close(&c);
}

static void test_ipc_short_and_long(void)
{
	static unsigned char rec[PR_MSG_SIZE + 100];
	struct chan c;
	struct pr_msg m;

	if (chan_open(&c) < 0)
		return;
	raw_msg(&m, PR_W_READY, 1);
	memset((char *)&m + REC(&m), 0, sizeof(m) - REC(&m));
	if (raw_send(c.sv[1], &m, 100, NULL, 0) == 0)
		expect_invalid(&c.mon, "longer than its header", "100-byte READY record");
	if (raw_send(c.sv[1], &m, PR_MSG_SIZE - 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "longer than its header", "PR_MSG_SIZE-1 READY record");
	if (raw_send(c.sv[1], &m, PR_MSG_SIZE, NULL, 0) == 0)
		expect_invalid(&c.mon, "longer than its header", "READY as a whole 8 KiB record");
	if (raw_send(c.sv[1], &m, REC(&m) + 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "longer than its header", "READY record one byte long");
	if (raw_send(c.sv[1], &m, REC(&m) - 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "READY record one byte short");
	if (raw_send(c.sv[1], &m, sizeof(m.h) - 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "a record shorter than a header");
	if (raw_send(c.sv[1], &m, 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "1-byte record");
	/* a header claiming the body of another type, with that many bytes:
	 * the framing holds, the validator refuses the length */
	m.h.len = sizeof(struct pr_w_log);
	if (raw_send(c.sv[1], &m, REC(&m), NULL, 0) == 0)
		expect_invalid(&c.mon, "body length", "READY claiming a LOG-sized body");
	m.h.len = (uint32_t)PR_MSG_BODY_MAX + 1;
	if (raw_send(c.sv[1], &m, PR_MSG_SIZE, NULL, 0) == 0)
		expect_invalid(&c.mon, "body length", "body length beyond the union");
	m.h.len = sizeof(struct pr_w_ready);

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &m, sizeof(m)); /* a valid message, then 100 bytes more */
	if (raw_send(c.sv[1], rec, PR_MSG_SIZE + 100, NULL, 0) == 0)
		expect_invalid(&c.mon, "oversized", "PR_MSG_SIZE+100 record");
	if (raw_send(c.sv[1], rec, PR_MSG_SIZE + 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "oversized", "PR_MSG_SIZE+1 record");

	/* none of that advanced the sequence: seq 1 is still the next one */
	if (raw_send(c.sv[1], &m, REC(&m), NULL, 0) == 0)
		expect_recv(&c.mon, &m, PR_W_READY, 1, "valid after rejects");
	chan_close(&c);
}

/* Send one raw record with descriptors; the receive must be invalid and
 * leave the receiver's descriptor table as it was. */
static void fd_reject_case(const void *rec, size_t len, int nfds, const char *why_sub,
			   const char *what)
{
	struct chan c;
	int fds[8], p[2], before;

	if (chan_open(&c) < 0)
		return;
	if (pipe(p) < 0) {
		CHECK_MSG(0, "pipe: %s", strerror(errno));
		chan_close(&c);
		return;
	}
	for (int i = 0; i < nfds; i++)
		fds[i] = p[i % 2];
	before = count_fds();
	if (raw_send(c.sv[0], rec, len, fds, nfds) == 0) {
		expect_invalid(&c.wrk, why_sub, what);
		CHECK_MSG(count_fds() == before, "%s: %d descriptors before, %d after", what,
			  before, count_fds());
	}
	close(p[0]);
	close(p[1]);
	chan_close(&c);
}

static void test_ipc_fd_rejects(void)
{
	struct pr_msg m;

	/* a perfectly valid INIT with MOTD, but two descriptors */
	base_init_motd(&m);
	m.h.seq = 1;
	fd_reject_case(&m, REC(&m), 2, "more than one descriptor", "two descriptors");
	fd_reject_case(&m, REC(&m), 4, "more than one descriptor", "four descriptors");
	fd_reject_case(&m, REC(&m), 5, NULL, "five descriptors (control truncated)");
	fd_reject_case(&m, REC(&m), 8, NULL, "eight descriptors (control truncated)");

	/* one descriptor, but the record is wrong */
	fd_reject_case(&m, 100, 1, "short record", "descriptor with a short record");
	fd_reject_case(&m, 0, 1, "short record", "descriptor with an empty record");
	m.h.seq = 2;
	fd_reject_case(&m, REC(&m), 1, "out-of-sequence", "descriptor with a bad seq");
	m.h.seq = 1;
	m.h.magic = 0;
	fd_reject_case(&m, REC(&m), 1, "magic", "descriptor with bad magic");
	base_init_motd(&m);
	m.h.seq = 1;
	m.h.flags = 0;
	fd_reject_case(&m, REC(&m), 1, "descriptor", "descriptor without PR_F_FD");
	base_init(&m);
	m.h.seq = 1;
	m.h.flags = PR_F_FD;
	fd_reject_case(&m, REC(&m), 1, "descriptor", "descriptor but has_motd=0");
	build(&m, PR_M_MODLIST);
	m.h.seq = 1;
	m.h.flags = PR_F_FD;
	fd_reject_case(&m, REC(&m), 1, "descriptor", "descriptor on MODLIST");
	base_init_motd(&m);
	m.h.seq = 1;
	m.u.init.max_protocol = 99;
	fd_reject_case(&m, REC(&m), 1, "out of range", "descriptor with a bad field");
}

/* pr_ipc_send attaches a descriptor to a type that may not carry one; the
 * receiver refuses the record and does not keep the descriptor. */
static void test_ipc_send_fd_on_wrong_type(void)
{
	struct chan c;
	struct pr_msg m;
	int p[2], before;

	if (chan_open(&c) < 0)
		return;
	if (pipe(p) < 0) {
		CHECK_MSG(0, "pipe: %s", strerror(errno));
		chan_close(&c);
		return;
	}
	before = count_fds();
	build(&m, PR_W_EXIT);
	CHECK(pr_ipc_send(&c.wrk, &m, p[1]) == 0);
	expect_invalid(&c.mon, "descriptor", "EXIT sent with a descriptor");
	CHECK(count_fds() == before);
	/* the monitor's own receive: the kernel drops it, the record is refused */
	build(&m, PR_W_EXIT);
	CHECK(pr_ipc_send(&c.wrk, &m, p[1]) == 0);
	{
		const char *why = NULL;

		CHECK(pr_ipc_recv_nofd(&c.mon, &m, &why) == PR_IPC_INVALID &&
		      why != NULL && strcmp(why, "descriptor missing or unexpected") == 0);
	}
	CHECK(count_fds() == before);
	build(&m, PR_W_EXIT);
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0);
	{
		const char *why = NULL;

		CHECK(pr_ipc_recv_nofd(&c.mon, &m, &why) == PR_IPC_INVALID && why != NULL &&
		      strstr(why, "out-of-sequence") != NULL); /* seq 3: the refused 2 was not taken */
	}
	close(p[0]);
	close(p[1]);
	chan_close(&c);
}

/* OPEN answers over the channel: the descriptor arrives iff err == 0. */
static void test_ipc_open(void)
{
	struct chan c;
	struct pr_msg m, r;
	const char *why = NULL;
	int p[2], fd = -1, before;

	if (chan_open(&c) < 0)
		return;
	if (pipe(p) < 0) {
		CHECK_MSG(0, "pipe: %s", strerror(errno));
		chan_close(&c);
		return;
	}
	before = count_fds();
	base_open_fd(&m);
	m.h.flags = 0; /* pr_ipc_send sets it */
	CHECK(pr_ipc_send(&c.mon, &m, p[0]) == 0 && m.h.seq == 1 && m.h.flags == PR_F_FD);
	CHECK(pr_ipc_recv(&c.wrk, &r, &fd, &why) == PR_IPC_OK);
	CHECK_MSG(fd >= 0 && fd != p[0] && fd != p[1], "OPEN: received fd %d", fd);
	CHECK(r.h.type == PR_M_OPENV && r.u.mopenv.e[0].err == 0 && r.u.mopenv.e[0].handle == 7 &&
	      r.u.mopenv.e[0].st.mode == M_REG);
	CHECK(count_fds() == before + 1);
	if (fd >= 0)
		close(fd);

	base_open_err(&m);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0 && m.h.seq == 2);
	expect_recv(&c.wrk, &r, PR_M_OPENV, 2, "OPEN err ENOENT");
	CHECK(r.u.mopenv.e[0].err == ENOENT);

	/* success without the descriptor; failure with one */
	base_open_fd(&m);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0 && m.h.flags == 0);
	expect_invalid(&c.wrk, "descriptor", "OPEN err 0 sent without a descriptor");
	base_open_err(&m);
	CHECK(pr_ipc_send(&c.mon, &m, p[0]) == 0);
	expect_invalid(&c.wrk, "descriptor", "OPEN err ENOENT sent with a descriptor");
	CHECK(count_fds() == before);
	CHECK(c.wrk.recv_seq == 2);
	close(p[0]);
	close(p[1]);
	chan_close(&c);

	/* raw: a success for a directory, with its descriptor */
	base_open_fd(&m);
	m.h.seq = 1;
	m.u.mopenv.e[0].st = st_of(M_DIR);
	fd_reject_case(&m, REC(&m), 1, "out of range", "OPEN of a directory with descriptor");
	base_open_err(&m);
	m.h.seq = 1;
	m.h.flags = PR_F_FD;
	fd_reject_case(&m, REC(&m), 1, "descriptor", "OPEN err with descriptor, raw");
	base_open_fd(&m);
	m.h.seq = 1;
	fd_reject_case(&m, REC(&m), 2, "more than one descriptor", "OPEN with two descriptors");
}

/* A full LIST record travels intact; a hostile one is refused. */
static void test_ipc_list(void)
{
	struct chan c;
	struct pr_msg m, r;
	uint32_t n;

	if (chan_open(&c) < 0)
		return;
	n = fill_list(&m, 6);
	CHECK(n > 0 && pr_ipc_send(&c.mon, &m, -1) == 0);
	expect_recv(&c.wrk, &r, PR_M_LIST, 1, "full LIST");
	CHECK(r.u.list.count == n && r.u.list.used == m.u.list.used &&
	      memcmp(r.u.list.data, m.u.list.data, m.u.list.used) == 0);
	build(&m, PR_M_LIST_END);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0);
	expect_recv(&c.wrk, &r, PR_M_LIST_END, 2, "LIST_END");
	chan_close(&c);

	pr_msg_init(&m, PR_M_LIST);
	list_add(&m, M_REG, 0, "ok", PR_LINK_NONE, NULL);
	list_add(&m, M_DIR, 0, "..", PR_LINK_NONE, NULL);
	m.h.seq = 1;
	fd_reject_case(&m, REC(&m), 0, "string", "LIST with an entry \"..\"");
	pr_msg_init(&m, PR_M_LIST);
	list_add(&m, M_REG, 0, "ok", PR_LINK_NONE, NULL);
	m.h.seq = 1;
	m.u.list.count = 5;
	fd_reject_case(&m, REC(&m), 0, "out of range", "LIST with a wrong count");
}

static void seq_case(struct chan *c, uint32_t seq, int ok, const char *what)
{
	struct pr_msg m;

	raw_msg(&m, PR_W_READY, seq);
	if (raw_send(c->sv[1], &m, REC(&m), NULL, 0) < 0)
		return;
	if (ok)
		expect_recv(&c->mon, &m, PR_W_READY, seq, what);
	else
		expect_invalid(&c->mon, "out-of-sequence", what);
}

static void test_ipc_seq(void)
{
	struct chan c;

	if (chan_open(&c) < 0)
		return;
	seq_case(&c, 0, 0, "first seq 0");
	seq_case(&c, 2, 0, "first seq 2");
	seq_case(&c, 1, 1, "seq 1");
	seq_case(&c, 1, 0, "seq 1 repeated");
	seq_case(&c, 3, 0, "seq 2 skipped");
	seq_case(&c, 0xffffffffu, 0, "seq wrapped back");
	seq_case(&c, 2, 1, "seq 2");
	seq_case(&c, 2, 0, "seq 2 repeated");
	seq_case(&c, 3, 1, "seq 3");
	CHECK(c.mon.recv_seq == 3);
	chan_close(&c);
}

/*
 * A zero-length record is a record of the wrong size ("a record is valid
 * only if exactly PR_MSG_SIZE bytes arrive"), not the end of the channel:
 * the peer is still there.  recvmsg() returns 0 for both; the receiver can
 * tell them apart (e.g. poll() reports POLLRDHUP/POLLHUP only after a real
 * close).
 */
static void test_ipc_empty_record(void)
{
	struct chan c;
	struct pr_msg m;
	const char *why = NULL;
	int fd = -2;
	enum pr_ipc_result r;

	if (chan_open(&c) < 0)
		return;
	raw_msg(&m, PR_W_READY, 1);
	if (raw_send(c.sv[1], &m, 0, NULL, 0) == 0) {
		r = pr_ipc_recv(&c.mon, &m, &fd, &why);
		CHECK_MSG(r == PR_IPC_INVALID && fd == -1,
			  "empty record from a live peer: result %d, want PR_IPC_INVALID "
			  "(PR_IPC_EOF = %d claims the peer closed the channel)",
			  (int)r, (int)PR_IPC_EOF);
	}
	chan_close(&c);
}

static void test_ipc_eof(void)
{
	struct chan c;
	struct pr_msg m;
	const char *why;
	int fd;

	/* a queued message is still delivered, then EOF */
	if (chan_open(&c) < 0)
		return;
	build(&m, PR_W_MODLIST);
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0);
	close(c.sv[1]);
	c.sv[1] = -1;
	expect_recv(&c.mon, &m, PR_W_MODLIST, 1, "before EOF");
	CHECK(pr_ipc_recv(&c.mon, &m, &fd, &why) == PR_IPC_EOF && fd == -1);
	CHECK(pr_ipc_recv(&c.mon, &m, &fd, &why) == PR_IPC_EOF);
	/* sending to a closed peer fails (and does not raise SIGPIPE) */
	build(&m, PR_M_MODLIST_END);
	errno = 0;
	CHECK(pr_ipc_send(&c.mon, &m, -1) == -1 && errno == EPIPE);
	chan_close(&c);

	/* A worker that exits with monitor records unread: the kernel reports
	 * ECONNRESET ahead of the records it sent before closing (its last
	 * log line and exit status), which must still be delivered. */
	if (chan_open(&c) < 0)
		return;
	build(&m, PR_M_MODLIST_END);
	CHECK(pr_ipc_send(&c.mon, &m, -1) == 0);
	build(&m, PR_W_MODLIST);
	CHECK(pr_ipc_send(&c.wrk, &m, -1) == 0);
	close(c.sv[1]);
	c.sv[1] = -1;
	expect_recv(&c.mon, &m, PR_W_MODLIST, 1, "sent before a close with unread records");
	CHECK(pr_ipc_recv(&c.mon, &m, &fd, &why) == PR_IPC_EOF);
	chan_close(&c);

	/* a closed channel descriptor is an I/O error, not EOF */
	{
		struct pr_ipc dead;

		pr_ipc_init(&dead, -1, pr_msg_validate_w2m);
		errno = 0;
		CHECK(pr_ipc_recv(&dead, &m, &fd, &why) == PR_IPC_ERR && errno == EBADF);
	}
}

int main(void)
{
	test_types_table();
	test_directions();
	test_magic();
	test_unknown_types();
	test_body_length();
	test_flags();
	test_fd_rules();
	test_init_fields();
	test_init_chroot();
	test_modlist_fields();
	test_select_fields();
	test_worker_fields();
	test_auth_fields();
	test_relpath();
	test_wstat_fields();
	test_xattr_fields();
	test_close_idname_fields();
	test_xferlog_fields();
	test_list_end_fields();
	test_mstat_fields();
	test_readlink_fields();
	test_list_entries();
	test_list_framing();
	test_list_full();
	test_list_add_next();
	test_strings();
	test_setters();
	test_text_trunc();
	test_ipc_roundtrip();
	test_ipc_fd();
	test_ipc_open();
	test_ipc_list();
	test_ipc_short_and_long();
	test_ipc_fd_rejects();
	test_ipc_send_fd_on_wrong_type();
	test_ipc_seq();
	test_ipc_empty_record();
	test_ipc_eof();
	return unit_done("test_msg");
}
