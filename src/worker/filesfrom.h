/* SPDX-License-Identifier: ISC */
/*
 * --files-from, from the client's socket or from a file in the module
 * (filesfrom.c).
 */
#ifndef PRSYNCD_FILESFROM_H
#define PRSYNCD_FILESFROM_H

#include <stddef.h>

struct sess;

/* At option time, as rsyncd: open a --files-from=FILE through the monitor.
 * -1 with the client's message in err ("failed to open files-from file"). */
int files_from_open(struct sess *s, char *err, size_t errlen);

/* After the filter list: read the names (socket or file) into s->src. */
void files_from_recv(struct sess *s);

#endif
