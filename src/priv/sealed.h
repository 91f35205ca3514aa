/* SPDX-License-Identifier: ISC */
/*
 * Sealed memfds: bytes the listener writes once and every session maps
 * read-only, fixed for the session's life (F_SEAL_WRITE | F_SEAL_GROW |
 * F_SEAL_SHRINK | F_SEAL_SEAL).  The names table (nametab.h) travels this
 * way; the configuration snapshot (cfgsnap.h) seals the same way.
 */
#ifndef PRSYNCD_SEALED_H
#define PRSYNCD_SEALED_H

#include <stddef.h>

/* A new memfd (O_CLOEXEC) holding buf, sealed; its descriptor, or -1 with
 * the reason in err. */
int sealed_create(const char *name, const void *buf, size_t len, char *err, size_t errlen);

/* Check that fd carries all four seals and is min..max bytes long, and
 * map it read-only for the rest of the process's life; NULL with the
 * reason in err.  The caller may close fd afterwards. */
const void *sealed_map(int fd, size_t min, size_t max, size_t *len, char *err, size_t errlen);

#endif
