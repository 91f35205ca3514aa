/*
 * Buffered, deadline-bounded I/O on the client socket.  The socket is
 * non-blocking and every wait goes through poll(), so a client that trickles
 * bytes or stops reading can never hold the worker past its deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"

int64_t conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void conn_init(struct conn *c, int fd)
{
	int fl;

	c->fd = fd;
	c->deadline_ms = 0;
	c->timeout_ms = 0;
	c->rpos = c->rlen = 0;
	c->total_read = c->total_written = 0;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void conn_set_deadline(struct conn *c, unsigned secs)
{
	c->deadline_ms = secs ? conn_now_ms() + (int64_t)secs * 1000 : 0;
}

/* Wait for the socket to be ready for `events`; honours both limits. */
static int conn_wait(struct conn *c, short events)
{
	struct pollfd p = { .fd = c->fd, .events = events };
	int64_t wait = -1;
	int rc;

	if (c->deadline_ms) {
		wait = c->deadline_ms - conn_now_ms();
		if (wait <= 0)
			return CONN_TIMEOUT;
	}
	if (c->timeout_ms && (wait < 0 || wait > c->timeout_ms))
		wait = c->timeout_ms;
	do {
		rc = poll(&p, 1, (int)wait);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return CONN_IOERR;
	if (rc == 0)
		return CONN_TIMEOUT;
	return CONN_OK;
}

/* Refill the buffer; returns bytes added or a conn_err. */
static int conn_fill(struct conn *c)
{
	ssize_t n;

	if (c->rpos == c->rlen)
		c->rpos = c->rlen = 0;
	if (c->rpos > 0 && c->rlen == sizeof(c->rbuf)) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	for (;;) {
		n = read(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
		if (n > 0) {
			c->rlen += (size_t)n;
			c->total_read += (uint64_t)n;
			return (int)n;
		}
		if (n == 0)
			return CONN_EOF;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return CONN_IOERR;
		int w = conn_wait(c, POLLIN);
		if (w != CONN_OK)
			return w;
	}
}

int conn_read_line(struct conn *c, char *buf, size_t cap)
{
	size_t len = 0;

	for (;;) {
		while (c->rpos < c->rlen) {
			unsigned char ch = c->rbuf[c->rpos++];

			if (ch == '\n') {
				if (len > 0 && buf[len - 1] == '\r')
					len--;
				buf[len] = '\0';
				return (int)len;
			}
			if (ch == '\0')
				return CONN_BADBYTE;
			if (len + 1 >= cap)
				return CONN_TOOLONG;
			buf[len++] = (char)ch;
		}
		int r = conn_fill(c);
		if (r < 0)
			return r;
	}
}

int conn_read_exact(struct conn *c, void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n > 0) {
		if (c->rpos == c->rlen) {
			int r = conn_fill(c);
			if (r < 0)
				return r;
		}
		size_t take = c->rlen - c->rpos;
		if (take > n)
			take = n;
		memcpy(p, c->rbuf + c->rpos, take);
		c->rpos += take;
		p += take;
		n -= take;
	}
	return CONN_OK;
}

int conn_write(struct conn *c, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n > 0) {
		ssize_t w = write(c->fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			c->total_written += (uint64_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int r = conn_wait(c, POLLOUT);
			if (r != CONN_OK)
				return r;
			continue;
		}
		return CONN_IOERR;
	}
	return CONN_OK;
}

int conn_write_str(struct conn *c, const char *s)
{
	return conn_write(c, s, strlen(s));
}

const char *conn_strerror(int e)
{
	switch (e) {
	case CONN_OK: return "ok";
	case CONN_EOF: return "connection closed by client";
	case CONN_TIMEOUT: return "timeout";
	case CONN_IOERR: return "I/O error";
	case CONN_TOOLONG: return "line too long";
	case CONN_BADBYTE: return "NUL byte in line";
	}
	return "unknown error";
}
