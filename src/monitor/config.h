/*
 * The daemon configuration: rsyncd.conf syntax, read by the privileged side
 * only.  The listener parses it at start-up (and for --check-config); each
 * session monitor parses it again, as rsyncd re-reads its file for every
 * connection.
 */
#ifndef PRSYNCD_CONFIG_H
#define PRSYNCD_CONFIG_H

#include <stddef.h>
#include <sys/types.h>

#include "modfilter.h"

#define CFG_MAX_MODULES 1024
#define CFG_MAX_LINE 8192        /* a logical line, continuations joined */
#define CFG_ERR_MAX 512

#define CFG_DONT_COMPRESS_MAX 1024 /* with its NUL; fits struct pr_str_text */

struct cfg_module {
	char *name;          /* section name, as written (rsyncd keeps case) */
	char *path;          /* required: absolute path of the module root */
	char *comment;       /* "" when unset */
	int list;            /* default 1 */
	int read_only;       /* default 1; 0 is refused until uploads exist */
	int write_only;      /* default 0; 1 is refused (nothing to serve) */
	char *uid;           /* name or number the files are read as; NULL = default */
	char *gid;           /* likewise; NULL = default */
	int use_chroot;      /* accepted, recorded; confinement is always on */
	int numeric_ids;     /* -1 = rsyncd's default: yes for chroot modules */
	char *dont_compress; /* patterns as written; NULL = unset (the default list) */
	char *filt[CFG_F_N]; /* filter directives (the "from" ones: the file's
			      * contents, read at load), NULL = unset */
	int line;            /* line of the section header, for messages */
};

struct cfg {
	/* global section */
	int port;            /* default 873 */
	char *address;       /* NULL = all addresses, IPv4 and IPv6 */
	char *pid_file;      /* NULL = none */
	char *log_file;      /* NULL = syslog */
	char *motd_file;     /* NULL = none */
	char *worker_user;   /* default "nobody" */
	char *worker_chroot; /* default "/run/prsyncd/empty" */
	int handshake_timeout; /* seconds, default 30, range 1..3600 */
	char *syslog_facility; /* default "daemon" */
	int reverse_lookup;  /* default 1 */

	size_t nmodules;
	struct cfg_module *modules;

	/* Warnings collected while parsing (directive known to rsyncd, not yet
	 * implemented here), one "FILE:LINE: message" per entry. */
	size_t nwarnings;
	char **warnings;
};

/*
 * Parse a file.  On success returns 0 and fills *out (to be freed with
 * cfg_free).  On failure returns -1 and writes "FILE:LINE: reason" into err
 * (errlen bytes).  Failure covers syntax errors, unknown directives, values
 * out of range, and directives that would weaken security (read only = no,
 * write only = yes, any *exec hook, a module without path).
 */
int cfg_load(const char *file, struct cfg *out, char *err, size_t errlen);

/* Same, from a buffer; `name` is used in messages. */
int cfg_parse(const char *name, const char *text, size_t len, struct cfg *out,
	      char *err, size_t errlen);

void cfg_free(struct cfg *c);

/* Find a module by name (exact, case-sensitive, as rsyncd). NULL if none. */
const struct cfg_module *cfg_find_module(const struct cfg *c, const char *name);

/* Parse a boolean as rsyncd does: yes/no/true/false/1/0, case-insensitive. */
int cfg_parse_bool(const char *v, int *out);

#endif
