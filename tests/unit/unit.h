/* SPDX-License-Identifier: ISC */
/* Minimal unit-test harness: each test file is one program that prints
 * one line per failed check and a closing "N passed, N failed" line. */
#ifndef PRSYNCD_UNIT_H
#define PRSYNCD_UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed;

#define CHECK(cond) do { \
	if (cond) { unit_passed++; } else { unit_failed++; \
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (cond) { unit_passed++; } else { unit_failed++; \
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

static inline int unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
