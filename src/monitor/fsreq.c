/* SPDX-License-Identifier: ISC */
/*
 * The worker's filesystem requests, answered by the session monitor after
 * it selected a module and confined itself (session.c).
 *
 * Paths arrive checked by the shared validator (pr_relpath_ok): relative,
 * no "." / ".." / empty components.  That is not what keeps them inside the
 * module: every path is resolved by resolve() (resolve.c) beneath the root
 * descriptor, by the kernel when no symlink is in the way, else by a walk
 * from held descriptors that reads each link itself and keeps it beneath
 * the root, as rsyncd's chroot does, whenever it was put there.  LIST and
 * OPEN follow a link in the last component too (opendir and open do, in
 * rsyncd's chroot: -L, -k and "dir/" arguments need it), STAT only with
 * PR_STAT_FOLLOW, READLINK never.  Directory entries are read with
 * fstatat/readlinkat on a single name relative to the open directory,
 * which cannot leave it either.
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
#include <sys/statfs.h>
#include <sys/statvfs.h> /* ST_NODEV */
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fsreq.h"
#include "log.h"
#include "resolve.h"
#include "safeopen.h"

#define LIST_MAX_READS 65536 /* getdents64 calls per listing (32 KiB each) */

/* Send m with the descriptors fds, then close them: after a successful
 * send the worker holds the only copies. */
static int send_msg_fds(struct fsreq *f, struct pr_msg *m, const int *fds, size_t nfds)
{
	int rc = pr_ipc_send_fds(f->ipc, m, fds, nfds), e = errno;

	pr_close_fds(fds, nfds);
	if (rc == 0)
		return 0;
	log_msg(PR_LOG_ERR, "cannot send %s to worker: %s", pr_msg_type_name(m->h.type), strerror(e));
	return -1;
}

/* --- identities, resolved before the monitor gives up root ---------------- */

/* An id written as a number: 0 (out set), 1 if s is not one. */
static int numeric_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!(s[0] >= '0' && s[0] <= '9' && *end == '\0') || v >= UINT32_MAX) /* (uid_t)-1: "unchanged" */
		return 1;
	*out = (uint32_t)v;
	return 0;
}

/* As rsyncd: all digits is a number, anything else a name.  what: 'u' the
 * uid of a user, 'p' the primary gid of a user, 'g' the gid of a group. */
static int lookup_id(const char *s, int what, uint32_t *out)
{
	struct passwd *pw = NULL;
	struct group *gr = NULL;

	if (s[0] >= '0' && s[0] <= '9')
		return numeric_id(s, out) == 0 ? 0 : -1;
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

/* The uid/gid -> name tables. */
static void load_ids(struct fs_idmap *m)
{
	struct passwd *pw;
	struct group *gr;

	m->users.e = calloc(FS_MAX_IDS, sizeof(struct fs_id));
	m->groups.e = calloc(FS_MAX_IDS, sizeof(struct fs_id));
	setpwent();
	for (int i = 0; i < FS_MAX_IDS && (pw = getpwent()) != NULL; i++)
		id_add(&m->users, pw->pw_uid, pw->pw_name);
	endpwent();
	setgrent();
	for (int i = 0; i < FS_MAX_IDS && (gr = getgrent()) != NULL; i++)
		id_add(&m->groups, gr->gr_gid, gr->gr_name);
	endgrent();
}

/* rsyncd maps no names for chroot modules unless told otherwise. */
static int maps_names(const struct cfg_module *mod)
{
	return mod->numeric_ids >= 0 ? mod->numeric_ids == 0 : mod->use_chroot == 0;
}

static int same_text(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

void fs_idmap_load(struct fs_idmap *m, const struct cfg *cfg)
{
	int names = 0;

	m->mod = calloc(cfg->nmodules + 1, sizeof(*m->mod));
	for (size_t i = 0; m->mod != NULL && i < cfg->nmodules; i++) {
		const struct cfg_module *mod = &cfg->modules[i];
		size_t j = 0;

		names |= maps_names(mod);
		/* One lookup per distinct uid/gid pair, however many modules. */
		while (j < i && !(same_text(cfg->modules[j].uid, mod->uid) && same_text(cfg->modules[j].gid, mod->gid)))
			j++;
		if (j < i) {
			m->mod[i] = m->mod[j];
			continue;
		}
		m->mod[i].uid_var = mod->uid != NULL && strchr(mod->uid, '%') != NULL;
		m->mod[i].gid_var = mod->gid != NULL && strchr(mod->gid, '%') != NULL;
		m->mod[i].uid_ok = !m->mod[i].uid_var &&
				   lookup_id(mod->uid ? mod->uid : "nobody", 'u', &m->mod[i].uid) == 0;
		m->mod[i].gid_ok = !m->mod[i].gid_var &&
				   lookup_id(mod->gid ? mod->gid : "nobody", mod->gid ? 'g' : 'p', &m->mod[i].gid) == 0;
	}
	if (names)
		load_ids(m); /* numeric ids only: nothing to disclose, and no NSS enumeration */
}

static void ids_free(struct fs_ids *t)
{
	for (size_t i = 0; t->e != NULL && i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	*t = (struct fs_ids){ 0 };
}

void fs_idmap_free(struct fs_idmap *m)
{
	free(m->mod);
	m->mod = NULL;
	ids_free(&m->users);
	ids_free(&m->groups);
}

/*
 * At selection, the selected module's settings, name tables and filters:
 * configuration only (a %VAR% in its filter text expands to a plain name,
 * modvars.c), nothing a request sends.  The filter directives, in rsyncd's
 * order, make one list, and the two walks judge paths with it (the
 * request's name, the real path).  What the worker must know of the module
 * (PR_MOD_*) is worked out here too.
 */
static int fs_configure(struct fsreq *f, const struct cfg_module *mod, const struct fs_idmap *ids)
{
	char why[256];

	f->module = mod->name;
	f->root = -1;
	f->numeric_ids = !maps_names(mod);
	f->ignore_nonreadable = mod->ignore_nonreadable;
	f->noatime = mod->open_noatime;
	if (!f->numeric_ids) {
		f->users = ids->users;
		f->groups = ids->groups;
	}
	if (mod->munge_symlinks >= 0 ? mod->munge_symlinks : !mod->use_chroot)
		f->mod_flags |= PR_MOD_MUNGE;
	for (int k = 0; k < CFG_F_N; k++) {
		if (mod->filt[k] && modfilter_add(&f->hide, (enum cfg_filt)k, mod->filt[k], why, sizeof(why)) < 0) {
			log_msg(PR_LOG_ERR, "module %s: filters: %s", mod->name, why);
			return -1;
		}
	}
	for (size_t i = 0; i < f->hide.n; i++)
		if (f->hide.r[i].flags & PR_FR_XATTR)
			f->mod_flags |= PR_MOD_XATTR_RULES;
	if (f->hide.n > 0)
		f->mod_flags |= PR_MOD_FILTERS;
	if (mod->use_chroot != 0)
		f->mod_flags |= PR_MOD_CHROOT;
	if (mfw_init(&f->byname, &f->hide) < 0 || mfw_init(&f->canon, &f->hide) < 0) {
		log_msg(PR_LOG_ERR, "module %s: filters: out of memory", mod->name);
		return -1;
	}
	return 0;
}

int fs_prepare(struct fsreq *f, struct pr_ipc *ipc, const struct cfg_module *mod,
	       const struct fs_idmap *ids, size_t idx, char *errtext, size_t errlen)
{
	const char *user = mod->uid ? mod->uid : "nobody";
	const char *group = mod->gid ? mod->gid : "nobody";
	const struct fs_modids *id = ids->mod ? &ids->mod[idx] : NULL;
	char why[512];

	snprintf(errtext, errlen, "@ERROR: chdir failed");
	f->ipc = ipc;
	if (fs_configure(f, mod, ids) < 0)
		return -1;
	/* rsyncd's texts, its log line ("Invalid uid NAME") with the module.  A
	 * per-connection %VAR% value was not known before the worker existed:
	 * only a number can be taken then (no NSS in the filtered monitor). */
	if (id == NULL || (id->uid_var ? numeric_id(user, &f->uid) : (f->uid = id->uid, !id->uid_ok))) {
		log_msg(PR_LOG_ERR, "module %s: Invalid uid %s", mod->name, user);
		snprintf(errtext, errlen, "@ERROR: invalid uid %s", user);
		return -1;
	}
	if (id->gid_var ? numeric_id(group, &f->gid) : (f->gid = id->gid, !id->gid_ok)) {
		log_msg(PR_LOG_ERR, "module %s: Invalid gid %s", mod->name, group);
		snprintf(errtext, errlen, "@ERROR: invalid gid %s", group);
		return -1;
	}
	/* safe_open walks with openat2: the filtered monitor has no open/openat. */
	if ((f->root = safe_open(mod->path, O_PATH | O_DIRECTORY, 0, why, sizeof(why))) < 0)
		log_msg(PR_LOG_ERR, "module %s: cannot open path %s: %s", mod->name, mod->path, why);
	return f->root < 0 ? -1 : 0;
}

/* The flags were worked out at selection (fs_configure); what is left
 * needs the confined filesystem view. */
int fs_module_flags(struct fsreq *f, const struct cfg_module *mod, uint32_t *flags)
{
	static const struct res_how how = { .oflags = O_PATH, .need = S_IFDIR, .serves = MF_BOTH, .follow = 1 };
	struct res r;

	*flags = f->mod_flags;
	if (!(f->mod_flags & PR_MOD_MUNGE) || resolve(f, "rsyncd-munged", &how, &r) != 0)
		return 0;
	close(r.fd);
	log_msg(PR_LOG_ERR, "module %s: symlink munging is unsafe when a /rsyncd-munged directory exists",
		f->module);
	return -1;
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
#define account(f, what, path) ((void)0) /* release builds keep no count */
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
	unsigned type;

	if (len > 255 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	if (fstatat(r->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		err = errno;
	else
		ps = to_pr_stat(&st);
	/* Hidden (judged on the request's spelling and, if links were
	 * followed, on the real path; MF_BOTH: its type is unknown, hidden if
	 * either hides): as if absent. */
	type = err ? MF_BOTH : S_ISDIR(st.st_mode) ? MF_DIR : MF_OTHER;
	if (mfw_judge(&f->byname, name, len, type) || (r->walked && mfw_judge(&f->canon, name, len, type)))
		return 0;
	/* "ignore nonreadable": as rsyncd, what the module's uid cannot read
	 * (symlinks aside) is left out of listings, the kernel judging. */
	if (f->ignore_nonreadable && err == 0 && !S_ISLNK(st.st_mode) &&
	    syscall(SYS_faccessat, r->fd, name, R_OK) != 0)
		return 0;
	if (err == 0 && S_ISLNK(st.st_mode))
		ls = read_link(r->fd, name, target, &tlen);
	if (pr_list_add(&out->u.list, &ps, err, name, len, ls, target, tlen) == 0)
		return 0;
	if (send_msg_fds(f, out, NULL, 0) < 0)
		return -1;
	pr_msg_init(out, PR_M_LIST);
	return pr_list_add(&out->u.list, &ps, err, name, len, ls, target, tlen);
}

int fs_list(struct fsreq *f, const struct pr_msg *m)
{
	const struct res_how how = { .oflags = O_RDONLY | O_DIRECTORY | (f->noatime ? O_NOATIME : 0),
				     .need = S_IFDIR, .serves = MF_DIR, .follow = 1 };
	_Alignas(struct dirent64) char buf[32768];
	struct pr_msg out;
	struct res r;
	const char *path = m->u.path.path.s;
	int err = resolve(f, path, &how, &r), rc = 0;
	long n = 0;

	pr_msg_init(&out, PR_M_LIST);
	for (int i = 0; err == 0 && rc == 0 && i < LIST_MAX_READS; i++) {
		if ((n = syscall(SYS_getdents64, r.fd, buf, sizeof(buf))) <= 0) {
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
	if (rc < 0 || (out.u.list.count > 0 && send_msg_fds(f, &out, NULL, 0) < 0))
		return -1;
	pr_msg_init(&out, PR_M_LIST_END);
	out.u.list_end.err = err;
	return send_msg_fds(f, &out, NULL, 0);
}

int fs_stat(struct fsreq *f, const struct pr_msg *m)
{
	struct res_how how = { .oflags = O_PATH, .serves = MF_BOTH,
			       .follow = (m->u.stat.flags & PR_STAT_FOLLOW) ? 2 : 0 };
	char target[PR_RELPATH_MAX];
	struct pr_msg out;
	struct res r;
	size_t inl;
	const char *path = m->u.stat.path.s;

	pr_msg_init(&out, PR_M_STAT);
	out.u.mstat.err = resolve(f, path, &how, &r);
	if (out.u.mstat.err == 0) {
		out.u.mstat.st = to_pr_stat(&r.st);
		if (S_ISLNK(r.st.st_mode) &&
		    (out.u.mstat.link_state = read_link(r.fd, "", target, &inl)) == PR_LINK_INLINE)
			(void)pr_str_set_name(&out.u.mstat.link, target); /* fits: <= 255 bytes */
		close(r.fd);
	}
	account(f, "STAT", path);
	return send_msg_fds(f, &out, NULL, 0);
}

/* Open one regular file for the worker: its answer, and the descriptor
 * (*fd, -1 on error) that goes with it; the handle is taken here. */
static void open_one(struct fsreq *f, const char *path, int32_t *err, uint32_t *handle,
		     struct pr_stat *st, int *fd)
{
	const struct res_how how = { .oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (f->noatime ? O_NOATIME : 0),
				     .need = S_IFREG, .serves = MF_OTHER, .follow = 1 };
	struct res r = { .fd = -1 };
	size_t slot = 0;

	while (slot < FS_MAX_HANDLES && f->handles[slot] != 0)
		slot++;
	*err = slot == FS_MAX_HANDLES ? EMFILE : resolve(f, path, &how, &r);
	if (*err == ENOENT && r.hidden)
		*err = PR_EHIDDEN; /* on the name alone: nothing about the file (msg.h) */
	*fd = r.fd; /* -1 on error */
	if (*err == 0) {
		f->last_handle = f->last_handle % UINT32_MAX + 1; /* never 0 */
		f->handles[slot] = *handle = f->last_handle;
		*st = to_pr_stat(&r.st);
	}
	account(f, "OPEN", path);
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
	struct pr_m_openv *a = &out.u.mopenv; /* count and nfds start at 0 */
	struct statfs sfs;
	const char *path;
	size_t off = 0, len;

	for (uint32_t i = 0; i < b->nclosed; i++)
		if (close_handle(f, b->closed[i]) < 0)
			return -1;
	/* On a nodev mount an open needs no type check first (resolve.c);
	 * asked per batch, so a remount with devices counts from the next. */
	f->nodev = fstatfs(f->root, &sfs) == 0 && (sfs.f_flags & ST_NODEV);
	pr_msg_init(&out, PR_M_OPENV);
	while (a->count < PR_OPENV_MAX && pr_openv_next(b, &off, &path, &len) == 1) {
		struct pr_openv_ent *e = &a->e[a->count++];
		int fd;

		open_one(f, path, &e->err, &e->handle, &e->st, &fd);
		if (fd >= 0)
			fds[a->nfds++] = fd;
	}
	return send_msg_fds(f, &out, fds, a->nfds);
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
	return send_msg_fds(f, &out, NULL, 0);
}

/* Append n bytes to the XATTR pieces, sending each full one. */
static int xattr_put(struct fsreq *f, struct pr_msg *out, const void *p, size_t n)
{
	for (size_t k; n > 0; p = (const char *)p + k, n -= k) {
		k = n < PR_XATTR_DATA - out->u.xattr.used ? n : PR_XATTR_DATA - out->u.xattr.used;
		memcpy(out->u.xattr.data + out->u.xattr.used, p, k);
		out->u.xattr.used += (uint32_t)k;
		if (out->u.xattr.used == PR_XATTR_DATA) {
			if (send_msg_fds(f, out, NULL, 0) < 0)
				return -1;
			pr_msg_init(out, PR_M_XATTR);
		}
	}
	return 0;
}

/*
 * The raw extended attributes of a regular file or directory, read from
 * the descriptor resolve() opened (never by path), the module's xattr
 * rules applied to each name; the worker parses them (msg.h, XATTR).
 */
int fs_xattr(struct fsreq *f, const struct pr_msg *m)
{
	struct res_how how = { .oflags = RES_READABLE, .serves = MF_BOTH,
			       .follow = (m->u.stat.flags & PR_STAT_FOLLOW) != 0 };
	static char names[PR_XATTR_VALUE_MAX];
	static unsigned char val[PR_XATTR_VALUE_MAX];
	struct pr_msg out, end;
	struct res r;
	ssize_t n = 0;
	int err = resolve(f, m->u.stat.path.s, &how, &r), rc = 0;

	pr_msg_init(&out, PR_M_XATTR);
	pr_msg_init(&end, PR_M_XATTR_END);
	if (err == 0 && (S_ISREG(r.st.st_mode) || S_ISDIR(r.st.st_mode)) &&
	    (n = flistxattr(r.fd, names, sizeof(names))) < 0)
		err = errno == ENOTSUP ? 0 : errno;
	for (char *p = names; err == 0 && rc == 0 && p < names + n; p += strlen(p) + 1) {
		uint16_t nl = (uint16_t)strnlen(p, 256);
		uint32_t vl;
		ssize_t v;

		if (nl == 0 || nl > 255 || modfilter_hides_xattr(&f->hide, p))
			continue;
		if ((v = fgetxattr(r.fd, p, val, sizeof(val))) < 0) {
			err = errno == ENODATA ? 0 : errno; /* ENODATA: gone since the listing */
			continue;
		}
		vl = (uint32_t)v;
		if (end.u.xattr_end.count == PR_XATTR_COUNT_MAX ||
		    PR_XATTR_TOTAL_MAX - end.u.xattr_end.total < 6u + nl + vl)
			err = E2BIG;
		else if (xattr_put(f, &out, &nl, 2) < 0 || xattr_put(f, &out, &vl, 4) < 0 ||
			 xattr_put(f, &out, p, nl) < 0 || xattr_put(f, &out, val, vl) < 0)
			rc = -1;
		end.u.xattr_end.count++; /* only kept if all went well */
		end.u.xattr_end.total += 6u + nl + vl;
	}
	if (r.fd >= 0)
		close(r.fd);
	account(f, "XATTR", m->u.stat.path.s);
	if (rc < 0 || (err == 0 && out.u.xattr.used > 0 && send_msg_fds(f, &out, NULL, 0) < 0))
		return -1;
	if (err != 0)
		end.u.xattr_end.count = end.u.xattr_end.total = 0;
	end.u.xattr_end.err = err;
	return send_msg_fds(f, &end, NULL, 0);
}

int fs_idname(struct fsreq *f, const struct pr_msg *m)
{
	const struct fs_ids *t = m->u.idname.kind == PR_ID_USER ? &f->users : &f->groups;
	struct pr_msg out;
	size_t i = 0;

	pr_msg_init(&out, PR_M_IDNAME);
	while (i < t->n && t->e[i].id != m->u.idname.id)
		i++;
	out.u.midname.found = i < t->n && pr_str_set_name(&out.u.midname.name, t->e[i].name) == 0;
	return send_msg_fds(f, &out, NULL, 0);
}
