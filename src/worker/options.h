/* SPDX-License-Identifier: ISC */
/*
 * The options a client sent as its "server command line", parsed and
 * checked.  Everything the sender does differently per option is driven
 * from this struct; nothing else in the worker looks at argument strings.
 */
#ifndef PRSYNCD_OPTIONS_H
#define PRSYNCD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define OPT_MAX_ARGS 16000     /* stock's cap on the number of arguments */
#define OPT_MAX_ARG_LEN 5120   /* one argument record */
#define OPT_MAX_PATHS (OPT_MAX_ARGS - 2) /* source paths: as many as the list holds after "--server" and "." */

/* A filter rule, or a file of them, on the server command line: rsyncd
 * adds these to its list as it parses them, ahead of the client's list. */
enum opt_filt {
	OPT_FILT_RULE,          /* --filter / -f RULE, and the rules -F and -FF add */
	OPT_FILT_EXCLUDE,       /* --exclude PATTERN */
	OPT_FILT_INCLUDE,       /* --include PATTERN */
	OPT_FILT_EXCLUDE_FROM,  /* --exclude-from FILE (a module file) */
	OPT_FILT_INCLUDE_FROM,  /* --include-from FILE */
};

struct opt_filter {
	enum opt_filt kind;
	char *arg;
};

struct options {
	int server, sender;            /* --server, --sender */
	int verbose, quiet;
	int recursive, dirs;           /* -r, -d */
	int relative, implied_dirs;    /* -R; --no-implied-dirs clears implied_dirs (default 1) */
	int links;                     /* -l */
	int copy_links, copy_dirlinks, copy_unsafe_links, safe_links;  /* -L -k */
	int insecure_links;            /* asked for (and so refused: rsyncd resets the connection) */
	int hard_links;                /* -H (count) */
	int acls;                      /* -A */
	int xattrs;                    /* -X (count: -XX also sends rsync's own "user.rsync.%" ones) */
	int perms, times, owner, group;/* -p -t -o -g */
	int devices, specials;         /* -D = both; --no-specials etc. */
	int atimes, crtimes;           /* -U, -N */
	int always_checksum;           /* -c */
	int cvs_exclude;               /* -C */
	int one_file_system;           /* -x (count) */
	int dry_run;                   /* -n */
	int whole_file;                /* -W */
	int sparse, ignore_times, update, backup;   /* accepted, receiver side */
	int compress;                  /* -z (count) */
	int compress_level;            /* --compress-level, -1 = default */
	char compress_choice[32];      /* --compress-choice / --new-compress / --old-compress; "" = none */
	char skip_compress[1024];      /* --skip-compress, "" = none */
	char checksum_choice[64];      /* --checksum-choice, "" = none */
	int32_t checksum_seed;         /* --checksum-seed, 0 = choose */
	int numeric_ids;
	int append;                    /* --append count: 1 append, 2 append-verify */
	int inplace;
	int ignore_errors;
	int iconv;                     /* --iconv (the module's charset decides the conversion) */
	int ignore_missing_args, delete_missing_args;
	int list_only;
	int timeout;                   /* seconds, 0 = none */
	int bwlimit;                   /* KiB/s, 0 = none */
	int from0;                     /* -0 / --from0 */
	int files_from_socket;         /* --files-from=- */
	char files_from_path[4096];    /* --files-from=PATH on the server ("" = none) */
	int secluded_args;             /* -s */
	int remove_source_files;       /* refused on read-only modules */
	int qsort;                     /* --qsort (disables inc-recursion) */
	int block_size;                /* -B */
	int max_size_set, min_size_set;/* accepted (openrsync sends them) */
	int delete_mode;               /* any --delete* seen (openrsync) */
	int delete_excluded;
	int info_debug;                /* --info/--debug seen */
	/* the -e capability string, split into letters */
	int cap_present;               /* an 'e' was in the cluster */
	int cap_inc_recurse;           /* i */
	int cap_symlink_times;         /* L */
	int cap_symlink_iconv;         /* s */
	int cap_safe_flist;            /* f */
	int cap_avoid_xattr_optim;     /* x */
	int cap_chksum_seed_fix;       /* C */
	int cap_inplace_partial;       /* I */
	int cap_varint_flist;          /* v */
	int cap_varint_prerelease;     /* V */
	int cap_id0_names;             /* u */
	/* filter arguments in command-line order (worker/filters.c reads them) */
	size_t nfilters;
	struct opt_filter *filters;
	int rsync_filter_letters;      /* -F seen so far: the first two add a rule each */
	/* source paths, as sent (module prefix still attached) */
	size_t npaths;
	char **paths;
};

/*
 * Parse the argument list (already split into records, without the
 * terminating empty record).  `protocol` is the negotiated version.
 * Returns 0, or -1 with `err` holding the client-visible message
 * (e.g. "rsync: on remote machine: --bogus: unknown option") without the
 * trailing newline.  Paths are strdup'ed into o->paths, filter arguments
 * into o->filters.  On failure there are no paths, but o->filters holds
 * the filter arguments before the one that failed: rsyncd has read those
 * (and any file they name) by the time it meets the error.  Free with
 * options_free either way.
 */
int options_parse(struct options *o, int protocol, char *const *argv, size_t argc,
		  char *err, size_t errlen);

struct refuse;
/* Likewise, judging every option and what the options imply against a
 * module's "refuse options" (refuse.h); NULL judges nothing. */
int options_parse_refusing(struct options *o, int protocol, struct refuse *refuse, char *const *argv,
			   size_t argc, char *err, size_t errlen);

/* Release what options_parse allocated. */
void options_free(struct options *o);

#endif
