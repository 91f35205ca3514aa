/* SPDX-License-Identifier: ISC */
/*
 * Multiplexed I/O (spec part 1, section 6).  Output is always multiplexed
 * once the seed is sent; input only from protocol 30.  Input frames other
 * than MSG_DATA are handled here, as they arrive, wherever the sender
 * happens to be reading, so the rest of the worker only ever sees the data
 * stream.  Every failure ends the session: there is no partial recovery
 * from a desynchronised stream.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "mon.h"

#define MSG_TEXT_IN_MAX 5119   /* a client's text message: rsyncd's buffer (5,120) less one */

static int in_fatal;
static int fatal_code;

void io_init(struct io *io, struct conn *c, int protocol)
{
	memset(io, 0, sizeof(*io));
	in_fatal = 0;
	io->c = c;
	io->protocol = protocol;
	ndx_state_init(&io->ndx_in);
	ndx_state_init(&io->ndx_out);
}

static void keepalive(void *ctx)
{
	struct io *io = ctx;

	/* An empty MSG_DATA frame is the keepalive every client version takes. */
	if (io->mux_out && io->olen == 0)
		io_send_msg(io, MSG_DATA, NULL, 0);
}

void io_set_timeout(struct io *io, int seconds)
{
	io->timeout_s = seconds;
	io->c->timeout_ms = seconds * 1000;
	io->c->keepalive_ms = seconds ? seconds * 500 : 0;
	io->c->keepalive = keepalive;
	io->c->keepalive_ctx = io;
}

void io_start_mux(struct io *io)
{
	io->mux_out = 1;
	io->mux_in = io->protocol >= 30;
	io->stat_read_base = io->c->total_read - conn_buffered(io->c);
	io->stat_written_base = io->c->total_written;
}

uint64_t io_stat_read(const struct io *io)
{
	return io->c->total_read - conn_buffered(io->c) - io->stat_read_base;
}

uint64_t io_stat_written(const struct io *io)
{
	return io->c->total_written + (io->olen ? io->olen + 4 : 0) - io->stat_written_base;
}

__attribute__((noreturn)) static void timed_out(struct io *io);

static void put_all(struct io *io, const void *p, size_t n)
{
	int r = conn_write(io->c, p, n);

	if (r == CONN_TIMEOUT)
		timed_out(io);
	if (r != CONN_OK)
		io_abort(io, RERR_SOCKETIO, conn_strerror(r));
}

void io_write_raw(struct io *io, const void *p, size_t n)
{
	put_all(io, p, n);
}

static void frame_header(unsigned char h[4], int code, size_t len)
{
	uint32_t v = ((uint32_t)(code + 7) << 24) | (uint32_t)len;

	h[0] = (unsigned char)v;
	h[1] = (unsigned char)(v >> 8);
	h[2] = (unsigned char)(v >> 16);
	h[3] = (unsigned char)(v >> 24);
}

void io_flush(struct io *io)
{
	if (io->olen == 0)
		return;
	frame_header(io->obuf, MSG_DATA, io->olen);
	put_all(io, io->obuf, io->olen + 4);
	io->olen = 0;
}

void io_write(struct io *io, const void *p, size_t n)
{
	const unsigned char *b = p;

	io->data_out += n;
	if (!io->mux_out) {
		put_all(io, p, n);
		return;
	}
	while (n > 0) {
		size_t room = sizeof(io->obuf) - 4 - io->olen;
		size_t take = n < room ? n : room;

		memcpy(io->obuf + 4 + io->olen, b, take);
		io->olen += take;
		b += take;
		n -= take;
		if (io->olen == sizeof(io->obuf) - 4)
			io_flush(io);
	}
}

/*
 * Literal data of the plain token stream: each piece of at most `chunk`
 * bytes as its int32 length and the bytes.  Large spans skip the copy into
 * obuf: frames of at most a full obuf's payload are described with iovecs
 * (the pending obuf bytes lead the first) and written several per system
 * call straight from p.  The frames are valid MSG_DATA frames like any
 * other; only their number and sizes differ from what io_write would make.
 */
#define LIT_DIRECT_MIN 16384u   /* below this, copying is cheaper */
#define LIT_BATCH 8u            /* pieces per writev */
#define FRAME_MAX (sizeof(((struct io *)0)->obuf) - 4)

void io_write_literal(struct io *io, const unsigned char *p, size_t n, size_t chunk)
{
	if (!io->mux_out || n < LIT_DIRECT_MIN || chunk == 0 || chunk > FRAME_MAX) {
		while (n > 0) {
			size_t k = n < chunk ? n : chunk;

			io_write_int32(io, (int32_t)k);
			io_write(io, p, k);
			p += k;
			n -= k;
		}
		return;
	}
	while (n > 0) {
		/* The stream of this batch as segments: pending bytes, then
		 * (length, bytes) per piece.  Cut into frames below. */
		struct { const unsigned char *p; size_t n; } seg[1 + 2 * LIT_BATCH];
		unsigned char toks[LIT_BATCH][4], hdrs[LIT_BATCH + 2][4];
		struct iovec iov[(LIT_BATCH + 2) * 4 + 2 * LIT_BATCH + 2];
		size_t nseg = 0, total = 0, niov = 0, nf = 0, si = 0, soff = 0;
		int r;

		if (io->olen > 0) {
			seg[nseg].p = io->obuf + 4;
			seg[nseg++].n = io->olen;
			total += io->olen;
		}
		for (size_t b = 0; b < LIT_BATCH && n > 0; b++) {
			size_t k = n < chunk ? n : chunk;
			uint32_t v = (uint32_t)k;

			toks[b][0] = (unsigned char)v;
			toks[b][1] = (unsigned char)(v >> 8);
			toks[b][2] = (unsigned char)(v >> 16);
			toks[b][3] = (unsigned char)(v >> 24);
			seg[nseg].p = toks[b];
			seg[nseg++].n = 4;
			seg[nseg].p = p;
			seg[nseg++].n = k;
			total += 4 + k;
			io->data_out += 4 + k; /* as io_write counts them: the log's %b */
			p += k;
			n -= k;
		}
		while (total > 0) {
			size_t flen = total < FRAME_MAX ? total : FRAME_MAX, left = flen;

			frame_header(hdrs[nf], MSG_DATA, flen);
			iov[niov].iov_base = hdrs[nf++];
			iov[niov++].iov_len = 4;
			while (left > 0) {
				size_t take = seg[si].n - soff < left ? seg[si].n - soff : left;

				iov[niov].iov_base = (void *)(seg[si].p + soff);
				iov[niov++].iov_len = take;
				left -= take;
				soff += take;
				if (soff == seg[si].n) {
					si++;
					soff = 0;
				}
			}
			total -= flen;
		}
		io->olen = 0;
		r = conn_writev(io->c, iov, (int)niov);
		if (r == CONN_TIMEOUT)
			timed_out(io); /* the client's silence, as put_all reports it */
		if (r != CONN_OK)
			io_abort(io, RERR_SOCKETIO, conn_strerror(r));
	}
}

void io_send_msg(struct io *io, int code, const void *p, size_t n)
{
	unsigned char h[4];

	io_flush(io);
	if (!io->mux_out) {
		/* Before multiplexing only data can travel; messages go to the log. */
		return;
	}
	frame_header(h, code, n);
	put_all(io, h, 4);
	if (n)
		put_all(io, p, n);
}

void io_send_int_msg(struct io *io, int code, int32_t v)
{
	unsigned char b[4];

	wire_put_int32(b, v);
	io_send_msg(io, code, b, 4);
}

void io_msg(struct io *io, int code, const char *fmt, ...)
{
	char text[IO_MSG_TEXT_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(text) - 2)
		n = (int)sizeof(text) - 2;
	if (code == MSG_ERROR_XFER)
		io->xfer_errors = 1;
	/* Protocol < 30 clients only know ERROR_XFER and INFO. */
	if (io->protocol < 30 && code == MSG_ERROR)
		code = MSG_ERROR_XFER;
	if (io->protocol < 30 && code == MSG_WARNING)
		code = MSG_INFO;
	mon_log_client(code == MSG_INFO ? PR_LOG_INFO : code == MSG_WARNING ? PR_LOG_WARNING : PR_LOG_ERR, "%.*s", n,
		       text);
	text[n++] = '\n';
	io_send_msg(io, code, text, (size_t)n);
}

static void raw_read(struct io *io, void *p, size_t n)
{
	int r = conn_read_exact(io->c, p, n);

	if (r == CONN_EOF)
		io_abort(io, RERR_STREAMIO, "connection closed by client");
	if (r == CONN_TIMEOUT)
		timed_out(io);
	if (r != CONN_OK)
		io_abort(io, RERR_STREAMIO, conn_strerror(r));
}

/*
 * The client neither sent nor consumed anything for the whole timeout
 * (or a bounded wait in io_fatal ran out).  As rsyncd's sender: exit 30;
 * the client is told only if the message fits without waiting, since it
 * is not reading.
 */
static void timed_out(struct io *io)
{
	static int once;

	if (once++ || in_fatal)
		mon_exit(in_fatal ? fatal_code : RERR_TIMEOUT);
	if (!io->mux_out) {
		mon_log(PR_LOG_WARNING, "daemon handshake timeout in the setup exchange -- exiting (code %d)",
			RERR_TIMEOUT);
	} else {
		mon_log(PR_LOG_WARNING, "io timeout: the client was silent for %d s -- exiting (code %d)",
			io->timeout_s, RERR_TIMEOUT);
		io->c->deadline_ms = conn_now_ms() + 100;
		io_msg(io, MSG_ERROR, "[sender] io timeout after %d seconds -- exiting", io->timeout_s);
		io_msg(io, MSG_ERROR, "rsync error: %s (code %d) at %s [sender=prsyncd-%s]",
		       rerr_text(RERR_TIMEOUT), RERR_TIMEOUT, "io", PRSYNCD_VERSION);
	}
	mon_exit(RERR_TIMEOUT);
}

/* Who rsyncd says it is in a stream error: "sender", "/inc" added under
 * incremental recursion. */
static const char *io_who(const struct io *io)
{
	return io->inc_recurse ? "sender/inc" : "sender";
}

static uint32_t le32(const unsigned char b[4])
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/*
 * Handle one non-data frame from the client (spec part 1, 6.4) as
 * rsyncd's sender does (its read_a_msg, 3.5.0), tag by tag:
 *   INFO ERROR WARNING ERROR_XFER  up to 5,119 bytes: logged (rsyncd also
 *                                  echoes them back; we do not); longer
 *                                  ends the session, "multiplexing overflow"
 *   DELETED                        likewise bounded; nothing logged
 *   IO_ERROR SUCCESS NO_SEND       4 bytes; ERROR_EXIT 0 or 4; NOOP 0
 *   ERROR_SOCKET LOG CLIENT ERROR_UTF8 REDO STATS IO_TIMEOUT
 *                                  for a generator or a client only: any of
 *                                  them ends the session, "invalid
 *                                  multi-message TAG:LEN"
 *   anything else                  "unexpected tag"
 * always with exit 12.  A frame costs a header and its bytes, copied once;
 * what reaches the log is bounded by the session's budget (mon.c).
 */
static void client_msg(struct io *io, int code, uint32_t len)
{
	static char text[MSG_TEXT_IN_MAX + 1];
	unsigned char b[4];

	switch (code) {
	case MSG_NOOP:
		if (len != 0)
			break;
		io_send_msg(io, MSG_DATA, NULL, 0);
		return;
	case MSG_IO_ERROR:
		if (len != 4)
			break;
		raw_read(io, b, 4);
		io->client_io_error |= (int)(le32(b) & 7);
		return;
	case MSG_SUCCESS:
	case MSG_NO_SEND:
		if (len != 4)
			break;
		raw_read(io, b, 4);
		return;
	case MSG_ERROR_EXIT:
		if (len != 0 && len != 4)
			break;
		if (len == 4)
			raw_read(io, b, 4);
		io->error_exit_seen = 1;
		if (in_fatal)
			mon_exit(fatal_code); /* the acknowledgement we waited for */
		/* The client is aborting; acknowledge as stock does (>= 31). */
		if (len == 4 && io->protocol >= 31) {
			io_send_msg(io, MSG_ERROR_EXIT, NULL, 0);
		}
		mon_log(PR_LOG_WARNING, "client aborted the session (code %u)",
			len == 4 ? (unsigned)le32(b) : 0u);
		mon_exit(len == 4 ? (int)(le32(b) & 0xff) : RERR_PARTIAL);
	case MSG_INFO:
	case MSG_ERROR:
	case MSG_WARNING:
	case MSG_ERROR_XFER:
	case MSG_DELETED:
		if (len > MSG_TEXT_IN_MAX)
			io_fatal(io, RERR_STREAMIO, "multiplexing overflow %d:%u [%s]", code, (unsigned)len,
				 io_who(io));
		raw_read(io, text, len);
		text[len] = '\0';
		if (code != MSG_DELETED)
			mon_log_client(PR_LOG_INFO, "client message: %s", text);
		return;
	case MSG_ERROR_SOCKET:
	case MSG_LOG:
	case MSG_CLIENT:
	case MSG_ERROR_UTF8:
	case MSG_REDO:
	case MSG_STATS:
	case MSG_IO_TIMEOUT:
		break;
	default:
		io_fatal(io, RERR_STREAMIO, "unexpected tag %d [%s]", code, io_who(io));
	}
	io_fatal(io, RERR_STREAMIO, "invalid multi-message %d:%u [%s]", code, (unsigned)len, io_who(io));
}

void io_read(struct io *io, void *p, size_t n)
{
	unsigned char *b = p;

	if (!io->mux_in) {
		raw_read(io, p, n);
		return;
	}
	while (n > 0) {
		while (io->in_left == 0) {
			unsigned char h[4];
			uint32_t v;

			if (io->idle && conn_buffered(io->c) == 0) {
				void (*idle)(void *) = io->idle;

				io->idle = NULL; /* it writes; never re-entered */
				idle(io->idle_ctx);
				io->idle = idle;
			}
			/* Never wait for input with output still buffered. */
			io_flush(io);
			raw_read(io, h, 4);
			v = le32(h);
			if ((v >> 24) < 7)
				io_fatal(io, RERR_STREAMIO, "unexpected tag %d [%s]", (int)(v >> 24) - 7, io_who(io));
			if ((v >> 24) - 7 == MSG_DATA)
				io->in_left = v & 0xffffff;
			else
				client_msg(io, (int)(v >> 24) - 7, v & 0xffffff);
		}
		size_t take = n < io->in_left ? n : io->in_left;
		raw_read(io, b, take);
		io->in_left -= (uint32_t)take;
		b += take;
		n -= take;
	}
}

void io_set_mux_in(struct io *io, int on)
{
	io->mux_in = on && io->protocol >= 30;
}

static int io_rd(void *ctx, void *buf, size_t n)
{
	struct io *io = ctx;

	if (!io->mux_in && io->olen)
		io_flush(io);
	io_read(io, buf, n);
	return 0;
}

uint8_t io_read_byte(struct io *io)
{
	uint8_t v;

	io_rd(io, &v, 1);
	return v;
}

uint16_t io_read_shortint(struct io *io)
{
	unsigned char b[2];

	io_rd(io, b, 2);
	return (uint16_t)(b[0] | b[1] << 8);
}

int32_t io_read_int32(struct io *io)
{
	int32_t v;

	(void)wire_get_int32(io_rd, io, &v);
	return v;
}

int32_t io_read_varint(struct io *io)
{
	int32_t v;

	if (wire_get_varint(io_rd, io, &v) != WIRE_OK)
		io_fatal(io, RERR_STREAMIO, "malformed varint from client [sender]");
	return v;
}

int64_t io_read_varlong(struct io *io, int min_bytes)
{
	int64_t v;

	if (wire_get_varlong(io_rd, io, min_bytes, &v) != WIRE_OK)
		io_fatal(io, RERR_STREAMIO, "malformed varlong from client [sender]");
	return v;
}

int32_t io_read_ndx(struct io *io)
{
	int32_t v;

	if (io->protocol < 30)
		return io_read_int32(io);
	if (wire_get_ndx(&io->ndx_in, io_rd, io, &v) != WIRE_OK)
		io_fatal(io, RERR_STREAMIO, "malformed file index from client [sender]");
	return v;
}

size_t io_read_vstring(struct io *io, char *buf, size_t cap)
{
	size_t len;

	if (wire_get_vstring(io_rd, io, buf, cap, &len) != WIRE_OK)
		io_fatal(io, RERR_PROTOCOL, "over-long negotiation string from client [sender]");
	return len;
}

void io_write_byte(struct io *io, uint8_t v)
{
	io_write(io, &v, 1);
}

void io_write_shortint(struct io *io, uint16_t v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	io_write(io, b, 2);
}

void io_write_int32(struct io *io, int32_t v)
{
	unsigned char b[4];

	io_write(io, b, wire_put_int32(b, v));
}

void io_write_varint(struct io *io, int32_t v)
{
	unsigned char b[WIRE_VARINT_MAX];

	io_write(io, b, wire_put_varint(b, v));
}

void io_write_varlong(struct io *io, int64_t v, int min_bytes)
{
	unsigned char b[WIRE_VARLONG_MAX];

	io_write(io, b, wire_put_varlong(b, v, min_bytes));
}

void io_write_longint(struct io *io, int64_t v)
{
	unsigned char b[12];

	io_write(io, b, wire_put_longint(b, v));
}

void io_write_varint30(struct io *io, int32_t v)
{
	if (io->protocol < 30)
		io_write_int32(io, v);
	else
		io_write_varint(io, v);
}

void io_write_varlong30(struct io *io, int64_t v, int min)
{
	if (io->protocol < 30)
		io_write_longint(io, v);
	else
		io_write_varlong(io, v, min);
}

void io_write_ndx(struct io *io, int32_t ndx)
{
	unsigned char b[WIRE_NDX_MAX];

	if (io->protocol < 30)
		io_write_int32(io, ndx);
	else
		io_write(io, b, wire_put_ndx(&io->ndx_out, b, ndx));
}

void io_write_vstring(struct io *io, const char *s)
{
	unsigned char h[2];
	size_t len = strlen(s);

	if (len > 0x7fff)
		len = 0x7fff;
	io_write(io, h, wire_put_vstring_hdr(h, len));
	io_write(io, s, len);
}

const char *rerr_text(int code)
{
	switch (code) {
	case RERR_SYNTAX: return "syntax or usage error";
	case RERR_PROTOCOL: return "protocol incompatibility";
	case RERR_FILESELECT: return "errors selecting input/output files, dirs";
	case RERR_UNSUPPORTED: return "requested action not supported";
	case RERR_STARTCLIENT: return "error starting client-server protocol";
	case RERR_SOCKETIO: return "error in socket IO";
	case RERR_FILEIO: return "error in file IO";
	case RERR_STREAMIO: return "error in rsync protocol data stream";
	case RERR_MESSAGEIO: return "errors with program diagnostics";
	case RERR_IPC: return "error in IPC code";
	case RERR_MALLOC: return "error allocating core memory buffers";
	case RERR_PARTIAL: return "some files/attrs were not transferred (see previous errors)";
	case RERR_VANISHED: return "some files vanished before they could be transferred";
	case RERR_TIMEOUT: return "timeout in data send/receive";
	}
	return "unexplained error";
}

void io_abort(struct io *io, int code, const char *why)
{
	(void)io;
	mon_log(PR_LOG_WARNING, "session ended: %s (code %d)", why, code);
	mon_exit(code);
}

void io_fatal(struct io *io, int code, const char *fmt, ...)
{
	char text[IO_MSG_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* once in the log, as rsyncd: io_msg() logs what it sends */
	if (in_fatal || !io->mux_out) {
		mon_log(PR_LOG_ERR, "%s", text);
		mon_exit(code);
	}
	in_fatal = 1;
	fatal_code = code;
	io_msg(io, MSG_ERROR, "%s", text);
	io_msg(io, MSG_ERROR, "rsync error: %s (code %d) at %s [sender=prsyncd-%s]",
	       rerr_text(code), code, "sender", PRSYNCD_VERSION);
	if (io->protocol >= 31 && code != RERR_STREAMIO && code != RERR_SOCKETIO &&
	    code != RERR_TIMEOUT) {
		io_send_int_msg(io, MSG_ERROR_EXIT, code);
		/* Wait (briefly, bounded) for the client's acknowledgement so
		 * it sees our messages before the connection closes. */
		io->c->deadline_ms = conn_now_ms() + 5000;
		for (int i = 0; i < 100000 && !io->error_exit_seen; i++) {
			unsigned char junk[1];
			io_read(io, junk, 1);
		}
	}
	mon_exit(code);
}
