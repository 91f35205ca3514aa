/* SPDX-License-Identifier: ISC */
/*
 * How much one session may write to the operator's log on its worker's
 * behalf: every line written while the monitor handles a worker request
 * (its LOG records, a refused path, a transfer line, an unknown module...),
 * charged where lines are written (log_set_gate, set by session.c's
 * dispatch), so that no handler can log uncharged.  Lines of the
 * session's own (connect, its end) are not charged.  The worker keeps its
 * own, smaller budget for what clients cause (src/worker/mon.c), so an
 * honest session never reaches this one: it stops a compromised worker
 * from flooding the log.  What is dropped is counted and reported in one
 * line when the session ends.
 */
#ifndef PRSYNCD_LOGBUDGET_H
#define PRSYNCD_LOGBUDGET_H

#include <stddef.h>
#include <stdint.h>

#define LOG_BUDGET_RECORDS 10000u
#define LOG_BUDGET_BYTES (4u << 20)
/* Error lines still written once the budget is spent, at most this many
 * and bytes: a flood of lesser lines (a worker's, or diagnostics under
 * --log-debug) must not hide why the session ended. */
#define LOG_BUDGET_ERRORS 64u
#define LOG_BUDGET_ERROR_BYTES (64u << 10)

struct log_budget {
	uint32_t records;       /* logged so far */
	uint64_t bytes;
	uint32_t errors;        /* of LOG_BUDGET_ERRORS, after the budget */
	uint64_t error_bytes;
	uint64_t dropped;       /* records not logged */
	uint64_t dropped_bytes;
};

/* Count a record of len bytes (error: an error line): 1 to log it, 0
 * once the budget (and for an error line, its reserve) is spent. */
int log_budget_take(struct log_budget *b, size_t len, int error);

/* One line saying what was dropped, if anything was. */
void log_budget_report(const struct log_budget *b);

#endif
