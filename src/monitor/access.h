/* SPDX-License-Identifier: ISC */
/*
 * "hosts allow" / "hosts deny" of the module a client selects, decided at
 * its selection (as rsyncd decides them: only the module asked for), on
 * what the session knows of the client since it connected (its address
 * and, when some module wants it, its looked-up name) and answers asked
 * of no resolver here:
 *   - a configured host name's addresses, and an interface named in a
 *     scope, from the names table the listener resolved for the
 *     configuration (src/priv/nametab.h);
 *   - netgroup membership of the client's name, from the session's
 *     name-service child (nsquery.h), within NSQ_TIMEOUT_MS.
 * A token whose answer is missing, failed or late counts as matching in
 * "hosts deny" and does not admit in "hosts allow", with a log line
 * (src/priv/hosts.h); nothing is skipped.  What a selection costs is one
 * module's lists: parsing them, one pass, one table search per plain
 * name, one question per netgroup.
 */
#ifndef PRSYNCD_ACCESS_H
#define PRSYNCD_ACCESS_H

#include <stddef.h>
#include <sys/socket.h>

#include "config.h"

struct nametab;
struct nsq;

/* The client as the session holds it (fixed at connect time). */
struct access_client {
	const struct sockaddr *sa;  /* IPv4 or IPv6 (an IPv4-mapped one unmapped first), or neither */
	socklen_t salen;
	const char *host;           /* the connect-time name: looked up, "UNKNOWN" or "UNDETERMINED" */
	const char *rname;          /* the looked-up name ("UNKNOWN" if the lookup failed), or
				     * NULL when no module wants one */
	int global_reverse;         /* the global "reverse lookup": host is the looked-up name */
};

/* Module m's decision for the client: 1 admitted, 0 refused (also when
 * memory is short, logged).  shown (showlen bytes) gets the name rsyncd
 * shows for the client in the module's log lines and refusal. */
int access_decide(const struct cfg_module *m, const struct access_client *c, const struct nametab *names,
		  struct nsq *q, char *shown, size_t showlen);

#endif
