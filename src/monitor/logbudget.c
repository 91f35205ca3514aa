/* SPDX-License-Identifier: ISC */
/* The per-session log budget; see logbudget.h. */
#include "logbudget.h"
#include "log.h"

int log_budget_take(struct log_budget *b, size_t len, int error)
{
	if (b->records < LOG_BUDGET_RECORDS && b->bytes + len <= LOG_BUDGET_BYTES) {
		b->records++;
		b->bytes += len;
		return 1;
	}
	if (error && b->errors < LOG_BUDGET_ERRORS && b->error_bytes + len <= LOG_BUDGET_ERROR_BYTES) {
		b->errors++;
		b->error_bytes += len;
		return 1;
	}
	b->dropped++;
	b->dropped_bytes += len;
	return 0;
}

void log_budget_report(const struct log_budget *b)
{
	if (b->dropped > 0)
		log_msg(PR_LOG_WARNING, "log budget of this session spent (%u records, %u bytes): "
			"%llu more records (%llu bytes) caused by the worker not logged",
			LOG_BUDGET_RECORDS, LOG_BUDGET_BYTES, (unsigned long long)b->dropped,
			(unsigned long long)b->dropped_bytes);
}
