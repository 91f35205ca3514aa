/* SPDX-License-Identifier: ISC */
/* The monotonic clock (monotime.h): one copy for every deadline. */
#include <time.h>

#include "monotime.h"

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
