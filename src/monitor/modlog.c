/* SPDX-License-Identifier: ISC */
/*
 * Per-module log destinations (modlog.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "modlog.h"
#include "modvars.h"
#include "safeopen.h"

/*
 * The one place the monitor opens an operator-named file to append to.
 * It runs as root, before the worker exists: the file must not be reached
 * through a symlink planted anywhere on its path by someone else (the
 * opener every operator file uses, safeopen.h).  The descriptor, or -1
 * with errno set and the reason in why.
 */
static int modlog_open_file(const char *path, char *why, size_t whylen)
{
	return safe_open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0640, why, whylen);
}

static int differ(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

/* The module's own file, when it has one apart from the global log. */
static const char *own_file(const struct cfg *cfg, const struct cfg_module *mod)
{
	return mod->log_file != NULL && differ(mod->log_file, cfg->log_file) ? mod->log_file : NULL;
}

void modlog_prepare(struct modlog *ml, const struct cfg *cfg)
{
	int want_syslog = 0;

	memset(ml, 0, sizeof(*ml));
	for (size_t i = 0; i < cfg->nmodules; i++) {
		const char *path = own_file(cfg, &cfg->modules[i]);
		size_t j;

		want_syslog |= cfg->modules[i].log_file == NULL && cfg->log_file != NULL;
		if (path == NULL)
			continue;
		for (j = 0; j < ml->n && strcmp(ml->path[j], path) != 0; j++)
			;
		if (j < ml->n || ml->n == CFG_MODLOG_FILES_MAX) /* the loader bounds them */
			continue;
		ml->path[j] = path;
		ml->fd[j] = modlog_open_file(path, ml->why[j], sizeof(ml->why[j]));
		ml->err[j] = errno;
		ml->n++;
	}
	if (want_syslog)
		log_syslog_connect();
}

int modlog_select(struct modlog *ml, const struct cfg *cfg, const struct cfg_module *mod)
{
	const char *path = own_file(cfg, mod), *why = NULL;
	int fd = -1, err = ENOENT;

	for (size_t j = 0; j < ml->n; j++) {
		if (path != NULL && fd < 0 && strcmp(ml->path[j], path) == 0) {
			fd = ml->fd[j];
			err = ml->err[j];
			why = ml->why[j];
		} else if (ml->fd[j] >= 0) {
			close(ml->fd[j]);
		}
		ml->fd[j] = -1;
	}
	if (path != NULL) {
		if (fd < 0) {
			log_msg(PR_LOG_ERR, "module %s: cannot open log file %s: %s; logging where the session started",
				mod->name, path, why && why[0] ? why : strerror(err));
			return 0;
		}
		log_use_fd(fd);
		return 0;
	}
	/* Syslog: after a global log file the module's "log file =" asks for
	 * it; otherwise only another facility or tag changes anything
	 * (rsyncd compares the tags as written, before expansion).  The
	 * facility is configuration: set here; the tag is modlog_syslog's. */
	if (mod->log_file != NULL || (cfg->log_file == NULL && !log_to_syslog()) ||
	    (cfg->log_file == NULL && !differ(mod->syslog_tag, cfg->syslog_tag) &&
	     !differ(mod->syslog_facility, cfg->syslog_facility)))
		return 0;
	return log_syslog_facility(mod->syslog_facility) == 0;
}

void modlog_syslog(const struct cfg_module *mod, const char *host, const char *addr, const char *user)
{
	char tag[LOG_TAG_MAX];

	modvars_expand_text(tag, sizeof(tag), mod->syslog_tag, mod, host, addr, user);
	log_syslog_tag(tag);
}
