/* SPDX-License-Identifier: ISC */
/*
 * "hosts allow" / "hosts deny" for every module, decided once per session
 * on the client's address before the worker exists (src/priv/hosts.h has
 * the rules).  Every name lookup they need happens here: forward lookups of
 * the configured names, netgroup membership.  After this the session
 * monitor makes no lookup for access control, so no socket is opened once
 * a worker (and the client behind it) can influence the monitor; module
 * selection only reads the answer.
 *
 * The cost is that a session resolves the names of every module's lists,
 * not only the selected one's; each distinct name once, at most
 * ACCESS_LOOKUPS_MAX of them (further names count as unresolvable: a deny
 * list refuses, an allow list does not admit).
 */
#ifndef PRSYNCD_ACCESS_H
#define PRSYNCD_ACCESS_H

#include <stddef.h>
#include <sys/socket.h>

#include "config.h"

#define ACCESS_LOOKUPS_MAX 128

/* The client as the session holds it when access is decided (fixed then). */
struct access_client {
	const struct sockaddr *sa;  /* IPv4 or IPv6 (an IPv4-mapped one unmapped first), or neither */
	socklen_t salen;
	const char *host;           /* the connect-time name: looked up, "UNKNOWN" or "UNDETERMINED" */
	const char *rname;          /* the looked-up name ("UNKNOWN" if the lookup failed), or
				     * NULL when no module wants one */
};

struct hosts_list;

struct access {
	size_t n;
	struct hosts_list *allow, *deny; /* per module: its lists, parsed (access_compile) */
	unsigned char *allowed;     /* per module: 1 admitted */
	char **shown;               /* per module: the name rsyncd shows for the client */
};

/* Parse every module's "hosts allow" and "hosts deny" of cfg: the
 * configuration only, before anything of the client is read.  0, or -1
 * (logged) if memory is short: the caller then refuses the client. */
int access_compile(struct access *a, const struct cfg *cfg);

/* Decide for every module of cfg, on the lists access_compile parsed (call
 * it only after access_compile succeeded for the same cfg).  0,
 * or -1 (logged) if memory is short: the caller then refuses the client. */
int access_prepare(struct access *a, const struct cfg *cfg, const struct access_client *c);

/* Module i: 1 admitted, 0 refused; *host is the name to show in its log
 * lines and refusal. */
int access_allowed(const struct access *a, size_t i, const char **host);

void access_free(struct access *a);

#endif
