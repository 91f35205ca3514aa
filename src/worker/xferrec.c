/* SPDX-License-Identifier: ISC */
/*
 * Transfer log lines for the monitor (xferrec.h).  What rsyncd's log
 * escapes show is decided here from the session's options (xferfmt.c
 * only formats): the ids when the client preserves them, the
 * checksum when rsync would show it (a file's -c sum, or the sum sent
 * after its data when that sum is unsalted), in the byte order rsync
 * prints (the xxhash family is sent little-endian and printed reversed).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mon.h"
#include "xferrec.h"

#define ITEM_XNAME_FOLLOWS 0x1000
#define ITEM_LOCAL_CHANGE 0x4000
#define ITEM_TRANSFER 0x8000
/* every bit but the ones that only say what follows on the wire */
#define ITEM_SIGNIFICANT (0xffff & ~(0x0800 | ITEM_XNAME_FOLLOWS | ITEM_LOCAL_CHANGE))

void xferrec_start(struct sess *s)
{
	xferrec_start_paths(s, s->opt.paths, s->opt.npaths);
}

void xferrec_start_paths(struct sess *s, char *const *paths, size_t npaths)
{
	struct pr_msg m;
	char raw[sizeof(m.u.start.request.s)];
	size_t n = 0;

	pr_msg_init(&m, PR_W_START);
	m.u.start.sender = s->opt.sender ? 1 : 0;
	for (size_t i = 0; i < npaths; i++) {
		size_t len = strlen(paths[i]), room = sizeof(raw) - 1 - n;

		if (i > 0 && room > 0)
			raw[n++] = ' ', room--;
		len = len < room ? len : room; /* a log line: cut, not refused */
		memcpy(raw + n, paths[i], len);
		n += len;
	}
	raw[n] = '\0';
	/* the monitor refuses a control byte: written as rsyncd logs it */
	xferfmt_escape(m.u.start.request.s, sizeof(m.u.start.request.s), raw);
	m.u.start.request.len = (uint16_t)strlen(m.u.start.request.s);
	mon_send(&m, -1);
	mon_expect(&m, PR_M_XFERLOG, NULL);
	xferfmt_init(&s->xlog, &m.u.xferlog);
	s->xlog_files = (int)m.u.xferlog.files && !s->opt.dry_run;
	s->xlog_itemized = s->xlog_files && s->xlog.uses_i;
}

int xferrec_wanted(const struct sess *s, uint16_t iflags, int has_xname)
{
	if (!s->xlog_files)
		return 0;
	if (iflags & ITEM_TRANSFER)
		return 1;
	return s->xlog_itemized && ((iflags & ITEM_SIGNIFICANT) || has_xname);
}

static int sum_shown(enum csum_type t)
{
	return t != CSUM_NONE && t != CSUM_MD4_OLD;
}

static void put_sum(struct xferfmt_rec *x, enum csum_type t, const unsigned char *sum)
{
	int len = csum_len(t), reverse = t == CSUM_XXH64 || t == CSUM_XXH3 || t == CSUM_XXH128;

	if (!sum_shown(t) || sum == NULL)
		return;
	for (int i = 0; i < len; i++)
		x->sum[i] = sum[reverse ? len - 1 - i : i];
	x->flags |= XF_SUM;
}

void xferrec_send(const struct sess *s, const struct flist *fl, const struct fentry *f, uint16_t iflags,
		  const char *xname, uint64_t bytes, uint64_t sum_bytes, const unsigned char *digest)
{
	struct pr_msg m;
	struct xferfmt_rec x = { 0 };
	char path[PR_RELPATH_MAX];
	const char *root = fl->roots->v[fe_root(f)];
	enum csum_type t = s->opt.always_checksum ? s->flist.type : s->xfer.type;
	int n;

	x.iflags = iflags;
	x.mode = f->st.mode;
	x.uid = f->st.uid;
	x.gid = f->st.gid;
	x.flags = (s->opt.owner ? XF_UID : 0) | (s->opt.group ? XF_GID : 0) | (s->opt.times ? XF_MTIMES : 0) |
		  ((s->compat_flags & CF_SYMLINK_TIMES) ? XF_LINK_TIMES : 0) | (s->protocol < 29 ? XF_NO_ITEMS : 0);
	x.sum_len = (uint32_t)csum_len(t);
	x.length = f->st.size;
	x.mtime = f->st.mtime;
	x.bytes = iflags & ITEM_TRANSFER ? bytes : 0;
	x.sum_bytes = iflags & ITEM_TRANSFER ? sum_bytes : 0;
	if (S_ISREG(f->st.mode))
		put_sum(&x, t, s->opt.always_checksum ? (f->x ? f->x->sum : NULL) : (iflags & ITEM_TRANSFER) ? digest : NULL);
	/* %f: the transfer root and the listed name; %n: the listed name */
	n = root[0] && strcmp(root, ".") != 0 ? snprintf(path, sizeof(path), "%s/%s", root, f->name) :
						 snprintf(path, sizeof(path), "%s", f->name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return; /* a name longer than any path: no line rather than a wrong one */
	x.path = path;
	x.name = path + n - strlen(f->name);
	x.target = "";
	if (xname && xname[0] && !(iflags & ITEM_TRANSFER)) {
		x.link = XF_LINK_HARD;
		x.target = xname;
	} else if (S_ISLNK(f->st.mode) && f->x && f->x->link && f->x->link[0]) {
		x.link = XF_LINK_SYMLINK;
		x.target = f->x->link;
	}
	pr_msg_init(&m, PR_W_XFER);
	m.u.xfer.line.len = (uint16_t)xferfmt_line(m.u.xfer.line.s, sizeof(m.u.xfer.line.s), &s->xlog, &x);
	mon_send(&m, -1);
}
