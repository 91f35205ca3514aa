/* SPDX-License-Identifier: ISC */
/*
 * Access decisions for a session (access.h): the name service answers for
 * hosts.c, asked before the worker exists, cached per session.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "hosts.h"
#include "log.h"

struct lookups {
	const struct hosts_peer *peer;
	size_t n;
	int warned;
	struct { char *key; int answer; } e[ACCESS_LOOKUPS_MAX];
};

/* The cached answer for key, or compute(...) stored under it. */
static int cached(struct lookups *l, const char *key, int (*compute)(const struct hosts_peer *, const char *, const char *),
		  const char *arg, const char *arg2)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->e[i].key, key) == 0)
			return l->e[i].answer;
	if (l->n == ACCESS_LOOKUPS_MAX || (l->e[l->n].key = strdup(key)) == NULL) {
		if (!l->warned++)
			log_msg(PR_LOG_WARNING, "hosts allow/deny: more than %d names to look up; "
				"the rest count as unresolvable", ACCESS_LOOKUPS_MAX);
		return -1;
	}
	l->e[l->n].answer = compute(l->peer, arg, arg2);
	return l->e[l->n++].answer;
}

/* rsyncd asks gethostbyname: IPv4 addresses only. */
static int resolve(const struct hosts_peer *p, const char *name, const char *unused)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res, *r;
	int found = 0;

	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return -1;
	for (r = res; r != NULL && !found; r = r->ai_next)
		found = p->family == AF_INET &&
			memcmp(&((struct sockaddr_in *)(void *)r->ai_addr)->sin_addr, p->addr, 4) == 0;
	freeaddrinfo(res);
	return found;
}

static int in_netgroup(const struct hosts_peer *p, const char *group, const char *host)
{
	return innetgr(group, host, NULL, NULL) == 1;
}

static int ns_forward(void *ctx, const char *name)
{
	return cached(ctx, name, resolve, name, NULL);
}

static int ns_netgroup(void *ctx, const char *group, const char *host)
{
	char key[2 * HOSTS_TOKEN_MAX + 4];

	/* the name asked about depends on the module's "reverse lookup" */
	snprintf(key, sizeof(key), "@%s %.*s", group, (int)HOSTS_TOKEN_MAX, host);
	return cached(ctx, key, in_netgroup, group, host);
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

int access_compile(struct access *a, const struct cfg *cfg)
{
	memset(a, 0, sizeof(*a));
	a->allow = calloc(cfg->nmodules + 1, sizeof(*a->allow));
	a->deny = calloc(cfg->nmodules + 1, sizeof(*a->deny));
	if (a->allow == NULL || a->deny == NULL) {
		access_free(a);
		log_msg(PR_LOG_ERR, "hosts allow/deny: out of memory");
		return -1;
	}
	/* a->n counts the modules whose lists are parsed, for access_free */
	for (; a->n < cfg->nmodules; a->n++)
		if (hosts_parse(&a->allow[a->n], cfg->modules[a->n].hosts_allow) < 0 ||
		    hosts_parse(&a->deny[a->n], cfg->modules[a->n].hosts_deny) < 0) {
			hosts_list_free(&a->allow[a->n]);
			access_free(a);
			log_msg(PR_LOG_ERR, "hosts allow/deny: out of memory");
			return -1;
		}
	return 0;
}

int access_prepare(struct access *a, const struct cfg *cfg, const struct access_client *c)
{
	struct lookups l = { 0 };
	struct hosts_peer p;
	struct hosts_ns ns = { ns_forward, ns_netgroup, &l };
	char shown[HOSTS_TOKEN_MAX + 1];
	int rc = 0;

	/* One entry per module of cfg: the caller comes here only after
	 * access_compile() parsed them all (a->n == cfg->nmodules). */
	a->allowed = calloc(a->n + 1, 1);
	a->shown = calloc(a->n + 1, sizeof(*a->shown));
	if (a->allowed == NULL || a->shown == NULL)
		rc = -1;
	peer_of(c, &p);
	l.peer = &p;
	for (size_t i = 0; i < a->n && rc == 0; i++) {
		const struct cfg_module *m = &cfg->modules[i];

		p.name = cfg->reverse_lookup || !m->reverse_lookup || c->rname == NULL ? c->host : c->rname;
		p.undetermined = strcmp(p.name, "UNDETERMINED") == 0;
		a->allowed[i] = (unsigned char)hosts_decide(&a->allow[i], &a->deny[i], &p, m->forward_lookup, &ns,
							    shown, sizeof(shown));
		if (shown[0] || p.name != c->host)
			rc = (a->shown[i] = strdup(shown[0] ? shown : p.name)) == NULL ? -1 : 0;
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.e[i].key);
	if (rc < 0)
		log_msg(PR_LOG_ERR, "hosts allow/deny: out of memory");
	return rc;
}

int access_allowed(const struct access *a, size_t i, const char **host)
{
	if (i >= a->n)
		return 0;
	if (a->shown[i] != NULL)
		*host = a->shown[i];
	return a->allowed[i];
}

void access_free(struct access *a)
{
	for (size_t i = 0; a->shown && i < a->n; i++)
		free(a->shown[i]);
	for (size_t i = 0; a->allow && i < a->n; i++) {
		hosts_list_free(&a->allow[i]);
		hosts_list_free(&a->deny[i]);
	}
	free(a->allow);
	free(a->deny);
	free(a->shown);
	free(a->allowed);
	memset(a, 0, sizeof(*a));
}
