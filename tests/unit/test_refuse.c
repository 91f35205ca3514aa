/* SPDX-License-Identifier: ISC */
/* Unit tests for "refuse options" (src/worker/refuse.c).  Each expected
 * text is what rsync 3.5.0's daemon said for the same value and option
 * (tests/integration/t_refuse_opts.sh compares the two end to end). */
#include <string.h>

#include "refuse.h"
#include "unit.h"

#define PFX "rsync: The server is configured to refuse "

static struct refuse r;

static void compile(const char *spec, int charset)
{
	char nomatch[64];

	refuse_compile(&r, spec, charset, nomatch, sizeof(nomatch));
}

/* The option (long name as spelled, or letter) is refused with want
 * ("--dry-run (-n)"), or accepted (want NULL). */
static void opt_case(const char *spec, const char *name, char letter, const char *want)
{
	char err[256] = "";
	int rc;

	compile(spec, 0);
	rc = refuse_check(&r, name, letter, err, sizeof(err));
	if (want == NULL) {
		CHECK_MSG(rc == 0, "\"%s\": %s%c refused: %s", spec, name ? name : "-", letter, err);
	} else {
		char full[256];

		snprintf(full, sizeof(full), PFX "%s", want);
		CHECK_MSG(rc == -1 && strcmp(err, full) == 0, "\"%s\": %s%c: \"%s\", expected \"%s\"", spec,
			  name ? name : "-", letter, err, full);
	}
}

static void test_words(void)
{
	const char *spec = "n c delete *links !safe-links zl";

	opt_case(spec, NULL, 'n', "--dry-run (-n)");
	opt_case(spec, "dry-run", 0, "--dry-run (-n)");
	opt_case(spec, NULL, 'c', "--checksum (-c)");
	opt_case(spec, "no-c", 0, NULL);
	opt_case(spec, "delete", 0, "--delete");
	opt_case(spec, "delete-after", 0, NULL);
	opt_case(spec, NULL, 'l', "--links (-l)");
	opt_case(spec, NULL, 'L', "--copy-links (-L)");
	opt_case(spec, "copy-unsafe-links", 0, "--copy-unsafe-links");
	opt_case(spec, "safe-links", 0, NULL);
	opt_case(spec, "zl", 0, "--zl");
	opt_case(spec, "compress-level", 0, "--compress-level"); /* alias */
	opt_case(spec, NULL, 'z', NULL);
	opt_case(spec, NULL, 'r', NULL);
}

static void test_aliases(void)
{
	opt_case("no-perms", "no-p", 0, "--no-p");
	opt_case("no-perms", "no-perms", 0, "--no-perms");
	opt_case("no-perms", "perms", 0, NULL);
	opt_case("no-p", "no-perms", 0, "--no-perms");
	opt_case("perms", NULL, 'p', "--perms (-p)");
	opt_case("perms", "no-p", 0, NULL);
	opt_case("del", "delete-during", 0, "--delete-during");
	opt_case("del", "delete-delay", 0, NULL);
	opt_case("delete-during", "del", 0, "--del");
	opt_case("log-format", "out-format", 0, "--out-format");
	opt_case("out-format", "log-format", 0, "--log-format");
	opt_case("i-r", "inc-recursive", 0, "--inc-recursive");
	opt_case("i-r", "no-i-r", 0, NULL);
	opt_case("s", "protect-args", 0, "--protect-args");
	opt_case("protect-args", NULL, 's', "--secluded-args (-s)");
	opt_case("cc", "checksum-choice", 0, "--checksum-choice");
	opt_case("zc", "compress-choice", 0, "--compress-choice");
	opt_case("time-limit", "stop-after", 0, "--stop-after");
	opt_case("existing", "ignore-non-existing", 0, "--ignore-non-existing");
	opt_case("no-z", "no-compress", 0, "--no-compress");
	opt_case("compress", "no-z", 0, NULL);
	opt_case("timeout", "no-timeout", 0, NULL);
	opt_case("remove-source-files", "remove-sent-files", 0, NULL);
	/* rsync 3.5.0's --compress-threads and its --zt (issue 26) */
	opt_case("compress-threads", "compress-threads", 0, "--compress-threads");
	opt_case("compress-threads", "zt", 0, "--zt");
	opt_case("zt", "compress-threads", 0, "--compress-threads");
	opt_case("compress-level", "compress-threads", 0, NULL);
	opt_case("*threads", "zt", 0, NULL);
	/* refused in every module, as rsyncd refuses it; the negation is not */
	opt_case("", "insecure-links", 0, "--insecure-links");
	opt_case("", "no-insecure-links", 0, NULL);
	CHECK(refuse_known("no-perms") && refuse_known("zt") && !refuse_known("no-stats") &&
	      !refuse_known("no-dry-run"));
	/* a wildcard reaches only the names it matches */
	opt_case("*perms", "no-perms", 0, "--no-perms");
	opt_case("*perms", "no-p", 0, NULL);
}

static void test_wildcards_and_exceptions(void)
{
	const char *all = "* !a !v !r !l !p !t !g !o !D !e !server !sender";

	opt_case("*", NULL, 'n', NULL);              /* exact-only */
	opt_case("*", NULL, 's', NULL);
	opt_case("*", NULL, 'e', NULL);
	opt_case("*", "server", 0, NULL);
	opt_case("*", "protect-args", 0, "--protect-args");
	opt_case("*", NULL, 'c', "--checksum (-c)");
	opt_case(all, NULL, 'r', NULL);
	opt_case(all, NULL, 'c', "--checksum (-c)");
	opt_case(all, "zl", 0, "--zl");
	opt_case(all, NULL, 'D', NULL);
	opt_case("no-p !no-perms", "no-p", 0, NULL);
	opt_case("no-p !no-perms", "no-perms", 0, NULL);
	opt_case("!no-perms no-p", "no-perms", 0, "--no-perms");
	opt_case("delete-*", "delete", 0, NULL);
	opt_case("delete-*", "delete-after", 0, "--delete-after");
	opt_case("[cn]", NULL, 'c', "--checksum (-c)");
	opt_case("[cn]", NULL, 'n', NULL);
	opt_case("n", NULL, 'n', "--dry-run (-n)");
	opt_case("?", NULL, 'x', "--one-file-system (-x)");
	/* letter-only options print as rsyncd prints them */
	opt_case("D", NULL, 'D', "--(null) (-D)");
	opt_case("D", "no-D", 0, NULL);
	opt_case("D", "devices", 0, NULL);
	/* "a" and "archive" mean the letters -a sets */
	opt_case("archive", NULL, 'r', "--recursive (-r)");
	opt_case("a", NULL, 'a', "--archive (-a)");
	opt_case("a", NULL, 'c', NULL);
	opt_case("l", NULL, 'a', "--links (-l)");     /* -a names its refused part */
	opt_case("r l", NULL, 'a', "--links (-l)");   /* the last one in rsync's table */
	opt_case("partial", NULL, 'P', "--partial");
	opt_case("progress", NULL, 'P', "--progress");
}

static void test_defaults(void)
{
	opt_case("", "copy-devices", 0, "--copy-devices");
	opt_case("", "write-devices", 0, "--write-devices");
	opt_case("!copy-devices", "copy-devices", 0, NULL);
	opt_case("", "log-file", 0, "--log-file");
	opt_case("!log-file", "log-file", 0, "--log-file");
	opt_case("", "log-file-format", 0, "--log-file-format");
	opt_case("", "iconv", 0, "--iconv");
	opt_case("!iconv", "iconv", 0, "--iconv");
	opt_case("", NULL, 'N', "--crtimes (-N)");
	{
		char err[128];

		compile("", 1);
		CHECK(refuse_check(&r, "iconv", 0, err, sizeof(err)) == 0);
	}
	/* a word that names nothing is reported for the log */
	{
		char nomatch[64];

		refuse_compile(&r, "c bogus-thing other", 0, nomatch, sizeof(nomatch));
		CHECK(strcmp(nomatch, "bogus-thing") == 0);
		refuse_compile(&r, "c !delete", 0, nomatch, sizeof(nomatch));
		CHECK(nomatch[0] == '\0');
	}
	/* an inactive set judges nothing */
	{
		struct refuse none = { { 0 }, { 0 }, 0 };
		char err[128];

		memset(none.refused, 1, sizeof(none.refused));
		CHECK(refuse_check(&none, "delete", 0, err, sizeof(err)) == 0);
		CHECK(refuse_check(NULL, "delete", 0, err, sizeof(err)) == 0);
	}
}

/* What the options imply, judged after the last one. */
static void implied_case(const char *spec, const char *const *seen, const struct options *o, const char *want)
{
	char err[256] = "", full[256];
	int rc;

	compile(spec, 0);
	for (; seen && *seen; seen++)
		(void)refuse_check(&r, *seen, 0, err, sizeof(err));
	rc = refuse_implied(&r, o, err, sizeof(err));
	if (want == NULL) {
		CHECK_MSG(rc == 0, "\"%s\": refused: %s", spec, err);
		return;
	}
	snprintf(full, sizeof(full), PFX "%s", want);
	CHECK_MSG(rc == -1 && strcmp(err, full) == 0, "\"%s\": \"%s\", expected \"%s\"", spec, err, full);
}

static void test_implied(void)
{
	static const char *const zl[] = { "zl", NULL }, *const del[] = { "delete", NULL },
			  *const after[] = { "delete", "delete-after", NULL };
	struct options o;

	memset(&o, 0, sizeof(o));
	o.compress = 1;
	implied_case("z", NULL, &o, "--compress (-z)");
	o.compress = 0;
	snprintf(o.compress_choice, sizeof(o.compress_choice), "zlib");
	implied_case("z", NULL, &o, "--compress (-z)");
	snprintf(o.compress_choice, sizeof(o.compress_choice), "none");
	implied_case("z", NULL, &o, NULL);
	o.compress_choice[0] = '\0';
	implied_case("z", zl, &o, "--compress (-z)");
	implied_case("z", NULL, &o, NULL);

	memset(&o, 0, sizeof(o));
	o.delete_mode = 1;
	implied_case("delete", del, &o, "--delete");
	implied_case("delete-before delete-during", del, &o, "--delete-before");
	implied_case("delete-before delete-during", after, &o, NULL);
	implied_case("delete-before", del, &o, NULL);
	o.delete_mode = 0;
	o.remove_source_files = 1;
	implied_case("delete", NULL, &o, "--delete");
	implied_case("delete-after", NULL, &o, NULL);

	memset(&o, 0, sizeof(o));
	o.append = 1;
	implied_case("inplace", NULL, &o, "--inplace");
	implied_case("partial", NULL, &o, "--partial");
	o.append = 0;
	o.inplace = 1;
	implied_case("partial", NULL, &o, "--partial");
	implied_case("no-iconv", NULL, &o, "--no-iconv");
	o.iconv = 1;
	implied_case("no-iconv", NULL, &o, NULL);
}

int main(void)
{
	test_words();
	test_aliases();
	test_wildcards_and_exceptions();
	test_defaults();
	test_implied();
	return unit_done("test_refuse");
}
