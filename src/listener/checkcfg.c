/* SPDX-License-Identifier: ISC */
/*
 * --check-config: every problem of the file in one run, then what the
 * daemon itself would only find out when a client connects or selects a
 * module: its uid and gid resolved as the session monitor resolves them,
 * its path opened and, as root, searched and listed with those ids, its
 * secrets file read as a login reads it, its charset known to iconv, the
 * MOTD file opened.  Each line names the file, the line of the module's
 * header and the module.  Exit status 1 if anything is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <iconv.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "listener.h"
#include "safeopen.h"

#define SECRETS_MAX (1 << 20) /* as auth.c: a larger secrets file fails every login */

/* As the monitor (fsreq.c lookup_id): a leading digit is a number,
 * anything else a name; 'u' a user's uid, 'p' a user's primary gid, 'g'
 * a group.  0 with *id set, or -1. */
static int resolve_id(const char *s, int what, unsigned *id)
{
	struct passwd *pw;
	struct group *gr;
	char *end;

	if (s[0] >= '0' && s[0] <= '9') {
		unsigned long v = strtoul(s, &end, 10);

		if (*end != '\0' || v >= UINT32_MAX)
			return -1;
		*id = (unsigned)v;
		return 0;
	}
	if (what == 'g') {
		if ((gr = getgrnam(s)) == NULL)
			return -1;
		*id = gr->gr_gid;
		return 0;
	}
	if ((pw = getpwnam(s)) == NULL)
		return -1;
	*id = what == 'u' ? pw->pw_uid : pw->pw_gid;
	return 0;
}

/*
 * What the module's uid and gid (the one group a session keeps) may do in
 * the module root as a session finds it: opened and entered as root, then
 * the ids dropped.  A bit mask of R_OK and X_OK granted, or -1 if it
 * cannot be told.  In a child: the ids are dropped for good there.
 */
static int root_access(const char *path, unsigned uid, unsigned gid)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), status;
	gid_t g = (gid_t)gid;
	pid_t pid;

	if (fd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (fchdir(fd) < 0 || setgroups(1, &g) < 0 || setresgid(g, g, g) < 0 ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
			_exit(8);
		_exit((access(".", R_OK) == 0 ? R_OK : 0) | (access(".", X_OK) == 0 ? X_OK : 0));
	}
	close(fd);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) < 8 ? WEXITSTATUS(status) : -1;
}

/* The secrets file as a login reads it (auth.c secrets_load()): NULL, or
 * why every login to the module fails. */
static const char *secrets_problem(const struct cfg_module *m, char *why, size_t whylen)
{
	struct stat st;
	int fd;

	if (m->secrets_file == NULL || m->secrets_file[0] == '\0')
		return "'auth users' is set and 'secrets file' is not";
	if ((fd = safe_open(m->secrets_file, O_RDONLY | O_NONBLOCK, 0, why, whylen)) < 0)
		return why;
	if (fstat(fd, &st) < 0)
		snprintf(why, whylen, "%s", strerror(errno));
	else if (m->strict_modes && (st.st_mode & 06) != 0)
		snprintf(why, whylen, "other users may read it, and 'strict modes' is on");
	else if (m->strict_modes && geteuid() == 0 && st.st_uid != 0)
		snprintf(why, whylen, "not owned by root, and 'strict modes' is on");
	else if (!S_ISREG(st.st_mode) || st.st_size > SECRETS_MAX)
		snprintf(why, whylen, "not a regular file of at most 1 MiB");
	else
		why[0] = '\0';
	close(fd);
	return why[0] ? why : NULL;
}

/* One module's problems; returns how many are errors. */
static int check_module(const char *file, const struct cfg_module *m)
{
	const char *user = m->uid ? m->uid : "nobody", *group = m->gid ? m->gid : "nobody";
	unsigned uid = 0, gid = 0;
	int errors = 0, fd, ids = 1, acc;
	char why[512];
	const char *bad;

#define PROBLEM(...) do { \
	fprintf(stderr, "prsyncd: %s:%d: module [%s]: ", file, m->line, m->name); \
	fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); \
	errors++; \
} while (0)
	/* A value with a %VAR% rsyncd sets per connection is only known then. */
	if (strchr(user, '%') != NULL)
		ids = 0;
	else if (resolve_id(user, 'u', &uid) < 0 && (ids = 0, 1))
		PROBLEM("uid %s does not exist: clients get \"@ERROR: invalid uid %s\"", user, user);
	if (strchr(group, '%') != NULL)
		ids = 0;
	else if (resolve_id(group, m->gid ? 'g' : 'p', &gid) < 0 && (ids = 0, 1))
		PROBLEM("gid %s does not exist%s: clients get \"@ERROR: invalid gid %s\"", group,
			strpbrk(group, " ,*") ? " (prsyncd takes exactly one group)" : "", group);
	/* No path: the parser said so already (missing, empty or relative). */
	if (m->path == NULL)
		;
	else if (strchr(m->path, '%') != NULL)
		fprintf(stderr, "prsyncd: note: %s:%d: module [%s]: path %s depends on the connection: "
			"checked when a client selects it\n", file, m->line, m->name, m->path);
	else if ((fd = open(m->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		PROBLEM("path %s: %s: clients get \"@ERROR: chdir failed\"", m->path, strerror(errno));
	else if (close(fd), ids && uid != 0 && geteuid() == 0 &&
		 (acc = root_access(m->path, uid, gid)) >= 0 && acc != (R_OK | X_OK))
		/* rsyncd: "change_dir "/" (in M) failed", exit 23, at each transfer */
		PROBLEM("path %s: uid %s (%u) with gid %u may not %s it: every transfer from the module "
			"fails with \"Permission denied\" on \"/\" (exit 23)", m->path, user, uid, gid,
			!(acc & X_OK) ? "search" : "list");
	if (m->auth_users && m->auth_users[0] && (m->secrets_file == NULL || strchr(m->secrets_file, '%') == NULL) &&
	    (bad = secrets_problem(m, why, sizeof(why))) != NULL)
		/* rsyncd: "auth failed on module M ...: no secrets file", at each login */
		PROBLEM("secrets file %s: %s: every login fails (\"@ERROR: auth failed on module %s\")",
			m->secrets_file ? m->secrets_file : "(none)", bad, m->name);
	if (m->charset && strchr(m->charset, '%') == NULL) {
		iconv_t a = iconv_open("UTF-8", m->charset), b = iconv_open(m->charset, "UTF-8");

		if (a == (iconv_t)-1 || b == (iconv_t)-1)
			PROBLEM("charset %s: this system's iconv cannot convert it to and from UTF-8: "
				"every client of the module is refused, as rsyncd refuses them", m->charset);
		if (a != (iconv_t)-1)
			iconv_close(a);
		if (b != (iconv_t)-1)
			iconv_close(b);
	}
#undef PROBLEM
	return errors;
}

/* rsyncd sends an empty line in place of a MOTD it cannot read, and
 * says nothing: said here instead, as a warning (every client is still
 * served, and the packaged configuration names a MOTD the operator may
 * not have written yet): not counted as an error. */
static void check_motd(const char *file, const struct cfg *cfg)
{
	char why[512];
	struct stat st;
	int fd;

	if (cfg->motd_file == NULL || cfg->motd_file[0] == '\0' || strchr(cfg->motd_file, '%') != NULL)
		return;
	if ((fd = safe_open(cfg->motd_file, O_RDONLY | O_NONBLOCK, 0, why, sizeof(why))) >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			close(fd);
			return;
		}
		snprintf(why, sizeof(why), "not a regular file");
		close(fd);
	}
	fprintf(stderr, "prsyncd: warning: %s: motd file %s: %s: clients get an empty line in its place\n", file,
		cfg->motd_file, why);
}

int check_config(const char *file)
{
	struct cfg_errors errs;
	struct cfg cfg;
	const char *chroot_dir = NULL;
	char err[CFG_ERR_MAX], sum[CFG_SUMMARY_MAX];
	size_t nerr;

	(void)cfg_load_all(file, &cfg, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "prsyncd: %s\n", errs.v[i]);
	for (size_t i = 0; i < cfg.nwarnings; i++)
		fprintf(stderr, "prsyncd: warning: %s\n", cfg.warnings[i]);
	nerr = errs.n;
	for (size_t i = 0; i < cfg.nmodules; i++)
		nerr += (size_t)check_module(file, &cfg.modules[i]);
	check_motd(file, &cfg);
	if (errs.n == 0 && startup_checks(&cfg, &chroot_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "prsyncd: %s\n", err);
		nerr++;
	}
	if (nerr == 0)
		printf("%s: configuration OK (%zu module%s)\n", file, cfg.nmodules, cfg.nmodules == 1 ? "" : "s");
	else
		fprintf(stderr, "prsyncd: %s: %zu error%s\n", file, nerr, nerr == 1 ? "" : "s");
	/* loaded as rsyncd loads them, but a misspelt "hosts deny" must not
	 * pass unseen: once more, on the output that says OK */
	if (cfg_unknown_summary(&cfg, sum, sizeof(sum)) > 0)
		printf("%s: %s\n", file, sum);
	cfg_errors_free(&errs);
	cfg_free(&cfg);
	return nerr ? 1 : 0;
}
