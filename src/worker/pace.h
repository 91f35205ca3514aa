/* SPDX-License-Identifier: ISC */
/*
 * --bwlimit: pacing of what the worker writes to the client, as rsyncd's
 * sender paces it.  Every byte written to the socket counts (frame
 * headers, messages, keepalives); each write is at most an eighth of a
 * second's worth, and the writer sleeps once the bytes written run at
 * least a tenth of a second ahead of the rate.  Slow periods are not made
 * up for: time spent not writing pays the debt off, and never more.
 *
 * Pure arithmetic on a clock the caller passes in (conn.c sleeps), so
 * the unit test can drive it with a made-up clock.
 */
#ifndef PRSYNCD_PACE_H
#define PRSYNCD_PACE_H

#include <stddef.h>
#include <stdint.h>

#define PACE_MIN_SLEEP_NS 100000000  /* debts below 0.1 s wait for more */
#define PACE_WRITE_MIN 512u          /* smallest write cap (rates < 4 KiB/s) */
#define PACE_WRITE_CEIL (1u << 20)   /* bounds one write's share of the debt */
#define PACE_KIB_MAX 0x7fffffffu     /* a rate in KiB/s, as rsync's int */

struct pace {
	uint64_t bps;        /* bytes per second; 0: no pacing */
	size_t write_max;    /* the most one write may carry */
	int64_t debt_ns;     /* time the bytes written still need at the rate; < 0: an
			      * oversleep, credited once */
	int64_t last_ns;     /* when debt_ns was last brought up to date; 0: never */
};

/* Pace at kib KiB/s (0 turns pacing off); the debt starts at zero. */
void pace_set(struct pace *p, uint32_t kib);

/* n bytes were written at now_ns (monotonic): 0, or the nanoseconds to
 * sleep before the next write.  After a sleep, call pace_slept. */
int64_t pace_wrote(struct pace *p, size_t n, int64_t now_ns);

/* The sleep of want_ns that pace_wrote asked for ran from start_ns to
 * end_ns: what it overslept is credited, what it undersleeps stays owed. */
void pace_slept(struct pace *p, int64_t want_ns, int64_t start_ns, int64_t end_ns);

#endif
