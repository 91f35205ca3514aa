/* Fuzz the transfer log as the session monitor writes it: the input is a
 * "log format" (the operator's) up to a NUL, then the body of a PR_W_XFER
 * record (the worker's, untrusted).  A record the validator accepts is
 * formatted and logged (to /dev/null) with every escape; the line stays
 * inside its buffer whatever the widths, names and numbers.  The format
 * also goes through the syslog tag expansion. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "modlog.h"
#include "modvars.h"
#include "msg.h"
#include "xferlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null_fd = -1;
	static struct pr_msg m;
	static char line[8192], tag[LOG_TAG_MAX];
	char fmt[CFG_LOG_FORMAT_MAX + 1];
	const uint8_t *nul = memchr(data, 0, size < sizeof(fmt) ? size : sizeof(fmt));
	struct cfg_module mod;
	struct xferlog x;
	size_t flen, body;

	if (null_fd < 0) {
		null_fd = open("/dev/null", O_WRONLY);
		log_use_fd(null_fd);
	}
	if (nul == NULL)
		return 0;
	flen = (size_t)(nul - data);
	memcpy(fmt, data, flen);
	fmt[flen] = '\0';
	pr_msg_init(&m, PR_W_XFER);
	body = size - flen - 1 < sizeof(m.u.xfer) ? size - flen - 1 : sizeof(m.u.xfer);
	memcpy(&m.u.xfer, nul + 1, body);
	memset(&mod, 0, sizeof(mod));
	mod.name = (char *)"mod";
	mod.path = (char *)"/srv/mod";
	mod.log_format = fmt;
	mod.transfer_logging = 1;
	xferlog_init(&x, &mod, "host.example", "192.0.2.7", "user");
	x.started = x.files = x.itemized = 1;
	if (pr_msg_validate(&m, PR_DIR_TO_MONITOR, 0) == PR_MSG_OK) {
		xferlog_format(line, sizeof(line), &x, &m.u.xfer);
		if (strlen(line) >= sizeof(line))
			abort();
		(void)xferlog_file(&x, &m.u.xfer);
	}
	modvars_expand_text(tag, sizeof(tag), fmt, &mod, "host.example", "192.0.2.7", "user");
	if (strlen(tag) >= sizeof(tag))
		abort();
	return 0;
}
