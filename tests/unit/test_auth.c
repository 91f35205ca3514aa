/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for daemon auth in the session monitor (src/monitor/auth.c):
 * the digest negotiated as rsyncd 3.5.0 negotiates it for every kind of
 * client list, the "auth digest" floor, the challenge, responses computed
 * independently here (OpenSSL and its own base64) accepted and every
 * malformed or wrong one refused with rsyncd's reason, "auth users" rules
 * (names, wildcards, @group, :deny/:ro/:rw, comma-only lists), the secrets
 * file (user and @group lines, strict modes, comments, a planted link).
 * The stock client's side is exercised in t_auth.sh.
 */
#include "auth.h"
#include "log.h"
#include "unit.h"

#include <fcntl.h>
#include <grp.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md4.h"
#include "nsquery.h"

/* The name-service child of a session (nschild.c), confined as in one:
 * the machine's own users and groups answer @group rules. */
static struct nsq q;

static char dir[] = "/tmp/prsyncd-auth.XXXXXX";
static char secrets[256], logpath[256];
static int logfd;

/* The response a client computes, written independently of auth.c. */
static void response(const char *digest, int old, const char *pw, const char *chal, char *out)
{
	unsigned char d[64], enc[100];
	unsigned int n = 16;

	if (strcmp(digest, "md4") == 0) {
		struct md4_ctx c;
		static const unsigned char zero[4];

		md4_init(&c);
		if (old)
			md4_update(&c, zero, 4);
		md4_update(&c, pw, strlen(pw));
		md4_update(&c, chal, strlen(chal));
		md4_final(&c, d);
	} else {
		EVP_MD_CTX *c = EVP_MD_CTX_new();

		EVP_DigestInit_ex(c, EVP_get_digestbyname(digest), NULL);
		EVP_DigestUpdate(c, pw, strlen(pw));
		EVP_DigestUpdate(c, chal, strlen(chal));
		EVP_DigestFinal_ex(c, d, &n);
		EVP_MD_CTX_free(c);
	}
	EVP_EncodeBlock(enc, d, (int)n);
	enc[strcspn((char *)enc, "=")] = '\0';
	strcpy(out, (char *)enc);
}

static struct cfg_module mod(const char *users)
{
	return (struct cfg_module){ .name = "m", .auth_users = (char *)users, .secrets_file = secrets,
				    .strict_modes = 1 };
}

static void write_secrets(const char *text, mode_t mode)
{
	int fd = open(secrets, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	chmod(secrets, mode);
}

/* Did the log get a line containing want since the last call? */
static int logged(const char *want)
{
	static char buf[65536];
	static size_t seen;
	ssize_t n = pread(logfd, buf, sizeof(buf) - 1, 0);
	int found;

	if (n < 0)
		return 0;
	buf[n] = '\0';
	found = strstr(buf + (seen < (size_t)n ? seen : (size_t)n), want) != NULL;
	seen = (size_t)n;
	return found;
}

static int begin(struct auth *a, const struct cfg_module *m, const char *list, int protocol, char *text)
{
	snprintf(a->digests, sizeof(a->digests), "%s", list);
	a->protocol = protocol;
	return auth_begin(a, m, "host", "10.0.0.1", text, PR_TEXT_MAX);
}

static void test_negotiation(void)
{
	static const struct { const char *list; int protocol; const char *want; int old; } cases[] = {
		{ "sha512 sha256 sha1 md5 md4", 32, "sha512", 0 },
		{ "md4 md5 sha1", 31, "sha1", 0 },      /* our preference, not the client's order */
		{ "md5", 32, "md5", 0 },
		{ "md4", 27, "md4", 0 },                /* a listed md4 is the plain one */
		{ "xxh128 sha256 bogus", 32, "sha256", 0 },
		{ "", 30, "md5", 0 },                   /* no list: md5 from protocol 30 */
		{ "", 29, "md4", 1 },                   /* below it rsync's old seeded md4 */
		{ "", 27, "md4", 1 },
	};
	static const unsigned clen[] = { 22, 22, 27, 43, 86 };
	struct cfg_module m = mod("alice");
	char text[PR_TEXT_MAX], want[100];
	struct auth a;

	write_secrets("alice:pw1\n", 0600);
	CHECK(auth_init(&a) == 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;

		CHECK_MSG(begin(&a, &m, cases[i].list, cases[i].protocol, text) == 0, "list '%s'", cases[i].list);
		len = strlen(a.challenge);
		CHECK_MSG(len == clen[0] || len == clen[2] || len == clen[3] || len == clen[4], "challenge %zu", len);
		CHECK(strspn(a.challenge, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") == len);
		response(cases[i].want, cases[i].old, "pw1", a.challenge, want);
		CHECK(strlen(want) == len); /* as long as a digest of its kind, like rsyncd's */
		{
			char line[200];

			snprintf(line, sizeof(line), "alice %s", want);
			CHECK_MSG(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) == 0, "%s accepted", cases[i].want);
			/* the other md4 variant is a different digest */
			if (strcmp(cases[i].want, "md4") == 0) {
				CHECK(begin(&a, &m, cases[i].list, cases[i].protocol, text) == 0);
				response("md4", !cases[i].old, "pw1", a.challenge, want);
				snprintf(line, sizeof(line), "alice %s", want);
				CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0);
			}
		}
	}
	/* two sessions never share a challenge */
	{
		struct auth b;
		char first[PR_CHALLENGE_MAX + 1];

		snprintf(first, sizeof(first), "%s", a.challenge);
		CHECK(auth_init(&b) == 0 && begin(&b, &m, "md5", 32, text) == 0 && strcmp(first, b.challenge) != 0);
		auth_forget(&b); /* no response: the secrets read are wiped all the same */
		CHECK(b.secrets == NULL);
	}
	/* a list with none of ours */
	CHECK(begin(&a, &m, "xxh128 md6", 32, text) < 0 &&
	      strcmp(text, "@ERROR: your client does not support one of our daemon-auth checksums: "
			   "sha512 sha256 sha1 md5 md4") == 0);
	CHECK(begin(&a, &m, "sha5122 md", 32, text) < 0);
}

static void test_floor(void)
{
	struct cfg_module m = mod("alice");
	char text[PR_TEXT_MAX];
	struct auth a;

	CHECK(auth_init(&a) == 0);
	m.auth_digest = (char *)"sha256";
	CHECK(begin(&a, &m, "md5 md4", 32, text) < 0 && strcmp(text, "@ERROR: auth failed on module m") == 0);
	CHECK(logged("auth failed on module m from host (10.0.0.1): negotiated auth digest md5 is weaker "
		     "than the required 'auth digest = sha256'"));
	CHECK(begin(&a, &m, "", 29, text) < 0);
	CHECK(begin(&a, &m, "sha256 md5", 32, text) == 0);
	CHECK(begin(&a, &m, "sha512", 32, text) == 0);
	m.auth_digest = (char *)"MD5";
	CHECK(begin(&a, &m, "md5", 32, text) == 0 && begin(&a, &m, "md4", 32, text) < 0);
	m.auth_digest = (char *)"whirlpool";
	CHECK(begin(&a, &m, "sha512", 32, text) < 0 && strcmp(text, "@ERROR: auth failed on module m") == 0);
	CHECK(logged("the configured 'auth digest = whirlpool' is not a supported digest on this build"));
}

/* Log in as user with password pw on a module with these rules, the
 * groups asked of ns. */
static int login_ns(struct nsq *ns, const char *rules, const char *user, const char *pw)
{
	struct cfg_module m = mod(rules);
	char text[PR_TEXT_MAX], want[100], line[300];
	struct auth a;

	if (auth_init(&a) < 0 || begin(&a, &m, "sha256", 32, text) < 0)
		return -2;
	response("sha256", 0, pw, a.challenge, want);
	snprintf(line, sizeof(line), "%s %s", user, want);
	return auth_check_response(&a, &m, line, "host", "10.0.0.1", ns);
}

static int login(const char *rules, const char *user, const char *pw)
{
	return login_ns(&q, rules, user, pw);
}

static void test_rules(void)
{
	write_secrets("# comment\nalice:pw1\nbob:pw2\n\r\nal:pw3\n@root:grouppw\nroot:rootpw\n"
		      "carol:first\ncarol:second\nspace user:pw4\n", 0600);
	CHECK(login("alice", "alice", "pw1") == 0);
	CHECK(login("alice", "alice", "wrong") < 0 && logged("auth failed on module m from host (10.0.0.1) "
							      "for alice: password mismatch"));
	CHECK(login("alice", "carol", "first") < 0 && logged("for carol: no matching rule"));
	CHECK(login("alice bob:deny", "bob", "pw2") < 0 && logged("for bob: denied by rule"));
	CHECK(login("bob:DENY alice", "bob", "pw2") < 0);
	CHECK(login("bob:dx", "bob", "pw2") < 0);            /* only the first letter counts */
	CHECK(login("bob:ro", "bob", "pw2") == 0 && login("bob:rw", "bob", "pw2") == 0);
	CHECK(login("bob:RoX", "bob", "pw2") == 0 && login("bob:zz", "bob", "pw2") == 0);
	CHECK(login("al*:deny alice", "alice", "pw1") < 0);  /* first matching rule decides */
	CHECK(login("alice al*:deny", "alice", "pw1") == 0);
	CHECK(login("a?", "al", "pw3") == 0 && login("a?", "alice", "pw1") < 0);
	CHECK(login("alice,bob\tcarol", "bob", "pw2") == 0);
	/* the first line of a user decides, as in rsyncd */
	CHECK(login("carol", "carol", "first") == 0 && login("carol", "carol", "second") < 0);
	/* comma-only lists keep blanks inside names (a user name cannot hold
	 * one, the response line splits at the first blank: groups can) */
	CHECK(login(", bob alice:deny, alice", "alice", "pw1") == 0);
	CHECK(login("bob alice:deny, alice", "alice", "pw1") < 0);
	CHECK(login(", space user , alice", "space user", "pw4") < 0);
	CHECK(login(",, ,bob:deny,  alice ", "alice", "pw1") == 0);
	/* @group: the user's own line or the group's line */
	CHECK(login("@root", "root", "rootpw") == 0);
	CHECK(login("@root", "root", "grouppw") == 0);
	CHECK(login("@ro*t:ro", "root", "grouppw") == 0);
	CHECK(login("@root", "alice", "pw1") < 0);           /* not a system user: in no group */
	CHECK(login("@root:deny root", "root", "rootpw") < 0);
	CHECK(login("@nosuchgroup alice", "alice", "pw1") == 0);
	/* a group line never serves a user rule */
	CHECK(login("root", "root", "grouppw") < 0);
	/* a user named like a comment */
	CHECK(login("*", "# comment", "x") < 0 && logged("invalid username"));
	CHECK(login("*", "nobody-here", "x") < 0 && logged("secret not found"));
}

/* No rule is ever skipped: a :deny rule of any length applies, and when
 * the user's groups cannot be had a @group :deny rule matches while the
 * other @group rules do not. */
static void test_fail_closed(void)
{
	static char rules[4096];
	struct nsq broken;

	write_secrets("alice:pw1\nbob:pw2\nroot:rootpw\n@root:grouppw\n", 0600);
	/* a deny rule of more than 1,024 bytes (a class of 2,000 b's) */
	snprintf(rules, sizeof(rules), "[%0*d]ob:deny bob", 2000, 0);
	memset(rules + 1, 'b', 2000);
	CHECK(login(rules, "bob", "pw2") < 0 && logged("for bob: denied by rule"));
	CHECK(strcmp(rules + 2010, "bob") == 0 && login(rules + 2010, "bob", "pw2") == 0); /* the rule refused */
	/* groups that cannot be had */
	nsq_init(&broken, "the test's name service is down");
	CHECK(login_ns(&broken, "@contractors:deny alice", "alice", "pw1") < 0 && logged("for alice: denied by rule"));
	CHECK(login_ns(&broken, "@contractors:deny alice", "alice", "pw1") < 0 &&
	      logged("the groups of alice are not known (the test's name service is down)"));
	CHECK(login_ns(&broken, "@root root", "root", "grouppw") < 0 && logged("for root: password mismatch"));
	CHECK(login_ns(&broken, "@root root", "root", "rootpw") == 0); /* the allow rule did not match; root did */
	CHECK(login_ns(&broken, "@root", "root", "grouppw") < 0 && logged("for root: no matching rule"));
	/* user rules before a @group rule need no groups */
	CHECK(login_ns(&broken, "alice @x:deny", "alice", "pw1") == 0);
	/* the same, with the child answering */
	CHECK(login("@contractors:deny alice", "alice", "pw1") == 0);
	CHECK(login("@root:deny alice", "root", "rootpw") < 0 && logged("for root: denied by rule"));
}

static void test_malformed(void)
{
	struct cfg_module m = mod("alice");
	char text[PR_TEXT_MAX], want[100], line[400];
	struct auth a;

	write_secrets("alice:pw1\n:empty\n", 0600);
	CHECK(auth_init(&a) == 0 && begin(&a, &m, "md5", 32, text) == 0);
	response("md5", 0, "pw1", a.challenge, want);
	CHECK(auth_check_response(&a, &m, "", "host", "10.0.0.1", &q) < 0 && logged("invalid challenge response"));
	CHECK(begin(&a, &m, "md5", 32, text) == 0); /* one response per challenge */
	CHECK(auth_check_response(&a, &m, "alice", "host", "10.0.0.1", &q) < 0 && logged("invalid challenge response"));
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, "alice ", "host", "10.0.0.1", &q) < 0);
	snprintf(line, sizeof(line), "alice %s=", want);
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0);
	snprintf(line, sizeof(line), "alice %.*s", (int)strlen(want) - 1, want);
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0);
	snprintf(line, sizeof(line), "alice  %s", want);
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0);
	snprintf(line, sizeof(line), "alice %s extra", want);
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0);
	snprintf(line, sizeof(line), "alice %s", want);
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) == 0);
	/* control bytes in the user name are escaped in the log, as rsyncd
	 * escapes them ("\#ooo"), and a backslash that would read as one */
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, "al\033[2Jice x", "host", "10.0.0.1", &q) < 0 &&
	      logged("for al\\#033[2Jice: no matching rule"));
	CHECK(begin(&a, &m, "md5", 32, text) == 0);
	CHECK(auth_check_response(&a, &m, "a\\#033\r x", "host", "10.0.0.1", &q) < 0 &&
	      logged("for a\\#134#033\\#015: no matching rule"));
	/* the name checked is the one kept: up to PR_NAME_MAX - 1 bytes; a
	 * longer one is refused whole, and logged whole */
	{
		char lname[PR_TEXT_MAX], want_log[PR_TEXT_MAX];

		memset(lname, 'a', 900);
		snprintf(lname + 900, sizeof(lname) - 900, " x");
		snprintf(want_log, sizeof(want_log), "for %.900s: invalid username (longer than 255 bytes)", lname);
		CHECK(begin(&a, &m, "md5", 32, text) == 0);
		CHECK(auth_check_response(&a, &m, lname, "host", "10.0.0.1", &q) < 0 && logged(want_log));
		snprintf(lname + PR_NAME_MAX - 1, sizeof(lname) - (PR_NAME_MAX - 1), " x");
		CHECK(begin(&a, &m, "md5", 32, text) == 0);
		CHECK(auth_check_response(&a, &m, lname, "host", "10.0.0.1", &q) < 0 && logged(": no matching rule"));
	}
	CHECK(a.secrets == NULL); /* the check wiped what auth_begin read */
	/* no auth_begin: nothing is accepted */
	{
		struct auth none;

		CHECK(auth_init(&none) == 0 && auth_check_response(&none, &m, line, "host", "10.0.0.1", &q) < 0);
	}
}

static void test_secrets_file(void)
{
	char planted[300];

	write_secrets("alice:pw1\n", 0644);
	CHECK(login("alice", "alice", "pw1") < 0 &&
	      logged("secrets file must not be other-accessible (see strict modes option)") &&
	      logged("ignoring secrets file") == 0 /* same line already consumed */ );
	/* read at the challenge, judged in rsyncd's order at the response:
	 * the strict-modes verdict before a user named like a comment */
	CHECK(login("*", "#x", "pw1") < 0 && logged("for #x: ignoring secrets file"));
	write_secrets("alice:pw1\n", 0602);
	CHECK(login("alice", "alice", "pw1") < 0);
	write_secrets("alice:pw1\n", 0640);
	CHECK(login("alice", "alice", "pw1") == 0);   /* group bits are not consulted */
	write_secrets("alice:pw1\n", 0601);
	CHECK(login("alice", "alice", "pw1") == 0);   /* nor other-execute */
	{
		struct cfg_module m = mod("alice");
		char text[PR_TEXT_MAX], want[100], line[300];
		struct auth a;

		write_secrets("alice:pw1\n", 0666);
		m.strict_modes = 0;
		CHECK(auth_init(&a) == 0 && begin(&a, &m, "sha1", 32, text) == 0);
		response("sha1", 0, "pw1", a.challenge, want);
		snprintf(line, sizeof(line), "alice %s", want);
		CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) == 0);
		m.secrets_file = NULL;
		CHECK(begin(&a, &m, "sha1", 32, text) == 0);
		CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0 && logged("no secrets file"));
		m.secrets_file = (char *)"/nonexistent/secrets";
		CHECK(begin(&a, &m, "sha1", 32, text) == 0);
		CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0 && logged("no secrets file"));
		/* not a regular file: after the user name check, and logged only
		 * when the file is consulted */
		m.secrets_file = dir;
		m.auth_users = (char *)"*";
		CHECK(begin(&a, &m, "sha1", 32, text) == 0);
		CHECK(auth_check_response(&a, &m, "#x y", "host", "10.0.0.1", &q) < 0 && logged("for #x: invalid username"));
		CHECK(begin(&a, &m, "sha1", 32, text) == 0);
		CHECK(logged("not a regular file") == 0);
		CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0 &&
		      logged("not a regular file of at most 1 MiB"));
		/* the file is read at the challenge: a change after it is not seen */
		write_secrets("alice:pw1\n", 0600);
		m.secrets_file = secrets;
		CHECK(begin(&a, &m, "sha1", 32, text) == 0);
		write_secrets("alice:other\n", 0600);
		CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) == 0);
		/* a NUL ends a line: what follows it on that line is no entry */
		{
			static const char nul_line[] = "x\0alice:pw1\n";
			int fd = open(secrets, O_WRONLY | O_TRUNC);

			CHECK(fd >= 0 && write(fd, nul_line, sizeof(nul_line) - 1) == (ssize_t)sizeof(nul_line) - 1);
			close(fd);
			CHECK(begin(&a, &m, "sha1", 32, text) == 0);
			CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0 && logged("secret not found"));
		}
	}
	if (geteuid() == 0) {
		write_secrets("alice:pw1\n", 0600);
		CHECK(chown(secrets, 65534, (gid_t)-1) == 0);
		CHECK(login("alice", "alice", "pw1") < 0 &&
		      logged("secrets file must be owned by root when running as root (see strict modes)"));
		CHECK(chown(secrets, 0, (gid_t)-1) == 0);
		/* a link planted by another user is not followed */
		snprintf(planted, sizeof(planted), "%s/planted", dir);
		CHECK(symlink(secrets, planted) == 0 && lchown(planted, 65534, (gid_t)-1) == 0);
		{
			struct cfg_module m = mod("alice");
			char text[PR_TEXT_MAX], want[100], line[300];
			struct auth a;

			m.secrets_file = planted;
			CHECK(auth_init(&a) == 0 && begin(&a, &m, "md5", 32, text) == 0);
			response("md5", 0, "pw1", a.challenge, want);
			snprintf(line, sizeof(line), "alice %s", want);
			CHECK(auth_check_response(&a, &m, line, "host", "10.0.0.1", &q) < 0 &&
			      logged("refusing to follow a symlink owned by an untrusted user"));
		}
	}
}

int main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(secrets, sizeof(secrets), "%s/secrets", dir);
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	logfd = open(logpath, O_RDWR | O_CREAT | O_APPEND, 0600);
	log_use_fd(logfd);
	test_negotiation();
	test_floor();
	if (nsq_start(&q, geteuid() == 0, 65534, 65534, -1) < 0)
		return 1;
	test_rules();
	test_fail_closed();
	test_malformed();
	test_secrets_file();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)!system(cmd);
	}
	nsq_stop(&q);
	return unit_done("test_auth");
}
