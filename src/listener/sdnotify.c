/* SPDX-License-Identifier: ISC */
/*
 * systemd readiness notification (sd_notify(3)'s protocol, written by
 * hand): one datagram per state change to the AF_UNIX socket named by
 * NOTIFY_SOCKET, a path or, with a leading '@', an abstract name.  Nothing
 * happens without the variable; a datagram that cannot be sent is dropped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "listener.h"

static struct sockaddr_un addr;
static socklen_t addrlen;
static int fd = -1;

void notify_init(void)
{
	const char *p = getenv("NOTIFY_SOCKET");
	size_t n;

	if (p == NULL || (p[0] != '/' && p[0] != '@') || (n = strlen(p)) >= sizeof(addr.sun_path) || n < 2) {
		unsetenv("NOTIFY_SOCKET");
		return;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path, p, n);
	if (p[0] == '@')
		addr.sun_path[0] = '\0';
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (p[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Sessions are started with an empty environment anyway. */
	unsetenv("NOTIFY_SOCKET");
}

int notify_enabled(void)
{
	return fd >= 0;
}

void notify_send(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(buf))
		return;
	(void)sendto(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&addr, addrlen);
}
