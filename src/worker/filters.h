#ifndef PRSYNCD_FILTERS_H
#define PRSYNCD_FILTERS_H

#include "sess.h"

/* Read the client's filter list (refusing rules until filters exist). */
void filters_recv(struct sess *s);

/* Read a --files-from=- name list from the client. */
void files_from_recv(struct sess *s);

#endif
