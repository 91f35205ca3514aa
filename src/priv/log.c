/* SPDX-License-Identifier: ISC */
/*
 * Operator log.  Lines in a log file carry rsyncd's default prefix
 * "YYYY/MM/DD HH:MM:SS [PID] " so existing log tooling keeps working.
 *
 * Every line is escaped here, whatever its caller did: a control byte
 * (but tab) or a C1 byte becomes "\#ooo", as rsync 3.5.0 escapes its log
 * file, so no text a worker or a client chose can start a line or drive
 * a terminal, even in a line whose caller forgot it.  A field that came
 * from the worker is also passed through log_sanitize() by its caller,
 * which adds rsyncd's escape of a backslash that would read as an escape.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "log.h"

enum sink { SINK_STDERR, SINK_FD, SINK_SYSLOG };
static enum sink sink = SINK_STDERR;
static int log_fd = 2;

void log_use_fd(int fd)
{
	sink = SINK_FD;
	log_fd = fd;
}

int log_to_syslog(void)
{
	return sink == SINK_SYSLOG;
}

void log_use_stderr(void)
{
	sink = SINK_STDERR;
	log_fd = 2;
}

static const struct { const char *name; int fac; } facilities[] = {
	{ "daemon", LOG_DAEMON }, { "user", LOG_USER }, { "auth", LOG_AUTH },
	{ "authpriv", LOG_AUTHPRIV }, { "ftp", LOG_FTP }, { "cron", LOG_CRON },
	{ "kern", LOG_KERN }, { "lpr", LOG_LPR }, { "mail", LOG_MAIL }, { "news", LOG_NEWS },
	{ "security", LOG_AUTH }, { "syslog", LOG_SYSLOG }, { "uucp", LOG_UUCP },
	{ "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 }, { "local2", LOG_LOCAL2 },
	{ "local3", LOG_LOCAL3 }, { "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
	{ "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
};

/*
 * Our own connection to /dev/log rather than syslog(3): glibc reconnects
 * with socket() when the log daemon restarts, which the confined session
 * monitor may not do.  The connection is made once; facility and tag are
 * only the records' header, so a module's own (modlog.c) needs no new
 * socket.  A line that cannot be sent is dropped.
 */
static int syslog_fd = -1;
static int syslog_fac = LOG_DAEMON;
static char syslog_tag[LOG_TAG_MAX] = "prsyncd";

void log_syslog_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (syslog_fd >= 0)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", _PATH_LOG);
	syslog_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (syslog_fd >= 0 && connect(syslog_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(syslog_fd);
		syslog_fd = -1;
	}
}

int log_syslog_facility(const char *facility)
{
	for (size_t i = 0; i < sizeof(facilities) / sizeof(facilities[0]); i++) {
		if (strcasecmp(facility, facilities[i].name) != 0)
			continue;
		syslog_fac = facilities[i].fac;
		sink = SINK_SYSLOG;
		log_syslog_connect();
		return 0;
	}
	return -1;
}

void log_syslog_tag(const char *tag)
{
	snprintf(syslog_tag, sizeof(syslog_tag), "%s", tag && tag[0] ? tag : "prsyncd");
	/* an expanded tag (a module path, a host name) must not break the
	 * record's header */
	for (char *c = syslog_tag; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == ':' || *c == '[' || *c == 0x7f)
			*c = '_';
}

int log_use_syslog(const char *facility, const char *tag)
{
	if (log_syslog_facility(facility) < 0)
		return -1;
	log_syslog_tag(tag);
	return 0;
}

/*
 * rsyncd's escape of its log file: a control byte but tab, and a C1 byte
 * (a lone 0x9b is CSI to some terminals), as "\#ooo"; with bs, also a
 * backslash that would read as such an escape.  Cut at cap - 1 bytes.
 */
static size_t escape(char *out, size_t cap, const char *in, int bs)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < cap; p++) {
		if ((*p < 0x20 && *p != '\t') || (*p >= 0x80 && *p <= 0x9f) ||
		    (bs && p[0] == '\\' && p[1] == '#' && strspn((const char *)p + 2, "0123456789") >= 3))
			o += (size_t)snprintf(out + o, cap - o, "\\#%03o", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
	return o;
}

void log_sanitize(char *out, size_t outlen, const char *in)
{
	if (outlen > 0)
		escape(out, outlen, in, 1);
}

static log_gate_fn gate;
static void *gate_ctx;
static int debug_on;

void log_set_debug(int on)
{
	debug_on = on != 0;
}

void log_set_gate(log_gate_fn fn, void *ctx)
{
	gate = fn;
	gate_ctx = ctx;
}

static const int syslog_prio[] = {
	[PR_LOG_ERR] = LOG_ERR, [PR_LOG_WARNING] = LOG_WARNING,
	[PR_LOG_INFO] = LOG_INFO, [PR_LOG_DEBUG] = LOG_DEBUG,
};

void log_msg(enum pr_log_level level, const char *fmt, ...)
{
	/* A transfer line holds two paths of up to 4095 bytes. */
	char text[10240], line[10240 + LOG_TAG_MAX + 64];
	struct tm tm;
	time_t now;
	va_list ap;
	size_t n;

	if (level == PR_LOG_DEBUG && !debug_on)
		return; /* not even charged to a session's budget */
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (gate != NULL && !gate(gate_ctx, level, strlen(text)))
		return;
	now = time(NULL);
	localtime_r(&now, &tm);
	if (sink == SINK_SYSLOG) {
		int prio = level >= PR_LOG_ERR && level <= PR_LOG_DEBUG ? syslog_prio[level] : LOG_INFO;
		int h = snprintf(line, sizeof(line), "<%d>", syslog_fac | prio);

		n = (size_t)h + strftime(line + h, sizeof(line) - (size_t)h, "%b %e %H:%M:%S", &tm);
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s[%d]: ", syslog_tag, (int)getpid());
		n += escape(line + n, sizeof(line) - n, text, 0);
		if (syslog_fd >= 0)
			(void)send(syslog_fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		return;
	}
	n = strftime(line, sizeof(line), "%Y/%m/%d %H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof(line) - n, " [%d] ", (int)getpid());
	n += escape(line + n, sizeof(line) - n - 1, text, 0); /* the net: see the top */
	line[n++] = '\n';
	/* One write per line: O_APPEND keeps concurrent sessions' lines whole. */
	(void)!write(log_fd, line, n);
}

/*
 * Sessions and workers report through the log, never through the
 * listener's terminal.  Test builds keep stderr so that sanitizer reports
 * reach the test output.
 */
void null_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
#ifndef PRSYNCD_TEST_HOOKS
	dup2(fd, 2);
#endif
	close(fd);
}
