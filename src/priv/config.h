/* SPDX-License-Identifier: ISC */
/*
 * The daemon configuration: rsyncd.conf syntax, read by the privileged side
 * only.  The listener parses it at start-up, on SIGHUP and for
 * --check-config; each session monitor receives it as a sealed snapshot
 * (cfgsnap.h) and never opens the file.
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
#define CFG_TAG_MAX 200            /* syslog tag, before %VAR% expansion */
#define CFG_LOG_FORMAT_MAX 512     /* "log format" */
#define CFG_MODLOG_FILES_MAX 64    /* distinct module "log file"s (modlog.h) */

/*
 * Every field of a module and of the global section, listed once.  The
 * structs, the parser's copy and free, and the snapshot that carries the
 * configuration from the listener to each session are all generated from
 * these lists, so a new directive is one line here plus its row in the
 * parser's table (config.c).  STR is a string (NULL = unset), INT an int,
 * STRV a fixed array of strings.
 */
#define CFG_MODULE_FIELDS(STR, INT, STRV)                                              \
	STR(name)          /* section name, as written (rsyncd keeps case) */          \
	STR(path)          /* required: absolute path of the module root */            \
	STR(comment)       /* "" when unset */                                          \
	INT(list)          /* default 1 */                                              \
	INT(read_only)     /* default 1; 0 is accepted with a warning: pushes are      \
			    * still refused as read-only */                            \
	INT(write_only)    /* default 0; 1: downloads refused as rsyncd refuses them */ \
	STR(uid)           /* name or number the files are read as; NULL = default */   \
	STR(gid)           /* likewise; NULL = default */                               \
	INT(use_chroot)    /* accepted, recorded; confinement is always on */           \
	INT(numeric_ids)   /* -1 = rsyncd's default: yes for chroot modules */          \
	INT(munge_symlinks) /* -1 = rsyncd's default: yes unless "use chroot" */        \
	INT(insecure_links) /* accepted, recorded: links never leave the module */      \
	STR(dont_compress) /* patterns as written; NULL = unset (the default list) */   \
	STRV(filt, CFG_F_N) /* filter directives (the "from" ones: the file's          \
			     * contents, read at load), NULL = unset */                 \
	INT(max_connections) /* 0 = unlimited, < 0 = always full (as rsyncd) */        \
	STR(lock_file)     /* accepted, unused: the listener counts connections */     \
	STR(hosts_allow)   /* access lists (hosts.h); NULL = unset */                   \
	STR(hosts_deny)                                                                 \
	INT(reverse_lookup) /* default 1; the global value decides the connect-time lookup */ \
	INT(forward_lookup) /* default 1 */                                             \
	STR(auth_users)    /* rules as written; NULL = anonymous */                     \
	STR(secrets_file)  /* read by the monitor at each login; NULL = none */         \
	STR(auth_digest)   /* weakest digest accepted; NULL = any */                    \
	INT(strict_modes)  /* default 1 */                                              \
	STR(refuse_options) /* as written, NULL = none; judged by the worker */        \
	INT(max_verbosity) /* default 1: the client's -v count is cut to it */         \
	INT(ignore_nonreadable) /* default 0; the monitor leaves unreadable entries   \
				 * out of listings */                                   \
	INT(ignore_errors) /* default 0; the sender reports no I/O error */           \
	STR(outgoing_chmod) /* chmod(1)-style rules for the modes sent, NULL = none */ \
	STR(charset)       /* the module's file-name charset, NULL = none (--iconv    \
			    * refused) */                                              \
	INT(open_noatime)  /* default 0; 1: files are opened with O_NOATIME */       \
	INT(fake_super)    /* default 0; 1 is refused unless the module is write only */\
	INT(transfer_logging) /* default 0: one log line per file sent (log format) */ \
	STR(log_format)    /* default "%o %h [%a] %m (%u) %f %l" */                    \
	STR(log_file)      /* the global value unless set here; NULL = syslog */       \
	STR(syslog_facility) /* likewise; used when logging to syslog */              \
	STR(syslog_tag)    /* likewise; %RSYNC_*% expanded at selection (modlog.c) */  \
	INT(timeout)       /* seconds of client silence that end a session, and the   \
			    * bound on the argument phase; 0 = none (rsyncd's default) */ \
	INT(line)          /* line of the section header, for messages */

#define CFG_GLOBAL_FIELDS(STR, INT, STRV)                                              \
	INT(port)              /* default 873 */                                        \
	STR(address)           /* NULL = all addresses, IPv4 and IPv6 */                \
	STR(pid_file)          /* NULL = none */                                        \
	STR(log_file)          /* NULL = syslog */                                      \
	STR(motd_file)         /* NULL = none */                                        \
	STR(worker_user)       /* default "nobody" */                                   \
	STR(worker_chroot)     /* default "/run/prsyncd/empty" */                       \
	INT(handshake_timeout) /* seconds, default 30, range 1..3600 */                 \
	STR(syslog_facility)   /* default "daemon" */                                   \
	STR(syslog_tag)        /* default "prsyncd" */                                  \
	INT(reverse_lookup)    /* the global section's value (module field's default) */ \
	INT(max_connections_per_host) /* sessions per client address, 0 = unlimited */ \
	INT(proxy_protocol)    /* default 0: 1 = every connection starts with a PROXY header */ \
	STR(proxy_protocol_hosts) /* peers trusted to send one (hostlist.h); NULL = none */ \
	INT(listen_backlog)    /* listen(2) backlog, default 64 */                      \
	STR(socket_options)    /* set on accepted connections, NULL = none */          \
	STR(daemon_uid)        /* NULL = unset; else every module reads files as it */  \
	STR(daemon_gid)        /* likewise */                                           \
	INT(timeout)           /* the global section's "timeout": bounds the text phase \
				* before a module is chosen; 0 = unset */ \
	INT(umask)             /* not a directive: the listener's umask when it read   \
				* the file ("outgoing chmod" rules without a who    \
				* honour it, as in rsyncd) */                       \
	INT(bwlimit)           /* not a directive: the daemon's --bwlimit, KiB/s,   \
				* 0 = none; a cap on every session's rate */        \
	INT(log_debug)         /* not a directive: --log-debug, 1 = the log also   \
				* gets prsyncd's own diagnostic lines */

#define CFG_DECL_STR(f) char *f;
#define CFG_DECL_INT(f) int f;
#define CFG_DECL_STRV(f, n) char *f[n];

struct cfg_module {
	CFG_MODULE_FIELDS(CFG_DECL_STR, CFG_DECL_INT, CFG_DECL_STRV)
};

struct cfg {
	CFG_GLOBAL_FIELDS(CFG_DECL_STR, CFG_DECL_INT, CFG_DECL_STRV)

	size_t nmodules;
	struct cfg_module *modules;

	/* Warnings collected while parsing (directive known to rsyncd, not yet
	 * implemented here), one "FILE:LINE: message" per entry.  The listener's
	 * only: sessions never see them. */
	size_t nwarnings;
	char **warnings;
	/* The unknown parameters among them, "'NAME' (FILE:LINE)" each: rsyncd
	 * ignores them, so whatever they were meant to set is not in effect,
	 * and --check-config and the start-up/reload log say so once more. */
	size_t nunknown;
	char **unknown;
};

/*
 * The bound on a text phase of the handshake (greeting and module name, or
 * the argument list after a selection), as rsync 3.5.0 bounds it: 60 s, or
 * the applicable `timeout` if smaller, or prsyncd's own `handshake timeout`
 * if that is smaller still.
 */
#define CFG_HANDSHAKE_CAP 60
static inline unsigned cfg_handshake_bound(int handshake_timeout, int timeout)
{
	int b = handshake_timeout < CFG_HANDSHAKE_CAP ? handshake_timeout : CFG_HANDSHAKE_CAP;

	if (timeout > 0 && timeout < b)
		b = timeout;
	return b > 0 ? (unsigned)b : 1u;
}

/*
 * Parse a file.  On success returns 0 and fills *out (to be freed with
 * cfg_free).  On failure returns -1 and writes "FILE:LINE: reason" into err
 * (errlen bytes): the first error, with a count of the others.  Failure
 * covers syntax errors, unknown directives, values out of range, and
 * directives that would be unsafe to ignore (any *exec hook, daemon
 * chroot, fake super on a readable module, a module without path).
 */
int cfg_load(const char *file, struct cfg *out, char *err, size_t errlen);

/* Same, from a buffer; `name` is used in messages. */
int cfg_parse(const char *name, const char *text, size_t len, struct cfg *out,
	      char *err, size_t errlen);

/* Every error of a file, "FILE:LINE: reason" each (--check-config). */
struct cfg_errors {
	size_t n;
	char **v;
};

/*
 * As cfg_load, but the parse goes on after an error: every error is
 * collected in *errors, and *out holds what could be parsed either way
 * (the caller frees both: cfg_free, cfg_errors_free).  Returns 0, or -1
 * if there were errors.
 */
int cfg_load_all(const char *file, struct cfg *out, struct cfg_errors *errors);
void cfg_errors_free(struct cfg_errors *e);

void cfg_free(struct cfg *c);

/* One line naming every unknown parameter ignored (up to ten, then how
 * many more) and what that means; 0 if there were none, else its length
 * (cut to len). */
#define CFG_SUMMARY_MAX 2048
size_t cfg_unknown_summary(const struct cfg *c, char *buf, size_t len);

/* Find a module by name (exact, case-sensitive, as rsyncd). NULL if none. */
const struct cfg_module *cfg_find_module(const struct cfg *c, const char *name);

/* Parse a boolean as rsyncd does: yes/no/true/false/1/0, case-insensitive. */
int cfg_parse_bool(const char *v, int *out);
/* A number as rsyncd reads it (atoi(3)); *plain (if not NULL): the text
 * was exactly that number. */
int rsyncd_atoi(const char *s, int *plain);

#endif
