/* SPDX-License-Identifier: ISC */
#ifndef PRSYNCD_LOG_H
#define PRSYNCD_LOG_H

#include "msg.h"

/* Log to an open file descriptor (rsyncd's "log file" format). */
void log_use_fd(int fd);
#define LOG_TAG_MAX 256 /* a syslog tag after %VAR% expansion, with its NUL */

/* Log to syslog with the given facility name ("daemon", "local0", ...) and
 * tag (NULL or "": "prsyncd"; cut at LOG_TAG_MAX - 1 bytes).  Replaces any
 * earlier syslog connection.  Returns -1 if the facility name is unknown. */
int log_use_syslog(const char *facility, const char *tag);
/* Its two halves: the facility (from the configuration alone: switches to
 * syslog and connects; -1 if the name is unknown, nothing changed), and
 * the tag (which may carry a session's values: characters that would break
 * a record's header are replaced). */
int log_syslog_facility(const char *facility);
void log_syslog_tag(const char *tag);
/* Connect to the syslog socket now, without logging there yet (a session
 * does it before its worker exists, when a module may log to syslog). */
void log_syslog_connect(void);
/* Whether lines go to syslog now. */
int log_to_syslog(void);
/* Log to stderr (before the daemon has decided, and for --check-config). */
void log_use_stderr(void);

void log_msg(enum pr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* PR_LOG_DEBUG lines (prsyncd's own diagnostics: protocol details, work
 * counters, refreshes) are written only after log_set_debug(1): rsyncd's
 * log has no such lines, and a log file has no level to filter them by.
 * The listener's --log-debug sets it, and the sessions from their
 * snapshot. */
void log_set_debug(int on);

/* Copy text into out escaped as rsync 3.5.0 escapes its log file: a
 * control byte but tab, a C1 byte (0x80-0x9f), and a backslash that would
 * read as such an escape ("\#" and three digits) shown as "\#ooo".  For
 * every field a worker (or a client through it) chose: log_msg escapes the
 * control and C1 bytes of every line anyway, this adds the backslash so
 * that the field reads back unambiguously.  Cut at outlen - 1 bytes;
 * LOG_ESCAPED(strlen(in)) always holds it. */
#define LOG_ESCAPED(n) ((n) * 5 + 1)
void log_sanitize(char *out, size_t outlen, const char *in);

/*
 * The session monitor's log budget: while a gate is set, each line is
 * offered to it first (len: the line's text before escaping), and not
 * written if it answers 0.  The monitor sets it around every worker
 * request it handles (session.c's dispatch), so whatever a handler logs
 * on the worker's behalf is charged, and nothing else is.  NULL: none.
 */
typedef int (*log_gate_fn)(void *ctx, enum pr_log_level level, size_t len);
void log_set_gate(log_gate_fn fn, void *ctx);

/* Point stdin/stdout (and stderr in release builds) at /dev/null. */
void null_stdio(void);

#endif
