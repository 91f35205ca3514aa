/* SPDX-License-Identifier: ISC */
/*
 * The session's side of compression (see compress_sess.c).
 */
#ifndef PRSYNCD_COMPRESS_SESS_H
#define PRSYNCD_COMPRESS_SESS_H

#include <stddef.h>

#include "compress.h"
#include "sess.h"

/* From the options, before the compat flags: the fixed choice, or whether
 * a name list will be exchanged (`negotiated`: both sides exchange lists).
 * -1 with a message for the client on an unknown name. */
int compress_options(struct sess *s, int negotiated, char *err, size_t errlen);

/* Our list, after our checksum list (stock writes both before reading). */
void compress_write_list(struct sess *s);

/* The client's list (after its checksum list), then the level. */
void compress_read_list(struct sess *s);

/* Point `sink` at the compressor for the file `name` (left alone when the
 * session is not compressed).  -1 on failure, see compress_error(). */
int compress_sink(struct sess *s, struct token_sink *sink, const char *name);

/* Why the token stream of a file failed, for the session's last words. */
const char *compress_error(const struct sess *s);

#endif
