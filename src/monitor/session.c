/*
 * The session monitor (prsyncd-monitor): one per connection, executed by
 * the listener.
 * It starts the worker, then serves the worker's requests from a dispatch
 * table.  It never reads a byte from the client socket: it hands the socket
 * to the worker and closes its own copy.
 *
 * Every request is checked three times before a handler sees it: the
 * channel (exact record size, sequence number), the shared validator (every
 * field), and the table below (the request is allowed in the current
 * state).  Any failure ends the session with a log line.
 *
 * On module selection the monitor opens the module root, gives up root for
 * good (the module's uid/gid, chroot to the module) and loads its own
 * seccomp allow-list (policy/monitor.policy); from then on it serves the
 * worker's filesystem requests (fsreq.c) and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cfgsnap.h"
#include "config.h"
#include "emptydir.h"
#include "fds.h"
#include "fsreq.h"
#include "ipc.h"
#include "lchan.h"
#include "log.h"
#include "policies.h"
#include "session.h"
#include "sigsys.h"

/* Session states; a request names the states in which it is permitted. */
enum {
	ST_STARTING = 1 << 0, /* worker exec'd, not yet confined */
	ST_HANDSHAKE = 1 << 1,/* confined, talking to the client, no module yet */
	ST_LISTED = 1 << 2,   /* module list sent, or selection failed; only the end remains */
	ST_MODULE = 1 << 3,   /* a module is selected */
	ST_ENDING = 1 << 4,   /* worker announced its exit code */
};

struct session {
	struct cfg cfg;    /* the listener's snapshot: read-only, never re-read */
	struct pr_ipc ipc;
	struct lchan lsn;  /* to the listener, for connection slots */
	pid_t worker;
	unsigned state;
	int done;
	int killed;        /* the monitor itself ended the worker */
	int confined;      /* chroot and uid drop begun: leave with _exit only */
	int exit_code;
	const struct cfg_module *module;
	struct fsreq fs;
	char host[NI_MAXHOST];
	char addr[NI_MAXHOST];
};

typedef int (*handler_fn)(struct session *s, const struct pr_msg *m);
typedef int (*fs_fn)(struct fsreq *f, const struct pr_msg *m);

struct request {
	enum pr_msg_type type;
	unsigned states;
	handler_fn fn;     /* a session request, or */
	fs_fn fs;          /* a filesystem request (fsreq.c) */
};

static int h_ready(struct session *s, const struct pr_msg *m);
static int h_log(struct session *s, const struct pr_msg *m);
static int h_modlist(struct session *s, const struct pr_msg *m);
static int h_select(struct session *s, const struct pr_msg *m);
static int h_exit(struct session *s, const struct pr_msg *m);

static const struct request requests[] = {
	{ PR_W_READY,    ST_STARTING,                           h_ready, NULL },
	{ PR_W_LOG,      ST_STARTING | ST_HANDSHAKE | ST_LISTED | ST_MODULE, h_log, NULL },
	{ PR_W_MODLIST,  ST_HANDSHAKE,                          h_modlist, NULL },
	{ PR_W_SELECT,   ST_HANDSHAKE,                          h_select, NULL },
	{ PR_W_EXIT,     ST_STARTING | ST_HANDSHAKE | ST_LISTED | ST_MODULE, h_exit, NULL },
	{ PR_W_LIST,     ST_MODULE,                             NULL, fs_list },
	{ PR_W_STAT,     ST_MODULE,                             NULL, fs_stat },
	{ PR_W_OPEN,     ST_MODULE,                             NULL, fs_open },
	{ PR_W_CLOSE,    ST_MODULE,                             NULL, fs_close },
	{ PR_W_READLINK, ST_MODULE,                             NULL, fs_readlink },
	{ PR_W_IDNAME,   ST_MODULE,                             NULL, fs_idname },
	{ PR_W_OPENV,    ST_MODULE,                             NULL, fs_openv },
	{ PR_W_CLOSEV,   ST_MODULE,                             NULL, fs_closev },
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int send_msg(struct session *s, struct pr_msg *m, int fd)
{
	if (pr_ipc_send(&s->ipc, m, fd) < 0) {
		log_msg(PR_LOG_ERR, "cannot send %s to worker: %s",
			pr_msg_type_name(m->h.type), strerror(errno));
		return -1;
	}
	return 0;
}

static int h_ready(struct session *s, const struct pr_msg *m)
{
	(void)m;
	s->state = ST_HANDSHAKE;
	return 0;
}

#ifdef PRSYNCD_TEST_HOOKS
#include "testcall.h"
/* Test builds only: a worker record "prsyncd-test-syscall NAME" makes the
 * monitor call NAME, in whatever state it is, to prove its filter kills it
 * (t_seccomp_calls.sh).  A call that returns ends the session. */
static int test_syscall_hook(struct session *s, const char *name)
{
	long rc;

	log_msg(PR_LOG_INFO, "test hook: the monitor calls %s (%s)", name, s->confined ? "confined" : "not confined");
	rc = pr_test_syscall(name);
	log_msg(PR_LOG_ERR, "test hook: the monitor's %s returned %ld", name, rc);
	return -1;
}
#endif

static int h_log(struct session *s, const struct pr_msg *m)
{
	char clean[PR_TEXT_MAX * 4 + 1];

	(void)s;
	log_sanitize(clean, sizeof(clean), m->u.log.text.s);
#ifdef PRSYNCD_TEST_HOOKS
	if (strncmp(clean, "prsyncd-test-syscall ", 21) == 0)
		return test_syscall_hook(s, clean + 21);
#endif
	log_msg((enum pr_log_level)m->u.log.level, "%s", clean);
	return 0;
}

static int h_modlist(struct session *s, const struct pr_msg *m)
{
	struct pr_msg out;

	(void)m;
	log_msg(PR_LOG_INFO, "module-list request from %s (%s)", s->host, s->addr);
	for (size_t i = 0; i < s->cfg.nmodules; i++) {
		const struct cfg_module *mod = &s->cfg.modules[i];

		if (!mod->list)
			continue;
		pr_msg_init(&out, PR_M_MODLIST);
		if (pr_str_set_name(&out.u.modlist.name, mod->name) < 0)
			continue;
		pr_str_set_text_trunc(&out.u.modlist.comment, mod->comment);
		if (send_msg(s, &out, -1) < 0)
			return -1;
	}
	pr_msg_init(&out, PR_M_MODLIST_END);
	s->state = ST_LISTED;
	return send_msg(s, &out, -1);
}

#ifdef PRSYNCD_TEST_HOOKS
#define MONITOR_POLICY_EXTRA (&pr_policy_sanitizer) /* ASan/UBSan runtime */
#else
#define MONITOR_POLICY_EXTRA NULL
#endif

/*
 * After selection, for good: chroot to the module root, the module's uid and
 * gid (when started as root; rsyncd ignores them otherwise), proof that root
 * cannot be regained (unless the module runs as root), not dumpable, then
 * the monitor's own allow-list.  What libc would load lazily is loaded
 * first: the time zone of the log lines; the id tables are in s->fs.
 */
static int confine(struct session *s)
{
	uid_t uid = s->fs.uid, ru, eu, su;
	gid_t gid = s->fs.gid, rg, eg, sg;
	int root = geteuid() == 0;
	char err[256];

	tzset();
	s->confined = 1;
	if (root && (fchdir(s->fs.root) < 0 || chroot(".") < 0 || setgroups(1, &gid) < 0 ||
		     setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0))
		snprintf(err, sizeof(err), "chroot or id drop: %s", strerror(errno));
	else if (root && (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
			  ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid ||
			  (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0 || (gid != 0 && setegid(0) == 0)))))
		snprintf(err, sizeof(err), "uid %u gid %u did not take, or root can be regained", uid, gid);
	else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		snprintf(err, sizeof(err), "PR_SET_DUMPABLE: %s", strerror(errno));
	else if (pr_policy_load_with(&pr_policy_monitor, MONITOR_POLICY_EXTRA, err, sizeof(err)) == 0)
		return 0;
	log_msg(PR_LOG_ERR, "module %s: confining the monitor: %s", s->fs.module, err);
	return -1;
}

static int claim_slot(struct session *s, const struct cfg_module *mod, char *text, size_t textlen);

static int h_select(struct session *s, const struct pr_msg *m)
{
	const char *name = m->u.wselect.module.s;
	const struct cfg_module *mod = cfg_find_module(&s->cfg, name);
	struct pr_msg out;
	char clean[PR_NAME_MAX * 4 + 1];
	char text[PR_TEXT_MAX];

	pr_msg_init(&out, PR_M_SELECT);
	if (mod == NULL) {
		log_sanitize(clean, sizeof(clean), name);
		log_msg(PR_LOG_INFO, "unknown module '%s' tried from %s (%s)", clean, s->host, s->addr);
		/* The name is echoed as the client sent it, as rsyncd does. */
		snprintf(text, sizeof(text), "@ERROR: Unknown module '%s'", name);
		out.u.select.status = PR_SELECT_ERROR;
		pr_str_set_text_trunc(&out.u.select.error, text);
		return send_msg(s, &out, -1);
	}
	if (claim_slot(s, mod, text, sizeof(text)) < 0) {
		s->state = ST_LISTED; /* no second attempt */
		out.u.select.status = PR_SELECT_ERROR;
		pr_str_set_text_trunc(&out.u.select.error, text);
		return send_msg(s, &out, -1);
	}
	if (fs_prepare(&s->fs, &s->ipc, mod) < 0) {
		s->state = ST_LISTED; /* no second attempt */
		out.u.select.status = PR_SELECT_ERROR;
		pr_str_set_text_trunc(&out.u.select.error, "@ERROR: chdir failed");
		return send_msg(s, &out, -1);
	}
	if (confine(s) < 0)
		return -1;
	s->module = mod;
	s->state = ST_MODULE;
	log_msg(PR_LOG_INFO, "rsync allowed access on module %s from %s (%s)", mod->name, s->host, s->addr);
	out.u.select.status = PR_SELECT_OK;
	out.u.select.read_only = 1;
	/* rsyncd sends no user/group names from chroot modules by default */
	out.u.select.numeric_ids = (uint32_t)s->fs.numeric_ids;
	if (pr_str_set_name(&out.u.select.module, mod->name) < 0)
		return -1;
	if (mod->dont_compress &&
	    pr_str_set_text(&out.u.select.dont_compress, mod->dont_compress[0] ? mod->dont_compress : " ") < 0)
		return -1;
	return send_msg(s, &out, -1);
}

static int h_exit(struct session *s, const struct pr_msg *m)
{
	s->exit_code = (int)m->u.exit.code;
	s->state = ST_ENDING;
	return 0;
}

/* Handle one validated request, or refuse it for the current state. */
static int dispatch(struct session *s, const struct pr_msg *m)
{
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		if (requests[i].type != m->h.type)
			continue;
		if ((requests[i].states & s->state) == 0) {
			log_msg(PR_LOG_ERR, "worker sent %s in a state where it is not permitted; ending session",
				pr_msg_type_name(m->h.type));
			return -1;
		}
		return requests[i].fn ? requests[i].fn(s, m) : requests[i].fs(&s->fs, m);
	}
	log_msg(PR_LOG_ERR, "worker sent unhandled message type %u; ending session", m->h.type);
	return -1;
}

static void peer_names(struct session *s, int fd, int reverse)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	snprintf(s->addr, sizeof(s->addr), "UNKNOWN");
	snprintf(s->host, sizeof(s->host), reverse ? "UNKNOWN" : "UNDETERMINED");
	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (getnameinfo((struct sockaddr *)&ss, len, s->addr, sizeof(s->addr), NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(s->addr, sizeof(s->addr), "UNKNOWN");
	/* IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d. */
	if (strncmp(s->addr, "::ffff:", 7) == 0 && strchr(s->addr, '.') != NULL)
		memmove(s->addr, s->addr + 7, strlen(s->addr + 7) + 1);
	if (reverse && getnameinfo((struct sockaddr *)&ss, len, s->host, sizeof(s->host), NULL, 0, NI_NAMEREQD) != 0)
		snprintf(s->host, sizeof(s->host), "UNKNOWN");
}

/* The worker binary: next to our own executable, else the libexec path. */
static void worker_path(const struct session_opts *o, char *out, size_t outlen)
{
	char self[4096];
	ssize_t n;
	char *slash;

	if (o->worker_path != NULL) {
		snprintf(out, outlen, "%s", o->worker_path);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(out, outlen, "%s/prsyncd-worker", self);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, outlen, "%s/prsyncd-worker", PRSYNCD_LIBEXEC);
}

static pid_t spawn_worker(const char *path, int ipc_child)
{
	char *const argv[] = { (char *)"prsyncd-worker", NULL };
	char *const envp[] = { NULL };
	sigset_t none;
	/* vfork: the child only makes system calls until execve, and the
	 * monitor's page tables are neither copied nor turned copy-on-write
	 * (a fork cost more than a millisecond per connection here). */
	pid_t pid = vfork();

	if (pid != 0)
		return pid;
	/* Child: exactly stdin/out/err (/dev/null), the client, the channel. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(ipc_child, PR_FD_IPC) < 0)
		_exit(127);
	if (fcntl(PR_FD_CLIENT, F_SETFD, 0) < 0)
		_exit(127);
	close_range(PR_FD_IPC + 1, ~0U, 0);
	null_stdio();
	execve(path, argv, envp);
	_exit(127);
}

static void report_exit(struct session *s, int status, int kmsg_fd)
{
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != s->exit_code)
			log_msg(PR_LOG_WARNING, "worker %d exited with status %d", (int)s->worker,
				WEXITSTATUS(status));
		return;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (s->killed && sig == SIGKILL) {
			log_msg(PR_LOG_INFO, "worker %d terminated by the monitor", (int)s->worker);
			return;
		}
		if (sig == SIGSYS) {
			long nr = sigsys_lookup(kmsg_fd, s->worker);
			const char *name = pr_syscall_name(nr);

			if (nr >= 0)
				log_msg(PR_LOG_ERR, "worker %d killed by signal %d (SIGSYS): seccomp violation, syscall %ld (%s)",
					(int)s->worker, sig, nr, name ? name : "?");
			else
				log_msg(PR_LOG_ERR, "worker %d killed by signal %d (SIGSYS): seccomp violation, syscall not reported by the kernel",
					(int)s->worker, sig);
		} else {
			log_msg(PR_LOG_ERR, "worker %d killed by signal %d (%s)", (int)s->worker, sig, strsignal(sig));
		}
	}
}

/* Serve the worker until it exits, it misbehaves, or the deadline passes. */
static void serve(struct session *s, int deadline_secs)
{
	int64_t deadline = now_ms() + (int64_t)deadline_secs * 1000;

	while (!s->done) {
		struct pollfd p = { .fd = s->ipc.fd, .events = POLLIN };
		struct pr_msg m;
		const char *why;
		int fd, timeout = -1, rc;

		/* Only the handshake has a deadline; afterwards the next record
		 * is simply waited for (one system call per request, not two). */
		if (s->state & (ST_STARTING | ST_HANDSHAKE)) {
			int64_t left = deadline - now_ms();

			if (left <= 0) {
				log_msg(PR_LOG_WARNING, "handshake timeout (%d s) from %s (%s): worker killed",
					deadline_secs, s->host, s->addr);
				return;
			}
			timeout = left > 1000000 ? 1000000 : (int)left;
			rc = poll(&p, 1, timeout);
			if (rc < 0 && errno == EINTR)
				continue;
			if (rc < 0) {
				log_msg(PR_LOG_ERR, "poll: %s", strerror(errno));
				return;
			}
			if (rc == 0)
				continue;
		}
		switch (pr_ipc_recv(&s->ipc, &m, &fd, &why)) {
		case PR_IPC_OK:
			break;
		case PR_IPC_EOF:
			s->done = 1;
			return;
		case PR_IPC_ERR:
			log_msg(PR_LOG_ERR, "reading from worker: %s", strerror(errno));
			return;
		case PR_IPC_INVALID:
			log_msg(PR_LOG_ERR, "invalid message from worker (%s); ending session", why);
			return;
		}
		if (fd >= 0) {
			/* No worker request carries a descriptor today; the
			 * validator already refused any that did. */
			close(fd);
		}
		if (dispatch(s, &m) < 0)
			return;
	}
}

static int prepare_init(struct session *s, struct pr_msg *m, int has_motd)
{
	struct pr_m_init *b = &m->u.init;

	pr_msg_init(m, PR_M_INIT);
	b->handshake_timeout = (uint32_t)s->cfg.handshake_timeout;
	b->has_motd = has_motd ? 1 : 0;
	b->max_protocol = 32;
	pr_str_set_text_trunc(&b->client_addr, s->addr);
	if (pr_str_set_path(&b->chroot_dir, s->cfg.worker_chroot) < 0)
		return -1;
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam(s->cfg.worker_user);

		if (pw == NULL || pw->pw_uid == 0 || pw->pw_gid == 0) {
			log_msg(PR_LOG_ERR, "worker user %s: unknown, or has uid/gid 0", s->cfg.worker_user);
			return -1;
		}
		b->sandbox_mode = PR_SANDBOX_ROOT;
		b->worker_uid = pw->pw_uid;
		b->worker_gid = pw->pw_gid;
	} else {
		b->sandbox_mode = PR_SANDBOX_USERNS;
	}
	return 0;
}

/*
 * Refuse a client before any worker exists: the greeting the worker would
 * have sent, then the @ERROR line, so a stock client prints the error and
 * exits 5 as for rsyncd's own refusals.  The monitor reads nothing: it
 * half-closes and waits (bounded) for the client to hang up, so the unread
 * greeting does not turn into a reset before the client has read the error.
 */
static void refuse_early(const char *text)
{
	char buf[PR_TEXT_MAX + 64];
	int n = snprintf(buf, sizeof(buf), "@RSYNCD: 32.0 sha512 sha256 sha1 md5 md4\n%s\n", text);
	struct pollfd p = { .fd = PR_FD_CLIENT, .events = POLLRDHUP };

	if (n > 0 && (size_t)n < sizeof(buf))
		(void)!send(PR_FD_CLIENT, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(PR_FD_CLIENT, SHUT_WR);
	(void)poll(&p, 1, 2000);
	close(PR_FD_CLIENT);
}

/* One question to the listener; -1 (logged) if it cannot be answered. */
static int ask_listener(struct session *s, struct lchan_msg *req, struct lchan_answer *a)
{
	const char *why = "";

	if (lchan_ask(&s->lsn, req, a, 5000, &why) < 0 || (a->status != LCHAN_OK && a->status != LCHAN_FULL)) {
		log_msg(PR_LOG_ERR, "listener channel: %s", a->status == LCHAN_REFUSED ? "request refused" : why);
		return -1;
	}
	return 0;
}

/*
 * Count this session under its client's address: the socket's peer, or
 * (proxied = 1) the address a PROXY protocol header gave, which the
 * listener accepts only where the PROXY protocol is configured.  Called
 * once, before the worker exists.  0, or -1 after refusing the client.
 */
static int claim_host(struct session *s, const struct sockaddr *sa, socklen_t len, int proxied)
{
	struct lchan_msg req = { .type = LCHAN_HOST };
	struct lchan_answer a = { 0 };
	char text[128];

	req.u.host.proxied = proxied ? 1 : 0;
	if (sa == NULL || lchan_addr_key(sa, len, &req.u.host.family, req.u.host.addr) < 0) {
		log_msg(PR_LOG_ERR, "connection from a non-IP peer");
		refuse_early("@ERROR: daemon setup error");
		return -1;
	}
	if (ask_listener(s, &req, &a) < 0) {
		refuse_early("@ERROR: daemon setup error");
		return -1;
	}
	if (a.status == LCHAN_FULL) {
		log_msg(PR_LOG_INFO, "max connections per host (%d) reached for %s (%s)", a.limit, s->host, s->addr);
		snprintf(text, sizeof(text), "@ERROR: max connections per host (%d) reached -- try again later",
			 a.limit);
		refuse_early(text);
		return -1;
	}
	return 0;
}

/* A slot in the module, asked at selection before the monitor commits to
 * it; the last request, so the channel is closed after it.  0, or -1 with
 * the client's @ERROR line in text. */
static int claim_slot(struct session *s, const struct cfg_module *mod, char *text, size_t textlen)
{
	struct lchan_msg req = { .type = LCHAN_SLOT };
	struct lchan_answer a = { 0 };
	int rc;

	req.u.slot.module = (uint32_t)(mod - s->cfg.modules);
	rc = ask_listener(s, &req, &a);
	close(s->lsn.fd);
	s->lsn.fd = -1;
	if (rc < 0) {
		snprintf(text, textlen, "@ERROR: daemon setup error");
		return -1;
	}
	if (a.status == LCHAN_FULL) {
		log_msg(PR_LOG_INFO, "max connections (%d) reached", a.limit);
		snprintf(text, textlen, "@ERROR: max connections (%d) reached -- try again later", a.limit);
		return -1;
	}
	return 0;
}

int session_main(const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	char err[CFG_ERR_MAX] = "", wpath[4096];
	struct sockaddr_storage peer;
	socklen_t peerlen = sizeof(peer);
	struct pr_msg init;
	int sv[2], motd_fd = -1, kmsg_fd, status = 0, rc;

	if (s == NULL)
		return 1;
	s->state = ST_STARTING;
	s->cfg = *o->cfg;
	lchan_init(&s->lsn, o->listener_fd);
	peer_names(s, PR_FD_CLIENT, s->cfg.reverse_lookup);
	log_msg(PR_LOG_INFO, "connect from %s (%s)", s->host, s->addr);
	if (getpeername(PR_FD_CLIENT, (struct sockaddr *)&peer, &peerlen) < 0)
		peerlen = 0;
	if (claim_host(s, peerlen ? (struct sockaddr *)&peer : NULL, peerlen, 0) < 0)
		return 1;

	if (emptydir_check(s->cfg.worker_chroot, geteuid(), 0, err, sizeof(err)) < 0 ||
	    prepare_init(s, &init, 0) < 0) {
		if (err[0])
			log_msg(PR_LOG_ERR, "%s", err);
		refuse_early("@ERROR: daemon setup error");
		return 1;
	}
	if (s->cfg.motd_file != NULL) {
		motd_fd = open(s->cfg.motd_file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (motd_fd < 0)
			log_msg(PR_LOG_WARNING, "motd file %s: %s", s->cfg.motd_file, strerror(errno));
	}
	init.u.init.has_motd = motd_fd >= 0;
	kmsg_fd = sigsys_watch_open();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_msg(PR_LOG_ERR, "socketpair: %s", strerror(errno));
		return 1;
	}
	worker_path(o, wpath, sizeof(wpath));
	s->worker = spawn_worker(wpath, sv[1]);
	if (s->worker < 0) {
		log_msg(PR_LOG_ERR, "fork: %s", strerror(errno));
		return 1;
	}
	close(sv[1]);
	close(PR_FD_CLIENT); /* the worker holds the only copy from now on */
	pr_ipc_init(&s->ipc, sv[0], PR_DIR_TO_MONITOR);

	int reaped = 0;

	rc = send_msg(s, &init, motd_fd);
	if (motd_fd >= 0)
		close(motd_fd);
	if (rc == 0)
		serve(s, s->cfg.handshake_timeout);
	/* A worker that closed the channel without announcing its exit, or
	 * that outlives its announcement, is ended: closing fd 4 must not let
	 * it keep the client.  After the uid drop the kill may fail (EPERM);
	 * the worker's PR_SET_PDEATHSIG ends it when we exit. */
	close(sv[0]);
	if (s->done) {
		pid_t w = 0;

		for (int i = 0; i < 200 && (w = waitpid(s->worker, &status, WNOHANG)) == 0; i++)
			poll(NULL, 0, 50); /* bounded: 10 s */
		reaped = w == s->worker;
		if (!reaped && s->state != ST_ENDING)
			log_msg(PR_LOG_WARNING, "worker %d closed its channel without an exit status", (int)s->worker);
	}
	if (!reaped && !s->confined) {
		s->killed = kill(s->worker, SIGKILL) == 0;
		while (s->killed && waitpid(s->worker, &status, 0) < 0 && errno == EINTR)
			;
		reaped = s->killed;
	} else if (!reaped) {
		/* A confined monitor has no kill(): the worker's parent-death
		 * signal ends it when we exit. */
		log_msg(PR_LOG_INFO, "worker %d ends with its session monitor", (int)s->worker);
	}
	if (reaped)
		report_exit(s, status, kmsg_fd);
	if (s->confined)
		_exit(0); /* no atexit work (sanitizer leak checks) under the filter */
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	cfgsnap_parsed_free(&s->cfg);
	free(s);
	return 0;
}
