/* SPDX-License-Identifier: ISC */
/*
 * The client's "server command line" (spec part 1, section 4): turn the
 * argument records into struct options, or into the one error line a
 * stock daemon would have sent for them.
 *
 * Shape: "--server" first, options, a lone ".", then paths.  Everything
 * after the first "." is a path and is never looked at as an option
 * (pitfall 9: stock re-parses "pub/-dash" as "-d -a -s -h" and hangs).
 * The caller has already removed the framing and, for secluded args, the
 * second list's arg0 "rsync" and the rest of the first list after the
 * cluster (setup.c); we only see option and path records.
 *
 * Syntax follows popt as used by stock rsync:
 *   -abc         letters left to right; a letter that takes a value eats
 *                the rest of the record, or the next record if nothing
 *                is left ("-B1024", "-B" "1024", "-vB1024");
 *   --name=value / --name value;  --name=value on a flag is an error;
 *   --no-NAME / --no-L   negates a negatable option (long or letter);
 *   no abbreviations ("--sen" is unknown, as on stock - verified).
 * Option values (never paths, never the -e capability string) lose one
 * level of backslash escaping unless secluded args are on, because rsync
 * >= 3.2.4 clients escape shell metacharacters in them (section 4.3).
 *
 * Error texts are the stock daemon's, captured from rsync 3.5.0:
 *   rsync: on remote machine: -rQv: unknown option           (whole record)
 *   rsync: on remote machine: --timeout=abc: invalid numeric value
 *   rsync: on remote machine: --timeout=99999999999: number too large or too small
 *   rsync: on remote machine: --numeric-ids=3: option does not take an argument
 *   rsync: The server is configured to refuse --crtimes (-N)
 *   rsync: --bwlimit=abc is invalid            (size-style values)
 * For a two-record value popt names the value record, and so do we.
 * Echoed records have control characters replaced by '?', because the
 * same text goes into the daemon log.
 *
 * One table describes every option: long name (NULL for letter-only
 * options such as -D and -P), short letter (0 for long-only), flags and a
 * handler with its field.  Aliases are extra rows without a letter.  The
 * letter lookup is an index built from that table on each call (no
 * global mutable state), so a letter and its long name can never drift
 * apart.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "refuse.h"

#define ONLY_MSG "rsync: on remote machine: "

struct pstate;
struct optdef;

typedef int (*opt_fn)(struct pstate *ps, const struct optdef *d, const char *val, int neg);

/* optdef.flags */
#define F_ARG 0x01   /* takes a value */
#define F_NEG 0x02   /* --no-NAME (and --no-<letter>) allowed */
#define F_RAW 0x04   /* value is not backslash-unescaped (-e capability string) */

#define NOFIELD ((size_t)-1)
#define OFF(f) offsetof(struct options, f)

struct optdef {
	const char *name;  /* long name without "--"; NULL: letter only */
	char letter;       /* short letter; 0: long only */
	unsigned char flags;
	opt_fn fn;
	size_t off;        /* field of struct options the generic handlers use */
	long a, b;         /* h_set: value; h_int: range; h_str: buffer size */
};

struct pstate {
	struct options *o;
	int protocol;
	char *err;
	size_t errlen;
	const char *show;          /* record named in popt-style messages */
	int relative_explicit;     /* -R / --no-relative seen (files-from default) */
	struct refuse *refuse;     /* the module's "refuse options", or NULL */
	size_t filters_cap;        /* room in o->filters */
	char val[OPT_MAX_ARG_LEN + 1];  /* the current value, unescaped */
};

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

__attribute__((format(printf, 2, 3)))
static int fail(struct pstate *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->err == NULL || ps->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	/* The text echoes client bytes and is logged: no control characters. */
	for (char *p = ps->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

static int popt_fail(struct pstate *ps, const char *what)
{
	return fail(ps, ONLY_MSG "%s: %s", ps->show, what);
}

/* "--acls (-A)", "--copy-devices", "-F" */
static int refuse_msg(struct pstate *ps, const struct optdef *d)
{
	if (d->name && d->letter)
		return fail(ps, "rsync: The server is configured to refuse --%s (-%c)", d->name, d->letter);
	if (d->name)
		return fail(ps, "rsync: The server is configured to refuse --%s", d->name);
	return fail(ps, "rsync: The server is configured to refuse -%c", d->letter);
}

/* ---------------------------------------------------------------------- */
/* Value parsing                                                          */

static int *ifield(struct pstate *ps, const struct optdef *d)
{
	return (int *)((char *)ps->o + d->off);
}

/*
 * A decimal integer in [lo, hi] (no atoi: everything must be a digit).
 * Returns 0, -1 for not a number, -2 for out of range.
 */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!((s[0] >= '0' && s[0] <= '9') ||
	      ((s[0] == '-' || s[0] == '+') && s[1] >= '0' && s[1] <= '9')))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE || v < lo || v > hi)
		return -2;
	*out = v;
	return 0;
}

#define SIZE_LIMIT ((int64_t)1 << 62)

/*
 * Stock's size syntax: NUMBER[.FRACTION][UNIT[b|ib]][+1|-1], UNIT one of
 * b k m g t p (any case); "k"/"kib" are powers of 1024, "kb" of 1000, and
 * a bare number is in `defunit`.  Returns 0 with bytes in *out, -1 for
 * garbage, -2 for too large.  Integer arithmetic only.
 */
static int parse_size(const char *s, char defunit, int64_t *out)
{
	const char *p = s;
	uint64_t ip = 0, frac = 0, fdiv = 1, mult = 1, base = 1024;
	int digits = 0, power;
	char unit;

	while (*p >= '0' && *p <= '9') {
		if (ip > (uint64_t)SIZE_LIMIT / 10)
			return -2;
		ip = ip * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (fdiv < 1000000000u) {   /* 9 fractional digits are plenty */
				frac = frac * 10 + (uint64_t)(*p - '0');
				fdiv *= 10;
			}
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return -1;
	unit = defunit;
	if (*p && strchr("bBkKmMgGtTpP", *p)) {
		unit = *p++;
		if (unit != 'b' && unit != 'B') {
			if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
				p += 2;
			else if (p[0] == 'b' || p[0] == 'B') {
				base = 1000;
				p++;
			}
		}
	}
	switch (unit) {
	case 'b': case 'B': power = 0; break;
	case 'k': case 'K': power = 1; break;
	case 'm': case 'M': power = 2; break;
	case 'g': case 'G': power = 3; break;
	case 't': case 'T': power = 4; break;
	default: power = 5; break;  /* p, P */
	}
	while (power-- > 0)
		mult *= base;               /* at most 1024^5 = 2^50 */
	if (ip > (uint64_t)SIZE_LIMIT / mult)
		return -2;
	{
		/* frac/fdiv * mult without overflow: frac < fdiv <= 1e9 */
		uint64_t f = (mult / fdiv) * frac + (mult % fdiv) * frac / fdiv;
		int64_t v = (int64_t)(ip * mult + f);

		if (v > SIZE_LIMIT)
			return -2;
		if ((p[0] == '+' || p[0] == '-') && p[1] == '1') {
			v += p[0] == '+' ? 1 : -1;
			p += 2;
		}
		if (*p != '\0' || v < 0)
			return -1;
		*out = v;
	}
	return 0;
}

/* "%.2f" of bytes in the largest fitting unit, as stock's "(max: 128.00K)". */
static void human(int64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double d = (double)v;
	int u = -1;

	while (d >= 1024.0 && u < 4) {
		d /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%.2f%c", d, units[u]);
}

/* ---------------------------------------------------------------------- */
/* Handlers                                                               */

static int h_accept(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	return 0;
}

/* A daemon never lets a client relax its link confinement (rsync 3.5.0
 * refuses --insecure-links whatever "refuse options" says); the negation
 * is harmless and accepted. */
static int h_insecure_links(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	(void)val;
	if (neg)
		return 0;
	ps->o->insecure_links = 1;
	return refuse_msg(ps, d);
}

/* Called before any value is read, so "--log-file" alone is refused too. */
static int h_refuse(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	return refuse_msg(ps, d);
}

static int h_set(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	*ifield(ps, d) = neg ? 0 : (int)d->a;
	return 0;
}

static int h_count(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	int *f = ifield(ps, d);

	/* 16000 records x 5120 letters cannot overflow an int */
	*f = neg ? 0 : *f + 1;
	return 0;
}

static int h_int(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	long v;
	int r = parse_long(val, d->a, d->b, &v);

	if (r == -1)
		return popt_fail(ps, "invalid numeric value");
	if (r == -2)
		return popt_fail(ps, "number too large or too small");
	if (d->off != NOFIELD)
		*ifield(ps, d) = (int)v;
	return 0;
}

static int h_seed(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	long v;
	int r = parse_long(val, INT32_MIN, INT32_MAX, &v);

	if (r == -1)
		return popt_fail(ps, "invalid numeric value");
	if (r == -2)
		return popt_fail(ps, "number too large or too small");
	ps->o->checksum_seed = (int32_t)v;
	return 0;
}

/* Into a fixed buffer of the struct; overlong is an error, never cut. */
static int h_str(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	size_t n = strlen(val);

	if (n >= (size_t)d->b)
		return fail(ps, "rsync: the --%s value is too long (max %ld bytes)", d->name, d->b - 1);
	memcpy((char *)ps->o + d->off, val, n + 1);
	return 0;
}

static int h_info(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	ps->o->info_debug = 1;
	return 0;
}

/* --stderr=errors|all|client, any prefix ("e", "a", "c") as stock. */
static int h_stderr(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	size_t n = strlen(val);

	if (n > 0 && (!strncmp(val, "errors", n) || !strncmp(val, "all", n) ||
		      !strncmp(val, "client", n)))
		return 0;
	return fail(ps, "rsync: --stderr mode \"%s\" is not one of errors, all, or client", val);
}

/* -a: -rlptgoD */
static int h_archive(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	struct options *o = ps->o;

	o->recursive = o->links = o->perms = o->times = 1;
	o->group = o->owner = o->devices = o->specials = 1;
	return 0;
}

/* -D: --devices --specials;  --no-D clears both. */
static int h_D(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	ps->o->devices = ps->o->specials = !neg;
	return 0;
}

static int h_relative(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	ps->o->relative = !neg;
	ps->relative_explicit = 1;
	return 0;
}

static int h_append_verify(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	if (ps->o->append < 2)
		ps->o->append = 2;
	return 0;
}

/* Every --delete-* implies --delete. */
static int h_delete(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	ps->o->delete_mode = 1;
	if (d->a)
		ps->o->delete_excluded = 1;
	return 0;
}

/* --new-compress = zlibx, --old-compress = zlib */
static int h_compress_alias(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	snprintf(ps->o->compress_choice, sizeof(ps->o->compress_choice), "%s",
		 d->a ? "zlibx" : "zlib");
	return 0;
}

/* "-" = the names come over the socket; anything else is a server path. */
static int h_files_from(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	struct options *o = ps->o;
	size_t n = strlen(val);

	o->files_from_socket = 0;
	o->files_from_path[0] = '\0';
	if (strcmp(val, "-") == 0) {
		o->files_from_socket = 1;
		return 0;
	}
	if (n >= sizeof(o->files_from_path))
		return fail(ps, "rsync: the --files-from value is too long (max %zu bytes)",
			    sizeof(o->files_from_path) - 1);
	memcpy(o->files_from_path, val, n + 1);
	return 0;
}

/* A filter argument, kept in order (bounded by the argument count). */
static int add_filter(struct pstate *ps, enum opt_filt kind, const char *arg)
{
	struct options *o = ps->o;
	char *copy = strdup(arg);

	if (copy == NULL)
		return fail(ps, "rsync: out of memory storing the filter rules");
	if (o->nfilters == ps->filters_cap) {
		size_t cap = ps->filters_cap ? ps->filters_cap * 2 : 8;
		struct opt_filter *v = realloc(o->filters, cap * sizeof(*v));

		if (v == NULL) {
			free(copy);
			return fail(ps, "rsync: out of memory storing the filter rules");
		}
		o->filters = v;
		ps->filters_cap = cap;
	}
	o->filters[o->nfilters].kind = kind;
	o->filters[o->nfilters++].arg = copy;
	return 0;
}

/* --filter, --exclude, --include, --exclude-from, --include-from: d->a
 * is the kind. */
static int h_filter(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	return add_filter(ps, (enum opt_filt)d->a, val);
}

/* -F is ": /.rsync-filter", a second -F adds "- .rsync-filter", more add
 * nothing (as rsync's options.c). */
static int h_rsync_filter(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	switch (++ps->o->rsync_filter_letters) {
	case 1: return add_filter(ps, OPT_FILT_RULE, ": /.rsync-filter");
	case 2: return add_filter(ps, OPT_FILT_RULE, "- .rsync-filter");
	default: return 0;
	}
}

/* KiB/s, default unit K; stock rounds to the nearest KiB.  --no-bwlimit
 * sets none (the daemon's own --bwlimit still caps it, setup.c). */
static int h_bwlimit(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	int64_t v;
	int r;

	if (neg) {
		ps->o->bwlimit = 0;
		return 0;
	}
	r = parse_size(val, 'K', &v);
	if (r == -1)
		return fail(ps, "rsync: --bwlimit=%s is invalid", val);
	if (r == 0 && v != 0 && v < 512)
		return fail(ps, "rsync: --bwlimit=%s is too small (min: 512 or 0 for unlimited)", val);
	if (r == -2 || (v + 512) / 1024 > INT_MAX)
		return fail(ps, "rsync: --bwlimit=%s is too large", val);
	ps->o->bwlimit = (int)((v + 512) / 1024);
	return 0;
}

static int h_max_alloc(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	int64_t v;
	int r = parse_size(val, 'B', &v);

	if (r == -1)
		return fail(ps, "rsync: --max-alloc=%s is invalid", val);
	if (r == -2)
		return fail(ps, "rsync: --max-alloc=%s is too large", val);
	if (v != 0 && v < 1024 * 1024)
		return fail(ps, "rsync: --max-alloc=%s is too small (min: 1.00M or 0 for unlimited)", val);
	return 0;
}

/* --max-size / --min-size: validated, only noted (receiver side). */
static int h_size(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	int64_t v;
	int r = parse_size(val, 'B', &v);

	if (r == -1)
		return fail(ps, "rsync: --%s=%s is invalid", d->name, val);
	if (r == -2)
		return fail(ps, "rsync: --%s=%s is too large", d->name, val);
	*ifield(ps, d) = 1;
	return 0;
}

/* -B: the per-protocol maximum is stock's (128K from 30, 512M before). */
static int h_block(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	int64_t v, max = ps->protocol >= 30 ? (int64_t)1 << 17 : (int64_t)1 << 29;
	char hbuf[32];
	int r = parse_size(val, 'B', &v);

	if (r == -1)
		return fail(ps, "rsync: --block-size=%s is invalid", val);
	if (r == -2 || v > max) {
		human(max, hbuf, sizeof(hbuf));
		return fail(ps, "rsync: --block-size=%s is too large (max: %s)", val, hbuf);
	}
	ps->o->block_size = (int)v;
	return 0;
}

/*
 * -e / --rsh: a daemon runs no shell; the value is the capability string
 * (section 4.4): an optional version part ("." or "P.S", pre-release),
 * then letters.  Unknown letters are ignored (newer clients).  A second
 * -e replaces the first.
 */
static int h_rsh(struct pstate *ps, const struct optdef *d, const char *val, int neg)
{
	struct options *o = ps->o;
	const char *p = val;

	o->cap_present = 1;
	o->cap_inc_recurse = o->cap_symlink_times = o->cap_symlink_iconv = 0;
	o->cap_safe_flist = o->cap_avoid_xattr_optim = o->cap_chksum_seed_fix = 0;
	o->cap_inplace_partial = o->cap_varint_flist = o->cap_varint_prerelease = 0;
	o->cap_id0_names = 0;
	if (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.')
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
	} else if (*p == '.') {
		p++;
	}
	for (; *p; p++) {
		switch (*p) {
		case 'i': o->cap_inc_recurse = 1; break;
		case 'L': o->cap_symlink_times = 1; break;
		case 's': o->cap_symlink_iconv = 1; break;
		case 'f': o->cap_safe_flist = 1; break;
		case 'x': o->cap_avoid_xattr_optim = 1; break;
		case 'C': o->cap_chksum_seed_fix = 1; break;
		case 'I': o->cap_inplace_partial = 1; break;
		case 'v': o->cap_varint_flist = 1; break;
		case 'V': o->cap_varint_prerelease = 1; break;
		case 'u': o->cap_id0_names = 1; break;
		default: break;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The table                                                              */

#define SET(n, l, f, fld) { n, l, (f), h_set, OFF(fld), 1, 0 }
#define CNT(n, l, fld) { n, l, F_NEG, h_count, OFF(fld), 0, 0 }
#define ACC(n, l, f) { n, l, (f), h_accept, NOFIELD, 0, 0 }
#define REF(n, l, f) { n, l, (f), h_refuse, NOFIELD, 0, 0 }
#define INT(n, l, fld, lo, hi) { n, l, F_ARG, h_int, fld, lo, hi }
#define STR(n, fld) { n, 0, F_ARG, h_str, OFF(fld), 0, sizeof(((struct options *)0)->fld) }
#define FN(n, l, f, fn) { n, l, (f), fn, NOFIELD, 0, 0 }
#define FILT(n, l, kind) { n, l, F_ARG, h_filter, NOFIELD, kind, 0 }

/*
 * What a client may send a daemon sender (section 4.7), plus options that
 * only matter to a receiver, which are accepted and ignored so that
 * openrsync (and -M) work.  Options we cannot honour are refused in the
 * stock "configured to refuse" shape, which is also what a stock daemon
 * says for features it was built without (captured: -N on Linux).
 */
static const struct optdef opts[] = {
	/* mode */
	SET("server", 0, 0, server),
	SET("sender", 0, 0, sender),

	/* messages and output: the daemon's messages go over the socket */
	CNT("verbose", 'v', verbose),
	CNT("quiet", 'q', quiet),
	FN("info", 0, F_ARG, h_info),
	FN("debug", 0, F_ARG, h_info),
	ACC("msgs2stderr", 0, F_NEG),
	FN("stderr", 0, F_ARG, h_stderr),
	ACC("8-bit-output", '8', F_NEG),
	ACC("human-readable", 'h', F_NEG),
	ACC("itemize-changes", 'i', F_NEG),
	ACC("progress", 0, F_NEG),
	ACC(NULL, 'P', F_NEG),                 /* --partial --progress */
	ACC("stats", 0, F_NEG),
	ACC("out-format", 0, F_ARG),
	ACC("log-format", 0, F_ARG),           /* old clients' --out-format */

	/* what is sent */
	FN("archive", 'a', 0, h_archive),
	SET("recursive", 'r', F_NEG, recursive),
	SET("dirs", 'd', F_NEG, dirs),
	ACC("inc-recursive", 0, F_NEG),        /* the 'i' capability decides */
	ACC("i-r", 0, F_NEG),
	FN("relative", 'R', F_NEG, h_relative),
	SET("implied-dirs", 0, F_NEG, implied_dirs),
	FN("files-from", 0, F_ARG, h_files_from),
	SET("from0", '0', F_NEG, from0),
	SET("ignore-missing-args", 0, 0, ignore_missing_args),
	SET("delete-missing-args", 0, 0, delete_missing_args),
	CNT("one-file-system", 'x', one_file_system),
	SET("cvs-exclude", 'C', F_NEG, cvs_exclude),
	SET("list-only", 0, 0, list_only),
	SET("qsort", 0, 0, qsort),             /* not "--use-qsort": stock rejects that */
	/* a client's rules travel in the filter list; these come first (-M) */
	FILT("filter", 'f', OPT_FILT_RULE),
	FN(NULL, 'F', 0, h_rsync_filter),
	FILT("exclude", 0, OPT_FILT_EXCLUDE),
	FILT("include", 0, OPT_FILT_INCLUDE),
	FILT("exclude-from", 0, OPT_FILT_EXCLUDE_FROM),
	FILT("include-from", 0, OPT_FILT_INCLUDE_FROM),

	/* symlinks and hard links */
	SET("links", 'l', F_NEG, links),
	SET("copy-links", 'L', F_NEG, copy_links),
	SET("copy-dirlinks", 'k', F_NEG, copy_dirlinks),
	SET("copy-unsafe-links", 0, F_NEG, copy_unsafe_links),
	SET("safe-links", 0, F_NEG, safe_links),
	ACC("munge-links", 0, F_NEG),          /* the receiver munges */
	FN("insecure-links", 0, F_NEG, h_insecure_links),
	ACC("keep-dirlinks", 'K', F_NEG),
	CNT("hard-links", 'H', hard_links),

	/* attributes */
	SET("perms", 'p', F_NEG, perms),
	SET("times", 't', F_NEG, times),
	SET("owner", 'o', F_NEG, owner),
	SET("group", 'g', F_NEG, group),
	SET("devices", 0, F_NEG, devices),
	SET("specials", 0, F_NEG, specials),
	FN(NULL, 'D', F_NEG, h_D),
	CNT("atimes", 'U', atimes),
	SET("crtimes", 'N', F_NEG, crtimes),
	ACC("open-noatime", 0, F_NEG),
	ACC("omit-dir-times", 'O', F_NEG),
	ACC("omit-link-times", 'J', F_NEG),
	ACC("executability", 'E', F_NEG),
	ACC("chmod", 0, F_ARG),
	SET("numeric-ids", 0, F_NEG, numeric_ids),
	ACC("usermap", 0, F_ARG),
	ACC("groupmap", 0, F_ARG),
	ACC("chown", 0, F_ARG),
	ACC("super", 0, F_NEG),
	ACC("fake-super", 0, 0),
	SET("acls", 'A', F_NEG, acls),
	CNT("xattrs", 'X', xattrs),
	REF("copy-devices", 0, 0),             /* a daemon always refuses these */
	REF("write-devices", 0, 0),

	/* transfer */
	SET("checksum", 'c', F_NEG, always_checksum),
	STR("checksum-choice", checksum_choice),
	STR("cc", checksum_choice),
	FN("checksum-seed", 0, F_ARG, h_seed),
	FN("block-size", 'B', F_ARG, h_block),
	SET("whole-file", 'W', F_NEG, whole_file),
	SET("ignore-times", 'I', F_NEG, ignore_times),
	ACC("size-only", 0, 0),
	INT("modify-window", '@', NOFIELD, INT_MIN, INT_MAX),
	SET("sparse", 'S', F_NEG, sparse),
	ACC("preallocate", 0, F_NEG),
	SET("dry-run", 'n', F_NEG, dry_run),
	SET("update", 'u', F_NEG, update),
	SET("backup", 'b', F_NEG, backup),
	ACC("backup-dir", 0, F_ARG),
	ACC("suffix", 0, F_ARG),
	SET("inplace", 0, F_NEG, inplace),
	CNT("append", 0, append),
	FN("append-verify", 0, 0, h_append_verify),
	ACC("existing", 0, 0),
	ACC("ignore-non-existing", 0, 0),
	ACC("ignore-existing", 0, 0),
	ACC("partial", 0, F_NEG),
	ACC("partial-dir", 0, F_ARG),
	ACC("delay-updates", 0, F_NEG),
	ACC("temp-dir", 'T', F_ARG),
	ACC("fuzzy", 'y', F_NEG),
	ACC("prune-empty-dirs", 'm', F_NEG),
	ACC("compare-dest", 0, F_ARG),
	ACC("copy-dest", 0, F_ARG),
	ACC("link-dest", 0, F_ARG),
	ACC("mkpath", 0, F_NEG),
	ACC("fsync", 0, 0),
	SET("remove-source-files", 0, 0, remove_source_files),
	{ "remove-sent-files", 0, 0, h_set, OFF(remove_source_files), 2, 0 },

	/* deletion: receiver side, but --delete-excluded changes the sender's
	 * filter handling and the caller may refuse "delete" */
	FN("delete", 0, 0, h_delete),
	FN("del", 0, 0, h_delete),
	FN("delete-before", 0, 0, h_delete),
	FN("delete-during", 0, 0, h_delete),
	FN("delete-delay", 0, 0, h_delete),
	FN("delete-after", 0, 0, h_delete),
	{ "delete-excluded", 0, 0, h_delete, NOFIELD, 1, 0 },
	ACC("force", 0, F_NEG),
	INT("max-delete", 0, NOFIELD, INT_MIN, INT_MAX),
	SET("ignore-errors", 0, F_NEG, ignore_errors),
	{ "max-size", 0, F_ARG, h_size, OFF(max_size_set), 0, 0 },
	{ "min-size", 0, F_ARG, h_size, OFF(min_size_set), 0, 0 },
	FN("max-alloc", 0, F_ARG, h_max_alloc),

	/* compression; stock takes any int level (and thread count) and
	 * clamps it to what the compressor allows (cpres_level) */
	CNT("compress", 'z', compress),
	STR("compress-choice", compress_choice),
	STR("zc", compress_choice),
	INT("compress-level", 0, OFF(compress_level), INT_MIN, INT_MAX),
	INT("zl", 0, OFF(compress_level), INT_MIN, INT_MAX),
	INT("compress-threads", 0, NOFIELD, INT_MIN, INT_MAX),
	INT("zt", 0, NOFIELD, INT_MIN, INT_MAX),
	{ "new-compress", 0, 0, h_compress_alias, NOFIELD, 1, 0 },
	{ "old-compress", 0, 0, h_compress_alias, NOFIELD, 0, 0 },
	STR("skip-compress", skip_compress),

	/* session; the timeout bound keeps seconds*1000 inside an int */
	INT("timeout", 0, OFF(timeout), 0, INT_MAX / 1000),
	INT("contimeout", 0, NOFIELD, 0, INT_MAX),
	FN("bwlimit", 0, F_ARG | F_NEG, h_bwlimit),
	ACC("stop-after", 0, F_ARG),
	ACC("stop-at", 0, F_ARG),
	SET("secluded-args", 's', F_NEG, secluded_args),
	SET("protect-args", 0, F_NEG, secluded_args),
	FN("rsh", 'e', F_ARG | F_RAW, h_rsh),
	ACC("remote-option", 'M', F_ARG),
	{ "iconv", 0, F_ARG, h_set, OFF(iconv), 1, 0 }, /* refused without a module charset */
	{ "no-iconv", 0, 0, h_set, OFF(iconv), 0, 0 },
	REF("log-file", 0, F_ARG),
	REF("log-file-format", 0, F_ARG),
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const struct optdef *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].name && strlen(opts[i].name) == len &&
		    memcmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The parser                                                             */

/* One level of backslash escaping off (section 4.3); a lone trailing
 * backslash stays.  The result is never longer than the input. */
static void unescape(const char *in, char *out)
{
	while (*in) {
		if (in[0] == '\\' && in[1] != '\0')
			in++;
		*out++ = *in++;
	}
	*out = '\0';
}

static int call(struct pstate *ps, const struct optdef *d, const char *raw, int neg)
{
	const char *v = NULL;

	if (raw) {
		if ((d->flags & F_RAW) || ps->o->secluded_args) {
			v = raw;
		} else {
			unescape(raw, ps->val);
			v = ps->val;
		}
	}
	return d->fn(ps, d, v, neg);
}

/* The value for an option whose record has none: the next option record. */
static const char *next_value(struct pstate *ps, char *const *argv, size_t *i, size_t end)
{
	if (*i + 1 >= end)
		return NULL;
	(*i)++;
	ps->show = argv[*i];
	return argv[*i];
}

static int parse_long_opt(struct pstate *ps, char *const *argv, size_t *i, size_t end)
{
	const char *rec = argv[*i] + 2;
	const char *eq = strchr(rec, '=');
	size_t nlen = eq ? (size_t)(eq - rec) : strlen(rec);
	const struct optdef *d = find_long(rec, nlen);
	int neg = 0;

	if (d == NULL && nlen > 3 && memcmp(rec, "no-", 3) == 0) {
		/* --no-NAME or --no-L */
		if (nlen == 4) {
			for (size_t k = 0; k < NOPTS && !d; k++)
				if (opts[k].letter == rec[3])
					d = &opts[k];
		} else {
			d = find_long(rec + 3, nlen - 3);
		}
		if (d && !(d->flags & F_NEG))
			d = NULL;
		neg = 1;
		/* only the --no- forms rsync has ("--no-stats" is unknown to it) */
		if (d && nlen < 64) {
			char spelled[64];

			memcpy(spelled, rec, nlen);
			spelled[nlen] = '\0';
			if (!refuse_known(spelled))
				d = NULL;
		}
	}
	if (d == NULL)
		return popt_fail(ps, "unknown option");
	if (ps->refuse && nlen < 64) {
		char spelled[64];

		memcpy(spelled, rec, nlen);
		spelled[nlen] = '\0';
		if (refuse_check(ps->refuse, spelled, 0, ps->err, ps->errlen) < 0)
			return -1;
	}
	if (d->fn == h_refuse)
		return h_refuse(ps, d, NULL, neg);
	if (neg || !(d->flags & F_ARG)) {
		if (eq)
			return popt_fail(ps, "option does not take an argument");
		return call(ps, d, NULL, neg);
	}
	if (eq)
		return call(ps, d, eq + 1, 0);
	{
		const char *v = next_value(ps, argv, i, end);

		if (v == NULL)
			return popt_fail(ps, "missing argument");
		return call(ps, d, v, 0);
	}
}

static int parse_cluster(struct pstate *ps, const struct optdef *const *by_letter,
			 char *const *argv, size_t *i, size_t end)
{
	const char *rec = argv[*i];

	for (const char *p = rec + 1; *p; p++) {
		unsigned char c = (unsigned char)*p;
		const struct optdef *d = c < 128 ? by_letter[c] : NULL;

		if (d == NULL)
			return popt_fail(ps, "unknown option");
		if (ps->refuse && refuse_check(ps->refuse, NULL, (char)c, ps->err, ps->errlen) < 0)
			return -1;
		if (d->fn == h_refuse)
			return h_refuse(ps, d, NULL, 0);
		if (!(d->flags & F_ARG)) {
			if (call(ps, d, NULL, 0) < 0)
				return -1;
			continue;
		}
		/* takes a value: the rest of the cluster, else the next record */
		if (p[1] != '\0')
			return call(ps, d, p + 1, 0);
		{
			const char *v = next_value(ps, argv, i, end);

			if (v == NULL)
				return popt_fail(ps, "missing argument");
			return call(ps, d, v, 0);
		}
	}
	return 0;
}

static void free_paths(struct options *o);

int options_parse(struct options *o, int protocol, char *const *argv, size_t argc,
		  char *err, size_t errlen)
{
	return options_parse_refusing(o, protocol, NULL, argv, argc, err, errlen);
}

int options_parse_refusing(struct options *o, int protocol, struct refuse *refuse, char *const *argv,
			   size_t argc, char *err, size_t errlen)
{
	const struct optdef *by_letter[128] = { 0 };
	struct pstate *ps;
	size_t dot, i;
	int rc = -1;

	memset(o, 0, sizeof(*o));
	o->implied_dirs = 1;
	o->compress_level = -1;
	if (err && errlen)
		err[0] = '\0';

	ps = calloc(1, sizeof(*ps));  /* holds a 5 KiB value buffer */
	if (ps == NULL) {
		if (err && errlen)
			snprintf(err, errlen, "rsync: out of memory parsing the arguments");
		return -1;
	}
	ps->o = o;
	ps->protocol = protocol;
	ps->err = err;
	ps->errlen = errlen;
	ps->refuse = refuse;

	for (i = 0; i < NOPTS; i++)
		if (opts[i].letter && by_letter[(unsigned char)opts[i].letter] == NULL)
			by_letter[(unsigned char)opts[i].letter] = &opts[i];

	/* Bounds first, so no later step sees an oversized list or record. */
	if (argc > OPT_MAX_ARGS) {
		fail(ps, "rsync: too many arguments (max %d)", OPT_MAX_ARGS);
		goto out;
	}
	for (i = 0; i < argc; i++) {
		if (argv[i] == NULL) {
			fail(ps, "rsync: missing argument record");
			goto out;
		}
		if (strnlen(argv[i], OPT_MAX_ARG_LEN + 1) > OPT_MAX_ARG_LEN) {
			fail(ps, "rsync: argument too long (max %d bytes)", OPT_MAX_ARG_LEN);
			goto out;
		}
	}
	if (argc == 0 || strcmp(argv[0], "--server") != 0) {
		fail(ps, "rsync: the first argument must be --server");
		goto out;
	}
	for (dot = 0; dot < argc && strcmp(argv[dot], ".") != 0; dot++)
		;
	if (dot == argc) {
		fail(ps, "rsync: no \".\" separating the options from the paths");
		goto out;
	}
	/* (argc bounds the paths too: rsyncd takes as many as its list holds) */
	if (argc - dot - 1 > 0 && (o->paths = calloc(argc - dot - 1, sizeof(*o->paths))) == NULL) {
		fail(ps, "rsync: out of memory storing the paths");
		goto out;
	}

	for (i = 0; i < dot; i++) {
		const char *rec = argv[i];

		ps->show = rec;
		if (rec[0] == '-' && rec[1] == '-' && rec[2] != '\0') {
			if (parse_long_opt(ps, argv, &i, dot) < 0)
				goto out;
		} else if (rec[0] == '-' && rec[1] != '-' && rec[1] != '\0') {
			if (parse_cluster(ps, by_letter, argv, &i, dot) < 0)
				goto out;
		} else {
			/* "-", "--", "(null)" or any other non-option before the
			 * "."; stock would take it as a file name, we do not. */
			popt_fail(ps, "unexpected argument before \".\"");
			goto out;
		}
	}

	if (refuse && refuse_implied(refuse, o, err, errlen) < 0)
		goto out;
	/* Stock's post-parse rules the sender relies on. */
	if ((o->files_from_socket || o->files_from_path[0]) && !ps->relative_explicit)
		o->relative = 1;       /* --files-from implies -R unless --no-relative */
	if ((o->files_from_socket || o->files_from_path[0]) && !o->recursive)
		o->dirs = 1;           /* ... and -d: listed directories are created, not skipped */
	if (o->append == 1 && protocol < 30)
		o->append = 2;         /* old protocols only know append-verify */

	for (i = dot + 1; i < argc; i++) {
		char *p = strdup(argv[i]);

		if (p == NULL) {
			fail(ps, "rsync: out of memory storing the paths");
			goto out;
		}
		o->paths[o->npaths++] = p;
	}
	rc = 0;
out:
	if (rc < 0)
		free_paths(o); /* the filter arguments stay (options.h) */
	free(ps);
	return rc;
}

static void free_paths(struct options *o)
{
	for (size_t i = 0; i < o->npaths; i++)
		free(o->paths[i]);
	free(o->paths);
	o->paths = NULL;
	o->npaths = 0;
}

void options_free(struct options *o)
{
	free_paths(o);
	for (size_t i = 0; i < o->nfilters; i++)
		free(o->filters[i].arg);
	free(o->filters);
	o->filters = NULL;
	o->nfilters = 0;
}
