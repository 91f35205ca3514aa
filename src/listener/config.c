/*
 * rsyncd.conf parser.
 *
 * The syntax follows rsyncd.conf(5) so an existing file for read-only
 * modules keeps working.  Where stock rsyncd merely logs and carries on
 * (unknown or malformed lines, a global parameter inside a module) we fail
 * instead: this daemon must never run with a configuration that means
 * something other than what its administrator thinks.
 *
 * Odd corners, checked against stock rsync 3.5.0:
 *  - A line whose last non-blank character is '\' continues on the next
 *    line: the backslash and any blanks after it are dropped, blanks before
 *    it and the next line's leading blanks are kept ("a \" + "  b" gives
 *    "a   b").  Stock does the same.  A backslash on a final line without a
 *    newline stays literal, as in stock.
 *  - Comment lines ('#' or ';' after optional blanks) never continue, even
 *    when they end in '\'; a continuation line starting with '#' is content.
 *  - Carriage returns count as blanks, so CRLF files parse (stock agrees).
 *  - Module names are trimmed and internal runs of blanks become one space,
 *    as rsyncd.conf(5) says ("[ a   b ]" is module "a b").
 *  - "[global]" is recognised case-insensitively after that normalisation;
 *    stock accepts "[ GLOBAL ]" too.
 *  - Text after a section's ']' may only be blanks or a '#'/';' comment;
 *    stock silently ignores anything there.
 *  - Defaults are positional, as rsyncd.conf(5) documents: a module starts
 *    from the default values in effect at its header.  (Stock 3.5.0 leaks a
 *    later [global] string such as 'comment' back into earlier modules that
 *    did not set it; we do not reproduce that.)
 *  - Keys also ignore '_', which stock does not; this only accepts more.
 *  - Stock serves a relative 'path' from its working directory and takes
 *    any 'syslog facility' name; both are errors here.
 *  - An empty value for an optional string (address, uid, ...) means unset,
 *    which also lets a module cancel a global default ("gid =").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CFG_MAX_FILE (1024 * 1024)
#define CFG_MAX_MODNAME 255

enum scope {
	S_GLOBAL, /* daemon-wide; stock ignores it inside a module, we fail */
	S_MODULE, /* per module; in the global section it sets a default */
	S_DAEMON, /* per module in rsyncd, only the global value is honoured */
};

enum kind {
	K_STR,     /* string, stored */
	K_OPTSTR,  /* string, stored; empty means unset (NULL) */
	K_BOOL,
	K_INT,
	K_REFUSED, /* would run programs or allow writes: always an error */
	K_NEEDED,  /* not implemented, but ignoring it would expose files */
	K_IGNORED, /* not implemented, harmless to ignore: one warning */
	K_FILTER,  /* filter rules (kind in .lo), checked, stored as text */
	K_FILTER_FROM, /* likewise, read from the named file at load */
};

struct param {
	const char *name; /* spelled as in rsyncd.conf(5), used in messages */
	enum scope scope;
	enum kind kind;
	size_t off; /* in struct cfg, or struct cfg_module for S_MODULE */
	int lo, hi; /* K_INT range */
	/* Extra validation, may normalise the value in place; returns the
	 * reason it is wrong, or NULL. */
	const char *(*check)(char *val);
	const char *refuse_no, *refuse_yes; /* K_BOOL values that are errors */
	const char *why;                    /* K_REFUSED */
};

static const char *check_absolute(char *val);
static const char *check_nonempty(char *val);
static const char *check_facility(char *val);
static const char *check_dont_compress(char *val);

#define G(field) offsetof(struct cfg, field)
#define M(field) offsetof(struct cfg_module, field)

static const char exec_why[] =
	"exec hooks are not supported (they run programs as the daemon user)";

static const struct param params[] = {
	/* Global, implemented. */
	{ "port", S_GLOBAL, .kind = K_INT, .off = G(port), .lo = 1, .hi = 65535 },
	{ "address", S_GLOBAL, .kind = K_OPTSTR, .off = G(address) },
	{ "pid file", S_GLOBAL, .kind = K_OPTSTR, .off = G(pid_file) },
	{ "motd file", S_GLOBAL, .kind = K_OPTSTR, .off = G(motd_file) },
	{ "log file", S_DAEMON, .kind = K_OPTSTR, .off = G(log_file) },
	{ "syslog facility", S_DAEMON, .kind = K_STR,
	  .off = G(syslog_facility), .check = check_facility },
	{ "reverse lookup", S_DAEMON, .kind = K_BOOL,
	  .off = G(reverse_lookup) },
	/* Global, prsyncd's own. */
	{ "worker user", S_GLOBAL, .kind = K_STR, .off = G(worker_user),
	  .check = check_nonempty },
	{ "worker chroot", S_GLOBAL, .kind = K_STR, .off = G(worker_chroot),
	  .check = check_absolute },
	{ "handshake timeout", S_GLOBAL, .kind = K_INT,
	  .off = G(handshake_timeout), .lo = 1, .hi = 3600 },
	{ "max connections per host", S_GLOBAL, .kind = K_INT,
	  .off = G(max_connections_per_host), .lo = 0, .hi = 1000000 },
	/* Global in rsyncd, not implemented. */
	{ "socket options", S_GLOBAL, .kind = K_IGNORED },
	{ "listen backlog", S_GLOBAL, .kind = K_IGNORED },
	{ "daemon chroot", S_GLOBAL, .kind = K_IGNORED },
	{ "daemon uid", S_GLOBAL, .kind = K_IGNORED },
	{ "daemon gid", S_GLOBAL, .kind = K_IGNORED },
	{ "proxy protocol", S_GLOBAL, .kind = K_IGNORED },
	{ "proxy protocol hosts", S_GLOBAL, .kind = K_IGNORED },

	/* Module, implemented. */
	{ "path", S_MODULE, .kind = K_STR, .off = M(path),
	  .check = check_absolute },
	{ "comment", S_MODULE, .kind = K_STR, .off = M(comment) },
	{ "list", S_MODULE, .kind = K_BOOL, .off = M(list) },
	{ "read only", S_MODULE, .kind = K_BOOL, .off = M(read_only),
	  .refuse_no = "uploads are not supported: read only = no is refused" },
	{ "write only", S_MODULE, .kind = K_BOOL, .off = M(write_only),
	  .refuse_yes = "write only = yes is refused: a write-only module only "
			"takes uploads, and uploads are not supported" },
	{ "uid", S_MODULE, .kind = K_OPTSTR, .off = M(uid) },
	{ "gid", S_MODULE, .kind = K_OPTSTR, .off = M(gid) },
	{ "use chroot", S_MODULE, .kind = K_BOOL, .off = M(use_chroot) },
	/* Module filters, enforced by the monitor (modfilter.c, fsreq.c). */
	{ "filter", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_FILTER]), .lo = CFG_F_FILTER },
	{ "include from", S_MODULE, .kind = K_FILTER_FROM, .off = M(filt[CFG_F_INCLUDE_FROM]),
	  .lo = CFG_F_INCLUDE_FROM },
	{ "include", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_INCLUDE]), .lo = CFG_F_INCLUDE },
	{ "exclude from", S_MODULE, .kind = K_FILTER_FROM, .off = M(filt[CFG_F_EXCLUDE_FROM]),
	  .lo = CFG_F_EXCLUDE_FROM },
	{ "exclude", S_MODULE, .kind = K_FILTER, .off = M(filt[CFG_F_EXCLUDE]), .lo = CFG_F_EXCLUDE },
	/* Module, refused outright. */
	{ "early exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "pre-xfer exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "post-xfer exec", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	{ "name converter", S_MODULE, .kind = K_REFUSED, .why = exec_why },
	/* Module, not implemented, and each restricts who sees what: running
	 * without it would serve what the administrator meant to hide. */
	{ "hosts allow", S_MODULE, .kind = K_NEEDED },
	{ "hosts deny", S_MODULE, .kind = K_NEEDED },
	{ "auth users", S_MODULE, .kind = K_NEEDED },
	{ "secrets file", S_MODULE, .kind = K_NEEDED },
	/* Module, not implemented, safe to ignore. */
	/* Counted by the listener (listener.c); a negative value refuses
	 * every client, as in rsyncd. */
	{ "max connections", S_MODULE, .kind = K_INT, .off = M(max_connections),
	  .lo = -1000000, .hi = 1000000 },
	{ "lock file", S_MODULE, .kind = K_OPTSTR, .off = M(lock_file) },
	{ "syslog tag", S_MODULE, .kind = K_IGNORED },
	{ "forward lookup", S_MODULE, .kind = K_IGNORED },
	{ "numeric ids", S_MODULE, .kind = K_BOOL, .off = M(numeric_ids) },
	{ "munge symlinks", S_MODULE, .kind = K_IGNORED },
	{ "insecure links", S_MODULE, .kind = K_IGNORED },
	{ "charset", S_MODULE, .kind = K_IGNORED },
	{ "max verbosity", S_MODULE, .kind = K_IGNORED },
	{ "open noatime", S_MODULE, .kind = K_IGNORED },
	{ "fake super", S_MODULE, .kind = K_IGNORED },
	{ "incoming chmod", S_MODULE, .kind = K_IGNORED },
	{ "outgoing chmod", S_MODULE, .kind = K_IGNORED },
	{ "auth digest", S_MODULE, .kind = K_IGNORED },
	{ "strict modes", S_MODULE, .kind = K_IGNORED },
	{ "ignore errors", S_MODULE, .kind = K_IGNORED },
	{ "ignore nonreadable", S_MODULE, .kind = K_IGNORED },
	{ "transfer logging", S_MODULE, .kind = K_IGNORED },
	{ "log format", S_MODULE, .kind = K_IGNORED },
	/* Client silence, enforced by the worker (conn.c); in the global
	 * section also the bound on the text phase before selection. */
	{ "timeout", S_MODULE, .kind = K_INT, .off = M(timeout), .lo = 0, .hi = 1000000 },
	{ "refuse options", S_MODULE, .kind = K_IGNORED },
	{ "dont compress", S_MODULE, .kind = K_STR, .off = M(dont_compress),
	  .check = check_dont_compress },
	{ "temp dir", S_MODULE, .kind = K_IGNORED },
};

#define NPARAMS (sizeof params / sizeof params[0])

struct parser {
	const char *name;
	int line; /* first physical line of the logical line being handled */
	struct cfg *cfg;
	struct cfg_module defaults; /* module values for the next header */
	struct cfg_module *cur;     /* NULL while in the global context */
	size_t cap;
	unsigned char warned[NPARAMS];
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 5, 0)))
static void vformat(char *buf, size_t len, const struct parser *p, int line,
		    const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s:%d: ", p->name, line);

	if (n >= 0 && (size_t)n < len)
		vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

__attribute__((format(printf, 3, 4)))
static int fail_at(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (p->err && p->errlen) {
		va_start(ap, fmt);
		vformat(p->err, p->errlen, p, line, fmt, ap);
		va_end(ap);
	}
	return -1;
}

#define fail(p, ...) fail_at((p), (p)->line, __VA_ARGS__)

/* One warning per parameter per file: a module-per-stanza file would
 * otherwise repeat the same line hundreds of times. */
__attribute__((format(printf, 3, 4)))
static int warn_once(struct parser *p, const struct param *e,
		     const char *fmt, ...)
{
	size_t i = (size_t)(e - params);
	char buf[CFG_ERR_MAX], *msg, **grown;
	va_list ap;

	if (p->warned[i])
		return 0;
	va_start(ap, fmt);
	vformat(buf, sizeof buf, p, p->line, fmt, ap);
	va_end(ap);
	msg = strdup(buf);
	grown = msg ? realloc(p->cfg->warnings,
			      (p->cfg->nwarnings + 1) * sizeof *grown) : NULL;
	if (!grown) {
		free(msg);
		return fail(p, "out of memory");
	}
	grown[p->cfg->nwarnings++] = msg;
	p->cfg->warnings = grown;
	p->warned[i] = 1;
	return 0;
}

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

static char *trim(char *s)
{
	size_t n;

	while (is_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Trim and turn each inner run of blanks into one space, in place. */
static char *squeeze(char *s)
{
	char *r, *w;

	s = trim(s);
	for (r = w = s; *r; r++) {
		if (is_blank(*r)) {
			if (!is_blank(r[1]))
				*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return s;
}

static int lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Keys compare without case or blanks, as in rsyncd; '_' is dropped too so
 * "read_only" from other tools' habits still means "read only". */
static int ignorable_in_key(char ch)
{
	return is_blank(ch) || ch == '_';
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

/* It travels to the worker in one bounded string (PR_TEXT_MAX). */
static const char *check_dont_compress(char *val)
{
	return strlen(val) < CFG_DONT_COMPRESS_MAX ? NULL : "is too long (1023 bytes at most)";
}

static const char *check_nonempty(char *val)
{
	return val[0] ? NULL : "must not be empty";
}

static const char *check_facility(char *val)
{
	static const char *const names[] = {
		"auth", "authpriv", "cron", "daemon", "ftp", "kern", "lpr",
		"mail", "news", "security", "syslog", "user", "uucp", "local0",
		"local1", "local2", "local3", "local4", "local5", "local6",
		"local7",
	};
	size_t i;
	char *c;

	/* Stored lower-case so the logger can compare names exactly. */
	for (c = val; *c; c++)
		*c = (char)lower(*c);
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(val, names[i]) == 0)
			return NULL;
	return "is not a syslog facility name";
}

/* Decimal digits only: "80x" or "+80" is a typo, not a port.  A leading
 * '-' only where the range allows negative values. */
static int parse_int(const char *s, int lo, int hi, int *out)
{
	long long v = 0, sign = 1;

	if (*s == '-' && lo < 0) {
		sign = -1;
		s++;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > (long long)INT_MAX)
			return -1;
	}
	v *= sign;
	if (v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int cfg_parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "1" };
	static const char *const no[] = { "no", "false", "0" };
	size_t i;

	if (!v)
		return -1;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* Read a whole regular file of at most max bytes into a new string (no
 * NUL bytes inside).  -1 with a reason in why. */
static int read_small_file(const char *path, size_t max, char **out, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	size_t n = 0;
	char *buf;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		snprintf(why, whylen, "%s", fd < 0 ? strerror(errno) : "not a regular file of at most 1 MiB");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (n == max || memchr(buf, '\0', n) != NULL) {
		free(buf);
		snprintf(why, whylen, "too large, or contains a NUL byte");
		return -1;
	}
	*out = buf;
	return 0;
}

#define FREE_STR(f) free(m->f);
#define FREE_STRV(f, n) for (int i_ = 0; i_ < (n); i_++) free(m->f[i_]);
#define NOTHING(f)

static void module_free(struct cfg_module *m)
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

static int module_copy(struct cfg_module *dst, const struct cfg_module *src)
{
	int bad = 0;

	*dst = *src;
	CFG_MODULE_FIELDS(COPY_STR, NOTHING, COPY_STRV)
	free(dst->name);
	dst->name = NULL;
	if (bad) {
		module_free(dst);
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
		if (read_small_file(val, MODFILTER_FILE_MAX, &text, why, sizeof why) < 0)
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

/* Store a value; base NULL only validates it. */
static int apply(struct parser *p, const struct param *e, void *base, char *val)
{
	const char *why;
	int b, n;
	char *copy;

	switch (e->kind) {
	case K_REFUSED:
		return fail(p, "'%s' is refused: %s", e->name, e->why);
	case K_NEEDED:
		return fail(p, "'%s' is not implemented yet; refusing to start "
			    "without it", e->name);
	default:
		break;
	}
	if (e->check && (why = e->check(val)) != NULL)
		return fail(p, "'%s' %s: \"%.80s\"", e->name, why, val);

	switch (e->kind) {
	case K_IGNORED:
		return warn_once(p, e, "'%s' is not implemented yet and is ignored",
				 e->name);
	case K_BOOL:
		if (cfg_parse_bool(val, &b))
			return fail(p, "'%s' must be yes/no, true/false or 1/0, "
				    "not \"%.80s\"", e->name, val);
		if (!b && e->refuse_no)
			return fail(p, "%s", e->refuse_no);
		if (b && e->refuse_yes)
			return fail(p, "%s", e->refuse_yes);
		if (base)
			*int_field(base, e->off) = b;
		return 0;
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

static int do_param(struct parser *p, char *key, char *val)
{
	const struct param *e = find_param(key);
	void *base;

	if (!e)
		return fail(p, "unknown parameter '%.80s'", key);
	if (e->scope == S_MODULE)
		base = p->cur ? (void *)p->cur : (void *)&p->defaults;
	else if (!p->cur)
		base = p->cfg;
	else if (e->scope == S_GLOBAL)
		return fail(p, "'%s' is a global parameter; it cannot be set in "
			    "module [%s]", e->name, p->cur->name);
	else
		base = NULL;

	if (apply(p, e, base, val))
		return -1;
	if (!base)
		return warn_once(p, e, "per-module '%s' is not implemented yet "
				 "and is ignored", e->name);
	return 0;
}

static int end_module(struct parser *p)
{
	if (p->cur && !p->cur->path)
		return fail_at(p, p->cur->line, "module [%s] has no 'path'",
			       p->cur->name);
	p->cur = NULL;
	return 0;
}

static int check_module_name(struct parser *p, const char *name)
{
	const unsigned char *c;
	size_t i;

	if (!*name)
		return fail(p, "empty module name");
	if (strlen(name) > CFG_MAX_MODNAME)
		return fail(p, "module name longer than %d bytes",
			    CFG_MAX_MODNAME);
	if (strchr(name, '/'))
		return fail(p, "module name [%s] contains '/'", name);
	/* Names are sent to clients in module listings. */
	for (c = (const unsigned char *)name; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return fail(p, "module name contains a control character");
	for (i = 0; i < p->cfg->nmodules; i++)
		if (strcmp(p->cfg->modules[i].name, name) == 0)
			return fail(p, "duplicate module [%s] (first defined at "
				    "line %d)", name, p->cfg->modules[i].line);
	if (p->cfg->nmodules >= CFG_MAX_MODULES)
		return fail(p, "more than %d modules", CFG_MAX_MODULES);
	return 0;
}

static int do_section(struct parser *p, char *s)
{
	struct cfg *c = p->cfg;
	struct cfg_module *m;
	char *close = strchr(s, ']'), *rest, *name;

	if (!close)
		return fail(p, "section header without a closing ']'");
	for (rest = close + 1; is_blank(*rest); rest++)
		;
	if (*rest && *rest != '#' && *rest != ';')
		return fail(p, "unexpected text after ']': \"%.80s\"", rest);
	*close = '\0';
	name = squeeze(s + 1);

	if (end_module(p))
		return -1;
	if (strcasecmp(name, "global") == 0)
		return 0;
	if (check_module_name(p, name))
		return -1;
	if (c->nmodules == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct cfg_module *grown = realloc(c->modules, cap * sizeof *grown);

		if (!grown)
			return fail(p, "out of memory");
		c->modules = grown;
		p->cap = cap;
	}
	m = &c->modules[c->nmodules];
	if (module_copy(m, &p->defaults) || !(m->name = strdup(name))) {
		module_free(m);
		return fail(p, "out of memory");
	}
	m->line = p->line;
	c->nmodules++;
	p->cur = m;
	return 0;
}

static int is_directive(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 && (!s[n] || is_blank(s[n]));
}

static int do_line(struct parser *p, char *s)
{
	char *eq;

	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return do_section(p, s);
	if (*s == '&') {
		if (is_directive(s, "&include") || is_directive(s, "&merge"))
			return fail(p, "'%.*s' is not supported yet",
				    (int)strcspn(s, " \t\r\f\v"), s);
		return fail(p, "unknown directive \"%.80s\"", s);
	}
	eq = strchr(s, '=');
	if (!eq)
		return fail(p, "expected 'name = value' or '[module]', not "
			    "\"%.80s\"", s);
	*eq = '\0';
	s = trim(s);
	if (!*s)
		return fail(p, "missing parameter name before '='");
	return do_param(p, s, trim(eq + 1));
}

static int set_defaults(struct cfg *c, struct cfg_module *d)
{
	memset(c, 0, sizeof *c);
	memset(d, 0, sizeof *d);
	c->port = 873;
	c->handshake_timeout = 30;
	c->reverse_lookup = 1;
	d->list = 1;
	d->read_only = 1;
	d->use_chroot = 1; /* recorded only: workers are always confined */
	d->numeric_ids = -1;
	c->worker_user = strdup("nobody");
	c->worker_chroot = strdup("/run/prsyncd/empty");
	c->syslog_facility = strdup("daemon");
	d->comment = strdup("");
	return c->worker_user && c->worker_chroot && c->syslog_facility &&
	       d->comment ? 0 : -1;
}

/* Split into physical lines and join continuations into logical ones. */
static int parse_lines(struct parser *p, const char *text, size_t len)
{
	char line[CFG_MAX_LINE + 1];
	const char *pos = text, *end = text + len, *nl, *stop, *q;
	size_t used = 0, n, k, take;
	int lineno = 0, open = 0, cont;

	/* Some editors prefix a UTF-8 byte order mark. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos += 3;
	while (pos < end) {
		nl = memchr(pos, '\n', (size_t)(end - pos));
		stop = nl ? nl : end;
		n = (size_t)(stop - pos);
		if (lineno == INT_MAX)
			return fail(p, "too many lines");
		lineno++;
		if (!open)
			p->line = lineno;
		if (memchr(pos, '\0', n))
			return fail_at(p, lineno, "NUL byte in line");
		if (!open) {
			for (q = pos; q < stop && is_blank(*q); q++)
				;
			if (q == stop || *q == '#' || *q == ';') {
				pos = nl ? nl + 1 : end;
				continue;
			}
		}
		for (k = n; k > 0 && is_blank(pos[k - 1]); k--)
			;
		cont = nl && k > 0 && pos[k - 1] == '\\';
		take = cont ? k - 1 : n;
		if (take > CFG_MAX_LINE - used)
			return fail(p, "line longer than %d bytes", CFG_MAX_LINE);
		memcpy(line + used, pos, take);
		used += take;
		pos = nl ? nl + 1 : end;
		open = cont;
		if (!open) {
			line[used] = '\0';
			used = 0;
			if (do_line(p, line))
				return -1;
		}
	}
	if (open) {
		line[used] = '\0';
		if (do_line(p, line))
			return -1;
	}
	p->line = lineno;
	return end_module(p);
}

int cfg_parse(const char *name, const char *text, size_t len, struct cfg *out,
	      char *err, size_t errlen)
{
	struct parser p;
	struct cfg c;
	int rc;

	memset(&p, 0, sizeof p);
	p.name = name ? name : "(config)";
	p.cfg = &c;
	p.err = err;
	p.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	memset(out, 0, sizeof *out);

	if (set_defaults(&c, &p.defaults))
		rc = fail_at(&p, 0, "out of memory");
	else if (!text && len)
		rc = fail_at(&p, 0, "no text");
	else
		rc = len ? parse_lines(&p, text, len) : 0;
	c.timeout = p.defaults.timeout;
	module_free(&p.defaults);
	if (rc) {
		cfg_free(&c);
		return -1;
	}
	*out = c;
	return 0;
}

__attribute__((format(printf, 3, 4)))
static int file_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int cfg_load(const char *file, struct cfg *out, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t cap, n = 0;
	ssize_t r;
	int fd, rc;

	memset(out, 0, sizeof *out);
	/* O_NONBLOCK: a FIFO put in the config's place must not hang us
	 * before the regular-file check below. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return file_error(err, errlen, "%s: cannot open: %s", file,
				  strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return file_error(err, errlen, "%s: not a regular file", file);
	}
	if (st.st_size > CFG_MAX_FILE) {
		close(fd);
		return file_error(err, errlen, "%s: larger than %d bytes, "
				  "refusing to read it", file, CFG_MAX_FILE);
	}
	/* One spare byte tells us the file grew after fstat. */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return file_error(err, errlen, "%s: out of memory", file);
	}
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = errno;
			free(buf);
			close(fd);
			return file_error(err, errlen, "%s: read error: %s",
					  file, strerror(rc));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n == cap) {
		free(buf);
		return file_error(err, errlen, "%s: changed while being read",
				  file);
	}
	rc = cfg_parse(file, buf, n, out, err, errlen);
	free(buf);
	return rc;
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
		module_free(&c->modules[i]);
	free(c->modules);
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	memset(c, 0, sizeof *c);
}
