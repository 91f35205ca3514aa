/* SPDX-License-Identifier: ISC */
/*
 * --bwlimit arithmetic (pace.h).  The debt is kept in nanoseconds of
 * transfer time rather than in bytes: a write adds n / rate, the clock
 * takes off what passed.  A write is at most PACE_WRITE_CEIL bytes
 * (conn.c caps it), so n * 1e9 stays far inside int64_t whatever the
 * rate, and the elapsed time is only ever subtracted, so a long pause
 * cannot overflow anything: it just clears the debt.
 */
#include "pace.h"

#define NS_PER_S 1000000000LL

void pace_set(struct pace *p, uint32_t kib)
{
	if (kib > PACE_KIB_MAX)
		kib = PACE_KIB_MAX;
	p->bps = (uint64_t)kib * 1024u;
	/* an eighth of a second's worth, as rsyncd caps its writes */
	p->write_max = (size_t)(p->bps / 8u);
	if (p->write_max < PACE_WRITE_MIN)
		p->write_max = PACE_WRITE_MIN;
	if (p->write_max > PACE_WRITE_CEIL)
		p->write_max = PACE_WRITE_CEIL;
	p->debt_ns = 0;
	p->last_ns = 0;
}

int64_t pace_wrote(struct pace *p, size_t n, int64_t now_ns)
{
	if (p->bps == 0)
		return 0;
	if (n > PACE_WRITE_CEIL)
		n = PACE_WRITE_CEIL; /* conn.c never writes more at once */
	p->debt_ns += (int64_t)((uint64_t)n * (uint64_t)NS_PER_S / p->bps);
	if (p->last_ns != 0) {
		int64_t passed = now_ns - p->last_ns;

		/* Time not spent writing pays the debt off, but earns nothing
		 * beyond it: a slow spell is not made up for with a burst. */
		if (passed > 0)
			p->debt_ns = passed >= p->debt_ns ? 0 : p->debt_ns - passed;
		else if (p->debt_ns < 0)
			p->debt_ns = 0;
	}
	if (p->debt_ns < PACE_MIN_SLEEP_NS) {
		p->last_ns = now_ns;
		return 0;
	}
	return p->debt_ns;
}

void pace_slept(struct pace *p, int64_t want_ns, int64_t start_ns, int64_t end_ns)
{
	int64_t slept = end_ns - start_ns;

	if (slept < 0)
		slept = 0;
	p->debt_ns = want_ns - slept;
	p->last_ns = end_ns;
}
