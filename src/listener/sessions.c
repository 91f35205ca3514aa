/* SPDX-License-Identifier: ISC */
/*
 * The listener's session table and the connection limits it enforces.
 *
 * Every running session monitor has a row: its pid, the configuration
 * generation it was started with, the address it is counted under and the
 * module slot it holds.  Sessions ask over their channel (lchan.h); the
 * requests are served from the table below, one row per request type with
 * the states that permit it, like the monitor's own dispatch table.  A
 * session is untrusted here: a record that fails lchan_check(), or arrives
 * in a state that does not permit it, closes the channel (the session then
 * gets no slot) and is logged.  Counts change only when a request is
 * granted and when the session is reaped, never on a session's say-so.
 *
 * Limits are counted over all live sessions, whichever generation they run:
 * after a reload the new limits apply to new requests and the sessions
 * already holding slots still count.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostlist.h"
#include "listener.h"
#include "log.h"

enum {
	SS_NEW = 1 << 0,  /* may send HOST */
	SS_HOST = 1 << 1, /* counted under its host; may send SLOT */
	SS_DONE = 1 << 2, /* nothing more: the channel is closed */
};

typedef void (*lreq_fn)(struct sessions *t, struct sess *s, const struct lchan_msg *m,
			struct lchan_answer *a);

static void h_host(struct sessions *t, struct sess *s, const struct lchan_msg *m, struct lchan_answer *a);
static void h_slot(struct sessions *t, struct sess *s, const struct lchan_msg *m, struct lchan_answer *a);

static const struct lreq {
	uint16_t type;
	unsigned states;
	unsigned next;    /* state after the answer */
	lreq_fn fn;
} lreqs[] = {
	{ LCHAN_HOST, SS_NEW, SS_HOST, h_host },
	{ LCHAN_SLOT, SS_HOST, SS_DONE, h_slot },
};

static void addr_text(uint8_t fam, const uint8_t *a, char *out, size_t outlen)
{
	if (inet_ntop(fam == 4 ? AF_INET : AF_INET6, a, out, (socklen_t)outlen) == NULL)
		snprintf(out, outlen, "?");
}

/*
 * Whether a session may claim an address other than its socket's peer:
 * only under "proxy protocol", and only when that peer is one of the
 * "proxy protocol hosts" of the configuration the session runs with.  The
 * session monitor checked the same before reading the header; this check
 * does not depend on it.
 */
static int proxy_allowed(const struct sess *s)
{
	const struct cfg *c = &s->gen->cfg;

	return c->proxy_protocol && s->peer_fam != 0 && hostlist_match(c->proxy_protocol_hosts, s->peer_fam, s->peer);
}

static void h_host(struct sessions *t, struct sess *s, const struct lchan_msg *m, struct lchan_answer *a)
{
	const struct lchan_host *h = &m->u.host;
	int limit = s->gen->cfg.max_connections_per_host, count = 0;
	char claimed[64], peer[64];

	if (h->proxied ? !proxy_allowed(s)
		       : (h->family != s->peer_fam || memcmp(h->addr, s->peer, 16) != 0)) {
		addr_text(h->family, h->addr, claimed, sizeof(claimed));
		addr_text(s->peer_fam, s->peer, peer, sizeof(peer));
		log_msg(PR_LOG_ERR, "session %d claimed address %s%s, its peer is %s: refused",
			(int)s->pid, claimed, h->proxied ? " from a PROXY header" : "", peer);
		a->status = LCHAN_REFUSED;
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct sess *o = &t->s[i];

		if (o->has_host && o->host_fam == h->family && memcmp(o->host, h->addr, 16) == 0)
			count++;
	}
	if (limit > 0 && count >= limit) {
		a->status = LCHAN_FULL;
		a->limit = limit;
		return;
	}
	s->has_host = 1;
	s->host_fam = h->family;
	memcpy(s->host, h->addr, 16);
	a->status = LCHAN_OK;
}

/* By name: a module's sessions count together across generations. */
static void h_slot(struct sessions *t, struct sess *s, const struct lchan_msg *m, struct lchan_answer *a)
{
	const struct cfg_module *mod = &s->gen->cfg.modules[m->u.slot.module];
	int limit = mod->max_connections, count = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct sess *o = &t->s[i];

		if (o->slot >= 0 && strcmp(o->gen->cfg.modules[o->slot].name, mod->name) == 0)
			count++;
	}
	/* rsyncd: 0 is unlimited, a negative limit admits nobody. */
	if (limit < 0 || (limit > 0 && count >= limit)) {
		a->status = LCHAN_FULL;
		a->limit = limit;
		return;
	}
	s->slot = (int)m->u.slot.module;
	a->status = LCHAN_OK;
}

static void close_chan(struct sessions *t, struct sess *s)
{
	if (s->chan.fd >= 0) {
		close(s->chan.fd);
		t->open--;
	}
	s->chan.fd = -1;
	s->state = SS_DONE;
}

int sessions_room(struct sessions *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sess *grown;

		if (cap > MAX_SESSIONS || (grown = realloc(t->s, cap * sizeof(*grown))) == NULL)
			return -1;
		t->s = grown;
		t->cap = cap;
	}
	return 0;
}

struct sess *sessions_add(struct sessions *t, pid_t pid, int chan_fd, struct gen *g,
			  const struct sockaddr *peer, socklen_t peerlen)
{
	struct sess *s;

	if (sessions_room(t) < 0)
		return NULL;
	s = &t->s[t->n++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	lchan_init(&s->chan, chan_fd);
	t->open++;
	s->gen = g;
	g->refs++;
	s->state = SS_NEW;
	s->slot = -1;
	if (peer == NULL || lchan_addr_key(peer, peerlen, &s->peer_fam, s->peer) < 0)
		s->peer_fam = 0; /* matches no HOST request */
	return s;
}

void sessions_remove(struct sessions *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->s[i].pid != pid)
			continue;
		close_chan(t, &t->s[i]);
		gen_put(t->s[i].gen);
		t->s[i] = t->s[--t->n];
		return;
	}
}

void sessions_serve(struct sessions *t, struct sess *s)
{
	struct lchan_msg m, out;
	const struct lreq *r = NULL;
	const char *why = NULL;
	ssize_t n = lchan_recv(&s->chan, &m, &why);

	if (n == -1 && errno == EAGAIN)
		return;
	if (n == 0 || n == -1) {
		close_chan(t, s); /* the session closed its end: normal */
		return;
	}
	if (n > 0 && lchan_check(&m, (size_t)n, LCHAN_TO_LISTENER, s->chan.rcvd + 1,
				 s->gen->cfg.nmodules, &why) == 0) {
		s->chan.rcvd++;
		for (size_t i = 0; i < sizeof(lreqs) / sizeof(lreqs[0]); i++)
			if (lreqs[i].type == m.type)
				r = &lreqs[i];
		if (r == NULL || !(r->states & s->state))
			why = "request not permitted in this state";
	}
	if (r == NULL || why != NULL) {
		log_msg(PR_LOG_ERR, "session %d: invalid request on the listener channel (%s); channel closed",
			(int)s->pid, why ? why : "?");
		close_chan(t, s);
		return;
	}
	memset(&out, 0, sizeof(out));
	out.type = LCHAN_ANSWER;
	out.u.answer.request = m.type;
	r->fn(t, s, &m, &out.u.answer);
	s->state = out.u.answer.status == LCHAN_OK ? r->next : SS_DONE;
	if (lchan_send(&s->chan, &out) < 0 || s->state == SS_DONE)
		close_chan(t, s);
}
