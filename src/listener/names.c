/* SPDX-License-Identifier: ISC */
/*
 * A generation's names and answers (names.h): collected from the
 * configuration with the same parser the sessions use (hosts.c), so the
 * table holds exactly the names a session will look for; answered by the
 * resolver child, whose every record is checked here before it is taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hosts.h"
#include "log.h"
#include "names.h"
#include "reap.h"
#include "sealed.h"

static int by_kind_name(const void *a, const void *b)
{
	const struct name_ans *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct collect {
	struct names *n;
	size_t cap;
	int oom;
};

static void add(struct collect *c, uint32_t kind, const char *name)
{
	struct name_ans *grown;

	if (c->oom)
		return;
	if (c->n->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;

		if ((grown = realloc(c->n->v, cap * sizeof(*grown))) == NULL) {
			c->oom = 1;
			return;
		}
		c->n->v = grown;
		c->cap = cap;
	}
	memset(&c->n->v[c->n->n], 0, sizeof(c->n->v[0]));
	c->n->v[c->n->n].kind = kind;
	c->n->v[c->n->n].status = NT_UNKNOWN;
	if ((c->n->v[c->n->n].name = strdup(name)) == NULL)
		c->oom = 1;
	else
		c->n->n++;
}

/* hosts_parse asks for the interfaces of scopes: each one is a name. */
static long record_iface(void *ctx, const char *ifname)
{
	add(ctx, NT_IFACE, ifname);
	return -1;
}

static void collect_list(struct collect *c, const char *list, int forward)
{
	struct hosts_scopes sc = { record_iface, c };
	struct hosts_list l;

	if (list == NULL || hosts_parse(&l, list, &sc) < 0) {
		c->oom |= list != NULL;
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (l.t[i].netgroup)
			c->n->flags |= NT_FLAG_CLIENT_QUERIES;
		else if (forward && l.t[i].fwd && strlen(l.t[i].text) <= NAMETAB_NAME_MAX)
			add(c, NT_HOST, l.t[i].text);
	}
	hosts_list_free(&l);
}

int names_collect(const struct cfg *cfg, struct names *out, char *err, size_t errlen)
{
	struct collect c = { out, 0, 0 };
	size_t w = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < cfg->nmodules; i++) {
		const struct cfg_module *m = &cfg->modules[i];

		collect_list(&c, m->hosts_allow, m->forward_lookup);
		collect_list(&c, m->hosts_deny, m->forward_lookup);
		/* a '@' may start a @group rule: conservative, never missed */
		if (m->auth_users != NULL && strchr(m->auth_users, '@') != NULL)
			out->flags |= NT_FLAG_CLIENT_QUERIES;
	}
	if (c.oom) {
		names_free(out);
		snprintf(err, errlen, "names of hosts allow/deny: out of memory");
		return -1;
	}
	if (out->n > 0)
		qsort(out->v, out->n, sizeof(out->v[0]), by_kind_name);
	for (size_t i = 0; i < out->n; i++) { /* each name once */
		if (w > 0 && by_kind_name(&out->v[w - 1], &out->v[i]) == 0) {
			free(out->v[i].name);
			continue;
		}
		out->v[w++] = out->v[i];
	}
	out->n = w;
	while (out->nhosts < out->n && out->v[out->nhosts].kind == NT_HOST)
		out->nhosts++;
	return 0;
}

void names_free(struct names *n)
{
	for (size_t i = 0; i < n->n; i++) {
		free(n->v[i].name);
		free(n->v[i].addrs);
	}
	free(n->v);
	memset(n, 0, sizeof(*n));
}

static int set_addrs(struct name_ans *e, const uint32_t *addrs, uint32_t naddr)
{
	uint32_t *copy = NULL;

	if (naddr > 0 && (copy = malloc((size_t)naddr * sizeof(*copy))) == NULL)
		return -1;
	if (naddr > 0)
		memcpy(copy, addrs, (size_t)naddr * sizeof(*copy));
	free(e->addrs);
	e->addrs = copy;
	e->naddr = naddr;
	return 0;
}

void names_carry(struct names *n, const struct names *old)
{
	/* bsearch may not be given old->v NULL, even for 0 entries (a
	 * configuration without names reloaded into one with names) */
	for (size_t i = 0; old != NULL && old->n > 0 && i < n->n; i++) {
		const struct name_ans *o = bsearch(&n->v[i], old->v, old->n, sizeof(old->v[0]), by_kind_name);

		if (o == NULL || o->at == 0 || set_addrs(&n->v[i], o->addrs, o->naddr) < 0)
			continue;
		n->v[i].status = o->status;
		n->v[i].ifindex = o->ifindex;
		n->v[i].at = o->at;
	}
}

void names_ifaces(struct names *n, int64_t now)
{
	for (size_t i = n->nhosts; i < n->n; i++) {
		unsigned idx;

		errno = 0;
		idx = if_nametoindex(n->v[i].name);
		n->v[i].ifindex = idx;
		n->v[i].status = idx > 0 ? NT_RESOLVED : errno == ENODEV ? NT_NOTFOUND : NT_FAILED;
		n->v[i].at = now;
	}
}

int names_table(const struct names *n, int64_t now, char *err, size_t errlen)
{
	struct nametab_item *it = n->n ? calloc(n->n, sizeof(*it)) : NULL;
	unsigned char *buf;
	size_t len;
	int fd;

	if (n->n > 0 && it == NULL) {
		snprintf(err, errlen, "names table: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct name_ans *e = &n->v[i];
		int fresh = e->at != 0 && now - e->at <= NAMES_MAX_AGE_MS;

		it[i] = (struct nametab_item){ e->kind, fresh ? e->status : NT_UNKNOWN, e->name, NULL, 0, 0 };
		if (fresh && e->status == NT_RESOLVED) {
			it[i].addrs = e->addrs;
			it[i].naddr = e->naddr;
			it[i].ifindex = e->ifindex;
		}
	}
	if (nametab_build(it, n->n, n->flags, &buf, &len, err, errlen) < 0) {
		free(it);
		return -1;
	}
	free(it);
	fd = sealed_create("prsyncd-names", buf, len, err, errlen);
	free(buf);
	return fd;
}

/* --- one run of the resolver child --------------------------------------- */

int names_job_start(struct names_job *j, struct names *n, int drop, uid_t uid, gid_t gid, int64_t now)
{
	int sv[2];
	pid_t pid;

	memset(j, 0, sizeof(*j));
	j->pidfd = j->fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_msg(PR_LOG_ERR, "resolver: socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		resolver_run(sv[1], n, drop, uid, gid);
	}
	close(sv[1]);
	if (pid < 0 || (j->pidfd = pidfd_open(pid, 0)) < 0) {
		log_msg(PR_LOG_ERR, "resolver: %s: %s", pid < 0 ? "fork" : "pidfd_open", strerror(errno));
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(sv[0]);
		return -1;
	}
	j->pid = pid;
	j->fd = sv[0];
	j->target = n;
	j->started = now;
	j->deadline = now + NAMES_RUN_MS;
	return 0;
}

/* A record of the child's, checked before anything of it is taken. */
static const char *take(struct names_job *j, const struct resolver_rec *r, size_t len, int64_t now)
{
	struct name_ans *e;

	if (len < RESOLVER_REC_HDR || r->naddr > NAMETAB_ADDRS_MAX || len != RESOLVER_REC_HDR + 4u * r->naddr)
		return "a record of the wrong size";
	if (r->index != j->next || j->next >= j->target->nhosts)
		return "a record out of order";
	if ((r->status != NT_RESOLVED && r->status != NT_NOTFOUND && r->status != NT_FAILED) ||
	    (r->status == NT_RESOLVED) != (r->naddr > 0))
		return "a malformed record";
	e = &j->target->v[j->next];
	if (set_addrs(e, r->addr, r->naddr) < 0)
		return "out of memory";
	e->status = r->status;
	e->at = now;
	j->next++;
	return NULL;
}

static void summary(const struct names_job *j, int64_t now, const char *why)
{
	size_t ok = 0, nf = 0, failed = 0;

	for (size_t i = 0; i < j->next; i++) {
		ok += j->target->v[i].status == NT_RESOLVED;
		nf += j->target->v[i].status == NT_NOTFOUND;
		failed += j->target->v[i].status == NT_FAILED;
	}
	if (why != NULL)
		log_msg(PR_LOG_WARNING, "resolver: %s; %zu of %zu names not reached keep their last answer "
			"while it is younger than %d s, else they count as not resolved",
			why, j->target->nhosts - j->next, j->target->nhosts, NAMES_MAX_AGE_MS / 1000);
	/* a refresh that found nothing wrong is routine: debug (syslog may drop it) */
	log_msg(why != NULL || failed ? PR_LOG_WARNING : j->refresh ? PR_LOG_DEBUG : PR_LOG_INFO,
		"resolver: %zu of %zu host names resolved, %zu not found, %zu failed, in %lld ms",
		ok, j->target->nhosts, nf, failed, (long long)(now - j->started));
}

void names_job_step(struct names_job *j, int64_t now)
{
	static struct resolver_rec r; /* 4 KiB: not on the stack */

	while (!j->done) {
		ssize_t n = recv(j->fd, &r, sizeof(r), MSG_DONTWAIT | MSG_TRUNC);
		const char *why = NULL;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (now < j->deadline)
				return;
			why = "the run took longer than its bound";
		} else if (n <= 0) {
			why = j->next == j->target->nhosts ? NULL : "the child ended early";
		} else if ((size_t)n > sizeof(r)) {
			why = "a record of the wrong size";
		} else if ((why = take(j, &r, (size_t)n, now)) == NULL) {
			continue;
		}
		j->done = 1;
		summary(j, now, why);
		names_job_end(j);
	}
}

/* How the child ended, when not as it should: its exit status, or the
 * signal that killed it (a seccomp kill with the call's name, reap.c) but
 * SIGKILL, which is the listener's own at the end of a run.  What that
 * did to the run, its channel says (summary). */
static void report(pid_t pid, int status)
{
	static const char *const why[] = {
		[RESOLVER_EXIT_BEGIN - RESOLVER_EXIT_BEGIN] = "its first steps failed",
		[RESOLVER_EXIT_DROP - RESOLVER_EXIT_BEGIN] = "it could not give up privilege",
		[RESOLVER_EXIT_CONFINE - RESOLVER_EXIT_BEGIN] = "it could not confine itself (Landlock, seccomp)",
		[RESOLVER_EXIT_CHANNEL - RESOLVER_EXIT_BEGIN] = "its channel to the listener failed",
	};
	int st = WIFEXITED(status) ? WEXITSTATUS(status) : 0;

	if (st != 0)
		log_msg(PR_LOG_ERR, "resolver %d exited with status %d (%s)", (int)pid, st,
			st >= RESOLVER_EXIT_BEGIN && st <= RESOLVER_EXIT_CHANNEL ? why[st - RESOLVER_EXIT_BEGIN] : "?");
	else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		reap_report_as("resolver", pid, status);
}

int names_job_reaped(struct names_job *j, pid_t pid, int status)
{
	if (j->pid == 0 || pid != j->pid)
		return 0;
	report(pid, status);
	j->pid = 0;
	return 1;
}

void names_job_end(struct names_job *j)
{
	int status = 0;

	/* a child that already died keeps its status: the SIGKILL is lost on it */
	if (j->pid > 0 && j->pidfd >= 0 && pidfd_send_signal(j->pidfd, SIGKILL, NULL, 0) == 0) {
		pid_t got;

		while ((got = waitpid(j->pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (got == j->pid)
			report(j->pid, status);
	}
	j->pid = 0;
	if (j->pidfd >= 0)
		close(j->pidfd);
	if (j->fd >= 0)
		close(j->fd);
	j->pidfd = j->fd = -1;
	j->done = 1;
}
