/* SPDX-License-Identifier: ISC */
/*
 * rsyncd.conf directives: the table of every directive rsync 3.5.0's
 * rsyncd.conf(5) documents, and what each does to the configuration.  The
 * file's syntax (lines, sections, &include/&merge, messages) is in
 * cfgtext.c.
 *
 * Every directive has a row in one of three classes (docs/configuration.md):
 * honoured; meaningless for a daemon that only sends (accepted quietly); or
 * unsafe to ignore (refused, with what to do instead).  The directives other
 * work is implementing are refused (K_NEEDED: ignoring them would expose
 * files) or accepted with a warning that says what ignoring them means.
 *
 * Corners, checked against stock rsync 3.5.0:
 *  - Defaults are positional, as rsyncd.conf(5) documents: a module starts
 *    from the default values in effect at its header.  (Stock 3.5.0 leaks a
 *    later [global] string such as 'comment' back into earlier modules that
 *    did not set it; we do not reproduce that.)
 *  - A global parameter inside a module is ignored with a warning, as
 *    stock ignores it; so is an unknown parameter.
 *  - Values are read as stock's loadparm reads them, so every file it
 *    serves loads: numbers by atoi(3), booleans without case or blanks,
 *    a bad boolean or facility name ignored (the value stays), unset/-1
 *    for the three-state booleans; each odd value gets a warning saying
 *    what it became (docs/configuration.md section 2).
 *  - %VAR% references are expanded as the value is read (cfgvars.h).
 *  - Keys also ignore '_', which stock does not; this only accepts more.
 *  - Stock serves a relative 'path' from its working directory; an error
 *    here.
 *  - An empty value for an optional string (address, uid, ...) means unset,
 *    which also lets a module cancel a global default ("gid =").
 *  - "daemon uid"/"daemon gid": rsyncd, once it runs as them, cannot switch
 *    to a module's uid/gid; files are read as the daemon's identity, and so
 *    every module here reads as them.
 */
#include "config.h"
#include "hosts.h"
#include "safeopen.h"
#include "hostlist.h"
#include "msg.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cfgfile.h"
#include "cfgparse.h"
#include "cfgvars.h"
#include "chmod.h"
#include "sockopts.h"

#define CFG_VALUE_MAX 1024   /* refuse options, outgoing chmod: the worker's copies */

enum scope {
	S_GLOBAL, /* daemon-wide; ignored with a warning inside a module, as stock */
	S_MODULE, /* per module; in the global section it sets a default */
	S_DAEMON, /* per module in rsyncd, only the global value is honoured */
	S_BOTH,   /* per module; the global section's value is also kept as the
		   * session's own before selection (.goff) */
};

enum kind {
	K_STR,     /* string, stored */
	K_OPTSTR,  /* string, stored; empty means unset (NULL) */
	K_BOOL,    /* rsyncd's words; a bad one is ignored with a warning */
	K_BOOL3,   /* likewise, and "unset"/"-1" store .lo (rsyncd's Unset) */
	K_INT,     /* prsyncd's own numbers: decimal digits in .lo..hi */
	K_NUM,     /* rsyncd's numbers: read as atoi(3) reads them, then .fit */
	K_FACILITY, /* a syslog facility, by name or by its code */
	K_REFUSED, /* unsafe to ignore, not supported: always an error (.why: what to do) */
	K_NEEDED,  /* not implemented yet, and ignoring it would expose files */
	K_IGNORED, /* not implemented yet, harmless to ignore: one warning (.why: the consequence) */
	K_QUIET,   /* meaningless for a daemon that only sends: accepted quietly */
	K_FILTER,  /* filter rules (kind in .lo), checked, stored as text */
	K_FILTER_FROM, /* likewise, read from the named file at load */
};

struct param {
	const char *name; /* spelled as in rsyncd.conf(5), used in messages */
	enum scope scope;
	enum kind kind;
	size_t off; /* in struct cfg, or struct cfg_module for S_MODULE and S_BOTH */
	size_t goff; /* S_BOTH: in struct cfg */
	int lo, hi; /* K_INT range; K_BOOL3: the value "unset" stores */
	/* Extra validation, may normalise the value in place; returns the
	 * reason it is wrong, or NULL. */
	const char *(*check)(char *val);
	/* K_NUM: what a value rsyncd accepts but prsyncd cannot keep as it
	 * is becomes (in place), and what that means; NULL when it is kept.
	 * A "!" first means rsyncd cannot use it either: an error. */
	const char *(*fit)(int *v);
	const char *zero; /* K_NUM: what 0 means, for the warning about a non-number */
	/* A value rsyncd takes but cannot use (it logs that at each
	 * connection and goes on without it): the reason; the directive is
	 * then left unset, with a warning. */
	const char *(*soft)(char *val);
	/* A value kept as it is, with a warning (NULL: nothing to say). */
	const char *(*note)(char *val);
	const char *why; /* K_REFUSED: what to do; K_IGNORED: what ignoring it means */
};

static const char *check_absolute(char *val);
static const char *check_path(char *val);
static const char *fit_port(int *v);
static const char *fit_backlog(int *v);
static const char *fit_timeout(int *v);
static const char *fit_verbosity(int *v);
static const char *check_nonempty(char *val);
static const char *check_dont_compress(char *val);
static const char *check_hosts(char *val);
static const char *check_short(char *val);
static const char *check_chmod(char *val);
static const char *check_charset(char *val);
static const char *check_sockopts(char *val) { return sockopts_check(val); }
static const char *note_sockopts(char *val) { return sockopts_unknown(val); }
static const char *check_tag(char *val);
static const char *check_proxy_hosts(char *val);
static const char *check_log_format(char *val);

#define G(field) offsetof(struct cfg, field)
#define M(field) offsetof(struct cfg_module, field)

static const char exec_why[] =
	"prsyncd never runs programs for a connection; remove it, or keep this module on rsyncd";

static const struct param params[] = {
	/* Global, honoured. */
	{ "port", S_GLOBAL, .kind = K_NUM, .off = G(port), .fit = fit_port,
	  .zero = "rsyncd's default port, 873" },
	{ "address", S_GLOBAL, .kind = K_OPTSTR, .off = G(address) },
	{ "pid file", S_GLOBAL, .kind = K_OPTSTR, .off = G(pid_file) },
	{ "motd file", S_GLOBAL, .kind = K_OPTSTR, .off = G(motd_file) },
	{ "listen backlog", S_GLOBAL, .kind = K_NUM, .off = G(listen_backlog), .fit = fit_backlog },
	/* Global values, and the modules' defaults (modlog.c). */
	{ "log file", S_BOTH, .kind = K_OPTSTR, .off = M(log_file), .goff = G(log_file) },
	{ "syslog facility", S_BOTH, .kind = K_FACILITY, .off = M(syslog_facility),
	  .goff = G(syslog_facility) },
	{ "syslog tag", S_BOTH, .kind = K_STR, .off = M(syslog_tag),
	  .goff = G(syslog_tag), .check = check_tag },
	/* Read by the session monitor before the worker exists (proxy.c). */
	{ "proxy protocol", S_GLOBAL, .kind = K_BOOL, .off = G(proxy_protocol) },
	{ "proxy protocol hosts", S_GLOBAL, .kind = K_OPTSTR,
	  .off = G(proxy_protocol_hosts), .check = check_proxy_hosts },
	{ "daemon uid", S_GLOBAL, .kind = K_OPTSTR, .off = G(daemon_uid) },
	{ "daemon gid", S_GLOBAL, .kind = K_OPTSTR, .off = G(daemon_gid) },
	/* Global, prsyncd's own. */
	{ "worker user", S_GLOBAL, .kind = K_STR, .off = G(worker_user),
	  .check = check_nonempty },
	{ "worker chroot", S_GLOBAL, .kind = K_STR, .off = G(worker_chroot),
	  .check = check_absolute },
	{ "handshake timeout", S_GLOBAL, .kind = K_INT,
	  .off = G(handshake_timeout), .lo = 1, .hi = 3600 },
	{ "max connections per host", S_GLOBAL, .kind = K_INT,
	  .off = G(max_connections_per_host), .lo = 0, .hi = 1000000 },
	/* Global in rsyncd, not honoured. */
	{ "socket options", S_GLOBAL, .kind = K_OPTSTR, .off = G(socket_options), .check = check_sockopts,
	  .note = note_sockopts },
	{ "daemon chroot", S_GLOBAL, .kind = K_REFUSED,
	  .why = "module paths would not be taken inside it; prefix every 'path' with it and "
		 "remove it (prsyncd confines each session to its module anyway)" },

	/* Module, honoured. */
	{ "path", S_MODULE, .kind = K_STR, .off = M(path),
	  .check = check_path },
	{ "comment", S_MODULE, .kind = K_STR, .off = M(comment) },
	{ "list", S_MODULE, .kind = K_BOOL, .off = M(list) },
	{ "read only", S_MODULE, .kind = K_BOOL, .off = M(read_only) },
	{ "write only", S_MODULE, .kind = K_BOOL, .off = M(write_only) },
	{ "uid", S_MODULE, .kind = K_OPTSTR, .off = M(uid) },
	{ "gid", S_MODULE, .kind = K_OPTSTR, .off = M(gid) },
	{ "use chroot", S_MODULE, .kind = K_BOOL3, .off = M(use_chroot), .lo = 1 },
	{ "numeric ids", S_MODULE, .kind = K_BOOL3, .off = M(numeric_ids), .lo = -1 },
	/* Module filters, enforced by the monitor (modfilter.c, fsreq.c). */
	{ "filter", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_FILTER]), .lo = CFG_F_FILTER },
	{ "include from", S_MODULE, .kind = K_FILTER_FROM, .off = M(filt[CFG_F_INCLUDE_FROM]),
	  .lo = CFG_F_INCLUDE_FROM },
	{ "include", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_INCLUDE]), .lo = CFG_F_INCLUDE },
	{ "exclude from", S_MODULE, .kind = K_FILTER_FROM, .off = M(filt[CFG_F_EXCLUDE_FROM]),
	  .lo = CFG_F_EXCLUDE_FROM },
	{ "exclude", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_EXCLUDE]), .lo = CFG_F_EXCLUDE },
	/* Module, access control and authentication, decided by the session
	 * monitor (src/monitor/access.c, auth.c).  The global "reverse lookup"
	 * also decides whether the name is looked up at connect time. */
	{ "hosts allow", S_MODULE, .kind = K_OPTSTR, .off = M(hosts_allow), .check = check_hosts },
	{ "hosts deny", S_MODULE, .kind = K_OPTSTR, .off = M(hosts_deny), .check = check_hosts },
	{ "reverse lookup", S_MODULE, .kind = K_BOOL, .off = M(reverse_lookup) },
	{ "forward lookup", S_MODULE, .kind = K_BOOL, .off = M(forward_lookup) },
	{ "auth users", S_MODULE, .kind = K_OPTSTR, .off = M(auth_users) },
	{ "secrets file", S_MODULE, .kind = K_OPTSTR, .off = M(secrets_file) },
	{ "auth digest", S_MODULE, .kind = K_OPTSTR, .off = M(auth_digest) },
	{ "strict modes", S_MODULE, .kind = K_BOOL, .off = M(strict_modes) },
	/* Counted by the listener (listener.c); a negative value refuses
	 * every client, as in rsyncd. */
	{ "max connections", S_MODULE, .kind = K_NUM, .off = M(max_connections),
	  .zero = "no limit" },
	{ "lock file", S_MODULE, .kind = K_OPTSTR, .off = M(lock_file) },
	/* Formatted by the session monitor from the worker's records (xferlog.c). */
	{ "transfer logging", S_MODULE, .kind = K_BOOL, .off = M(transfer_logging) },
	{ "log format", S_MODULE, .kind = K_STR, .off = M(log_format),
	  .check = check_log_format },
	/* Symlinks sent (the worker, links.c; the monitor for a munging module). */
	{ "munge symlinks", S_MODULE, .kind = K_BOOL3, .off = M(munge_symlinks), .lo = -1 },
	{ "insecure links", S_MODULE, .kind = K_BOOL, .off = M(insecure_links) },
	/* Client silence, enforced by the worker (conn.c); in the global
	 * section also the bound on the text phase before selection. */
	{ "timeout", S_MODULE, .kind = K_NUM, .off = M(timeout), .fit = fit_timeout,
	  .zero = "no timeout" },
	{ "dont compress", S_MODULE, .kind = K_STR, .off = M(dont_compress),
	  .check = check_dont_compress },
	/* What the sender sends: the worker (refuse.c, chmod.c, charset.c),
	 * the monitor for readability (fsreq.c). */
	{ "refuse options", S_MODULE, .kind = K_OPTSTR, .off = M(refuse_options), .check = check_short },
	{ "max verbosity", S_MODULE, .kind = K_NUM, .off = M(max_verbosity), .fit = fit_verbosity,
	  .zero = "a client's -v is cut to none" },
	{ "ignore nonreadable", S_MODULE, .kind = K_BOOL, .off = M(ignore_nonreadable) },
	{ "ignore errors", S_MODULE, .kind = K_BOOL, .off = M(ignore_errors) },
	{ "outgoing chmod", S_MODULE, .kind = K_OPTSTR, .off = M(outgoing_chmod), .check = check_short,
	  .soft = check_chmod },
	{ "charset", S_MODULE, .kind = K_OPTSTR, .off = M(charset), .check = check_charset },
	{ "open noatime", S_MODULE, .kind = K_BOOL3, .off = M(open_noatime), .lo = 0 },

	/* Module, refused: ignoring them would run with something else than
	 * what the administrator configured. */
	{ "early exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "pre-xfer exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "post-xfer exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "name converter", S_MODULE, .kind = K_REFUSED,
	  .why = "prsyncd never runs programs for a connection; remove it: owner names come from "
		 "the system's user and group databases (or none with 'numeric ids = yes')" },
	/* Module, meaningless for a daemon that only sends: they concern
	 * uploads (which are refused), or what the daemon runs as (prsyncd's
	 * processes have their own fixed identities, docs/configuration.md). */
	{ "fake super", S_MODULE, .kind = K_BOOL, .off = M(fake_super) },
	{ "incoming chmod", S_MODULE, .kind = K_QUIET },
	{ "temp dir", S_MODULE, .kind = K_QUIET },
};



#define NPARAMS (sizeof params / sizeof params[0])
_Static_assert(NPARAMS <= CFG_NPARAMS_MAX, "struct parser's warned[] is too small");

static const struct param *find_param(const char *key);

/* One warning per parameter per file: a module-per-stanza file would
 * otherwise repeat the same line hundreds of times. */
__attribute__((format(printf, 3, 4)))
static int warn_once(struct parser *p, const struct param *e,
		     const char *fmt, ...)
{
	/* e may be a copy (a global value of an S_BOTH row): by name */
	size_t i = (size_t)(find_param(e->name) - params);
	va_list ap;
	int rc;

	if (p->warned[i])
		return 0;
	p->warned[i] = 1;
	va_start(ap, fmt);
	rc = cfg_vwarn(p, p->line, fmt, ap);
	va_end(ap);
	return rc;
}

/* rsyncd's own words, so the operator finds them in its documentation. */
#define PROXY_NO_HOSTS "\"proxy protocol = true\" but \"proxy protocol hosts\" is unset: " \
	"all connections will be rejected as untrusted proxy peers.  Set \"proxy protocol hosts\" " \
	"to your trusted proxy's address."

static int add_warning(struct parser *p, const char *text)
{
	char *msg = strdup(text), **grown;

	grown = msg ? realloc(p->cfg->warnings, (p->cfg->nwarnings + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(msg);
		return fail(p, "out of memory");
	}
	grown[p->cfg->nwarnings++] = msg;
	p->cfg->warnings = grown;
	return 0;
}

/* Each session opens every module's own log file before its worker
 * exists (modlog.h): a bounded number of them. */
static int check_module_logs(struct parser *p, const struct cfg *c)
{
	size_t distinct = 0;

	for (size_t i = 0; i < c->nmodules; i++) {
		const char *f = c->modules[i].log_file;
		size_t j;

		if (f == NULL || (c->log_file && strcmp(f, c->log_file) == 0))
			continue;
		for (j = 0; j < i; j++)
			if (c->modules[j].log_file && strcmp(c->modules[j].log_file, f) == 0)
				break;
		if (j == i && ++distinct > CFG_MODLOG_FILES_MAX)
			return cfg_fail_at(p, c->modules[i].line, "module [%s]: more than %d distinct module 'log file's",
				       c->modules[i].name, CFG_MODLOG_FILES_MAX);
	}
	return 0;
}

static int lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Keys compare without case or blanks, as in rsyncd; '_' is dropped too so
 * "read_only" from other tools' habits still means "read only". */
static int ignorable_in_key(char ch)
{
	return cfg_is_blank(ch) || ch == '_';
}

static int key_eq(const char *a, const char *b)
{
	for (;;) {
		while (ignorable_in_key(*a))
			a++;
		while (ignorable_in_key(*b))
			b++;
		if (!*a || !*b)
			return *a == *b;
		if (lower(*a) != lower(*b))
			return 0;
		a++;
		b++;
	}
}

static const struct param *find_param(const char *key)
{
	size_t i;

	for (i = 0; i < NPARAMS; i++)
		if (key_eq(key, params[i].name))
			return &params[i];
	return NULL;
}

static const char *check_absolute(char *val)
{
	return val[0] == '/' ? NULL : "must be an absolute path";
}

/* rsyncd drops a path's trailing slashes ("/srv/x/" is "/srv/x"). */
static const char *check_path(char *val)
{
	size_t n = strlen(val);

	while (n > 1 && val[n - 1] == '/')
		val[--n] = '\0';
	return check_absolute(val);
}

/* It travels to the worker in one bounded string (PR_TEXT_MAX). */
static const char *check_dont_compress(char *val)
{
	return strlen(val) < CFG_DONT_COMPRESS_MAX ? NULL : "is too long (1023 bytes at most)";
}

/* A malformed address or mask would never match: in a deny list that
 * would admit the hosts it names, so it is an error here, where rsyncd
 * logs it at each connection and carries on. */
static const char *check_hosts(char *val)
{
	static char msg[HOSTS_TOKEN_MAX + 64];
	char bad[HOSTS_TOKEN_MAX + 1];
	const char *why = hosts_check(val, bad, sizeof(bad));

	if (why == NULL)
		return NULL;
	snprintf(msg, sizeof(msg), "%s (\"%.80s\")", why, bad);
	return msg;
}

/* Values the worker receives in one bounded string (PR_TEXT_MAX). */
static const char *check_short(char *val)
{
	return strlen(val) < CFG_VALUE_MAX ? NULL : "is too long (1023 bytes at most)";
}

/* rsyncd logs 'Invalid "outgoing chmod" directive' at each connection
 * and sends the modes unchanged. */
static const char *check_chmod(char *val)
{
	static struct chmod_rules rules; /* 4 KiB: not on the stack */

	return chmod_parse(&rules, val, 0) == 0 ? NULL
		: "is not a valid chmod string: rsyncd logs that at each connection and sends the "
		  "modes unchanged, and so does prsyncd (without the log line)";
}

/* An iconv charset name; whether this system's iconv knows it is checked
 * by --check-config and, for a client, by the worker. */
static const char *check_charset(char *val)
{
	const unsigned char *c;

	if (strlen(val) > 255)
		return "is too long (255 bytes at most)";
	for (c = (const unsigned char *)val; *c; c++)
		if (*c <= ' ' || *c > '~')
			return "is not a charset name (printable characters, no blanks)";
	return NULL;
}

static const char *check_nonempty(char *val)
{
	return val[0] ? NULL : "must not be empty";
}

/* Numeric tokens only: rsyncd matches "proxy protocol hosts" against the
 * peer's address before any name lookup, so a host name never matches. */
static const char *check_proxy_hosts(char *val)
{
	static char why[160];

	return hostlist_check(val, why, sizeof why) < 0 ? why : NULL;
}

/* The tag goes into every syslog record's header. */
static const char *check_tag(char *val)
{
	for (const unsigned char *c = (const unsigned char *)val; *c; c++)
		if (*c <= ' ' || *c == 0x7f || *c == ':' || *c == '[')
			return "must not contain blanks, control characters, ':' or '['";
	return val[0] && strlen(val) <= CFG_TAG_MAX ? NULL : "must be 1 to 200 bytes";
}

/* Bounds the work and the line of each transfer record (xferlog.c). */
static const char *check_log_format(char *val)
{
	return strlen(val) <= CFG_LOG_FORMAT_MAX ? NULL : "is too long (512 bytes at most)";
}

static const struct { const char *name; int code; } facilities[] = {
	{ "auth", 4 << 3 }, { "authpriv", 10 << 3 }, { "cron", 9 << 3 }, { "daemon", 3 << 3 },
	{ "ftp", 11 << 3 }, { "kern", 0 }, { "lpr", 6 << 3 }, { "mail", 2 << 3 },
	{ "news", 7 << 3 }, { "security", 4 << 3 }, { "syslog", 5 << 3 }, { "user", 1 << 3 },
	{ "uucp", 8 << 3 }, { "local0", 16 << 3 }, { "local1", 17 << 3 }, { "local2", 18 << 3 },
	{ "local3", 19 << 3 }, { "local4", 20 << 3 }, { "local5", 21 << 3 }, { "local6", 22 << 3 },
	{ "local7", 23 << 3 },
};
#define NFACILITIES (sizeof facilities / sizeof facilities[0])

/* rsyncd takes a name (any case), else a positive number as the code
 * itself; anything else leaves the value as it was.  The name is what is
 * stored, lower-case, so the logger can compare names exactly.  Returns
 * the name, or NULL. */
static const char *facility_name(const char *val, int *number)
{
	long long n;

	*number = 0;
	for (size_t i = 0; i < NFACILITIES; i++)
		if (strcasecmp(val, facilities[i].name) == 0)
			return facilities[i].name;
	n = rsyncd_atoi(val, NULL);
	if (n <= 0)
		return NULL;
	*number = (int)n;
	for (size_t i = 0; i < NFACILITIES; i++)
		if (facilities[i].code == n)
			return facilities[i].name;
	return NULL;
}

/* Decimal digits only: "80x" or "+80" is a typo, not a port.  For
 * prsyncd's own directives; rsyncd's are read as rsyncd reads them. */
static int parse_int(const char *s, int lo, int hi, int *out)
{
	long long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > (long long)INT_MAX)
			return -1;
	}
	if (v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* What rsyncd's atoi(3) makes of a value (glibc: strtol's long, then
 * cut to an int): leading blanks and one sign, the leading digits, else
 * 0; "10k" is 10, "yes" 0, "4294967297" 1.  *plain says whether the text
 * was exactly that number. */
int rsyncd_atoi(const char *s, int *plain)
{
	const char *p = s, *digits;
	unsigned long long v = 0;
	int neg = 0, over = 0;

	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (plain)
		*plain = p == s;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (digits = p; *p >= '0' && *p <= '9'; p++) {
		if (v > ((unsigned long long)LLONG_MAX - 9) / 10)
			over = 1;
		else
			v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (plain)
		*plain = *plain && p > digits && !*p && !over && v <= (unsigned long long)INT_MAX + (unsigned)neg;
	if (over)  /* strtol's LONG_MAX (LONG_MIN), cut to an int, is -1 (0) */
		return neg ? 0 : -1;
	return (int)(uint32_t)(neg ? 0 - (uint64_t)v : (uint64_t)v);
}

/* rsyncd compares words without case and blanks: "Y e s" is yes. */
static int word_eq(const char *a, const char *b)
{
	for (;;) {
		while (cfg_is_blank(*a) || *a == '\n')
			a++;
		while (cfg_is_blank(*b) || *b == '\n')
			b++;
		if (!*a || !*b)
			return *a == *b;
		if (lower(*a) != lower(*b))
			return 0;
		a++;
		b++;
	}
}

int cfg_parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "1" };
	static const char *const no[] = { "no", "false", "0" };
	size_t i;

	if (!v)
		return -1;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (word_eq(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (word_eq(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* K_NUM rows: a value rsyncd reads, as prsyncd can keep it. */
static const char *fit_port(int *v)
{
	if (*v == 0) {
		*v = 873;
		return NULL;
	}
	return *v < 0 || *v > 65535 ? "!is not a port number: rsyncd cannot listen on it either" : NULL;
}

/* rsyncd hands the value to listen(2) as it is; prsyncd keeps its own
 * default below 1 (a queue length, nothing a client can tell). */
static const char *fit_backlog(int *v)
{
	return *v < 1 ? "prsyncd listens with its default backlog, 64" : NULL;
}

static const char *fit_timeout(int *v)
{
	if (*v < 0) {
		*v = 0;
		return "a negative timeout is no timeout, in rsyncd as here";
	}
	if (*v > (int)PR_TIMEOUT_MAX) {
		*v = (int)PR_TIMEOUT_MAX;
		return "prsyncd waits at most 1000000 s (11 days; rsyncd, in effect, for ever)";
	}
	return NULL;
}

static const char *fit_verbosity(int *v)
{
	if (*v < 0) {
		*v = 0;
		return "prsyncd cuts a client's -v to none, as for 0 (rsyncd also drops its "
		       "messages about skipped non-regular files)";
	}
	if (*v > (int)PR_VERBOSITY_MAX) {
		*v = (int)PR_VERBOSITY_MAX; /* anything above 5 is no limit, in rsyncd as here */
		return NULL;
	}
	return NULL;
}

#define FREE_STR(f) free(m->f);
#define FREE_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) free(m->f[i_]);
#define NOTHING(f)

void cfg_module_free(struct cfg_module *m)
{
	CFG_MODULE_FIELDS(FREE_STR, NOTHING, FREE_STRV)
	memset(m, 0, sizeof *m);
}

static int dup_opt(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -1 : 0;
}

/* A new module starts as a deep copy of the defaults in effect (the name
 * is the caller's to set). */
#define COPY_STR(f) if (dup_opt(&dst->f, src->f)) bad = 1;
#define COPY_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) if (dup_opt(&dst->f[i_], src->f[i_])) bad = 1;

int cfg_module_copy(struct cfg_module *dst, const struct cfg_module *src)
{
	int bad = 0;

	*dst = *src;
	CFG_MODULE_FIELDS(COPY_STR, NOTHING, COPY_STRV)
	free(dst->name);
	dst->name = NULL;
	if (bad) {
		cfg_module_free(dst);
		return -1;
	}
	return 0;
}

static int *int_field(void *base, size_t off)
{
	return (int *)(void *)((char *)base + off);
}

static char **str_field(void *base, size_t off)
{
	return (char **)(void *)((char *)base + off);
}

/* A filter directive: the rules (or the named file's) must parse; the text
 * is kept for the monitor to compile after selection.  rsyncd fails the
 * connection on an unreadable "from" file; failing the load says so
 * earlier. */
static int apply_filter(struct parser *p, const struct param *e, void *base, const char *val)
{
	char why[256], *text = NULL;

	if (!val[0]) {
		if (base) {
			free(*str_field(base, e->off));
			*str_field(base, e->off) = NULL;
		}
		return 0;
	}
	if (e->kind == K_FILTER_FROM) {
		size_t len;

		if (cfgfile_read(val, MODFILTER_FILE_MAX, &text, &len, why, sizeof why) < 0)
			return fail(p, "'%s': %s: %s", e->name, val, why);
	} else if ((text = strdup(val)) == NULL) {
		return fail(p, "out of memory");
	}
	if (modfilter_add(NULL, (enum cfg_filt)e->lo, text, why, sizeof why) < 0) {
		free(text);
		return fail(p, "'%s': %s", e->name, why);
	}
	if (!base) {
		free(text);
		return 0;
	}
	free(*str_field(base, e->off));
	*str_field(base, e->off) = text;
	return 0;
}

/* The value in effect before this line: the default, the global
 * section's, or the module's own earlier one. */
static const char *bool_shown(int v)
{
	return v < 0 ? "unset" : v ? "yes" : "no";
}

/* A word rsyncd's boolean parser does not know: rsyncd logs "Badly formed
 * boolean" and leaves the value as it was, and so does prsyncd. */
static int bad_bool(struct parser *p, const struct param *e, void *base, const char *val)
{
	return warn_once(p, e, "'%s = %.80s' is not yes/no, true/false or 1/0%s: rsyncd ignores the line "
			 "(\"Badly formed boolean\"), and so does prsyncd: the value stays %s",
			 e->name, val, e->kind == K_BOOL3 ? " (or unset/-1)" : "",
			 base ? bool_shown(*int_field(base, e->off)) : "as it was");
}

static int apply_bool(struct parser *p, const struct param *e, void *base, const char *val)
{
	int b;

	if (cfg_parse_bool(val, &b) == 0)
		;
	else if (e->kind == K_BOOL3 && (word_eq(val, "unset") || word_eq(val, "-1")))
		b = e->lo;
	else
		return bad_bool(p, e, base, val);
	if (base)
		*int_field(base, e->off) = b;
	return 0;
}

/* rsyncd's numbers: atoi(3), whatever the text.  The warning says what
 * the value is read as and what prsyncd does with it. */
static int apply_num(struct parser *p, const struct param *e, void *base, const char *val)
{
	int plain, n = rsyncd_atoi(val, &plain), read = n;
	const char *fit = e->fit ? e->fit(&n) : NULL;

	if (fit && fit[0] == '!')
		return fail(p, "'%s = %.80s' (read as %d, as rsyncd reads it) %s", e->name, val, read, fit + 1);
	if (!plain)
		(void)warn_once(p, e, "'%s = %.80s' is read as %d, as rsyncd reads it (the leading number, "
				"else 0)%s%s%s%s", e->name, val, read, read == 0 && e->zero ? ": " : "",
				read == 0 && e->zero ? e->zero : "", fit ? "; " : "", fit ? fit : "");
	else if (fit)
		(void)warn_once(p, e, "'%s = %.80s': %s", e->name, val, fit);
	if (base)
		*int_field(base, e->off) = n;
	return 0;
}

static int apply_facility(struct parser *p, const struct param *e, void *base, const char *val)
{
	int number;
	const char *name = facility_name(val, &number);
	char *copy;

	if (!name)
		return warn_once(p, e, number ? "'%s = %.80s' is not a facility's code: rsyncd would log with "
				 "it as it is; prsyncd keeps the value it had (%s)" :
				 "'%s = %.80s' is not a syslog facility: rsyncd ignores it, and so does "
				 "prsyncd: the value stays %s", e->name, val,
				 base ? *str_field(base, e->off) : "as it was");
	if (!base)
		return 0;
	if ((copy = strdup(name)) == NULL)
		return fail(p, "out of memory");
	free(*str_field(base, e->off));
	*str_field(base, e->off) = copy;
	return 0;
}

/* Store a value; base NULL only validates it. */
static int apply(struct parser *p, const struct param *e, void *base, char *val)
{
	const char *why;
	int n;
	char *copy;

	switch (e->kind) {
	case K_REFUSED:
		return fail(p, "'%s' is refused: %s", e->name, e->why);
	case K_NEEDED:
		return fail(p, "'%s' is not implemented yet; refusing to start "
			    "without it", e->name);
	case K_QUIET:
		return 0;
	default:
		break;
	}
	if (e->check && (why = e->check(val)) != NULL)
		return fail(p, "'%s' %s: \"%.80s\"", e->name, why, val);
	if (e->soft && val[0] && (why = e->soft(val)) != NULL) {
		(void)warn_once(p, e, "'%s = %.80s' %s", e->name, val, why);
		val[0] = '\0';
	}
	if (e->note && val[0] && (why = e->note(val)) != NULL)
		(void)warn_once(p, e, "'%s = %.80s' %s", e->name, val, why);

	switch (e->kind) {
	case K_IGNORED:
		return warn_once(p, e, "'%s' is not implemented yet and is ignored: %s", e->name, e->why);
	case K_BOOL:
	case K_BOOL3:
		return apply_bool(p, e, base, val);
	case K_NUM:
		return apply_num(p, e, base, val);
	case K_FACILITY:
		return apply_facility(p, e, base, val);
	case K_INT:
		if (parse_int(val, e->lo, e->hi, &n))
			return fail(p, "'%s' must be a number from %d to %d, "
				    "not \"%.80s\"", e->name, e->lo, e->hi, val);
		if (base)
			*int_field(base, e->off) = n;
		return 0;
	case K_FILTER:
	case K_FILTER_FROM:
		return apply_filter(p, e, base, val);
	case K_STR:
	case K_OPTSTR:
		if (!base)
			return 0;
		copy = NULL;
		if ((val[0] || e->kind == K_STR) && !(copy = strdup(val)))
			return fail(p, "out of memory");
		free(*str_field(base, e->off));
		*str_field(base, e->off) = copy;
		return 0;
	default:
		return fail(p, "internal error: bad table entry for '%s'", e->name);
	}
}

/* rsyncd logs "IGNORING unknown parameter" and goes on; so does prsyncd,
 * once per name and file, and says what that means: a misspelt "hosts
 * deny" denies nothing. */
static int unknown_param(struct parser *p, const char *key)
{
	char entry[CFG_ERR_MAX], **grown;

	for (size_t i = 0; i < p->nunknown; i++)
		if (key_eq(p->unknown[i], key))
			return 0;
	if (p->nunknown < CFG_UNKNOWN_MAX)
		snprintf(p->unknown[p->nunknown++], sizeof p->unknown[0], "%s", key);
	snprintf(entry, sizeof entry, "'%.80s' (%s:%d)", key, p->name, p->line);
	grown = realloc(p->cfg->unknown, (p->cfg->nunknown + 1) * sizeof *grown);
	if (!grown || !(grown[p->cfg->nunknown] = strdup(entry))) {
		if (grown)
			p->cfg->unknown = grown;
		return fail(p, "out of memory");
	}
	p->cfg->unknown = grown;
	p->cfg->nunknown++;
	return cfg_warn_at(p, p->line, "unknown parameter '%.80s' IGNORED, as rsyncd ignores it (\"IGNORING "
			   "unknown parameter\"): whatever it was meant to set is not in effect", key);
}

size_t cfg_unknown_summary(const struct cfg *c, char *buf, size_t len)
{
	size_t n = 0, shown = c->nunknown < 10 ? c->nunknown : 10;

#define PUT(...) do { int k_ = snprintf(buf + n, len - n, __VA_ARGS__); \
	n = k_ < 0 ? n : n + (size_t)k_ < len ? n + (size_t)k_ : len - 1; } while (0)
	if (c->nunknown == 0 || len == 0)
		return 0;
	buf[0] = '\0';
	PUT("%zu unknown parameter%s IGNORED, as rsyncd ignores them: ", c->nunknown, c->nunknown == 1 ? "" : "s");
	for (size_t i = 0; i < shown; i++)
		PUT("%s%s", i ? ", " : "", c->unknown[i]);
	if (shown < c->nunknown)
		PUT(" and %zu more", c->nunknown - shown);
	PUT(": whatever %s meant to set is not in effect", c->nunknown == 1 ? "it was" : "they were");
#undef PUT
	return n;
}

/* %VAR% from the listener's environment; the names rsyncd defines per
 * connection are left for the session (cfgvars.h). */
static const char *env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return cfgvars_is_session_name(name) ? NULL : getenv(name);
}

int cfg_param(struct parser *p, char *key, char *raw)
{
	const struct param *e = find_param(key);
	char val[CFG_MAX_LINE + 1];
	void *base;

	if (!e)
		return unknown_param(p, key);
	if (cfgvars_expand(raw, val, sizeof val, env_lookup, NULL) < 0)
		return fail(p, "'%s': the value is longer than %d bytes once %%VAR%% references are expanded",
			    e->name, CFG_MAX_LINE);
	if (e->scope == S_BOTH && !p->cur) {
		/* The global value, then the default of the modules that follow. */
		struct param g = *e;

		g.off = e->goff;
		if (apply(p, &g, p->cfg, val))
			return -1;
		base = &p->defaults;
	} else if (e->scope == S_MODULE || e->scope == S_BOTH)
		base = p->cur ? (void *)p->cur : (void *)&p->defaults;
	else if (!p->cur)
		base = p->cfg;
	else if (e->scope == S_GLOBAL)
		return warn_once(p, e, "'%s' is a global parameter: rsyncd ignores it in a module, and "
				 "so does prsyncd (move it to the global section)", e->name);
	else
		base = NULL;

	if (apply(p, e, base, val))
		return -1;
	if (!base)
		return warn_once(p, e, "per-module '%s' is not implemented yet and is ignored: "
				 "the global value applies to this module too", e->name);
	return 0;
}

/* What a finished section means, as a whole. */
int cfg_end_module(struct parser *p)
{
	struct cfg_module *m = p->cur;
	int rc = 0;

	p->cur = NULL;
	if (m == NULL || m == &p->scratch) {
		cfg_module_free(&p->scratch);
		return 0;
	}
	p->cur = m; /* messages name it */
	if (!m->path)
		rc = cfg_fail_at(p, m->line, "module [%s] has no 'path'", m->name);
	else if (m->fake_super && !m->write_only)
		rc = cfg_fail_at(p, m->line, "'fake super = yes' is refused: prsyncd would send the files' "
			     "own modes and owners, not those stored in their user.rsync.%%stat "
			     "attributes; serve this module with rsyncd");
	else if (m->write_only)
		rc = cfg_warn_at(p, m->line, "'write only = yes': downloads get rsyncd's refusal "
			     "(\"module is write only\") and prsyncd takes no uploads: "
			     "the module serves nothing");
	else if (!m->read_only)
		rc = cfg_warn_at(p, m->line, "'read only = no': prsyncd takes no uploads, so pushes "
			     "get rsyncd's refusal (\"module is read only\"); downloads are served");
	if (rc == 0 && m->gid && (strpbrk(m->gid, " ,") || strcmp(m->gid, "*") == 0))
		rc = cfg_warn_at(p, m->line, "'gid = %s': prsyncd switches to exactly one group, so "
			     "clients get \"@ERROR: invalid gid %s\" (give one group)", m->gid, m->gid);
	p->cur = NULL;
	return rc;
}

int cfg_defaults(struct cfg *c, struct cfg_module *d)
{
	mode_t mask = umask(022);

	umask(mask);
	memset(c, 0, sizeof *c);
	memset(d, 0, sizeof *d);
	c->port = 873;
	c->handshake_timeout = 60; /* rsync 3.5.0's own bound on the text phase */
	c->reverse_lookup = 1;
	c->listen_backlog = 64;
	c->umask = (int)mask;
	d->reverse_lookup = 1;
	d->forward_lookup = 1;
	d->strict_modes = 1;
	d->list = 1;
	d->read_only = 1;
	d->use_chroot = 1; /* recorded only: workers are always confined */
	d->numeric_ids = -1;
	d->max_verbosity = 1;
	d->munge_symlinks = -1;
	c->worker_user = strdup("nobody");
	c->worker_chroot = strdup("/run/prsyncd/empty");
	c->syslog_facility = strdup("daemon");
	c->syslog_tag = strdup("prsyncd");
	d->comment = strdup("");
	d->log_format = strdup("%o %h [%a] %m (%u) %f %l");
	d->syslog_facility = strdup("daemon");
	d->syslog_tag = strdup("prsyncd");
	return c->worker_user && c->worker_chroot && c->syslog_facility && c->syslog_tag &&
	       d->comment && d->log_format && d->syslog_facility && d->syslog_tag ? 0 : -1;
}

/* rsyncd, once it runs as "daemon uid"/"daemon gid", can no longer switch
 * to a module's uid and gid: files are read as the daemon's. */
int cfg_finish(struct parser *p)
{
	struct cfg *c = p->cfg;

	if (c->proxy_protocol && !c->proxy_protocol_hosts && add_warning(p, PROXY_NO_HOSTS) < 0)
		return -1;
	if (check_module_logs(p, c) < 0)
		return -1;
	for (size_t i = 0; i < c->nmodules; i++) {
		struct cfg_module *m = &c->modules[i];

		if (c->daemon_uid && (free(m->uid), m->uid = strdup(c->daemon_uid)) == NULL)
			return cfg_fail_at(p, 0, "out of memory");
		if (c->daemon_gid && (free(m->gid), m->gid = strdup(c->daemon_gid)) == NULL)
			return cfg_fail_at(p, 0, "out of memory");
	}
	return 0;
}

void cfg_free(struct cfg *c)
{
	size_t i;

	if (!c)
		return;
#define FREE_GSTR(f) free(c->f);
#define FREE_GSTRV(f, n) for (int i_ = 0; i_ < (n); i_++) free(c->f[i_]);
	CFG_GLOBAL_FIELDS(FREE_GSTR, NOTHING, FREE_GSTRV)
	for (i = 0; i < c->nmodules; i++)
		cfg_module_free(&c->modules[i]);
	free(c->modules);
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (i = 0; i < c->nunknown; i++)
		free(c->unknown[i]);
	free(c->unknown);
	memset(c, 0, sizeof *c);
}
