/* SPDX-License-Identifier: ISC */
/*
 * Daemon authentication (auth.h).  Every input of auth_check_response()
 * comes from the client: the line is split once, the rules are walked once
 * (one question to the name-service child for the user's groups, at the
 * first @group rule, at most), the secrets file's lines
 * (read by secrets_load() before the challenge, from the module's
 * configuration alone) are scanned once, and the response is compared in
 * constant time.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "authusers.h"
#include "log.h"
#include "md4.h"
#include "monotime.h"
#include "nsquery.h"
#include "nsrec.h"
#include "safeopen.h"
#include "wildmatch.h"

#define SECRET_LINE 1024       /* rsyncd reads the secrets file in lines of this size */
#define SECRETS_MAX (1 << 20)  /* bytes of a secrets file read */

/* The "auth users" rules of the module auth_begin() was last called for,
 * compiled from its configuration (a session logs in to one module). */
static struct authusers users;
static const struct cfg_module *users_of;

static const struct digest {
	const char *name, *evp;
	unsigned len;
} digests[] = {
	{ "sha512", "SHA512", 64 }, { "sha256", "SHA256", 32 }, { "sha1", "SHA1", 20 },
	{ "md5", "MD5", 16 }, { "md4", NULL, 16 },
};
#define NDIGESTS (sizeof(digests) / sizeof(digests[0]))
_Static_assert(NDIGESTS == AUTH_NDIGESTS, "auth.h sizes the challenges by the digest table");
#define D_MD5 3
#define D_MD4 4

static EVP_MD *evp[NDIGESTS];

/* libcrypto is loaded here, by the sessions of a configuration that asks
 * for auth, before the monitor confines itself, rather than by the dynamic
 * linker at every exec: its 4.7 MB and ~3,000 symbol relocations were most
 * of the monitor's start (docs/performance.md, 2.0b).  The prototypes
 * still come from the OpenSSL headers, so every call is type-checked. */
#define LIBCRYPTO_SONAME "libcrypto.so.3"
#define LIBCRYPTO_FNS(X) X(OPENSSL_init_crypto) X(EVP_MD_fetch) X(EVP_MD_CTX_new) \
	X(EVP_DigestInit_ex) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex) X(EVP_MD_CTX_free) X(CRYPTO_memcmp)
static struct {
#define X(f) __typeof__(f) *f;
	LIBCRYPTO_FNS(X)
#undef X
} lc;

static int libcrypto_load(void)
{
	void *h;

	if (lc.EVP_MD_CTX_free != NULL)
		return 0;
	if ((h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		log_msg(PR_LOG_ERR, "daemon auth: cannot load %s: %s", LIBCRYPTO_SONAME, dlerror());
		return -1;
	}
#define X(f) if ((lc.f = (__typeof__(lc.f))dlsym(h, #f)) == NULL) { \
		log_msg(PR_LOG_ERR, "daemon auth: %s lacks %s", LIBCRYPTO_SONAME, #f); \
		memset(&lc, 0, sizeof(lc)); \
		return -1; \
	}
	LIBCRYPTO_FNS(X)
#undef X
	return 0;
}

/* rsync's base64: no padding. */
static void b64(const unsigned char *d, size_t len, char *out)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t bit = 0; bit < len * 8; bit += 6) {
		unsigned v = (unsigned)d[bit / 8] << 8 | (bit / 8 + 1 < len ? d[bit / 8 + 1] : 0);

		out[o++] = set[(v >> (10 - bit % 8)) & 63];
	}
	out[o] = '\0';
}

int auth_init(struct auth *a)
{
	memset(a, 0, sizeof(*a));
	a->digest = -1;
	if (libcrypto_load() < 0)
		return -1;
	if (getrandom(a->nonce, sizeof(a->nonce), 0) != (ssize_t)sizeof(a->nonce) ||
	    !lc.OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL)) {
		log_msg(PR_LOG_ERR, "daemon auth: cannot initialise: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < NDIGESTS; i++) {
		if (digests[i].evp && evp[i] == NULL)
			evp[i] = lc.EVP_MD_fetch(NULL, digests[i].evp, NULL);
		b64(a->nonce, digests[i].len, a->challenges[i]);
	}
	return 0;
}

static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static int rank(const char *name)
{
	for (size_t i = 0; i < NDIGESTS; i++)
		if (strcasecmp(name, digests[i].name) == 0)
			return (int)i;
	return -1;
}

void auth_forget(struct auth *a)
{
	if (a->secrets != NULL) {
		explicit_bzero(a->secrets, a->secrets_len);
		free(a->secrets);
	}
	a->secrets = NULL;
	a->secrets_len = 0;
}

/* A reason not to use the file (late: it ranks after the user name check),
 * and the log line it owes when a response consults it. */
static void secrets_fail(struct auth *a, const char *err, int late, int level)
{
	a->secrets_err = err;
	a->secrets_late = late;
	a->note_level = level;
}

/*
 * The module's secrets file, from its configuration alone (nothing of the
 * client's): opened without following planted links, checked as "strict
 * modes" asks, read whole with read(2) (no stdio: fdopen would call
 * fcntl, which the filtered monitor lacks), and cut into rsyncd's
 * fgets-sized lines, each stripped of its line end.  What rsyncd would
 * log about the file is kept for when a response consults it.
 */
static void secrets_load(struct auth *a, const struct cfg_module *m)
{
	char why[512];
	struct stat st;
	size_t len = 0, o = 0;
	char *raw = NULL;
	int fd;

	auth_forget(a);
	a->secrets_err = NULL;
	a->note[0] = '\0';
	if (m->secrets_file == NULL || m->secrets_file[0] == '\0') {
		secrets_fail(a, "no secrets file", 0, 0);
		return;
	}
	if ((fd = safe_open(m->secrets_file, O_RDONLY | O_NONBLOCK, 0, why, sizeof(why))) < 0) {
		if (errno != ENOENT)
			snprintf(a->note, sizeof(a->note), "secrets file %s: %s", m->secrets_file, why);
		secrets_fail(a, "no secrets file", 0, PR_LOG_WARNING);
		return;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(a->note, sizeof(a->note), "fstat(%s): %s", m->secrets_file, strerror(errno));
		secrets_fail(a, "ignoring secrets file", 0, PR_LOG_ERR);
	} else if (m->strict_modes && (st.st_mode & 06) != 0) {
		snprintf(a->note, sizeof(a->note), "secrets file must not be other-accessible (see strict modes option)");
		secrets_fail(a, "ignoring secrets file", 0, PR_LOG_INFO);
	} else if (m->strict_modes && geteuid() == 0 && st.st_uid != 0) {
		snprintf(a->note, sizeof(a->note),
			 "secrets file must be owned by root when running as root (see strict modes)");
		secrets_fail(a, "ignoring secrets file", 0, PR_LOG_INFO);
	} else if (!S_ISREG(st.st_mode) || st.st_size > SECRETS_MAX) {
		snprintf(a->note, sizeof(a->note), "secrets file %s: not a regular file of at most 1 MiB",
			 m->secrets_file);
		secrets_fail(a, "ignoring secrets file", 1, PR_LOG_ERR);
	} else if ((raw = malloc((size_t)st.st_size + 1)) == NULL ||
		   (a->secrets = malloc(2 * (size_t)st.st_size + 1)) == NULL) { /* a NUL per line at most */
		secrets_fail(a, "out of memory", 1, 0);
	}
	while (a->secrets != NULL && len < (size_t)st.st_size) {
		ssize_t r = read(fd, raw + len, (size_t)st.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	for (size_t pos = 0; a->secrets != NULL && pos < len; ) {
		const char *nl = memchr(raw + pos, '\n', len - pos);
		size_t take = nl ? (size_t)(nl - (raw + pos)) + 1 : len - pos;
		const char *s = raw + pos, *end;

		if (take > SECRET_LINE - 1)
			take = SECRET_LINE - 1;
		end = s + take;
		pos += take;
		while (s < end && (*s == '\r' || *s == '\n'))
			s++;
		while (s < end && *s != '\r' && *s != '\n' && *s != '\0') /* a NUL ends the line, as in rsyncd */
			a->secrets[o++] = *s++;
		a->secrets[o++] = '\0';
	}
	a->secrets_len = o;
	if (raw != NULL)
		explicit_bzero(raw, len);
	free(raw);
}

int auth_begin(struct auth *a, const struct cfg_module *m, const char *host, const char *addr,
	       char *text, size_t textlen)
{
	int floor = m->auth_digest ? rank(m->auth_digest) : (int)NDIGESTS;

	auth_forget(a);
	a->digest = -1;
	a->md4_old = a->digests[0] == '\0' && a->protocol < 30;
	if (a->digests[0] == '\0')
		a->digest = a->protocol >= 30 ? D_MD5 : D_MD4;
	for (size_t i = 0; i < NDIGESTS && a->digest < 0; i++)
		if ((evp[i] || !digests[i].evp) && in_list(a->digests, digests[i].name))
			a->digest = (int)i;
	if (a->digest < 0 || (digests[a->digest].evp && !evp[a->digest])) {
		log_msg(PR_LOG_INFO, "auth failed on module %s from %s (%s): the client offers none of our "
			"daemon-auth digests", m->name, host, addr);
		snprintf(text, textlen, "@ERROR: your client does not support one of our daemon-auth checksums: "
			 "sha512 sha256 sha1 md5 md4");
		return -1;
	}
	if (floor < 0 || a->digest > floor) {
		if (floor < 0)
			log_msg(PR_LOG_INFO, "auth failed on module %s from %s (%s): the configured 'auth digest = %s' "
				"is not a supported digest on this build", m->name, host, addr, m->auth_digest);
		else
			log_msg(PR_LOG_INFO, "auth failed on module %s from %s (%s): negotiated auth digest %s is weaker "
				"than the required 'auth digest = %s'", m->name, host, addr,
				digests[a->digest].name, m->auth_digest);
		snprintf(text, textlen, "@ERROR: auth failed on module %s", m->name);
		return -1;
	}
	users_of = NULL;
	if (authusers_compile(&users, m->auth_users) < 0) {
		log_msg(PR_LOG_ERR, "daemon auth: module %s: the auth users rules cannot be compiled (out of memory)",
			m->name);
		snprintf(text, textlen, "@ERROR: auth failed on module %s", m->name);
		return -1;
	}
	users_of = m;
	memcpy(a->challenge, a->challenges[a->digest], sizeof(a->challenge));
	secrets_load(a, m);
	return 0;
}

/*
 * The response rsyncd expects for password pw: the chosen digest of pw
 * and our challenge, in base64.  Nothing of the client's comes in: pw is
 * a line of the operator's secrets file and the challenge is ours; the
 * client only chose the digest, an index into digests[] (and the seeded
 * md4 of old protocols).  A digest that cannot be computed gives "".
 */
static void expected_response(const struct auth *a, const char *pw, char want[PR_CHALLENGE_MAX + 1])
{
	static const unsigned char seed[4]; /* rsync's old md4 starts with the 4-byte seed 0 */
	unsigned char d[64];
	int ok = 1;

	if (a->digest == D_MD4) {
		struct md4_ctx c;

		md4_init(&c);
		if (a->md4_old)
			md4_update(&c, seed, sizeof(seed));
		md4_update(&c, pw, strlen(pw));
		md4_update(&c, a->challenge, strlen(a->challenge));
		md4_final(&c, d);
		explicit_bzero(&c, sizeof(c));
	} else {
		EVP_MD_CTX *c = lc.EVP_MD_CTX_new ? lc.EVP_MD_CTX_new() : NULL;

		ok = c != NULL && lc.EVP_DigestInit_ex(c, evp[a->digest], NULL) &&
		     lc.EVP_DigestUpdate(c, pw, strlen(pw)) &&
		     lc.EVP_DigestUpdate(c, a->challenge, strlen(a->challenge)) && lc.EVP_DigestFinal_ex(c, d, NULL);
		if (c != NULL)
			lc.EVP_MD_CTX_free(c); /* cleanses its state */
	}
	b64(d, digests[a->digest].len, want);
	if (!ok)
		want[0] = '\0';
	explicit_bzero(d, sizeof(d));
}

/* Does resp answer the challenge for password pw?  Constant time in the
 * bytes compared; a digest that cannot be computed never matches. */
static int answers(const struct auth *a, const char *pw, const char *resp)
{
	char want[PR_CHALLENGE_MAX + 1];
	int ok;

	expected_response(a, pw, want);
	/* CRYPTO_memcmp: time independent of where they differ */
	ok = want[0] != '\0' && strlen(resp) == strlen(want) && lc.CRYPTO_memcmp(resp, want, strlen(want)) == 0;
	explicit_bzero(want, sizeof(want));
	return ok;
}

/* The secrets file's verdict for user (or the @group whose rule matched):
 * NULL when resp answers one of their passwords, else rsyncd's reason. */
static const char *check_secret(const struct auth *a, const char *user, const char *group, const char *resp)
{
	const char *err = "secret not found", *want[2] = { user, group };

	if (a->note[0] != '\0' && (a->secrets_err == NULL || !a->secrets_late || user[0] != '#'))
		log_msg((enum pr_log_level)a->note_level, "%s", a->note);
	/* rsyncd's order: no file or its modes, then the user name (a '#'
	 * would match a comment), then the late reasons (secrets_late) */
	if (user[0] == '#' && (a->secrets_err == NULL || a->secrets_late))
		return "invalid username";
	if (a->secrets_err != NULL)
		return a->secrets_err;
	for (const char *s = a->secrets; s != NULL && s < a->secrets + a->secrets_len && (want[0] || want[1]);
	     s += strlen(s) + 1) {
		int g = s[0] == '@';
		size_t n;

		if (want[g] == NULL || strncmp(s + g, want[g], n = strlen(want[g])) != 0 || s[g + n] != ':')
			continue;
		if (answers(a, s + g + n + 1, resp))
			return NULL;
		err = "password mismatch";
		want[g] = NULL; /* one line per name, as rsyncd */
	}
	return err;
}

/*
 * The first of module m's "auth users" rules (authusers.h, compiled by
 * auth_begin) that matches user, in rsyncd's order: 'd' (:deny), 'r'
 * (:ro), 'w' (:rw) or ' ' (none); 0 if none matches.  A @group rule
 * names the matched group in group.  The user's groups are asked of the
 * name-service child at the first @group rule; if that fails, a @group
 * rule with :deny matches and any other @group rule does not: a rule is
 * never skipped in the client's favour.
 */
static int match_rule(const struct cfg_module *m, const char *user, char *group, size_t grouplen, struct nsq *q)
{
	struct nsq_groups g = { 0 };
	int got = 0, kind = 0; /* got: 1 the groups are known, -1 asking failed */
	char clean[PR_TEXT_MAX * 4 + 1];

	if (m != users_of)
		return 0;
	for (size_t k = 0; k < users.n && kind == 0; k++) {
		const struct authuser_rule *r = &users.r[k];

		if (!r->group) {
			if (pr_wild_run(r->prog, user, strlen(user), PR_WILD_START))
				kind = r->kind;
			continue;
		}
		if (got == 0 && (got = nsq_groups(q, user, now_ms() + NSQ_TIMEOUT_MS, &g) == 0 ? 1 : -1) < 0) {
			log_sanitize(clean, sizeof(clean), user);
			log_msg(PR_LOG_WARNING, "auth users of module %s: the groups of %s are not known (%s): "
				"a @group rule with :deny matches, the others do not", m->name, clean, q->why);
		}
		if (got < 0) {
			if (r->kind == 'd')
				kind = 'd';
			continue;
		}
		for (size_t i = 0; i < g.n && kind == 0; i++) {
			if (pr_wild_run(r->prog, g.name[i], strlen(g.name[i]), PR_WILD_START)) {
				snprintf(group, grouplen, "%s", g.name[i]);
				kind = r->kind;
			}
		}
	}
	nsq_groups_free(&g);
	return kind;
}

int auth_check_response(struct auth *a, const struct cfg_module *m, const char *line, const char *host,
			const char *addr, struct nsq *q)
{
	const char *sp = strchr(line, ' '), *err;
	char user[PR_TEXT_MAX], group[NSREC_TEXT_MAX + 1] = "", clean[LOG_ESCAPED(PR_TEXT_MAX)];
	int kind;

	if (sp == NULL || a->digest < 0) {
		auth_forget(a);
		log_msg(PR_LOG_INFO, "auth failed on module %s from %s (%s): invalid challenge response",
			m->name, host, addr);
		return -1;
	}
	snprintf(user, sizeof(user), "%.*s", (int)(sp - line), line);
	/* The name checked is the one the session keeps, logs and expands
	 * (up to PR_NAME_MAX - 1 bytes, as the transfer log's): a longer one
	 * is refused before any rule sees it (rsyncd checks it, up to its
	 * 5 KiB line).  Control bytes are checked as they are, as rsyncd
	 * does, and escaped wherever the name is logged. */
	if (strlen(user) >= PR_NAME_MAX)
		err = "invalid username (longer than 255 bytes)";
	else if ((kind = match_rule(m, user, group, sizeof(group), q)) == 0)
		err = "no matching rule";
	else
		err = kind == 'd' ? "denied by rule" : check_secret(a, user, group[0] ? group : NULL, sp + 1);
	auth_forget(a);
	if (err == NULL)
		return 0;
	log_sanitize(clean, sizeof(clean), user);
	log_msg(PR_LOG_INFO, "auth failed on module %s from %s (%s) for %s: %s", m->name, host, addr, clean, err);
	return -1;
}
