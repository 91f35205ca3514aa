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
	struct fs_ids users, groups;      /* empty when numeric_ids */
	struct modfilter hide;            /* the module's filters */
	struct mf_walk byname;            /* ... judged on a request's own path */
	struct mf_walk canon;             /* ... and on the path really walked */
	uint64_t steps;                   /* filter work accounted so far (test builds) */
};

/* Before confinement: resolve the module's uid/gid (name or number; default
 * "nobody" and its primary group), open the root, read the id tables
 * (unless the module uses numeric ids: then IDNAME knows no name), compile
 * the module's filters.
 * Returns 0, or -1 after logging why. */
int fs_prepare(struct fsreq *f, struct pr_ipc *ipc, const struct cfg_module *mod);

/* One handler per request; -1 ends the session (after logging). */
int fs_list(struct fsreq *f, const struct pr_msg *m);
int fs_stat(struct fsreq *f, const struct pr_msg *m);
int fs_open(struct fsreq *f, const struct pr_msg *m);
int fs_close(struct fsreq *f, const struct pr_msg *m);
int fs_openv(struct fsreq *f, const struct pr_msg *m);
int fs_closev(struct fsreq *f, const struct pr_msg *m);
int fs_readlink(struct fsreq *f, const struct pr_msg *m);
int fs_idname(struct fsreq *f, const struct pr_msg *m);

#endif
