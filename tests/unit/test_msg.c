/*
 * Hostile tests for the monitor<->worker messages (src/proto/msg.c) and
 * their channel framing (src/proto/ipc.c).
 *
 *  1. every type: well formed -> OK in its direction, EBADDIR in the other
 *  2. header: magic, type, exact body length, flags, descriptor rules
 *  3. every body field, including every counted string of every type
 *  4. the counted-string setters
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
	CHECK(strcmp(pr_msg_type_name(0), "unknown") == 0);
	CHECK(strcmp(pr_msg_type_name(PR_MSG_TYPE_MAX), "unknown") == 0);
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
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 7, "have_fd is a boolean");
	base_select_err(&m);
	expect(PR_MSG_OK, &m, PR_DIR_TO_WORKER, 0, "ERROR answer");
	expect(PR_MSG_EBADDIR, &m, PR_DIR_TO_MONITOR, 0, "ERROR answer, wrong direction");
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
	static const uint16_t bad[] = { PR_MSG_NONE, 5, 6, 63, PR_MSG_TYPE_MAX, 70,
					128, 0x8000, 0xffff };
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
	}
}

static void test_body_length(void)
{
	struct pr_msg m;

	for (size_t i = 0; i < NTYPES; i++) {
		uint32_t len = types[i].len;
		uint32_t bad[6];
		size_t n = 0;

		bad[n++] = len + 1;
		bad[n++] = (uint32_t)PR_MSG_BODY_MAX;
		bad[n++] = 0xffffffffu;
		if (len > 0) {
			bad[n++] = len - 1;
			bad[n++] = 0;
		} else {
			bad[n++] = sizeof(struct pr_w_exit);
		}
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

	base_select_ok(&m);
	set_name(&m.u.select.module, "");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "OK with empty module");
	base_select_ok(&m);
	set_text(&m.u.select.error, "@ERROR: x");
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "OK with an error text");

	base_select_err(&m);
	m.u.select.read_only = 2;
	expect(PR_MSG_EBADFIELD, &m, PR_DIR_TO_WORKER, 0, "ERROR with read_only 2");

	select_error_case(PR_MSG_EBADFIELD, "");
	select_error_case(PR_MSG_EBADFIELD, "ERROR: x");
	select_error_case(PR_MSG_EBADFIELD, " @ERROR: x");
	select_error_case(PR_MSG_EBADFIELD, "@error: x");
	select_error_case(PR_MSG_EBADFIELD, "@ERRO");
	select_error_case(PR_MSG_EBADFIELD, "@RSYNCD: EXIT");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: a\nb");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: x\n");
	select_error_case(PR_MSG_EBADFIELD, "@ERROR: x\n@RSYNCD: OK");
	select_error_case(PR_MSG_OK, "@ERROR");
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
	}
}

/* ---------------------------------------------------------------------- */
/* 3b. every counted string of every type                                  */

/* All three counted-string types share one layout; the tests rely on it. */
_Static_assert(offsetof(struct pr_str_name, len) == offsetof(struct pr_str_text, len) &&
	       offsetof(struct pr_str_name, len) == offsetof(struct pr_str_path, len),
	       "counted string layout");
_Static_assert(offsetof(struct pr_str_name, s) == offsetof(struct pr_str_text, s) &&
	       offsetof(struct pr_str_name, s) == offsetof(struct pr_str_path, s),
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
};

#define SF(n, fn, member, pfx, next) \
	{ n, fn, offsetof(struct pr_msg, member), \
	  sizeof(((struct pr_msg *)0)->member.s), pfx, next }
#define OFF(member) offsetof(struct pr_msg, member)

static const struct str_field str_fields[] = {
	SF("init.chroot_dir", base_init, u.init.chroot_dir, "/", OFF(u.init.client_addr)),
	SF("init.client_addr", base_init, u.init.client_addr, "", 0),
	SF("modlist.name", base_modlist, u.modlist.name, "m", OFF(u.modlist.comment)),
	SF("modlist.comment", base_modlist, u.modlist.comment, "", 0),
	SF("select.module", base_select_ok, u.select.module, "m", OFF(u.select.error)),
	SF("select.error", base_select_err, u.select.error, "@ERROR: ", 0),
	SF("log.text", base_log, u.log.text, "", 0),
	SF("wselect.module", base_wselect, u.wselect.module, "m", 0),
};

static char *str_s(struct pr_msg *m, const struct str_field *f)
{
	return (char *)m + f->off + STR_S_OFF;
}

static void str_setlen(struct pr_msg *m, const struct str_field *f, uint16_t len)
{
	memcpy((char *)m + f->off + STR_LEN_OFF, &len, sizeof(len));
}

/* A valid string of n bytes: the prefix, then 'a's, then NULs. */
static void str_fill(struct pr_msg *m, const struct str_field *f, size_t n)
{
	char *s = str_s(m, f);
	size_t p = strlen(f->prefix);

	memset(s, 0, f->cap);
	memcpy(s, f->prefix, p);
	if (n > p)
		memset(s + p, 'a', n - p);
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

static char big[5001];

/* big[] as a string of n 'a's */
static const char *as(size_t n)
{
	memset(big, 'a', n);
	big[n] = '\0';
	return big;
}

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
	pr_ipc_init(&c->mon, c->sv[0], PR_DIR_TO_MONITOR);
	pr_ipc_init(&c->wrk, c->sv[1], PR_DIR_TO_WORKER);
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
	if (raw_send(c.sv[1], &m, 100, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "100-byte record");
	if (raw_send(c.sv[1], &m, PR_MSG_SIZE - 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "PR_MSG_SIZE-1 record");
	if (raw_send(c.sv[1], &m, 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "short record", "1-byte record");

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &m, sizeof(m)); /* a valid message, then 100 bytes more */
	if (raw_send(c.sv[1], rec, PR_MSG_SIZE + 100, NULL, 0) == 0)
		expect_invalid(&c.mon, "oversized", "PR_MSG_SIZE+100 record");
	if (raw_send(c.sv[1], rec, PR_MSG_SIZE + 1, NULL, 0) == 0)
		expect_invalid(&c.mon, "oversized", "PR_MSG_SIZE+1 record");

	/* none of that advanced the sequence: seq 1 is still the next one */
	if (raw_send(c.sv[1], &m, sizeof(m), NULL, 0) == 0)
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
	fd_reject_case(&m, sizeof(m), 2, "more than one descriptor", "two descriptors");
	fd_reject_case(&m, sizeof(m), 4, "more than one descriptor", "four descriptors");
	fd_reject_case(&m, sizeof(m), 5, NULL, "five descriptors (control truncated)");
	fd_reject_case(&m, sizeof(m), 8, NULL, "eight descriptors (control truncated)");

	/* one descriptor, but the record is wrong */
	fd_reject_case(&m, 100, 1, "short record", "descriptor with a short record");
	fd_reject_case(&m, 0, 1, "short record", "descriptor with an empty record");
	m.h.seq = 2;
	fd_reject_case(&m, sizeof(m), 1, "out-of-sequence", "descriptor with a bad seq");
	m.h.seq = 1;
	m.h.magic = 0;
	fd_reject_case(&m, sizeof(m), 1, "magic", "descriptor with bad magic");
	base_init_motd(&m);
	m.h.seq = 1;
	m.h.flags = 0;
	fd_reject_case(&m, sizeof(m), 1, "descriptor", "descriptor without PR_F_FD");
	base_init(&m);
	m.h.seq = 1;
	m.h.flags = PR_F_FD;
	fd_reject_case(&m, sizeof(m), 1, "descriptor", "descriptor but has_motd=0");
	build(&m, PR_M_MODLIST);
	m.h.seq = 1;
	m.h.flags = PR_F_FD;
	fd_reject_case(&m, sizeof(m), 1, "descriptor", "descriptor on MODLIST");
	base_init_motd(&m);
	m.h.seq = 1;
	m.u.init.max_protocol = 99;
	fd_reject_case(&m, sizeof(m), 1, "out of range", "descriptor with a bad field");
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
	close(p[0]);
	close(p[1]);
	chan_close(&c);
}

static void seq_case(struct chan *c, uint32_t seq, int ok, const char *what)
{
	struct pr_msg m;

	raw_msg(&m, PR_W_READY, seq);
	if (raw_send(c->sv[1], &m, sizeof(m), NULL, 0) < 0)
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

	/* a closed channel descriptor is an I/O error, not EOF */
	{
		struct pr_ipc dead;

		pr_ipc_init(&dead, -1, PR_DIR_TO_MONITOR);
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
	test_strings();
	test_setters();
	test_text_trunc();
	test_ipc_roundtrip();
	test_ipc_fd();
	test_ipc_short_and_long();
	test_ipc_fd_rejects();
	test_ipc_send_fd_on_wrong_type();
	test_ipc_seq();
	test_ipc_empty_record();
	test_ipc_eof();
	return unit_done("test_msg");
}
