/* SPDX-License-Identifier: ISC */
/*
 * File names and symlink targets on the wire under --iconv (charset.h):
 * the check made when an entry joins the file list (an entry whose name
 * or target cannot be converted is left out, with rsyncd's message and
 * an I/O error), and the conversion made when it is sent.
 */
#ifndef PRSYNCD_FLCONV_H
#define PRSYNCD_FLCONV_H

#include <stddef.h>

#include "sess.h"

/* 1 if the entry may be listed (always, without --iconv).  `name` is the
 * list name, `mpath` the module path, `link` the target or NULL. */
int flconv_check(struct sess *s, const char *name, const char *mpath, const char *link);

/* The bytes to send for a name or a target (len bytes at *out): in, or
 * its conversion in buf (cap bytes). */
size_t flconv_wire(const struct sess *s, const char *in, char *buf, size_t cap, const char **out);

#endif
