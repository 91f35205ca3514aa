/* SPDX-License-Identifier: ISC */
/*
 * Validation in either direction, for the test tools, unit tests and
 * fuzzers that play both ends.  Neither daemon binary links this file: the
 * monitor links only msg_w2m.c, the worker only msg_m2w.c.
 */
#include "msg_check.h"

enum pr_msg_err pr_msg_validate(const struct pr_msg *m, enum pr_msg_dir dir, int nfds)
{
	if (dir == PR_DIR_TO_MONITOR)
		return pr_msg_validate_w2m(m, nfds);
	if (dir == PR_DIR_TO_WORKER)
		return pr_msg_validate_m2w(m, nfds);
	return pr_msg_check(m, dir, nfds, NULL, 0); /* the header check refuses the direction */
}
