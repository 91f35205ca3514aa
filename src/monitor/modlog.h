/* SPDX-License-Identifier: ISC */
/*
 * Where a session logs after module selection, as rsyncd decides it: a
 * module whose "log file" differs from the global one logs to that file
 * from then on; one whose "log file" is empty logs to syslog; a syslog
 * session whose module has another "syslog facility" or "syslog tag"
 * switches to them, the tag's %RSYNC_MODULE_NAME%, %RSYNC_MODULE_PATH%,
 * %RSYNC_HOST_ADDR%, %RSYNC_HOST_NAME% and %RSYNC_USER_NAME% expanded.
 *
 * Everything a switch needs is acquired by modlog_prepare(), as root and
 * before the worker exists: each module's own log file is opened (created
 * if need be) without following a link someone else planted on its path
 * (safeopen.h), and the syslog socket connected when some module may log
 * there.  modlog_select() then only picks (from the configuration alone),
 * and modlog_syslog() names the session in the tag, so both work in a
 * monitor that may no longer open files or sockets.
 */
#ifndef PRSYNCD_MODLOG_H
#define PRSYNCD_MODLOG_H

#include <stddef.h>

#include "config.h"

struct modlog {
	size_t n;                          /* distinct module log files */
	const char *path[CFG_MODLOG_FILES_MAX];
	int fd[CFG_MODLOG_FILES_MAX];      /* -1: see err */
	int err[CFG_MODLOG_FILES_MAX];
	char why[CFG_MODLOG_FILES_MAX][128]; /* safe_open's reason, for the line at selection */
};

void modlog_prepare(struct modlog *ml, const struct cfg *cfg);

/* At selection, from the module's log settings alone: switch to its own
 * log file, closing the files not chosen.  1 if the session moves to
 * another syslog facility or tag instead: the facility is switched to
 * here, then call modlog_syslog() for the tag. */
int modlog_select(struct modlog *ml, const struct cfg *cfg, const struct cfg_module *mod);

/* Switch to the module's syslog tag, expanded with the session's values. */
void modlog_syslog(const struct cfg_module *mod, const char *host, const char *addr, const char *user);

#endif
