/* SPDX-License-Identifier: ISC */
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
#include "xattr.h"

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

/* What every entry keeps of the monitor's pr_stat, and the two fields of
 * its own every entry needs, packed so that an entry is 48 bytes (a
 * million-entry list without incremental recursion is what a session
 * holds at once: rsyncd's own is about 75 bytes an entry). */
struct fstat {
	uint64_t size;
	int64_t mtime;
	uint32_t uid, gid;
	uint32_t mtime_nsec : 30;
	uint32_t sent : 1;     /* data sent once: a later request is a redo */
	uint16_t mode;         /* type and permission bits (S_IFMT | 07777 fit) */
	uint16_t root;         /* index of the transfer root, or FE_ROOT_EXT (fe_root()) */
};

/* A transfer root index that does not fit st.root (a wildcard argument
 * can expand to any number of roots) lives in the entry's fext.  The
 * test build moves the line down to 3, so that the pulls of several
 * arguments in the integration tests take that path too. */
#ifdef PRSYNCD_TEST_HOOKS
#define FE_ROOT_EXT 3u
#else
#define FE_ROOT_EXT 0xffffu
#endif

/* What few entries need (directories, hard-link candidates, devices,
 * symlinks, -c sums, access times for -U): kept apart so a large list
 * stays small. */
struct fext {
	char *link;            /* symlink target */
	unsigned char *sum;    /* -c sum */
	uint64_t dev, ino, rdev;
	int64_t atime;         /* -U (keep_atime): every non-directory has its fext */
	uint32_t nlink;
	uint32_t root;         /* the transfer root when st.root is FE_ROOT_EXT */
	uint16_t depth;        /* directories: levels below the source argument's top (filters.h) */
	uint8_t dir_role;      /* directories (which always have their fext) */
	struct xa_ref xa;      /* -A, -X: its lists (xattr.h) */
};

/* One list entry: 48 bytes; names and fext live in the list's arena. */
struct fentry {
	char *name;            /* as the client sees it; "." for a dot-dir */
	struct fext *x;        /* NULL: no link or sum, dev/ino/rdev 0, one link */
	struct fstat st;
};

/* The entry's transfer root index (into struct flroots). */
static inline uint32_t fe_root(const struct fentry *f)
{
	return f->st.root != FE_ROOT_EXT ? f->st.root : f->x->root;
}

/* Transfer roots (module path prefixes), shared by all lists of a session. */
struct flroots {
	char **v;
	unsigned char *slash;  /* -R without "/./": rsync's names start with '/' (links.h) */
	size_t n, cap;
};

/* Names, link targets and sums of a list's entries live in chunks freed
 * with the list: no per-string allocation overhead. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	unsigned char data[];
};

/* One file list: the first, or one directory's sub-list. */
struct flist {
	struct fentry *e;
	size_t n, cap;
	size_t populated;      /* e[0..populated) has its pages (next_slot()) */
	struct arena_chunk *arena;
	int keep_ino;          /* protocol 27 -H: every regular file carries dev/ino */
	int keep_atime;        /* -U: every non-directory carries its atime */
	int32_t ndx_start;     /* file index of e[0] */
	const struct flroots *roots;
	struct fentry dir;     /* a sub-list's own directory (index ndx_start - 1), for
				* the transfer log; name NULL if none, freed with the list */
	/* a sub-list's directory (incremental recursion), which the index
	 * ndx_start - 1 names: its module path and ACL/xattr lists */
	char *dir_mpath;
	struct xa_ref dir_xa;
	struct fext dir_x;     /* dir's fext when its root index needs one */
};

/* A directory whose sub-list is still to be sent (incremental recursion). */
struct pdir {
	char *name;
	uint32_t root;
	uint8_t dir_role;
	uint16_t depth;
	uint64_t dev;
	int32_t dir_ndx;
	struct fstat st;       /* for the sub-list's dir entry (transfer log) */
	struct xa_ref xa;      /* the directory's ACL/xattr lists */
};

struct flenc; /* encoder state shared by all lists (prev values, hard links, names) */

/*
 * All file lists of a session.  Without incremental recursion there is one
 * list, kept to the end.  With it, lists are sent as the transfer goes on,
 * in depth-first pre-order, and each NDX_DONE from the client retires the
 * oldest: memory follows the width of the tree, not its size.
 */
struct flset {
	struct sess *s;
	struct flroots roots;
	struct flenc *enc;
	struct flist **held;   /* sent lists the client still holds, oldest first */
	size_t nheld, held_cap;
	size_t held_entries;
	struct pdir *pending;  /* stack: the next directory to send is on top */
	size_t npending, pending_cap;
	struct flist extras;   /* -R names below the top level, until their parent's list */
	struct pdir *also;     /* same-named directories of other roots: listed together */
	size_t nalso, also_cap;
	size_t extras_sorted;
	int32_t next_ndx;      /* ndx_start of the next list */
	int32_t ndirs;         /* directories announced (the client's dir_ndx counter) */
	int eof_sent;
	int last_io_error;
};

/* The module path of an entry (for OPEN), into buf. -1 if too long. */
int flist_module_path(const struct flist *fl, const struct fentry *f, char *buf, size_t cap);

struct flset *flset_new(struct sess *s);
void flset_free(struct flset *set);

/* Build, sort and send the first file list (with incremental recursion,
 * also the first sub-lists).  Returns the number of entries it holds. */
size_t flset_send_first(struct flset *set);

/* Incremental recursion: send sub-lists until `want` entries are held or
 * every list is out (then NDX_FLIST_EOF). */
void flset_fill(struct flset *set, size_t want);

/* Incremental recursion, while waiting for the client: send more lists as
 * long as it has nothing for us (bounded). */
void flset_idle(void *set);

/* The entry for a file index, or NULL.  *fl gets its list; an index just
 * below a list's start names the list's directory (*placeholder = 1). */
struct fentry *flset_find(struct flset *set, int32_t ndx, struct flist **fl, int *placeholder);

/* The directory a placeholder index names (the first list's "."), or NULL. */
const struct fentry *flset_list_dir(const struct flist *fl);

/* NDX_DONE with incremental recursion: drop the oldest list. */
void flset_retire(struct flset *set);

/* Exposed for the unit tests: stock's comparison for a protocol. */
int flist_cmp(const struct fentry *a, const struct fentry *b, int protocol);

#endif
