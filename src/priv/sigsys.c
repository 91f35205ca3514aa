/* SPDX-License-Identifier: ISC */
/*
 * Which syscall killed a worker, or a session monitor?  The kernel writes
 * an audit record for every seccomp kill ("type=1326 ... pid=N ...
 * syscall=M ...") to its log when no audit daemon takes it (rate-limited
 * like other kernel messages).  The session monitor opens /dev/kmsg
 * positioned at the end before starting the worker, so it only ever reads
 * records written during its own session, and scans them for the pid; the
 * listener opens it at start-up and reads on from where its last lookup
 * stopped, for the session monitors it reaps (src/listener/reap.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sigsys.h"

int sigsys_watch_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		(void)lseek(fd, 0, SEEK_END);
	return fd;
}

long sigsys_lookup(int kmsg_fd, pid_t pid)
{
	char rec[2048], want[32];
	long found = -1;

	if (kmsg_fd < 0)
		return -1;
	snprintf(want, sizeof(want), " pid=%d ", (int)pid);
	/* Bounded: the records of one session, at most a few thousand. */
	for (int i = 0; i < 4096; i++) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *p;

		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten; keep reading */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, want) == NULL || strstr(rec, "type=1326") == NULL)
			continue;
		p = strstr(rec, " syscall=");
		if (p != NULL)
			found = strtol(p + 9, NULL, 10);
	}
	return found;
}
