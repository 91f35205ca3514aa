/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the name-service channel's records (src/monitor/nsrec.c) and the
 * monitor's reading of the child's answers (nsquery.c): the first byte
 * picks what the rest is:
 *   0  one record, checked as a request (what the child accepts)
 *   1  one record, checked as an answer
 *   2  the child's answers to a groups question, cut into records (the
 *      last one short), queued, then the child's end closed
 *   3  the same for a netgroup question
 * Checks: nothing is read outside a record (ASan); an accepted record's
 * text fields are NUL-terminated where their lengths say; a groups
 * question succeeds only with exactly the groups sent, in order, and a
 * question that fails leaves nothing behind (LeakSanitizer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "monotime.h"
#include "nsquery.h"
#include "nsrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *data, size_t size, enum nsrec_dir dir)
{
	struct nsrec r;
	size_t n = size < sizeof(r) ? size : sizeof(r);

	memset(&r, 0, sizeof(r));
	memcpy(&r, data, n);
	if (nsrec_check(&r, size, dir) != NULL)
		return;
	if (r.a[r.alen] != '\0' || r.b[r.blen] != '\0' || strlen(r.a) != r.alen || strlen(r.b) != r.blen)
		abort();
}

static void stream(const uint8_t *data, size_t size, int groups)
{
	struct nsq q;
	struct nsq_groups g;
	int sv[2], rc;
	size_t sent = 0, at = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	nsq_attach(&q, sv[0]);
	while (at < size && sent < 64) {
		size_t n = size - at < sizeof(struct nsrec) ? size - at : sizeof(struct nsrec);

		if (send(sv[1], data + at, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			break;
		at += n;
		sent++;
	}
	close(sv[1]);
	if (groups) {
		rc = nsq_groups(&q, "alice", now_ms() + 2000, &g);
		if (rc == 0) {
			for (size_t i = 0; i < g.n; i++) {
				const struct nsrec *r = (const void *)(data + i * sizeof(struct nsrec));

				if (strlen(g.name[i]) > NSREC_TEXT_MAX || memcmp(g.name[i], r->a, strlen(g.name[i]) + 1) != 0)
					abort();
			}
			nsq_groups_free(&g);
		} else if (g.n != 0 || g.name != NULL) {
			abort();
		}
	} else {
		rc = nsq_netgroup(&q, "trusted", "host.example", now_ms() + 2000);
		if (rc < -1 || rc > 1)
			abort();
	}
	nsq_stop(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 64 * sizeof(struct nsrec))
		return 0;
	switch (data[0] & 3) {
	case 0: one(data + 1, size - 1, NSREC_TO_CHILD); break;
	case 1: one(data + 1, size - 1, NSREC_TO_MONITOR); break;
	case 2: stream(data + 1, size - 1, 1); break;
	default: stream(data + 1, size - 1, 0); break;
	}
	return 0;
}
