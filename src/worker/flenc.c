/* SPDX-License-Identifier: ISC */
/*
 * Encoding file-list entries for the wire (spec part 2, 4.1-4.8): the
 * flags word of each protocol, the "prev" compression state kept for the
 * whole session, hard-link references (protocol >= 30: by transmission
 * index, across incremental lists), inline user/group names, the end
 * marker with io_error, and the uid/gid lists of a full list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "flconv.h"
#include "flist_int.h"
#include "fsclient.h"
#include "mon.h"
#include "xattr.h"

struct prev {
	char name[PR_RELPATH_MAX];
	uint32_t mode, uid, gid;
	int64_t mtime, atime;
	uint64_t rdev;      /* protocol 27 */
	uint32_t rdev_major;/* protocol 28+ */
	uint64_t dev;       /* protocol 28-29 -H */
	int first;
};

/* (dev, ino) -> transmission index of a hard-link group's first member,
 * for the whole session (protocol >= 30 -H).  Open addressing. */
struct hl_slot { uint64_t dev, ino; int32_t first; int used; };
struct hlmap { struct hl_slot *t; size_t cap, n; };

/* Ids whose names were considered already (incremental recursion sends
 * each name once, inline). */
struct idset { uint32_t *v; size_t n, cap; };

struct flenc {
	struct prev pv;
	struct hlmap hl;
	struct idset users, groups;
};

static uint64_t hl_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino + 0x632be59bd9b4e019ull + (dev << 6));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* The first member's index, or -1 after recording `idx` as the first. */
static int32_t hl_lookup(struct hlmap *m, uint64_t dev, uint64_t ino, int32_t idx)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct hl_slot *nt = calloc(ncap, sizeof(*nt));

		if (nt == NULL)
			mon_exit(RERR_MALLOC);
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->t[j].used)
				continue;
			for (i = hl_hash(m->t[j].dev, m->t[j].ino) & (ncap - 1); nt[i].used; i = (i + 1) & (ncap - 1))
				;
			nt[i] = m->t[j];
		}
		free(m->t);
		m->t = nt;
		m->cap = ncap;
	}
	for (i = hl_hash(dev, ino) & (m->cap - 1); m->t[i].used; i = (i + 1) & (m->cap - 1)) {
		if (m->t[i].dev == dev && m->t[i].ino == ino)
			return m->t[i].first;
	}
	m->t[i] = (struct hl_slot){ dev, ino, idx, 1 };
	m->n++;
	return -1;
}

/* 1 the first time an id is seen. */
static int idset_add(struct idset *set, uint32_t id)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i] == id)
			return 0;
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->v = fl_xrealloc(set->v, set->cap * sizeof(*set->v));
	}
	set->v[set->n++] = id;
	return 1;
}

/* The name to send inline for a uid/gid (incremental recursion), or NULL. */
static const char *inline_name(struct sess *s, struct idset *set, int kind, uint32_t id)
{
	if (!s->inc_recurse || s->numeric_ids || id == 0 || !idset_add(set, id))
		return NULL;
	return fsc_idname(kind, id);
}

const char *flenc_new_id_name(struct sess *s, struct flenc *enc, int kind, uint32_t id)
{
	return inline_name(s, kind == PR_ID_USER ? &enc->users : &enc->groups, kind, id);
}

static int is_device(uint32_t mode) { return S_ISCHR(mode) || S_ISBLK(mode); }
static int is_special(uint32_t mode) { return S_ISFIFO(mode) || S_ISSOCK(mode); }

static void write_name(struct io *io, const char *name)
{
	size_t len = strnlen(name, 255);

	io_write_byte(io, (uint8_t)len);
	io_write(io, name, len);
}

/* Send one entry (spec part 2, 4.2-4.5). */
void flenc_entry(struct sess *s, const struct flist *fl, size_t idx, struct flenc *enc)
{
	struct prev *pv = &enc->pv;
	const struct fentry *f = &fl->e[idx];
	int32_t hl_ref = -1;
	int hl_first = 0;
	char uname[256], gname[256];
	const char *un = NULL, *gn = NULL;
	const struct options *o = &s->opt;
	struct io *io = &s->io;
	int proto = s->protocol;
	uint32_t mode = s->chmod ? chmod_apply(s->chmod, f->st.mode) : f->st.mode;
	uint32_t flags = 0;
	char wbuf[PR_RELPATH_MAX];
	const char *wname;
	size_t l1 = 0, l2, nlen = flconv_wire(s, f->name, wbuf, sizeof(wbuf), &wname);
	int send_rdev = (o->devices && is_device(mode)) ||
			(o->specials && is_special(mode) && proto < 31);
	uint64_t rdev = fe_rdev(f);
	uint32_t major = major(rdev), minor = minor(rdev);
	int abbreviated = 0;

	if (S_ISDIR(mode)) {
		switch (fe_dir_role(f)) {
		case DIR_CONTENT_TOP: flags |= XMIT_TOP_DIR; break;
		case DIR_IMPLIED: if (proto >= 30) flags |= XMIT_TOP_DIR | XMIT_NO_CONTENT_DIR; break;
		case DIR_NO_CONTENT: if (proto >= 30) flags |= XMIT_NO_CONTENT_DIR; break;
		default: break;
		}
	}
	if (mode == pv->mode)
		flags |= XMIT_SAME_MODE;
	if (send_rdev) {
		if (proto < 28) {
			if (is_special(mode) || rdev == pv->rdev)
				flags |= XMIT_SAME_RDEV_PRE28;
		} else if (is_special(mode)) {
			flags |= XMIT_SAME_RDEV_MAJOR;
			if (proto < 30)
				flags |= XMIT_RDEV_MINOR_8_PRE30;
		} else {
			if (major == pv->rdev_major)
				flags |= XMIT_SAME_RDEV_MAJOR;
			if (proto < 30 && minor <= 0xff)
				flags |= XMIT_RDEV_MINOR_8_PRE30;
		}
	} else if (proto < 28) {
		pv->rdev = 0;
	}
	if (!o->owner || (f->st.uid == pv->uid && !pv->first))
		flags |= XMIT_SAME_UID;
	else if ((un = inline_name(s, &enc->users, PR_ID_USER, f->st.uid)) != NULL)
		flags |= XMIT_USER_NAME_FOLLOWS;
	if (!o->group || (f->st.gid == pv->gid && !pv->first))
		flags |= XMIT_SAME_GID;
	else if ((gn = inline_name(s, &enc->groups, PR_ID_GROUP, f->st.gid)) != NULL)
		flags |= XMIT_GROUP_NAME_FOLLOWS;
	/* the name buffer is reused by the next lookup: copy */
	if (un) {
		snprintf(uname, sizeof(uname), "%s", un);
		un = uname;
	}
	if (gn) {
		snprintf(gname, sizeof(gname), "%s", gn);
		gn = gname;
	}
	if (f->st.mtime == pv->mtime)
		flags |= XMIT_SAME_TIME;
	if (proto >= 31 && f->st.mtime_nsec)
		flags |= XMIT_MOD_NSEC;
	if (o->atimes && !S_ISDIR(mode) && fe_atime(f) == pv->atime)
		flags |= XMIT_SAME_ATIME;
	if (o->hard_links && proto >= 30 && !S_ISDIR(mode) && fe_nlink(f) > 1) {
		hl_ref = hl_lookup(&enc->hl, f->x->dev, f->x->ino, fl->ndx_start + (int32_t)idx);
		hl_first = hl_ref < 0;
	}
	if (hl_first || hl_ref >= 0) {
		flags |= XMIT_HLINKED;
		if (hl_first)
			flags |= XMIT_HLINK_FIRST;
		else if (hl_ref >= fl->ndx_start)
			abbreviated = 1; /* the receiver copies the rest from the same list */
	} else if (o->hard_links && proto >= 28 && proto < 30 && !S_ISDIR(mode) && fe_nlink(f) > 1) {
		flags |= XMIT_HLINKED;
		if (fe_dev(f) == pv->dev)
			flags |= XMIT_SAME_DEV_PRE30;
	}
	while (l1 < nlen && l1 < 255 && wname[l1] == pv->name[l1])
		l1++;
	l2 = nlen - l1;
	if (l1)
		flags |= XMIT_SAME_NAME;
	if (l2 > 255)
		flags |= XMIT_LONG_NAME;

	/* the flags word, with each protocol's way of avoiding a zero */
	if (s->varint_flags) {
		io_write_varint(io, flags ? (int32_t)flags : XMIT_EXTENDED_FLAGS);
	} else if (proto >= 28) {
		if (flags == 0 && !S_ISDIR(mode))
			flags |= XMIT_TOP_DIR;
		if ((flags & 0xff00) || flags == 0) {
			flags |= XMIT_EXTENDED_FLAGS;
			io_write_shortint(io, (uint16_t)flags);
		} else {
			io_write_byte(io, (uint8_t)flags);
		}
	} else {
		if ((flags & 0xff) == 0) {
			if (S_ISDIR(mode))
				flags |= XMIT_LONG_NAME;
			else
				flags |= XMIT_TOP_DIR;
		}
		io_write_byte(io, (uint8_t)flags);
	}
	if (flags & XMIT_SAME_NAME)
		io_write_byte(io, (uint8_t)l1);
	if (flags & XMIT_LONG_NAME)
		io_write_varint30(io, (int32_t)l2);
	else
		io_write_byte(io, (uint8_t)l2);
	io_write(io, wname + l1, l2);
	memcpy(pv->name, wname, nlen + 1);
	pv->first = 0;
	pv->mode = mode;
	pv->mtime = f->st.mtime;
	pv->uid = f->st.uid;
	pv->gid = f->st.gid;
	if (!S_ISDIR(mode))
		pv->atime = fe_atime(f);

	if (hl_ref >= 0)
		io_write_varint(io, hl_ref);
	if (abbreviated)
		return;
	io_write_varlong30(io, (int64_t)f->st.size, 3);
	if (!(flags & XMIT_SAME_TIME)) {
		if (proto >= 30)
			io_write_varlong(io, f->st.mtime, 4);
		else
			io_write_int32(io, (int32_t)f->st.mtime);
	}
	if (flags & XMIT_MOD_NSEC)
		io_write_varint(io, (int32_t)f->st.mtime_nsec);
	if (!(flags & XMIT_SAME_MODE))
		io_write_int32(io, (int32_t)mode);
	if (o->atimes && !S_ISDIR(mode) && !(flags & XMIT_SAME_ATIME))
		io_write_varlong(io, fe_atime(f), 4);
	if (!(flags & XMIT_SAME_UID))
		io_write_varint30(io, (int32_t)f->st.uid);
	if (un)
		write_name(io, un);
	if (!(flags & XMIT_SAME_GID))
		io_write_varint30(io, (int32_t)f->st.gid);
	if (gn)
		write_name(io, gn);
	if (send_rdev) {
		if (proto < 28) {
			if (!(flags & XMIT_SAME_RDEV_PRE28))
				io_write_int32(io, (int32_t)(uint32_t)rdev);
			pv->rdev = rdev;
		} else if (is_special(mode)) {
			if (proto < 30)
				io_write_byte(io, 0);
			else
				io_write_varint(io, 0);
		} else {
			if (!(flags & XMIT_SAME_RDEV_MAJOR))
				io_write_varint30(io, (int32_t)major);
			if (flags & XMIT_RDEV_MINOR_8_PRE30)
				io_write_byte(io, (uint8_t)minor);
			else
				io_write_varint30(io, (int32_t)minor);
			pv->rdev_major = major;
		}
	}
	if (o->links && S_ISLNK(mode) && fe_link(f)) {
		const char *wlink = fe_link(f);
		size_t ll = o->cap_symlink_iconv ? flconv_wire(s, wlink, wbuf, sizeof(wbuf), &wlink) : strlen(wlink);

		io_write_varint30(io, (int32_t)ll);
		io_write(io, wlink, ll);
	}
	if (o->hard_links && proto < 30 &&
	    (proto == 27 ? S_ISREG(mode) : (flags & XMIT_HLINKED) != 0)) {
		if (proto == 27 || !(flags & XMIT_SAME_DEV_PRE30))
			io_write_longint(io, (int64_t)fe_dev(f) + 1);
		io_write_longint(io, (int64_t)(f->x ? f->x->ino : 0));
		pv->dev = fe_dev(f);
	}
	if (o->always_checksum && (S_ISREG(mode) || proto < 28)) {
		static const unsigned char zero[CSUM_MAX_LEN];
		io_write(io, S_ISREG(mode) && f->x && f->x->sum ? f->x->sum : zero, (size_t)csum_len(s->flist.type));
	}
}

/* The end-of-list marker with the io_error value (4.8). */
void flenc_end(struct sess *s, int err)
{
	struct io *io = &s->io;

	if (s->opt.ignore_errors)
		err = 0;

	if (s->varint_flags) {
		io_write_varint(io, 0);
		io_write_varint(io, err);
	} else if (s->protocol >= 30 && err &&
		   (s->protocol >= 31 || (s->compat_flags & CF_SAFE_FLIST))) {
		io_write_shortint(io, XMIT_EXTENDED_FLAGS | XMIT_IO_ERROR_ENDLIST);
		io_write_varint(io, err);
	} else {
		io_write_byte(io, 0);
		if (s->protocol == 30 && err)
			io_send_int_msg(io, MSG_IO_ERROR, err);
	}
}

/* One id of a full list's id list: its name, the first time it is met. */
struct idl { struct sess *s; int kind; struct idset seen; };

static void id_list_one(void *ctx, uint32_t id)
{
	struct idl *l = ctx;
	const char *name;

	if (id == 0 || !idset_add(&l->seen, id) || (name = fsc_idname(l->kind, id)) == NULL)
		return;
	io_write_varint30(&l->s->io, (int32_t)id);
	write_name(&l->s->io, name);
}

/* uid/gid name lists after the first list (no incremental recursion):
 * the owners (-o) or groups (-g), and the ids ACLs name (-A). */
void flenc_id_list(struct sess *s, const struct flist *fl, int kind)
{
	struct io *io = &s->io;
	struct idl l = { s, kind, { NULL, 0, 0 } };
	int owners = kind == PR_ID_USER ? s->opt.owner : s->opt.group;

	if (!s->numeric_ids) {
		for (size_t i = 0; i < fl->n; i++) {
			if (owners)
				id_list_one(&l, kind == PR_ID_USER ? fl->e[i].st.uid : fl->e[i].st.gid);
			if (s->opt.acls && fl->e[i].x)
				xa_acl_ids(s, &fl->e[i].x->xa, kind, id_list_one, &l);
		}
	}
	io_write_varint30(io, 0);
	if (s->compat_flags & CF_ID0_NAMES) {
		const char *name = s->numeric_ids ? NULL : fsc_idname(kind, 0);

		write_name(io, name ? name : "");
	}
	free(l.seen.v);
}

struct flenc *flenc_new(void)
{
	struct flenc *enc = calloc(1, sizeof(*enc));

	if (enc == NULL)
		mon_exit(RERR_MALLOC);
	enc->pv.first = 1;
	return enc;
}

void flenc_free(struct flenc *enc)
{
	free(enc->hl.t);
	free(enc->users.v);
	free(enc->groups.v);
	free(enc);
}
