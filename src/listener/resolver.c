/* SPDX-License-Identifier: ISC */
/*
 * The listener's resolver child (names.h): forked for one run, it gives
 * up privilege first (src/priv/unpriv.c: the worker user's uid and gid in
 * root mode, no capability, not dumpable, no_new_privs, every descriptor
 * but its channel closed, killed with the listener), then asks the system
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

#include "names.h"
#include "unpriv.h"

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

	if ((fd = unpriv_begin(fd, "prsyncd-resolve")) < 0 || unpriv_drop(drop, uid, gid, &why) < 0)
		_exit(120);
	for (size_t i = 0; i < n->nhosts; i++) {
		size_t len = resolve_one(n->v[i].name, (uint32_t)i, &r);

		if (send(fd, &r, len, MSG_NOSIGNAL) != (ssize_t)len)
			_exit(121);
	}
	_exit(0);
}
