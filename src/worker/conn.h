/* SPDX-License-Identifier: ISC */
/*
 * The client connection as the worker sees it: a socket with a read buffer,
 * a deadline for the handshake, and bounded line reads.  Every read from the
 * network in the worker goes through here.
 */
#ifndef PRSYNCD_CONN_H
#define PRSYNCD_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "pace.h"

#define CONN_RBUF (256 * 1024)

struct conn {
	int fd;
	int64_t deadline_ms;   /* absolute CLOCK_MONOTONIC ms; 0 = none */
	int timeout_ms;        /* per-read idle timeout; 0 = none */
	int keepalive_ms;      /* call keepalive() after this long waiting to read; 0 = never */
	void (*keepalive)(void *ctx);
	void *keepalive_ctx;
	size_t rpos, rlen;
	unsigned char rbuf[CONN_RBUF];
	int eof;               /* the peer closed its side */
	int read_errno;        /* the errno of the read that failed (CONN_IOERR) */
	uint64_t total_read;
	uint64_t total_written;
	struct pace pace;      /* --bwlimit: every write is paced; off by default */
};

enum conn_err {
	CONN_OK = 0,
	CONN_EOF = -1,      /* peer closed */
	CONN_TIMEOUT = -2,  /* deadline or idle timeout passed */
	CONN_IOERR = -3,    /* read/write failed */
	CONN_TOOLONG = -4,  /* line longer than the caller's buffer */
	CONN_BADBYTE = -5,  /* NUL inside a text line */
};

void conn_init(struct conn *c, int fd);
int64_t conn_now_ms(void);
/* Set an absolute deadline `secs` from now (0 clears it). */
void conn_set_deadline(struct conn *c, unsigned secs);

/*
 * Read one text line terminated by '\n' into buf (cap bytes including the
 * NUL); a trailing '\r' is removed.  Returns the length or a conn_err.
 */
int conn_read_line(struct conn *c, char *buf, size_t cap);

/* Read exactly n bytes. Returns 0 or a conn_err. */
int conn_read_exact(struct conn *c, void *buf, size_t n);

/* Bytes already buffered and readable without waiting. */
size_t conn_buffered(const struct conn *c);
/* 1 if a read would not wait: bytes buffered, or the socket is readable
 * (or closed, or failed: the read then reports it). */
int conn_readable(struct conn *c);

/* Write all n bytes. While the socket is full, incoming bytes are pulled
 * into the read buffer so the peer is never blocked writing to us.
 * Returns 0 or a conn_err. */
int conn_write(struct conn *c, const void *buf, size_t n);
/* The same for iov[0..cnt) (consumed as it goes). */
struct iovec;
int conn_writev(struct conn *c, struct iovec *iov, int cnt);
int conn_write_str(struct conn *c, const char *s);

/* Pace every later write at kib KiB/s (0: no limit), as rsyncd's --bwlimit. */
void conn_set_bwlimit(struct conn *c, uint32_t kib);

const char *conn_strerror(int e);

#endif
