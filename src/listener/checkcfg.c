/* SPDX-License-Identifier: ISC */
/*
 * --check-config: every problem of the file in one run, then what the
 * daemon itself would only find out when a client selects a module: its
 * uid and gid resolved as the session monitor resolves them, its path
 * opened, its charset known to iconv.  Each line names the file, the
 * line of the module's header and the module.  Exit status 1 if anything
 * is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <iconv.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listener.h"

/* As the monitor (fsreq.c lookup_id): all digits is a number, anything
 * else a name; 'u' a user's uid, 'p' a user's primary gid, 'g' a group. */
static int resolve_id(const char *s, int what)
{
	if (s[0] >= '0' && s[0] <= '9' && strspn(s, "0123456789") == strlen(s))
		return 0;
	if (what == 'g')
		return getgrnam(s) ? 0 : -1;
	return getpwnam(s) ? 0 : -1;
}

/* One module's problems; returns how many are errors. */
static int check_module(const char *file, const struct cfg_module *m)
{
	const char *user = m->uid ? m->uid : "nobody", *group = m->gid ? m->gid : "nobody";
	int errors = 0, fd;

#define PROBLEM(...) do { \
	fprintf(stderr, "prsyncd: %s:%d: module [%s]: ", file, m->line, m->name); \
	fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); \
	errors++; \
} while (0)
	/* A value with a %VAR% rsyncd sets per connection is only known then. */
	if (strchr(user, '%') == NULL && resolve_id(user, 'u') < 0)
		PROBLEM("uid %s does not exist: clients get \"@ERROR: invalid uid %s\"", user, user);
	if (strchr(group, '%') == NULL && resolve_id(group, m->gid ? 'g' : 'p') < 0)
		PROBLEM("gid %s does not exist%s: clients get \"@ERROR: invalid gid %s\"", group,
			strpbrk(group, " ,*") ? " (prsyncd takes exactly one group)" : "", group);
	if (strchr(m->path, '%') != NULL)
		fprintf(stderr, "prsyncd: note: %s:%d: module [%s]: path %s depends on the connection: "
			"checked when a client selects it\n", file, m->line, m->name, m->path);
	else if ((fd = open(m->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		PROBLEM("path %s: %s: clients get \"@ERROR: chdir failed\"", m->path, strerror(errno));
	else
		close(fd);
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
