/* SPDX-License-Identifier: ISC */
#ifndef PR_PREFAULT_H
#define PR_PREFAULT_H

#include <stddef.h>

/*
 * Pre-fault, in one system call each, the stack a process is about to use
 * and a fresh block it is about to fill.  Where a page fault is a trap to
 * a hypervisor (11-16 us a page on the benchmark machine, against ~1 us a
 * page populated in one call), the monitor's and the worker's first-touch
 * faults were a large part of a short session's CPU (docs/performance.md,
 * 2.0b).  Best effort: on a kernel without MADV_POPULATE_WRITE (< 5.14)
 * nothing happens and the pages fault in on use, as before.
 */
void prefault_stack(size_t bytes);

/* Populate the pages of [p, p + len) (a static block about to be filled). */
void prefault_range(void *p, size_t len);

/* Zeroed anonymous memory of len bytes, already faulted in; NULL on
 * failure.  Freed with prefault_free(p, len). */
void *prefault_alloc(size_t len);
void prefault_free(void *p, size_t len);

#endif
