/* SPDX-License-Identifier: ISC */
/*
 * The text phase of the rsync daemon protocol (see docs/protocol-notes.md
 * and the project spec, part 1 section 3): everything up to "@RSYNCD: OK".
 * Lines are bounded, NUL bytes refused, and the whole phase runs under the
 * handshake deadline set by the monitor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "charset.h"
#include "daemon.h"
#include "mon.h"

#define PROTOCOL_MAX 32
#define PROTOCOL_MIN 27
#define LINE_MAX_HS 1024        /* stock's own buffer before module selection */
#define MOTD_MAX (64 * 1024)
#define EARLY_INPUT_MAX 5120

/* Digests we can verify a daemon-auth response with, most preferred first. */
static const char greeting_digests[] = "sha512 sha256 sha1 md5 md4";

/* Exit codes as stock rsync uses them. */
#define RERR_STARTCLIENT 5
#define RERR_PROTOCOL 2
#define RERR_TIMEOUT 30
#define RERR_SOCKETIO 10
#define RERR_STREAMIO 12

static unsigned hs_bound; /* seconds the text phase may take */

/*
 * The text phase could not read or write the client.  A client (or a
 * health check) that just goes: rsyncd logs nothing.  A read the kernel
 * failed (a reset: the client left with our greeting unread): rsyncd's two
 * lines, in its words, and its code 12.
 */
__attribute__((noreturn)) static void hs_fail_io(const struct conn *c, int e)
{
	int err = c->read_errno;

	if (e == CONN_TIMEOUT) {
		mon_log(PR_LOG_WARNING, "daemon handshake timeout (%u s) -- exiting (code %d)", hs_bound,
			RERR_TIMEOUT);
		mon_exit(RERR_TIMEOUT);
	}
	if (e == CONN_IOERR && err != 0) {
		mon_log(PR_LOG_ERR, "rsync: [Receiver] safe_read failed to read 1 bytes: %s (%d)", strerror(err), err);
		mon_log(PR_LOG_ERR, "rsync error: error in rsync protocol data stream (code %d) at handshake "
			"[Receiver=prsyncd-%s]", RERR_STREAMIO, PRSYNCD_VERSION);
		mon_exit(RERR_STREAMIO);
	}
	if (e != CONN_EOF)
		mon_log(PR_LOG_WARNING, "handshake: %s", conn_strerror(e));
	mon_exit(RERR_SOCKETIO);
}

/* Send "@ERROR: ..." (text without newline) and end the session. */
__attribute__((noreturn)) static void hs_error(struct conn *c, int code, const char *text)
{
	(void)conn_write_str(c, text);
	(void)conn_write_str(c, "\n");
	mon_exit(code);
}

/*
 * MOTD lines that look like protocol lines would be taken as such by the
 * client (an "@ERROR" line in a MOTD would abort every connection); they
 * get a leading space.  Anything else is sent byte for byte, as stock does,
 * followed by one extra newline.
 */
static void send_motd(struct conn *c, int fd)
{
	static char buf[MOTD_MAX];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len == sizeof(buf))
		mon_log(PR_LOG_WARNING, "motd file longer than %d bytes: truncated", MOTD_MAX);
	for (size_t pos = 0; pos < len;) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - line) + 1 : len - pos;

		if ((l >= 6 && memcmp(line, "@ERROR", 6) == 0) ||
		    (l >= 8 && memcmp(line, "@RSYNCD:", 8) == 0))
			(void)conn_write(c, " ", 1);
		(void)conn_write(c, line, l);
		pos += l;
	}
	(void)conn_write(c, "\n", 1);
}

/* Parse "@RSYNCD: <proto>[.<sub>][ <digest list>]". */
static void parse_greeting(struct conn *c, const char *line, struct handshake *hs)
{
	const char *p = line + 9;
	char *end;
	long proto, sub = 0;
	int have_sub = 0;
	char msg[PR_TEXT_MAX];

	if (strncmp(line, "@RSYNCD: ", 9) != 0 || *p < '0' || *p > '9')
		hs_error(c, RERR_PROTOCOL, "@ERROR: protocol startup error");
	proto = strtol(p, &end, 10);
	if (proto > 1000)
		proto = 1000;
	if (*end == '.') {
		if (end[1] < '0' || end[1] > '9')
			hs_error(c, RERR_PROTOCOL, "@ERROR: protocol startup error");
		sub = strtol(end + 1, &end, 10);
		have_sub = 1;
	}
	if (*end != '\0' && *end != ' ')
		hs_error(c, RERR_PROTOCOL, "@ERROR: protocol startup error");
	if (*end == ' ')
		snprintf(hs->auth_digests, sizeof(hs->auth_digests), "%s", end + 1);
	if (!have_sub && proto >= 30) {
		snprintf(msg, sizeof(msg), "@ERROR: your client omitted the subprotocol value: %s", line);
		hs_error(c, RERR_PROTOCOL, msg);
	}
	if (*end != ' ' && proto > 31) {
		snprintf(msg, sizeof(msg), "@ERROR: your client omitted the digest name list: %s", line);
		hs_error(c, RERR_PROTOCOL, msg);
	}
	hs->remote_protocol = (int)proto;
	hs->remote_sub = (int)sub;
	/* Both sides compute the same result; with released versions (sub 0)
	 * this is min(ours, theirs). */
	if (proto < PROTOCOL_MAX)
		hs->protocol = (int)proto - (sub != 0);
	else if (proto == PROTOCOL_MAX)
		hs->protocol = PROTOCOL_MAX - (sub != 0);
	else
		hs->protocol = PROTOCOL_MAX;
	if (hs->protocol < PROTOCOL_MIN) {
		mon_log(PR_LOG_WARNING, "client protocol %ld.%ld is too old", proto, sub);
		hs_error(c, RERR_PROTOCOL, "@ERROR: protocol version mismatch (need 27 or newer)");
	}
}

static void list_modules(struct conn *c)
{
	struct pr_msg m;
	char line[PR_NAME_MAX + PR_TEXT_MAX + 8];

	pr_msg_init(&m, PR_W_MODLIST);
	mon_send(&m, -1);
	for (unsigned i = 0; i < 100000; i++) {
		const char *why;
		int fd;

		enum pr_ipc_result r = pr_ipc_recv(&mon_ipc, &m, &fd, &why);

		if (r == PR_IPC_INVALID)
			mon_log(PR_LOG_ERR, "invalid answer from the monitor: %s", why);
		if (r != PR_IPC_OK)
			mon_exit(RERR_SOCKETIO);
		if (fd >= 0)
			close(fd);
		if (m.h.type == PR_M_MODLIST_END)
			break;
		if (m.h.type != PR_M_MODLIST) {
			mon_log(PR_LOG_ERR, "unexpected answer %s from the monitor", pr_msg_type_name(m.h.type));
			mon_exit(RERR_SOCKETIO);
		}
		snprintf(line, sizeof(line), "%-15s\t%s\n", m.u.modlist.name.s, m.u.modlist.comment.s);
		(void)conn_write_str(c, line);
	}
	(void)conn_write_str(c, "@RSYNCD: EXIT\n");
	mon_exit(0);
}

/*
 * The module needs a login: the monitor's challenge goes to the client, the
 * client's "USER RESPONSE" line back to the monitor, whose answer is the
 * selection's.  The worker never sees a password or the secrets file.
 */
static void login(struct conn *c, struct pr_msg *m, struct handshake *hs)
{
	char line[PR_TEXT_MAX], out[PR_TEXT_MAX];
	int r;

	/* As rsyncd: once the module is known its "timeout" bounds the login */
	hs->args_timeout = m->u.authreq.timeout;
	conn_set_deadline(c, m->u.authreq.timeout);
	snprintf(out, sizeof(out), "@RSYNCD: AUTHREQD %s\n", m->u.authreq.challenge.s);
	if ((r = conn_write_str(c, out)) != CONN_OK)
		hs_fail_io(c, r);
	r = conn_read_line(c, line, sizeof(line));
	if (r == CONN_TOOLONG)
		line[0] = '\0'; /* not a response the monitor could accept */
	else if (r < 0)
		hs_fail_io(c, r);
	pr_msg_init(m, PR_W_AUTH);
	pr_str_set_text_trunc(&m->u.auth.line, line);
	mon_send(m, -1);
	snprintf(hs->auth_user, sizeof(hs->auth_user), "%.*s", (int)strcspn(line, " "), line);
	mon_expect(m, PR_M_SELECT, NULL);
}

static void select_module(struct conn *c, const char *name, struct handshake *hs)
{
	struct pr_msg m;
	char msg[PR_TEXT_MAX];

	/* what the monitor needs to choose a login digest as rsyncd does */
	pr_msg_init(&m, PR_W_HELLO);
	m.u.hello.protocol = (uint32_t)hs->protocol;
	pr_str_set_text_trunc(&m.u.hello.digests, hs->auth_digests);
	mon_send(&m, -1);

	pr_msg_init(&m, PR_W_SELECT);
	if (pr_str_set_name(&m.u.wselect.module, name) < 0) {
		/* Longer than any configured module name can be. */
		mon_log(PR_LOG_WARNING, "over-long module name requested (%zu bytes)", strlen(name));
		snprintf(msg, sizeof(msg), "@ERROR: Unknown module '%.200s...'", name);
		hs_error(c, RERR_STARTCLIENT, msg);
	}
	mon_send(&m, -1);
	mon_expect_either(&m, PR_M_SELECT, PR_M_AUTHREQ, NULL);
	if (m.h.type == PR_M_AUTHREQ)
		login(c, &m, hs);
	if (m.u.select.status != PR_SELECT_OK)
		hs_error(c, RERR_STARTCLIENT, m.u.select.error.s);
	snprintf(hs->module, sizeof(hs->module), "%s", m.u.select.module.s);
	hs->read_only = (int)m.u.select.read_only;
	hs->numeric_ids = (int)m.u.select.numeric_ids;
	hs->module_flags = m.u.select.module_flags;
	snprintf(hs->dont_compress, sizeof(hs->dont_compress), "%s", m.u.select.dont_compress.s);
	hs->write_only = (int)m.u.select.write_only;
	hs->ignore_errors = (int)m.u.select.ignore_errors;
	hs->max_verbosity = (int)m.u.select.max_verbosity;
	hs->chmod_umask = m.u.select.chmod_umask;
	snprintf(hs->refuse, sizeof(hs->refuse), "%s", m.u.select.refuse.s);
	snprintf(hs->outgoing_chmod, sizeof(hs->outgoing_chmod), "%s", m.u.select.outgoing_chmod.s);
	snprintf(hs->charset, sizeof(hs->charset), "%s", m.u.select.charset.s);
	/* rsyncd opens the module's converters for every client, and fails
	 * the connection when it cannot; so do we, saying why. */
	if (hs->charset[0] && charset_select(hs->charset) < 0) {
		mon_log(PR_LOG_ERR, "module %s: charset %s: iconv cannot convert it to or from UTF-8",
			hs->module, hs->charset);
		snprintf(msg, sizeof(msg), "@ERROR: module %s: charset %.200s is not supported by this server",
			 hs->module, hs->charset);
		hs_error(c, RERR_STARTCLIENT, msg);
	}
	/* As rsync 3.5.0: the argument phase gets its own bound from here. */
	hs->timeout = m.u.select.timeout;
	hs->args_timeout = m.u.select.args_timeout;
	conn_set_deadline(c, hs->args_timeout);
}

#ifdef PRSYNCD_TEST_HOOKS
#include <fcntl.h>
#include "testcall.h"
/* Test builds only: prove that the sandbox kills a worker that tries to
 * open a file, or makes any of the calls in testcall.h ("#prsyncd-test-
 * syscall NAME"), and that the confined monitor is killed for them too
 * ("#prsyncd-test-monitor-syscall NAME [MODULE]": the worker selects
 * MODULE first, then asks the monitor's test hook to make the call).
 * Release builds do not contain this code. */
static void test_hook(struct conn *c, const char *line, struct handshake *hs)
{
	char name[32], module[PR_NAME_MAX];
	struct pr_msg m;
	int n;

	if (strcmp(line, "#prsyncd-test-open-passwd") == 0) {
		int fd = open("/etc/passwd", O_RDONLY);
		mon_log(PR_LOG_ERR, "test hook: open(/etc/passwd) returned %d", fd);
		mon_exit(99);
	}
	if (sscanf(line, "#prsyncd-test-syscall %31s", name) == 1) {
		long rc = pr_test_syscall(name);

		mon_log(PR_LOG_ERR, "test hook: worker's %s returned %ld", name, rc);
		mon_exit(99);
	}
	n = sscanf(line, "#prsyncd-test-monitor-syscall %31s %255s", name, module);
	if (n >= 1) {
		if (n == 2)
			select_module(c, module, hs);
		mon_log(PR_LOG_INFO, "prsyncd-test-syscall %s", name);
		mon_expect(&m, PR_M_SELECT, NULL); /* nothing comes: the monitor ends the session */
		mon_exit(99);
	}
}
#endif

int daemon_handshake(struct conn *c, const struct pr_m_init *init, int motd_fd,
		     struct handshake *hs)
{
	char line[LINE_MAX_HS];
	char msg[PR_TEXT_MAX];
	int r;

	memset(hs, 0, sizeof(*hs));
	hs->bwlimit_cap = init->bwlimit;
	hs_bound = init->handshake_timeout;
	conn_set_deadline(c, init->handshake_timeout);
	snprintf(msg, sizeof(msg), "@RSYNCD: %d.0 %s\n", PROTOCOL_MAX, greeting_digests);
	if ((r = conn_write_str(c, msg)) != CONN_OK)
		hs_fail_io(c, r);
	if (motd_fd >= 0)
		send_motd(c, motd_fd);

	if ((r = conn_read_line(c, line, sizeof(line))) < 0)
		hs_fail_io(c, r);
	parse_greeting(c, line, hs);

	if ((r = conn_read_line(c, line, sizeof(line))) < 0)
		hs_fail_io(c, r);
	if (strncmp(line, "#early_input=", 13) == 0) {
		static char discard[EARLY_INPUT_MAX];
		char *end;
		long n = strtol(line + 13, &end, 10);

		if (*end != '\0' || n < 1 || n > EARLY_INPUT_MAX)
			hs_error(c, RERR_STARTCLIENT, "@ERROR: invalid early_input length");
		/* Meant for an "early exec" script, which prsyncd never runs. */
		if ((r = conn_read_exact(c, discard, (size_t)n)) != CONN_OK)
			hs_fail_io(c, r);
		if ((r = conn_read_line(c, line, sizeof(line))) < 0)
			hs_fail_io(c, r);
	}
#ifdef PRSYNCD_TEST_HOOKS
	test_hook(c, line, hs);
#endif
	if (line[0] == '\0' || strcmp(line, "#list") == 0)
		list_modules(c);
	if (line[0] == '#') {
		snprintf(msg, sizeof(msg), "@ERROR: Unknown command '%.900s'", line);
		hs_error(c, RERR_STARTCLIENT, msg);
	}
	select_module(c, line, hs);
	return 1;
}
