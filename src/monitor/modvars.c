/* SPDX-License-Identifier: ISC */
/* Per-connection %VAR% expansion of the selected module (modvars.h). */
#include <stdlib.h>
#include <string.h>

#include "cfgvars.h"
#include "log.h"
#include "modvars.h"

struct conn_vars {
	const char *module, *path, *addr, *host, *user;
	int names_only; /* expanding the path or a filter directive */
	int refused;    /* a client-derived value was not a plain name */
};

/* A value the client chose (its DNS name, its login) goes into the path
 * or a filter directive only if it is a plain name: the rule parser and
 * pattern compiler then run on configuration text and name characters
 * alone, as the trusted-data claim on modfilter_add() says
 * (scripts/tcb.py), a reverse-DNS answer cannot bring wildcards, blanks
 * or rule prefixes into the module's filters, and the walk that opens
 * the module root (safe_open) takes from the client no '/' and so no
 * component of its own.  rsyncd expands such values as they are. */
static const char *plain(const char *val, struct conn_vars *c)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:@";

	if (c->names_only && val != NULL && val[strspn(val, name_chars)] != '\0') {
		c->refused = 1;
		return "";
	}
	return val;
}

/* What rsyncd has defined when it first uses these values: the user a
 * login accepted ("" without one), the module's path once it is known. */
static const char *lookup(const char *name, void *ctx)
{
	static const char *const names[] = { "RSYNC_MODULE_NAME", "RSYNC_MODULE_PATH",
					     "RSYNC_HOST_ADDR", "RSYNC_HOST_NAME", "RSYNC_USER_NAME" };
	struct conn_vars *c = ctx;
	const char *values[] = { c->module, c->path, c->addr, c->host, c->user };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return i < 2 ? values[i] : plain(values[i], c); /* the client's: address, name, login */
	return NULL;
}

static int expand(struct modvars *v, char **field, struct conn_vars *c)
{
	char *buf;

	if (*field == NULL || strchr(*field, '%') == NULL)
		return 0;
	if (v->nowned == (int)(sizeof(v->owned) / sizeof(v->owned[0])) || (buf = malloc(MODVARS_VALUE_MAX)) == NULL)
		return -1;
	v->owned[v->nowned++] = buf;
	if (cfgvars_expand(*field, buf, MODVARS_VALUE_MAX, lookup, c) < 0)
		return -1;
	*field = buf;
	return 0;
}

static int climbs(const char *path)
{
	size_t n = strlen(path);

	return strstr(path, "/../") != NULL || (n >= 3 && strcmp(path + n - 3, "/..") == 0);
}

int modvars_expand(struct modvars *v, const struct cfg_module *in, const char *host, const char *addr,
		   const char *user)
{
	struct conn_vars c = { in->name, NULL, addr, host, user, 0, 0 };
	struct cfg_module *m = &v->m;
	/* The path first: the others may name it. */
	char **fields[] = { &m->path, &m->uid, &m->gid, &m->refuse_options, &m->outgoing_chmod,
			    &m->charset, &m->dont_compress, &m->filt[CFG_F_FILTER],
			    &m->filt[CFG_F_INCLUDE], &m->filt[CFG_F_EXCLUDE] };

	memset(v, 0, sizeof(*v));
	*m = *in;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		c.names_only = fields[i] == &m->path || (fields[i] >= &m->filt[0] && fields[i] < &m->filt[CFG_F_N]);
		if (expand(v, fields[i], &c) < 0) {
			log_msg(PR_LOG_ERR, "module %s: a value is longer than %d bytes once %%VAR%% "
				"references are expanded, or memory is short", in->name, MODVARS_VALUE_MAX);
			return -1;
		}
		if (c.refused) {
			log_msg(PR_LOG_ERR, "module %s: its path or a filter directive names the client's host "
				"or user, whose value is not a plain name ([A-Za-z0-9._:@-]): refused", in->name);
			return -1;
		}
		c.path = m->path;
	}
	/* The client's name comes from its own DNS: a path built from it
	 * must not climb out of where the administrator put it. */
	if (m->path != in->path && climbs(m->path)) {
		log_msg(PR_LOG_ERR, "module %s: path %s has a '..' once expanded: refused", in->name, m->path);
		return -1;
	}
	return 0;
}

void modvars_expand_text(char *out, size_t cap, const char *in, const struct cfg_module *mod, const char *host,
			 const char *addr, const char *user)
{
	struct conn_vars c = { mod->name, mod->path, addr, host, user, 0, 0 };

	(void)cfgvars_expand(in, out, cap, lookup, &c); /* cut at cap - 1 bytes: a syslog tag's way */
}
