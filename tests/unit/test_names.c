/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the listener's names (src/listener/names.c): the names a
 * configuration's lists ask about (only plain names of modules with
 * forward lookup, interfaces of link-local scopes, each once; the flag
 * for the sessions' name-service child), answers carried over and aged
 * out, and a run of the resolver whose child is a fake here that sends
 * hostile records: out of order, oversized, with a wrong count or status,
 * an early end, silence past the deadline.  Each ends the run with the
 * names not reached kept as they were; nothing malformed is taken.
 */
#include "names.h"
#include "unit.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "monotime.h"

static const char conf[] =
	"[a]\n\tpath = /tmp\n\thosts allow = b.example A.example 10.0.0.0/8 *.wild @ng fe80::1%eth9\n"
	"[b]\n\tpath = /tmp\n\thosts deny = a.example c.example\n"
	"[c]\n\tpath = /tmp\n\tforward lookup = no\n\thosts deny = nofwd.example\n"
	"[d]\n\tpath = /tmp\n\tauth users = @staff\n";

static void test_collect(void)
{
	struct cfg c;
	struct names n;
	char err[256];

	CHECK(cfg_parse("t", conf, sizeof(conf) - 1, &c, err, sizeof(err)) == 0);
	CHECK(names_collect(&c, &n, err, sizeof(err)) == 0);
	CHECK(n.n == 4 && n.nhosts == 3);
	CHECK(strcmp(n.v[0].name, "a.example") == 0 && strcmp(n.v[1].name, "b.example") == 0 &&
	      strcmp(n.v[2].name, "c.example") == 0); /* lower-cased, sorted, each once */
	CHECK(n.v[3].kind == NT_IFACE && strcmp(n.v[3].name, "eth9") == 0);
	CHECK(n.v[0].status == NT_UNKNOWN && n.v[0].at == 0);
	CHECK(n.flags & NT_FLAG_CLIENT_QUERIES);
	names_free(&n);
	cfg_free(&c);
	/* no netgroup, no @: no child needed */
	{
		static const char plain[] = "[a]\n\tpath = /tmp\n\thosts allow = x.example\n\tauth users = bob\n";

		CHECK(cfg_parse("t", plain, sizeof(plain) - 1, &c, err, sizeof(err)) == 0);
		CHECK(names_collect(&c, &n, err, sizeof(err)) == 0 && n.flags == 0 && n.nhosts == 1);
		names_free(&n);
		cfg_free(&c);
	}
}

/* Three host names, no answer yet. */
static void three(struct names *n)
{
	static const char *v[] = { "a.example", "b.example", "c.example" };

	memset(n, 0, sizeof(*n));
	n->v = calloc(3, sizeof(*n->v));
	for (int i = 0; i < 3; i++) {
		n->v[i].name = strdup(v[i]);
		n->v[i].kind = NT_HOST;
		n->v[i].status = NT_UNKNOWN;
	}
	n->n = n->nhosts = 3;
}

static size_t rec(struct resolver_rec *r, uint32_t index, uint32_t status, uint32_t naddr)
{
	memset(r, 0, RESOLVER_REC_HDR + 4u * naddr);
	r->index = index;
	r->status = status;
	r->naddr = naddr;
	for (uint32_t i = 0; i < naddr; i++)
		r->addr[i] = htonl(0x0a000001u + i);
	return RESOLVER_REC_HDR + 4u * naddr;
}

/* A run whose child is the test: the records given, then (close) its end. */
static struct names_job job_on(struct names *n, int sv[2])
{
	struct names_job j = { .pidfd = -1, .fd = -1 };

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	j.fd = sv[0];
	j.target = n;
	j.started = now_ms();
	j.deadline = j.started + 500;
	return j;
}

static void test_run(void)
{
	static struct resolver_rec r;
	struct names n;
	struct names_job j;
	int sv[2];
	size_t len;

	/* good: three answers, the end */
	three(&n);
	j = job_on(&n, sv);
	len = rec(&r, 0, NT_RESOLVED, 2); send(sv[1], &r, len, 0);
	len = rec(&r, 1, NT_NOTFOUND, 0); send(sv[1], &r, len, 0);
	len = rec(&r, 2, NT_FAILED, 0); send(sv[1], &r, len, 0);
	close(sv[1]);
	names_job_step(&j, now_ms());
	CHECK(j.done && j.next == 3 && j.fd < 0);
	CHECK(n.v[0].status == NT_RESOLVED && n.v[0].naddr == 2 && n.v[0].addrs[1] == htonl(0x0a000002u) && n.v[0].at);
	CHECK(n.v[1].status == NT_NOTFOUND && n.v[2].status == NT_FAILED);
	/* a carried answer, and its age */
	{
		struct names m;

		three(&m);
		names_carry(&m, &n);
		CHECK(m.v[0].status == NT_RESOLVED && m.v[0].naddr == 2 && m.v[0].at == n.v[0].at);
		CHECK(names_table(&m, m.v[0].at + NAMES_MAX_AGE_MS + 1, (char[64]){ 0 }, 64) >= 0); /* aged: built all the same */
		names_free(&m);
	}
	/* carried from a configuration without names (no table at all):
	 * nothing is, and nothing is searched (UBSan: bsearch of NULL) */
	{
		struct names m, none = { 0 };

		three(&m);
		names_carry(&m, &none);
		CHECK(m.v[0].status == NT_UNKNOWN && m.v[0].at == 0 && m.v[2].at == 0);
		names_free(&m);
	}
	names_free(&n);

	/* hostile records: each ends the run; what came before stays */
	{
		struct { const char *what; uint32_t index, status, naddr; int cut; } bad[] = {
			{ "out of order", 1, NT_RESOLVED, 1, 0 },
			{ "a status", 0, 9, 0, 0 },
			{ "resolved without an address", 0, NT_RESOLVED, 0, 0 },
			{ "not found with an address", 0, NT_NOTFOUND, 1, 0 },
			{ "a count past the record", 0, NT_RESOLVED, 3, 4 },
			{ "too many addresses", 0, NT_RESOLVED, NAMETAB_ADDRS_MAX + 1, 0 },
			{ "short header", 0, NT_NOTFOUND, 0, 11 },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			three(&n);
			j = job_on(&n, sv);
			len = rec(&r, bad[i].index, bad[i].status,
				  bad[i].naddr > NAMETAB_ADDRS_MAX ? NAMETAB_ADDRS_MAX : bad[i].naddr);
			r.naddr = bad[i].naddr;
			if (bad[i].cut)
				len -= (size_t)bad[i].cut;
			send(sv[1], &r, len, 0);
			len = rec(&r, 0, NT_RESOLVED, 1); /* never taken: the run is over */
			send(sv[1], &r, len, 0);
			names_job_step(&j, now_ms());
			CHECK_MSG(j.done && j.next == 0 && n.v[0].status == NT_UNKNOWN && n.v[0].at == 0, "%s", bad[i].what);
			close(sv[1]);
			names_free(&n);
		}
	}
	/* oversized: more bytes than a record holds */
	three(&n);
	j = job_on(&n, sv);
	{
		static char big[sizeof(struct resolver_rec) + 64];

		send(sv[1], big, sizeof(big), 0);
		names_job_step(&j, now_ms());
		CHECK(j.done && j.next == 0);
	}
	close(sv[1]);
	names_free(&n);
	/* an early end: the first answer kept, the rest as they were */
	three(&n);
	j = job_on(&n, sv);
	len = rec(&r, 0, NT_NOTFOUND, 0); send(sv[1], &r, len, 0);
	close(sv[1]);
	names_job_step(&j, now_ms());
	CHECK(j.done && j.next == 1 && n.v[0].status == NT_NOTFOUND && n.v[1].status == NT_UNKNOWN);
	names_free(&n);
	/* silence: nothing before the deadline, then the run ends */
	three(&n);
	j = job_on(&n, sv);
	names_job_step(&j, now_ms());
	CHECK(!j.done);
	names_job_step(&j, j.deadline);
	CHECK(j.done && j.next == 0);
	close(sv[1]);
	names_free(&n);
}

int main(void)
{
	log_use_fd(open("/dev/null", O_WRONLY | O_CLOEXEC)); /* the run's log lines */
	test_collect();
	test_run();
	return unit_done("test_names");
}
