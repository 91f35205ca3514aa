/* SPDX-License-Identifier: ISC */
/* The monotonic clock in milliseconds, for the deadlines of both
 * privileged processes (the listener's, the session monitor's). */
#ifndef PRSYNCD_MONOTIME_H
#define PRSYNCD_MONOTIME_H

#include <stdint.h>

int64_t now_ms(void);

#endif
