/* SPDX-License-Identifier: ISC */
/*
 * The configuration snapshot: how a parsed configuration travels from the
 * listener, which reads the file, to each session monitor, which must not.
 *
 * The listener serialises a struct cfg into a memfd and seals it
 * (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL), so the bytes a
 * session maps are fixed for its whole life, whatever happens to the file or
 * to later snapshots.  Every field is written and read through the X-macro
 * lists in config.h: a new directive needs no code here.
 *
 * Layout (native byte order and word size: writer and reader are one build):
 *
 *   header   8 x u32: magic, version, layout, total, global_words,
 *            module_words, nmodules, strings_len
 *   global   global_words x u32, the global fields in list order
 *   modules  nmodules x module_words x u32
 *   strings  strings_len bytes
 *
 * INT is one word; STR is two (offset into the strings area, length), with
 * (0xffffffff, 0) for NULL; STRV(n) is n STRs.  The strings area holds the
 * strings in the order the fields name them, each followed by its NUL, with
 * no gap, so the reader checks each in one pass.  `layout` is a hash of the
 * field lists: a reader built from other lists refuses the blob.
 */
#ifndef PRSYNCD_CFGSNAP_H
#define PRSYNCD_CFGSNAP_H

#include <stddef.h>

#include "config.h"

#define CFGSNAP_MAGIC 0x50524353u /* "PRCS" */
#define CFGSNAP_VERSION 1u
#define CFGSNAP_MAX (256u << 20)  /* bytes; the writer refuses more */
#define CFGSNAP_HDR_WORDS 8

/* Listener: serialise c into a sealed memfd (O_CLOEXEC); its descriptor,
 * or -1 with the reason in err. */
int cfgsnap_create(const struct cfg *c, char *err, size_t errlen);

/* Serialise into a new buffer (free()); 0, or -1 with the reason. */
int cfgsnap_build(const struct cfg *c, unsigned char **out, size_t *outlen, char *err, size_t errlen);

/* Validate a blob and describe it in *out: every string pointer points into
 * buf, which must outlive *out and stay unchanged; only out->modules is
 * allocated (cfgsnap_parsed_free).  No warnings travel.  0, or -1 with the
 * reason in err. */
int cfgsnap_parse(const void *buf, size_t len, struct cfg *out, char *err, size_t errlen);
void cfgsnap_parsed_free(struct cfg *c);

/* Session monitor: check that fd is sealed as the listener seals it, map it
 * read-only for the rest of the process's life, and parse it.  The caller
 * may close fd afterwards. */
int cfgsnap_open(int fd, struct cfg *out, char *err, size_t errlen);

#endif
