/* SPDX-License-Identifier: ISC */
/*
 * The client's filter list on the sending side (spec part 2, section 3).
 *
 * The received rules form one list, checked first-match-wins.  Two kinds
 * of entry stand for other lists: a per-directory merge rule (":name",
 * from -F, -C or dir-merge) refers to a slot whose rules come from the
 * files found in the directories being scanned, and the "-C" rule refers
 * to the CVS default list.  A slot keeps one layer per directory depth,
 * deepest checked first, so entering a directory only drops the layers of
 * its depth and below and reads its own file (filters.h).
 *
 * Merge files are read through the monitor like any module file: the
 * module's own filters apply to them (a hidden one does not exist), and
 * their size is bounded.
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
#define MERGE_DEPTH_MAX 8         /* "merge" rules inside merge files */
#define SLOTS_MAX 64              /* per-directory merge rules */

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

/* Read a module file through the monitor into a new buffer.  Returns its
 * length, or -1 with errno (ENOENT also for a module-hidden file). */
static ssize_t read_file(const char *path, char **out)
{
	struct pr_stat st;
	uint32_t handle;
	size_t len = 0;
	char *buf;
	int fd, err;

	if ((err = fsc_open(path, &fd, &handle, &st)) != 0) {
		errno = err;
		return -1;
	}
	buf = xrealloc(NULL, MERGE_FILE_MAX + 1);
	while (len < MERGE_FILE_MAX) {
		ssize_t n = pread(fd, buf + len, MERGE_FILE_MAX - len, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	fsc_close(fd, handle);
	if (len == MERGE_FILE_MAX)
		io_fatal(fio, RERR_FILEIO, "merge file %s is larger than %u bytes [sender]", path, MERGE_FILE_MAX);
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

struct ctx {
	uint32_t tflags;      /* template flags for the rules read */
	unsigned xflags;
	const char *dir;      /* module path merge names are relative to */
	const char *anchor;   /* directory anchored rules belong to, or NULL */
	int nest;             /* merge files being read */
	int *clears;          /* where a "!" is recorded, or NULL */
};

static void add_text(struct list *l, const char *text, const struct ctx *c);

/* Parse a merge file's contents: lines (or words), comments skipped. */
static void add_file_text(struct list *l, char *buf, size_t len, const struct ctx *c)
{
	int words = (c->tflags & PR_FR_WORDS) != 0;

	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && buf[j] != '\0' && buf[j] != '\n' && buf[j] != '\r' &&
		       !(words && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\f' || buf[j] == '\v')))
			j++;
		buf[j] = '\0';
		if (buf[i] && (words || (buf[i] != ';' && buf[i] != '#')))
			add_text(l, buf + i, c);
		i = j + 1;
	}
}

/* A "merge" rule: read the named file now into l. */
static void merge_now(struct list *l, const struct pr_rule *r, const char *pat, size_t len,
		      const struct ctx *c)
{
	char name[PR_RELPATH_MAX], path[PR_RELPATH_MAX];
	struct ctx sub = *c;
	char *buf;
	ssize_t n;

	if (c->nest >= MERGE_DEPTH_MAX)
		io_fatal(fio, RERR_FILEIO, "merge-file include depth limit exceeded [sender]");
	snprintf(name, sizeof(name), "%.*s", (int)len, pat);
	if (resolve(c->dir, name, path, sizeof(path)) < 0 || (n = read_file(path, &buf)) < 0)
		io_fatal(fio, RERR_FILEIO, "failed to open %sclude file %s [sender]",
			 (r->flags & PR_FR_INCLUDE) ? "in" : "ex", name);
	sub.tflags = r->flags;
	sub.xflags = c->xflags & ~PR_FX_OLD_PREFIXES;
	sub.nest = c->nest + 1;
	add_file_text(l, buf, (size_t)n, &sub);
	free(buf);
}

/* A "dir-merge" rule: a new slot, referred to from l. */
static void add_slot(struct list *l, const struct pr_rule *r, const char *pat, size_t len)
{
	struct slot *sl;
	const char *base = pat;
	struct pr_rule ref = { .flags = r->flags };

	if (l != &top)
		io_fatal(fio, RERR_UNSUPPORTED, "dir-merge rules inside merge files are not supported "
			 "by this prsyncd [sender]");
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
	sl->name = xrealloc(NULL, (size_t)(pat + len - base) + 1);
	memcpy(sl->name, base, (size_t)(pat + len - base));
	sl->name[pat + len - base] = '\0';
	list_push(l, &ref, (int)nslots++);
}

static void cvs_setup(void)
{
	const struct ctx c = { .tflags = PR_FR_NO_PREFIX | PR_FR_WORDS | PR_FR_CVS, .dir = "" };
	char *buf;
	ssize_t n;

	if (cvs_ready)
		return;
	cvs_ready = 1;
	add_text(&cvs, pr_cvs_default, &c);
	/* rsyncd in a chroot reads the module's own /.cvsignore */
	if ((n = read_file(".cvsignore", &buf)) >= 0) {
		add_file_text(&cvs, buf, (size_t)n, &c);
		free(buf);
	}
}

/* Parse rules from text (one line of a list or file) into l. */
static void add_text(struct list *l, const char *text, const struct ctx *c)
{
	const char *s = text;

	for (;;) {
		char err[512];
		struct pr_rule r;
		const char *pat;
		size_t len;
		int rc = pr_rule_parse(&s, c->tflags, c->xflags, &r, &pat, &len, err, sizeof(err));

		if (rc == 0)
			return;
		if (rc < 0)
			io_fatal(fio, RERR_SYNTAX, "%s [sender]", err);
		if (r.flags & PR_FR_CLEAR) {
			list_clear(l);
			if (c->clears)
				*c->clears = 1;
			continue;
		}
		if (len > PR_FILT_PAT_MAX) {
			io_msg(fio, MSG_ERROR, "discarding over-long filter: %.*s...", 40, pat);
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
				add_slot(l, &r, pat, len);
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

void filters_recv(struct sess *s)
{
	static char rule[RULE_MAX + 1];
	struct ctx c = { .xflags = s->protocol < 29 ? PR_FX_OLD_PREFIXES : 0, .dir = "" };

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
	char path[PR_RELPATH_MAX];
	struct layer *ly;
	struct ctx c = { .tflags = sl->flags, .dir = dir, .anchor = dir };
	char *buf;
	ssize_t n;

	if (resolve(dir, sl->name, path, sizeof(path)) < 0) {
		io_msg(fio, MSG_ERROR, "cannot add local filter rules in long-named directory: %s", dir);
		return;
	}
	if ((n = read_file(path, &buf)) < 0)
		return;
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
