/* SPDX-License-Identifier: ISC */
/*
 * The names table: the answers of the name service to the names the
 * configuration's "hosts allow" / "hosts deny" lists ask about, looked up
 * by the listener once per configuration generation and refreshed on a
 * schedule (src/listener/names.c), and handed to every session as a
 * sealed memfd (fd 7, PR_FD_NAMES).  A session asks nothing of the name
 * service for these lists: it reads the table.
 *
 * Two kinds of names:
 *   NT_HOST   a plain host name of a list whose module has "forward
 *             lookup" on: its IPv4 addresses (rsyncd asks gethostbyname)
 *   NT_IFACE  an interface named in the scope of a link-local address
 *             (fe80::1%eth0): its index, or that there is none
 * Each entry is resolved (with its answer), not found, failed, or not
 * known yet.  Anything but resolved is a lookup that did not succeed: a
 * deny list counts the token as matching, an allow list does not admit
 * through it (hosts.h), and the session logs it.
 *
 * Layout (native byte order: writer and reader are one build):
 *
 *   header   8 x u32: magic, version, total, entries, addresses,
 *            strings_len, flags, 0
 *   entries  entries x { kind, status, name_off, name_len, value, count }
 *            (u32 each), sorted by kind, then name (strcmp), no two equal
 *   addrs    addresses x u32 (IPv4, network order)
 *   strings  strings_len bytes: each entry's name and its NUL, in entry
 *            order, no gap
 * A resolved host's addresses are count (1..NAMETAB_ADDRS_MAX) words from
 * index value, the hosts' runs in entry order with no gap; a resolved
 * interface's index is value (not 0).  Every other entry has value and
 * count 0.  The reader checks every rule in one pass; a table that breaks
 * one is refused whole.
 */
#ifndef PRSYNCD_NAMETAB_H
#define PRSYNCD_NAMETAB_H

#include <stddef.h>
#include <stdint.h>

#define NAMETAB_MAGIC 0x50524e54u  /* "PRNT" */
#define NAMETAB_VERSION 1u
#define NAMETAB_HDR_WORDS 8
#define NAMETAB_ENTRY_WORDS 6
#define NAMETAB_NAME_MAX 255       /* a list's token (HOSTS_TOKEN_MAX) */
/* Addresses kept per host name: a name with more is recorded as failed
 * (it then refuses in a deny list), never cut short. */
#define NAMETAB_ADDRS_MAX 1024
#define NAMETAB_MAX (256u << 20)   /* bytes */

enum { NT_HOST = 1, NT_IFACE = 2 };
enum { NT_RESOLVED = 1, NT_NOTFOUND = 2, NT_FAILED = 3, NT_UNKNOWN = 4 };
/* Header flags: a module's lists or "auth users" ask questions that
 * depend on the client (@netgroup, @group): sessions start their
 * name-service child (src/monitor/nschild.c). */
#define NT_FLAG_CLIENT_QUERIES 1u

/* One entry, for the writer (sorted by kind, then name). */
struct nametab_item {
	uint32_t kind, status;
	const char *name;
	const uint32_t *addrs;  /* NT_HOST resolved: naddr addresses */
	uint32_t naddr;
	uint32_t ifindex;       /* NT_IFACE resolved */
};

/* A validated table: pointers into the caller's buffer or mapping. */
struct nametab {
	const uint32_t *entries;  /* n x NAMETAB_ENTRY_WORDS */
	size_t n;
	const uint32_t *addrs;
	size_t naddr;
	const char *strings;
	uint32_t flags;
};

/* An entry found: its status and answer (addrs/naddr for a host, ifindex
 * for an interface). */
struct nametab_answer {
	uint32_t status;
	const uint32_t *addrs;
	uint32_t naddr;
	uint32_t ifindex;
};

/* Listener: serialise items (n of them, sorted) into a new buffer
 * (free()); 0, or -1 with the reason in err. */
int nametab_build(const struct nametab_item *items, size_t n, uint32_t flags, unsigned char **out,
		  size_t *outlen, char *err, size_t errlen);

/* Check a table and describe it in *t.  0, or -1 with the reason. */
int nametab_parse(const void *buf, size_t len, struct nametab *t, char *err, size_t errlen);

/* Session monitor: map the sealed table on fd read-only for the process's
 * life and check it.  0, or -1 with the reason. */
int nametab_open(int fd, struct nametab *t, char *err, size_t errlen);

/* The entry of (kind, name): 1 with *a filled, 0 if the table has none. */
int nametab_find(const struct nametab *t, uint32_t kind, const char *name, struct nametab_answer *a);

#endif
