/* SPDX-License-Identifier: ISC */
/*
 * The client's filter list on the sending side (spec part 2, section 3).
 *
 * The filter arguments of the command line (-M--filter=..., -M-F) and
 * then the received rules form one list, checked first-match-wins.  Two kinds
 * of entry stand for other lists: a per-directory merge rule (":name",
 * from -F, -C or dir-merge) refers to a slot whose rules come from the
 * files found in the directories being scanned, and the "-C" rule refers
 * to the CVS default list.  A slot keeps one layer per directory depth,
 * deepest checked first, so entering a directory only drops the layers of
 * its depth and below and reads its own file (filters.h).
 *
 * Merge files are read through the monitor like any module file: the
 * module's own filters apply to them (a hidden one does not exist), and
 * their size, number and nesting are bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "filters.h"
#include "fsclient.h"
#include "mon.h"

#define RULE_MAX 5120             /* one received rule's text */
#define RULES_MAX 100000          /* rules in all lists together */
#define MERGE_FILE_MAX (1u << 20) /* bytes of one merge file */
#define MERGE_DEPTH_MAX 32        /* files read inside each other, as rsync's MAX_MERGE_DEPTH */
/* A "merge" rule of a few bytes costs a file read, and files name files:
 * what the client's rules (command line and list) make the worker read in
 * a session, and what each per-directory file does (those are read once
 * per directory, so their budget is per file). */
#define MERGE_READS_MAX 16384u
#define MERGE_BYTES_MAX (256u << 20)
#define LAYER_READS_MAX 256u
#define LAYER_BYTES_MAX (16u << 20)
#define SLOTS_MAX 64              /* per-directory merge rules */
#define WHERE_MAX (PR_RELPATH_MAX + 64)

enum { REF_RULE = -1, REF_CVS = -2 };

struct ent {
	struct pr_rule r;
	int ref;          /* REF_RULE, REF_CVS, or a slot index */
};

struct list {
	struct ent *e;
	size_t n, cap;
	int has_cvs;      /* a "-C" is in the list: a second one adds nothing */
};

struct layer {
	int depth;
	int clears;       /* a "!" in this file: nothing above it applies */
	struct list l;
};

struct slot {
	uint32_t flags;   /* the dir-merge rule's: template for its files */
	char *name;       /* file name looked for in each directory */
	int scan_parents; /* "/name": read from the module root down too */
	int from_file;    /* the rule was read from a file: its files' names are not shown */
	int set_up;
	struct layer *ly;
	size_t n, cap;
};

static struct list top, cvs;
static struct slot slots[SLOTS_MAX];
static size_t nslots;
static size_t nrules;
static int cur_depth;
static int cvs_ready;
static uint64_t checks;   /* entries of rule lists visited, for the tests */

struct budget {
	size_t reads, bytes;
	size_t max_reads, max_bytes;
};
static struct budget client_budget = { 0, 0, MERGE_READS_MAX, MERGE_BYTES_MAX };

static struct io *fio; /* the session's, for errors while parsing */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL)
		io_fatal(fio, RERR_MALLOC, "out of memory reading filter rules [sender]");
	return q;
}

static void list_push(struct list *l, const struct pr_rule *r, int ref)
{
	if (++nrules > RULES_MAX)
		io_fatal(fio, RERR_PROTOCOL, "too many filter rules [sender]");
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->e = xrealloc(l->e, l->cap * sizeof(*l->e));
	}
	l->e[l->n].r = *r;
	l->e[l->n].ref = ref;
	l->n++;
}

static void list_clear(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		pr_rule_free(&l->e[i].r);
	nrules -= l->n < nrules ? l->n : nrules;
	l->n = 0;
	l->has_cvs = 0;
}

/* Module path of `name` seen from directory `dir`: a leading '/' means
 * the module root; ".." never climbs above it.  -1 if too long. */
static int resolve(const char *dir, const char *name, char *out, size_t cap)
{
	char tmp[PR_RELPATH_MAX * 2];
	size_t o = 0;
	int n = snprintf(tmp, sizeof(tmp), "%s/%s", name[0] == '/' ? "" : dir, name);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	for (char *c = strtok(tmp, "/"); c; c = strtok(NULL, "/")) {
		size_t len = strlen(c);

		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (o > 0 && out[o - 1] != '/')
				o--;
			o -= o > 0;
			continue;
		}
		if (o + len + 2 > cap)
			return -1;
		if (o)
			out[o++] = '/';
		memcpy(out + o, c, len);
		o += len;
	}
	out[o] = '\0';
	return 0;
}

/* Read an open module file into a new buffer (at most MERGE_FILE_MAX
 * bytes, one more to tell a larger file) and close it. */
static size_t slurp(int fd, uint32_t handle, char **out)
{
	char *buf = xrealloc(NULL, MERGE_FILE_MAX + 1);
	size_t len = 0;

	while (len <= MERGE_FILE_MAX) {
		ssize_t n = pread(fd, buf + len, MERGE_FILE_MAX + 1 - len, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	fsc_close(fd, handle);
	*out = buf;
	return len;
}

/* Read a module file through the monitor into a new buffer.  Returns its
 * length, or -1 with errno (ENOENT also for a module-hidden file). */
static ssize_t read_file(const char *path, char **out)
{
	struct pr_stat st;
	uint32_t handle;
	size_t len;
	int fd, err;

	if ((err = fsc_open(path, &fd, &handle, &st)) != 0) {
		errno = err;
		return -1;
	}
	if ((len = slurp(fd, handle, out)) > MERGE_FILE_MAX)
		io_fatal(fio, RERR_FILEIO, "merge file %s is larger than %u bytes [sender]", path, MERGE_FILE_MAX);
	(*out)[len] = '\0';
	return (ssize_t)len;
}

struct ctx {
	uint32_t tflags;      /* template flags for the rules read */
	unsigned xflags;
	const char *dir;      /* module path merge names are relative to */
	const char *anchor;   /* directory anchored rules belong to, or NULL */
	int nest;             /* files being read, this one included */
	int *clears;          /* where a "!" is recorded, or NULL */
	struct budget *budget; /* what "merge" rules may still read */
	/* Where the text comes from.  rsync 3.5.0 never shows a rule read from
	 * a file in a message, only where it was ("<rule from F line N>"), and
	 * not the name of a file a rule from a file named. */
	int in_file;
	const char *file;     /* the file's name as rsyncd shows it; NULL when a
			       * rule read from a file named it */
	const char *named_at; /* then where that rule was (NULL: "a file read earlier") */
	int line;             /* the line, or -1 in a word-split file */
};

static const char *where(const struct ctx *c, char *buf, size_t cap)
{
	if (c->file == NULL) {
		if (c->named_at == NULL)
			return "a file read earlier";
		snprintf(buf, cap, "a file named at %s", c->named_at);
	} else if (c->line < 0) {
		snprintf(buf, cap, "%s", c->file);
	} else {
		snprintf(buf, cap, "%s line %d", c->file, c->line);
	}
	return buf;
}

/* A rule's text as a message may show it: itself if it was an argument
 * or came in the client's list, else where it was read. */
static const char *rule_text(const struct ctx *c, const char *text, int len, char *buf, size_t cap)
{
	char at[WHERE_MAX];

	if (c->in_file)
		snprintf(buf, cap, "<rule from %s>", where(c, at, sizeof(at)));
	else
		snprintf(buf, cap, "%.*s", len, text);
	return buf;
}

static void add_text(struct list *l, const char *text, const struct ctx *c);

/* Parse a file's contents: lines (a CR LF is one end) or words; comments
 * and empty lines skipped but counted. */
static void add_file_text(struct list *l, char *buf, size_t len, const struct ctx *parent)
{
	struct ctx c = *parent;
	int words = (c.tflags & PR_FR_WORDS) != 0;

	c.in_file = 1;
	c.line = words ? -1 : 0;
	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && buf[j] != '\0' && buf[j] != '\n' && buf[j] != '\r' &&
		       !(words && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\f' || buf[j] == '\v')))
			j++;
		if (j + 1 < len && buf[j] == '\r' && buf[j + 1] == '\n')
			buf[j++] = '\0';
		buf[j] = '\0';
		if (!words)
			c.line++;
		if (buf[i] && (words || (buf[i] != ';' && buf[i] != '#')))
			add_text(l, buf + i, &c);
		i = j + 1;
	}
}

/* The failure to read a merge file ends the session (rsyncd reads every
 * "merge" with XFLG_FATAL_ERRORS): the name and errno if the name was
 * an argument or in the client's list, where it was if it was read. */
__attribute__((noreturn)) static void merge_failed(const struct pr_rule *r, const char *shown, int err,
						    const struct ctx *c)
{
	const char *kind = (r->flags & PR_FR_INCLUDE) ? "in" : "ex";
	char text[WHERE_MAX + 16];

	if (c->in_file)
		io_fatal(fio, RERR_FILEIO, "failed to open %sclude file %s", kind,
			 rule_text(c, NULL, 0, text, sizeof(text)));
	io_fatal(fio, RERR_FILEIO, "rsync: [sender] failed to open %sclude file %s: %s (%d)", kind, shown,
		 strerror(err), err);
}

/*
 * A "merge" rule (from the client's list, the command line or a file):
 * read the named file now into l, judged as rsync 3.5.0 judges it.  The
 * name is a module path (from c->dir, "/" from the module root, ".."
 * stopping there, as in rsyncd's chroot); a file the module's filters
 * hide by its name is skipped without a word, as rsyncd skips it; one
 * that is not a regular file (a directory) reads as empty, as rsyncd's
 * read of a directory does; any other failure ends the session.  What
 * the filters hide only through a symlink is absent here (rsyncd reads
 * it: docs/configuration.md).
 */
static void merge_file(struct list *l, const struct pr_rule *r, const char *name, const struct ctx *c)
{
	char path[PR_RELPATH_MAX], shown[PR_RELPATH_MAX + 1], text[WHERE_MAX + 16], at[WHERE_MAX];
	struct ctx sub = *c;
	struct pr_stat st;
	uint32_t handle;
	size_t len;
	char *buf;
	int fd, err;

	if (c->nest >= MERGE_DEPTH_MAX)
		io_fatal(fio, RERR_FILEIO, "[sender] merge-file include depth limit (%d) exceeded at %s",
			 MERGE_DEPTH_MAX, rule_text(c, name, (int)strlen(name), text, sizeof(text)));
	if (resolve(c->dir, name, path, sizeof(path)) < 0) {
		io_msg(fio, MSG_ERROR, "merge-file name overflows: %s",
		       rule_text(c, name, (int)strlen(name), text, sizeof(text)));
		return;
	}
	/* rsyncd names a file by what it opened: a name with a '/' made
	 * absolute from the module root, one without as it was given */
	snprintf(shown, sizeof(shown), "%s%s", strchr(name, '/') ? "/" : "", strchr(name, '/') ? path : name);
	if (++c->budget->reads > c->budget->max_reads)
		io_fatal(fio, RERR_FILEIO, "too many merge files read (more than %zu) [sender]",
			 c->budget->max_reads);
	err = fsc_open_judged(path, &fd, &handle, &st);
	if (err == PR_EHIDDEN || err == EINVAL)
		return;
	if (err != 0)
		merge_failed(r, shown, err, c);
	len = slurp(fd, handle, &buf);
	if (len > MERGE_FILE_MAX || (c->budget->bytes += len) > c->budget->max_bytes)
		io_fatal(fio, RERR_FILEIO, "merge file %s: more than %u bytes in one, or %zu in all [sender]",
			 c->in_file ? rule_text(c, NULL, 0, text, sizeof(text)) : shown, MERGE_FILE_MAX,
			 c->budget->max_bytes);
	buf[len] = '\0';
	sub.tflags = r->flags;
	sub.nest = c->nest + 1;
	sub.file = shown;
	sub.named_at = NULL;
	if (c->in_file) { /* named by a rule read from a file: say where that was */
		snprintf(at, sizeof(at), "%s", where(c, text, sizeof(text)));
		sub.file = NULL;
		sub.named_at = at;
	}
	add_file_text(l, buf, len, &sub);
	free(buf);
}

static void merge_now(struct list *l, const struct pr_rule *r, const char *pat, size_t len,
		      const struct ctx *c)
{
	char name[PR_RELPATH_MAX + 1];
	struct ctx sub = *c;

	snprintf(name, sizeof(name), "%.*s", (int)len, pat);
	sub.xflags = c->xflags & ~PR_FX_OLD_PREFIXES;
	merge_file(l, r, name, &sub);
}

/* A "dir-merge" rule: a new slot, referred to from l. */
static void add_slot(struct list *l, const struct pr_rule *r, const char *pat, size_t len, const struct ctx *c)
{
	struct slot *sl;
	const char *base = pat;
	struct pr_rule ref = { .flags = r->flags };

	if (l != &top)
		io_fatal(fio, RERR_UNSUPPORTED, "dir-merge rules inside per-directory merge files are not "
			 "supported by this prsyncd [sender]");
	for (size_t i = 0; i < len; i++)
		if (pat[i] == '/')
			base = pat + i + 1;
	/* As rsyncd: a per-directory file already named is not added again. */
	for (size_t i = 0; i < nslots; i++)
		if (strlen(slots[i].name) == (size_t)(pat + len - base) &&
		    memcmp(slots[i].name, base, (size_t)(pat + len - base)) == 0)
			return;
	if (nslots == SLOTS_MAX)
		io_fatal(fio, RERR_PROTOCOL, "too many dir-merge rules [sender]");
	sl = &slots[nslots];
	memset(sl, 0, sizeof(*sl));
	sl->flags = r->flags;
	sl->scan_parents = pat[0] == '/';
	sl->from_file = c->in_file;
	sl->name = xrealloc(NULL, (size_t)(pat + len - base) + 1);
	memcpy(sl->name, base, (size_t)(pat + len - base));
	sl->name[pat + len - base] = '\0';
	list_push(l, &ref, (int)nslots++);
}

static void cvs_setup(void)
{
	const struct ctx c = { .tflags = PR_FR_NO_PREFIX | PR_FR_WORDS | PR_FR_CVS, .dir = "",
			       .nest = 1, .file = "/.cvsignore", .budget = &client_budget };
	char *buf;
	ssize_t n;

	if (cvs_ready)
		return;
	cvs_ready = 1;
	add_text(&cvs, pr_cvs_default, &(struct ctx){ .tflags = c.tflags, .dir = "", .budget = &client_budget });
	/* rsyncd in a chroot reads the module's own /.cvsignore */
	if ((n = read_file(".cvsignore", &buf)) >= 0) {
		add_file_text(&cvs, buf, (size_t)n, &c);
		free(buf);
	}
}

/* A parse error: rsyncd's text, with a rule read from a file shown by
 * where it was. */
__attribute__((noreturn)) static void syntax_error(const char *err, const struct ctx *c)
{
	const char *sep = strstr(err, ": ");
	char text[WHERE_MAX + 16];

	if (c->in_file && sep)
		io_fatal(fio, RERR_SYNTAX, "%.*s: %s", (int)(sep - err), err, rule_text(c, NULL, 0, text, sizeof(text)));
	io_fatal(fio, RERR_SYNTAX, "%s", err);
}

/* Parse rules from text (one line of a list or file) into l. */
static void add_text(struct list *l, const char *text, const struct ctx *c)
{
	const char *s = text;

	for (;;) {
		char err[512], shown[WHERE_MAX + 16];
		struct pr_rule r;
		const char *pat;
		size_t len;
		int rc = pr_rule_parse(&s, c->tflags, c->xflags, &r, &pat, &len, err, sizeof(err));

		if (rc == 0)
			return;
		if (rc < 0)
			syntax_error(err, c);
		if (r.flags & PR_FR_CLEAR) {
			list_clear(l);
			if (c->clears)
				*c->clears = 1;
			continue;
		}
		if (len > PR_FILT_PAT_MAX) {
			io_msg(fio, MSG_ERROR, "discarding over-long filter: %s%s",
			       rule_text(c, pat, 40, shown, sizeof(shown)), c->in_file ? "" : "...");
			continue;
		}
		if (r.flags & PR_FR_MERGE) {
			if (len == 0) {
				pat = ".cvsignore";
				len = 10;
			}
			if (r.flags & PR_FR_EXCL_SELF) {
				struct pr_rule self = { 0 };
				const char *b = pat + len;

				while (b > pat && b[-1] != '/')
					b--;
				if (pr_rule_finish(&self, b, (size_t)(pat + len - b), 0, NULL) == 0)
					list_push(l, &self, REF_RULE);
				r.flags &= ~PR_FR_EXCL_SELF;
			}
			if (r.flags & PR_FR_PERDIR)
				add_slot(l, &r, pat, len, c);
			else
				merge_now(l, &r, pat, len, c);
			continue;
		}
		if (!pr_rule_for_sender(&r))
			continue;
		if (pr_rule_finish(&r, pat, len, c->xflags & ~PR_FX_OLD_PREFIXES, c->anchor) < 0)
			io_fatal(fio, RERR_MALLOC, "out of memory reading filter rules [sender]");
		if (r.flags & PR_FR_CVS) {
			/* The CVS list once: a later "-C" of the same list could
			 * only re-check what the first already did not match
			 * (first match wins), and rsyncd adds the list once. */
			pr_rule_free(&r);
			cvs_setup();
			if (!l->has_cvs)
				list_push(l, &r, REF_CVS);
			l->has_cvs = 1;
			continue;
		}
		list_push(l, &r, REF_RULE);
	}
}

/*
 * The filter arguments of the server command line, in their order, ahead
 * of everything the client's list adds (rsync's options.c adds them as it
 * parses).  --exclude-from/--include-from name a module file whose lines
 * are rules ("- "/"+ " prefixes only); where the module has filters,
 * rsyncd rejects an empty name or one they hide ("Your options have been
 * rejected by the server.") before it opens anything.
 */
int filters_from_args(struct sess *s, char *err, size_t errlen)
{
	fio = &s->io;
	for (size_t i = 0; i < s->opt.nfilters; i++) {
		const struct opt_filter *f = &s->opt.filters[i];
		int include = f->kind == OPT_FILT_INCLUDE || f->kind == OPT_FILT_INCLUDE_FROM;
		struct ctx c = { .tflags = include ? PR_FR_INCLUDE : 0, .dir = "", .budget = &client_budget,
				 .xflags = f->kind == OPT_FILT_RULE ? 0 : PR_FX_OLD_PREFIXES };
		struct pr_rule r = { .flags = c.tflags };

		if (f->kind == OPT_FILT_RULE || f->kind == OPT_FILT_EXCLUDE || f->kind == OPT_FILT_INCLUDE) {
			add_text(&top, f->arg, &c);
			continue;
		}
		/* no name: nothing to read (rsyncd without a chroot reads ".",
		 * a directory: nothing either) unless rejected below */
		if (f->arg[0] == '\0' && (s->hs.module_flags & (PR_MOD_FILTERS | PR_MOD_CHROOT)) !=
					  (PR_MOD_FILTERS | PR_MOD_CHROOT))
			continue;
		if (s->hs.module_flags & PR_MOD_FILTERS) {
			char path[PR_RELPATH_MAX];
			struct pr_stat st;
			uint32_t handle;
			int fd, e = -1;

			if (f->arg[0] && resolve("", f->arg, path, sizeof(path)) == 0 &&
			    (e = fsc_open_judged(path, &fd, &handle, &st)) == 0)
				fsc_close(fd, handle);
			if (e == PR_EHIDDEN || f->arg[0] == '\0') {
				snprintf(err, errlen, "rsync: Your options have been rejected by the server.");
				return -1;
			}
		}
		c.file = f->arg;
		merge_file(&top, &r, f->arg, &c);
	}
	return 0;
}
void filters_recv(struct sess *s)
{
	static char rule[RULE_MAX + 1];
	struct ctx c = { .xflags = s->protocol < 29 ? PR_FX_OLD_PREFIXES : 0, .dir = "", .budget = &client_budget };

	fio = &s->io;
	for (;;) {
		int32_t len = io_read_int32(&s->io);

		if (len == 0)
			break;
		if (len < 0 || len > RULE_MAX)
			io_fatal(&s->io, RERR_PROTOCOL, "filter rule length %d out of range [sender]", len);
		io_read(&s->io, rule, (size_t)len);
		rule[len] = '\0';
		if (memchr(rule, '\0', (size_t)len) != NULL)
			io_fatal(&s->io, RERR_PROTOCOL, "filter rule with a NUL byte [sender]");
		add_text(&top, rule, &c);
	}
	if (s->opt.cvs_exclude) {
		c.xflags = 0;
		add_text(&top, ":C", &c);
		add_text(&top, "-C", &c);
	}
}


/* ---- per-directory merge files ------------------------------------------ */

static struct layer *new_layer(struct slot *sl, int depth)
{
	if (sl->n == sl->cap) {
		sl->cap = sl->cap ? sl->cap * 2 : 8;
		sl->ly = xrealloc(sl->ly, sl->cap * sizeof(*sl->ly));
	}
	memset(&sl->ly[sl->n], 0, sizeof(sl->ly[sl->n]));
	sl->ly[sl->n].depth = depth;
	return &sl->ly[sl->n++];
}

static void drop_last(struct slot *sl)
{
	list_clear(&sl->ly[sl->n - 1].l);
	free(sl->ly[sl->n - 1].l.e);
	sl->n--;
}

/* Read dir's merge file of slot sl into a new layer (none if absent). */
static void read_layer(struct slot *sl, const char *dir, int depth)
{
	char path[PR_RELPATH_MAX], shown[PR_RELPATH_MAX + 1];
	struct layer *ly;
	/* shown as rsyncd shows it, from the root of its chroot, unless a
	 * rule read from a file named it */
	struct budget b = { 0, 0, LAYER_READS_MAX, LAYER_BYTES_MAX };
	struct ctx c = { .tflags = sl->flags, .dir = dir, .anchor = dir, .nest = 1, .budget = &b,
			 .file = sl->from_file ? NULL : shown };
	char *buf;
	ssize_t n;

	if (resolve(dir, sl->name, path, sizeof(path)) < 0) {
		io_msg(fio, MSG_ERROR, "cannot add local filter rules in long-named directory: %s", dir);
		return;
	}
	if ((n = read_file(path, &buf)) < 0)
		return;
	snprintf(shown, sizeof(shown), "/%s", path);
	ly = new_layer(sl, depth);
	c.clears = &ly->clears;
	add_file_text(&ly->l, buf, (size_t)n, &c);
	free(buf);
}

void filt_enter_dir(struct sess *s, const char *dir, int depth)
{
	fio = &s->io;
	cur_depth = depth;
	for (size_t i = 0; i < nslots; i++) {
		struct slot *sl = &slots[i];

		while (sl->n > 0 && sl->ly[sl->n - 1].depth >= depth)
			drop_last(sl);
		if (!sl->set_up) {
			/* Once, for the first directory: its ancestors from the
			 * module root down (rsync keeps these only until that
			 * first directory is left). */
			char part[PR_RELPATH_MAX];

			sl->set_up = 1;
			for (const char *p = dir; sl->scan_parents && *dir; p++) {
				if (p == dir || p[-1] == '/') {
					snprintf(part, sizeof(part), "%.*s", p == dir ? 0 : (int)(p - dir - 1), dir);
					read_layer(sl, part, depth);
					if (sl->flags & PR_FR_NO_INHERIT)
						while (sl->n > 0)
							drop_last(sl);
				}
				if (*p == '\0')
					break;
			}
		}
		read_layer(sl, dir, depth);
	}
}

/* ---- checking ------------------------------------------------------------ */

static int check_list(const struct list *l, const struct pr_name *nm, int is_dir, int refs);

static int check_slot(const struct slot *sl, const struct pr_name *nm, int is_dir)
{
	for (size_t k = sl->n; k > 0; k--) {
		const struct layer *ly = &sl->ly[k - 1];
		int rc;

		if ((sl->flags & PR_FR_NO_INHERIT) && ly->depth != cur_depth)
			continue;
		if ((rc = check_list(&ly->l, nm, is_dir, 0)) != 0)
			return rc;
		if (ly->clears)
			break;
	}
	return 0;
}

/* First match wins; refs: whether slot references are followed (only
 * from the top list, so nesting stays two levels deep). */
static int check_list(const struct list *l, const struct pr_name *nm, int is_dir, int refs)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ent *e = &l->e[i];
		int rc = 0;

		checks++;
		if (e->ref == REF_CVS)
			rc = check_list(&cvs, nm, is_dir, 0);
		else if (e->ref >= 0 && refs)
			rc = check_slot(&slots[e->ref], nm, is_dir);
		else if (e->ref == REF_RULE && pr_rule_match_name(&e->r, nm, is_dir))
			rc = (e->r.flags & PR_FR_INCLUDE) ? 1 : -1;
		if (rc)
			return rc;
	}
	return 0;
}

int filt_skip(struct sess *s, const char *name, const char *root, int is_dir, enum filt_level level)
{
	struct pr_name nm;

	(void)s;
	if (level != FILT_ALL || top.n == 0)
		return 0; /* the module's rules: applied by the monitor */
	pr_name_init(&nm, name, root);
	return check_list(&top, &nm, is_dir, 1) < 0;
}

/* Attribute names: only the client's top-level xattr rules ('x'), first
 * match wins (per-directory merge files are not consulted for them). */
int filt_has_xattr_rules(void)
{
	for (size_t i = 0; i < top.n; i++)
		if (top.e[i].ref == REF_RULE && (top.e[i].r.flags & PR_FR_XATTR))
			return 1;
	return 0;
}

int filt_xattr_skip(const char *name)
{
	for (size_t i = 0; i < top.n; i++)
		if (top.e[i].ref == REF_RULE && pr_rule_match_xattr(&top.e[i].r, name))
			return !(top.e[i].r.flags & PR_FR_INCLUDE);
	return 0;
}

uint64_t filt_checks(void)
{
	return checks;
}

/* --files-from=-: NUL-separated names (newline-separated without
 * --from0), ending with an empty one.  Each becomes a source argument
 * relative to the first path argument when it arrives (flist.c), so the
 * list is never held: its cost is one lookup per name, as in rsyncd. */
int files_from_next(struct sess *s, char *name, size_t cap)
{
	static int state; /* 0 before the list, 1 in it, 2 after it */
	size_t len = 0;
	int over = 0;

	if (state == 2)
		return 0;
	if (state == 0 && s->protocol == 30)
		io_set_mux_in(&s->io, 0); /* protocol 30 sends the names raw */
	state = 1;
	for (;;) {
		char ch;

		io_read(&s->io, &ch, 1);
		if (ch == '\n' && !s->opt.from0)
			ch = '\0';
		if (ch != '\0') {
			if (len + 1 < cap)
				name[len++] = ch;
			else
				over = 1; /* the rest is read and dropped */
			continue;
		}
		if (len > 0)
			break;
		state = 2;
		io_set_mux_in(&s->io, 1);
		return 0;
	}
	name[len] = '\0';
	return over ? 2 : 1;
}
