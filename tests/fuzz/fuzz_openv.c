/* SPDX-License-Identifier: ISC */
/* Fuzz the batched-open records (PR_W_OPENV, PR_W_CLOSEV, PR_M_OPENV) the
 * way both sides take them: the input is a header selector, a descriptor
 * count and the body bytes.  Whatever the validator accepts must hold the
 * invariants the monitor and the worker rely on: every packed path a clean
 * module path, walked to exactly the count; closed handles nonzero; one
 * descriptor per successful answer, each a regular file with a distinct
 * handle, nothing after the count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

static const uint16_t types[] = { PR_W_OPENV, PR_W_CLOSEV, PR_M_OPENV };

static void check_wopenv(const struct pr_w_openv *b)
{
	size_t off = 0, len;
	const char *p;
	uint32_t n = 0;

	for (uint32_t i = 0; i < b->nclosed; i++)
		if (b->closed[i] == 0)
			abort();
	while (pr_openv_next(b, &off, &p, &len) == 1) {
		if (!pr_relpath_ok(p, len) || len >= PR_RELPATH_MAX)
			abort();
		n++;
	}
	if (n != b->count || n == 0 || n > PR_OPENV_MAX || off != b->used)
		abort();
}

static void check_mopenv(const struct pr_m_openv *b, int nfds)
{
	int ok = 0;

	if (b->count == 0 || b->count > PR_OPENV_MAX)
		abort();
	for (uint32_t i = 0; i < b->count; i++) {
		if (b->e[i].err != 0)
			continue;
		if ((b->e[i].st.mode & 0170000) != 0100000 || b->e[i].handle == 0)
			abort();
		for (uint32_t j = 0; j < i; j++)
			if (b->e[j].err == 0 && b->e[j].handle == b->e[i].handle)
				abort();
		ok++;
	}
	if (ok != nfds || (uint32_t)ok != b->nfds)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pr_msg m;
	uint16_t type;
	int nfds;

	if (size < 2)
		return 0;
	type = types[data[0] % 3];
	nfds = data[1] % (PR_MSG_FDS_MAX + 2);
	data += 2;
	size -= 2;
	pr_msg_init(&m, type);
	if (size > sizeof(m.u))
		size = sizeof(m.u);
	memcpy(&m.u, data, size);
	if (nfds)
		m.h.flags = PR_F_FD;
	if (pr_msg_validate(&m, type == PR_M_OPENV ? PR_DIR_TO_WORKER : PR_DIR_TO_MONITOR, nfds) != PR_MSG_OK)
		return 0;
	switch (type) {
	case PR_W_OPENV:
		check_wopenv(&m.u.openv);
		break;
	case PR_W_CLOSEV:
		if (m.u.closev.nclosed == 0 || m.u.closev.nclosed > PR_CLOSEV_MAX)
			abort();
		break;
	case PR_M_OPENV:
		check_mopenv(&m.u.mopenv, nfds);
		break;
	}
	return 0;
}
