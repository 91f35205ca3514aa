/* SPDX-License-Identifier: ISC */
/* "socket options" (sockopts.h): the names rsync 3.5.0 knows, with its
 * meaning of a bare name (1, or the IPTOS constant itself). */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "sockopts.h"

struct sockopt {
	const char *name;
	int level, opt;
	int fixed;       /* the value to set regardless of "=N" (IP_TOS), or -1 */
};

static const struct sockopt known[] = {
	{ "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, -1 },
	{ "SO_REUSEADDR", SOL_SOCKET, SO_REUSEADDR, -1 },
	{ "SO_BROADCAST", SOL_SOCKET, SO_BROADCAST, -1 },
	{ "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY, -1 },
	{ "IPTOS_LOWDELAY", IPPROTO_IP, IP_TOS, IPTOS_LOWDELAY },
	{ "IPTOS_THROUGHPUT", IPPROTO_IP, IP_TOS, IPTOS_THROUGHPUT },
	{ "SO_SNDBUF", SOL_SOCKET, SO_SNDBUF, -1 },
	{ "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, -1 },
	{ "SO_SNDLOWAT", SOL_SOCKET, SO_SNDLOWAT, -1 },
	{ "SO_RCVLOWAT", SOL_SOCKET, SO_RCVLOWAT, -1 },
	{ "SO_SNDTIMEO", SOL_SOCKET, SO_SNDTIMEO, -1 },
	{ "SO_RCVTIMEO", SOL_SOCKET, SO_RCVTIMEO, -1 },
};

#define SEP " \t,"

/* The option a word names (its "=N" cut off into *val), or NULL. */
static const struct sockopt *lookup(char *word, int *val)
{
	char *eq = strchr(word, '=');

	*val = 1;
	if (eq) {
		*eq = '\0';
		*val = atoi(eq + 1);
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(word, known[i].name) == 0)
			return &known[i];
	return NULL;
}

const char *sockopts_check(const char *spec)
{
	return strlen(spec) >= 1024 ? "is too long (1023 bytes at most)" : NULL;
}

const char *sockopts_unknown(const char *spec)
{
	static char why[256];
	char buf[1024], *w, *save = NULL;
	int val;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, SEP, &save); w; w = strtok_r(NULL, SEP, &save))
		if (lookup(w, &val) == NULL) {
			snprintf(why, sizeof(why), "names '%.40s', a socket option rsyncd does not know: it is "
				 "ignored and the others are set, as rsyncd does (it logs \"Unknown socket option "
				 "%.40s\" at each connection)", w, w);
			return why;
		}
	return NULL;
}

void sockopts_apply(int fd, const char *spec)
{
	char buf[1024], *w, *save = NULL;
	const struct sockopt *o;
	int val;

	if (spec == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, SEP, &save); w; w = strtok_r(NULL, SEP, &save)) {
		if ((o = lookup(w, &val)) == NULL)
			continue;
		if (o->fixed >= 0)
			val = o->fixed;
		if (setsockopt(fd, o->level, o->opt, &val, sizeof(val)) < 0)
			log_msg(PR_LOG_DEBUG, "socket option %s: refused by the kernel", o->name);
	}
}
