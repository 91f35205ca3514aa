/* SPDX-License-Identifier: ISC */
/*
 * The session<->listener channel: one SOCK_SEQPACKET socketpair per session,
 * on which the session monitor asks the listener for connection slots.  The
 * listener sees every session, so it alone can count them; it treats each
 * session as untrusted (a session monitor runs as root until module
 * selection, but a bug in it must not corrupt the listener's counts).
 *
 * Records are fixed-size (struct lchan_msg, LCHAN_MSG_SIZE bytes): a header
 * and one body; bytes past the body of the record's type must be zero.
 * Both ends validate every record with lchan_check() (magic, known type,
 * direction, sequence, every field), and no record carries a descriptor.
 *
 *   type          dir   body            fields
 *   LCHAN_HOST    S->L  lchan_host      family 4|6, proxied 0|1, addr
 *   LCHAN_SLOT    S->L  lchan_slot      module index < snapshot's count
 *   LCHAN_ANSWER  L->S  lchan_answer    request type, status, limit
 *
 * A session sends HOST once, at start, with the address to count (the
 * socket's peer, or later a PROXY header's address), then at most one
 * SLOT, at module selection; each gets one ANSWER.  Anything else closes
 * the channel from the listener's side.  Slots are released when the
 * listener reaps the session, never by a message.
 */
#ifndef PRSYNCD_LCHAN_H
#define PRSYNCD_LCHAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define LCHAN_MAGIC 0x50524c31u /* "PRL1" */

enum lchan_type {
	LCHAN_HOST = 1,
	LCHAN_SLOT = 2,
	LCHAN_ANSWER = 64,
};

enum lchan_dir { LCHAN_TO_LISTENER = 1, LCHAN_TO_SESSION = 2 };

enum lchan_status {
	LCHAN_OK = 1,      /* counted */
	LCHAN_FULL = 2,    /* the limit is reached; `limit` says which */
	LCHAN_REFUSED = 3, /* the request was not acceptable (logged by the listener) */
};

struct lchan_host {
	uint8_t family;    /* 4 or 6 */
	uint8_t proxied;   /* 0: the socket's own peer; 1: from a PROXY header */
	uint8_t zero[2];
	uint8_t addr[16];  /* IPv4 in the first 4 bytes, the rest zero */
};

struct lchan_slot {
	uint32_t module;   /* index into the session's configuration snapshot */
};

struct lchan_answer {
	uint16_t request;  /* the type answered */
	uint16_t status;   /* enum lchan_status */
	int32_t limit;     /* the limit applied (FULL), else 0 */
};

struct lchan_msg {
	uint32_t magic;
	uint16_t type;
	uint16_t zero;
	uint32_t seq;      /* per direction, first 1 */
	union {
		struct lchan_host host;
		struct lchan_slot slot;
		struct lchan_answer answer;
		uint8_t raw[20];
	} u;
};

#define LCHAN_MSG_SIZE sizeof(struct lchan_msg)
_Static_assert(sizeof(struct lchan_msg) == 32, "lchan record size");

/* One end: the descriptor and the sequence numbers of both directions. */
struct lchan {
	int fd;
	uint32_t sent, rcvd;
};

void lchan_init(struct lchan *c, int fd);

/* Check a received record of n bytes arriving in direction dir.  0, or -1
 * with a static reason in *why.  nmodules bounds LCHAN_SLOT. */
int lchan_check(const struct lchan_msg *m, size_t n, enum lchan_dir dir, uint32_t seq,
		size_t nmodules, const char **why);

/* Send: fills magic and seq.  0, or -1 with errno. */
int lchan_send(struct lchan *c, struct lchan_msg *m);

/* Receive one record (raw, unchecked) without blocking; any descriptor is
 * closed and reported as invalid.  Returns bytes, 0 at hang-up, -1 on error
 * (errno EAGAIN: nothing there), -2 invalid framing (*why). */
ssize_t lchan_recv(struct lchan *c, struct lchan_msg *m, const char **why);

/* Session side: send a request and wait (at most timeout_ms) for its
 * checked answer.  0 with *ans filled, or -1 with *why. */
int lchan_ask(struct lchan *c, struct lchan_msg *req, struct lchan_answer *ans,
	      int timeout_ms, const char **why);

/* The host key of a socket address: family 4/6 and 16 bytes, IPv4-mapped
 * IPv6 addresses folded to IPv4.  -1 for other families. */
int lchan_addr_key(const struct sockaddr *sa, socklen_t len, uint8_t *family, uint8_t addr[16]);

#endif
