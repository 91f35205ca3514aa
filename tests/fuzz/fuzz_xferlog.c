/* SPDX-License-Identifier: ISC */
/* Fuzz the transfer log's per-file lines as the worker formats them
 * (xferfmt.c): the input is a "log format" (the operator's) up to a NUL,
 * then the file's numbers (struct nums below, short input zero-filled),
 * then its path up to a NUL, then its link target.  The line stays inside
 * its buffer whatever the widths, names and numbers, and the monitor's
 * validator accepts every line the worker makes (no control byte but
 * tab).  The format also goes through the syslog tag expansion. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modlog.h"
#include "modvars.h"
#include "msg.h"
#include "xferfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct nums {
	uint32_t iflags, mode, uid, gid, flags, sum_len, link, name_off;
	uint64_t length, bytes, sum_bytes;
	int64_t mtime;
	uint8_t sum[XF_SUM_MAX];
};

/* The next NUL-terminated piece of the input (the rest if there is no NUL). */
static const char *piece(const uint8_t **p, const uint8_t *end, char *buf, size_t cap)
{
	size_t n = (size_t)(end - *p);
	const uint8_t *nul = memchr(*p, 0, n);

	n = nul ? (size_t)(nul - *p) : n;
	n = n < cap - 1 ? n : cap - 1;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p = nul ? nul + 1 : end;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xferfmt x;
	static struct pr_msg ans, m;
	static char path[PR_RELPATH_MAX], target[PR_RELPATH_MAX], tag[LOG_TAG_MAX];
	char fmt[PR_TEXT_MAX];
	const uint8_t *p = data, *end = data + size;
	struct xferfmt_rec r = { 0 };
	struct nums n = { 0 };
	struct cfg_module mod;
	size_t len;

	piece(&p, end, fmt, sizeof(fmt));
	memcpy(&n, p, (size_t)(end - p) < sizeof(n) ? (size_t)(end - p) : sizeof(n));
	p += (size_t)(end - p) < sizeof(n) ? (size_t)(end - p) : sizeof(n);
	piece(&p, end, path, sizeof(path));
	piece(&p, end, target, sizeof(target));

	pr_msg_init(&ans, PR_M_XFERLOG);
	ans.u.xferlog.files = 1;
	ans.u.xferlog.pid = 4242;
	pr_str_set_text(&ans.u.xferlog.format, fmt);
	pr_str_set_text(&ans.u.xferlog.host, "host.example");
	pr_str_set_name(&ans.u.xferlog.addr, "192.0.2.7");
	pr_str_set_name(&ans.u.xferlog.user, "user");
	pr_str_set_name(&ans.u.xferlog.module, "mod");
	pr_str_set_relpath(&ans.u.xferlog.path, "/srv/mod");
	if (pr_msg_validate(&ans, PR_DIR_TO_WORKER, 0) != PR_MSG_OK)
		abort();
	xferfmt_init(&x, &ans.u.xferlog);

	/* what xferrec.c guarantees of its own records */
	r.iflags = n.iflags & 0xffff;
	r.mode = n.mode;
	r.uid = n.uid;
	r.gid = n.gid;
	r.flags = n.flags;
	r.sum_len = n.sum_len % (XF_SUM_MAX + 1);
	r.link = (enum xf_link)(n.link % 3);
	r.length = n.length;
	r.bytes = n.bytes;
	r.sum_bytes = n.sum_bytes;
	r.mtime = n.mtime;
	memcpy(r.sum, n.sum, sizeof(r.sum));
	r.path = path;
	r.name = path + n.name_off % (strlen(path) + 1);
	r.target = target;

	pr_msg_init(&m, PR_W_XFER);
	len = xferfmt_line(m.u.xfer.line.s, sizeof(m.u.xfer.line.s), &x, &r);
	if (len >= sizeof(m.u.xfer.line.s) || strlen(m.u.xfer.line.s) != len)
		abort();
	m.u.xfer.line.len = (uint16_t)len;
	if (pr_msg_validate(&m, PR_DIR_TO_MONITOR, 0) != PR_MSG_OK)
		abort();

	memset(&mod, 0, sizeof(mod));
	mod.name = (char *)"mod";
	mod.path = (char *)"/srv/mod";
	mod.log_format = fmt;
	modvars_expand_text(tag, sizeof(tag), fmt, &mod, "host.example", "192.0.2.7", "user");
	if (strlen(tag) >= sizeof(tag))
		abort();
	return 0;
}
