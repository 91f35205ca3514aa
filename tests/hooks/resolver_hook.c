/* SPDX-License-Identifier: ISC */
/*
 * Test builds only (linked into build/test/prsyncd and the unit tests,
 * never into a release binary): the resolver child's hook (names.h),
 * called by src/listener/resolver.c before each name is looked up, under
 * the child's seccomp filter and Landlock domain.  A host name
 * "prsyncd-test-syscall-CALL" in "hosts allow"/"hosts deny" makes CALL:
 *   any call of src/proto/testcall.h   must kill the child with SIGSYS
 *                                      (t_seccomp_calls.sh, t_names.sh)
 *   tcp-53, tcp-9                      a TCP connect to 127.0.0.1 on that
 *                                      port, which the filter admits (DNS
 *                                      over TCP) and Landlock, where the
 *                                      kernel has its network rules, admits
 *                                      to 53 only: EACCES for 9
 * A call that returns is reported on stderr ("test hook: the resolver's
 * CALL returned ...", which the test build's filter lets through) and the
 * child exits with status 99 without answering, so the run fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "names.h"
#include "testcall.h"

#define HOOK_PREFIX "prsyncd-test-syscall-"
#define HOOK_EXIT 99

static long tcp_connect(const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	long rc;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return rc;
}

void resolver_test_hook(const char *name)
{
	const char *call;
	char line[256];
	long rc;
	int len;

	if (strncmp(name, HOOK_PREFIX, strlen(HOOK_PREFIX)) != 0)
		return;
	call = name + strlen(HOOK_PREFIX);
	errno = 0;
	rc = strncmp(call, "tcp-", 4) == 0 ? tcp_connect(call + 4) : pr_test_syscall(call);
	len = snprintf(line, sizeof(line), "test hook: the resolver's %s returned %ld (%s)\n", call, rc,
		       rc < 0 ? strerror(errno) : "no error");
	if (len > 0)
		(void)!write(2, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	_exit(HOOK_EXIT);
}
