/* SPDX-License-Identifier: ISC */
/*
 * Access decisions at selection (access.h): the selected module's lists
 * parsed, and hosts.c's name service answered from the names table and
 * the name-service child, each answer that is not a plain yes or no
 * logged with what it counts as.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "access.h"
#include "hosts.h"
#include "log.h"
#include "monotime.h"
#include "nametab.h"
#include "nsquery.h"

struct actx {
	const struct cfg_module *m;
	const struct nametab *names;
	struct nsq *q;
	const struct hosts_peer *p;
	int64_t deadline;        /* for the name-service child: one per decision */
};

/* A token that cannot be judged, and what it counts as.  Not finding a
 * name is ordinary (INFO); anything else is a failure (WARNING). */
static void note(const struct actx *x, int level, int deny, const char *token, const char *what)
{
	log_msg((enum pr_log_level)level, "module %s: %s '%s' %s: it %s", x->m->name,
		deny ? "hosts deny" : "hosts allow", token, what, deny ? "counts as matching" : "does not admit");
}

static const char *status_text(uint32_t status)
{
	switch (status) {
	case NT_NOTFOUND: return "does not resolve";
	case NT_FAILED: return "could not be resolved";
	default: return "is not resolved yet";
	}
}

/* rsyncd asks gethostbyname: IPv4 addresses only. */
static int ns_forward(void *ctx, const char *name, int deny)
{
	const struct actx *x = ctx;
	struct nametab_answer a;

	if (!nametab_find(x->names, NT_HOST, name, &a)) {
		note(x, PR_LOG_WARNING, deny, name, "is not in the names table");
		return -1;
	}
	if (a.status != NT_RESOLVED) {
		note(x, a.status == NT_NOTFOUND ? PR_LOG_INFO : PR_LOG_WARNING, deny, name, status_text(a.status));
		return -1;
	}
	for (uint32_t i = 0; i < a.naddr; i++)
		if (x->p->family == AF_INET && memcmp(&a.addrs[i], x->p->addr, 4) == 0)
			return 1;
	return 0;
}

static int ns_netgroup(void *ctx, const char *group, const char *host, int deny)
{
	const struct actx *x = ctx;
	char what[320];
	int r = nsq_netgroup(x->q, group, host, x->deadline);

	if (r < 0) {
		snprintf(what, sizeof(what), "could not be checked (%s)", x->q->why);
		note(x, PR_LOG_WARNING, deny, group, what);
	}
	return r;
}

static void ns_unjudged(void *ctx, const char *token, const char *why, int deny)
{
	note(ctx, PR_LOG_WARNING, deny, token, why);
}

/* An interface named in a scope: its index from the table, 0 if the
 * listener found no such interface, -1 if that is not known. */
static long scope_index(void *ctx, const char *ifname)
{
	struct nametab_answer a;

	if (!nametab_find(ctx, NT_IFACE, ifname, &a) || (a.status != NT_RESOLVED && a.status != NT_NOTFOUND))
		return -1;
	return a.status == NT_RESOLVED ? (long)a.ifindex : 0;
}

/* The client's address for hosts.c; none (AF_UNSPEC: the memset) for a
 * non-IP client, which matches no address while names and patterns still
 * apply.  No IPv4-mapped IPv6 address arrives: session.c's unmap_peer()
 * turned it into the IPv4 address it is before anything looked at it. */
static void peer_of(const struct access_client *c, struct hosts_peer *p)
{
	const struct sockaddr_in6 *s6 = (const void *)c->sa;

	memset(p, 0, sizeof(*p));
	if (c->sa->sa_family == AF_INET && c->salen >= (socklen_t)sizeof(struct sockaddr_in)) {
		p->family = AF_INET;
		memcpy(p->addr, &((const struct sockaddr_in *)(const void *)c->sa)->sin_addr, 4);
	} else if (c->sa->sa_family == AF_INET6 && c->salen >= (socklen_t)sizeof(*s6)) {
		p->family = AF_INET6;
		memcpy(p->addr, s6->sin6_addr.s6_addr, 16);
		p->scope = s6->sin6_scope_id;
	}
}

int access_decide(const struct cfg_module *m, const struct access_client *c, const struct nametab *names,
		  struct nsq *q, char *shown, size_t showlen)
{
	struct hosts_peer p;
	struct actx x = { m, names, q, &p, now_ms() + NSQ_TIMEOUT_MS };
	struct hosts_ns ns = { ns_forward, ns_netgroup, &x, ns_unjudged };
	struct hosts_scopes sc = { scope_index, (void *)(uintptr_t)names };
	struct hosts_list allow, deny;
	char named[HOSTS_TOKEN_MAX + 1];
	int ok = 0;

	peer_of(c, &p);
	/* the looked-up name where the module wants it and the global
	 * section did not make it the connect-time name already */
	p.name = c->global_reverse || !m->reverse_lookup || c->rname == NULL ? c->host : c->rname;
	p.undetermined = strcmp(p.name, "UNDETERMINED") == 0;
	snprintf(shown, showlen, "%s", p.name);
	if (hosts_parse(&allow, m->hosts_allow, &sc) < 0) {
		log_msg(PR_LOG_ERR, "module %s: hosts allow/deny: out of memory", m->name);
		return 0;
	}
	if (hosts_parse(&deny, m->hosts_deny, &sc) < 0) {
		log_msg(PR_LOG_ERR, "module %s: hosts allow/deny: out of memory", m->name);
	} else {
		ok = hosts_decide(&allow, &deny, &p, m->forward_lookup, &ns, named, sizeof(named));
		if (named[0])
			snprintf(shown, showlen, "%s", named);
		hosts_list_free(&deny);
	}
	hosts_list_free(&allow);
	return ok;
}
