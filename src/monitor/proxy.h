/* SPDX-License-Identifier: ISC */
/*
 * The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and
 * 2), read by the session monitor before the worker exists, as rsyncd's
 * "proxy protocol" does.  The header is network input read while
 * privileged: this file reads exactly its bytes and not one more, under a
 * deadline and a size bound, and interprets only the command, the family
 * and the source address (TLVs are skipped).
 */
#ifndef PRSYNCD_PROXY_H
#define PRSYNCD_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"

#define PROXY_V1_MAX 107        /* the longest version 1 line, CRLF included */
#define PROXY_V2_LEN_MAX 512    /* declared length after the 16 fixed bytes */
#define PROXY_HEADER_MAX (16 + PROXY_V2_LEN_MAX)

struct proxy_addr {
	int proxied;              /* 1: ss is the client's address; 0: keep the socket peer
				   * (v1 UNKNOWN, v2 LOCAL, or a family without an IP address) */
	struct sockaddr_storage ss;
	socklen_t len;
};

/* The bytes the header starting with buf[0..have) certainly still needs:
 * > 0, 0 when it is complete, -1 (*why) when it cannot be a header. */
int proxy_need(const uint8_t *buf, size_t have, const char **why);

/* Parse a complete header of len bytes (proxy_need() said 0).  0, or -1
 * with a static reason in *why.  Pure: no I/O, no allocation. */
int proxy_parse(const uint8_t *buf, size_t len, struct proxy_addr *out, const char **why);

/* Read one header from fd within timeout_ms and parse it.  0, or -1 (*why). */
int proxy_read_header(int fd, int timeout_ms, struct proxy_addr *out, const char **why);

/*
 * The session's start under "proxy protocol = yes": the socket peer must
 * be in "proxy protocol hosts", then its header gives the client's
 * address, which replaces *peer (and *proxied = 1) unless the header
 * carries none.  -1 after logging why the connection is dropped.
 */
int proxy_start(const struct cfg *cfg, int fd, struct sockaddr_storage *peer, socklen_t *peerlen,
		int *proxied);

#endif
