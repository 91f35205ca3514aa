/*
 * Where a session logs after module selection, as rsyncd decides it: a
 * module whose "log file" differs from the global one logs to that file
 * from then on; one whose "log file" is empty logs to syslog; a syslog
 * session whose module has another "syslog facility" or "syslog tag"
 * reconnects with them, the tag's %RSYNC_MODULE_NAME%, %RSYNC_MODULE_PATH%,
 * %RSYNC_HOST_ADDR%, %RSYNC_HOST_NAME% and %RSYNC_USER_NAME% expanded.
 * Called as root, before the monitor confines itself: the file is opened
 * (and the log socket connected) outside the module's chroot.
 */
#ifndef PRSYNCD_MODLOG_H
#define PRSYNCD_MODLOG_H

#include <stddef.h>

#include "config.h"

void modlog_select(const struct cfg *cfg, const struct cfg_module *mod, const char *host, const char *addr,
		   const char *user);

/* Expand the %RSYNC_...% session variables of a syslog tag, rsync's way:
 * an unknown or unterminated %NAME stays as written. */
void modlog_expand_tag(char *out, size_t cap, const char *tag, const struct cfg_module *mod, const char *host,
		       const char *addr, const char *user);

#endif
