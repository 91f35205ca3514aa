/* SPDX-License-Identifier: ISC */
/*
 * The server command line parser (src/worker/options.c).
 *
 *  1. argument lists captured from a stock rsync 3.5.0 client talking to a
 *     stock daemon (strace of the daemon's reads), as the exact wire bytes
 *  2. the short-cluster rules: -e eats the rest, -B with its value in the
 *     cluster or in the next record, counting letters, -a, -D
 *  3. long options: =value and two-record forms, aliases, --no-*
 *  4. backslash-escaped values, paths that look like options
 *  5. exact error texts (stock's, captured) and refusals
 *  6. bounds: record count, record length, path count, numbers, sizes
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "unit.h"

static struct options o;   /* large: keep it off the stack */
static char err[4096];

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

/* Parse a NULL-terminated list of records. */
static int parse_v(int protocol, const char *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	return options_parse(&o, protocol, (char *const *)list, n, err, sizeof(err));
}

#define P(proto, ...) parse_v(proto, (const char *const[]){ __VA_ARGS__, NULL })

/* Does parsing fail with exactly this message? */
static int fails_with(int rc, const char *msg)
{
	if (rc == 0) {
		fprintf(stderr, "  (parsed OK, wanted \"%s\")\n", msg);
		options_free(&o);
		return 0;
	}
	if (strcmp(err, msg) != 0) {
		fprintf(stderr, "  got  \"%s\"\n  want \"%s\"\n", err, msg);
		return 0;
	}
	return 1;
}

#define FAILS(rc, msg) CHECK(fails_with((rc), (msg)))
#define OK(rc) CHECK_MSG((rc) == 0, "error: %s", err)

/*
 * What setup.c does with the wire bytes: split at the record terminator
 * (NUL from protocol 30, newline before) up to the empty record; if the
 * first short cluster has a real 's' (before any value-taking letter),
 * drop the first list after the cluster and append the NUL-framed second
 * list without its arg0.
 */
static int wire(int protocol, const char *bytes, size_t len)
{
	static char buf[8192];
	char *rec[64];
	size_t n = 0, pos = 0, cluster = (size_t)-1;
	int secluded = 0;

	CHECK(len < sizeof(buf));
	memcpy(buf, bytes, len);
	for (int list = 0; list < 2; list++) {
		char term = (list == 1 || protocol >= 30) ? '\0' : '\n';
		int arg0 = list == 1;

		for (;;) {
			size_t start = pos;

			while (pos < len && buf[pos] != term)
				pos++;
			CHECK(pos < len);
			buf[pos++] = '\0';
			if (pos - 1 == start)
				break;
			if (arg0) {     /* the second list's program name */
				CHECK(strcmp(buf + start, "rsync") == 0);
				arg0 = 0;
				continue;
			}
			rec[n++] = buf + start;
			CHECK(n < 64);
		}
		if (list == 1)
			break;
		for (size_t i = 0; i < n && cluster == (size_t)-1; i++)
			if (rec[i][0] == '-' && rec[i][1] != '-' && rec[i][1] != '\0')
				cluster = i;
		if (cluster == (size_t)-1)
			break;
		for (const char *p = rec[cluster] + 1; *p && !strchr("eBTfM@", *p); p++)
			if (*p == 's')
				secluded = 1;
		if (!secluded)
			break;
		n = cluster + 1;
	}
	CHECK(pos == len);
	return options_parse(&o, protocol, rec, n, err, sizeof(err));
}

#define WIRE(proto, lit) wire(proto, lit, sizeof(lit) - 1)

#define ALL_CAPS(x) ((x).cap_inc_recurse && (x).cap_symlink_times && (x).cap_symlink_iconv && \
	(x).cap_safe_flist && (x).cap_avoid_xattr_optim && (x).cap_chksum_seed_fix && \
	(x).cap_inplace_partial && (x).cap_varint_flist && (x).cap_id0_names && \
	!(x).cap_varint_prerelease)

/* ---------------------------------------------------------------------- */
/* 1. Captured lists (rsync 3.5.0 client and daemon, command in comment)   */

/* rsync -av rsync://h/pub/ dest/ */
static const char cap_basic[] =
	"--server\0--sender\0-vlogDtpre.iLsfxCIvu\0.\0pub/\0\0";
/* -avzHc --delete --numeric-ids --checksum-choice=xxh128 --compress-choice=zstd
 * --compress-level=3 --bwlimit=1m --timeout=10 --append-verify --inplace */
static const char cap_big[] =
	"--server\0--sender\0-vlHogDtprce.iLsfxCIvu\0--compress-level=3\0--timeout=10\0"
	"--bwlimit=1024\0--checksum-choice=xxh128\0--compress-choice=zstd\0--numeric-ids\0"
	"--append\0--append\0.\0pub/\0\0";
/* the same with -s: first list, then the secluded second list */
static const char cap_sec[] =
	"--server\0--sender\0-svlHogDtprce.iLsfxCIvu\0\0"
	"rsync\0--compress-level=3\0--timeout=10\0--bwlimit=1024\0--checksum-choice=xxh128\0"
	"--compress-choice=zstd\0--numeric-ids\0--append\0--append\0.\0pub/\0\0";
/* --files-from=list.txt -R (local list: names come over the socket) */
static const char cap_ff[] =
	"--server\0--sender\0-Re.LsfxCIvu\0--files-from=-\0--from0\0.\0pub/\0\0";
/* --files-from=:list.txt --from0 (list on the server, two-record form) */
static const char cap_ffr[] =
	"--server\0--sender\0-Re.LsfxCIvu\0--files-from\0list.txt\0--from0\0.\0pub/\0\0";
/* rsync rsync://h/pub/ (implicit listing: -d, no --list-only) */
static const char cap_list[] =
	"--server\0--sender\0-de.LsfxCIvu\0.\0pub/\0\0";
/* -avz --protocol=29 --timeout=10 */
static const char cap_p29[] =
	"--server\n--sender\n-vlogDtprz\n--timeout=10\n.\npub/\n\n";
/* -t -s --protocol=29 pub/a.txt: "(null)" quirk, NUL-framed second list */
static const char cap_p29s[] =
	"--server\n--sender\n-st\n(null)\n.\npub/a.txt\n\n"
	"rsync\0.\0pub/a.txt\0\0";
/* -avz --protocol=30 --timeout=10 --checksum-choice=md5 */
static const char cap_p30[] =
	"--server\0--sender\0-vlogDtprze.iLsfxCIvu\0--timeout=10\0--checksum-choice=md5\0.\0pub/\0\0";
/* -avz --protocol=27 -R --no-implied-dirs --numeric-ids */
static const char cap_p27[] =
	"--server\n--sender\n-vlogDtprRz\n--numeric-ids\n--no-implied-dirs\n.\npub/\n\n";
/* -r --qsort: the client sends --use-qsort, which stock rejects */
static const char cap_qsort[] =
	"--server\0--sender\0-re.LsfxCIvu\0--use-qsort\0.\0pub/\0\0";
/* -rtz --skip-compress='gz/mp[34]' --backup-dir='x y' -b */
static const char cap_skip[] =
	"--server\0--sender\0-btrze.iLsfxCIvu\0--backup-dir\0x\\ y\0"
	"--skip-compress=gz/mp\\[34\\]\0.\0pub/\0\0";
/* -st pub/a.txt: the -e pitfall */
static const char cap_st[] =
	"--server\0--sender\0-ste.LsfxCIvu\0\0"
	"rsync\0.\0pub/a.txt\0\0";
/* -rHHxxvvvU --info=progress2 --debug=flist2 */
static const char cap_hx[] =
	"--server\0--sender\0-vvvHHUrxxe.iLsfxCIvu\0.\0pub/\0\0";
/* -rB1024 --checksum-seed=42 -P --copy-unsafe-links --no-implied-dirs -R
 * --ignore-missing-args --open-noatime --max-alloc=2g --stderr=all --no-specials -D */
static const char cap_misc[] =
	"--server\0--sender\0-DrRe.iLsfxCIvu\0--msgs2stderr\0-B1024\0--max-alloc=2g\0"
	"--ignore-missing-args\0--checksum-seed=42\0--copy-unsafe-links\0--no-implied-dirs\0"
	"--open-noatime\0.\0pub/\0\0";
/* -r --delete-missing-args --remove-source-files --new-compress --zl=5
 * --cc=md5,md5 -T /tmp/x --partial-dir=.p --list-only */
static const char cap_misc2[] =
	"--server\0--sender\0-re.iLsfxCIvu\0--list-only\0--compress-level=5\0"
	"--checksum-choice=md5,md5\0--new-compress\0--delete-missing-args\0"
	"--remove-source-files\0.\0pub/\0\0";
/* -rAX */
static const char cap_acl[] =
	"--server\0--sender\0-pAXre.iLsfxCIvu\0.\0pub/\0\0";
/* -r --copy-devices */
static const char cap_cdev[] =
	"--server\0--sender\0-re.iLsfxCIvu\0--copy-devices\0.\0pub/\0\0";
/* -r --iconv=utf8,latin1 (only the remote half is sent) */
static const char cap_iconv[] =
	"--server\0--sender\0-re.iLsfxCIvu\0--iconv=utf8\0.\0pub/\0\0";
/* -rz --old-compress --msgs2stderr -8 -y */
static const char cap_old[] =
	"--server\0--sender\0-rze.iLsfxCIvu\0--msgs2stderr\0--old-compress\0.\0pub/\0\0";
/* 'rsync://h/pub/sp ace x' rsync://h/pub/a.txt dest/ */
static const char cap_lsp[] =
	"--server\0--sender\0-e.LsfxCIvu\0.\0pub/sp ace x\0pub/a.txt\0\0";
/* rsync://h/pub/-dash dest/ */
static const char cap_dash[] =
	"--server\0--sender\0-e.LsfxCIvu\0.\0pub/-dash\0\0";
/* -rimyOJKEh8 --stats --progress -P --out-format=%n --chmod=u+w ... -u --existing
 * --delete-after --max-size=1m --numeric-ids --list-only --copy-dirlinks
 * --safe-links --sparse -W (most of it stays on the client) */
static const char cap_many[] =
	"--server\0--sender\0-ukWorSe.LsfxCIvu\0--list-only\0--ignore-errors\0--safe-links\0"
	"--numeric-ids\0.\0pub/\0\0";
/* -rlkLKHUxx --no-whole-file -z --zc=zstd -M--munge-links */
static const char cap_many2[] =
	"--server\0--sender\0-lLkHUrxxe.iLsfxCIvu\0--compress-choice=zstd\0--munge-links\0"
	".\0pub/\0\0";

static void test_captures(void)
{
	OK(WIRE(32, cap_basic));
	CHECK(o.server && o.sender && o.verbose == 1 && o.links && o.owner && o.group);
	CHECK(o.devices && o.specials && o.times && o.perms && o.recursive);
	CHECK(!o.secluded_args && !o.copy_links && !o.one_file_system && !o.cvs_exclude);
	CHECK(!o.ignore_times && !o.update && !o.compress);
	CHECK(o.cap_present && ALL_CAPS(o));
	CHECK(o.implied_dirs == 1 && o.compress_level == -1 && o.bwlimit == 0 && o.timeout == 0);
	CHECK(o.npaths == 1 && strcmp(o.paths[0], "pub/") == 0);
	options_free(&o);

	OK(WIRE(32, cap_big));
	CHECK(o.hard_links == 1 && o.always_checksum && o.compress == 0);
	CHECK(o.compress_level == 3 && o.timeout == 10 && o.bwlimit == 1024);
	CHECK(!strcmp(o.checksum_choice, "xxh128") && !strcmp(o.compress_choice, "zstd"));
	CHECK(o.numeric_ids && o.append == 2 && !o.delete_mode);
	options_free(&o);

	OK(WIRE(32, cap_sec));
	CHECK(o.secluded_args && o.verbose == 1 && o.hard_links == 1 && o.always_checksum);
	CHECK(o.compress_level == 3 && o.timeout == 10 && o.bwlimit == 1024 && o.append == 2);
	CHECK(!strcmp(o.checksum_choice, "xxh128") && !strcmp(o.compress_choice, "zstd"));
	CHECK(o.numeric_ids && o.npaths == 1 && !strcmp(o.paths[0], "pub/"));
	CHECK(ALL_CAPS(o));
	options_free(&o);

	OK(WIRE(32, cap_ff));
	CHECK(o.relative && o.files_from_socket && o.from0 && !o.files_from_path[0]);
	CHECK(!o.recursive && !o.cap_inc_recurse && o.cap_symlink_times && o.cap_id0_names);
	options_free(&o);

	OK(WIRE(32, cap_ffr));
	CHECK(o.relative && !o.files_from_socket && !strcmp(o.files_from_path, "list.txt"));
	CHECK(o.from0 && o.npaths == 1);
	options_free(&o);

	OK(WIRE(32, cap_list));
	CHECK(o.dirs && !o.recursive && !o.list_only);
	options_free(&o);

	OK(WIRE(29, cap_p29));
	CHECK(o.verbose == 1 && o.links && o.owner && o.group && o.devices && o.times);
	CHECK(o.perms && o.recursive && o.compress == 1 && o.timeout == 10);
	CHECK(!o.cap_present && !o.cap_varint_flist);
	options_free(&o);

	OK(WIRE(29, cap_p29s));
	CHECK(o.secluded_args && o.times && o.npaths == 1 && !strcmp(o.paths[0], "pub/a.txt"));
	options_free(&o);

	OK(WIRE(30, cap_p30));
	CHECK(o.compress == 1 && o.timeout == 10 && !strcmp(o.checksum_choice, "md5"));
	CHECK(ALL_CAPS(o));
	options_free(&o);

	OK(WIRE(27, cap_p27));
	CHECK(o.relative && !o.implied_dirs && o.numeric_ids && o.compress == 1);
	options_free(&o);

	FAILS(WIRE(32, cap_qsort), "rsync: on remote machine: --use-qsort: unknown option");
	CHECK(o.npaths == 0);  /* nothing left to free after a failure */

	OK(WIRE(32, cap_skip));
	CHECK(o.backup && o.times && o.recursive && o.compress == 1);
	CHECK(strcmp(o.skip_compress, "gz/mp[34]") == 0);
	options_free(&o);

	/* -ste.LsfxCIvu: only s, t and e are options (pitfall 6) */
	OK(WIRE(32, cap_st));
	CHECK(o.secluded_args && o.times && o.cap_present);
	CHECK(!o.copy_links && !o.verbose && !o.one_file_system && !o.cvs_exclude);
	CHECK(!o.ignore_times && !o.update && !o.from0);
	CHECK(o.cap_symlink_times && o.cap_symlink_iconv && o.cap_safe_flist &&
	      o.cap_avoid_xattr_optim && o.cap_chksum_seed_fix && o.cap_inplace_partial &&
	      o.cap_varint_flist && o.cap_id0_names && !o.cap_inc_recurse);
	CHECK(o.npaths == 1 && !strcmp(o.paths[0], "pub/a.txt"));
	options_free(&o);

	OK(WIRE(32, cap_hx));
	CHECK(o.verbose == 3 && o.hard_links == 2 && o.atimes == 1 && o.one_file_system == 2);
	CHECK(o.recursive);
	options_free(&o);

	OK(WIRE(32, cap_misc));
	CHECK(o.devices && o.specials && o.recursive && o.relative && !o.implied_dirs);
	CHECK(o.block_size == 1024 && o.ignore_missing_args && o.checksum_seed == 42);
	CHECK(o.copy_unsafe_links);
	options_free(&o);

	OK(WIRE(32, cap_misc2));
	CHECK(o.list_only && o.compress_level == 5 && !strcmp(o.checksum_choice, "md5,md5"));
	CHECK(!strcmp(o.compress_choice, "zlibx") && o.delete_missing_args);
	CHECK(o.remove_source_files);
	options_free(&o);

	OK(WIRE(32, cap_acl));
	CHECK(o.acls == 1 && o.xattrs == 1 && o.perms && o.recursive);
	options_free(&o);
	FAILS(WIRE(32, cap_cdev), "rsync: The server is configured to refuse --copy-devices");
	/* --iconv: the module decides (refuse.c); the parser takes it. */
	OK(WIRE(32, cap_iconv));
	CHECK(o.iconv);
	options_free(&o);

	OK(WIRE(32, cap_old));
	CHECK(o.compress == 1 && !strcmp(o.compress_choice, "zlib"));
	options_free(&o);

	OK(WIRE(32, cap_lsp));
	CHECK(o.npaths == 2 && !strcmp(o.paths[0], "pub/sp ace x") && !strcmp(o.paths[1], "pub/a.txt"));
	options_free(&o);

	/* pitfall 9: "-dash" after the "." is a path, not -d -a -s -h */
	OK(WIRE(32, cap_dash));
	CHECK(!o.dirs && !o.recursive && !o.secluded_args);
	CHECK(o.npaths == 1 && !strcmp(o.paths[0], "pub/-dash"));
	options_free(&o);

	OK(WIRE(32, cap_many));
	CHECK(o.update && o.copy_dirlinks && o.whole_file && o.owner && o.recursive && o.sparse);
	CHECK(o.list_only && o.ignore_errors && o.safe_links && o.numeric_ids);
	options_free(&o);

	OK(WIRE(32, cap_many2));
	CHECK(o.links && o.copy_links && o.copy_dirlinks && o.hard_links == 1 && o.atimes == 1);
	CHECK(o.one_file_system == 2 && !strcmp(o.compress_choice, "zstd"));
	options_free(&o);
}

/* ---------------------------------------------------------------------- */
/* 2. Short clusters                                                      */

static void test_clusters(void)
{
	/* -B with its value in the cluster, in the next record, and as the
	 * separate record stock clients send */
	OK(P(32, "--server", "--sender", "-vB1024", ".", "m/"));
	CHECK(o.verbose == 1 && o.block_size == 1024);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-rB", "2048", ".", "m/"));
	CHECK(o.recursive && o.block_size == 2048 && o.npaths == 1);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-re.iLsfxCIvu", "-B1024", ".", "m/"));
	CHECK(o.block_size == 1024 && o.cap_inc_recurse);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-B1k", ".", "m/"));
	CHECK(o.block_size == 1024);
	options_free(&o);
	/* the rest of the cluster is the value even if it looks like letters */
	FAILS(P(32, "--server", "-Bvr", ".", "m/"), "rsync: --block-size=vr is invalid");
	/* a value-taking letter at the end must not swallow the "." */
	FAILS(P(32, "--server", "--sender", "-vB", ".", "m/"),
	      "rsync: on remote machine: -vB: missing argument");

	/* -e at the end of a cluster takes the next record */
	OK(P(32, "--server", "--sender", "-te", ".iLsfxCIvu", ".", "m/"));
	CHECK(o.times && o.cap_present && ALL_CAPS(o));
	options_free(&o);
	/* pre-release version part; V; unknown letters ignored; a second -e wins */
	OK(P(32, "--server", "--sender", "-e32.1iLsfVQ", ".", "m/"));
	CHECK(o.cap_varint_prerelease && !o.cap_varint_flist && o.cap_inc_recurse &&
	      o.cap_safe_flist && !o.cap_id0_names);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-e.iLsfxCIvu", "-e.L", ".", "m/"));
	CHECK(o.cap_symlink_times && !o.cap_inc_recurse && !o.cap_varint_flist);
	options_free(&o);
	/* no -e at all */
	OK(P(32, "--server", "--sender", "-r", ".", "m/"));
	CHECK(!o.cap_present && !o.cap_varint_flist);
	options_free(&o);

	/* -a = -rlptgoD; -D = devices + specials; counting letters */
	OK(P(32, "--server", "--sender", "-a", ".", "m/"));
	CHECK(o.recursive && o.links && o.perms && o.times && o.group && o.owner);
	CHECK(o.devices && o.specials && !o.hard_links && !o.dirs);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-vvvvzzqq", ".", "m/"));
	CHECK(o.verbose == 4 && o.compress == 2 && o.quiet == 2);
	options_free(&o);
	/* letters a stock or openrsync client may send that change nothing here */
	OK(P(27, "--server", "--sender", "-8hiPOJKmyE0nWSbuICNUkLx", ".", "m/"));
	CHECK(o.from0 && o.dry_run && o.whole_file && o.sparse && o.backup && o.update);
	CHECK(o.ignore_times && o.cvs_exclude && o.crtimes && o.atimes == 1);
	CHECK(o.copy_dirlinks && o.copy_links && o.one_file_system == 1);
	options_free(&o);
	/* openrsync: one letter per record, newline framing */
	OK(P(27, "--server", "--sender", "-r", "-t", "-l", "--delete", "--max-size=10k",
	     "--min-size=1", ".", "m/"));
	CHECK(o.recursive && o.times && o.links && o.delete_mode && o.max_size_set && o.min_size_set);
	options_free(&o);
	/* -T, -M, -@ take values */
	OK(P(32, "--server", "--sender", "-T/tmp", "-M--bogus", "-@2", "-T", "x", ".", "m/"));
	options_free(&o);
}

/* ---------------------------------------------------------------------- */
/* 3. Long options                                                         */

static void test_long(void)
{
	OK(P(32, "--server", "--sender", "--recursive", "--links", "--perms", "--times",
	     "--owner", "--group", "--devices", "--specials", "--hard-links", "--hard-links",
	     "--checksum", "--relative", "--dirs", "--one-file-system", "--dry-run",
	     "--compress", "--numeric-ids", "--inplace", "--ignore-errors", "--list-only",
	     "--copy-links", "--copy-dirlinks", "--safe-links", "--atimes", "--crtimes",
	     "--whole-file", "--sparse", "--update", "--backup", "--ignore-times",
	     "--cvs-exclude", "--qsort", "--verbose", "--quiet", ".", "m/"));
	CHECK(o.recursive && o.links && o.perms && o.times && o.owner && o.group);
	CHECK(o.devices && o.specials && o.hard_links == 2 && o.always_checksum);
	CHECK(o.relative && o.dirs && o.one_file_system == 1 && o.dry_run && o.compress == 1);
	CHECK(o.numeric_ids && o.inplace && o.ignore_errors && o.list_only && o.copy_links);
	CHECK(o.copy_dirlinks && o.safe_links && o.atimes == 1 && o.crtimes && o.whole_file);
	CHECK(o.sparse && o.update && o.backup && o.ignore_times && o.cvs_exclude && o.qsort);
	CHECK(o.verbose == 1 && o.quiet == 1);
	options_free(&o);

	/* values: =value and the two-record form; aliases */
	OK(P(32, "--server", "--sender", "--timeout", "30", "--zl=7", "--zc=lz4",
	     "--cc", "xxh3", "--checksum-seed=-5", "--bwlimit=100", "--contimeout=3",
	     "--modify-window=-1", "--max-delete=10", "--compress-threads=2",
	     "--backup-dir", "bk", "--suffix=~", "--partial-dir=.p", "--temp-dir=/t",
	     "--chmod=Du+w", "--link-dest=/x", "--info=progress2", "--debug=ALL",
	     "--stderr=e", "--stderr=client", "--max-alloc=0", "--block-size=700", ".", "m/"));
	CHECK(o.timeout == 30 && o.compress_level == 7 && !strcmp(o.compress_choice, "lz4"));
	CHECK(!strcmp(o.checksum_choice, "xxh3") && o.checksum_seed == -5 && o.bwlimit == 100);
	CHECK(o.info_debug && o.block_size == 700);
	options_free(&o);

	/* --no-bwlimit: none (stock's POPT_ARG_VAL), in either order */
	OK(P(32, "--server", "--sender", "--bwlimit=100", "--no-bwlimit", ".", "m/"));
	CHECK(o.bwlimit == 0);
	options_free(&o);
	OK(P(32, "--server", "--sender", "--no-bwlimit", "--bwlimit=1.5m", ".", "m/"));
	CHECK(o.bwlimit == 1536);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", "--no-bwlimit=5", ".", "m/"),
	      "rsync: on remote machine: --no-bwlimit=5: option does not take an argument");

	OK(P(32, "--server", "--sender", "--checksum-seed=-2147483648", ".", "m/"));
	CHECK(o.checksum_seed == INT32_MIN);
	options_free(&o);
	OK(P(32, "--server", "--sender", "--compress-level=-131072", "--skip-compress=", ".", "m/"));
	CHECK(o.compress_level == -131072 && o.skip_compress[0] == '\0');
	options_free(&o);
	/* out-of-range levels are clamped later, as stock does */
	OK(P(32, "--server", "--sender", "-z", "--compress-level=100", "--zt=-3", ".", "m/"));
	CHECK(o.compress_level == 100);
	options_free(&o);
	OK(P(32, "--server", "--sender", "--zl=-2147483648", ".", "m/"));
	CHECK(o.compress_level == INT_MIN);
	options_free(&o);

	/* append: count, append-verify, protocol < 30 */
	OK(P(32, "--server", "--sender", "--append", ".", "m/"));
	CHECK(o.append == 1);
	options_free(&o);
	OK(P(32, "--server", "--sender", "--append-verify", ".", "m/"));
	CHECK(o.append == 2);
	options_free(&o);
	OK(P(29, "--server", "--sender", "--append", ".", "m/"));
	CHECK(o.append == 2);
	options_free(&o);

	/* deletion family */
	OK(P(27, "--server", "--sender", "--del", ".", "m/"));
	CHECK(o.delete_mode && !o.delete_excluded);
	options_free(&o);
	OK(P(27, "--server", "--sender", "--delete-excluded", "--force", ".", "m/"));
	CHECK(o.delete_mode && o.delete_excluded);
	options_free(&o);
	OK(P(27, "--server", "--sender", "--delete-before", "--delete-during", "--delete-delay",
	     "--delete-after", "--delete", ".", "m/"));
	CHECK(o.delete_mode);
	options_free(&o);

	/* negations: --no-NAME and --no-<letter> */
	OK(P(32, "--server", "--sender", "-a", "--no-D", "--no-o", "--no-perms", "--no-r",
	     "--no-implied-dirs", "--no-i-r", "--no-inc-recursive", "--no-msgs2stderr",
	     "--no-W", "--no-iconv", "--no-whole-file", ".", "m/"));
	CHECK(!o.devices && !o.specials && !o.owner && !o.perms && !o.recursive);
	CHECK(o.links && o.times && o.group && !o.implied_dirs && !o.whole_file);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-D", "--no-specials", ".", "m/"));
	CHECK(o.devices && !o.specials);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-D", "--no-devices", ".", "m/"));
	CHECK(!o.devices && o.specials);
	options_free(&o);
	OK(P(32, "--server", "--sender", "-vv", "--no-v", ".", "m/"));
	CHECK(o.verbose == 0);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", "--no-bogus", ".", "m/"),
	      "rsync: on remote machine: --no-bogus: unknown option");
	FAILS(P(32, "--server", "--sender", "--no-sender", ".", "m/"),
	      "rsync: on remote machine: --no-sender: unknown option");
	FAILS(P(32, "--server", "--sender", "--no-timeout", ".", "m/"),
	      "rsync: on remote machine: --no-timeout: unknown option");
	FAILS(P(32, "--server", "--sender", "--no-r=1", ".", "m/"),
	      "rsync: on remote machine: --no-r=1: option does not take an argument");

	/* files-from: implies -R unless --no-relative; "-" is the socket */
	OK(P(32, "--server", "--sender", "--files-from=-", "--from0", ".", "m/"));
	CHECK(o.files_from_socket && o.relative && o.from0);
	options_free(&o);
	OK(P(32, "--server", "--sender", "--no-relative", "--files-from=a/list", ".", "m/"));
	CHECK(!o.files_from_socket && !strcmp(o.files_from_path, "a/list") && !o.relative);
	options_free(&o);

	/* --remove-sent-files is the old name */
	OK(P(32, "--server", "--sender", "--remove-sent-files", ".", "m/"));
	CHECK(o.remove_source_files);
	options_free(&o);
	/* --secluded-args / --protect-args long forms */
	OK(P(32, "--server", "--sender", "--protect-args", ".", "m/"));
	CHECK(o.secluded_args);
	options_free(&o);
	/* --server later again is harmless; --sender absent is allowed (push) */
	OK(P(32, "--server", "-r", "--server", ".", "m/"));
	CHECK(o.server && !o.sender);
	options_free(&o);
	/* no paths at all is the caller's business */
	OK(P(32, "--server", "--sender", "."));
	CHECK(o.npaths == 0);
	options_free(&o);
}

/* ---------------------------------------------------------------------- */
/* 4. Escapes and paths                                                    */

static void test_escapes(void)
{
	OK(P(32, "--server", "--sender", "--skip-compress=gz/mp\\[34\\]", "--backup-dir",
	     "x\\ y", "--files-from=a\\ b\\\\c\\", ".", "m/a\\ b"));
	CHECK(!strcmp(o.skip_compress, "gz/mp[34]"));
	CHECK(!strcmp(o.files_from_path, "a b\\c\\"));   /* lone trailing '\' kept */
	CHECK(!strcmp(o.paths[0], "m/a\\ b"));          /* paths are not unescaped */
	options_free(&o);
	/* secluded: values arrive unescaped, a backslash is literal */
	OK(P(32, "--server", "--sender", "-se.LsfxCIvu", "--skip-compress=a\\b", ".", "m/"));
	CHECK(!strcmp(o.skip_compress, "a\\b"));
	options_free(&o);
	/* the capability string is never unescaped */
	OK(P(32, "--server", "--sender", "-e.\\iL", ".", "m/"));
	CHECK(o.cap_inc_recurse && o.cap_symlink_times);
	options_free(&o);

	/* everything after the first "." is a path, even option look-alikes */
	OK(P(32, "--server", "--sender", "-r", ".", "m/-dash", "--bogus", "-s", ".", ""));
	CHECK(o.npaths == 5 && !o.secluded_args);
	CHECK(!strcmp(o.paths[1], "--bogus") && !strcmp(o.paths[3], ".") && !strcmp(o.paths[4], ""));
	options_free(&o);
}

/* ---------------------------------------------------------------------- */
/* 5. Errors (stock's texts, captured from rsync 3.5.0, unless noted)      */

static void test_errors(void)
{
	FAILS(P(32, "--server", "--sender", "-re.iLsfxCIvu", "-rQv", ".", "m/"),
	      "rsync: on remote machine: -rQv: unknown option");
	FAILS(P(32, "--server", "--sender", "-Q", ".", "m/"),
	      "rsync: on remote machine: -Q: unknown option");
	FAILS(P(32, "--server", "--sender", "--bogus", ".", "m/"),
	      "rsync: on remote machine: --bogus: unknown option");
	FAILS(P(32, "--server", "--sender", "--bogus=3", ".", "m/"),
	      "rsync: on remote machine: --bogus=3: unknown option");
	/* no abbreviations (stock: "--sen", "--ver" unknown) */
	FAILS(P(32, "--server", "--sen", ".", "m/"),
	      "rsync: on remote machine: --sen: unknown option");
	FAILS(P(32, "--server", "--sender", "--ver", ".", "m/"),
	      "rsync: on remote machine: --ver: unknown option");
	FAILS(P(32, "--server", "--sender", "--use-qsort", ".", "m/"),
	      "rsync: on remote machine: --use-qsort: unknown option");
	FAILS(P(32, "--server", "--sender", "-V", ".", "m/"),
	      "rsync: on remote machine: -V: unknown option");
	FAILS(P(32, "--server", "--sender", "--timeout=abc", ".", "m/"),
	      "rsync: on remote machine: --timeout=abc: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--timeout=99999999999", ".", "m/"),
	      "rsync: on remote machine: --timeout=99999999999: number too large or too small");
	FAILS(P(32, "--server", "--sender", "--compress-level=abc", ".", "m/"),
	      "rsync: on remote machine: --compress-level=abc: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--compress-level=3x", ".", "m/"),
	      "rsync: on remote machine: --compress-level=3x: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--checksum-seed=abc", ".", "m/"),
	      "rsync: on remote machine: --checksum-seed=abc: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--modify-window=x", ".", "m/"),
	      "rsync: on remote machine: --modify-window=x: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "-@x", ".", "m/"),
	      "rsync: on remote machine: -@x: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--max-delete=x", ".", "m/"),
	      "rsync: on remote machine: --max-delete=x: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--numeric-ids=3", ".", "m/"),
	      "rsync: on remote machine: --numeric-ids=3: option does not take an argument");
	/* two-record value: popt names the value record */
	FAILS(P(32, "--server", "--sender", "--timeout", "1x", ".", "m/"),
	      "rsync: on remote machine: 1x: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--bwlimit=abc", ".", "m/"),
	      "rsync: --bwlimit=abc is invalid");
	FAILS(P(32, "--server", "--sender", "--bwlimit=100b", ".", "m/"),
	      "rsync: --bwlimit=100b is too small (min: 512 or 0 for unlimited)");
	FAILS(P(32, "--server", "--sender", "--bwlimit=1,5k", ".", "m/"),
	      "rsync: --bwlimit=1,5k is invalid");
	FAILS(P(32, "--server", "--sender", "--max-alloc=junk", ".", "m/"),
	      "rsync: --max-alloc=junk is invalid");
	FAILS(P(32, "--server", "--sender", "--max-alloc=1", ".", "m/"),
	      "rsync: --max-alloc=1 is too small (min: 1.00M or 0 for unlimited)");
	FAILS(P(32, "--server", "--sender", "--max-size=1x", ".", "m/"),
	      "rsync: --max-size=1x is invalid");
	FAILS(P(32, "--server", "--sender", "-B999999999", ".", "m/"),
	      "rsync: --block-size=999999999 is too large (max: 128.00K)");
	FAILS(P(32, "--server", "--sender", "--block-size=131073", ".", "m/"),
	      "rsync: --block-size=131073 is too large (max: 128.00K)");
	FAILS(P(32, "--server", "--sender", "-Bx", ".", "m/"),
	      "rsync: --block-size=x is invalid");
	FAILS(P(32, "--server", "--sender", "--stderr=bogus", ".", "m/"),
	      "rsync: --stderr mode \"bogus\" is not one of errors, all, or client");
	FAILS(P(32, "--server", "--sender", "--write-devices", ".", "m/"),
	      "rsync: The server is configured to refuse --write-devices");
	FAILS(P(32, "--server", "--sender", "--log-file=/tmp/x", ".", "m/"),
	      "rsync: The server is configured to refuse --log-file");
	FAILS(P(32, "--server", "--sender", "--log-file-format=x", ".", "m/"),
	      "rsync: The server is configured to refuse --log-file-format");
	FAILS(P(32, "--server", "--sender", "--log-file", ".", "m/"),
	      "rsync: The server is configured to refuse --log-file");
	/* rsync 3.5.0 refuses a client's --insecure-links (-M--insecure-links,
	 * captured), and takes its negation */
	FAILS(P(32, "--server", "--sender", "--insecure-links", ".", "m/"),
	      "rsync: The server is configured to refuse --insecure-links");
	CHECK(P(32, "--server", "--sender", "--no-insecure-links", "-L", ".", "m/") == 0 && o.copy_links == 1);
	options_free(&o);
	CHECK(P(32, "--server", "--sender", "-k", "--copy-unsafe-links", "--safe-links", "--munge-links", ".", "m/") == 0 &&
	      o.copy_dirlinks == 1 && o.copy_unsafe_links == 1 && o.safe_links == 1);
	options_free(&o);

	/* ours (no stock equivalent or stock misbehaves) */
	CHECK(P(32, "--server", "--sender", "-XX", ".", "m/") == 0 && o.xattrs == 2 && !o.acls);
	options_free(&o);
	CHECK(P(32, "--server", "--sender", "--acls", "--no-acls", "-A", ".", "m/") == 0 && o.acls == 1);
	options_free(&o);
	/* filter arguments (-M): kept in order for the filter list, values
	 * unescaped as other values; -F adds rsync's two rules, then nothing */
	OK(P(32, "--server", "--sender", "-rf- *.o", "--exclude=a\\ b", "--include", "*.c", "-FFF",
	     "--exclude-from=x.list", "--include-from", "y", "--filter=merge m", ".", "m/"));
	CHECK(o.recursive && o.nfilters == 8 && o.rsync_filter_letters == 3);
	CHECK(o.nfilters == 8 && o.filters[0].kind == OPT_FILT_RULE && !strcmp(o.filters[0].arg, "- *.o") &&
	      o.filters[1].kind == OPT_FILT_EXCLUDE && !strcmp(o.filters[1].arg, "a b") &&
	      o.filters[2].kind == OPT_FILT_INCLUDE && !strcmp(o.filters[2].arg, "*.c") &&
	      !strcmp(o.filters[3].arg, ": /.rsync-filter") && !strcmp(o.filters[4].arg, "- .rsync-filter") &&
	      o.filters[5].kind == OPT_FILT_EXCLUDE_FROM && !strcmp(o.filters[5].arg, "x.list") &&
	      o.filters[6].kind == OPT_FILT_INCLUDE_FROM && !strcmp(o.filters[6].arg, "y") &&
	      o.filters[7].kind == OPT_FILT_RULE && !strcmp(o.filters[7].arg, "merge m"));
	options_free(&o);
	CHECK(o.nfilters == 0 && o.filters == NULL);
	/* a failure keeps those before it (rsyncd has read them), not after */
	FAILS(P(32, "--server", "--sender", "--exclude=a", "--bogus", "--exclude=b", ".", "m/"),
	      "rsync: on remote machine: --bogus: unknown option");
	CHECK(o.nfilters == 1 && !strcmp(o.filters[0].arg, "a") && o.npaths == 0);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", "--exclude", ".", "m/"), "rsync: on remote machine: --exclude: missing argument");
	FAILS(P(32, "--server", "--sender", "--timeout", ".", "m/"),
	      "rsync: on remote machine: --timeout: missing argument");
	FAILS(P(32, "--server", "--sender", "--timeout=-5", ".", "m/"),
	      "rsync: on remote machine: --timeout=-5: number too large or too small");
	FAILS(P(32, "--server", "--sender", "--compress-level=2147483648", ".", "m/"),
	      "rsync: on remote machine: --compress-level=2147483648: number too large or too small");
	FAILS(P(32, "--server", "--sender", "--checksum-seed=2147483648", ".", "m/"),
	      "rsync: on remote machine: --checksum-seed=2147483648: number too large or too small");
	FAILS(P(32, "--server", "--sender", "--timeout= 5", ".", "m/"),
	      "rsync: on remote machine: --timeout= 5: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "--timeout=", ".", "m/"),
	      "rsync: on remote machine: --timeout=: invalid numeric value");
	FAILS(P(32, "--server", "--sender", "-B-1", ".", "m/"),
	      "rsync: --block-size=-1 is invalid");
	FAILS(P(29, "--server", "--sender", "-B999999999", ".", "m/"),
	      "rsync: --block-size=999999999 is too large (max: 512.00M)");
	FAILS(P(32, "--server", "--sender", "--bwlimit=99999999999", ".", "m/"),
	      "rsync: --bwlimit=99999999999 is too large");
	FAILS(P(32, "--server", "--sender", "--bwlimit=99999999p", ".", "m/"),
	      "rsync: --bwlimit=99999999p is too large");
	FAILS(P(32, "--server", "--sender", "--max-alloc=99999999p", ".", "m/"),
	      "rsync: --max-alloc=99999999p is too large");
	FAILS(P(32, "--server", "--sender", "--max-size=99999999999999999999", ".", "m/"),
	      "rsync: --max-size=99999999999999999999 is too large");
	FAILS(P(32, "--server", "--sender", "--min-size=1q", ".", "m/"),
	      "rsync: --min-size=1q is invalid");
	FAILS(P(32, "--server", "--sender", "--bwlimit=-1", ".", "m/"),
	      "rsync: --bwlimit=-1 is invalid");
	FAILS(P(32, "--server", "--sender", "--stderr=", ".", "m/"),
	      "rsync: --stderr mode \"\" is not one of errors, all, or client");
	FAILS(P(29, "--server", "--sender", "-st", "(null)", ".", "m/"),
	      "rsync: on remote machine: (null): unexpected argument before \".\"");
	FAILS(P(32, "--server", "--sender", "--", ".", "m/"),
	      "rsync: on remote machine: --: unexpected argument before \".\"");
	FAILS(P(32, "--server", "--sender", "-", ".", "m/"),
	      "rsync: on remote machine: -: unexpected argument before \".\"");
	FAILS(P(32, "--sender", "--server", ".", "m/"), "rsync: the first argument must be --server");
	FAILS(P(32, "--server", "--sender", "m/"),
	      "rsync: no \".\" separating the options from the paths");
	FAILS(P(32, "--server", "--sender", "-B"),
	      "rsync: no \".\" separating the options from the paths");
	FAILS(options_parse(&o, 32, NULL, 0, err, sizeof(err)),
	      "rsync: the first argument must be --server");
	/* client bytes in a message are made printable */
	FAILS(P(32, "--server", "--sender", "--bo\ngus\x1b", ".", "m/"),
	      "rsync: on remote machine: --bo?gus?: unknown option");

	/* a tiny error buffer truncates, never overflows */
	{
		char small[8];
		const char *l[] = { "--server", "--bogus", ".", NULL };
		CHECK(options_parse(&o, 32, (char *const *)l, 3, small, sizeof(small)) == -1);
		CHECK(strcmp(small, "rsync: ") == 0);
		CHECK(options_parse(&o, 32, (char *const *)l, 3, NULL, 0) == -1);
	}
}

/* ---------------------------------------------------------------------- */
/* 6. Sizes and bounds                                                     */

static int bw(const char *v)
{
	char rec[64];
	int r;

	snprintf(rec, sizeof(rec), "--bwlimit=%s", v);
	r = P(32, "--server", "--sender", rec, ".", "m/");
	if (r < 0)
		return -1;
	r = o.bwlimit;
	options_free(&o);
	return r;
}

static void test_sizes(void)
{
	CHECK(bw("0") == 0);
	CHECK(bw("1024") == 1024);
	CHECK(bw("1m") == 1024);
	CHECK(bw("1.5m") == 1536);
	CHECK(bw("1.5") == 2);          /* 1536 bytes, rounded to KiB */
	CHECK(bw("1kb") == 1);          /* 1000 bytes */
	CHECK(bw("1KiB") == 1);
	CHECK(bw("1g") == 1048576);
	CHECK(bw("1m+1") == 1024);
	CHECK(bw("2047b") == 2);
	CHECK(bw("512b") == 1);
	CHECK(bw(".5") == 1);
	CHECK(bw("1t") == 1073741824);
	CHECK(bw("2t") == -1);          /* > INT_MAX KiB */
	CHECK(bw("1p") == -1);
	CHECK(bw("") == -1);
	CHECK(bw(".") == -1);
	CHECK(bw("1mm") == -1);
	CHECK(bw("1m+2") == -1);
	CHECK(bw("99999999999999999999999") == -1);
	CHECK(bw("1.99999999999999999999m") == 2048);

	OK(P(32, "--server", "--sender", "--max-alloc=1.5g", "--max-size=1m-1",
	     "--min-size=0", "--block-size=131072", ".", "m/"));
	CHECK(o.block_size == 131072);
	options_free(&o);
	OK(P(29, "--server", "--sender", "-B536870912", ".", "m/"));
	CHECK(o.block_size == 536870912);
	options_free(&o);
}

/* prefix followed by n copies of c */
static char *fill(char *buf, const char *prefix, char c, size_t n)
{
	size_t l = strlen(prefix);

	memcpy(buf, prefix, l);
	memset(buf + l, c, n);
	buf[l + n] = '\0';
	return buf;
}

static void test_bounds(void)
{
	static char *list[OPT_MAX_ARGS + 2];
	static char big[OPT_MAX_ARG_LEN + 2];
	static char name[OPT_MAX_PATHS + 2][16];
	static char str[4200];
	size_t n;

	/* argument count */
	list[0] = "--server";
	list[1] = "--sender";
	for (n = 2; n < OPT_MAX_ARGS - 2; n++)
		list[n] = "-v";
	list[n++] = ".";
	list[n++] = "m/";
	CHECK(n == OPT_MAX_ARGS);
	OK(options_parse(&o, 32, list, n, err, sizeof(err)));
	CHECK(o.verbose == OPT_MAX_ARGS - 4 && o.npaths == 1);
	options_free(&o);
	list[n++] = "m/x";
	FAILS(options_parse(&o, 32, list, n, err, sizeof(err)), "rsync: too many arguments (max 16000)");

	/* record length: 5120 is fine, 5121 is not (and is not cut short) */
	memset(big, 'v', OPT_MAX_ARG_LEN);
	big[0] = '-';
	big[OPT_MAX_ARG_LEN] = '\0';
	OK(P(32, "--server", "--sender", big, ".", "m/"));
	CHECK(o.verbose == OPT_MAX_ARG_LEN - 1);
	options_free(&o);
	big[OPT_MAX_ARG_LEN] = 'v';
	big[OPT_MAX_ARG_LEN + 1] = '\0';
	FAILS(P(32, "--server", "--sender", big, ".", "m/"), "rsync: argument too long (max 5120 bytes)");
	FAILS(P(32, "--server", "--sender", ".", big), "rsync: argument too long (max 5120 bytes)");

	/* path count: as many as the list holds (rsyncd serves them all) */
	list[0] = "--server";
	list[1] = "--sender";
	list[2] = ".";
	for (n = 0; n < OPT_MAX_ARGS - 2; n++) {
		snprintf(name[n], sizeof(name[n]), "m/%zu", n);
		list[3 + n] = name[n];
	}
	OK(options_parse(&o, 32, list, OPT_MAX_ARGS, err, sizeof(err)));
	CHECK(o.npaths == OPT_MAX_ARGS - 3 && !strcmp(o.paths[OPT_MAX_ARGS - 4], "m/15996"));
	options_free(&o);
	CHECK(o.npaths == 0 && o.paths == NULL);
	options_free(&o);   /* twice is harmless */
	FAILS(options_parse(&o, 32, list, OPT_MAX_ARGS + 1, err, sizeof(err)), "rsync: too many arguments (max 16000)");

	/* NULL record */
	list[0] = "--server";
	list[1] = NULL;
	list[2] = ".";
	FAILS(options_parse(&o, 32, list, 3, err, sizeof(err)), "rsync: missing argument record");

	/* fixed-size string fields: longest fit, one more is refused */
	OK(P(32, "--server", "--sender", fill(str, "--compress-choice=", 'a', 31), ".", "m/"));
	CHECK(strlen(o.compress_choice) == 31);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", fill(str, "--compress-choice=", 'a', 32), ".", "m/"),
	      "rsync: the --compress-choice value is too long (max 31 bytes)");
	OK(P(32, "--server", "--sender", fill(str, "--checksum-choice=", 'a', 63), ".", "m/"));
	options_free(&o);
	FAILS(P(32, "--server", "--sender", fill(str, "--cc=", 'a', 64), ".", "m/"),
	      "rsync: the --cc value is too long (max 63 bytes)");
	OK(P(32, "--server", "--sender", fill(str, "--skip-compress=", 'a', 1023), ".", "m/"));
	CHECK(strlen(o.skip_compress) == 1023);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", fill(str, "--skip-compress=", 'a', 1024), ".", "m/"),
	      "rsync: the --skip-compress value is too long (max 1023 bytes)");
	/* the length counts after unescaping */
	OK(P(32, "--server", "--sender", fill(str, "--skip-compress=", '\\', 2046), ".", "m/"));
	CHECK(strlen(o.skip_compress) == 1023);
	options_free(&o);
	OK(P(32, "--server", "--sender", fill(str, "--files-from=", 'a', 4095), ".", "m/"));
	CHECK(strlen(o.files_from_path) == 4095 && o.relative);
	options_free(&o);
	FAILS(P(32, "--server", "--sender", fill(str, "--files-from=", 'a', 4096), ".", "m/"),
	      "rsync: the --files-from value is too long (max 4095 bytes)");

	/* a failed parse leaves nothing allocated, and resets the struct */
	OK(P(32, "--server", "--sender", "-r", ".", "a", "b"));
	options_free(&o);
	FAILS(P(32, "--server", "--sender", "--bogus", ".", "a", "b"),
	      "rsync: on remote machine: --bogus: unknown option");
	CHECK(o.npaths == 0 && !o.recursive && o.implied_dirs == 1 && o.compress_level == -1);
}

int main(void)
{
	test_captures();
	test_clusters();
	test_long();
	test_escapes();
	test_errors();
	test_sizes();
	test_bounds();
	return unit_done("test_options");
}
