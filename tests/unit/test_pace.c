/* SPDX-License-Identifier: ISC */
/* --bwlimit pacing (src/worker/pace.c) on a made-up clock. */
#include <stdint.h>

#include "pace.h"
#include "unit.h"

#define MS 1000000LL
#define S (1000 * MS)

/* Write total bytes in pieces of at most chunk (and of the write cap),
 * sleeping exactly as asked; each write takes write_ns.  The time it took. */
static int64_t transfer(struct pace *p, uint64_t total, size_t chunk, int64_t write_ns, int64_t t0,
			int *sleeps)
{
	int64_t now = t0;

	*sleeps = 0;
	while (total > 0) {
		size_t n = chunk < p->write_max ? chunk : p->write_max;
		int64_t want;

		if (n > total)
			n = (size_t)total;
		now += write_ns;
		total -= n;
		want = pace_wrote(p, n, now);
		if (want > 0) {
			pace_slept(p, want, now, now + want);
			now += want;
			(*sleeps)++;
		}
	}
	return now - t0;
}

int main(void)
{
	struct pace p;
	int sleeps;
	int64_t t, want;

	/* off: never sleeps, never caps */
	pace_set(&p, 0);
	CHECK(p.bps == 0 && pace_wrote(&p, 1 << 20, 5 * S) == 0);

	/* the write cap: an eighth of a second's worth, 512 bytes at least,
	 * 1 MiB at most */
	pace_set(&p, 2000);
	CHECK(p.bps == 2048000 && p.write_max == 256000);
	pace_set(&p, 1);
	CHECK(p.write_max == PACE_WRITE_MIN);
	pace_set(&p, PACE_KIB_MAX);
	CHECK(p.write_max == PACE_WRITE_CEIL);
	pace_set(&p, 0xffffffffu); /* clamped, not wrapped */
	CHECK(p.bps == (uint64_t)PACE_KIB_MAX * 1024);

	/* small debts wait: 100 KiB at 2000 KiB/s is 50 ms */
	pace_set(&p, 2000);
	CHECK(pace_wrote(&p, 102400, 1 * S) == 0);
	/* ... until they reach a tenth of a second: 200 KiB more, no time passed */
	want = pace_wrote(&p, 204800, 1 * S);
	CHECK_MSG(want == 150 * MS, "want %lld", (long long)want);

	/* 20 MB at 2000 KiB/s in 32 KiB writes: 9.77 s, give or take the
	 * last debt (under 0.1 s) that is never slept */
	pace_set(&p, 2000);
	t = transfer(&p, 20000000, 32768, 0, 10 * S, &sleeps);
	CHECK_MSG(t > 9670 * MS && t <= 9766 * MS, "20 MB took %lld ms", (long long)(t / MS));
	CHECK(sleeps >= 60 && sleeps <= 100);
	/* the same when each write itself takes time: that time counts */
	pace_set(&p, 2000);
	t = transfer(&p, 20000000, 32768, 1 * MS, 10 * S, &sleeps);
	CHECK_MSG(t > 9670 * MS && t <= 9766 * MS + 2 * MS, "20 MB took %lld ms", (long long)(t / MS));
	/* a writer slower than the rate never sleeps */
	pace_set(&p, 1000);
	t = transfer(&p, 1 << 20, 1024, 2 * MS, 10 * S, &sleeps);
	CHECK(sleeps == 0);

	/* an idle spell clears the debt and earns no credit: the next 0.15 s
	 * worth is owed in full */
	pace_set(&p, 1000);
	CHECK(pace_wrote(&p, 51200, 1 * S) == 0);          /* 50 ms owed */
	CHECK(pace_wrote(&p, 1, 100 * S) == 0);            /* paid off, long ago */
	want = pace_wrote(&p, 153600, 100 * S);            /* 150 ms, nothing earned */
	CHECK_MSG(want >= 150 * MS && want < 151 * MS, "want %lld", (long long)want);

	/* an oversleep is credited once: asked 150 ms, slept 200 ms */
	pace_set(&p, 1000);
	want = pace_wrote(&p, 153600, 1 * S);
	pace_slept(&p, want, 1 * S, 1 * S + 200 * MS);
	CHECK(p.debt_ns == -50 * MS);
	want = pace_wrote(&p, 153600, 1 * S + 200 * MS);   /* 150 - 50 */
	CHECK_MSG(want == 100 * MS, "want %lld", (long long)want);
	/* ... and an undersleep stays owed: asked 100 ms, woken after 40 */
	pace_slept(&p, want, 1 * S + 200 * MS, 1 * S + 240 * MS);
	CHECK(p.debt_ns == 60 * MS);

	/* extremes: the fastest rate, the largest write, a huge pause, a
	 * clock that goes nowhere (UBSan checks the arithmetic) */
	pace_set(&p, PACE_KIB_MAX);
	CHECK(pace_wrote(&p, (size_t)1 << 40, 1) == 0);
	CHECK(pace_wrote(&p, PACE_WRITE_CEIL, INT64_MAX / 2) == 0);
	pace_set(&p, 1);
	want = pace_wrote(&p, (size_t)1 << 40, 1 * S);      /* cut to one write's worth */
	CHECK(want == (int64_t)PACE_WRITE_CEIL * S / 1024);
	pace_slept(&p, want, 1 * S, 1 * S);                 /* a sleep that did not sleep */
	CHECK(p.debt_ns == want);
	CHECK(pace_wrote(&p, 0, 1 * S) == want);

	return unit_done("test_pace");
}
