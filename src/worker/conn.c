/* SPDX-License-Identifier: ISC */
/*
 * Buffered, deadline-bounded I/O on the client socket.  The socket is
 * non-blocking and every wait goes through poll(), so a client that trickles
 * bytes or stops reading can never hold the worker past its deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/sockios.h>

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
	c->keepalive_ms = 0;
	c->keepalive = NULL;
	c->keepalive_ctx = NULL;
	c->rpos = c->rlen = 0;
	c->eof = 0;
	c->total_read = c->total_written = 0;
	pace_set(&c->pace, 0);
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void conn_set_deadline(struct conn *c, unsigned secs)
{
	c->deadline_ms = secs ? conn_now_ms() + (int64_t)secs * 1000 : 0;
}

/* Bytes we wrote that the client has not acknowledged yet (-1: unknown). */
static int conn_outq(const struct conn *c)
{
	int n;

	return ioctl(c->fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

/*
 * Wait for the socket to be ready for `events`; honours both limits.
 * Returns the poll revents, or a conn_err.
 *
 * The idle timeout measures the client's silence: it is alive while it
 * sends (the wait ends) or consumes what we sent (the unacknowledged
 * queue shrinks, checked once a second).  Our own keepalives prove
 * nothing, so they never restart the clock; they are sent only while
 * waiting to read, never in the middle of a frame being written.
 */
static int conn_wait(struct conn *c, short events)
{
	int64_t idle_start = conn_now_ms(), ka_at = idle_start + c->keepalive_ms;
	int outq = c->timeout_ms ? conn_outq(c) : -1;

	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = events };
		int64_t now = conn_now_ms(), wait = -1;
		int rc, keepalive = c->keepalive_ms && c->keepalive && events == POLLIN;

		if (c->deadline_ms) {
			wait = c->deadline_ms - now;
			if (wait <= 0)
				return CONN_TIMEOUT;
		}
		if (c->timeout_ms) {
			int q = outq > 0 ? conn_outq(c) : -1;
			int64_t left;

			if (q >= 0 && q < outq)
				idle_start = now;
			outq = q >= 0 ? q : outq;
			left = idle_start + c->timeout_ms - now;
			if (left <= 0)
				return CONN_TIMEOUT;
			if (wait < 0 || wait > left)
				wait = left;
			if (outq > 0 && wait > 1000)
				wait = 1000;
		}
		if (keepalive && (wait < 0 || wait > ka_at - now))
			wait = ka_at > now ? ka_at - now : 0;
		rc = poll(&p, 1, (int)wait);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return CONN_IOERR;
		if (rc > 0)
			return p.revents;
		if (keepalive && conn_now_ms() >= ka_at) {
			ka_at = conn_now_ms() + c->keepalive_ms;
			c->keepalive(c->keepalive_ctx);
		}
	}
}

/* Make room at the end of the buffer by moving unread bytes to the front. */
static void conn_compact(struct conn *c)
{
	if (c->rpos == c->rlen) {
		c->rpos = c->rlen = 0;
	} else if (c->rpos > 0 && c->rlen > sizeof(c->rbuf) / 2) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
}

/* One non-blocking read into the buffer: >0 bytes, 0 if nothing is
 * available now, or a conn_err. */
static int conn_try_read(struct conn *c)
{
	ssize_t n;

	conn_compact(c);
	if (c->rlen == sizeof(c->rbuf))
		return 0;
	do {
		n = read(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		c->rlen += (size_t)n;
		c->total_read += (uint64_t)n;
		return (int)n;
	}
	if (n == 0) {
		c->eof = 1;
		return CONN_EOF;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	c->read_errno = errno;
	return CONN_IOERR;
}

/* Refill the buffer, waiting if needed; returns bytes added or a conn_err. */
static int conn_fill(struct conn *c)
{
	for (;;) {
		int r = conn_try_read(c);
		if (r != 0)
			return r;
		if (c->rlen == sizeof(c->rbuf))
			return CONN_IOERR; /* callers consume before refilling */
		r = conn_wait(c, POLLIN);
		if (r < 0)
			return r;
	}
}

int conn_readable(struct conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	if (c->rlen > c->rpos || c->eof)
		return 1;
	return poll(&p, 1, 0) != 0;
}

size_t conn_buffered(const struct conn *c)
{
	return c->rlen - c->rpos;
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

/* The socket is full: read whatever the peer sends meanwhile, so neither
 * side can end up blocked writing to the other. */
static int wait_writable(struct conn *c)
{
	int space = !c->eof && (c->rlen < sizeof(c->rbuf) || c->rpos > 0);
	int r = conn_wait(c, (short)(POLLOUT | (space ? POLLIN : 0)));

	if (r < 0)
		return r;
	if (r & POLLIN) {
		int got = conn_try_read(c);
		if (got < 0 && got != CONN_EOF)
			return got;
	}
	return CONN_OK;
}

int conn_write(struct conn *c, const void *buf, size_t n)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };

	return conn_writev(c, &iov, 1);
}

void conn_set_bwlimit(struct conn *c, uint32_t kib)
{
	pace_set(&c->pace, kib);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The bytes just written put us ahead of the --bwlimit rate: sleep it
 * off.  Nothing is read meanwhile, as in rsyncd (the sleeps are short:
 * a tenth of a second and one write's worth).  A deadline (the
 * handshake's, or the bounded wait of an ending session) is never slept
 * past; the next wait then reports it.
 */
static void pace_after(struct conn *c, size_t n)
{
	int64_t start = now_ns(), want = pace_wrote(&c->pace, n, start), until;
	struct timespec ts;

	if (want <= 0)
		return;
	until = start + want;
	if (c->deadline_ms) {
		int64_t dl = c->deadline_ms * 1000000;

		if (until > dl)
			until = dl > start ? dl : start;
	}
	ts.tv_sec = (time_t)(until / 1000000000);
	ts.tv_nsec = (long)(until % 1000000000);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	pace_slept(&c->pace, want, start, now_ns());
}

/* One writev of what iov holds, cut to the pacing's write size. */
static ssize_t write_some(struct conn *c, struct iovec *iov, int cnt)
{
	size_t max = c->pace.bps ? c->pace.write_max : 0, sum = 0, keep;
	int k = 0;
	ssize_t w;

	if (cnt > IOV_MAX)
		cnt = IOV_MAX;
	if (max == 0)
		return writev(c->fd, iov, cnt);
	while (k < cnt && sum + iov[k].iov_len <= max)
		sum += iov[k++].iov_len;
	if (k == cnt || sum == max)
		return writev(c->fd, iov, k);
	/* iov[k] only in part: shortened for this call, then restored */
	keep = iov[k].iov_len;
	iov[k].iov_len = max - sum;
	w = writev(c->fd, iov, k + 1);
	iov[k].iov_len = keep;
	return w;
}

int conn_writev(struct conn *c, struct iovec *iov, int cnt)
{
	while (cnt > 0 && iov[0].iov_len == 0) {
		iov++;
		cnt--;
	}
	while (cnt > 0) {
		ssize_t w = write_some(c, iov, cnt);

		if (w > 0) {
			size_t left = (size_t)w;

			c->total_written += (uint64_t)w;
			while (cnt > 0 && left >= iov[0].iov_len) {
				left -= iov[0].iov_len;
				iov++;
				cnt--;
			}
			if (cnt > 0) {
				iov[0].iov_base = (unsigned char *)iov[0].iov_base + left;
				iov[0].iov_len -= left;
			}
			if (c->pace.bps)
				pace_after(c, (size_t)w);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int r = wait_writable(c);
			if (r < 0)
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
