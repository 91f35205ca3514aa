/* SPDX-License-Identifier: ISC */
/*
 * -A and -X on the sending side (protocol 30 and later): what the monitor
 * reads raw (msg.h, XATTR) is parsed here, turned into rsync's ACL and
 * xattr lists, de-duplicated for the whole session as rsync's sender does
 * (a list sent once is referred to by its index afterwards), and encoded
 * after each file-list entry.  Large values travel as an MD5 sum first;
 * the receiver asks for the ones it lacks with ITEM_REPORT_XATTR, and
 * they are read again then.
 */
#ifndef PRSYNCD_XATTR_H
#define PRSYNCD_XATTR_H

#include <stddef.h>
#include <stdint.h>

struct sess;
struct flenc;

#define XA_FULL_MAX 32u       /* longer values travel as their sum first */
#define XA_SUM_LEN 16u        /* MD5, what protocol 30+ uses for them */

/* What an entry refers to: indexes + 1 into the session's tables, 0 =
 * none (an empty list). */
struct xa_ref {
	uint32_t xattr, acl, dacl;
};

/* One parsed record of the monitor's answer. */
struct xa_rec {
	const char *name;          /* not NUL-terminated */
	size_t name_len;           /* 1..255 */
	const unsigned char *value;
	size_t value_len;          /* <= PR_XATTR_VALUE_MAX */
};

/*
 * Walk `count` records in buf (len bytes).  fn returns 0 to go on.
 * Returns 0, or -1 if the bytes are not exactly count well-formed records
 * (a name of 1..255 bytes without NUL, a value within bounds).
 */
int xa_parse(const unsigned char *buf, size_t len, uint32_t count,
	     int (*fn)(void *ctx, const struct xa_rec *r), void *ctx);

/* A POSIX ACL as rsync sends it: the four objects (XA_NO_ENTRY when
 * absent) and the named entries (id, rwx bits | XA_NAME_IS_USER). */
#define XA_NO_ENTRY 0x80u
#define XA_NAME_IS_USER 0x80000000u
#define XA_ACL_NAMES_MAX 8190u  /* what a 64 KiB attribute can hold */

struct xa_acl {
	uint8_t user_obj, group_obj, mask_obj, other_obj;
	uint32_t n;
	struct xa_ida { uint32_t id, access; } *ida;
};

/* Parse a system.posix_acl_* value (Linux's version 2 format) into a
 * (names allocated; xa_acl_free).  -1 if malformed. */
int xa_acl_parse(const unsigned char *v, size_t len, struct xa_acl *a);
void xa_acl_free(struct xa_acl *a);

/* ---- the session ---------------------------------------------------------- */

/* Set up the tables (after the filter list: the client's xattr rules). */
void xa_init(struct sess *s);

/*
 * A new entry's ACL and attributes, read from the monitor at module path
 * mpath and interned.  how: XA_OWN, mpath's own (a final link not
 * followed); XA_REFERENT, a symlink sent as its referent (-L, -k,
 * --copy-unsafe-links): its ACL is the referent's, its attributes the
 * link's own (none can be read here); XA_THROUGH, a "link/" argument,
 * which stock reads as "link/.": both the referent's.  -1 after rsync's
 * message (the entry is then left out, as stock leaves it out).
 */
enum { XA_OWN = 0, XA_REFERENT = 1, XA_THROUGH = 2 };
int xa_fetch(struct sess *s, const char *mpath, uint32_t mode, int how, struct xa_ref *ref);

/* After an entry: its ACLs (-A; not for symlinks) and attributes (-X). */
void xa_send(struct sess *s, struct flenc *enc, uint32_t mode, const struct xa_ref *ref);

/* The named uids (kind 1) or gids (kind 2) of an entry's ACLs, for the
 * id lists of a full file list. */
void xa_acl_ids(struct sess *s, const struct xa_ref *ref, int kind, void (*fn)(void *ctx, uint32_t id),
		void *ctx);

/* ITEM_REPORT_XATTR: read the receiver's wanted abbreviated values of an
 * entry, then, when the request is echoed, send them (read again). */
void xa_recv_request(struct sess *s, const struct xa_ref *ref, const char *name);
void xa_send_request(struct sess *s, const struct xa_ref *ref, const char *mpath);

#endif
