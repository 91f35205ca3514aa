/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the listener's reading of its resolver child's records
 * (names_job_step and its checks in src/listener/names.c): the input is a
 * sequence of records, each [length lo][length hi][bytes], queued as the
 * child would send them for eight host names, then the child's end
 * closed.  Checks: nothing is read outside a record (ASan); the run ends;
 * the names answered are a prefix, each with a known status and an
 * address count that fits it; the others are untouched; nothing leaks.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "monotime.h"
#include "names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NNAMES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int logged;
	struct names n = { 0 };
	struct names_job j = { .pidfd = -1, .fd = -1 };
	int sv[2];
	size_t at = 0, sent = 0;

	if (!logged++)
		log_use_fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
	if (size > 65536 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	n.v = calloc(NNAMES, sizeof(*n.v));
	if (n.v == NULL)
		abort();
	for (int i = 0; i < NNAMES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d.example", i);
		n.v[i] = (struct name_ans){ .name = strdup(name), .kind = NT_HOST, .status = NT_UNKNOWN };
	}
	n.n = n.nhosts = NNAMES;
	while (at + 2 <= size && sent < 32) {
		size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;

		at += 2;
		if (len > size - at)
			len = size - at;
		if (send(sv[1], data + at, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
		at += len;
		sent++;
	}
	close(sv[1]);
	j.fd = sv[0];
	j.target = &n;
	j.started = now_ms();
	j.deadline = j.started + 1000;
	names_job_step(&j, now_ms());
	if (!j.done || j.fd >= 0 || j.next > NNAMES)
		abort();
	for (size_t i = 0; i < NNAMES; i++) {
		const struct name_ans *e = &n.v[i];

		if (i >= j.next ? e->status != NT_UNKNOWN || e->at != 0 || e->naddr != 0
				: (e->status < NT_RESOLVED || e->status > NT_FAILED || e->naddr > NAMETAB_ADDRS_MAX ||
				   (e->status == NT_RESOLVED) != (e->naddr > 0)))
			abort();
	}
	names_free(&n);
	return 0;
}
