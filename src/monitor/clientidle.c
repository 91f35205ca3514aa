/* SPDX-License-Identifier: ISC */
/* The monitor's backstop on an idle or abandoned session (clientidle.h). */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clientidle.h"
#include "monotime.h"

/* The one call the monitor's filters admit for it: TCP_INFO of fd 3. */
static int tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	return fd >= 0 && getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len) == 0 && len >= sizeof(*ti) ? 0 : -1;
}

void clientidle_init(struct clientidle *w, int fd)
{
	struct tcp_info ti;

	w->fd = fd;
	w->gone_since = 0;
	if (fd >= 0 && tcp_info(fd, &ti) < 0)
		w->fd = -1; /* not TCP: nothing to watch; the caller keeps the descriptor */
}

int clientidle_check(struct clientidle *w, unsigned timeout, int idle, char *why, size_t whylen)
{
	struct tcp_info ti;
	uint32_t quiet;

	if (tcp_info(w->fd, &ti) < 0)
		return 0; /* nothing to tell by: the worker's own bound alone */
	quiet = ti.tcpi_last_data_recv < ti.tcpi_last_data_sent ? ti.tcpi_last_data_recv : ti.tcpi_last_data_sent;
	if (idle && timeout > 0 && quiet / 1000 > timeout + CLIENTIDLE_SLACK_S) {
		snprintf(why, whylen, "no data to or from the client for %u s (module timeout %u s)", quiet / 1000,
			 timeout);
		return 1;
	}
	if (ti.tcpi_state == TCP_ESTABLISHED || w->gone_since == 0)
		w->gone_since = ti.tcpi_state == TCP_ESTABLISHED ? 0 : now_ms();
	if (w->gone_since == 0 || now_ms() - w->gone_since < (int64_t)CLIENTIDLE_GONE_S * 1000)
		return 0;
	snprintf(why, whylen, "the client's connection is closed (TCP state %u) and the worker has not ended "
		 "for %d s", (unsigned)ti.tcpi_state, CLIENTIDLE_GONE_S);
	return 1;
}
