/*
 * The transfer log (xferlog.h): the request line, and the worker's
 * per-file lines written as they come.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "xferlog.h"

/* rsyncd's escaping of the names it logs: a control byte but tab as
 * "\#ooo", and a backslash that would read as such an escape as "\#134";
 * other bytes (UTF-8 names) as they are.  A name cannot start a line. */
static void escape(char *out, size_t cap, const char *in)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < cap; p++) {
		if ((*p < 0x20 && *p != '\t') || (*p == '\\' && p[1] == '#' && p[2] >= '0' && p[2] <= '7' &&
						  p[3] >= '0' && p[3] <= '7' && p[4] >= '0' && p[4] <= '7'))
			o += (size_t)snprintf(out + o, cap - o, "\\#%03o", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

int xferlog_start(struct xferlog *x, const struct cfg_module *mod, const char *host, const char *addr,
		  const char *user, const struct pr_w_start *req, struct pr_msg *answer)
{
	struct pr_m_xferlog *a = &answer->u.xferlog;
	char clean[PR_RELPATH_MAX * 5 + 1];

	if (x->started) {
		log_msg(PR_LOG_ERR, "worker sent a second transfer request; ending session");
		return -1;
	}
	x->started = 1;
	escape(clean, sizeof(clean), req->request.s);
	log_msg(PR_LOG_INFO, "rsync %s %s from %s%s%s (%s)", req->sender ? "on" : "to", clean, user,
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
