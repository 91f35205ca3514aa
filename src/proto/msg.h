/* SPDX-License-Identifier: ISC */
/*
 * Messages between the session monitor and the worker.
 *
 * Every message is one SOCK_SEQPACKET record: a fixed header and a body
 * whose meaning depends on the type.  Each type has one exact body size
 * (its row in msg.c); the record is the header and exactly that many body
 * bytes, so a small answer does not travel as 8 KiB.  A reader receives
 * into a whole struct pr_msg (PR_MSG_SIZE, the largest record), so it never
 * trusts a length to size a buffer: a record whose length is not the
 * header's plus the body length the header states, or whose body length is
 * not its type's, is refused, and so is one longer than PR_MSG_SIZE (the
 * kernel reports the truncation).  A peer cannot smuggle bytes in the tail
 * of the union: they are never sent, and never read.
 *
 * Both sides validate every message they receive; there is one validator
 * per type, in msg_w2m.c (worker to monitor) or msg_m2w.c (monitor to
 * worker), and it checks every field.
 *
 * Adding a message type: add it to enum pr_msg_type, add its body struct
 * and union member, add its row to the table in msg.c (size, direction,
 * descriptors) and its validator to its direction's file (msg_w2m.c or
 * msg_m2w.c), add its row to the monitor's dispatch table if the worker
 * sends it, and add a hostile test in tests/unit/test_msg.c.
 */
#ifndef PRSYNCD_MSG_H
#define PRSYNCD_MSG_H

#include <stddef.h>
#include <stdint.h>

#define PR_MSG_SIZE 8192u
#define PR_MSG_MAGIC 0x50524d31u /* "PRM1": catches a peer of another build */

/* Counted strings: a length and a fixed buffer, NUL-terminated, no interior NUL. */
#define PR_NAME_MAX 256u    /* module names, user names */
#define PR_TEXT_MAX 1024u   /* log records, error lines */
#define PR_PATH_MAX 1024u   /* chroot directory and similar configured paths */
#define PR_RELPATH_MAX 4096u /* a path inside a module, as rsync bounds names */

struct pr_str_name {
	uint16_t len;        /* bytes before the terminating NUL */
	char s[PR_NAME_MAX];
};

struct pr_str_text {
	uint16_t len;
	char s[PR_TEXT_MAX];
};

struct pr_str_path {
	uint16_t len;
	char s[PR_PATH_MAX];
};

/* A path relative to the module root: "" is the root itself; otherwise
 * components joined by single '/', none empty, "." or "..", no leading or
 * trailing '/'.  Checked by pr_relpath_ok() on both sides. */
struct pr_str_relpath {
	uint16_t len;
	char s[PR_RELPATH_MAX];
};

/* File metadata as the monitor read it (lstat, or fstat of an open file). */
struct pr_stat {
	uint32_t mode;      /* st_mode: type and permission bits */
	uint32_t nlink;
	uint64_t size;
	int64_t mtime;
	uint32_t mtime_nsec;/* < 1e9 */
	uint32_t uid;
	uint32_t gid;
	uint32_t pad;
	uint64_t dev;
	uint64_t ino;
	uint64_t rdev;
	int64_t atime;
	uint32_t atime_nsec;/* < 1e9 */
	uint32_t pad2;
};

enum pr_msg_type {
	PR_MSG_NONE = 0,
	/* monitor -> worker */
	PR_M_INIT = 1,        /* sandbox parameters; may carry the MOTD descriptor */
	PR_M_MODLIST = 2,     /* one listable module */
	PR_M_MODLIST_END = 3, /* end of the module listing */
	PR_M_SELECT = 4,      /* answer to a module selection */
	PR_M_LIST = 5,        /* a batch of directory entries (packed) */
	PR_M_LIST_END = 6,    /* end of a directory listing, with its errno */
	PR_M_STAT = 7,        /* answer to STAT */
	PR_M_READLINK = 9,    /* answer to READLINK */
	PR_M_IDNAME = 10,     /* answer to IDNAME */
	PR_M_AUTHREQ = 11,    /* the module needs a login: the challenge to send */
	PR_M_XFERLOG = 13,    /* answer to START: the transfer records the monitor wants */
	PR_M_XATTR = 15,      /* raw extended attributes of a file, in pieces (XATTR) */
	PR_M_XATTR_END = 16,  /* end of them, with the errno and the totals */
	PR_M_OPENV = 20,      /* answer to OPENV; carries one descriptor per success */
	/* 8 (OPEN's answer), 71 (OPEN) and 72 (CLOSE) are retired: OPENV and
	 * CLOSEV carry one path or handle as well as sixteen */
	/* worker -> monitor */
	PR_W_READY = 64,      /* sandbox in place; nothing read from the client yet */
	PR_W_LOG = 65,        /* one log record for the operator */
	PR_W_MODLIST = 66,    /* the client asked for the module listing */
	PR_W_SELECT = 67,     /* the client asked for a module */
	PR_W_EXIT = 68,       /* the session ends; carries the exit code */
	PR_W_LIST = 69,       /* list a directory of the module */
	PR_W_STAT = 70,       /* lstat (or stat, following links inside the module) one path */
	PR_W_READLINK = 73,   /* read a symlink target too long for a LIST entry */
	PR_W_IDNAME = 74,     /* the name of a uid or gid */
	PR_W_AUTH = 75,       /* the client's answer to the challenge, as it sent it */
	PR_W_HELLO = 76,      /* the negotiated protocol and the client's digest list */
	PR_W_XFER = 77,       /* one file sent (or itemized), for the transfer log */
	PR_W_START = 78,      /* the client's transfer request, for "rsync on ..." */
	PR_W_XATTR = 79,      /* the extended attributes (and so ACLs) of one path */
	PR_W_OPENV = 84,      /* open several regular files; reports closed handles */
	PR_W_CLOSEV = 85,     /* the worker closed these descriptors from OPENV */
	PR_MSG_TYPE_MAX = 128
};

/* Who may send a type; a message arriving from the wrong side is invalid. */
enum pr_msg_dir { PR_DIR_TO_WORKER = 1, PR_DIR_TO_MONITOR = 2 };

struct pr_msg_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t flags;  /* PR_F_*; unknown bits are invalid */
	uint32_t seq;    /* per direction, starts at 1, +1 per message */
	uint32_t len;    /* body length: must equal the type's size */
};

/* The message carries descriptors (SCM_RIGHTS); only some types may, and
 * each says how many (msg.c: at most one, or up to PR_MSG_FDS_MAX for the
 * batched answers, where the validator ties the count to the body). */
#define PR_F_FD 0x0001u
#define PR_MSG_FDS_MAX 16u
#define PR_F_ALL PR_F_FD

/* Sandbox modes the monitor can ask for. */
enum pr_sandbox_mode {
	PR_SANDBOX_ROOT = 1,   /* started as root: chroot + setresuid to worker user */
	PR_SANDBOX_USERNS = 2, /* started unprivileged: user namespace for chroot */
};

/* Debug switches, honoured only by test builds (PRSYNCD_TEST_HOOKS). */
#define PR_DEBUG_NONE 0u
#define PR_DEBUG_ALL 0u

struct pr_m_init {
	uint32_t sandbox_mode;   /* enum pr_sandbox_mode */
	uint32_t worker_uid;     /* root mode: the uid to drop to; never 0 */
	uint32_t worker_gid;     /* root mode: the gid to drop to; never 0 */
	uint32_t handshake_timeout; /* seconds, 1..3600 */
	uint32_t has_motd;       /* 0 or 1; 1 iff the message carries a descriptor */
	uint32_t max_protocol;   /* highest protocol to offer, 27..32 */
	struct pr_str_path chroot_dir; /* absolute, no ".." component */
	struct pr_str_text client_addr; /* numeric address, for the worker's own messages */
	/* Every distinct "charset" of the configuration, separated by single
	 * spaces ("" = none): the worker opens their converters before its
	 * sandbox, which leaves it no file to load them from. */
	struct pr_str_text charsets;
	/* The daemon's own --bwlimit, KiB/s (0 = none, at most
	 * PR_BWLIMIT_MAX): the most any session of it may send at. */
	uint32_t bwlimit;
};

#define PR_BWLIMIT_MAX 0x7fffffffu

struct pr_m_modlist {
	struct pr_str_name name;
	struct pr_str_text comment;
};

/* Answers to a selection: OK, or an error line the worker sends verbatim. */
enum pr_select_status {
	PR_SELECT_OK = 1,
	PR_SELECT_ERROR = 2,
};

struct pr_m_select {
	uint32_t status;          /* enum pr_select_status */
	uint32_t read_only;       /* 0/1, OK only */
	uint32_t numeric_ids;     /* 0/1, OK only: the module sends no user/group names */
	struct pr_str_name module;/* OK only: the canonical module name */
	struct pr_str_text error; /* ERROR only: the "@ERROR: ..." text, no newline */
	/* OK only: the module's "dont compress" patterns; "" = unset (the
	 * default list), " " = set but empty (nothing is exempt) */
	struct pr_str_text dont_compress;
	/* OK only (all zero/empty otherwise): what the sender does per module. */
	uint32_t write_only;      /* 0/1: downloads are refused, as rsyncd's "write only" */
	uint32_t ignore_errors;   /* 0/1: "ignore errors" */
	uint32_t max_verbosity;   /* 0..PR_VERBOSITY_MAX: "max verbosity" */
	uint32_t chmod_umask;     /* 0..0777: the umask "outgoing chmod" rules without a who honour */
	struct pr_str_text refuse;         /* "refuse options", "" = none */
	struct pr_str_text outgoing_chmod; /* "outgoing chmod", "" = none */
	struct pr_str_name charset;        /* "charset", "" = none; printable, no blank */
	uint32_t module_flags;    /* OK only: PR_MOD_* */
	/* OK only: the module's `timeout` (seconds of client silence that end
	 * the session, 0 = none, at most PR_TIMEOUT_MAX), and the bound on the
	 * argument phase that follows the selection (1..3600 s) */
	uint32_t timeout;
	uint32_t args_timeout;
};

#define PR_TIMEOUT_MAX 1000000u

#define PR_VERBOSITY_MAX 1000u

/* What the worker must know of a module's configuration (M_SELECT). */
#define PR_MOD_MUNGE 0x1u         /* "munge symlinks": strip the prefix from targets sent */
#define PR_MOD_XATTR_RULES 0x2u   /* the module's filters have xattr ('x') rules */
#define PR_MOD_FILTERS 0x4u       /* the module has filters */
#define PR_MOD_CHROOT 0x8u        /* "use chroot" is not off (rsyncd with filters then rejects an
				   * empty --exclude-from name; without a chroot it reads ".") */
#define PR_MOD_ALL (PR_MOD_MUNGE | PR_MOD_XATTR_RULES | PR_MOD_FILTERS | PR_MOD_CHROOT)

enum pr_log_level {
	PR_LOG_ERR = 1,
	PR_LOG_WARNING = 2,
	PR_LOG_INFO = 3,
	PR_LOG_DEBUG = 4,
};

struct pr_w_log {
	uint32_t level;           /* enum pr_log_level */
	struct pr_str_text text;  /* any bytes but NUL; the monitor escapes control bytes */
};

struct pr_w_ready {
	uint32_t pid;             /* the worker's own view; informational */
};

struct pr_w_select {
	struct pr_str_name module;
};

struct pr_w_exit {
	uint32_t code;            /* rsync exit code, 0..255 */
};

/* --- daemon authentication (before a module is served) ------------------ */

/* Sent before SELECT: what the monitor needs to pick the auth digest as
 * rsyncd does. */
struct pr_w_hello {
	uint32_t protocol;        /* negotiated, 27..32 */
	struct pr_str_text digests; /* the client's list as it sent it; "" = none */
};

/* The challenge line's argument: base64 of 16 to 64 random bytes, no padding. */
#define PR_CHALLENGE_MAX 88u

struct pr_m_authreq {
	struct pr_str_name challenge;
	/* Seconds the login may take, 1..3600: from here on the module's own
	 * "timeout" bounds the text phase, as in rsyncd (the bound the
	 * argument phase gets from PR_M_SELECT's args_timeout). */
	uint32_t timeout;
};

/* The client's "USER RESPONSE" line, without its newline; "" if it was
 * longer than fits.  The monitor answers with PR_M_SELECT. */
struct pr_w_auth {
	struct pr_str_text line;
};

/* --- filesystem requests (after module selection) ---------------------- */

struct pr_w_path {                /* LIST, READLINK */
	struct pr_str_relpath path;
};

#define PR_STAT_FOLLOW 1u         /* follow symlinks (only within the module) */

struct pr_w_stat {
	uint32_t flags;           /* PR_STAT_* */
	struct pr_str_relpath path;
};

/* Symlink targets up to this length travel inside LIST and STAT answers;
 * longer ones (up to 4095 bytes) are fetched with READLINK. */
#define PR_LINK_INLINE_MAX 255u

/* One packed LIST entry: this header, then name_len name bytes, then
 * link_len target bytes.  No terminators; the validator checks every byte. */
struct pr_dirent_hdr {
	struct pr_stat st;
	int32_t err;              /* 0, or the errno of the entry's lstat */
	uint16_t name_len;        /* 1..255 */
	uint16_t link_len;        /* 0..PR_LINK_INLINE_MAX */
	uint32_t link_state;      /* PR_LINK_* */
	uint32_t pad;             /* 0: no implicit padding, so an initializer clears every byte */
};
_Static_assert(sizeof(struct pr_dirent_hdr) == sizeof(struct pr_stat) + 16, "pr_dirent_hdr has no implicit padding");

enum pr_link_state {
	PR_LINK_NONE = 0,         /* not a symlink (or err != 0) */
	PR_LINK_INLINE = 1,       /* target follows the name */
	PR_LINK_LONG = 2,         /* target longer than PR_LINK_INLINE_MAX: use READLINK */
	PR_LINK_ERROR = 3,        /* readlink failed */
};

#define PR_LIST_DATA (PR_MSG_SIZE - sizeof(struct pr_msg_hdr) - 8u)

struct pr_m_list {
	uint32_t count;           /* entries in data */
	uint32_t used;            /* bytes of data in use */
	unsigned char data[PR_LIST_DATA];
};

struct pr_m_list_end {
	int32_t err;              /* 0, or the errno that ended the listing */
};

struct pr_m_stat {
	int32_t err;              /* 0 or errno; nothing else is valid if non-zero */
	uint32_t link_state;      /* PR_LINK_* */
	struct pr_stat st;
	struct pr_str_name link;  /* PR_LINK_INLINE only */
};

/*
 * Batched opens: one round trip opens up to PR_OPENV_MAX files (the
 * worker asks for the files it expects to send next, or all files of a
 * listing for -c), and the worker reports the handles it has closed in
 * the next request instead of one CLOSE record each.  Every path is
 * resolved and judged by the monitor exactly as an OPEN; only the number
 * of answers per record changes.
 */
#define PR_OPENV_MAX 16u          /* paths per OPENV, answers per reply */
#define PR_CLOSEV_MAX 32u         /* handles per report: every one the monitor may have out */
#define PR_OPENV_DATA 7168u       /* room for one path of PR_RELPATH_MAX - 1 bytes */

struct pr_w_openv {
	uint32_t nclosed;         /* handles in closed[], processed before the opens */
	uint32_t closed[PR_CLOSEV_MAX]; /* nonzero below nclosed, zero above */
	uint32_t count;           /* paths in data, 1..PR_OPENV_MAX */
	uint32_t used;            /* bytes of data in use */
	/* count paths, each a uint16 length, the bytes, a NUL; every one a
	 * valid module path (pr_relpath_ok); zeros after used */
	unsigned char data[PR_OPENV_DATA];
};

struct pr_w_closev {
	uint32_t nclosed;         /* 1..PR_CLOSEV_MAX */
	uint32_t closed[PR_CLOSEV_MAX]; /* nonzero below nclosed, zero above */
};

/* An OPENV answer for a path the module's filters hide by its name alone
 * (the path, or a directory above it), decided before anything is looked
 * up: it tells which names the filters hide, never whether a file exists.
 * rsyncd judges a merge file a client names the same way and skips a
 * hidden one silently where an absent one is fatal (worker/filters.c). */
#define PR_EHIDDEN 4095

struct pr_openv_ent {
	int32_t err;              /* 0 (a descriptor is attached for it), errno or PR_EHIDDEN */
	uint32_t handle;          /* err 0: names the descriptor in a close report */
	struct pr_stat st;        /* err 0: fstat of the opened file; else zero */
};

struct pr_m_openv {
	uint32_t count;           /* answers, one per path asked, in order */
	uint32_t nfds;            /* answers with err 0 = descriptors attached, in order */
	struct pr_openv_ent e[PR_OPENV_MAX]; /* zero from count on */
};

/* Walk the paths of a validated OPENV: *off starts at 0; 1 with *path and
 * *len set, 0 at the end, -1 on malformed data. */
int pr_openv_next(const struct pr_w_openv *b, size_t *off, const char **path, size_t *len);
/* Append a path (valid, NUL-terminated) to an OPENV being built; -1 if it
 * does not fit or count is at PR_OPENV_MAX. */
int pr_openv_add(struct pr_w_openv *b, const char *path);

struct pr_m_readlink {
	int32_t err;
	struct pr_str_relpath target;
};

/*
 * XATTR (a struct pr_w_stat: PR_STAT_FOLLOW follows a final link) is
 * answered by M_XATTR pieces, then M_XATTR_END.  The pieces, joined, are
 * `count` records of: uint16 name length (1..255, no NUL), uint32 value
 * length (<= PR_XATTR_VALUE_MAX), the name, the value; host byte order.
 * The monitor reads them with flistxattr/fgetxattr from the descriptor of
 * a regular file or directory it opened (other types have none here),
 * leaves out names the module's xattr filter rules hide, and stops at the
 * bounds (E2BIG).  The worker parses them (xattr.c), never the monitor.
 */
#define PR_XATTR_VALUE_MAX 65536u       /* the kernel's XATTR_SIZE_MAX */
#define PR_XATTR_COUNT_MAX 1024u        /* attributes per file */
#define PR_XATTR_TOTAL_MAX (1u << 20)   /* record bytes per file */
#define PR_XATTR_DATA (PR_MSG_SIZE - sizeof(struct pr_msg_hdr) - 4u)

struct pr_m_xattr {
	uint32_t used;            /* 1..PR_XATTR_DATA bytes of data */
	unsigned char data[PR_XATTR_DATA];
};

struct pr_m_xattr_end {
	int32_t err;              /* 0, or why the attributes stop here (no records then) */
	uint32_t count;           /* records sent */
	uint32_t total;           /* bytes in the pieces */
};

enum pr_id_kind { PR_ID_USER = 1, PR_ID_GROUP = 2 };

struct pr_w_idname {
	uint32_t kind;            /* enum pr_id_kind */
	uint32_t id;
};

struct pr_m_idname {
	uint32_t found;           /* 0/1 */
	struct pr_str_name name;  /* found only; 1..255 bytes */
};

/* --- the transfer log (after module selection) --------------------------- */

/* Sent once, after the arguments are read; answered by PR_M_XFERLOG.  The
 * monitor writes rsyncd's "rsync on|to REQUEST from HOST (ADDR)" line. */
struct pr_w_start {
	uint32_t sender;          /* 1: the client pulls ("on"); 0: it pushes ("to") */
	struct pr_str_relpath request; /* the path arguments as sent, space-separated,
					* escaped as rsyncd logs them: log text only, no
					* control byte but tab (the validator refuses one) */
};

/* The answer: whether the module wants per-file lines ("transfer
 * logging"), and what the worker needs to write them itself in the
 * module's "log format": the format (configuration) and the values of the
 * escapes only the monitor knows.  Log text only, never acted on. */
struct pr_m_xferlog {
	uint32_t files;           /* 0/1: send a PR_W_XFER line for each file sent
				   * (and each itemized change, if the format has %i) */
	uint32_t pid;             /* %p: the monitor's pid, 1..INT32_MAX */
	struct pr_str_text format;/* the module's "log format" */
	struct pr_str_text host;  /* %h: the client's name as shown for the module */
	struct pr_str_name addr;  /* %a */
	struct pr_str_name user;  /* %u: the user a login accepted, "" = none */
	struct pr_str_name module;/* %m */
	struct pr_str_relpath path; /* %P: the module's path (absolute: not a relpath) */
};

/* One transfer log line, formatted and escaped by the worker (rsyncd's
 * "\#ooo" for control bytes).  Any bytes but NUL and control bytes other
 * than tab, which the monitor's validator refuses: no line break reaches
 * the log. */
#define PR_XFER_LINE_MAX 8174u
struct pr_str_log {
	uint16_t len;
	char s[PR_XFER_LINE_MAX];
};

struct pr_w_xfer {
	struct pr_str_log line;
};

#define PR_MSG_BODY_MAX (PR_MSG_SIZE - sizeof(struct pr_msg_hdr))

struct pr_msg {
	struct pr_msg_hdr h;
	union {
		unsigned char raw[PR_MSG_BODY_MAX];
		struct pr_m_init init;
		struct pr_m_modlist modlist;
		struct pr_m_select select;
		struct pr_w_ready ready;
		struct pr_w_log log;
		struct pr_w_select wselect;
		struct pr_w_exit exit;
		struct pr_w_path path;
		struct pr_w_stat stat;
		struct pr_m_list list;
		struct pr_m_list_end list_end;
		struct pr_m_stat mstat;
		struct pr_m_readlink readlink;
		struct pr_w_idname idname;
		struct pr_m_idname midname;
		struct pr_w_hello hello;
		struct pr_m_authreq authreq;
		struct pr_w_auth auth;
		struct pr_w_start start;
		struct pr_m_xferlog xferlog;
		struct pr_w_xfer xfer;
		struct pr_m_xattr xattr;
		struct pr_m_xattr_end xattr_end;
		struct pr_w_openv openv;
		struct pr_w_closev closev;
		struct pr_m_openv mopenv;
	} u;
};

_Static_assert(sizeof(struct pr_msg) == PR_MSG_SIZE, "message size");
_Static_assert(PR_OPENV_MAX <= PR_MSG_FDS_MAX, "an OPENV answer carries a descriptor per path");

/* Validation results; a string for logs comes from pr_msg_strerror(). */
enum pr_msg_err {
	PR_MSG_OK = 0,
	PR_MSG_EBADMAGIC,
	PR_MSG_EBADTYPE,
	PR_MSG_EBADDIR,
	PR_MSG_EBADLEN,
	PR_MSG_EBADFLAGS,
	PR_MSG_EBADSEQ,
	PR_MSG_EBADSTR,
	PR_MSG_EBADFIELD,
	PR_MSG_EBADFD,
};

const char *pr_msg_strerror(enum pr_msg_err e);
const char *pr_msg_type_name(uint16_t type);

/*
 * Check a received message completely: header, direction, exact length,
 * flags, and every body field.  `nfds` is how many descriptors arrived
 * with it (a type that may carry one accepts 0 or 1, as its validator
 * decides; more than its row allows is refused before the validator runs).
 * One function per direction, each in its own file so that a binary links
 * only the validators of what it receives: the monitor
 * pr_msg_validate_w2m (msg_w2m.c), the worker pr_msg_validate_m2w
 * (msg_m2w.c).  pr_msg_validate (msg_both.c, for tests and tools that play
 * both ends) takes the direction the receiver expects.
 */
typedef enum pr_msg_err (*pr_msg_validator)(const struct pr_msg *m, int nfds);
enum pr_msg_err pr_msg_validate_w2m(const struct pr_msg *m, int nfds);
enum pr_msg_err pr_msg_validate_m2w(const struct pr_msg *m, int nfds);
enum pr_msg_err pr_msg_validate(const struct pr_msg *m, enum pr_msg_dir dir, int nfds);

/* Start a message of a type: zero its header and body (the bytes the record
 * will carry) and fill the header (seq set by ipc). */
void pr_msg_init(struct pr_msg *m, enum pr_msg_type type);

/*
 * The counted-string setter: it refuses (returns -1) a string that does
 * not fit, rather than truncate it silently; with trunc it cuts the
 * string at the capacity instead (log text may be cut, not refused).  The
 * bytes after the string are zeroed.  The typed names below take a
 * struct pr_str_* of their own kind (_Generic refuses any other) and pass
 * its length, bytes and capacity; every kind has the {len, s} shape.
 */
int pr_str_put(uint16_t *len, char *dst, size_t cap, const char *s, int trunc);
#define PR_STR_PUT(d, str, trunc) pr_str_put(&(d)->len, (d)->s, sizeof((d)->s), (str), (trunc))
#define pr_str_set_name(d, str) PR_STR_PUT(_Generic((d), struct pr_str_name *: (d)), (str), 0)
#define pr_str_set_text(d, str) PR_STR_PUT(_Generic((d), struct pr_str_text *: (d)), (str), 0)
#define pr_str_set_path(d, str) PR_STR_PUT(_Generic((d), struct pr_str_path *: (d)), (str), 0)
#define pr_str_set_relpath(d, str) PR_STR_PUT(_Generic((d), struct pr_str_relpath *: (d)), (str), 0)
#define pr_str_set_text_trunc(d, str) ((void)PR_STR_PUT(_Generic((d), struct pr_str_text *: (d)), (str), 1))

/* Is s (len bytes, NUL at s[len]) a valid module-relative path? */
int pr_relpath_ok(const char *s, size_t len);

/* One decoded LIST entry; name and link point into the message. */
struct pr_dirent {
	struct pr_stat st;
	int32_t err;
	uint32_t link_state;
	const char *name;
	uint16_t name_len;
	const char *link;
	uint16_t link_len;
};

/*
 * Walk the packed entries of a validated PR_M_LIST.  *off starts at 0.
 * Returns 1 with *out filled, 0 at the end, -1 on malformed data (which a
 * validated message never has).
 */
int pr_list_next(const struct pr_m_list *b, size_t *off, struct pr_dirent *out);

/* Append an entry to a PR_M_LIST being built; -1 if it does not fit. */
int pr_list_add(struct pr_m_list *b, const struct pr_stat *st, int32_t err,
		const char *name, size_t name_len, uint32_t link_state,
		const char *link, size_t link_len);

#endif
