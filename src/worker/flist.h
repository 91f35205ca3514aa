/*
 * The file list: built from the monitor's answers, sorted exactly as the
 * client sorts it, and encoded per protocol (spec part 2, sections 4-5).
 */
#ifndef PRSYNCD_FLIST_H
#define PRSYNCD_FLIST_H

#include <stddef.h>
#include <stdint.h>

#include "csum.h"
#include "msg.h"
#include "sess.h"

/* XMIT_* flag bits (spec part 2, 4.1). */
#define XMIT_TOP_DIR 0x0001
#define XMIT_SAME_MODE 0x0002
#define XMIT_SAME_RDEV_PRE28 0x0004
#define XMIT_EXTENDED_FLAGS 0x0004
#define XMIT_SAME_UID 0x0008
#define XMIT_SAME_GID 0x0010
#define XMIT_SAME_NAME 0x0020
#define XMIT_LONG_NAME 0x0040
#define XMIT_SAME_TIME 0x0080
#define XMIT_SAME_RDEV_MAJOR 0x0100
#define XMIT_NO_CONTENT_DIR 0x0100
#define XMIT_HLINKED 0x0200
#define XMIT_SAME_DEV_PRE30 0x0400
#define XMIT_USER_NAME_FOLLOWS 0x0400
#define XMIT_RDEV_MINOR_8_PRE30 0x0800
#define XMIT_GROUP_NAME_FOLLOWS 0x0800
#define XMIT_HLINK_FIRST 0x1000
#define XMIT_IO_ERROR_ENDLIST 0x1000
#define XMIT_MOD_NSEC 0x2000
#define XMIT_SAME_ATIME 0x4000

/* Directory roles that decide the directory flags. */
enum dir_role { DIR_CONTENT_TOP = 1, DIR_CONTENT = 2, DIR_NO_CONTENT = 3, DIR_IMPLIED = 4 };

struct fentry {
	char *name;            /* as the client sees it; "." for a dot-dir */
	uint32_t root;         /* index of the transfer root (module path prefix) */
	uint8_t dir_role;      /* directories only */
	uint8_t sent;          /* data sent once: a later request is a redo */
	uint8_t hl_first;      /* first member of a hard-link group */
	int32_t hl_ref;        /* index of the group's first member, or -1 */
	struct pr_stat st;
	char *link;            /* symlink target (with -l) */
	unsigned char *sum;    /* -c sum */
};

struct flist {
	struct fentry *e;
	size_t n, cap;
	char **roots;
	size_t nroots, roots_cap;
};

/* The module path of an entry (for OPEN), into buf. -1 if too long. */
int flist_module_path(const struct flist *fl, const struct fentry *f, char *buf, size_t cap);

/* Build, sort and send the file list for the session's arguments.
 * Returns the number of entries sent. */
size_t flist_send(struct sess *s, struct flist *fl);

void flist_free(struct flist *fl);

/* Exposed for the unit tests: stock's comparison for a protocol. */
int flist_cmp(const struct fentry *a, const struct fentry *b, int protocol);

#endif
