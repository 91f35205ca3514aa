/* SPDX-License-Identifier: ISC */
/*
 * "refuse options" (refuse.h).  Behaviour checked against rsync 3.5.0's
 * daemon, one configuration per case (tests/integration/t_refuse_opts.sh):
 *
 *  - The value is split on spaces.  A word names options by their long
 *    name or their letter ("delete", "n"); "a" and "archive" stand for
 *    the letters -a sets, "[ardlptgoD]".  A word with '*', '?' or '['
 *    is a wildcard matched against every long name and letter.
 *  - "!word" accepts again what earlier words refused; words apply in
 *    order.
 *  - A plain word also reaches the other spellings of the same setting:
 *    "no-perms" refuses --no-p, "del" --delete-during, "log-format"
 *    --out-format, "s" --protect-args.  A wildcard reaches only the names
 *    it matches.
 *  - Some options are judged by a plain word only, never by a wildcard
 *    (X_EXACT): -e, -0, -s, -n, --iconv, --no-iconv, --checksum-seed,
 *    --copy-devices, --write-devices, --log-format, --server, --sender.
 *  - Whatever the value says, rsyncd refuses --copy-devices and
 *    --write-devices (a later "!" can accept them), and after the value
 *    --log-file*, --insecure-links, --crtimes (not supported on Linux)
 *    and, without a module charset, --iconv.
 *  - The client learns the refused option by the table's spelling, even
 *    when it used an alias' letter: "--perms (-p)"; the letter-only
 *    options -D, -F and -P print as "--(null) (-D)", as rsyncd prints
 *    them.
 *
 * The table lists every option rsync 3.5 knows, in its order, because
 * "the last one refused" decides which -a part an error names, and a word
 * that matches nothing here is logged as rsyncd logs it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "refuse.h"
#include "wildmatch.h"

#define X_EXACT 0x01u

struct ropt {
	const char *name;   /* NULL: a letter-only option */
	char letter;
	unsigned char flags;
	unsigned char alias; /* options with the same non-zero value set the same thing */
};

#define O(n) { n, 0, 0, 0 }
#define L(n, l) { n, l, 0, 0 }
#define A(n, a) { n, 0, 0, a }
#define LA(n, l, a) { n, l, 0, a }
#define E(n, l) { n, l, X_EXACT, 0 }

static const struct ropt table[] = {
	O("help"), L("version", 'V'), L("verbose", 'v'), A("no-verbose", 1), A("no-v", 1),
	O("info"), O("debug"), O("stderr"), O("msgs2stderr"), O("no-msgs2stderr"),
	L("quiet", 'q'), O("motd"), O("no-motd"), O("stats"), L("human-readable", 'h'),
	A("no-human-readable", 2), A("no-h", 2), E("dry-run", 'n'), L("archive", 'a'),
	L("recursive", 'r'), A("no-recursive", 3), A("no-r", 3), A("inc-recursive", 4),
	A("no-inc-recursive", 5), A("i-r", 4), A("no-i-r", 5), L("dirs", 'd'), A("no-dirs", 6),
	A("no-d", 6), A("old-dirs", 7), A("old-d", 7), L("perms", 'p'), A("no-perms", 8),
	A("no-p", 8), L("executability", 'E'), L("acls", 'A'), A("no-acls", 9), A("no-A", 9),
	L("xattrs", 'X'), A("no-xattrs", 10), A("no-X", 10), L("times", 't'), A("no-times", 11),
	A("no-t", 11), L("atimes", 'U'), A("no-atimes", 12), A("no-U", 12), O("open-noatime"),
	O("no-open-noatime"), L("crtimes", 'N'), A("no-crtimes", 13), A("no-N", 13),
	L("omit-dir-times", 'O'), A("no-omit-dir-times", 14), A("no-O", 14),
	L("omit-link-times", 'J'), A("no-omit-link-times", 15), A("no-J", 15),
	L("modify-window", '@'), O("super"), O("no-super"), O("fake-super"), L("owner", 'o'),
	A("no-owner", 16), A("no-o", 16), L("group", 'g'), A("no-group", 17), A("no-g", 17),
	L(NULL, 'D'), O("no-D"), O("devices"), O("no-devices"), E("copy-devices", 0),
	E("write-devices", 0), O("no-write-devices"), O("specials"), O("no-specials"), O("drop-D"), O("no-drop-D"),
	O("confine-root"),
	L("links", 'l'), A("no-links", 18), A("no-l", 18), L("copy-links", 'L'),
	O("copy-unsafe-links"), O("safe-links"), O("insecure-links"), O("no-insecure-links"),
	O("munge-links"), O("no-munge-links"),
	L("copy-dirlinks", 'k'), L("keep-dirlinks", 'K'), L("hard-links", 'H'),
	A("no-hard-links", 19), A("no-H", 19), L("relative", 'R'), A("no-relative", 20),
	A("no-R", 20), A("implied-dirs", 21), A("no-implied-dirs", 22), A("i-d", 21),
	A("no-i-d", 22), O("chmod"), L("ignore-times", 'I'), O("size-only"),
	L("one-file-system", 'x'), A("no-one-file-system", 23), A("no-x", 23), L("update", 'u'),
	A("existing", 24), A("ignore-non-existing", 24), O("ignore-existing"), O("max-size"),
	O("min-size"), O("max-alloc"), L("sparse", 'S'), A("no-sparse", 25), A("no-S", 25),
	O("preallocate"), O("inplace"), O("no-inplace"), O("append"), O("append-verify"),
	O("no-append"), A("del", 26), O("delete"), O("delete-before"), A("delete-during", 26),
	O("delete-delay"), O("delete-after"), O("delete-excluded"), O("delete-missing-args"),
	O("ignore-missing-args"), O("remove-sent-files"), O("remove-source-files"), O("force"),
	O("no-force"), O("ignore-errors"), O("no-ignore-errors"), O("max-delete"), L(NULL, 'F'),
	L("filter", 'f'), O("exclude"), O("include"), O("exclude-from"), O("include-from"),
	L("cvs-exclude", 'C'), L("whole-file", 'W'), A("no-whole-file", 27), A("no-W", 27),
	L("checksum", 'c'), A("no-checksum", 28), A("no-c", 28), A("checksum-choice", 29),
	A("cc", 29), L("block-size", 'B'), O("compare-dest"), O("copy-dest"), O("link-dest"),
	L("fuzzy", 'y'), A("no-fuzzy", 30), A("no-y", 30), L("compress", 'z'), O("old-compress"),
	O("new-compress"), A("no-compress", 31), A("no-z", 31), A("compress-choice", 32),
	A("zc", 32), O("skip-compress"), A("compress-level", 33), A("zl", 33),
	A("compress-threads", 42), A("zt", 42), L(NULL, 'P'),
	O("progress"), O("no-progress"), O("partial"), O("no-partial"), O("partial-dir"),
	O("delay-updates"), O("no-delay-updates"), L("prune-empty-dirs", 'm'),
	A("no-prune-empty-dirs", 34), A("no-m", 34), O("log-file"), O("log-file-format"),
	A("out-format", 35), { "log-format", 0, X_EXACT, 35 }, L("itemize-changes", 'i'),
	A("no-itemize-changes", 36), A("no-i", 36), O("bwlimit"), O("no-bwlimit"),
	L("backup", 'b'), O("no-backup"), O("backup-dir"), O("suffix"), O("list-only"),
	O("read-batch"), O("write-batch"), O("only-write-batch"), O("files-from"),
	E("from0", '0'), O("no-from0"), O("old-args"), O("no-old-args"),
	{ "secluded-args", 's', X_EXACT, 37 }, A("no-secluded-args", 38), A("protect-args", 37),
	A("no-protect-args", 38), A("no-s", 38), O("trust-sender"), O("numeric-ids"),
	O("no-numeric-ids"), O("usermap"), O("groupmap"), O("chown"), O("timeout"),
	O("no-timeout"), O("contimeout"), O("no-contimeout"), O("fsync"), A("stop-after", 39),
	A("time-limit", 39), O("stop-at"), E("rsh", 'e'), O("rsync-path"), L("temp-dir", 'T'),
	E("iconv", 0), E("no-iconv", 0), L("ipv4", '4'), L("ipv6", '6'), L("8-bit-output", '8'),
	A("no-8-bit-output", 40), A("no-8", 40), O("mkpath"), O("no-mkpath"), O("qsort"),
	O("copy-as"), O("address"), O("port"), O("sockopts"), O("password-file"),
	O("early-input"), O("blocking-io"), O("no-blocking-io"), O("outbuf"),
	L("remote-option", 'M'), O("protocol"), E("checksum-seed", 0), E("server", 0),
	E("sender", 0), A("config", 41), A("daemon", 41), A("dparam", 41), A("detach", 41),
	A("no-detach", 41),
};

#define NTABLE (sizeof(table) / sizeof(table[0]))
_Static_assert(NTABLE <= REFUSE_NOPTS, "refuse table larger than its state arrays");

static int find_name(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (table[i].name && strcmp(table[i].name, name) == 0)
			return (int)i;
	return -1;
}

int refuse_known(const char *name)
{
	return find_name(name) >= 0;
}

static int find_letter(char letter)
{
	for (size_t i = 0; i < NTABLE && letter; i++)
		if (table[i].letter == letter)
			return (int)i;
	return -1;
}

static void set_with_aliases(struct refuse *r, size_t i, unsigned char v)
{
	r->refused[i] = v;
	for (size_t j = 0; j < NTABLE && table[i].alias; j++)
		if (table[j].alias == table[i].alias)
			r->refused[j] = v;
}

/* One word of the value; 1 if it named an option. */
static int apply_word(struct refuse *r, const char *word, unsigned char v)
{
	char letter[2] = { 0, 0 };
	struct pr_wild *w;
	int hit = 0;

	if (strcmp(word, "a") == 0 || strcmp(word, "archive") == 0)
		word = "[ardlptgoD]";
	if (strpbrk(word, "*?[") == NULL) {
		int i = find_name(word);

		if (i < 0 && strlen(word) == 1)
			i = find_letter(word[0]);
		if (i >= 0)
			set_with_aliases(r, (size_t)i, v);
		return i >= 0;
	}
	if ((w = pr_wild_compile(word, 0)) == NULL)
		return 0;
	for (size_t i = 0; i < NTABLE; i++) {
		letter[0] = table[i].letter;
		if ((table[i].name && pr_wild_match(w, table[i].name, strlen(table[i].name), PR_WILD_START)) ||
		    (letter[0] && pr_wild_match(w, letter, 1, PR_WILD_START))) {
			hit = 1;
			if (!(table[i].flags & X_EXACT))
				r->refused[i] = v;
		}
	}
	pr_wild_free(w);
	return hit;
}

void refuse_compile(struct refuse *r, const char *spec, int have_charset, char *nomatch, size_t nomatchlen)
{
	char buf[REFUSE_SPEC_MAX], *word, *save = NULL;

	memset(r, 0, sizeof(*r));
	r->active = 1;
	if (nomatch && nomatchlen)
		nomatch[0] = '\0';
	(void)apply_word(r, "copy-devices", 1);
	(void)apply_word(r, "write-devices", 1);
	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (word = strtok_r(buf, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		int neg = word[0] == '!' && word[1] != '\0';

		if (!apply_word(r, word + neg, neg ? 0 : 1) && nomatch && nomatchlen && !nomatch[0])
			snprintf(nomatch, nomatchlen, "%s", word + neg);
	}
	if (!have_charset)
		(void)apply_word(r, "iconv", 1);
	(void)apply_word(r, "log-file*", 1);
	(void)apply_word(r, "insecure-links", 1); /* a client never relaxes link confinement */
	(void)apply_word(r, "crtimes", 1); /* as rsyncd built without crtimes (Linux) */
}

static int refused_msg(size_t i, char *err, size_t errlen)
{
	/* rsyncd prints a missing long name as glibc prints NULL. */
	const char *name = table[i].name ? table[i].name : "(null)";

	if (table[i].letter)
		snprintf(err, errlen, "rsync: The server is configured to refuse --%s (-%c)", name,
			 table[i].letter);
	else
		snprintf(err, errlen, "rsync: The server is configured to refuse --%s", name);
	return -1;
}

static int is_refused(const struct refuse *r, const char *name)
{
	int i = find_name(name);

	return i >= 0 && r->refused[i];
}

/* -a with one of its parts refused names that part: the last one in
 * rsync's table order, as rsyncd finds it. */
static int archive_part(const struct refuse *r)
{
	int part = -1;

	for (size_t i = 0; i < NTABLE; i++)
		if (table[i].letter && strchr("rdlptgoD", table[i].letter) && r->refused[i])
			part = (int)i;
	return part;
}

int refuse_check(struct refuse *r, const char *name, char letter, char *err, size_t errlen)
{
	int i = name ? find_name(name) : find_letter(letter);

	if (!r || !r->active || i < 0)
		return 0;
	r->seen[i] = 1;
	if (r->refused[i])
		return refused_msg((size_t)i, err, errlen);
	if (table[i].letter == 'a' && archive_part(r) >= 0)
		return refused_msg((size_t)archive_part(r), err, errlen);
	if (table[i].letter == 'P' && (is_refused(r, "partial") || is_refused(r, "progress")))
		return refused_msg((size_t)find_name(is_refused(r, "partial") ? "partial" : "progress"), err, errlen);
	return 0;
}

static int seen(const struct refuse *r, const char *name)
{
	int i = find_name(name);

	return i >= 0 && r->seen[i];
}

static int refuse_named(const char *name, char *err, size_t errlen)
{
	return refused_msg((size_t)find_name(name), err, errlen);
}

int refuse_implied(const struct refuse *r, const struct options *o, char *err, size_t errlen)
{
	const char *cc = o->compress_choice;
	int choice_none = strcasecmp(cc, "none") == 0;
	int choice_set = cc[0] && !choice_none && strcasecmp(cc, "auto") != 0;
	int compress = choice_none ? 0 : choice_set || o->compress > 0;
	int when;

	if (!r || !r->active)
		return 0;
	when = seen(r, "delete-before") || seen(r, "delete-during") || seen(r, "del") ||
	       seen(r, "delete-delay") || seen(r, "delete-after");
	/* A level alone asks for compression too. */
	if ((compress || seen(r, "compress-level") || seen(r, "zl")) && is_refused(r, "compress"))
		return refuse_named("compress", err, errlen);
	if (is_refused(r, "no-iconv") && !o->iconv)
		return refuse_named("no-iconv", err, errlen);
	/* A mode without a "when" takes "before" or "during", whichever is
	 * not refused. */
	if (o->delete_mode && !when && is_refused(r, "delete-before") && is_refused(r, "delete-during"))
		return refuse_named("delete-before", err, errlen);
	if (is_refused(r, "delete") && (o->delete_mode || o->delete_missing_args || o->remove_source_files))
		return refuse_named("delete", err, errlen);
	if (o->append && is_refused(r, "inplace"))
		return refuse_named("inplace", err, errlen);
	if ((o->append || o->inplace) && is_refused(r, "partial"))
		return refuse_named("partial", err, errlen);
	return 0;
}
