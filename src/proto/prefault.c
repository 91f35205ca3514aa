/* SPDX-License-Identifier: ISC */
/* Pre-faulting the stack and fresh blocks; see prefault.h. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The kernel maps ~128 KiB of stack at exec and grows it by faulting
 * below; populating cannot grow it, so the largest part of the request
 * that is already mapped is populated (a failing call costs no fault). */
void prefault_stack(size_t bytes)
{
	char here;
	uintptr_t top = (uintptr_t)&here & ~(uintptr_t)4095;

	for (size_t n = bytes & ~(size_t)4095; n >= 16384 && n < top; n -= 16384)
		if (madvise((void *)(top - n), n, MADV_POPULATE_WRITE) == 0)
			return;
}

void prefault_range(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = (uintptr_t)p + len;

	if (len > 0)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

void *prefault_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void prefault_free(void *p, size_t len)
{
	if (p != NULL)
		munmap(p, len);
}
