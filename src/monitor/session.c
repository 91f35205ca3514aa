/* SPDX-License-Identifier: ISC */
/*
 * The session monitor (prsyncd-monitor): one per connection, executed by
 * the listener.
 * It starts the worker, then serves the worker's requests from a dispatch
 * table.  It never reads or writes a byte of the client socket once the
 * worker runs: it hands the socket to the worker and keeps its own copy
 * only to ask the kernel when data last moved (clientidle.h).
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
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "access.h"
#include "auth.h"
#include "cfgsnap.h"
#include "clientidle.h"
#include "config.h"
#include "emptydir.h"
#include "fds.h"
#include "fsreq.h"
#include "ipc.h"
#include "lchan.h"
#include "log.h"
#include "monotime.h"
#include "nametab.h"
#include "nsquery.h"
#include "prefault.h"
#include "modlog.h"
#include "modvars.h"
#include "logbudget.h"
#include "policies.h"
#include "proxy.h"
#include "safeopen.h"
#include "preconf.h"
#include "session.h"
#include "sigsys.h"
#include "xferlog.h"

/* Session states; a request names the states in which it is permitted. */
enum {
	ST_STARTING = 1 << 0, /* worker exec'd, not yet confined */
	ST_HANDSHAKE = 1 << 1,/* confined, talking to the client, no module yet */
	ST_LISTED = 1 << 2,   /* module list sent, or selection failed; only the end remains */
	ST_MODULE = 1 << 3,   /* a module is selected */
	ST_ENDING = 1 << 4,   /* worker announced its exit code: it must be gone within ENDING_MS */
	ST_AUTH = 1 << 5,     /* a module needs a login: challenge sent, answer awaited */
	ST_SENDING = 1 << 6,  /* the module's transfer request logged (START comes once) */
};
#define ST_ANY (ST_STARTING | ST_HANDSHAKE | ST_AUTH | ST_LISTED | ST_MODULE | ST_SENDING)
#define ST_SELECTED (ST_MODULE | ST_SENDING)
/* An honest worker exits right after its EXIT record (mon_exit); one that
 * lingers is ended this long after it, whatever the state before. */
#define ENDING_MS 5000

struct session {
	struct cfg cfg;    /* the listener's snapshot: read-only, never re-read */
	struct pr_ipc ipc;
	struct lchan lsn;  /* to the listener, for connection slots */
	pid_t worker;
	int pidfd;         /* the worker's: the filtered monitor has no kill() */
	unsigned state;
	int done;
	int killed;        /* the monitor itself ended the worker */
	int filtered;      /* preconfine() ran: leave with _exit only */
	int confined;      /* chroot and uid drop begun */
	int landlocked;    /* preconfine() set up Landlock */
	int exit_code;
	int client;        /* our copy of the client until READY (-1 after): to refuse it if the worker never gets there */
	int64_t ending_by;  /* ST_ENDING: the worker's end is due (now_ms) */
	struct clientidle idle; /* the backstop once a module is selected */
	int64_t idle_next;  /* now_ms() of its next look between requests */
	const struct cfg_module *module;
	struct modvars sel; /* the selected module, its per-connection %VAR% expanded */
	struct fsreq fs;
	struct xferlog xl; /* the transfer log (xferlog.c), from selection on */
	struct modlog ml;  /* module log destinations, ready before the worker */
	struct log_budget logb;
	struct fs_idmap ids; /* every module's, looked up before the worker exists */
	struct sockaddr_storage peer; /* the client (or a PROXY header's), IPv4-mapped addresses unmapped */
	socklen_t peerlen;            /* 0: not an IP peer */
	char host[NI_MAXHOST];        /* the connect-time name, or UNDETERMINED */
	char addr[NI_MAXHOST];
	char rname[NI_MAXHOST];       /* the looked-up name (or UNKNOWN), when a module wants it */
	int rname_known;              /* ... it was looked up */
	const struct nametab *names;  /* the listener's answers for the lists' names (nametab.h) */
	struct nsq nsq;               /* the name-service child, if the configuration needs one */
	const char *mhost;            /* the name shown for the selected module */
	char shown[NI_MAXHOST];       /* ... when it is not host */
	struct auth auth;
	char user[PR_NAME_MAX];       /* the user a login accepted, "" = none */
};

typedef int (*handler_fn)(struct session *s, const struct pr_msg *m);
typedef int (*fs_fn)(struct fsreq *f, const struct pr_msg *m);

struct request {
	enum pr_msg_type type;
	unsigned states;   /* where it is permitted */
	unsigned next;     /* the state it leads to, before its handler runs (0: the handler's choice) */
	handler_fn fn;     /* a session request, or */
	fs_fn fs;          /* a filesystem request (fsreq.c), or neither */
};

/* The worker is in its sandbox and has not touched the client yet: from
 * here on it serves the client, and our copy is the idle watch's, if it
 * watches one (clientidle.h). */
static int h_ready(struct session *s, const struct pr_msg *m)
{
	if (s->idle.fd != s->client)
		close(s->client);
	s->client = -1;
	return 0;
}

static int h_log(struct session *s, const struct pr_msg *m);
static int h_modlist(struct session *s, const struct pr_msg *m);
static int h_select(struct session *s, const struct pr_msg *m);
static int h_exit(struct session *s, const struct pr_msg *m);
static int h_hello(struct session *s, const struct pr_msg *m);
static int h_auth(struct session *s, const struct pr_msg *m);
static int h_start(struct session *s, const struct pr_msg *m);
static int h_xfer(struct session *s, const struct pr_msg *m);

static const struct request requests[] = {
	{ PR_W_READY,    ST_STARTING,  ST_HANDSHAKE, h_ready, NULL },
	{ PR_W_LOG,      ST_ANY,       0,            h_log, NULL },
	{ PR_W_MODLIST,  ST_HANDSHAKE, ST_LISTED,    h_modlist, NULL },
	{ PR_W_HELLO,    ST_HANDSHAKE, 0,            h_hello, NULL },
	{ PR_W_SELECT,   ST_HANDSHAKE, 0,            h_select, NULL },
	{ PR_W_AUTH,     ST_AUTH,      0,            h_auth, NULL },
	{ PR_W_EXIT,     ST_ANY,       ST_ENDING,    h_exit, NULL },
	{ PR_W_LIST,     ST_SELECTED,  0,            NULL, fs_list },
	{ PR_W_STAT,     ST_SELECTED,  0,            NULL, fs_stat },
	{ PR_W_READLINK, ST_SELECTED,  0,            NULL, fs_readlink },
	{ PR_W_IDNAME,   ST_SELECTED,  0,            NULL, fs_idname },
	{ PR_W_START,    ST_MODULE,    ST_SENDING,   h_start, NULL },
	{ PR_W_XFER,     ST_SELECTED,  0,            h_xfer, NULL },
	{ PR_W_XATTR,    ST_SELECTED,  0,            NULL, fs_xattr },
	{ PR_W_OPENV,    ST_SELECTED,  0,            NULL, fs_openv },
	{ PR_W_CLOSEV,   ST_SELECTED,  0,            NULL, fs_closev },
};

/* The monitor's answers carry no descriptor: only INIT's MOTD does, sent
 * before the first worker record. */
static int send_msg(struct session *s, struct pr_msg *m)
{
	if (pr_ipc_send_fds(&s->ipc, m, NULL, 0) < 0) {
		log_msg(PR_LOG_ERR, "cannot send %s to worker: %s",
			pr_msg_type_name(m->h.type), strerror(errno));
		return -1;
	}
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

	log_msg(PR_LOG_INFO, "test hook: the monitor calls %s (%s)", name,
		s->confined ? "confined" : !s->filtered ? "not confined" :
		s->landlocked ? "confined before selection, Landlock" : "confined before selection");
	rc = pr_test_syscall(name);
	log_msg(PR_LOG_ERR, "test hook: the monitor's %s returned %ld (%s)", name, rc, rc < 0 ? strerror(errno) : "");
	return -1;
}
#endif

static int h_log(struct session *s, const struct pr_msg *m)
{
	char clean[LOG_ESCAPED(PR_TEXT_MAX)];

	log_sanitize(clean, sizeof(clean), m->u.log.text.s);
#ifdef PRSYNCD_TEST_HOOKS
	if (strncmp(clean, "prsyncd-test-syscall ", 21) == 0)
		return test_syscall_hook(s, clean + 21);
#endif
	log_msg((enum pr_log_level)m->u.log.level, "%s", clean); /* charged by dispatch's gate */
	return 0;
}

/* The listed modules' names and comments, then the list's end: the
 * configuration alone (the request, PR_W_MODLIST, carries nothing). */
static int send_modlist(struct session *s)
{
	struct pr_msg out;

	for (size_t i = 0; i < s->cfg.nmodules; i++) {
		const struct cfg_module *mod = &s->cfg.modules[i];

		if (!mod->list)
			continue;
		pr_msg_init(&out, PR_M_MODLIST);
		if (pr_str_set_name(&out.u.modlist.name, mod->name) < 0)
			continue;
		pr_str_set_text_trunc(&out.u.modlist.comment, mod->comment);
		if (send_msg(s, &out) < 0)
			return -1;
	}
	pr_msg_init(&out, PR_M_MODLIST_END);
	return send_msg(s, &out);
}

static int h_modlist(struct session *s, const struct pr_msg *m)
{
	log_msg(PR_LOG_INFO, "module-list request from %s (%s)", s->host, s->addr);
	return send_modlist(s);
}

/*
 * After selection, for good: chroot to the module root, the module's uid and
 * gid (when started as root; rsyncd ignores them otherwise), proof that root
 * cannot be regained (unless the module runs as root), not dumpable, then
 * the monitor's own allow-list, stacked on the pre-selection one
 * (preconf.c), which admits every call made here.
 */
#ifdef PRSYNCD_FUZZ
/* The fuzz target (tests/fuzz/fuzz_dispatch.c) stays one process: no
 * chroot, no id change, no filter. */
static int confine(struct session *s)
{
	s->confined = 1;
	return 0;
}
#else
static int confine(struct session *s)
{
	uid_t uid = s->fs.uid, ru, eu, su;
	gid_t gid = s->fs.gid, rg, eg, sg;
	int root = geteuid() == 0;
	char err[256];

	s->confined = 1;
	if (root && (fchdir(s->fs.root) < 0 || chroot(".") < 0 || setgroups(1, &gid) < 0 ||
		     setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0))
		snprintf(err, sizeof(err), "chroot or id drop: %s", strerror(errno));
	else if (root && (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
			  ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid ||
			  (uid != 0 && (setresuid(0, 0, 0) == 0 || setresuid(-1, 0, -1) == 0 ||
					   (gid != 0 && setresgid(-1, 0, -1) == 0)))))
		snprintf(err, sizeof(err), "uid %u gid %u did not take, or root can be regained", uid, gid);
	else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		snprintf(err, sizeof(err), "PR_SET_DUMPABLE: %s", strerror(errno));
	else if (pr_policy_load_with(&pr_policy_monitor, MONITOR_POLICY_EXTRA, err, sizeof(err)) == 0)
		return 0;
	log_msg(PR_LOG_ERR, "module %s: confining the monitor: %s", s->fs.module, err);
	return -1;
}
#endif

static int claim_slot(struct session *s, const struct cfg_module *mod, char *text, size_t textlen);

/* Refuse a selection with the client's @ERROR line. */
static int select_error(struct session *s, const char *text)
{
	struct pr_msg out;

	pr_msg_init(&out, PR_M_SELECT);
	out.u.select.status = PR_SELECT_ERROR;
	pr_str_set_text_trunc(&out.u.select.error, text);
	return send_msg(s, &out);
}

static int finish_select(struct session *s, const struct cfg_module *mod);

/*
 * rsyncd's order: the module exists, its hosts allow/deny (access.c),
 * a connection slot, the login if "auth users" is set, then the module
 * root.  Any refusal, an unknown module's included, leaves only the end:
 * the worker has sent the client's @ERROR line and ends the connection,
 * as rsyncd does, and a second SELECT is out of state (a worker cannot
 * probe names, nor tell an unlisted module it may not use from a missing
 * one by asking again).
 */
static int h_select(struct session *s, const struct pr_msg *m)
{
	const char *name = m->u.wselect.module.s;
	const struct cfg_module *mod = cfg_find_module(&s->cfg, name);
	const struct access_client who = { (struct sockaddr *)&s->peer, s->peerlen, s->host,
					   s->rname_known ? s->rname : NULL, s->cfg.reverse_lookup };
	char clean[LOG_ESCAPED(PR_NAME_MAX)];
	char text[PR_TEXT_MAX];
	struct pr_msg out;

	s->state = ST_LISTED;
	if (mod == NULL) {
		log_sanitize(clean, sizeof(clean), name);
		log_msg(PR_LOG_INFO, "unknown module '%s' tried from %s (%s)", clean, s->host, s->addr);
		/* The name is echoed as the client sent it, as rsyncd does. */
		snprintf(text, sizeof(text), "@ERROR: Unknown module '%s'", name);
		return select_error(s, text);
	}
	s->mhost = s->shown;
	if (!access_decide(mod, &who, s->names, &s->nsq, s->shown, sizeof(s->shown))) {
		log_msg(PR_LOG_INFO, "rsync denied on module %s from %s (%s)", mod->name, s->mhost, s->addr);
		if (mod->list)
			snprintf(text, sizeof(text), "@ERROR: access denied to %s from %s (%s)", mod->name, s->mhost,
				 s->addr);
		else /* an unlisted module pretends not to exist, as in rsyncd */
			snprintf(text, sizeof(text), "@ERROR: Unknown module '%s'", mod->name);
		return select_error(s, text);
	}
	log_msg(PR_LOG_INFO, "rsync allowed access on module %s from %s (%s)", mod->name, s->mhost, s->addr);
	if (claim_slot(s, mod, text, sizeof(text)) < 0)
		return select_error(s, text);
	if (mod->auth_users == NULL || mod->auth_users[0] == '\0')
		return finish_select(s, mod);
	if (auth_begin(&s->auth, mod, s->mhost, s->addr, text, sizeof(text)) < 0)
		return select_error(s, text);
	pr_msg_init(&out, PR_M_AUTHREQ);
	if (pr_str_set_name(&out.u.authreq.challenge, s->auth.challenge) < 0)
		return -1;
	out.u.authreq.timeout = cfg_handshake_bound(s->cfg.handshake_timeout, mod->timeout);
	s->module = mod;
	s->state = ST_AUTH;
	return send_msg(s, &out);
}

static int h_hello(struct session *s, const struct pr_msg *m)
{
	s->auth.protocol = (int)m->u.hello.protocol;
	snprintf(s->auth.digests, sizeof(s->auth.digests), "%s", m->u.hello.digests.s);
	return 0;
}

static int h_auth(struct session *s, const struct pr_msg *m)
{
	char text[PR_TEXT_MAX];

	s->state = ST_LISTED;
	if (auth_check_response(&s->auth, s->module, m->u.auth.line.s, s->mhost, s->addr, &s->nsq) == 0) {
		/* the response line is "USER DIGEST"; the check parsed it alike */
		snprintf(s->user, sizeof(s->user), "%.*s", (int)strcspn(m->u.auth.line.s, " "),
			 m->u.auth.line.s);
		return finish_select(s, s->module);
	}
	snprintf(text, sizeof(text), "@ERROR: auth failed on module %s", s->module->name);
	return select_error(s, text);
}

/* The module root, confinement, and the selection's OK. */
static int finish_select(struct session *s, const struct cfg_module *mod)
{
	struct pr_msg out;
	struct pr_m_select *b = &out.u.select;
	char text[PR_TEXT_MAX];

	snprintf(text, sizeof(text), "@ERROR: chdir failed");
	if (modvars_expand(&s->sel, mod, s->mhost, s->addr, s->user) < 0 ||
	    fs_prepare(&s->fs, &s->ipc, &s->sel.m, &s->ids, (size_t)(mod - s->cfg.modules), text,
		       sizeof(text)) < 0)
		return select_error(s, text);
	mod = &s->sel.m;
	if (modlog_select(&s->ml, &s->cfg, mod))
		modlog_syslog(mod, s->mhost, s->addr, s->user);
	nsq_stop(&s->nsq); /* no question is left, and the module's uid could not end it */
	if (confine(s) < 0)
		return -1;
	s->module = mod;
	s->state = ST_MODULE;
	pr_msg_init(&out, PR_M_SELECT);
	if (fs_module_flags(&s->fs, mod, &out.u.select.module_flags) < 0) {
		s->state = ST_LISTED; /* as rsyncd: the module is not served */
		return select_error(s, "@ERROR: daemon security issue -- contact admin");
	}
	/* What the worker needs of the module to send as rsyncd would. */
	b->status = PR_SELECT_OK;
	b->read_only = 1;
	/* rsyncd sends no user/group names from chroot modules by default */
	b->numeric_ids = (uint32_t)s->fs.numeric_ids;
	b->write_only = mod->write_only != 0;
	b->ignore_errors = mod->ignore_errors != 0;
	b->max_verbosity = (uint32_t)mod->max_verbosity;
	b->chmod_umask = (uint32_t)s->cfg.umask & 0777u;
	b->timeout = (uint32_t)mod->timeout;
	b->args_timeout = (uint32_t)cfg_handshake_bound(s->cfg.handshake_timeout, mod->timeout);
	if (pr_str_set_name(&b->module, mod->name) < 0 ||
	    (mod->dont_compress &&
	     pr_str_set_text(&b->dont_compress, mod->dont_compress[0] ? mod->dont_compress : " ") < 0) ||
	    (mod->refuse_options && pr_str_set_text(&b->refuse, mod->refuse_options) < 0) ||
	    (mod->outgoing_chmod && pr_str_set_text(&b->outgoing_chmod, mod->outgoing_chmod) < 0) ||
	    (mod->charset && pr_str_set_name(&b->charset, mod->charset) < 0)) {
		log_msg(PR_LOG_ERR, "module %s: a setting is too long for the worker once expanded", mod->name);
		return -1;
	}
	return send_msg(s, &out);
}

static int h_start(struct session *s, const struct pr_msg *m)
{
	struct pr_msg out;

	return xferlog_start(&s->xl, s->module, s->mhost, s->addr, s->user, &m->u.start, &out) < 0 ? -1 :
	       send_msg(s, &out);
}

static int h_xfer(struct session *s, const struct pr_msg *m)
{
	return xferlog_file(&s->xl, &m->u.xfer);
}

static int h_exit(struct session *s, const struct pr_msg *m)
{
	s->exit_code = (int)m->u.exit.code;
	s->ending_by = now_ms() + ENDING_MS;
	return 0;
}

/* dispatch's log gate: every line a handler writes is charged to the
 * session's budget (logbudget.h), error lines with their reserve. */
static int charge(void *ctx, enum pr_log_level level, size_t len)
{
	return log_budget_take(ctx, len, level == PR_LOG_ERR);
}

/* Handle one validated request, or refuse it for the current state. */
static int dispatch(struct session *s, const struct pr_msg *m)
{
	int rc;

	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		if (requests[i].type != m->h.type)
			continue;
		if ((requests[i].states & s->state) == 0) {
			log_msg(PR_LOG_ERR, "worker sent %s in a state where it is not permitted; ending session",
				pr_msg_type_name(m->h.type));
			return -1;
		}
		if (requests[i].next)
			s->state = requests[i].next;
		/* Whatever the handler logs, it logs because the worker asked:
		 * charged here, once for every handler, present and future. */
		log_set_gate(charge, &s->logb);
		rc = requests[i].fn ? requests[i].fn(s, m) : requests[i].fs ? requests[i].fs(&s->fs, m) : 0;
		log_set_gate(NULL, NULL);
		return rc;
	}
	log_msg(PR_LOG_ERR, "worker sent unhandled message type %u; ending session", m->h.type);
	return -1;
}

/* The client's address (the socket's peer, or a PROXY header's): IPv4
 * clients of a dual-stack socket, which appear as ::ffff:a.b.c.d, as the
 * IPv4 peers they are; anything but IP as no address. */
static void unmap_peer(struct session *s)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&s->peer;
	struct sockaddr_in s4 = { .sin_family = AF_INET };

	if (s->peerlen == 0 || (s->peer.ss_family != AF_INET && s->peer.ss_family != AF_INET6)) {
		s->peerlen = 0;
		return;
	}
	if (s->peer.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		s4.sin_port = s6->sin6_port;
		memcpy(&s4.sin_addr, s6->sin6_addr.s6_addr + 12, 4);
		memset(&s->peer, 0, sizeof(s->peer));
		memcpy(&s->peer, &s4, sizeof(s4));
		s->peerlen = sizeof(s4);
	}
}

/* Of the same family: peer_names() asks getaddrinfo for the peer's alone. */
static int same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)a)->sin_addr,
			      &((const struct sockaddr_in *)(const void *)b)->sin_addr, 4) == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr, 16) == 0;
}

/*
 * The client's numeric address, and its name when the global section or
 * any module wants it (rsync 3.5.0 looks it up at connect time then): the
 * reverse lookup, confirmed by a forward lookup of that name, "UNKNOWN"
 * with rsyncd's log line when either fails.  The connect-time name is the
 * looked-up one if the global "reverse lookup" is on, else UNDETERMINED.
 * Before the worker exists: no lookup is made after it.
 */
static void peer_names(struct session *s, int lookup)
{
	const struct sockaddr *sa = (const struct sockaddr *)&s->peer;
	struct addrinfo hints = { .ai_family = sa->sa_family, .ai_socktype = SOCK_STREAM, .ai_flags = AI_CANONNAME };
	struct addrinfo *res = NULL, *r = NULL;
	int rc;

	snprintf(s->rname, sizeof(s->rname), "UNKNOWN");
	if (s->peerlen == 0 || getnameinfo(sa, s->peerlen, s->addr, sizeof(s->addr), NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(s->addr, sizeof(s->addr), "UNKNOWN");
	if (lookup && s->peerlen) {
		if ((rc = getnameinfo(sa, s->peerlen, s->rname, sizeof(s->rname), NULL, 0, NI_NAMEREQD)) != 0)
			log_msg(PR_LOG_INFO, "name lookup failed for %s: %s", s->addr, gai_strerror(rc));
		else if ((rc = getaddrinfo(s->rname, NULL, &hints, &res)) != 0)
			log_msg(PR_LOG_INFO, "forward name lookup for %s failed: %s", s->rname, gai_strerror(rc));
		for (r = res; r != NULL && !same_addr(r->ai_addr, sa); r = r->ai_next)
			;
		if (rc == 0 && r == NULL)
			log_msg(PR_LOG_INFO, "%s is not a known address for \"%s\": spoofed address?", s->addr, s->rname);
		if (rc != 0 || r == NULL)
			snprintf(s->rname, sizeof(s->rname), "UNKNOWN");
		freeaddrinfo(res);
	}
	snprintf(s->host, sizeof(s->host), "%s", s->cfg.reverse_lookup ? s->rname : "UNDETERMINED");
}

static int wants_name(const struct cfg *c)
{
	for (size_t i = 0; i < c->nmodules; i++)
		if (c->modules[i].reverse_lookup)
			return 1;
	return c->reverse_lookup;
}

static int wants_auth(const struct cfg *c)
{
	for (size_t i = 0; i < c->nmodules; i++)
		if (c->modules[i].auth_users && c->modules[i].auth_users[0])
			return 1;
	return 0;
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
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	long nr = sig == SIGSYS ? sigsys_lookup(kmsg_fd, s->worker) : -1;
	const char *name = pr_syscall_name(nr);

	if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != s->exit_code)
		log_msg(PR_LOG_WARNING, "worker %d exited with status %d", (int)s->worker, WEXITSTATUS(status));
	else if (s->killed && sig == SIGKILL)
		log_msg(PR_LOG_INFO, "worker %d terminated by the monitor", (int)s->worker);
	else if (sig == SIGSYS && nr >= 0)
		log_msg(PR_LOG_ERR, "worker %d killed by signal %d (SIGSYS): seccomp violation, syscall %ld (%s)",
			(int)s->worker, sig, nr, name ? name : "?");
	else if (sig == SIGSYS)
		log_msg(PR_LOG_ERR, "worker %d killed by signal %d (SIGSYS): seccomp violation, syscall not reported by the kernel",
			(int)s->worker, sig);
	else if (sig != 0)
		log_msg(PR_LOG_ERR, "worker %d killed by signal %d (%s)", (int)s->worker, sig, strsignal(sig));
}

/* After selection: 1 (logged) if the backstop ends the session.  idle: no
 * request came for a tick; otherwise it looks at most once a tick. */
static int ended_idle(struct session *s, int idle)
{
	char why[160];

	if (!idle && now_ms() < s->idle_next)
		return 0;
	s->idle_next = now_ms() + CLIENTIDLE_TICK_S * 1000;
	if (!clientidle_check(&s->idle, (unsigned)s->module->timeout, idle, why, sizeof(why)))
		return 0;
	log_msg(PR_LOG_WARNING, "module %s: %s; ending session", s->module->name, why);
	return 1;
}

/* Serve the worker until it exits, it misbehaves, or the deadline passes. */
static void serve(struct session *s, int deadline_secs)
{
	/* A backstop: the worker enforces the same bound on the client and
	 * ends first; the slack lets it say so itself. */
	int64_t deadline = now_ms() + (int64_t)deadline_secs * 1000 + 2000;

	while (!s->done) {
		struct pollfd p = { .fd = s->ipc.fd, .events = POLLIN };
		struct pr_msg m;
		const char *why;
		int rc, e, tick;

		/* The text phases have the handshake deadline, the end its
		 * own; in between the next record is simply waited for (one
		 * system call per request): the worker bounds the transfer
		 * by the module's timeout, and the channel's receive timeout
		 * wakes the monitor to look at the client (clientidle.h). */
		if (s->state & (ST_STARTING | ST_HANDSHAKE | ST_AUTH | ST_LISTED | ST_ENDING)) {
			int64_t left = (s->state == ST_ENDING ? s->ending_by : deadline) - now_ms();

			if (left <= 0 && s->state == ST_ENDING) {
				log_msg(PR_LOG_WARNING, "worker %d announced its exit but did not end within %d s; "
					"ending session", (int)s->worker, ENDING_MS / 1000);
				return;
			}
			if (left <= 0) {
				log_msg(PR_LOG_WARNING, "handshake timeout (%d s) from %s (%s): worker killed",
					deadline_secs, s->host, s->addr);
				return;
			}
			rc = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
			if (rc < 0 && errno != EINTR) {
				log_msg(PR_LOG_ERR, "poll: %s", strerror(errno));
				return;
			}
			if (rc <= 0)
				continue;
		}
		rc = (int)pr_ipc_recv_nofd(&s->ipc, &m, &why);
		e = errno;
		/* EAGAIN: the channel's receive timeout, a tick without a request */
		tick = rc == PR_IPC_ERR && (e == EAGAIN || e == EWOULDBLOCK) && (s->state & ST_SELECTED);
		if ((s->state & ST_SELECTED) && ended_idle(s, tick))
			return;
		if (tick)
			continue;
		if (rc == PR_IPC_OK && dispatch(s, &m) == 0)
			continue;
		s->done = rc == PR_IPC_EOF; /* the worker closed the channel: its exit is reaped */
		if (rc == PR_IPC_ERR)
			log_msg(PR_LOG_ERR, "reading from worker: %s", strerror(e));
		else if (rc == PR_IPC_INVALID)
			log_msg(PR_LOG_ERR, "invalid message from worker (%s); ending session", why);
		return;
	}
}

/* Every distinct module charset, for the worker to open before its
 * sandbox (a charset with a session %VAR% cannot be known before). */
static int charset_list(const struct session *s, struct pr_str_text *out)
{
	char list[PR_TEXT_MAX] = "";
	size_t used = 0;

	for (size_t i = 0; i < s->cfg.nmodules; i++) {
		const char *cs = s->cfg.modules[i].charset;
		size_t n = cs ? strlen(cs) : 0;
		int dup = 0;

		for (size_t j = 0; j < i && n && !dup; j++)
			dup = s->cfg.modules[j].charset && strcmp(s->cfg.modules[j].charset, cs) == 0;
		if (n == 0 || dup || strchr(cs, '%') != NULL)
			continue;
		if (used + n + 2 > sizeof(list)) {
			log_msg(PR_LOG_WARNING, "more module charsets than the worker can open: %s left out", cs);
			continue;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? " " : "", cs);
	}
	return pr_str_set_text(out, list);
}

static int prepare_init(struct session *s, struct pr_msg *m, int has_motd)
{
	struct pr_m_init *b = &m->u.init;

	pr_msg_init(m, PR_M_INIT);
	b->handshake_timeout = cfg_handshake_bound(s->cfg.handshake_timeout, s->cfg.timeout);
	b->has_motd = has_motd ? 1 : 0;
	b->max_protocol = 32;
	b->bwlimit = s->cfg.bwlimit > 0 ? (uint32_t)s->cfg.bwlimit : 0;
	pr_str_set_text_trunc(&b->client_addr, s->addr);
	if (pr_str_set_path(&b->chroot_dir, s->cfg.worker_chroot) < 0 || charset_list(s, &b->charsets) < 0)
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
 * Refuse a client the worker has not talked to: the greeting the worker
 * would have sent, then the @ERROR line, so a stock client prints the
 * error and exits 5 as for rsyncd's own refusals.  The monitor reads
 * nothing: it half-closes (unless under the pre-selection filter, which
 * has no shutdown: a stock client hangs up on the @ERROR line anyway) and
 * waits (bounded) for the client to hang up, so the unread greeting does
 * not turn into a reset before the client has read the error.
 */
static void refuse_client(int fd, const char *text, int halfclose)
{
	char buf[PR_TEXT_MAX + 64];
	int n = snprintf(buf, sizeof(buf), "@RSYNCD: 32.0 sha512 sha256 sha1 md5 md4\n%s\n", text);
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (n > 0 && (size_t)n < sizeof(buf))
		(void)!send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (halfclose)
		shutdown(fd, SHUT_WR);
	(void)poll(&p, 1, 2000);
	close(fd);
}

/* Before any worker exists. */
static void refuse_early(const char *text)
{
	refuse_client(PR_FD_CLIENT, text, 1);
}

void session_refuse(const char *text)
{
	refuse_early(text);
}

/*
 * The MOTD, opened as root without following a link someone else planted
 * (safeopen.h).  rsyncd sends an empty line when its MOTD cannot be read:
 * an empty pipe stands in for the file, so the worker does the same.
 */
static int open_motd(const char *path)
{
	char why[512];
	int fd = safe_open(path, O_RDONLY | O_NONBLOCK, 0, why, sizeof(why)), p[2];

	if (fd >= 0)
		return fd;
	log_msg(PR_LOG_WARNING, "motd file %s: %s", path, why);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	close(p[1]);
	return p[0];
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
 * the client's @ERROR line in text.  With the channel closed already
 * (counts_slots(): no module of this configuration has a limit) there is
 * nothing to count, as rsyncd claims no slot for a module without one. */
static int claim_slot(struct session *s, const struct cfg_module *mod, char *text, size_t textlen)
{
	struct lchan_msg req = { .type = LCHAN_SLOT };
	struct lchan_answer a = { 0 };
	int rc;

	if (s->lsn.fd < 0)
		return 0;
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

/* Does any module of the configuration count its sessions ("max
 * connections" other than 0)?  If none does, the listener channel is
 * closed after the HOST claim: an idle session then holds no descriptor
 * of the listener's, which can hold as many idle clients as rsyncd does
 * under a low descriptor limit. */
static int counts_slots(const struct cfg *c)
{
	for (size_t i = 0; i < c->nmodules; i++)
		if (c->modules[i].max_connections != 0)
			return 1;
	return 0;
}

static int session_run(struct session *s, const struct session_opts *o)
{
	char err[CFG_ERR_MAX] = "", wpath[4096];
	struct pr_msg init;
	int sv[2], motd_fd = -1, kmsg_fd, status = 0, rc, proxied = 0, reaped = 0;

	s->state = ST_STARTING;
	s->client = -1;
	s->cfg = *o->cfg;
	log_set_debug(s->cfg.log_debug); /* the listener's --log-debug */
	s->names = o->names;
	nsq_init(&s->nsq, "the configuration asks no such question");
	lchan_init(&s->lsn, o->listener_fd);
	s->peerlen = sizeof(s->peer);
	if (getpeername(PR_FD_CLIENT, (struct sockaddr *)&s->peer, &s->peerlen) < 0)
		s->peerlen = 0;
	/* Under "proxy protocol" the header's address replaces the peer's,
	 * here, once, before any check or log line uses it (proxy.c). */
	if (s->cfg.proxy_protocol && proxy_start(&s->cfg, PR_FD_CLIENT, &s->peer, &s->peerlen, &proxied) < 0)
		return 1;
	unmap_peer(s);
	s->rname_known = wants_name(&s->cfg);
	peer_names(s, s->rname_known);
	log_msg(PR_LOG_INFO, "connect from %s (%s)", s->host, s->addr);
	if (claim_host(s, s->peerlen ? (struct sockaddr *)&s->peer : NULL, s->peerlen, proxied) < 0)
		return 1;
	if (!counts_slots(&s->cfg)) {
		close(s->lsn.fd);
		s->lsn.fd = -1;
	}
	/* The secret-independent preparation of authentication, before the
	 * worker exists; hosts allow/deny wait for the selection (access.c). */
	if (wants_auth(&s->cfg) && auth_init(&s->auth) < 0) {
		refuse_early("@ERROR: daemon setup error");
		return 1;
	}

	if (emptydir_check(s->cfg.worker_chroot, geteuid(), 0, err, sizeof(err)) < 0 ||
	    prepare_init(s, &init, 0) < 0) {
		if (err[0])
			log_msg(PR_LOG_ERR, "%s", err);
		refuse_early("@ERROR: daemon setup error");
		return 1;
	}
	if (s->cfg.motd_file != NULL)
		motd_fd = open_motd(s->cfg.motd_file);
	init.u.init.has_motd = motd_fd >= 0;
	kmsg_fd = sigsys_watch_open();
	/* The client-dependent lookups of selection and login, for the
	 * confined monitor to ask (nschild.h); a child that cannot start
	 * makes them fail, which refuses where a rule needs them. */
	if (s->names->flags & NT_FLAG_CLIENT_QUERIES)
		(void)nsq_start(&s->nsq, geteuid() == 0, init.u.init.worker_uid, init.u.init.worker_gid, kmsg_fd);
	modlog_prepare(&s->ml, &s->cfg);
	fs_idmap_load(&s->ids, &s->cfg);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_msg(PR_LOG_ERR, "socketpair: %s", strerror(errno));
		goto refuse;
	}
	worker_path(o, wpath, sizeof(wpath));
	s->worker = spawn_worker(wpath, sv[1]);
	close(sv[1]);
	if (s->worker < 0) {
		log_msg(PR_LOG_ERR, "fork: %s", strerror(errno));
		close(sv[0]);
		goto refuse;
	}
	/* Our copy of the client, never read or written once the worker
	 * runs: until the worker's READY (h_ready) it is kept to refuse a
	 * client whose worker never got there (cannot be executed, cannot
	 * build its sandbox, is killed) rather than drop it without a word;
	 * from then on, for TCP, only the kernel is asked when data last
	 * moved (clientidle.h). */
	s->client = PR_FD_CLIENT;
	clientidle_init(&s->idle, PR_FD_CLIENT);
	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ CLIENTIDLE_TICK_S, 0 },
		       sizeof(struct timeval)) < 0)
		log_msg(PR_LOG_WARNING, "the worker channel's receive timeout: %s", strerror(errno));
	pr_ipc_init(&s->ipc, sv[0], pr_msg_validate_w2m);
	s->pidfd = pidfd_open(s->worker, 0);
	if (s->pidfd < 0) {
		log_msg(PR_LOG_ERR, "pidfd_open: %s", strerror(errno));
		kill(s->worker, SIGKILL);
		while (waitpid(s->worker, &status, 0) < 0 && errno == EINTR)
			;
		close(sv[0]);
		goto refuse;
	}

	/* From the first worker record on, only what the session needs. */
	s->filtered = 1;
	rc = preconfine(&s->landlocked, err, sizeof(err));
	if (rc < 0)
		log_msg(PR_LOG_ERR, "confining the monitor before selection: %s", err);
	else if ((rc = pr_ipc_send(&s->ipc, &init, motd_fd)) < 0)
		log_msg(PR_LOG_ERR, "cannot send PR_M_INIT to worker: %s", strerror(errno));
	if (motd_fd >= 0)
		close(motd_fd);
	if (rc == 0)
		serve(s, s->cfg.handshake_timeout);
	log_budget_report(&s->logb);
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
		s->killed = pidfd_send_signal(s->pidfd, SIGKILL, NULL, 0) == 0;
		while (s->killed && waitpid(s->worker, &status, 0) < 0 && errno == EINTR)
			;
		reaped = s->killed;
	} else if (!reaped) {
		/* After the uid drop the monitor may not signal the worker
		 * (and monitor.policy has no call for it): the worker's
		 * parent-death signal ends it when we exit. */
		log_msg(PR_LOG_INFO, "worker %d ends with its session monitor", (int)s->worker);
	}
	if (reaped)
		report_exit(s, status, kmsg_fd);
	if (s->client >= 0) {
		log_msg(PR_LOG_ERR, "worker %d ended before it was ready: client refused", (int)s->worker);
		refuse_client(s->client, "@ERROR: daemon setup error", 0);
	}
	nsq_stop(&s->nsq);
	if (s->filtered)
		_exit(0); /* no atexit work (sanitizer leak checks) under the filter */
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	return 0;
refuse:
	if (motd_fd >= 0)
		close(motd_fd);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	refuse_early("@ERROR: daemon setup error");
	return 1;
}

/* Every way out of a session that is not under the filter (refusals
 * before the worker exists included) frees what the session holds. */
int session_main(const struct session_opts *o)
{
	struct session *s = prefault_alloc(sizeof(*s)); /* 55 KiB, zeroed: not 14 faults (prefault.h) */
	int rc;

	if (s == NULL) {
		log_msg(PR_LOG_ERR, "session: out of memory");
		refuse_early("@ERROR: daemon setup error");
		return 1;
	}
	rc = session_run(s, o);
	auth_forget(&s->auth);
	fs_idmap_free(&s->ids);
	nsq_stop(&s->nsq);
	cfgsnap_parsed_free(&s->cfg);
	prefault_free(s, sizeof(*s));
	return rc;
}

#ifdef PRSYNCD_FUZZ
/*
 * Fuzzing only (tests/fuzz/fuzz_dispatch.c): a session as session_main()
 * has it once the worker runs, on channels whose other ends the fuzzer
 * holds, fed one record at a time through the receive path, the
 * validators and the dispatch table, as serve() does.
 */
struct session *session_fuzz_new(const struct cfg *cfg, const struct nametab *names, const struct fs_idmap *ids,
				 int ipc_fd, int listener_fd)
{
	struct session *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->cfg = *cfg;
	s->names = names;
	nsq_init(&s->nsq, "no name-service child under the fuzzer");
	s->ids = *ids;
	s->state = ST_STARTING;
	s->worker = -1;
	s->pidfd = -1;
	s->client = -1;
	s->fs.root = -1;
	s->idle.fd = -1;
	lchan_init(&s->lsn, listener_fd);
	pr_ipc_init(&s->ipc, ipc_fd, pr_msg_validate_w2m);
	snprintf(s->host, sizeof(s->host), "fuzz");
	snprintf(s->addr, sizeof(s->addr), "127.0.0.1");
	return s;
}

/* 0 to go on, -1 where serve() would end the session. */
int session_fuzz_step(struct session *s)
{
	struct pr_msg m;
	const char *why;

	if (pr_ipc_recv_nofd(&s->ipc, &m, &why) != PR_IPC_OK)
		return -1;
	return dispatch(s, &m);
}

void session_fuzz_free(struct session *s)
{
	if (s->fs.root >= 0)
		close(s->fs.root);
	mfw_free(&s->fs.byname);
	mfw_free(&s->fs.canon);
	modfilter_free(&s->fs.hide);
	auth_forget(&s->auth);
	if (s->lsn.fd >= 0)
		close(s->lsn.fd);
	close(s->ipc.fd);
	free(s);
}
#endif
