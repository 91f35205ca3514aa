/*
 * The worker's filesystem requests, answered by the session monitor after
 * it selected a module and confined itself (session.c).
 *
 * Paths arrive checked by the shared validator (pr_relpath_ok): relative,
 * no "." / ".." / empty components.  That is not what keeps them inside the
 * module: every path is resolved by resolve() (resolve.c) beneath the root
 * descriptor, by the kernel when no symlink is in the way, else by a walk
 * from held descriptors that reads each link itself and refuses absolute
 * targets and ".." above the root, whenever they were put there.  The last
 * component is not followed, except for STAT with PR_STAT_FOLLOW.  Directory
 * entries are read with fstatat/readlinkat on a single name relative to the
 * open directory, which cannot leave it either.
 *
 * The module's filters are enforced on the paths resolve() really walks and
 * on the names requests give: a hidden path, anything below a hidden
 * directory, anything reached through a link into one, is answered with
 * ENOENT (before the filesystem is touched where the name alone decides),
 * and LIST leaves hidden entries out, so a worker can neither read a hidden
 * file nor learn it exists.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsreq.h"
#include "log.h"
#include "resolve.h"

#define LIST_MAX_READS 65536 /* getdents64 calls per listing (32 KiB each) */

static int send_msg_fds(struct fsreq *f, struct pr_msg *m, const int *fds, size_t nfds)
{
	if (pr_ipc_send_fds(f->ipc, m, fds, nfds) == 0)
		return 0;
	log_msg(PR_LOG_ERR, "cannot send %s to worker: %s", pr_msg_type_name(m->h.type), strerror(errno));
	return -1;
}

static int send_msg(struct fsreq *f, struct pr_msg *m, int fd)
{
	return send_msg_fds(f, m, &fd, fd >= 0 ? 1 : 0);
}

/* --- identities, resolved before the monitor gives up root ---------------- */

/* As rsyncd: all digits is a number, anything else a name.  what: 'u' the
 * uid of a user, 'p' the primary gid of a user, 'g' the gid of a group. */
static int lookup_id(const char *s, int what, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	struct passwd *pw = NULL;
	struct group *gr = NULL;

	if (s[0] >= '0' && s[0] <= '9' && *end == '\0') {
		*out = (uint32_t)v;
		return v < UINT32_MAX ? 0 : -1; /* (uid_t)-1 would mean "unchanged" */
	}
	if (what == 'g')
		gr = getgrnam(s);
	else
		pw = getpwnam(s);
	if (pw == NULL && gr == NULL)
		return -1;
	*out = gr ? gr->gr_gid : what == 'u' ? pw->pw_uid : pw->pw_gid;
	return 0;
}

/* An entry that cannot be stored (name not 1..255 bytes, no memory) is left
 * out: IDNAME then answers "not found", and the id travels as a number. */
static void id_add(struct fs_ids *t, uint32_t id, const char *name)
{
	size_t len = strlen(name);

	if (t->e != NULL && len >= 1 && len <= 255 && (t->e[t->n].name = strdup(name)) != NULL)
		t->e[t->n++].id = id;
}

/* The uid/gid -> name tables, read while NSS still works. */
static void load_ids(struct fsreq *f)
{
	struct passwd *pw;
	struct group *gr;

	f->users.e = calloc(FS_MAX_IDS, sizeof(struct fs_id));
	f->groups.e = calloc(FS_MAX_IDS, sizeof(struct fs_id));
	setpwent();
	for (int i = 0; i < FS_MAX_IDS && (pw = getpwent()) != NULL; i++)
		id_add(&f->users, pw->pw_uid, pw->pw_name);
	endpwent();
	setgrent();
	for (int i = 0; i < FS_MAX_IDS && (gr = getgrent()) != NULL; i++)
		id_add(&f->groups, gr->gr_gid, gr->gr_name);
	endgrent();
}

/* The module's filter directives, in rsyncd's order, as one list, and the
 * two walks that judge paths with it (the request's name, the real path). */
static int load_filters(struct fsreq *f, const struct cfg_module *mod)
{
	char why[256];

	for (int k = 0; k < CFG_F_N; k++) {
		if (mod->filt[k] && modfilter_add(&f->hide, (enum cfg_filt)k, mod->filt[k], why, sizeof(why)) < 0) {
			log_msg(PR_LOG_ERR, "module %s: filters: %s", mod->name, why);
			return -1;
		}
	}
	if (mfw_init(&f->byname, &f->hide) < 0 || mfw_init(&f->canon, &f->hide) < 0) {
		log_msg(PR_LOG_ERR, "module %s: filters: out of memory", mod->name);
		return -1;
	}
	return 0;
}

int fs_prepare(struct fsreq *f, struct pr_ipc *ipc, const struct cfg_module *mod)
{
	const char *user = mod->uid ? mod->uid : "nobody";
	const char *group = mod->gid ? mod->gid : "nobody";

	if (load_filters(f, mod) < 0)
		return -1;

	f->ipc = ipc;
	f->module = mod->name;
	f->root = -1;
	f->numeric_ids = mod->numeric_ids >= 0 ? mod->numeric_ids != 0 : mod->use_chroot != 0;
	if (lookup_id(user, 'u', &f->uid) < 0 || lookup_id(group, mod->gid ? 'g' : 'p', &f->gid) < 0)
		log_msg(PR_LOG_ERR, "module %s: unknown uid '%s' or gid '%s'", mod->name, user, group);
	else if ((f->root = open(mod->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		log_msg(PR_LOG_ERR, "module %s: cannot open path %s: %s", mod->name, mod->path, strerror(errno));
	else if (!f->numeric_ids)
		load_ids(f); /* numeric ids: nothing to disclose, and no NSS enumeration */
	return f->root < 0 ? -1 : 0;
}

static struct pr_stat to_pr_stat(const struct stat *st)
{
	return (struct pr_stat){
		.mode = st->st_mode, .nlink = (uint32_t)st->st_nlink, .size = (uint64_t)st->st_size,
		.mtime = st->st_mtim.tv_sec, .mtime_nsec = (uint32_t)st->st_mtim.tv_nsec,
		.uid = st->st_uid, .gid = st->st_gid, .dev = st->st_dev, .ino = st->st_ino,
		.rdev = st->st_rdev, .atime = st->st_atim.tv_sec, .atime_nsec = (uint32_t)st->st_atim.tv_nsec,
	};
}

/* Read a symlink target into buf (PR_RELPATH_MAX bytes, NUL-terminated).
 * Returns its PR_LINK_* state (errno set for PR_LINK_ERROR); *inl is its
 * length if it travels inline, else 0. */
static uint32_t read_link(int dirfd, const char *name, char *buf, size_t *inl)
{
	ssize_t n = readlinkat(dirfd, name, buf, PR_RELPATH_MAX);

	*inl = 0;
	if (n <= 0 || n >= (ssize_t)PR_RELPATH_MAX) {
		/* readlinkat(fd, "") of a non-link says ENOENT; readlink(2) says EINVAL */
		errno = n >= 0 ? ENAMETOOLONG : errno == ENOENT && name[0] == '\0' ? EINVAL : errno;
		return PR_LINK_ERROR;
	}
	buf[n] = '\0';
	*inl = n <= (ssize_t)PR_LINK_INLINE_MAX ? (size_t)n : 0;
	return *inl ? PR_LINK_INLINE : PR_LINK_LONG;
}

/* --- module filters ---------------------------------------------------------- */

/* Is entry `name` of the directory resolve() reached hidden, as type?
 * (MF_BOTH: its type is unknown; hidden if either hides.)  Judged on the
 * request's spelling and, if links were followed, on the real path. */
static int entry_hidden(struct fsreq *f, const struct res *r, const char *name, size_t len, unsigned type)
{
	if (f->hide.n == 0)
		return 0;
	return mfw_judge(&f->byname, name, len, type) || (r->walked && mfw_judge(&f->canon, name, len, type));
}

#ifdef PRSYNCD_TEST_HOOKS
/* Test builds: the filter work of each request that did any, and the
 * session's total, for the tests that bound it (t_hostile_fs.sh). */
static void account(struct fsreq *f, const char *what, const char *path)
{
	uint64_t now = f->byname.steps + f->canon.steps;

	if (now != f->steps) {
		log_msg(PR_LOG_DEBUG, "filter work: %s of %zu bytes: %llu steps, session %llu", what, strlen(path),
			(unsigned long long)(now - f->steps), (unsigned long long)now);
		f->steps = now;
	}
}
#else
static void account(struct fsreq *f, const char *what, const char *path)
{
	(void)f;
	(void)what;
	(void)path;
}
#endif

/* --- handlers ---------------------------------------------------------------- */

/* Add one entry of an open directory to out; send out first if it is full. */
static int list_entry(struct fsreq *f, const struct res *r, struct pr_msg *out, const char *name)
{
	char target[PR_RELPATH_MAX];
	struct stat st;
	struct pr_stat ps = { 0 };
	size_t len = strlen(name), tlen = 0;
	uint32_t ls = PR_LINK_NONE;
	int32_t err = 0;

	if (len > 255 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	if (fstatat(r->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		err = errno;
	else
		ps = to_pr_stat(&st);
	if (entry_hidden(f, r, name, len, err ? MF_BOTH : S_ISDIR(st.st_mode) ? MF_DIR : MF_OTHER))
		return 0; /* hidden: as if absent */
	if (err == 0 && S_ISLNK(st.st_mode))
		ls = read_link(r->fd, name, target, &tlen);
	if (pr_list_add(&out->u.list, &ps, err, name, len, ls, target, tlen) == 0)
		return 0;
	if (send_msg(f, out, -1) < 0)
		return -1;
	pr_msg_init(out, PR_M_LIST);
	return pr_list_add(&out->u.list, &ps, err, name, len, ls, target, tlen);
}

int fs_list(struct fsreq *f, const struct pr_msg *m)
{
	static const struct res_how how = { .oflags = O_RDONLY | O_DIRECTORY, .need = S_IFDIR, .serves = MF_DIR };
	_Alignas(struct dirent64) char buf[32768];
	struct pr_msg out;
	struct res r;
	const char *path = m->u.path.path.s;
	int err = resolve(f, path, &how, &r), rc = 0;
	long n = 0;

	pr_msg_init(&out, PR_M_LIST);
	for (int i = 0; err == 0 && rc == 0 && i < LIST_MAX_READS; i++) {
		n = syscall(SYS_getdents64, r.fd, buf, sizeof(buf));
		if (n <= 0) {
			err = n < 0 ? errno : 0;
			break;
		}
		for (long off = 0; off < n && rc == 0;) {
			const struct dirent64 *d = (const void *)(buf + off);

			if (d->d_reclen == 0)
				break;
			off += d->d_reclen;
			rc = list_entry(f, &r, &out, d->d_name);
		}
	}
	if (n > 0 && rc == 0)
		err = EOVERFLOW; /* a directory beyond the bound */
	if (r.fd >= 0)
		close(r.fd);
	account(f, "LIST", path);
	if (rc < 0 || (out.u.list.count > 0 && send_msg(f, &out, -1) < 0))
		return -1;
	pr_msg_init(&out, PR_M_LIST_END);
	out.u.list_end.err = err;
	return send_msg(f, &out, -1);
}

int fs_stat(struct fsreq *f, const struct pr_msg *m)
{
	struct res_how how = { .oflags = O_PATH, .serves = MF_BOTH,
			       .follow = (m->u.stat.flags & PR_STAT_FOLLOW) != 0 };
	char target[PR_RELPATH_MAX];
	struct pr_msg out;
	struct res r;
	size_t inl = 0;
	const char *path = m->u.stat.path.s;

	pr_msg_init(&out, PR_M_STAT);
	out.u.mstat.err = resolve(f, path, &how, &r);
	if (out.u.mstat.err == 0) {
		out.u.mstat.st = to_pr_stat(&r.st);
		if (S_ISLNK(r.st.st_mode))
			out.u.mstat.link_state = read_link(r.fd, "", target, &inl);
		close(r.fd);
	}
	if (inl > 0)
		(void)pr_str_set_name(&out.u.mstat.link, target); /* fits: <= 255 bytes */
	account(f, "STAT", path);
	return send_msg(f, &out, -1);
}

/* Open one regular file for the worker: its answer, and the descriptor
 * (*fd, -1 on error) that goes with it; the handle is taken here. */
static void open_one(struct fsreq *f, const char *path, int32_t *err, uint32_t *handle,
		     struct pr_stat *st, int *fd)
{
	static const struct res_how how = { .oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY, .need = S_IFREG,
					    .serves = MF_OTHER };
	struct res r = { .fd = -1 };
	size_t slot = 0;

	while (slot < FS_MAX_HANDLES && f->handles[slot] != 0)
		slot++;
	if (slot == FS_MAX_HANDLES)
		*err = EMFILE;
	else
		*err = resolve(f, path, &how, &r);
	*fd = -1;
	if (*err == 0) {
		f->last_handle = f->last_handle % UINT32_MAX + 1; /* never 0 */
		f->handles[slot] = *handle = f->last_handle;
		*st = to_pr_stat(&r.st);
		*fd = r.fd;
	}
	account(f, "OPEN", path);
}

int fs_open(struct fsreq *f, const struct pr_msg *m)
{
	struct pr_msg out;
	int rc, fd;

	pr_msg_init(&out, PR_M_OPEN);
	open_one(f, m->u.path.path.s, &out.u.open.err, &out.u.open.handle, &out.u.open.st, &fd);
	rc = send_msg(f, &out, fd);
	if (fd >= 0)
		close(fd); /* after a successful send, the worker holds the only copy */
	return rc;
}

/* The worker closed a handle: it must be one it holds. */
static int close_handle(struct fsreq *f, uint32_t handle)
{
	for (size_t i = 0; i < FS_MAX_HANDLES && handle != 0; i++) {
		if (f->handles[i] == handle) {
			f->handles[i] = 0;
			return 0;
		}
	}
	log_msg(PR_LOG_ERR, "worker closed handle %u, which is not outstanding; ending session", handle);
	return -1;
}

int fs_close(struct fsreq *f, const struct pr_msg *m)
{
	return close_handle(f, m->u.close.handle);
}

int fs_closev(struct fsreq *f, const struct pr_msg *m)
{
	for (uint32_t i = 0; i < m->u.closev.nclosed; i++)
		if (close_handle(f, m->u.closev.closed[i]) < 0)
			return -1;
	return 0;
}

/* The closes it reports first (they free handles), then each path as one
 * OPEN, answered together: one descriptor per success, in order. */
int fs_openv(struct fsreq *f, const struct pr_msg *m)
{
	const struct pr_w_openv *b = &m->u.openv;
	int fds[PR_OPENV_MAX];
	struct pr_msg out;
	const char *path;
	size_t off = 0, len, nfds = 0;
	uint32_t n = 0;
	int rc;

	for (uint32_t i = 0; i < b->nclosed; i++)
		if (close_handle(f, b->closed[i]) < 0)
			return -1;
	pr_msg_init(&out, PR_M_OPENV);
	while (n < PR_OPENV_MAX && pr_openv_next(b, &off, &path, &len) == 1) {
		struct pr_openv_ent *e = &out.u.mopenv.e[n++];
		int fd;

		open_one(f, path, &e->err, &e->handle, &e->st, &fd);
		if (fd >= 0)
			fds[nfds++] = fd;
	}
	out.u.mopenv.count = n;
	out.u.mopenv.nfds = (uint32_t)nfds;
	rc = send_msg_fds(f, &out, fds, nfds);
	pr_close_fds(fds, nfds); /* after a successful send, the worker holds the only copies */
	return rc;
}

int fs_readlink(struct fsreq *f, const struct pr_msg *m)
{
	static const struct res_how how = { .oflags = O_PATH, .serves = MF_OTHER };
	char target[PR_RELPATH_MAX];
	struct pr_msg out;
	struct res r;
	size_t inl;
	const char *path = m->u.path.path.s;

	pr_msg_init(&out, PR_M_READLINK);
	out.u.readlink.err = resolve(f, path, &how, &r);
	if (out.u.readlink.err == 0) {
		if (read_link(r.fd, "", target, &inl) == PR_LINK_ERROR)
			out.u.readlink.err = errno;
		else
			(void)pr_str_set_relpath(&out.u.readlink.target, target); /* fits: < 4096 bytes */
		close(r.fd);
	}
	account(f, "READLINK", path);
	return send_msg(f, &out, -1);
}

int fs_idname(struct fsreq *f, const struct pr_msg *m)
{
	const struct fs_ids *t = m->u.idname.kind == PR_ID_USER ? &f->users : &f->groups;
	struct pr_msg out;

	pr_msg_init(&out, PR_M_IDNAME);
	for (size_t i = 0; i < t->n; i++) {
		if (t->e[i].id == m->u.idname.id) {
			out.u.midname.found = pr_str_set_name(&out.u.midname.name, t->e[i].name) == 0;
			break;
		}
	}
	return send_msg(f, &out, -1);
}
