/*
 * The client's filter list (spec part 1 section 7).  It is read in full
 * and bounded; applying rules arrives with the filter issue, so until then
 * a non-empty list is refused rather than ignored (ignoring it would send
 * files the user excluded, and the client would abort on them anyway).
 */
#include <stdlib.h>
#include <string.h>

#include "filters.h"
#include "mon.h"

#define RULE_MAX 5120
#define RULES_MAX 100000

void filters_recv(struct sess *s)
{
	static char rule[RULE_MAX + 1];
	int nrules = 0;

	for (;;) {
		int32_t len = io_read_int32(&s->io);

		if (len == 0)
			break;
		if (len < 0 || len > RULE_MAX)
			io_fatal(&s->io, RERR_PROTOCOL, "filter rule length %d out of range [sender]", len);
		if (++nrules > RULES_MAX)
			io_fatal(&s->io, RERR_PROTOCOL, "too many filter rules [sender]");
		io_read(&s->io, rule, (size_t)len);
		rule[len] = '\0';
	}
	if (nrules > 0 || s->opt.cvs_exclude)
		io_fatal(&s->io, RERR_UNSUPPORTED, "filter rules (--exclude, --include, --filter, -C, -F) "
			 "are not supported by this prsyncd yet [sender]");
}

/* --files-from=-: NUL-separated names, ending with an empty one.  Each
 * becomes a source argument relative to the first path argument, with the
 * name kept as given (-R). */
void files_from_recv(struct sess *s)
{
	static char name[4096];
	const char *base = s->opt.npaths ? s->opt.paths[0] : "";
	size_t len = 0;

	if (!s->opt.files_from_socket)
		return;
	if (s->protocol == 30)
		io_set_mux_in(&s->io, 0); /* protocol 30 sends the names raw */
	for (size_t total = 0;; total++) {
		char ch;

		if (total > (64u << 20))
			io_fatal(&s->io, RERR_PROTOCOL, "files-from list too long [sender]");
		io_read(&s->io, &ch, 1);
		if (ch == '\n' && !s->opt.from0)
			ch = '\0';
		if (ch != '\0') {
			if (len + 1 >= sizeof(name))
				io_fatal(&s->io, RERR_PROTOCOL, "files-from name too long [sender]");
			name[len++] = ch;
			continue;
		}
		if (len == 0)
			break;
		name[len] = '\0';
		sess_add_path(s, base, name);
		len = 0;
	}
	io_set_mux_in(&s->io, 1);
}
