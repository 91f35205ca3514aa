/* SPDX-License-Identifier: ISC */
/*
 * The listener's resolver child (names.h): forked for one run, it gives
 * up privilege first (src/priv/unpriv.c: the worker user's uid and gid in
 * root mode, no capability, not dumpable, no_new_privs, every descriptor
 * but its channel closed, killed with the listener), confines itself (a
 * read-only Landlock domain whose only TCP connect is to port 53, where
 * the kernel has it, then policy/resolver.policy), then asks the system
 * resolver for each host name's IPv4 addresses, as rsyncd's gethostbyname
 * would, and reports each on its own record.  The listener bounds the run
 * and checks every record (names.c): the child is trusted with nothing
 * but the answers, which are the resolver's anyway.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "landlock.h"
#include "names.h"
#include "policies.h"
#include "unpriv.h"

#ifdef PRSYNCD_TEST_HOOKS
#define RESOLVER_POLICY_EXTRA (&pr_policy_sanitizer) /* ASan/UBSan runtime */
#else
#define RESOLVER_POLICY_EXTRA NULL
#endif

#define DNS_PORT 53 /* glibc asks every name server on it (resolv.conf has no port) */

/* One name: its record filled; the number of bytes to send. */
static size_t resolve_one(const char *name, uint32_t index, struct resolver_rec *r)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
	int rc = getaddrinfo(name, NULL, &hints, &res);

	memset(r, 0, RESOLVER_REC_HDR);
	r->index = index;
	if (rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_ADDRFAMILY) {
		r->status = NT_NOTFOUND;
		return RESOLVER_REC_HDR;
	}
	r->status = rc == 0 ? NT_RESOLVED : NT_FAILED;
	for (struct addrinfo *a = res; rc == 0 && a != NULL; a = a->ai_next) {
		uint32_t v;

		memcpy(&v, &((const struct sockaddr_in *)(const void *)a->ai_addr)->sin_addr, 4);
		if (r->naddr == NAMETAB_ADDRS_MAX) { /* never cut short: a failure refuses in a deny list */
			r->status = NT_FAILED;
			r->naddr = 0;
			break;
		}
		r->addr[r->naddr++] = v;
	}
	if (r->status == NT_RESOLVED && r->naddr == 0)
		r->status = NT_NOTFOUND;
	freeaddrinfo(res);
	return RESOLVER_REC_HDR + 4u * r->naddr;
}

void resolver_run(int fd, const struct names *n, int drop, uid_t uid, gid_t gid)
{
	static struct resolver_rec r;
	const char *why;
	char err[256];
	int ll;

	if ((fd = unpriv_begin(fd, "prsyncd-resolve")) < 0)
		_exit(RESOLVER_EXIT_BEGIN);
	if (unpriv_drop(drop, uid, gid, &why) < 0)
		_exit(RESOLVER_EXIT_DROP);
	/* Nothing is warmed up before: every lookup reads what it needs
	 * under the filter (resolver.policy). */
	if (landlock_readonly_port(&ll, DNS_PORT, err, sizeof(err)) < 0 ||
	    pr_policy_load_with(&pr_policy_resolver, RESOLVER_POLICY_EXTRA, err, sizeof(err)) < 0)
		_exit(RESOLVER_EXIT_CONFINE);
	for (size_t i = 0; i < n->nhosts; i++) {
		size_t len;

#ifdef PRSYNCD_TEST_HOOKS
		resolver_test_hook(n->v[i].name);
#endif
		len = resolve_one(n->v[i].name, (uint32_t)i, &r);
		if (send(fd, &r, len, MSG_NOSIGNAL) != (ssize_t)len)
			_exit(RESOLVER_EXIT_CHANNEL);
	}
	_exit(0);
}
