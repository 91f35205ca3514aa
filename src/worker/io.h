/* SPDX-License-Identifier: ISC */
/*
 * The rsync data stream over the client connection: multiplexed output
 * (MSG_DATA frames and out-of-band messages), demultiplexed input for
 * protocol >= 30, the integer codecs on top, keepalives, and the error
 * paths that end a session.
 */
#ifndef PRSYNCD_IO_H
#define PRSYNCD_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "wire.h"

/* Message codes on the socket (spec part 1, 6.3). */
enum {
	MSG_DATA = 0, MSG_ERROR_XFER = 1, MSG_INFO = 2, MSG_ERROR = 3, MSG_WARNING = 4,
	/* between an rsync's own processes only; from a client, an error */
	MSG_ERROR_SOCKET = 5, MSG_LOG = 6, MSG_CLIENT = 7, MSG_ERROR_UTF8 = 8, MSG_REDO = 9,
	MSG_STATS = 10,
	MSG_IO_ERROR = 22, MSG_IO_TIMEOUT = 33, MSG_NOOP = 42, MSG_ERROR_EXIT = 86,
	MSG_SUCCESS = 100, MSG_DELETED = 101, MSG_NO_SEND = 102,
};

/* rsync exit codes used by the sender. */
enum {
	RERR_OK = 0, RERR_SYNTAX = 1, RERR_PROTOCOL = 2, RERR_FILESELECT = 3,
	RERR_UNSUPPORTED = 4, RERR_STARTCLIENT = 5, RERR_SOCKETIO = 10, RERR_FILEIO = 11,
	RERR_STREAMIO = 12, RERR_MESSAGEIO = 13, RERR_IPC = 14, RERR_SIGNAL = 20,
	RERR_MALLOC = 22, RERR_PARTIAL = 23, RERR_VANISHED = 24, RERR_TIMEOUT = 30,
};

#define IO_MSG_TEXT_MAX 5120   /* with its newline < 5120: stock clients abort at 5120 bytes, and
				* stock sends up to that (a 4095-byte name in a message) */

struct io {
	struct conn *c;
	int protocol;
	int mux_out, mux_in;
	struct ndx_state ndx_in, ndx_out;
	/* output: one MSG_DATA frame being filled; header space in front */
	unsigned char obuf[4 + 32768];
	size_t olen;                 /* payload bytes in obuf */
	/* input: bytes left in the current MSG_DATA frame (mux_in only) */
	uint32_t in_left;
	int client_io_error;         /* OR of MSG_IO_ERROR values from the client */
	int error_exit_seen;         /* the client sent MSG_ERROR_EXIT */
	int xfer_errors;             /* an MSG_ERROR_XFER was sent (stock's got_xfer_error) */
	int inc_recurse;             /* for the "[sender/inc]" of stream errors */
	int timeout_s;               /* --timeout / module timeout; 0 none */
	/* called before waiting for a client frame (incremental recursion
	 * sends file lists then: the client may be waiting for them) */
	void (*idle)(void *ctx);
	void *idle_ctx;
	/* statistics (spec part 1, 8.5): counted from the start of multiplexing */
	uint64_t stat_read_base, stat_written_base;
	uint64_t data_out;           /* bytes given to io_write (no frame headers): %b */
};

void io_init(struct io *io, struct conn *c, int protocol);
/* Turn on multiplexed output (after the seed) and input (protocol >= 30). */
void io_start_mux(struct io *io);
/* Apply an I/O timeout: idle reads fail after it, keepalives every half. */
void io_set_timeout(struct io *io, int seconds);

/* Raw (pre-multiplex) writes and reads, for the setup exchange. */
void io_write_raw(struct io *io, const void *p, size_t n);

/* Data stream output (buffered into MSG_DATA frames once mux is on). */
void io_write(struct io *io, const void *p, size_t n);
void io_write_byte(struct io *io, uint8_t v);
void io_write_shortint(struct io *io, uint16_t v);
void io_write_int32(struct io *io, int32_t v);
void io_write_varint(struct io *io, int32_t v);
void io_write_varlong(struct io *io, int64_t v, int min_bytes);
void io_write_varint30(struct io *io, int32_t v);          /* int32 below 30 */
void io_write_varlong30(struct io *io, int64_t v, int min);/* longint below 30 */
void io_write_longint(struct io *io, int64_t v);
void io_write_ndx(struct io *io, int32_t ndx);              /* int32 below 30 */
void io_write_vstring(struct io *io, const char *s);
/* Literal data in the plain token stream: pieces of at most chunk bytes,
 * each preceded by its length (spec part 2, 11.1); large spans are written
 * without copying them. */
void io_write_literal(struct io *io, const unsigned char *p, size_t n, size_t chunk);
void io_flush(struct io *io);

/* An out-of-band message; flushes pending data first. */
void io_send_msg(struct io *io, int code, const void *p, size_t n);
/* A text message (newline appended), mapped to what the protocol allows. */
void io_msg(struct io *io, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void io_send_int_msg(struct io *io, int code, int32_t v);

/* Data stream input.  Every read failure ends the session (io_fatal). */
void io_read(struct io *io, void *p, size_t n);
uint8_t io_read_byte(struct io *io);
uint16_t io_read_shortint(struct io *io);
int32_t io_read_int32(struct io *io);
int32_t io_read_varint(struct io *io);
int64_t io_read_varlong(struct io *io, int min_bytes);
int32_t io_read_ndx(struct io *io);
/* vstring into buf (cap bytes incl. NUL); fatal if too long. */
size_t io_read_vstring(struct io *io, char *buf, size_t cap);

/* Raw read for the protocol-30 files-from exception: mux_in off meanwhile. */
void io_set_mux_in(struct io *io, int on);

/* Bytes read/written on the socket since multiplexing began (stats). */
uint64_t io_stat_read(const struct io *io);
uint64_t io_stat_written(const struct io *io);

/*
 * End the session with an rsync error: the message(s) to the client as
 * stock does it (MSG_ERROR text, the "rsync error: ..." line, and for
 * protocol >= 31 MSG_ERROR_EXIT followed by waiting briefly for the ack),
 * a log record, then exit with `code`.
 */
__attribute__((noreturn, format(printf, 3, 4)))
void io_fatal(struct io *io, int code, const char *fmt, ...);

/* End without telling the client (the connection itself failed). */
__attribute__((noreturn)) void io_abort(struct io *io, int code, const char *why);

const char *rerr_text(int code);

#endif
