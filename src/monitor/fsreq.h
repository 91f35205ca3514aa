/* SPDX-License-Identifier: ISC */
/*
 * The monitor's filesystem service for the worker, after module selection.
 * Every path is resolved beneath one descriptor of the module root
 * (resolve.h), so no request, and no symlink swapped in mid-transfer, can
 * name anything outside the module or anything its filters hide.
 */
#ifndef PRSYNCD_FSREQ_H
#define PRSYNCD_FSREQ_H

#include <sys/types.h>

#include "config.h"
#include "ipc.h"
#include "modfilter.h"

#define FS_MAX_HANDLES 32   /* OPEN descriptors handed out and not yet closed */
_Static_assert(FS_MAX_HANDLES <= PR_CLOSEV_MAX, "a close report can name every handle out");
#define FS_MAX_IDS 65536    /* entries read from the user and group databases */

struct fs_ids {
	size_t n;
	struct fs_id { uint32_t id; char *name; } *e; /* FS_MAX_IDS entries */
};

struct fsreq {
	struct pr_ipc *ipc;
	const char *module;
	int root;                         /* O_PATH descriptor of the module root */
	uid_t uid;                        /* the module's uid and gid (resolved) */
	gid_t gid;
	uint32_t handles[FS_MAX_HANDLES]; /* outstanding OPEN handles; 0 = free */
	uint32_t last_handle;
	int numeric_ids;                  /* the module maps no names (rsyncd: chrooted modules) */
	int ignore_nonreadable;           /* LIST leaves out what the module uid cannot read */
	int noatime;                      /* "open noatime": O_NOATIME on LIST and OPEN, as rsyncd */
	int nodev;                        /* the root's mount is nodev (OPENV asks each batch) */
	uint32_t mod_flags;               /* PR_MOD_*, worked out at selection */
	struct fs_ids users, groups;      /* empty when numeric_ids */
	struct modfilter hide;            /* the module's filters */
	struct mf_walk byname;            /* ... judged on a request's own path */
	struct mf_walk canon;             /* ... and on the path really walked */
	uint64_t steps;                   /* filter work accounted so far (test builds) */
	unsigned above_root;              /* links that led above the root (resolve.c) */
};

/* Identities, looked up before the worker exists: NSS may open files,
 * connect to nscd or systemd-userdbd and load libraries, none of which the
 * filtered monitor can do (policy/preselect.policy).  Every module's uid
 * and gid (name or number; default "nobody" and its primary group), and
 * the uid/gid -> name tables if any module maps names. */
struct fs_idmap {
	struct fs_modids {
		uint32_t uid, gid;
		int uid_ok, gid_ok;   /* looked up */
		int uid_var, gid_var; /* per-connection %VAR%: taken at selection, numbers only */
	} *mod; /* one per module */
	struct fs_ids users, groups;
};
void fs_idmap_load(struct fs_idmap *m, const struct cfg *cfg);
void fs_idmap_free(struct fs_idmap *m);

/* At selection, before the monitor gives up root: take module `idx`'s ids
 * and (unless the module uses numeric ids: then IDNAME knows no name) the
 * name tables from ids, open the root, compile the module's filters.  mod
 * is the module with its per-connection %VAR% expanded.
 * Returns 0, or -1 after logging why, with the client's line in errtext
 * (rsyncd's: "@ERROR: invalid uid NAME", "@ERROR: invalid gid NAME",
 * "@ERROR: chdir failed"). */
int fs_prepare(struct fsreq *f, struct pr_ipc *ipc, const struct cfg_module *mod,
	       const struct fs_idmap *ids, size_t idx, char *errtext, size_t errlen);

/* After confinement: what the worker must know of the module (PR_MOD_*,
 * worked out by fs_prepare from the configuration; mod is not read), or -1
 * (logged) if it must not be served: "munge symlinks" on and a
 * "rsyncd-munged" directory in it, which rsyncd refuses too. */
int fs_module_flags(struct fsreq *f, const struct cfg_module *mod, uint32_t *flags);

/* One handler per request; -1 ends the session (after logging). */
int fs_list(struct fsreq *f, const struct pr_msg *m);
int fs_stat(struct fsreq *f, const struct pr_msg *m);
int fs_openv(struct fsreq *f, const struct pr_msg *m);
int fs_closev(struct fsreq *f, const struct pr_msg *m);
int fs_readlink(struct fsreq *f, const struct pr_msg *m);
int fs_idname(struct fsreq *f, const struct pr_msg *m);
int fs_xattr(struct fsreq *f, const struct pr_msg *m);

#endif
