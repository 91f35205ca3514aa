/* SPDX-License-Identifier: ISC */
/* Unit tests for the rsyncd.conf parser (src/monitor/config.c). */
#include "config.h"
#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME "t.conf"

static int parse(const char *text, struct cfg *c, char *err)
{
	return cfg_parse(NAME, text, strlen(text), c, err, CFG_ERR_MAX);
}

/* The file must be refused, with "t.conf:LINE: " and `needle` in the
 * message. */
#define EXPECT_ERR(text, line, needle) do { \
	struct cfg c_; char e_[CFG_ERR_MAX], p_[64]; \
	int rc_ = parse((text), &c_, e_); \
	snprintf(p_, sizeof p_, NAME ":%d: ", (line)); \
	CHECK_MSG(rc_ == -1, "accepted, expected error at line %d", (line)); \
	CHECK_MSG(rc_ == -1 && strncmp(e_, p_, strlen(p_)) == 0, \
		  "got \"%s\", expected prefix \"%s\"", rc_ ? e_ : "", p_); \
	CHECK_MSG(rc_ == -1 && strstr(e_, (needle)) != NULL, \
		  "got \"%s\", expected \"%s\" in it", rc_ ? e_ : "", (needle)); \
	CHECK(c_.nmodules == 0 && c_.modules == NULL && c_.warnings == NULL); \
	if (rc_ == 0) cfg_free(&c_); \
} while (0)

/* The file must parse; leaves the result in c for further checks. */
#define EXPECT_OK(text, c) do { \
	char e_[CFG_ERR_MAX]; \
	int rc_ = parse((text), &(c), e_); \
	CHECK_MSG(rc_ == 0, "refused: %s", e_); \
	if (rc_) memset(&(c), 0, sizeof(c)); \
} while (0)

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void test_defaults(void)
{
	struct cfg c;
	const struct cfg_module *m;

	EXPECT_OK("[m]\npath = /srv\n", c);
	CHECK(c.port == 873);
	CHECK(c.address == NULL && c.pid_file == NULL && c.log_file == NULL &&
	      c.motd_file == NULL);
	CHECK(streq(c.worker_user, "nobody"));
	CHECK(streq(c.worker_chroot, "/run/prsyncd/empty"));
	CHECK(c.handshake_timeout == 60);
	CHECK(streq(c.syslog_facility, "daemon"));
	CHECK(c.reverse_lookup == 1);
	CHECK(c.nwarnings == 0);
	CHECK(c.nmodules == 1);
	m = cfg_find_module(&c, "m");
	CHECK(m != NULL);
	if (m) {
		CHECK(streq(m->name, "m") && streq(m->path, "/srv"));
		CHECK(streq(m->comment, ""));
		CHECK(m->list == 1 && m->read_only == 1 && m->write_only == 0);
		CHECK(m->uid == NULL && m->gid == NULL);
		CHECK(m->use_chroot == 1);
		CHECK(m->munge_symlinks == -1 && m->insecure_links == 0); /* rsyncd's defaults */
		CHECK(m->line == 1);
	}
	cfg_free(&c);

	/* Nothing at all is a valid, if useless, configuration. */
	EXPECT_OK("", c);
	CHECK(c.nmodules == 0 && c.port == 873);
	cfg_free(&c);
	EXPECT_OK("# only a comment\n\n   \n", c);
	CHECK(c.nmodules == 0);
	cfg_free(&c);
}

static void test_globals(void)
{
	struct cfg c;

	EXPECT_OK("port = 8873\n"
		  "address = 127.0.0.1\n"
		  "pid file = /run/prsyncd.pid\n"
		  "log file = /var/log/prsyncd.log\n"
		  "motd file = /etc/motd\n"
		  "worker user = rsync\n"
		  "worker chroot = /var/empty\n"
		  "handshake timeout = 3600\n"
		  "syslog facility = LOCAL5\n"
		  "reverse lookup = no\n", c);
	CHECK(c.port == 8873);
	CHECK(streq(c.address, "127.0.0.1"));
	CHECK(streq(c.pid_file, "/run/prsyncd.pid"));
	CHECK(streq(c.log_file, "/var/log/prsyncd.log"));
	CHECK(streq(c.motd_file, "/etc/motd"));
	CHECK(streq(c.worker_user, "rsync"));
	CHECK(streq(c.worker_chroot, "/var/empty"));
	CHECK(c.handshake_timeout == 3600);
	CHECK(streq(c.syslog_facility, "local5"));
	CHECK(c.reverse_lookup == 0);
	CHECK(c.nmodules == 0 && c.nwarnings == 0);
	cfg_free(&c);

	/* Range ends, and the last of two settings wins. */
	EXPECT_OK("port = 1\nport = 65535\nhandshake timeout = 1\n", c);
	CHECK(c.port == 65535 && c.handshake_timeout == 1);
	cfg_free(&c);

	/* An empty optional string means "unset". */
	EXPECT_OK("address = 10.0.0.1\naddress =\nlog file =\n", c);
	CHECK(c.address == NULL && c.log_file == NULL);
	cfg_free(&c);

	/* Only the first '=' separates; the rest is value. */
	EXPECT_OK("motd file = /etc/a=b\n", c);
	CHECK(streq(c.motd_file, "/etc/a=b"));
	cfg_free(&c);
}

static void test_modules(void)
{
	struct cfg c;
	const struct cfg_module *m;

	EXPECT_OK("# rsyncd.conf\n"
		  "[pub]\n"
		  "\tpath = /srv/pub\n"
		  "\tcomment = Public  files \n"
		  "\tlist = false\n"
		  "\tuid = nobody\n"
		  "\tgid = nogroup\n"
		  "\tuse chroot = no\n"
		  "\tmunge symlinks = no\n"
		  "\tinsecure links = yes\n"
		  "\twrite only = no\n"
		  "\tread only = yes\n"
		  "\n"
		  "[ other   name ]\n"
		  "path=/srv/o\n", c);
	CHECK(c.nmodules == 2);
	m = cfg_find_module(&c, "pub");
	CHECK(m && streq(m->path, "/srv/pub") && streq(m->comment, "Public  files"));
	CHECK(m && m->list == 0 && m->read_only == 1 && m->write_only == 0);
	CHECK(m && streq(m->uid, "nobody") && streq(m->gid, "nogroup"));
	CHECK(m && m->use_chroot == 0 && m->line == 2);
	CHECK(m && m->munge_symlinks == 0 && m->insecure_links == 1);
	/* Trimmed, inner blanks squeezed, as rsyncd does. */
	m = cfg_find_module(&c, "other name");
	CHECK(m && streq(m->path, "/srv/o") && m->line == 14 && m->list == 1);
	CHECK(cfg_find_module(&c, "PUB") == NULL);
	CHECK(cfg_find_module(&c, "nope") == NULL);
	CHECK(cfg_find_module(&c, "") == NULL);
	cfg_free(&c);

	/* rsyncd compares section names without case and blanks: a later
	 * "[A]" continues "[a]", whose name stays; clients name it exactly. */
	EXPECT_OK("[a]\npath=/a\ncomment = one\n[A]\npath=/b\n[ x  y ]\npath=/c\n[xy]\ncomment = xy\n", c);
	CHECK(c.nmodules == 2);
	CHECK(cfg_find_module(&c, "a") && streq(cfg_find_module(&c, "a")->path, "/b") &&
	      streq(cfg_find_module(&c, "a")->comment, "one") && cfg_find_module(&c, "a")->line == 1);
	CHECK(cfg_find_module(&c, "A") == NULL);
	CHECK(cfg_find_module(&c, "x y") && streq(cfg_find_module(&c, "x y")->comment, "xy"));
	CHECK(c.nwarnings == 2 && strstr(c.warnings[0], "t.conf:4: module [A] (a second section) continues "
					 "module [a] of line 1, as rsyncd continues it"));
	cfg_free(&c);
	EXPECT_OK("[ GLOBAL ]\nport = 5\n[glo bal]\nport = 6\n", c);
	CHECK(c.nmodules == 0 && c.port == 6 && c.nwarnings == 0);
	cfg_free(&c);

	/* Section headers may carry a trailing comment. */
	EXPECT_OK("[a] # the a module\npath=/a\n[b];x\npath=/b\n", c);
	CHECK(c.nmodules == 2);
	cfg_free(&c);

	/* A 255-byte name is fine. */
	{
		char text[400];

		memset(text, 'n', sizeof text);
		text[0] = '[';
		memcpy(text + 256, "]\npath=/x\n", 11);
		EXPECT_OK(text, c);
		CHECK(c.nmodules == 1 && c.modules && strlen(c.modules[0].name) == 255);
		cfg_free(&c);
	}
}

static void test_module_defaults(void)
{
	struct cfg c;
	const struct cfg_module *m;

	/* Module parameters before the first module are defaults. */
	EXPECT_OK("uid = nobody\n"
		  "read only = yes\n"
		  "list = no\n"
		  "comment = default\n"
		  "path = /srv/default\n"
		  "[a]\n"
		  "[b]\n"
		  "list = yes\n"
		  "uid = backup\n"
		  "path = /srv/b\n", c);
	m = cfg_find_module(&c, "a");
	CHECK(m && streq(m->uid, "nobody") && m->list == 0 && m->read_only == 1);
	CHECK(m && streq(m->comment, "default") && streq(m->path, "/srv/default"));
	m = cfg_find_module(&c, "b");
	CHECK(m && streq(m->uid, "backup") && m->list == 1);
	CHECK(m && streq(m->path, "/srv/b"));
	cfg_free(&c);

	/* [global] goes back to the defaults; they apply from that point on,
	 * not to modules already defined. */
	EXPECT_OK("port = 1000\n"
		  "[a]\n"
		  "path = /a\n"
		  "[global]\n"
		  "port = 2000\n"
		  "comment = later\n"
		  "list = no\n"
		  "reverse lookup = false\n"
		  "[b]\n"
		  "path = /b\n"
		  "[ GLOBAL ]\n"
		  "comment = even later\n"
		  "[c]\n"
		  "path = /c\n", c);
	CHECK(c.port == 2000 && c.reverse_lookup == 0 && c.nmodules == 3);
	CHECK(cfg_find_module(&c, "global") == NULL);
	m = cfg_find_module(&c, "a");
	CHECK(m && streq(m->comment, "") && m->list == 1);
	m = cfg_find_module(&c, "b");
	CHECK(m && streq(m->comment, "later") && m->list == 0);
	m = cfg_find_module(&c, "c");
	CHECK(m && streq(m->comment, "even later") && m->list == 0);
	cfg_free(&c);

	/* Unsetting a default in a module. */
	EXPECT_OK("gid = staff\n[a]\npath=/a\ngid =\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].gid == NULL);
	cfg_free(&c);
}

static void test_syntax(void)
{
	struct cfg c;
	const struct cfg_module *m;

	/* Comments: '#' and ';', only at line start; not stripped from values. */
	EXPECT_OK("# hash\n"
		  "   ; semicolon, indented\n"
		  "\t# tab\n"
		  "[m]\n"
		  "path = /srv # not a comment\n"
		  "comment = a ; b\n", c);
	m = cfg_find_module(&c, "m");
	CHECK(m && streq(m->path, "/srv # not a comment"));
	CHECK(m && streq(m->comment, "a ; b"));
	cfg_free(&c);

	/* Continuation: backslash and blanks after it go, everything else
	 * stays (checked against stock rsync 3.5.0). */
	EXPECT_OK("[m]\n"
		  "path = /srv\n"
		  "comment = hello \\\n"
		  "    world\n"
		  "uid = a\\   \n"
		  "b\n"
		  "gid = x\\\n"
		  "\\\n"
		  "y\n", c);
	m = cfg_find_module(&c, "m");
	CHECK(m && streq(m->comment, "hello     world"));
	CHECK(m && streq(m->uid, "ab"));
	CHECK(m && streq(m->gid, "xy"));
	cfg_free(&c);

	/* A continued line may be split anywhere, even inside the key. */
	EXPECT_OK("[m]\npa\\\nth = /s\\\nrv\n", c);
	CHECK(c.nmodules == 1 && streq(c.modules[0].path, "/srv"));
	cfg_free(&c);

	/* A comment line ending in '\' does not continue; a continuation
	 * line that starts with '#' is content. */
	EXPECT_OK("[m]\npath = /srv\n# note \\\ncomment = kept\n"
		  "uid = \\\n# hash\n", c);
	m = cfg_find_module(&c, "m");
	CHECK(m && streq(m->comment, "kept") && streq(m->uid, "# hash"));
	cfg_free(&c);

	/* Backslash at EOF: with a newline it continues into nothing; without
	 * one it is literal (stock does both). */
	EXPECT_OK("[m]\npath = /srv\ncomment = end \\\n", c);
	CHECK(c.nmodules == 1 && streq(c.modules[0].comment, "end"));
	cfg_free(&c);
	EXPECT_OK("[m]\npath = /srv\ncomment = end \\", c);
	CHECK(c.nmodules == 1 && streq(c.modules[0].comment, "end \\"));
	cfg_free(&c);

	/* The line number of a continued line is the first one. */
	EXPECT_ERR("[m]\npath = /srv\npre-xfer exec = \\\n\\\nx\n", 3, "'pre-xfer exec' is refused");
	/* Lines after a continuation are counted. */
	EXPECT_ERR("[m]\npath = /srv\ncomment = a \\\nb\nearly exec = 1\n", 5,
		   "'early exec' is refused");

	/* CRLF files. */
	EXPECT_OK("port = 99\r\n[m]\r\npath = /srv\r\ncomment = a \\\r\nb\r\n", c);
	CHECK(c.port == 99 && c.nmodules == 1);
	CHECK(c.nmodules == 1 && streq(c.modules[0].path, "/srv"));
	CHECK(c.nmodules == 1 && streq(c.modules[0].comment, "a b"));
	cfg_free(&c);

	/* No newline at the end, and a byte-order mark at the start. */
	EXPECT_OK("\xef\xbb\xbf[m]\npath = /srv", c);
	CHECK(c.nmodules == 1 && streq(c.modules[0].path, "/srv"));
	cfg_free(&c);
}

static void test_keys(void)
{
	static const char *const spellings[] = {
		"read only", "readonly", "Read Only", "READONLY", "read_only",
		" r e a d  o n l y ", "Read\tOnly",
	};
	struct cfg c;
	char text[128];
	size_t i;

	for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		snprintf(text, sizeof text, "%s = true\n[m]\npath=/x\n"
			 "WriteOnly = no\nLIST=0\n", spellings[i]);
		EXPECT_OK(text, c);
		CHECK_MSG(c.nmodules == 1 && c.modules[0].read_only == 1 &&
			  c.modules[0].list == 0, "spelling \"%s\"", spellings[i]);
		cfg_free(&c);
		/* The same spellings reach the upload warning. */
		snprintf(text, sizeof text, "[m]\npath=/x\n%s = false\n",
			 spellings[i]);
		EXPECT_OK(text, c);
		CHECK_MSG(c.nmodules == 1 && c.modules[0].read_only == 0 && c.nwarnings == 1 &&
			  strstr(c.warnings[0], "'read only = no'") != NULL, "spelling \"%s\"", spellings[i]);
		cfg_free(&c);
	}
	EXPECT_OK("Handshake_Timeout = 7\nPIDFILE = /p\n", c);
	CHECK(c.handshake_timeout == 7 && streq(c.pid_file, "/p"));
	cfg_free(&c);
	/* The hyphen in the exec names is part of the name, as in stock. */
	{
		struct cfg c2;

		EXPECT_OK("prexfer exec = /bin/true\n", c2);
		CHECK(c2.nwarnings == 1 && strstr(c2.warnings[0], "unknown parameter 'prexfer exec'"));
		cfg_free(&c2);
	}
}

static void test_bools(void)
{
	static const struct { const char *text; int value; } cases[] = {
		{ "yes", 1 }, { "YES", 1 }, { "Yes", 1 }, { "true", 1 },
		{ "TRUE", 1 }, { "True", 1 }, { "1", 1 },
		{ "no", 0 }, { "NO", 0 }, { "No", 0 }, { "false", 0 },
		{ "FALSE", 0 }, { "fAlSe", 0 }, { "0", 0 },
	};
	/* rsyncd compares without case and blanks: " yes", "y e s" are yes */
	static const char *const bad[] = {
		"", "on", "off", "2", "y", "n", "yess", "01", "t", "-1", "enable", "unset",
	};
	struct cfg c;
	char text[128];
	size_t i;
	int v;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = -1;
		CHECK_MSG(cfg_parse_bool(cases[i].text, &v) == 0 &&
			  v == cases[i].value, "\"%s\"", cases[i].text);
		snprintf(text, sizeof text, "[m]\npath=/x\nlist = %s\n",
			 cases[i].text);
		EXPECT_OK(text, c);
		CHECK_MSG(c.nmodules == 1 && c.modules[0].list == cases[i].value,
			  "list = %s", cases[i].text);
		cfg_free(&c);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v = 7;
		CHECK_MSG(cfg_parse_bool(bad[i], &v) == -1 && v == 7,
			  "\"%s\" accepted", bad[i]);
	}
	CHECK(cfg_parse_bool(NULL, &v) == -1);
	CHECK(cfg_parse_bool(" Y e S ", &v) == 0 && v == 1 && cfg_parse_bool("F ALSE", &v) == 0 && v == 0);
	/* Stock rsyncd takes neither "on" nor "maybe": it logs "Badly formed
	 * boolean" and leaves the value as it was. */
	EXPECT_OK("list = no\n[m]\npath=/x\n\nlist = on\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].list == 0 && c.nwarnings == 1 &&
	      strstr(c.warnings[0], "t.conf:5: module [m]: 'list = on' is not yes/no") &&
	      strstr(c.warnings[0], "the value stays no"));
	cfg_free(&c);
	EXPECT_OK("reverse lookup = maybe\n", c);
	CHECK(c.reverse_lookup == 1 && c.nwarnings == 1);
	cfg_free(&c);
	EXPECT_OK("[m]\npath=/x\nuse chroot = # yes\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].use_chroot == 1 && c.nwarnings == 1);
	cfg_free(&c);
}

static void test_bad_values(void)
{
	EXPECT_ERR("\nport = 65536\n", 2, "'port = 65536' (read as 65536, as rsyncd reads it) is not a port");
	EXPECT_ERR("port = -1\n", 1, "'port = -1'");
	EXPECT_ERR("port = 99999999999999999999999\n", 1, "(read as -1, as rsyncd reads it)");
	EXPECT_ERR("handshake timeout = 0\n", 1, "from 1 to 3600");
	EXPECT_ERR("handshake timeout = 3601\n", 1, "'handshake timeout'");
	EXPECT_ERR("worker chroot = run/empty\n", 1,
		   "'worker chroot' must be an absolute path");
	EXPECT_ERR("worker user =\n", 1, "'worker user' must not be empty");
	/* Relative and empty module paths, in a module and as a default. */
	EXPECT_ERR("[m]\npath = srv/pub\n", 2, "'path' must be an absolute path");
	EXPECT_ERR("[m]\npath =\n", 2, "'path' must be an absolute path");
	EXPECT_ERR("path = ./x\n[m]\n", 1, "absolute path");
}

static void test_bad_structure(void)
{
	/* A line that is not a parameter: rsyncd's warning, skipped. */
	{
		struct cfg c;

		EXPECT_OK("port = 1\njust some words\n[m]\npath = /x\n\nno equals sign here\n", c);
		CHECK(c.nmodules == 1 && c.port == 1 && c.nwarnings == 2);
		CHECK(c.nwarnings == 2 && streq(c.warnings[0], NAME ":2: Ignoring badly formed line in config "
						"file: just some words (no '=': skipped, as rsyncd skips it)"));
		CHECK(c.nwarnings == 2 && strstr(c.warnings[1], NAME ":6: module [m]: Ignoring") == c.warnings[1]);
		cfg_free(&c);
	}
	EXPECT_ERR("= value\n", 1, "missing parameter name");
	EXPECT_ERR("  =\n", 1, "missing parameter name");
	/* rsyncd ignores an unknown parameter: a warning, once per name */
	{
		struct cfg c;

		EXPECT_OK("bogus = 1\n[m]\npath=/x\nRead Onl = no\nbogus = 2\n-x = 1\n", c);
		CHECK(c.nmodules == 1 && c.modules[0].read_only == 1 && c.nwarnings == 3);
		CHECK(c.nwarnings == 3 && strstr(c.warnings[0], "t.conf:1: unknown parameter 'bogus' IGNORED, as rsyncd "
						 "ignores it (\"IGNORING unknown parameter\"): whatever it was meant "
						 "to set is not in effect") &&
		      strstr(c.warnings[1], "t.conf:4: module [m]: unknown parameter 'Read Onl'") &&
		      strstr(c.warnings[2], "unknown parameter '-x'"));
		/* ... and named once more in one line, with where each was */
		CHECK(c.nunknown == 3 && streq(c.unknown[0], "'bogus' (" NAME ":1)") &&
		      streq(c.unknown[1], "'Read Onl' (" NAME ":4)"));
		{
			char sum[CFG_SUMMARY_MAX];

			CHECK(cfg_unknown_summary(&c, sum, sizeof(sum)) > 0 &&
			      streq(sum, "3 unknown parameters IGNORED, as rsyncd ignores them: 'bogus' (" NAME
				    ":1), 'Read Onl' (" NAME ":4), '-x' (" NAME ":6): whatever they were meant "
				    "to set is not in effect"));
			CHECK(cfg_unknown_summary(&c, sum, 20) == 19 && strlen(sum) == 19);
		}
		cfg_free(&c);
	}
	{
		struct cfg c;
		char sum[CFG_SUMMARY_MAX];

		EXPECT_OK("[m]\npath=/x\n", c);
		CHECK(c.nunknown == 0 && cfg_unknown_summary(&c, sum, sizeof(sum)) == 0);
		cfg_free(&c);
	}
	{
		/* twelve: ten named, the rest counted */
		struct cfg c;
		char text[512] = "", sum[CFG_SUMMARY_MAX];

		for (int k = 0; k < 12; k++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "unknown%d = 1\n", k);
		EXPECT_OK(text, c);
		CHECK(c.nunknown == 12 && cfg_unknown_summary(&c, sum, sizeof(sum)) > 0 &&
		      strstr(sum, "12 unknown parameters IGNORED") && strstr(sum, "'unknown9'") &&
		      !strstr(sum, "'unknown10'") && strstr(sum, " and 2 more: whatever they were meant"));
		cfg_free(&c);
	}

	/* Section headers. */
	EXPECT_ERR("[m\npath = /x\n", 1, "closing ']'");
	{
		struct cfg c;

		/* rsyncd ignores the rest of a header's line */
		EXPECT_OK("[m] extra\npath = /x\n[a]b]\npath = /y\n", c);
		CHECK(c.nmodules == 2 && streq(c.modules[1].name, "a") && c.nwarnings == 2 &&
		      strstr(c.warnings[0], "t.conf:1: text after ']' ignored, as rsyncd ignores it: \"extra\""));
		cfg_free(&c);
	}
	EXPECT_ERR("[]\n", 1, "empty module name");
	EXPECT_ERR("[   ]\n", 1, "empty module name");
	EXPECT_ERR("[a/b]\npath=/x\n", 1, "contains '/'");
	EXPECT_ERR("[a\x01]\npath=/x\n", 1, "control character");
	{
		char text[400];

		memset(text, 'n', sizeof text);
		text[0] = '[';
		memcpy(text + 257, "]\npath=/x\n", 11);
		EXPECT_ERR(text, 1, "module name longer than 255 bytes");
	}

	/* Module without path: cited at its header, whether or not another
	 * section follows. */
	EXPECT_ERR("[a]\ncomment = x\n", 1, "module [a] has no 'path'");
	EXPECT_ERR("[a]\npath=/a\n[b]\ncomment = x\n[c]\npath=/c\n", 3,
		   "module [b] has no 'path'");
	EXPECT_ERR("[a]\npath=/a\n[b]\n[global]\npath=/late\n", 3,
		   "module [b] has no 'path'");

	/* A second section continues the first (test_modules); what it says
	 * is judged with the first's. */
	EXPECT_ERR("[a]\npath=/a\n[b]\npath=/b\n[a]\npre-xfer exec = x\n", 6, "module [a]: 'pre-xfer exec' is refused");

	/* Global-only parameters inside a module: ignored with a warning,
	 * as rsyncd ignores them. */
	{
		struct cfg c;

		EXPECT_OK("[a]\npath=/a\nport = 873\nsocket options = SO_KEEPALIVE\n", c);
		CHECK(c.port == 873 && c.nwarnings == 2);
		CHECK(c.nwarnings == 2 && strstr(c.warnings[0], NAME ":3: module [a]: 'port' is a global "
						 "parameter: rsyncd ignores it in a module") == c.warnings[0]);
		cfg_free(&c);
		EXPECT_OK("[a]\npath=/a\nport = 9\n", c);
		CHECK(c.port == 873);
		cfg_free(&c);
	}

	/* Config directives (files: test_includes). */
	EXPECT_ERR("port = 1\n&include /nonexistent/prsyncd.d\n", 2,
		   "&include /nonexistent/prsyncd.d: No such file or directory");
	EXPECT_ERR("&merge /nonexistent/x.inc\n", 1, "&merge /nonexistent/x.inc:");
	EXPECT_ERR("&includes x\n", 1, "unknown directive \"&includes\"");
	EXPECT_ERR("&include =\n", 1, "&include names no file");
	EXPECT_ERR("&merge  \t= \n", 1, "&merge names no file");
	EXPECT_ERR("&frobnicate x\n", 1, "unknown directive");
	{
		struct cfg c;

		EXPECT_OK("&include\n[m]\npath=/x\n", c);
		CHECK(c.nmodules == 1 && c.nwarnings == 1 &&
		      strstr(c.warnings[0], "Ignoring badly formed line in config file: &include"));
		cfg_free(&c);
	}

	/* Binary junk. */
	{
		static const char text[] = "[a]\npath=/a\ncomment = x\0y\n";
		struct cfg c;
		char e[CFG_ERR_MAX];

		CHECK(cfg_parse(NAME, text, sizeof text - 1, &c, e, sizeof e) == -1);
		CHECK_MSG(strcmp(e, NAME ":3: module [a]: NUL byte in line") == 0, "%s", e);
	}
}

static void test_long_lines(void)
{
	struct cfg c;
	char *text = malloc(3 * CFG_MAX_LINE);
	size_t n;

	if (!text) {
		CHECK(text != NULL);
		return;
	}
	/* Exactly CFG_MAX_LINE bytes of logical line is fine. */
	n = (size_t)sprintf(text, "[m]\npath=/x\ncomment=");
	memset(text + n, 'c', CFG_MAX_LINE - strlen("comment="));
	n += CFG_MAX_LINE - strlen("comment=");
	strcpy(text + n, "\n");
	EXPECT_OK(text, c);
	CHECK(c.nmodules == 1 &&
	      strlen(c.modules[0].comment) == CFG_MAX_LINE - strlen("comment="));
	cfg_free(&c);

	/* One more byte is not. */
	n = (size_t)sprintf(text, "[m]\npath=/x\ncomment=");
	memset(text + n, 'c', CFG_MAX_LINE - strlen("comment=") + 1);
	n += CFG_MAX_LINE - strlen("comment=") + 1;
	strcpy(text + n, "\n");
	EXPECT_ERR(text, 3, "line longer than 8192 bytes");

	/* Nor when it only gets too long through continuations; the error
	 * names the line it started on. */
	n = (size_t)sprintf(text, "[m]\npath=/x\n\ncomment=");
	while (n < 2 * CFG_MAX_LINE) {
		memset(text + n, 'c', 99);
		n += 99;
		text[n++] = '\\';
		text[n++] = '\n';
	}
	strcpy(text + n, "end\n");
	EXPECT_ERR(text, 4, "line longer than");

	/* A long comment line is still just a comment. */
	n = (size_t)sprintf(text, "#");
	memset(text + n, '#', 2 * CFG_MAX_LINE);
	strcpy(text + n + 2 * CFG_MAX_LINE, "\n[m]\npath=/x\n");
	EXPECT_OK(text, c);
	CHECK(c.nmodules == 1 && c.modules[0].line == 2);
	cfg_free(&c);
	free(text);
}

static void test_many_modules(void)
{
	size_t cap = (CFG_MAX_MODULES + 1) * 32, n = 0;
	char *text = malloc(cap);
	struct cfg c;
	int i;

	if (!text) {
		CHECK(text != NULL);
		return;
	}
	for (i = 0; i < CFG_MAX_MODULES; i++)
		n += (size_t)snprintf(text + n, cap - n, "[m%d]\npath=/m\n", i);
	EXPECT_OK(text, c);
	CHECK(c.nmodules == CFG_MAX_MODULES);
	CHECK(cfg_find_module(&c, "m0") && cfg_find_module(&c, "m1023"));
	CHECK(cfg_find_module(&c, "m1023") &&
	      cfg_find_module(&c, "m1023")->line == 2 * CFG_MAX_MODULES - 1);
	cfg_free(&c);
	snprintf(text + n, cap - n, "[one too many]\npath=/m\n");
	EXPECT_ERR(text, 2 * CFG_MAX_MODULES + 1, "more than 1024 modules");
	free(text);
}

static void test_security(void)
{
	static const char *const hooks[] = {
		"pre-xfer exec", "post-xfer exec", "early exec", "name converter",
		"Pre-Xfer Exec", "postxfer exec" /* unknown, still an error */,
	};
	char text[256];
	size_t i;

	/* Upload modules: one warning each, naming the module; the rest is
	 * served. */
	{
		struct cfg c;

		EXPECT_OK("read only = False\n[m]\npath=/x\n[n]\npath=/y\nread only = yes\n"
			  "[w]\npath=/z\nwrite only = 1\n", c);
		CHECK(c.nmodules == 3 && c.modules[0].read_only == 0 && c.modules[1].read_only == 1 &&
		      c.modules[2].write_only == 1 && c.nwarnings == 2);
		CHECK(c.nwarnings == 2 && streq(c.warnings[0], NAME ":2: module [m]: 'read only = no': prsyncd "
						"takes no uploads, so pushes get rsyncd's refusal (\"module is "
						"read only\"); downloads are served"));
		CHECK(c.nwarnings == 2 && strstr(c.warnings[1], NAME ":7: module [w]: 'write only = yes'") ==
						  c.warnings[1]);
		cfg_free(&c);
	}
	EXPECT_ERR("[m]\npath=/x\nfake super = yes\n", 1, "'fake super = yes' is refused");
	EXPECT_ERR("daemon chroot = /srv\n[m]\npath=/x\n", 1, "'daemon chroot' is refused");
	EXPECT_ERR("daemon chroot = /srv\n", 1, "prefix every 'path' with it");

	for (i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
		snprintf(text, sizeof text, "[m]\npath=/x\n\n%s = /bin/sh -c x\n",
			 hooks[i]);
		if (i >= 5) /* misspelt: unknown, ignored as rsyncd ignores it */
			continue;
		EXPECT_ERR(text, 4, "prsyncd never runs programs for a connection");
		snprintf(text, sizeof text, "%s = /bin/true\n[m]\npath=/x\n",
			 hooks[i]);
		EXPECT_ERR(text, 1, "is refused");
	}
	/* Access control and authentication: global defaults, module values,
	 * rsyncd's defaults; a malformed address or mask is refused. */
	{
		struct cfg c;

		EXPECT_OK("hosts deny = *\nreverse lookup = no\nsecrets file = /etc/s\n"
			  "[m]\npath=/x\nHostsAllow = 10.0.0.0/8, ::1 host.example\nauth users = a, @g:ro\n"
			  "strict modes = no\nauth digest = sha256\nforward lookup = no\nreverse lookup = yes\n"
			  "[n]\npath=/y\nhosts deny =\n", c);
		CHECK(c.nmodules == 2 && c.reverse_lookup == 0);
		CHECK(streq(c.modules[0].hosts_allow, "10.0.0.0/8, ::1 host.example") &&
		      streq(c.modules[0].hosts_deny, "*") && streq(c.modules[0].auth_users, "a, @g:ro") &&
		      streq(c.modules[0].secrets_file, "/etc/s") && streq(c.modules[0].auth_digest, "sha256") &&
		      c.modules[0].strict_modes == 0 && c.modules[0].forward_lookup == 0 &&
		      c.modules[0].reverse_lookup == 1);
		CHECK(c.modules[1].hosts_allow == NULL && c.modules[1].hosts_deny == NULL &&
		      c.modules[1].auth_users == NULL && c.modules[1].strict_modes == 1 &&
		      c.modules[1].forward_lookup == 1 && c.modules[1].reverse_lookup == 0);
		cfg_free(&c);
		EXPECT_OK("[m]\npath=/x\n", c);
		CHECK(c.reverse_lookup == 1 && c.modules[0].reverse_lookup == 1 && c.nwarnings == 0);
		cfg_free(&c);
		/* a global secrets file without auth users is inert, not an error */
		EXPECT_OK("secrets file = /nonexistent\n[m]\npath=/x\n", c);
		cfg_free(&c);
		/* the global value is the global section's last word */
		EXPECT_OK("[m]\npath=/x\n[global]\nreverse lookup = no\n", c);
		CHECK(c.reverse_lookup == 0 && c.modules[0].reverse_lookup == 1);
		cfg_free(&c);
	}
	EXPECT_ERR("[m]\npath=/x\nhosts allow = 10.0.0.0/33\n", 3, "'hosts allow' has a malformed address or mask");
	EXPECT_ERR("hosts deny = 1.2.3.4/255.0.255.x\n", 1, "'hosts deny' has a malformed address or mask");
	EXPECT_ERR("hosts deny = good.example 1.2.3.999\n", 1, "\"1.2.3.999\"");
	EXPECT_ERR("hosts deny = ::1/129\n", 1, "malformed");
	EXPECT_ERR("hosts deny = /8\n", 1, "malformed");
	{
		struct cfg c;

		EXPECT_OK("hosts deny = 10.0.0.0/255.0.0.0 fe80::1%nosuchif0 fe80::%eth9/64 ::/0 0.0.0.0/0 *.x [a-z]* @ng\n"
			  "[m]\npath=/x\n", c);
		cfg_free(&c);
	}

	/* Limits: a negative one refuses every client in rsyncd, and is kept. */
	{
		struct cfg c;

		EXPECT_OK("max connections = 5\nmax connections per host = 2\n[m]\npath=/x\n"
			  "[n]\npath=/y\nmax connections = -1\nlock file = /run/x.lock\n", c);
		CHECK(c.nmodules == 2 && c.modules[0].max_connections == 5 &&
		      c.modules[1].max_connections == -1 && c.max_connections_per_host == 2);
		cfg_free(&c);
	}
	{
		struct cfg c;

		/* atoi: "1x" is 1, "--1" is 0 (no limit) */
		EXPECT_OK("[m]\npath=/x\nmax connections = 1x\n[n]\npath=/y\nmax connections = --1\n", c);
		CHECK(c.nmodules == 2 && c.modules[0].max_connections == 1 && c.modules[1].max_connections == 0 &&
		      c.nwarnings == 1 && strstr(c.warnings[0], "'max connections = 1x' is read as 1, as rsyncd reads it"));
		cfg_free(&c);
	}
	{
		struct cfg c;

		EXPECT_OK("[m]\npath=/x\nmax connections per host = 1\n", c);
		CHECK(c.max_connections_per_host == 0 && c.nwarnings == 1 &&
		      strstr(c.warnings[0], "global parameter") != NULL);
		cfg_free(&c);
	}
	EXPECT_ERR("max connections per host = -1\n", 1, "'max connections per host' must be");
}

/* Module filters: checked at load, kept per module, "from" files read
 * then; merge rules and bad rules refused. */
static void test_filters(void)
{
	char path[] = "/tmp/prsyncd-cfgfilt.XXXXXX", text[512];
	struct cfg c;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && write(fd, "# comment\n- *.key\n+ ok\n\nsecret/\n", 32) == 32);
	if (fd >= 0)
		close(fd);
	snprintf(text, sizeof text, "exclude = *.o\n[m]\npath=/x\nfilter = - *.bin + x\n"
		 "include = a b\nexclude from = %s\ninclude from = %s\n[n]\npath=/y\n", path, path);
	EXPECT_OK(text, c);
	if (c.nmodules == 2) {
		CHECK(streq(c.modules[0].filt[CFG_F_FILTER], "- *.bin + x"));
		CHECK(streq(c.modules[0].filt[CFG_F_INCLUDE], "a b"));
		CHECK(streq(c.modules[0].filt[CFG_F_EXCLUDE], "*.o")); /* the global default */
		CHECK(c.modules[0].filt[CFG_F_EXCLUDE_FROM] &&
		      strstr(c.modules[0].filt[CFG_F_EXCLUDE_FROM], "secret/") != NULL);
		CHECK(streq(c.modules[1].filt[CFG_F_EXCLUDE], "*.o") && c.modules[1].filt[CFG_F_FILTER] == NULL);
		cfg_free(&c);
	}
	unlink(path);
	EXPECT_ERR("[m]\npath=/x\nexclude from = /nonexistent/prsyncd\n", 3, "'exclude from'");
	EXPECT_ERR("[m]\npath=/x\nfilter = : .rsync-filter\n", 3, "merge");
	EXPECT_ERR("[m]\npath=/x\nfilter = merge /etc/x\n", 3, "merge");
	EXPECT_ERR("[m]\npath=/x\nfilter = Q foo\n", 3, "Unknown filter rule");
	EXPECT_ERR("[m]\npath=/x\nfilter = -\n", 3, "unexpected end");
	EXPECT_ERR("[m]\npath=/x\nfilter = -C\n", 3, "not supported");
	{
		struct modfilter mf = { 0 };
		char why[128];

		CHECK(modfilter_add(&mf, CFG_F_FILTER, "- *.key - /sub/deep/ P *.bin", why, sizeof why) == 0);
		CHECK(mf.n == 3); /* sides do not matter: protect hides too */
		CHECK(modfilter_add(&mf, CFG_F_EXCLUDE, "secret/ /top", why, sizeof why) == 0);
		CHECK(modfilter_hides(&mf, "a/b.key", 0) && modfilter_hides(&mf, "a/b.bin", 0) && !modfilter_hides(&mf, "a/b.c", 0));
		CHECK(modfilter_hides(&mf, "sub/deep", 1) && modfilter_hides(&mf, "sub/deep/x", 0) &&
		      !modfilter_hides(&mf, "sub/deep", 0) && !modfilter_hides(&mf, "x/sub/deep", 1));
		CHECK(modfilter_hides(&mf, "secret", 1) && modfilter_hides(&mf, "a/secret/b/c", 0) &&
		      !modfilter_hides(&mf, "secret", 0));
		CHECK(modfilter_hides(&mf, "top", 0) && modfilter_hides(&mf, "top/x", 0) &&
		      !modfilter_hides(&mf, "a/top", 0));
		CHECK(modfilter_add(&mf, CFG_F_FILTER, "!", why, sizeof why) == 0 && mf.n == 0);
		modfilter_free(&mf);
	}
}

static void test_warnings(void)
{
	static const char *const want[] = {
		NAME ":15: module [b]: 'port' is a global parameter: rsyncd ignores it in a module, and so "
		"does prsyncd (move it to the global section)",
	};
	static const char text[] =
		"timeout = 600\n"               /* 1: implemented, no warning */
		"proxy protocol hosts = 10.1.1.1\n" /* 2: implemented */
		"log file = /var/log/all.log\n" /* 3: implemented, no warning */
		"[a]\n"                         /* 4 */
		"path = /a\n"                   /* 5 */
		"open noatime = no\n"           /* 6: already warned */
		"dont compress = *.gz\n"        /* 7: implemented, no warning */
		"max connections = 4\n"         /* 8: implemented */
		"[b]\n"                         /* 9 */
		"path = /b\n"                   /* 10 */
		"Dont_Compress = *.zip\n"       /* 11: implemented */
		"log file = /var/log/b.log\n"   /* 12: the module's own */
		"reverse lookup = no\n"         /* 13: per module now, no warning */
		"reverse lookup = yes\n"        /* 14 */
		"port = 5\n";                   /* 15: global only, warned */
	struct cfg c;
	size_t i;
	int round;

	/* Twice: nothing may carry over from one parse to the next. */
	for (round = 0; round < 2; round++) {
		EXPECT_OK(text, c);
		CHECK_MSG(c.nwarnings == sizeof want / sizeof want[0],
			  "%zu warnings", c.nwarnings);
		for (i = 0; i < c.nwarnings && i < sizeof want / sizeof want[0]; i++)
			CHECK_MSG(streq(c.warnings[i], want[i]), "got \"%s\", "
				  "expected \"%s\"", c.warnings[i], want[i]);
		/* 'reverse lookup' in a module is that module's; 'log file'
		 * is the module's own, the global one stays. */
		CHECK(streq(c.log_file, "/var/log/all.log") && c.reverse_lookup == 1);
		CHECK(c.nmodules == 2 && streq(c.modules[0].log_file, "/var/log/all.log") &&
		      streq(c.modules[1].log_file, "/var/log/b.log"));
		CHECK(c.nmodules == 2);
		CHECK(c.nmodules == 2 && streq(c.modules[0].dont_compress, "*.gz") &&
		      streq(c.modules[1].dont_compress, "*.zip"));
		cfg_free(&c);
		CHECK(c.warnings == NULL && c.nwarnings == 0 && c.modules == NULL);
	}

	/* dont compress must fit the worker's bounded copy */
	{
		static char big[1200];
		snprintf(big, sizeof(big), "[a]\npath=/a\ndont compress = %01100d\n", 0);
		EXPECT_ERR(big, 3, "'dont compress' is too long");
	}

	/* An ignored per-module value is still checked. */
	EXPECT_ERR("[a]\npath=/a\nsyslog tag = a b\n", 3, "'syslog tag' must not contain blanks");
}

/* PROXY protocol and the log directives of issue 11. */
static void test_proxy_and_logs(void)
{
	struct cfg c;
	char text[64 * 80 + 200];
	size_t n = 0;

	EXPECT_OK("proxy protocol = yes\nproxy protocol hosts = 10.0.0.1, 192.168.0.0/16 ::1 fd00::/8\t10.1.0.0/255.255.0.0\n", c);
	CHECK(c.proxy_protocol == 1 && streq(c.proxy_protocol_hosts,
		"10.0.0.1, 192.168.0.0/16 ::1 fd00::/8\t10.1.0.0/255.255.0.0") && c.nwarnings == 0);
	cfg_free(&c);
	EXPECT_OK("proxy protocol = yes\n", c);
	CHECK(c.nwarnings == 1 && c.nwarnings && strstr(c.warnings[0], "all connections will be rejected as untrusted proxy peers"));
	cfg_free(&c);
	EXPECT_OK("proxy protocol hosts = 10.0.0.1\n", c);
	CHECK(c.proxy_protocol == 0 && c.nwarnings == 0);
	cfg_free(&c);
	EXPECT_ERR("proxy protocol hosts = proxy.example.org\n", 1, "'proxy.example.org' is not an address");
	EXPECT_ERR("proxy protocol hosts = 10.0.0.1 10.*\n", 1, "'10.*' is not an address");
	EXPECT_ERR("proxy protocol hosts = 10.0.0.0/33\n", 1, "is not an address");
	EXPECT_ERR("proxy protocol hosts = ::/129\n", 1, "is not an address");
	EXPECT_ERR("proxy protocol hosts = 10.0.0.0/-1\n", 1, "is not an address");
	EXPECT_ERR("proxy protocol hosts = 10.0.0.0/255.0.0.0.0\n", 1, "is not an address");
	EXPECT_ERR("proxy protocol hosts = 10.0.0.0/ffff::\n", 1, "is not an address");
	/* in a module: ignored with rsyncd's warning */
	EXPECT_OK("[a]\npath = /a\nproxy protocol = yes\n", c);
	CHECK(c.proxy_protocol == 0 && c.nwarnings == 1 && strstr(c.warnings[0], "global parameter"));
	cfg_free(&c);

	/* global values, the modules' defaults, and a module's own */
	EXPECT_OK("syslog tag = g.%RSYNC_MODULE_NAME%\nsyslog facility = LOCAL3\nlog file = /l/all\n"
		  "[a]\npath = /a\n[b]\npath = /b\nsyslog tag = b\nsyslog facility = local5\nlog file = /l/b\n"
		  "transfer logging = yes\nlog format = %f %l\n[c]\npath = /c\nlog file =\n", c);
	CHECK(streq(c.syslog_tag, "g.%RSYNC_MODULE_NAME%") && streq(c.syslog_facility, "local3") &&
	      streq(c.log_file, "/l/all"));
	CHECK(c.nmodules == 3 && streq(c.modules[0].syslog_tag, c.syslog_tag) &&
	      streq(c.modules[0].syslog_facility, "local3") && streq(c.modules[0].log_file, "/l/all") &&
	      c.modules[0].transfer_logging == 0 && streq(c.modules[0].log_format, "%o %h [%a] %m (%u) %f %l"));
	CHECK(c.nmodules == 3 && streq(c.modules[1].syslog_tag, "b") && streq(c.modules[1].syslog_facility, "local5") &&
	      streq(c.modules[1].log_file, "/l/b") && c.modules[1].transfer_logging == 1 &&
	      streq(c.modules[1].log_format, "%f %l"));
	CHECK(c.nmodules == 3 && c.modules[2].log_file == NULL);
	cfg_free(&c);
	EXPECT_OK("[a]\npath = /a\n", c);
	CHECK(streq(c.syslog_tag, "prsyncd") && c.log_file == NULL && c.nmodules == 1 &&
	      streq(c.modules[0].syslog_tag, "prsyncd") && streq(c.modules[0].syslog_facility, "daemon"));
	cfg_free(&c);
	EXPECT_ERR("syslog tag = a b\n", 1, "must not contain blanks");
	EXPECT_ERR("syslog tag = a:b\n", 1, "must not contain blanks");
	EXPECT_ERR("syslog tag =\n", 1, "must be 1 to 200 bytes");

	memset(text, 0, sizeof(text));
	n = (size_t)snprintf(text, sizeof(text), "[a]\npath = /a\nlog format = ");
	memset(text + n, 'x', CFG_LOG_FORMAT_MAX + 1);
	text[n + CFG_LOG_FORMAT_MAX + 1] = '\n';
	EXPECT_ERR(text, 3, "is too long");
	text[n + CFG_LOG_FORMAT_MAX] = '\n';
	text[n + CFG_LOG_FORMAT_MAX + 1] = '\0';
	EXPECT_OK(text, c);
	cfg_free(&c);

	/* every session opens each module's own log file: at most 64 */
	n = 0;
	for (int i = 0; i <= CFG_MODLOG_FILES_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[m%d]\npath = /m\nlog file = /l/%d\n", i, i % (i < CFG_MODLOG_FILES_MAX ? 1000 : 1));
	EXPECT_OK(text, c); /* the 65th shares the first's */
	cfg_free(&c);
	n = 0;
	for (int i = 0; i <= CFG_MODLOG_FILES_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[m%d]\npath = /m\nlog file = /l/%d\n", i, i);
	EXPECT_ERR(text, 3 * CFG_MODLOG_FILES_MAX + 1, "more than 64 distinct module 'log file's");
}

static void test_err_buffer(void)
{
	static const char text[] = "[m]\npath=/x\nearly exec = 1\n";
	struct cfg c;
	char e[16];

	/* Truncated, but terminated and never overrun. */
	memset(e, 'X', sizeof e);
	CHECK(cfg_parse("a-rather-long-file-name.conf", text, strlen(text), &c,
			e, 8) == -1);
	CHECK(strcmp(e, "a-rathe") == 0 && e[8] == 'X');
	CHECK(cfg_parse(NAME, text, strlen(text), &c, NULL, 0) == -1);
	CHECK(cfg_parse(NAME, text, strlen(text), &c, e, 0) == -1);
	/* A length shorter than the text stops where it says. */
	CHECK(cfg_parse(NAME, "[m]\npath=/x\nearly exec", 12, &c, e, sizeof e) == 0);
	CHECK(c.nmodules == 1);
	cfg_free(&c);
	CHECK(cfg_parse(NAME, NULL, 0, &c, e, sizeof e) == 0);
	cfg_free(&c);
	cfg_free(NULL);
}

/* Every prefix of a busy file either parses or fails with a located
 * message; the sanitizers watch for the rest. */
static void test_prefixes(void)
{
	static const char text[] =
		"\xef\xbb\xbf# x\nport = 873\r\nuid = nobody\n[ a  b ]\n"
		"path = /srv\\\n/x\ncomment = c \\  \n d\n[global]\nlist = no\n"
		"[c] ;x\npath=/c\nread only = yes\ntimeout = 5\n&merge /x\n";
	struct cfg c;
	char e[CFG_ERR_MAX];
	size_t n;
	int bad = 0;

	for (n = 0; n <= sizeof text - 1; n++) {
		if (cfg_parse(NAME, text, n, &c, e, sizeof e) == 0)
			cfg_free(&c);
		else if (strncmp(e, NAME ":", strlen(NAME ":")) != 0)
			bad++;
	}
	CHECK(bad == 0);
}

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(text, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int write_text(const char *path, const char *text)
{
	return write_file(path, text, strlen(text));
}

static void test_load(void)
{
	char dir[] = "/tmp/test_config.XXXXXX", path[64], want[128];
	char e[CFG_ERR_MAX];
	struct cfg c;
	char *big;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/rsyncd.conf", dir);

	/* Missing file. */
	CHECK(cfg_load(path, &c, e, sizeof e) == -1);
	snprintf(want, sizeof want, "%s: cannot open: ", path);
	CHECK_MSG(strncmp(e, want, strlen(want)) == 0, "%s", e);
	CHECK(c.modules == NULL && c.worker_user == NULL);

	/* A good file, with errors and warnings named after the path. */
	CHECK(write_text(path, "port = 9\n[m]\npath = /srv\nopen noatime = yes\nport = 1\n") == 0);
	CHECK(cfg_load(path, &c, e, sizeof e) == 0);
	CHECK(c.port == 9 && cfg_find_module(&c, "m") != NULL);
	snprintf(want, sizeof want, "%s:5: module [m]: 'port' is a global parameter", path);
	CHECK(c.nwarnings == 1 && strncmp(c.warnings[0], want, strlen(want)) == 0);
	cfg_free(&c);

	CHECK(write_text(path, "[m]\npath = /srv\npre-xfer exec = /bin/true\nearly exec = 2\n") == 0);
	CHECK(cfg_load(path, &c, e, sizeof e) == -1);
	snprintf(want, sizeof want, "%s:3: module [m]: 'pre-xfer exec' is refused", path);
	CHECK_MSG(strncmp(e, want, strlen(want)) == 0, "%s", e);
	CHECK_MSG(strstr(e, "(and 1 more error: prsyncd --check-config lists them)") != NULL, "%s", e);

	/* A directory is not a config file. */
	CHECK(cfg_load(dir, &c, e, sizeof e) == -1);
	CHECK_MSG(strstr(e, "not a regular file") != NULL, "%s", e);

	/* 1 MiB is the limit. */
	big = malloc(1024 * 1024 + 1);
	if (big) {
		memset(big, '\n', 1024 * 1024 + 1);
		CHECK(write_file(path, big, 1024 * 1024) == 0);
		CHECK(cfg_load(path, &c, e, sizeof e) == 0);
		cfg_free(&c);
		CHECK(write_file(path, big, 1024 * 1024 + 1) == 0);
		CHECK(cfg_load(path, &c, e, sizeof e) == -1);
		CHECK_MSG(strstr(e, "larger than") != NULL, "%s", e);
		free(big);
	}

	/* Unreadable (only meaningful when not root). */
	CHECK(write_text(path, "port = 1\n") == 0);
	if (geteuid() != 0 && chmod(path, 0) == 0) {
		CHECK(cfg_load(path, &c, e, sizeof e) == -1);
		CHECK_MSG(strstr(e, "cannot open") != NULL, "%s", e);
	}
	unlink(path);
	rmdir(dir);
}

/* &include and &merge, as rsyncd 3.5.0 reads them (t_confdirs.sh compares
 * the module lists end to end). */
static void test_includes(void)
{
	char dir[] = "/tmp/prsyncd-cfginc.XXXXXX", path[512], text[2048];
	struct cfg c;

	if (mkdtemp(dir) == NULL) {
		CHECK(0);
		return;
	}
	snprintf(path, sizeof path, "%s/d", dir);
	CHECK(mkdir(path, 0755) == 0);
#define W(name, body) do { snprintf(path, sizeof path, "%s/%s", dir, name); CHECK(write_text(path, body) == 0); } while (0)
	W("d/10-a.conf", "comment = from-include\nport = 999\n[inc_a]\npath = /a\n");
	W("d/.hidden.conf", "[hidden]\npath = /h\n");
	W("d/B.conf", "[inc_B]\npath = /b\n");
	W("d/m.inc", "comment = merged\n[mrg]\npath = /m\n");
	W("d/notme.txt", "[never]\npath = /n\n");
	W("sub.inc", "\tcomment = set-by-merge\n");
	W("rel.conf", "[rel]\npath = /r\n");
	snprintf(text, sizeof text,
		 "comment = parent\n[first]\npath = /1\n&include %s/d\n\tcomment = after-include\n"
		 "[second]\npath = /2\n[third]\npath = /3\n&merge %s/sub.inc\n[fourth]\npath = /4\n"
		 "&merge %s/d\n[fifth]\npath = /5\n", dir, dir, dir);
	EXPECT_OK(text, c);
	if (c.nmodules == 9) {
		static const char *const names[] = { "first", "hidden", "inc_a", "inc_B", "second", "third",
						     "fourth", "mrg", "fifth" };
		/* &include: its defaults stay in it; the parent goes on in the
		 * global context ("after-include" is a default, as positional
		 * defaults make it, for [second] on) */
		static const char *const comments[] = { "parent", "parent", "from-include", "parent",
							"after-include", "set-by-merge", "merged", "after-include",
							"after-include" };

		for (size_t i = 0; i < 9; i++)
			CHECK_MSG(streq(c.modules[i].name, names[i]) && streq(c.modules[i].comment, comments[i]),
				  "%zu: [%s] \"%s\"", i, c.modules[i].name, c.modules[i].comment);
		CHECK(c.port == 999); /* a true global set in an included file stays */
	} else {
		CHECK_MSG(0, "%zu modules", c.nmodules);
	}
	cfg_free(&c);

	/* A relative name: from the working directory (the one of the
	 * first load), as rsyncd takes it, not from the including file's;
	 * the forms with '=', any case. */
	snprintf(path, sizeof path, "%s/main.conf", dir);
	{
		char e[CFG_ERR_MAX], cwd[PATH_MAX], rel[PATH_MAX * 2], line[PATH_MAX * 3];
		static const char *const forms[] = {
			"&include = ", "&include=", "&INCLUDE\t=  ", "&Include ", "&merge = ", "&merge=",
		};
		size_t n = 0;

		CHECK(write_text(path, "&include = rel.conf\n") == 0);
		CHECK(cfg_load(path, &c, e, sizeof e) == -1 && strstr(e, "rel.conf: No such file or directory"));
		/* dir/rel.conf named from the working directory: "../../tmp/..." */
		CHECK(getcwd(cwd, sizeof cwd) != NULL);
		rel[0] = '\0';
		for (const char *q = cwd; *q; q++)
			if (*q == '/' && q[1] && n + 4 < sizeof rel)
				n += (size_t)snprintf(rel + n, sizeof rel - n, "../");
		snprintf(rel + n, sizeof rel - n, "%s/rel.conf", dir + 1);
		for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
			snprintf(line, sizeof line, "%s%s\n", forms[i], rel);
			CHECK(write_text(path, line) == 0);
			CHECK_MSG(cfg_load(path, &c, e, sizeof e) == 0 && c.nmodules == 1 &&
				  streq(c.modules[0].name, "rel"), "%s: %s", line, e);
			cfg_free(&c);
		}
	}
	/* Errors in an included file cite it; the parse goes on. */
	W("bad.conf", "[x]\npath = /x\nearly exec = maybe\n");
	snprintf(text, sizeof text, "&include %s/bad.conf\n[y]\npath = /y\nearly exec = 1\n", dir);
	{
		char e[CFG_ERR_MAX], want[600];

		CHECK(parse(text, &c, e) == -1);
		snprintf(want, sizeof want, "%s/bad.conf:3: module [x]: 'early exec' is refused", dir);
		CHECK_MSG(strncmp(e, want, strlen(want)) == 0 && strstr(e, "(and 1 more error") != NULL, "%s", e);
	}
	/* Loops end at the nesting bound. */
	snprintf(path, sizeof path, "%s/loop.conf", dir);
	snprintf(text, sizeof text, "&include %s\n", path);
	CHECK(write_text(path, text) == 0);
	{
		char e[CFG_ERR_MAX];

		CHECK(parse(text, &c, e) == -1);
		CHECK_MSG(strstr(e, "loop.conf:1: &include") && strstr(e, "nested more than 8 deep"), "%s", e);
	}
#undef W
	{
		char cmd[600];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
}

/* The directives of what the sender sends, %VAR% at load, daemon ids. */
static void test_sender_directives(void)
{
	struct cfg c;
	char big[1200];

	EXPECT_OK("refuse options = c\nmax verbosity = 3\n[m]\npath=/x\nignore nonreadable = yes\n"
		  "ignore errors = 1\noutgoing chmod = Dg+s,ug+w,Fo-w,+X\ncharset = ISO-8859-1\n"
		  "open noatime = yes\nincoming chmod = whatever\ntemp dir = /tmp\n", c);
	if (c.nmodules == 1) {
		const struct cfg_module *m = &c.modules[0];

		CHECK(streq(m->refuse_options, "c") && m->max_verbosity == 3 && m->ignore_nonreadable == 1 &&
		      m->ignore_errors == 1 && streq(m->outgoing_chmod, "Dg+s,ug+w,Fo-w,+X") &&
		      streq(m->charset, "ISO-8859-1") && m->open_noatime == 1);
		CHECK(c.nwarnings == 0); /* incoming chmod, temp dir: quiet */
	}
	cfg_free(&c);
	EXPECT_OK("[m]\npath=/x\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].max_verbosity == 1 && c.modules[0].refuse_options == NULL);
	cfg_free(&c);
	/* rsyncd logs a bad chmod string at each connection and goes on
	 * without it */
	EXPECT_OK("[m]\npath=/x\noutgoing chmod = u+q\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].outgoing_chmod == NULL && c.nwarnings == 1 &&
	      strstr(c.warnings[0], "'outgoing chmod = u+q' is not a valid chmod string"));
	cfg_free(&c);
	EXPECT_ERR("[m]\npath=/x\ncharset = UTF 8\n", 3, "is not a charset name");
	snprintf(big, sizeof big, "[m]\npath=/x\nrefuse options = %01100d\n", 0);
	EXPECT_ERR(big, 3, "'refuse options' is too long");

	/* %VAR%: the environment at load; the per-connection names wait. */
	setenv("PRSYNCD_T_DIR", "/srv/t", 1);
	setenv("PRSYNCD_T_NO", "no", 1);
	EXPECT_OK("[m]\npath = %PRSYNCD_T_DIR%/%RSYNC_MODULE_NAME%\nlist = %PRSYNCD_T_NO%\n"
		  "comment = 50% [%%] [%PRSYNCD_UNSET%]\n", c);
	CHECK(c.nmodules == 1 && streq(c.modules[0].path, "/srv/t/%RSYNC_MODULE_NAME%") &&
	      c.modules[0].list == 0 && streq(c.modules[0].comment, "50% [%%] [%PRSYNCD_UNSET%]"));
	cfg_free(&c);
	EXPECT_OK("[m]\npath=/x\nlist = %PRSYNCD_T_UNSET%\n", c);
	CHECK(c.nmodules == 1 && c.modules[0].list == 1 && c.nwarnings == 1);
	cfg_free(&c);

	/* daemon uid/gid: every module reads files as them. */
	EXPECT_OK("daemon uid = mirror\ndaemon gid = mirror\n[m]\npath=/x\nuid = root\n[n]\npath=/y\n", c);
	CHECK(c.nmodules == 2 && streq(c.modules[0].uid, "mirror") && streq(c.modules[0].gid, "mirror") &&
	      streq(c.modules[1].uid, "mirror"));
	cfg_free(&c);
	/* listen backlog, socket options */
	EXPECT_OK("listen backlog = 5\nsocket options = SO_KEEPALIVE, TCP_NODELAY SO_SNDBUF=65536\n", c);
	CHECK(c.listen_backlog == 5 && streq(c.socket_options, "SO_KEEPALIVE, TCP_NODELAY SO_SNDBUF=65536"));
	cfg_free(&c);
	/* an unknown word: rsyncd logs it and sets the others (rsync 3.5.0's
	 * daemon-module-options: NOSUCHOPT must not stop the daemon) */
	EXPECT_OK("socket options = SO_KEEPALIVE SO_BOGUS\n", c);
	CHECK(streq(c.socket_options, "SO_KEEPALIVE SO_BOGUS") && c.nwarnings == 1 &&
	      strstr(c.warnings[0], "'SO_BOGUS', a socket option rsyncd does not know") != NULL);
	cfg_free(&c);
}

/* timeout: a module value, the global section's as default and as the
 * bound before selection, and the handshake bound derived from both. */
static void test_timeout(void)
{
	char e[CFG_ERR_MAX];
	struct cfg c;

	CHECK(parse("timeout = 5\n[a]\npath = /a\n[b]\npath = /b\ntimeout = 0\n"
		    "[c]\npath = /c\ntimeout = 600\n", &c, e) == 0);
	CHECK(c.timeout == 5 && c.nwarnings == 0);
	CHECK(cfg_find_module(&c, "a")->timeout == 5 && cfg_find_module(&c, "b")->timeout == 0 &&
	      cfg_find_module(&c, "c")->timeout == 600);
	cfg_free(&c);
	CHECK(parse("[a]\npath = /a\n", &c, e) == 0);
	CHECK(c.timeout == 0 && cfg_find_module(&c, "a")->timeout == 0);
	cfg_free(&c);
	/* rsyncd: atoi; a negative timeout is none */
	CHECK(parse("timeout = -1\n", &c, e) == 0 && c.timeout == 0 && c.nwarnings == 1);
	cfg_free(&c);
	CHECK(parse("timeout = 1000001\n", &c, e) == 0 && c.timeout == 1000000 && c.nwarnings == 1);
	cfg_free(&c);
	CHECK(parse("timeout = x\n", &c, e) == 0 && c.timeout == 0 && c.nwarnings == 1);
	cfg_free(&c);
	/* min(handshake timeout, 60, timeout if set) */
	CHECK(cfg_handshake_bound(30, 0) == 30 && cfg_handshake_bound(30, 5) == 5 &&
	      cfg_handshake_bound(300, 0) == 60 && cfg_handshake_bound(300, 600) == 60 &&
	      cfg_handshake_bound(300, 45) == 45 && cfg_handshake_bound(10, 45) == 10);
}

/* Every rsyncd.conf value type, odd values as rsync 3.5.0 reads them
 * (loadparm.c: numbers by atoi, booleans without case or blanks and a
 * bad word ignored, BOOL3's unset/-1, the facility by name or code). */
enum vfield { V_PORT, V_BACKLOG, V_MAXCONN, V_TIMEOUT, V_MAXVERB, V_LIST, V_RO, V_CHROOT,
	      V_NUMIDS, V_MUNGE, V_NOATIME, V_STRICT, V_PROXY };

static int vfield_get(const struct cfg *c, enum vfield f)
{
	const struct cfg_module *m = c->nmodules ? &c->modules[0] : NULL;

	switch (f) {
	case V_PORT: return c->port;
	case V_BACKLOG: return c->listen_backlog;
	case V_PROXY: return c->proxy_protocol;
	default: break;
	}
	if (!m)
		return -12345;
	switch (f) {
	case V_MAXCONN: return m->max_connections;
	case V_TIMEOUT: return m->timeout;
	case V_MAXVERB: return m->max_verbosity;
	case V_LIST: return m->list;
	case V_RO: return m->read_only;
	case V_CHROOT: return m->use_chroot;
	case V_NUMIDS: return m->numeric_ids;
	case V_MUNGE: return m->munge_symlinks;
	case V_NOATIME: return m->open_noatime;
	case V_STRICT: return m->strict_modes;
	default: return -12345;
	}
}

static void test_rsyncd_values(void)
{
	static const struct {
		const char *key, *value;
		enum vfield f;
		int want;
		const char *warn; /* NULL: no warning */
	} cases[] = {
		{ "max verbosity", "yes", V_MAXVERB, 0, "'max verbosity = yes' is read as 0, as rsyncd reads it" },
		{ "max verbosity", "3", V_MAXVERB, 3, NULL },
		{ "max verbosity", "+2", V_MAXVERB, 2, NULL },
		{ "max verbosity", "10k", V_MAXVERB, 10, "read as 10" },
		{ "max verbosity", "-1", V_MAXVERB, 0, "as for 0" },
		{ "max verbosity", "0x10", V_MAXVERB, 0, "read as 0" },
		{ "max verbosity", "99999999999", V_MAXVERB, 1000, "read as 1215752191" },
		{ "max verbosity", "", V_MAXVERB, 0, "read as 0" },
		{ "timeout", "-5", V_TIMEOUT, 0, "a negative timeout is no timeout" },
		{ "timeout", "10k", V_TIMEOUT, 10, "read as 10" },
		{ "timeout", "yes", V_TIMEOUT, 0, "no timeout" },
		{ "timeout", "2000000", V_TIMEOUT, 1000000, "at most 1000000 s" },
		{ "timeout", "4294967297", V_TIMEOUT, 1, "read as 1" },
		{ "timeout", "-4294967296", V_TIMEOUT, 0, "read as 0" },
		{ "timeout", "600", V_TIMEOUT, 600, NULL },
		{ "max connections", "yes", V_MAXCONN, 0, "read as 0, as rsyncd reads it (the leading number, else 0): no limit" },
		{ "max connections", "-1", V_MAXCONN, -1, NULL },
		{ "max connections", "3 clients", V_MAXCONN, 3, "read as 3" },
		{ "max connections", "1e3", V_MAXCONN, 1, "read as 1" },
		{ "max connections", "2000000000", V_MAXCONN, 2000000000, NULL },
		{ "port", "0", V_PORT, 873, NULL },
		{ "port", "yes", V_PORT, 873, "rsyncd's default port, 873" },
		{ "port", "8730x", V_PORT, 8730, "read as 8730" },
		{ "listen backlog", "0", V_BACKLOG, 0, "default backlog" },
		{ "listen backlog", "-1", V_BACKLOG, -1, "default backlog" },
		{ "listen backlog", "100000", V_BACKLOG, 100000, NULL },
		{ "read only", "No", V_RO, 0, "'read only = no'" },
		{ "read only", "n o", V_RO, 0, "'read only = no'" },
		{ "read only", "maybe", V_RO, 1, "Badly formed boolean" },
		{ "read only", "unset", V_RO, 1, "Badly formed boolean" },
		{ "list", "FALSE", V_LIST, 0, NULL },
		{ "list", "on", V_LIST, 1, "the value stays yes" },
		{ "list", "-1", V_LIST, 1, "Badly formed boolean" },
		{ "use chroot", "unset", V_CHROOT, 1, NULL },
		{ "use chroot", "-1", V_CHROOT, 1, NULL },
		{ "use chroot", "no", V_CHROOT, 0, NULL },
		{ "use chroot", "sometimes", V_CHROOT, 1, "(or unset/-1)" },
		{ "numeric ids", "Unset", V_NUMIDS, -1, NULL },
		{ "numeric ids", "yes", V_NUMIDS, 1, NULL },
		{ "munge symlinks", "-1", V_MUNGE, -1, NULL },
		{ "munge symlinks", "T R U E", V_MUNGE, 1, NULL },
		{ "open noatime", "UNSET", V_NOATIME, 0, NULL },
		{ "open noatime", "1", V_NOATIME, 1, NULL },
		{ "strict modes", "2", V_STRICT, 1, "Badly formed boolean" },
		{ "proxy protocol", "perhaps", V_PROXY, 0, "the value stays no" },
	};
	char text[256];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cfg c;
		int global = cases[i].f == V_PORT || cases[i].f == V_BACKLOG || cases[i].f == V_PROXY;
		int got;

		/* a module value, then the same as the global default */
		for (int pass = 0; pass < 2; pass++) {
			if (global && pass)
				break;
			if (global || pass)
				snprintf(text, sizeof text, "%s = %s\n[m]\npath = /x\n", cases[i].key, cases[i].value);
			else
				snprintf(text, sizeof text, "[m]\npath = /x\n%s = %s\n", cases[i].key, cases[i].value);
			EXPECT_OK(text, c);
			got = vfield_get(&c, cases[i].f);
			CHECK_MSG(got == cases[i].want, "'%s = %s' (%s): %d, want %d", cases[i].key, cases[i].value,
				  pass ? "global" : "module", got, cases[i].want);
			if (cases[i].warn)
				CHECK_MSG(c.nwarnings >= 1 && strstr(c.warnings[0], cases[i].warn),
					  "'%s = %s': warning \"%s\", want \"%s\"", cases[i].key, cases[i].value,
					  c.nwarnings ? c.warnings[0] : "(none)", cases[i].warn);
			else
				CHECK_MSG(c.nwarnings == 0, "'%s = %s': unexpected warning \"%s\"", cases[i].key,
					  cases[i].value, c.nwarnings ? c.warnings[0] : "");
			cfg_free(&c);
		}
	}
	/* Values rsyncd cannot use either stay errors. */
	EXPECT_ERR("port = 70000\n", 1, "rsyncd cannot listen on it either");
	EXPECT_ERR("port = -5\n", 1, "(read as -5, as rsyncd reads it)");

	/* The facility: a name in any case, or a facility's code; anything
	 * else leaves it as it was. */
	{
		static const struct { const char *value, *want; int warns; } fac[] = {
			{ "LOCAL3", "local3", 0 }, { "Daemon", "daemon", 0 }, { "24", "daemon", 0 },
			{ "128", "local0", 0 }, { "console", "mail", 1 }, { "5", "mail", 1 },
			{ "-8", "mail", 1 }, { "", "mail", 1 },
		};

		for (size_t i = 0; i < sizeof fac / sizeof fac[0]; i++) {
			struct cfg c;

			snprintf(text, sizeof text, "syslog facility = mail\nsyslog facility = %s\n[m]\npath = /x\n",
				 fac[i].value);
			EXPECT_OK(text, c);
			CHECK_MSG(streq(c.syslog_facility, fac[i].want) && c.nmodules == 1 &&
				  streq(c.modules[0].syslog_facility, fac[i].want) &&
				  (c.nwarnings != 0) == fac[i].warns,
				  "facility %s: %s, %zu warnings", fac[i].value, c.syslog_facility, c.nwarnings);
			cfg_free(&c);
		}
	}
	/* rsyncd drops a path's trailing slashes */
	{
		struct cfg c;

		EXPECT_OK("[m]\npath = /srv/pub//\n[r]\npath = /\n", c);
		CHECK(c.nmodules == 2 && streq(c.modules[0].path, "/srv/pub") && streq(c.modules[1].path, "/"));
		cfg_free(&c);
	}
	/* atoi itself */
	{
		static const struct { const char *s; int v, plain; } a[] = {
			{ "0", 0, 1 }, { "-0", 0, 1 }, { "+7", 7, 1 }, { "2147483647", 2147483647, 1 },
			{ "2147483648", -2147483647 - 1, 0 }, { "-2147483648", -2147483647 - 1, 1 },
			{ "4294967296", 0, 0 }, { "99999999999999999999", -1, 0 },
			{ "-99999999999999999999", 0, 0 }, { " 5", 5, 0 }, { "5 ", 5, 0 }, { "--1", 0, 0 },
			{ "", 0, 0 }, { "x1", 0, 0 },
		};

		for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
			int plain = -1, v = rsyncd_atoi(a[i].s, &plain);

			CHECK_MSG(v == a[i].v && plain == a[i].plain, "atoi(\"%s\") = %d (%d), want %d (%d)",
				  a[i].s, v, plain, a[i].v, a[i].plain);
		}
	}
}

int main(void)
{
	test_timeout();
	test_defaults();
	test_globals();
	test_modules();
	test_module_defaults();
	test_syntax();
	test_keys();
	test_bools();
	test_bad_values();
	test_bad_structure();
	test_long_lines();
	test_many_modules();
	test_security();
	test_filters();
	test_warnings();
	test_proxy_and_logs();
	test_err_buffer();
	test_prefixes();
	test_load();
	test_includes();
	test_sender_directives();
	test_rsyncd_values();
	return unit_done("test_config");
}
