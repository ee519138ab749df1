/* conf_tenant.c - the tenants: block (see conf_tenant.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/diag.h"
#include "../lib/ycheck.h"
#include "../lib/ynode.h"
#include "conf.h"
#include "conf_tenant.h"

/* The list under key of tenant m into *v (names), each checked against
 * the earlier tenants' lists of the same key (at offset off). */
static int
load_list(struct wp_conf *c, const struct ynode *m, const char *key,
    size_t off_v, size_t off_n, const char *where, struct diag *d)
{
	struct report_tenant *t = &c->report.tenants[c->report.n_tenants];
	const char ***v = (const char ***)((char *)t + off_v);
	size_t *n = (size_t *)((char *)t + off_n), i, j, k = 0;
	const struct ynode *seq, *e;

	if ((seq = ycheck_typed(d, m, key, YN_SEQ, where, false)) == NULL)
		return 0;
	k += ynode_count(seq);
	if ((*v = calloc(k + 1, sizeof(**v))) == NULL)
		return -1;
	for (e = seq->child; e != NULL; e = e->next) {
		bool dup = false;

		if (e->type != YN_SCALAR || *e->value == '\0') {
			diag_at(d, e, false, "%s: %s: each entry must be a name",
			    where, key);
			continue;
		}
		for (i = 0; i < c->report.n_tenants && !dup; i++) {
			struct report_tenant *o = &c->report.tenants[i];
			const char **ov = *(const char ***)((char *)o + off_v);
			size_t on = *(size_t *)((char *)o + off_n);

			for (j = 0; j < on && !dup; j++)
				if (strcmp(ov[j], e->value) == 0) {
					diag_at(d, e, false, "%s: %s: '%s' is "
					    "already tenant %s's", where, key,
					    e->value, o->name);
					dup = true;
				}
		}
		if (!dup && strcmp(key, "nodes") == 0 &&
		    conf_node_by_name(c, e->value) == NULL) {
			diag_at(d, e, false, "%s: nodes: unknown node '%s'", where,
			    e->value);
			dup = true;
		}
		if (!dup)
			(*v)[(*n)++] = e->value;
	}
	return 0;
}

static int
load_tenant(struct wp_conf *c, const struct ynode *m, struct diag *d)
{
	static const char *const keys[] = { "name", "models", "namespaces",
	    "nodes", NULL };
	struct report_tenant *t = &c->report.tenants[c->report.n_tenants];
	char where[160];
	size_t i;

	ycheck_keys(d, m, "tenants", keys);
	if ((t->name = ycheck_scalar(d, m, "name", "tenants", true)) == NULL)
		return 0;
	snprintf(where, sizeof(where), "tenant %s", t->name);
	if (strcmp(t->name, "unallocated") == 0 || strpbrk(t->name, ";,") !=
	    NULL) {
		diag_at(d, ynode_get(m, "name"), false, "%s: the name must not be "
		    "'unallocated' nor contain ';' or ','", where);
		return 0;
	}
	for (i = 0; i < c->report.n_tenants; i++)
		if (strcmp(c->report.tenants[i].name, t->name) == 0) {
			diag_at(d, ynode_get(m, "name"), false, "duplicate tenant "
			    "name '%s'", t->name);
			return 0;
		}
	if (load_list(c, m, "models", offsetof(struct report_tenant, models),
	    offsetof(struct report_tenant, n_models), where, d) == -1 ||
	    load_list(c, m, "namespaces", offsetof(struct report_tenant,
	    namespaces), offsetof(struct report_tenant, n_namespaces), where,
	    d) == -1 || load_list(c, m, "nodes", offsetof(struct report_tenant,
	    nodes), offsetof(struct report_tenant, n_nodes), where, d) == -1)
		return -1;
	c->report.n_tenants++;
	return 0;
}

int
conf_tenants_load(struct wp_conf *c, const struct ynode *seq, struct diag *d)
{
	const struct ynode *m;
	size_t k = 0;

	if (seq == NULL)
		return 0;
	k += ynode_count(seq);
	if ((c->report.tenants = calloc(k + 1, sizeof(*c->report.tenants))) ==
	    NULL)
		return -1;
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			diag_at(d, m, false, "tenants: each entry must be a mapping "
			    "{name, models, namespaces, nodes}");
			continue;
		}
		/* lists are read only for an accepted entry, which then
		 * counts: conf_tenants_free frees them */
		if (load_tenant(c, m, d) == -1)
			return -1;
	}
	return 0;
}

void
conf_tenants_free(struct wp_conf *c)
{
	size_t i;

	for (i = 0; c->report.tenants != NULL && i <= c->report.n_tenants;
	    i++) {
		free(c->report.tenants[i].models);
		free(c->report.tenants[i].namespaces);
		free(c->report.tenants[i].nodes);
	}
	free(c->report.tenants);
	c->report.tenants = NULL;
	c->report.n_tenants = 0;
}
