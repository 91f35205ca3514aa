/* Unit tests for the rsyncd.conf parser (src/monitor/config.c). */
#include "config.h"
#include "unit.h"

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
	CHECK(c.handshake_timeout == 30);
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
	/* Trimmed, inner blanks squeezed, as rsyncd does. */
	m = cfg_find_module(&c, "other name");
	CHECK(m && streq(m->path, "/srv/o") && m->line == 12 && m->list == 1);
	CHECK(cfg_find_module(&c, "PUB") == NULL);
	CHECK(cfg_find_module(&c, "nope") == NULL);
	CHECK(cfg_find_module(&c, "") == NULL);
	CHECK(cfg_find_module(NULL, "pub") == NULL);
	cfg_free(&c);

	/* Names differing only in case are distinct modules. */
	EXPECT_OK("[a]\npath=/a\n[A]\npath=/b\n", c);
	CHECK(c.nmodules == 2);
	CHECK(cfg_find_module(&c, "a") && streq(cfg_find_module(&c, "a")->path, "/a"));
	CHECK(cfg_find_module(&c, "A") && streq(cfg_find_module(&c, "A")->path, "/b"));
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
	EXPECT_ERR("[m]\npath = /srv\nlist = \\\n\\\nmaybe\n", 3, "maybe");
	/* Lines after a continuation are counted. */
	EXPECT_ERR("[m]\npath = /srv\ncomment = a \\\nb\nbogus = 1\n", 5,
		   "unknown parameter 'bogus'");

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
		/* The same spellings reach the refusal. */
		snprintf(text, sizeof text, "[m]\npath=/x\n%s = false\n",
			 spellings[i]);
		EXPECT_ERR(text, 3, "read only = no is refused");
	}
	EXPECT_OK("Handshake_Timeout = 7\nPIDFILE = /p\n", c);
	CHECK(c.handshake_timeout == 7 && streq(c.pid_file, "/p"));
	cfg_free(&c);
	/* The hyphen in the exec names is part of the name, as in stock. */
	EXPECT_ERR("prexfer exec = /bin/true\n", 1, "unknown parameter");
}

static void test_bools(void)
{
	static const struct { const char *text; int value; } cases[] = {
		{ "yes", 1 }, { "YES", 1 }, { "Yes", 1 }, { "true", 1 },
		{ "TRUE", 1 }, { "True", 1 }, { "1", 1 },
		{ "no", 0 }, { "NO", 0 }, { "No", 0 }, { "false", 0 },
		{ "FALSE", 0 }, { "fAlSe", 0 }, { "0", 0 },
	};
	static const char *const bad[] = {
		"", "on", "off", "2", "y", "n", "yess", " yes", "yes ", "01",
		"t", "-1", "enable",
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
	/* Stock rsyncd rejects "on" too. */
	EXPECT_ERR("[m]\npath=/x\n\nlist = on\n", 4, "'list' must be yes/no");
	EXPECT_ERR("reverse lookup = maybe\n", 1, "'reverse lookup' must be");
	EXPECT_ERR("[m]\npath=/x\nuse chroot = # yes\n", 3, "'use chroot'");
}

static void test_bad_values(void)
{
	EXPECT_ERR("port = 0\n", 1, "'port' must be a number from 1 to 65535");
	EXPECT_ERR("\nport = 65536\n", 2, "'port'");
	EXPECT_ERR("port = 80x\n", 1, "\"80x\"");
	EXPECT_ERR("port = -1\n", 1, "'port'");
	EXPECT_ERR("port = +80\n", 1, "'port'");
	EXPECT_ERR("port =\n", 1, "'port'");
	EXPECT_ERR("port = 99999999999999999999999\n", 1, "'port'");
	EXPECT_ERR("handshake timeout = 0\n", 1, "from 1 to 3600");
	EXPECT_ERR("handshake timeout = 3601\n", 1, "'handshake timeout'");
	EXPECT_ERR("worker chroot = run/empty\n", 1,
		   "'worker chroot' must be an absolute path");
	EXPECT_ERR("worker user =\n", 1, "'worker user' must not be empty");
	EXPECT_ERR("syslog facility = bogus\n", 1, "not a syslog facility");
	/* Relative and empty module paths, in a module and as a default. */
	EXPECT_ERR("[m]\npath = srv/pub\n", 2, "'path' must be an absolute path");
	EXPECT_ERR("[m]\npath =\n", 2, "'path' must be an absolute path");
	EXPECT_ERR("path = ./x\n[m]\n", 1, "absolute path");
}

static void test_bad_structure(void)
{
	/* Text outside sections, or not a parameter at all. */
	EXPECT_ERR("port = 1\njust some words\n", 2,
		   "expected 'name = value' or '[module]'");
	EXPECT_ERR("[m]\npath = /x\n\nno equals sign here\n", 4, "expected");
	EXPECT_ERR("= value\n", 1, "missing parameter name");
	EXPECT_ERR("  =\n", 1, "missing parameter name");
	EXPECT_ERR("bogus = 1\n", 1, "unknown parameter 'bogus'");
	EXPECT_ERR("[m]\npath=/x\nRead Onl = yes\n", 3,
		   "unknown parameter 'Read Onl'");

	/* Section headers. */
	EXPECT_ERR("[m\npath = /x\n", 1, "closing ']'");
	EXPECT_ERR("[m] extra\npath = /x\n", 1, "unexpected text after ']'");
	EXPECT_ERR("[a]b]\npath = /x\n", 1, "unexpected text after ']'");
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

	/* Duplicate modules cite both lines. */
	EXPECT_ERR("[a]\npath=/a\n[b]\npath=/b\n[a]\npath=/c\n", 5,
		   "duplicate module [a] (first defined at line 1)");
	EXPECT_ERR("[ x  y ]\npath=/a\n[x y]\npath=/b\n", 3,
		   "duplicate module [x y]");

	/* Global-only parameters inside a module. */
	EXPECT_ERR("[a]\npath=/a\nport = 873\n", 3,
		   "'port' is a global parameter; it cannot be set in module [a]");
	EXPECT_ERR("[a]\npath=/a\nsocket options = SO_KEEPALIVE\n", 3,
		   "global parameter");

	/* Config directives. */
	EXPECT_ERR("port = 1\n&include /etc/rsyncd.d\n", 2,
		   "'&include' is not supported yet");
	EXPECT_ERR("&merge /etc/rsyncd.d\n", 1, "'&merge' is not supported yet");
	EXPECT_ERR("&include\n", 1, "'&include' is not supported yet");
	EXPECT_ERR("&includes x\n", 1, "unknown directive \"&includes x\"");
	EXPECT_ERR("&frobnicate x\n", 1, "unknown directive");

	/* Binary junk. */
	{
		static const char text[] = "[a]\npath=/a\ncomment = x\0y\n";
		struct cfg c;
		char e[CFG_ERR_MAX];

		CHECK(cfg_parse(NAME, text, sizeof text - 1, &c, e, sizeof e) == -1);
		CHECK_MSG(strcmp(e, NAME ":3: NUL byte in line") == 0, "%s", e);
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
	static const char *const access[] = {
		"hosts allow", "hosts deny", "auth users", "secrets file",
	};
	char text[256], want[128];
	size_t i;

	EXPECT_ERR("[m]\npath=/x\nread only = no\n", 3,
		   "uploads are not supported: read only = no is refused");
	EXPECT_ERR("[m]\npath=/x\nread only = 0\n", 3, "read only = no is refused");
	EXPECT_ERR("read only = False\n[m]\npath=/x\n", 1, "is refused");
	EXPECT_ERR("[m]\npath=/x\nwrite only = yes\n", 3,
		   "write only = yes is refused");
	EXPECT_ERR("write only = 1\n", 1, "write only = yes is refused");

	for (i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
		snprintf(text, sizeof text, "[m]\npath=/x\n\n%s = /bin/sh -c x\n",
			 hooks[i]);
		EXPECT_ERR(text, 4, i < 5 ? "exec hooks are not supported" :
			   "unknown parameter");
		snprintf(text, sizeof text, "%s = /bin/true\n[m]\npath=/x\n",
			 hooks[i]);
		EXPECT_ERR(text, 1, i < 5 ? "is refused" : "unknown");
	}
	for (i = 0; i < sizeof access / sizeof access[0]; i++) {
		snprintf(text, sizeof text, "[m]\npath=/x\n%s = something\n",
			 access[i]);
		snprintf(want, sizeof want, "'%s' is not implemented yet; "
			 "refusing to start without it", access[i]);
		EXPECT_ERR(text, 3, want);
		/* As a global default too. */
		snprintf(text, sizeof text, "port = 873\n%s = x\n", access[i]);
		EXPECT_ERR(text, 2, want);
	}
	EXPECT_ERR("[m]\npath=/x\nHostsAllow = 10.0.0.0/8\n", 3,
		   "'hosts allow' is not implemented yet; refusing to start");

	/* Limits: a negative one refuses every client in rsyncd, and is kept. */
	{
		struct cfg c;

		EXPECT_OK("max connections = 5\nmax connections per host = 2\n[m]\npath=/x\n"
			  "[n]\npath=/y\nmax connections = -1\nlock file = /run/x.lock\n", c);
		CHECK(c.nmodules == 2 && c.modules[0].max_connections == 5 &&
		      c.modules[1].max_connections == -1 && c.max_connections_per_host == 2);
		cfg_free(&c);
	}
	EXPECT_ERR("[m]\npath=/x\nmax connections = 1x\n", 3, "'max connections' must be");
	EXPECT_ERR("[m]\npath=/x\nmax connections = --1\n", 3, "'max connections' must be");
	EXPECT_ERR("[m]\npath=/x\nmax connections per host = 1\n", 3, "global parameter");
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
		NAME ":1: 'open noatime' is not implemented yet and is ignored",
		NAME ":2: 'listen backlog' is not implemented yet and is ignored",
		NAME ":12: per-module 'log file' is not implemented yet and is ignored",
		NAME ":13: per-module 'reverse lookup' is not implemented yet and is ignored",
	};
	static const char text[] =
		"open noatime = yes\n"          /* 1 */
		"listen backlog = 5\n"          /* 2 */
		"log file = /var/log/all.log\n" /* 3: implemented, no warning */
		"[a]\n"                         /* 4 */
		"path = /a\n"                   /* 5 */
		"open noatime = no\n"           /* 6: already warned */
		"dont compress = *.gz\n"        /* 7: implemented, no warning */
		"max connections = 4\n"         /* 8: implemented */
		"[b]\n"                         /* 9 */
		"path = /b\n"                   /* 10 */
		"Dont_Compress = *.zip\n"       /* 11: implemented */
		"log file = /var/log/b.log\n"   /* 12 */
		"reverse lookup = no\n"         /* 13 */
		"reverse lookup = yes\n";       /* 14: already warned */
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
		/* Per-module values are not honoured, the global ones stay. */
		CHECK(streq(c.log_file, "/var/log/all.log") && c.reverse_lookup == 1);
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
	EXPECT_ERR("[a]\npath=/a\nreverse lookup = perhaps\n", 3,
		   "'reverse lookup' must be");
	EXPECT_ERR("[a]\npath=/a\nsyslog facility = nosuch\n", 3,
		   "not a syslog facility");
}

static void test_err_buffer(void)
{
	static const char text[] = "[m]\npath=/x\nport = 1\n";
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
	CHECK(cfg_parse(NAME, "[m]\npath=/x\nbogus", 12, &c, e, sizeof e) == 0);
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
	CHECK(write_text(path, "port = 9\n[m]\npath = /srv\nopen noatime = yes\n") == 0);
	CHECK(cfg_load(path, &c, e, sizeof e) == 0);
	CHECK(c.port == 9 && cfg_find_module(&c, "m") != NULL);
	snprintf(want, sizeof want, "%s:4: 'open noatime' is not implemented yet "
		 "and is ignored", path);
	CHECK(c.nwarnings == 1 && streq(c.warnings[0], want));
	cfg_free(&c);

	CHECK(write_text(path, "[m]\npath = /srv\nread only = no\n") == 0);
	CHECK(cfg_load(path, &c, e, sizeof e) == -1);
	snprintf(want, sizeof want, "%s:3: uploads are not supported", path);
	CHECK_MSG(strncmp(e, want, strlen(want)) == 0, "%s", e);

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
	CHECK(parse("timeout = -1\n", &c, e) == -1);
	CHECK(parse("timeout = 1000001\n", &c, e) == -1);
	CHECK(parse("timeout = x\n", &c, e) == -1);
	/* min(handshake timeout, 60, timeout if set) */
	CHECK(cfg_handshake_bound(30, 0) == 30 && cfg_handshake_bound(30, 5) == 5 &&
	      cfg_handshake_bound(300, 0) == 60 && cfg_handshake_bound(300, 600) == 60 &&
	      cfg_handshake_bound(300, 45) == 45 && cfg_handshake_bound(10, 45) == 10);
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
	test_err_buffer();
	test_prefixes();
	test_load();
	return unit_done("test_config");
}
