/* SPDX-License-Identifier: ISC */
/*
 * The transfer log (xferlog.h): the request line, and the worker's
 * per-file lines written as they come.
 */
#include <unistd.h>

#include "log.h"
#include "xferlog.h"

int xferlog_start(struct xferlog *x, const struct cfg_module *mod, const char *host, const char *addr,
		  const char *user, const struct pr_w_start *req, struct pr_msg *answer)
{
	struct pr_m_xferlog *a = &answer->u.xferlog;
	char clean[LOG_ESCAPED(PR_NAME_MAX)];

	/* the request is escaped by the worker as rsyncd escapes it; the
	 * validator refused any control byte but tab (F_LOG); the login name
	 * is the client's, as it sent it */
	log_sanitize(clean, sizeof(clean), user);
	log_msg(PR_LOG_INFO, "rsync %s %s from %s%s%s (%s)", req->sender ? "on" : "to", req->request.s, clean,
		user[0] ? "@" : "", host, addr);
	x->files = mod->transfer_logging != 0;
	pr_msg_init(answer, PR_M_XFERLOG);
	a->files = (uint32_t)x->files;
	a->pid = (uint32_t)getpid();
	/* a host name is shown cut, as any log text; the others fit by the
	 * loader's limits, the path by the chroot the monitor made into it */
	pr_str_set_text_trunc(&a->host, host);
	if (pr_str_set_text(&a->format, mod->log_format ? mod->log_format : "") < 0 ||
	    pr_str_set_name(&a->addr, addr) < 0 || pr_str_set_name(&a->user, user) < 0 ||
	    pr_str_set_name(&a->module, mod->name) < 0 || pr_str_set_relpath(&a->path, mod->path) < 0) {
		log_msg(PR_LOG_ERR, "module %s: a value for the transfer log is too long; ending session", mod->name);
		return -1;
	}
	return 0;
}

int xferlog_file(const struct xferlog *x, const struct pr_w_xfer *r)
{
	if (!x->files) {
		log_msg(PR_LOG_ERR, "worker sent a transfer record the monitor did not ask for; ending session");
		return -1;
	}
	log_msg(PR_LOG_INFO, "%s", r->line.s);
	return 0;
}
