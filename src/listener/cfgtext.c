/* SPDX-License-Identifier: ISC */
/*
 * rsyncd.conf syntax: lines, continuations, comments, sections, &include
 * and &merge, and the messages that cite them; the directives themselves
 * are config.c's.  The parse goes on after an error, so --check-config
 * reports every problem of a file at once.
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
 *  - A line without '=' gets stock's warning and is skipped.
 *  - Module names are trimmed and internal runs of blanks become one space,
 *    as rsyncd.conf(5) says ("[ a   b ]" is module "a b").
 *  - "[global]" is recognised case-insensitively after that normalisation;
 *    stock accepts "[ GLOBAL ]" too.
 *  - Text after a section's ']' is ignored, as stock ignores it (with a
 *    warning unless it is a '#'/';' comment).
 *  - Section names compare as stock compares them, without case and blanks:
 *    "[global]", "[ GLOBAL ]" and "[glo bal]" are the global section, and a
 *    later "[Pub]" continues an earlier module "[pub]" (a warning).
 *  - &include FILE|DIR parses each file (a directory's *.conf, sorted) in
 *    the global context, with the defaults in effect, and leaves both as
 *    they were: the rest of the file continues in the global context.
 *    &merge FILE|DIR (*.inc) is as if the text stood in place.  An unknown
 *    &directive is an error, a bare "&include" a badly formed line.  The
 *    directive's name is any case and ends at a blank or '='; one '='
 *    after it is dropped ("&include = DIR", "&merge=FILE").  A relative
 *    name is taken from the working directory prsyncd started in, as
 *    stock takes it from its own.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>
#include <unistd.h>

#include "cfgfile.h"
#include "cfgparse.h"

#define CFG_MAX_MODNAME 255
#define CFG_MAX_ERRORS 1000  /* reported per file; the rest are counted */
#define CFG_MAX_DEPTH 8      /* &include/&merge nesting */
#define CFG_MAX_FILES 256    /* files read through &include/&merge */

__attribute__((format(printf, 5, 0)))
static void vformat(char *buf, size_t len, const struct parser *p, int line,
		    const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s:%d: ", p->name, line);

	/* Inside a module, messages say which (unless they already do). */
	if (n >= 0 && (size_t)n < len && p->cur && p->cur->name && strncmp(fmt, "module [", 8) != 0) {
		int k = snprintf(buf + n, len - (size_t)n, "module [%s]: ", p->cur->name);

		n = k >= 0 ? n + k : n;
	}
	if (n >= 0 && (size_t)n < len)
		vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

static int push_msg(size_t *n, char ***v, const char *text)
{
	char *msg = strdup(text), **grown;

	grown = msg ? realloc(*v, (*n + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(msg);
		return -1;
	}
	grown[(*n)++] = msg;
	*v = grown;
	return 0;
}

/* Record an error; the parse goes on with the next line.  Always -1. */
__attribute__((format(printf, 3, 4)))
int cfg_fail_at(struct parser *p, int line, const char *fmt, ...)
{
	char buf[CFG_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vformat(buf, sizeof buf, p, line, fmt, ap);
	va_end(ap);
	if (p->nerrors++ == 0 && p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s", buf);
	if (p->errors && p->errors->n < CFG_MAX_ERRORS)
		(void)push_msg(&p->errors->n, &p->errors->v, buf);
	return -1;
}

__attribute__((format(printf, 3, 0)))
int cfg_vwarn(struct parser *p, int line, const char *fmt, va_list ap)
{
	char buf[CFG_ERR_MAX];

	vformat(buf, sizeof buf, p, line, fmt, ap);
	if (push_msg(&p->cfg->nwarnings, &p->cfg->warnings, buf) < 0)
		return fail(p, "out of memory");
	return 0;
}

__attribute__((format(printf, 3, 4)))
int cfg_warn_at(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cfg_vwarn(p, line, fmt, ap);
	va_end(ap);
	return rc;
}

int cfg_is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

static char *trim(char *s)
{
	size_t n;

	while (cfg_is_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && cfg_is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Trim and turn each inner run of blanks into one space, in place. */
static char *squeeze(char *s)
{
	char *r, *w;

	s = trim(s);
	for (r = w = s; *r; r++) {
		if (cfg_is_blank(*r)) {
			if (!cfg_is_blank(r[1]))
				*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return s;
}

/* rsyncd compares section names as it compares keys: without case and
 * blanks ("[Pub]" and "[p ub]" are "[pub]"). */
static int section_eq(const char *a, const char *b)
{
	for (;;) {
		while (cfg_is_blank(*a))
			a++;
		while (cfg_is_blank(*b))
			b++;
		if (!*a || !*b)
			return *a == *b;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		a++;
		b++;
	}
}

static struct cfg_module *find_section(struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->cfg->nmodules; i++)
		if (section_eq(p->cfg->modules[i].name, name))
			return &p->cfg->modules[i];
	return NULL;
}

static int check_module_name(struct parser *p, const char *name)
{
	const unsigned char *c;

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
	if (p->cfg->nmodules >= CFG_MAX_MODULES)
		return fail(p, "more than %d modules", CFG_MAX_MODULES);
	return 0;
}

/* After a broken header, the section's lines are still checked, in a
 * module nobody will see. */
static int broken_section(struct parser *p)
{
	cfg_module_free(&p->scratch);
	if (cfg_module_copy(&p->scratch, &p->defaults) == 0)
		p->cur = &p->scratch;
	return -1;
}

static int do_section(struct parser *p, char *s)
{
	struct cfg *c = p->cfg;
	struct cfg_module *m;
	char *close = strchr(s, ']'), *rest, *name;
	int rc = cfg_end_module(p);

	if (!close)
		return fail(p, "section header without a closing ']'"), broken_section(p);
	for (rest = close + 1; cfg_is_blank(*rest); rest++)
		;
	if (*rest && *rest != '#' && *rest != ';' &&
	    cfg_warn_at(p, p->line, "text after ']' ignored, as rsyncd ignores it: \"%.80s\"", rest) < 0)
		return -1;
	*close = '\0';
	name = squeeze(s + 1);

	if (section_eq(name, "global"))
		return rc;
	if ((m = find_section(p, name)) != NULL) {
		p->cur = m;
		return rc | cfg_warn_at(p, p->line, "module [%s] (a second section) continues module [%s] of line %d, as rsyncd "
					"continues it", name, m->name, m->line);
	}
	if (check_module_name(p, name))
		return broken_section(p);
	if (c->nmodules == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct cfg_module *grown = realloc(c->modules, cap * sizeof *grown);

		if (!grown)
			return fail(p, "out of memory");
		c->modules = grown;
		p->cap = cap;
	}
	m = &c->modules[c->nmodules];
	if (cfg_module_copy(m, &p->defaults) || !(m->name = strdup(name))) {
		cfg_module_free(m);
		return fail(p, "out of memory");
	}
	m->line = p->line;
	c->nmodules++;
	p->cur = m;
	return rc;
}

static int parse_lines(struct parser *p, const char *text, size_t len);

/* rsyncd takes a relative name from its working directory, which it never
 * leaves; the listener moves to "/" when it detaches, so that directory is
 * the one the first load ran in (main.c loads before detaching). */
static const char *start_dir(void)
{
	static char dir[PATH_MAX];
	static int have;

	if (!have && getcwd(dir, sizeof dir) != NULL)
		have = 1;
	return have ? dir : NULL;
}

static int include_path(const char *arg, char *out, size_t outlen)
{
	const char *dir = arg[0] == '/' ? NULL : start_dir();
	int n;

	if (arg[0] != '/' && dir == NULL)
		return -1;
	n = dir ? snprintf(out, outlen, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", arg)
		: snprintf(out, outlen, "%s", arg);
	return n >= 0 && (size_t)n < outlen ? 0 : -1;
}

/* &include and &merge (see the top of this file). */
static int do_include(struct parser *p, const char *arg, int merge)
{
	const char *outer = p->name, *what = merge ? "&merge" : "&include";
	struct cfg_module saved;
	char path[PATH_MAX], why[256], *text;
	char **files;
	size_t n, len;
	int line = p->line, rc = 0;

	if (p->depth >= CFG_MAX_DEPTH)
		return fail(p, "%s %s: nested more than %d deep", what, arg, CFG_MAX_DEPTH);
	if (include_path(arg, path, sizeof path) < 0)
		return fail(p, "%s %s: name too long, or no working directory to take it from", what, arg);
	if (cfgfile_list(path, merge ? ".inc" : ".conf", &files, &n, why, sizeof why) < 0)
		return fail(p, "%s %s: %s", what, path, why);
	for (size_t i = 0; i < n; i++) {
		if (++p->nfiles > CFG_MAX_FILES) {
			rc = cfg_fail_at(p, line, "%s %s: more than %d files in all", what, path, CFG_MAX_FILES);
			break;
		}
		if (cfgfile_read(files[i], CFGFILE_MAX, &text, &len, why, sizeof why) < 0) {
			rc = cfg_fail_at(p, line, "%s %s: %s", what, files[i], why);
			continue;
		}
		if (!merge && (cfg_end_module(p) || cfg_module_copy(&saved, &p->defaults) < 0)) {
			free(text);
			rc = cfg_fail_at(p, line, "%s %s: out of memory", what, files[i]);
			continue;
		}
		p->name = files[i];
		p->depth++;
		rc |= parse_lines(p, text, len);
		p->depth--;
		if (!merge) {
			rc |= cfg_end_module(p);
			cfg_module_free(&p->defaults);
			p->defaults = saved;
		}
		p->name = outer;
		free(text);
	}
	cfgfile_free_list(files, n);
	p->line = line;
	return rc;
}

static int lower_eq(char c, char want)
{
	return (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) == want;
}

/* "&include FILE", "&include = FILE", "&include=FILE" (any case), as
 * rsyncd reads them: the name ends at the first space, tab or '=', and
 * one '=' after the blanks that follow it is dropped.  A name alone is a
 * badly formed line (skipped); an empty value names no file. */
static int do_directive(struct parser *p, char *s)
{
	size_t n = strcspn(s, " \t=");
	char *arg = s + n, *name = s;
	int had_sep = *arg != '\0';

	if (*arg == '=') {
		*arg++ = '\0';
	} else if (*arg) {
		*arg++ = '\0';
		arg = trim(arg);
		if (*arg == '=')
			arg++;
	}
	arg = trim(arg);
	if (strcasecmp(name, "&include") != 0 && strcasecmp(name, "&merge") != 0)
		return fail(p, "unknown directive \"%.80s\" (rsyncd knows &include and &merge)", name);
	if (!had_sep)
		return cfg_warn_at(p, p->line, "Ignoring badly formed line in config file: %.80s "
				   "(no '=': skipped, as rsyncd skips it)", name);
	if (!*arg)
		return fail(p, "%s names no file (rsyncd: unable to stat config file \"\")", name);
	return do_include(p, arg, lower_eq(name[1], 'm'));
}

static int do_line(struct parser *p, char *s)
{
	char *eq;

	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '[')
		return do_section(p, s);
	if (*s == '&')
		return do_directive(p, s);
	eq = strchr(s, '=');
	if (!eq)
		return cfg_warn_at(p, p->line, "Ignoring badly formed line in config file: %.80s "
			       "(no '=': skipped, as rsyncd skips it)", s);
	*eq = '\0';
	s = trim(s);
	if (!*s)
		return fail(p, "missing parameter name before '='");
	return cfg_param(p, s, trim(eq + 1));
}

/* Split into physical lines and join continuations into logical ones.
 * A line in error is reported and skipped. */
static int parse_lines(struct parser *p, const char *text, size_t len)
{
	char line[CFG_MAX_LINE + 1];
	const char *pos = text, *end = text + len, *nl, *stop, *q;
	size_t used = 0, n, k, take;
	int lineno = 0, open = 0, cont, rc = 0, skip = 0;

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
			return cfg_fail_at(p, lineno, "NUL byte in line");
		if (!open) {
			for (q = pos; q < stop && cfg_is_blank(*q); q++)
				;
			if (q == stop || *q == '#' || *q == ';') {
				pos = nl ? nl + 1 : end;
				continue;
			}
		}
		for (k = n; k > 0 && cfg_is_blank(pos[k - 1]); k--)
			;
		cont = nl && k > 0 && pos[k - 1] == '\\';
		take = cont ? k - 1 : n;
		if (!skip && take > CFG_MAX_LINE - used)
			skip = fail(p, "line longer than %d bytes", CFG_MAX_LINE);
		if (!skip)
			memcpy(line + used, pos, take);
		used += skip ? 0 : take;
		pos = nl ? nl + 1 : end;
		open = cont;
		if (!open) {
			line[used] = '\0';
			used = 0;
			rc |= skip ? -1 : do_line(p, line);
			skip = 0;
		}
	}
	if (open && !skip) {
		line[used] = '\0';
		rc |= do_line(p, line);
	}
	p->line = lineno;
	return rc;
}

static int parse_all(const char *name, const char *text, size_t len, struct cfg *out,
		     struct cfg_errors *errors, char *err, size_t errlen)
{
	struct parser p;
	int rc;

	(void)start_dir();
	memset(&p, 0, sizeof p);
	p.name = name ? name : "(config)";
	p.cfg = out;
	p.errors = errors;
	p.err = err;
	p.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (cfg_defaults(out, &p.defaults))
		rc = cfg_fail_at(&p, 0, "out of memory");
	else if (!text && len)
		rc = cfg_fail_at(&p, 0, "no text");
	else
		rc = len ? parse_lines(&p, text, len) : 0;
	rc |= cfg_end_module(&p);
	/* rsyncd's global "reverse lookup" is the global section's value */
	out->reverse_lookup = p.defaults.reverse_lookup;
	/* and its "timeout" bounds the text phase before a module is chosen */
	out->timeout = p.defaults.timeout;
	if (rc == 0 && cfg_finish(&p) < 0)
		rc = -1;
	cfg_module_free(&p.defaults);
	cfg_module_free(&p.scratch);
	if (p.nerrors > 1 && err && errlen) {
		size_t used = strlen(err);

		snprintf(err + used, errlen - used, " (and %zu more error%s: prsyncd --check-config lists them)",
			 p.nerrors - 1, p.nerrors > 2 ? "s" : "");
	}
	return rc || p.nerrors ? -1 : 0;
}

int cfg_parse(const char *name, const char *text, size_t len, struct cfg *out,
	      char *err, size_t errlen)
{
	struct cfg c;

	memset(out, 0, sizeof *out);
	if (parse_all(name, text, len, &c, NULL, err, errlen) < 0) {
		cfg_free(&c);
		return -1;
	}
	*out = c;
	return 0;
}

int cfg_load_all(const char *file, struct cfg *out, struct cfg_errors *errors)
{
	char why[256], msg[CFG_ERR_MAX], *buf;
	size_t n;
	int rc;

	memset(out, 0, sizeof *out);
	memset(errors, 0, sizeof *errors);
	if (cfgfile_read(file, CFGFILE_MAX, &buf, &n, why, sizeof why) < 0) {
		snprintf(msg, sizeof msg, "%s: %s", file, why);
		(void)push_msg(&errors->n, &errors->v, msg);
		return -1;
	}
	rc = parse_all(file, buf, n, out, errors, NULL, 0);
	free(buf);
	return rc;
}

void cfg_errors_free(struct cfg_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

int cfg_load(const char *file, struct cfg *out, char *err, size_t errlen)
{
	char why[256], *buf;
	size_t n;
	int rc;

	memset(out, 0, sizeof *out);
	if (cfgfile_read(file, CFGFILE_MAX, &buf, &n, why, sizeof why) < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", file, why);
		return -1;
	}
	rc = cfg_parse(file, buf, n, out, err, errlen);
	free(buf);
	return rc;
}

