/* SPDX-License-Identifier: ISC */
/*
 * Requests to the monitor for filesystem facts.  Answers are validated by
 * the shared validator before we see them; a missing or unexpected answer
 * means the monitor is gone or broken, and the worker stops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsclient.h"
#include "mon.h"

/* A name the filesystem would refuse as too long (a path of 4096 bytes or
 * more, a component over 255) gets its ENAMETOOLONG here, as stat(2) would
 * answer: rsyncd's clients see "File name too long (36)" for it.  Any
 * other malformed path is our own bug. */
static int set_path(struct pr_str_relpath *d, const char *path)
{
	size_t len = strlen(path), comp = 0;

	for (size_t i = 0; i <= len; i++) {
		comp = i < len && path[i] != '/' ? comp + 1 : 0;
		if (comp > 255)
			return ENAMETOOLONG;
	}
	if (len >= PR_RELPATH_MAX)
		return ENAMETOOLONG;
	if (pr_str_set_relpath(d, path) < 0 || !pr_relpath_ok(d->s, d->len)) {
		mon_log(PR_LOG_ERR, "internal error: bad module path requested");
		mon_exit(14);
	}
	return 0;
}

/* One record of an answer that comes in pieces (LIST, XATTR): anything
 * the validator refuses ends the session, with what was expected; a
 * descriptor that should not be there is dropped. */
static void recv_piece(struct pr_msg *m, const char *what)
{
	const char *why;
	int fd;

	if (pr_ipc_recv(&mon_ipc, m, &fd, &why) != PR_IPC_OK) {
		mon_log(PR_LOG_ERR, "%s from the monitor: %s", what, why ? why : "channel closed");
		mon_exit(14);
	}
	if (fd >= 0)
		close(fd);
}

/*
 * The whole listing is collected before any entry is handed to fn, because
 * fn may itself ask the monitor something (a long symlink target, -L), and
 * the channel carries one conversation at a time.
 */
int fsc_list(const char *path, fsc_list_fn fn, void *ctx)
{
	/* Kept from one listing to the next (a listing costs no allocation per
	 * entry, nor per directory once they are big enough), released after
	 * an unusually big directory. */
	static struct pr_dirent *ents;
	static char *bytes;
	static size_t cap, bcap;
	struct pr_msg m;
	size_t n = 0, used = 0;
	int err;

	pr_msg_init(&m, PR_W_LIST);
	if ((err = set_path(&m.u.path.path, path)) != 0)
		return err;
	mon_send(&m, -1);
	/* Bounded by the directory's size: each message carries >= 1 entry. */
	for (;;) {
		recv_piece(&m, "bad listing answer");
		if (m.h.type == PR_M_LIST_END) {
			err = m.u.list_end.err;
			break;
		}
		if (m.h.type != PR_M_LIST) {
			mon_log(PR_LOG_ERR, "unexpected answer %s from the monitor", pr_msg_type_name(m.h.type));
			mon_exit(14);
		}
		size_t off = 0;
		struct pr_dirent d;
		while (pr_list_next(&m.u.list, &off, &d) == 1) {
			size_t len = (size_t)d.name_len + d.link_len;

			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				if ((ents = realloc(ents, cap * sizeof(*ents))) == NULL)
					mon_exit(22);
			}
			if (bcap - used < len + 1) {
				bcap = bcap ? bcap * 2 : 65536;
				if (bcap - used < len + 1)
					bcap = used + len + 1;
				if ((bytes = realloc(bytes, bcap)) == NULL)
					mon_exit(22);
			}
			memcpy(bytes + used, d.name, len);
			bytes[used + len] = '\0';
			/* offsets until every byte is in: the buffer may move */
			d.name = (const char *)(uintptr_t)used;
			d.link = (const char *)(uintptr_t)(used + d.name_len);
			ents[n++] = d;
			used += len + 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		ents[i].name = bytes + (uintptr_t)ents[i].name;
		ents[i].link = bytes + (uintptr_t)ents[i].link;
	}
	static int busy; /* fn never lists: the buffers are one listing's */
	if (busy++) {
		mon_log(PR_LOG_ERR, "internal error: a listing inside a listing");
		mon_exit(14);
	}
	for (size_t i = 0; i < n; i++) {
		if (fn(ctx, &ents[i]) != 0)
			break;
	}
	busy = 0;
	if (bcap > ((size_t)1 << 22)) {
		free(bytes);
		free(ents);
		bytes = NULL;
		ents = NULL;
		bcap = cap = 0;
	}
	return err;
}

int fsc_stat(const char *path, int follow, struct pr_stat *st, char *link, size_t linkcap)
{
	struct pr_msg m;
	int err;

	pr_msg_init(&m, PR_W_STAT);
	m.u.stat.flags = follow ? PR_STAT_FOLLOW : 0;
	if ((err = set_path(&m.u.stat.path, path)) != 0)
		return err;
	mon_send(&m, -1);
	mon_expect(&m, PR_M_STAT, NULL);
	if (m.u.mstat.err)
		return m.u.mstat.err;
	*st = m.u.mstat.st;
	if (link && linkcap) {
		link[0] = '\0';
		if (m.u.mstat.link_state == PR_LINK_INLINE && m.u.mstat.link.len < linkcap)
			memcpy(link, m.u.mstat.link.s, (size_t)m.u.mstat.link.len + 1);
		else if (m.u.mstat.link_state == PR_LINK_LONG)
			return fsc_readlink(path, link, linkcap);
		else if (m.u.mstat.link_state == PR_LINK_ERROR)
			return EIO;
	}
	return 0;
}

void fsc_stat_many(struct fsc_statq *q, size_t n)
{
	struct pr_msg m;
	int sent[FSC_STAT_BATCH];

	if (n > FSC_STAT_BATCH)
		n = FSC_STAT_BATCH;
	for (size_t i = 0; i < n; i++) {
		pr_msg_init(&m, PR_W_STAT);
		m.u.stat.flags = q[i].follow ? PR_STAT_FOLLOW : 0;
		q[i].link[0] = '\0';
		q[i].err = set_path(&m.u.stat.path, q[i].path);
		sent[i] = q[i].err == 0;
		if (sent[i])
			mon_send(&m, -1);
	}
	for (size_t i = 0; i < n; i++) {
		if (!sent[i])
			continue;
		mon_expect(&m, PR_M_STAT, NULL);
		if ((q[i].err = (int)m.u.mstat.err) != 0)
			continue;
		q[i].st = m.u.mstat.st;
		if (m.u.mstat.link_state == PR_LINK_INLINE && m.u.mstat.link.len < FS_LINK_MAX)
			memcpy(q[i].link, m.u.mstat.link.s, (size_t)m.u.mstat.link.len + 1);
		else if (m.u.mstat.link_state == PR_LINK_ERROR)
			q[i].err = EIO;
		else if (m.u.mstat.link_state == PR_LINK_LONG)
			sent[i] = 2; /* read once every answer is in */
	}
	for (size_t i = 0; i < n; i++)
		if (sent[i] == 2)
			q[i].err = fsc_readlink(q[i].path, q[i].link, FS_LINK_MAX);
}

/*
 * Descriptors from the monitor: how many we hold (the monitor refuses more
 * than FS_MAX_HANDLES, counting the ones whose close it has not heard of),
 * and the closes not yet reported.  They travel in the next OPENV, so a
 * file costs no record of its own to close.
 */
#define HANDLES_MAX 32u    /* the monitor's FS_MAX_HANDLES */
_Static_assert(HANDLES_MAX <= PR_CLOSEV_MAX, "a report names every pending close");
static uint32_t closed_q[PR_CLOSEV_MAX];
static size_t nclosed, nopen;

/* Descriptors done with, closed together before more arrive (pr_close_fds:
 * one close_range for each run of consecutive numbers, so sorted first:
 * files end in any order). */
static int done_fds[PR_OPENV_MAX];
static size_t ndone;

static void close_done(void)
{
	for (size_t i = 1; i < ndone; i++) { /* insertion sort: at most a batch */
		int v = done_fds[i];
		size_t j = i;

		for (; j > 0 && done_fds[j - 1] > v; j--)
			done_fds[j] = done_fds[j - 1];
		done_fds[j] = v;
	}
	pr_close_fds(done_fds, ndone);
	ndone = 0;
}

static void flush_closes(void)
{
	struct pr_msg m;

	if (nclosed == 0)
		return;
	pr_msg_init(&m, PR_W_CLOSEV);
	m.u.closev.nclosed = (uint32_t)nclosed;
	memcpy(m.u.closev.closed, closed_q, nclosed * sizeof(closed_q[0]));
	mon_send(&m, -1);
	nclosed = 0;
}

/* Pending closes do not count: every request reports them before it opens. */
size_t fsc_open_room(void)
{
	return nopen < HANDLES_MAX ? HANDLES_MAX - nopen : 0;
}

static size_t openv(const char *const *paths, size_t n, struct fsc_opened *out, int hidden);

/* One path is an OPENV of one: the monitor has a single way to open. */
static int open_path(const char *path, int *fd, uint32_t *handle, struct pr_stat *st, int hidden)
{
	struct pr_str_relpath checked;
	struct fsc_opened o;
	int err;

	if ((err = set_path(&checked, path)) != 0) /* the length rules, as for a STAT */
		return err;
	if (openv(&path, 1, &o, hidden) == 0)
		return EMFILE; /* every handle the monitor allows is out */
	*fd = o.fd;
	*handle = o.handle;
	*st = o.st;
	return o.err;
}

int fsc_open(const char *path, int *fd, uint32_t *handle, struct pr_stat *st)
{
	return open_path(path, fd, handle, st, 0);
}

int fsc_open_judged(const char *path, int *fd, uint32_t *handle, struct pr_stat *st)
{
	return open_path(path, fd, handle, st, 1);
}

void fsc_close(int fd, uint32_t handle)
{
	if (ndone == PR_OPENV_MAX)
		close_done();
	done_fds[ndone++] = fd;
	if (nopen > 0)
		nopen--;
	if (nclosed == PR_CLOSEV_MAX)
		flush_closes();
	closed_q[nclosed++] = handle;
}

size_t fsc_openv(const char *const *paths, size_t n, struct fsc_opened *out)
{
	return openv(paths, n, out, 0);
}

/* hidden: pass PR_EHIDDEN on; else it is the ENOENT it stands for. */
static size_t openv(const char *const *paths, size_t n, struct fsc_opened *out, int hidden)
{
	struct pr_msg m;
	int fds[PR_OPENV_MAX];
	size_t asked = 0, nfds, k = 0, room = fsc_open_room();

	pr_msg_init(&m, PR_W_OPENV);
	m.u.openv.nclosed = (uint32_t)nclosed;
	memcpy(m.u.openv.closed, closed_q, nclosed * sizeof(closed_q[0]));
	while (asked < n && asked < room && asked < PR_OPENV_MAX) {
		if (!pr_relpath_ok(paths[asked], strlen(paths[asked]))) {
			mon_log(PR_LOG_ERR, "internal error: bad module path requested");
			mon_exit(14);
		}
		if (pr_openv_add(&m.u.openv, paths[asked]) < 0)
			break;
		asked++;
	}
	if (asked == 0)
		return 0;
	close_done();
	mon_send(&m, -1);
	nclosed = 0;
	mon_expect_fds(&m, PR_M_OPENV, fds, PR_OPENV_MAX, &nfds);
	if (m.u.mopenv.count != asked) {
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		mon_log(PR_LOG_ERR, "OPENV answered %u paths of %zu", m.u.mopenv.count, asked);
		mon_exit(14);
	}
	for (size_t i = 0; i < asked; i++) {
		const struct pr_openv_ent *e = &m.u.mopenv.e[i];

		out[i].err = e->err == PR_EHIDDEN && !hidden ? ENOENT : e->err;
		out[i].fd = -1;
		if (e->err == 0) {
			out[i].fd = fds[k++]; /* the validator matched the count */
			out[i].handle = e->handle;
			out[i].st = e->st;
			nopen++;
		}
	}
	return asked;
}

int fsc_readlink(const char *path, char *buf, size_t cap)
{
	struct pr_msg m;
	int err;

	pr_msg_init(&m, PR_W_READLINK);
	if ((err = set_path(&m.u.path.path, path)) != 0)
		return err;
	mon_send(&m, -1);
	mon_expect(&m, PR_M_READLINK, NULL);
	if (m.u.readlink.err)
		return m.u.readlink.err;
	if (m.u.readlink.target.len >= cap)
		return ENAMETOOLONG;
	memcpy(buf, m.u.readlink.target.s, (size_t)m.u.readlink.target.len + 1);
	return 0;
}

int fsc_xattrs(const char *path, int follow, unsigned char **out, size_t *len, uint32_t *count)
{
	struct pr_msg m;
	unsigned char *buf = NULL;
	size_t used = 0;
	int err;

	*out = NULL;
	*len = 0;
	*count = 0;
	pr_msg_init(&m, PR_W_XATTR);
	m.u.stat.flags = follow ? PR_STAT_FOLLOW : 0;
	if ((err = set_path(&m.u.stat.path, path)) != 0)
		return err;
	mon_send(&m, -1);
	/* Bounded: the monitor stops at PR_XATTR_TOTAL_MAX, and so do we. */
	for (;;) {
		recv_piece(&m, "invalid answer");
		if (m.h.type == PR_M_XATTR_END)
			break;
		if (m.h.type != PR_M_XATTR) {
			mon_log(PR_LOG_ERR, "unexpected answer %s from the monitor", pr_msg_type_name(m.h.type));
			mon_exit(14);
		}
		if (PR_XATTR_TOTAL_MAX - used < m.u.xattr.used) {
			free(buf);
			mon_log(PR_LOG_ERR, "bad xattr answer from the monitor: more than %u bytes", PR_XATTR_TOTAL_MAX);
			mon_exit(14);
		}
		if (buf == NULL && (buf = malloc(PR_XATTR_TOTAL_MAX)) == NULL)
			mon_exit(22);
		memcpy(buf + used, m.u.xattr.data, m.u.xattr.used);
		used += m.u.xattr.used;
	}
	if (m.u.xattr_end.err != 0 || m.u.xattr_end.total != used) {
		free(buf);
		if (m.u.xattr_end.err == 0) {
			mon_log(PR_LOG_ERR, "bad xattr answer from the monitor: %zu bytes for %u", used,
				m.u.xattr_end.total);
			mon_exit(14);
		}
		return m.u.xattr_end.err;
	}
	*out = buf;
	*len = used;
	*count = m.u.xattr_end.count;
	return 0;
}

/* A small cache: a tree has few distinct owners, and each costs a round trip. */
#define ID_CACHE 256
static struct { int kind; uint32_t id; char *name; int used; } id_cache[ID_CACHE];

const char *fsc_idname(int kind, uint32_t id)
{
	struct pr_msg m;
	size_t slot = (id * 31u + (unsigned)kind) % ID_CACHE;

	if (id_cache[slot].used && id_cache[slot].kind == kind && id_cache[slot].id == id)
		return id_cache[slot].name;
	pr_msg_init(&m, PR_W_IDNAME);
	m.u.idname.kind = (uint32_t)kind;
	m.u.idname.id = id;
	mon_send(&m, -1);
	mon_expect(&m, PR_M_IDNAME, NULL);
	free(id_cache[slot].name);
	id_cache[slot].kind = kind;
	id_cache[slot].id = id;
	id_cache[slot].used = 1;
	id_cache[slot].name = m.u.midname.found ? strdup(m.u.midname.name.s) : NULL;
	return id_cache[slot].name;
}
