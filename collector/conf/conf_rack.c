/* conf_rack.c - the racks: block (see conf_rack.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/diag.h"
#include "../lib/ycheck.h"
#include "../lib/ynode.h"
#include "conf.h"
#include "conf_rack.h"

/* Whether some node of c is in rack name. */
static bool
rack_used(const struct wp_conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].rack != NULL &&
		    strcmp(c->nodes[i].rack, name) == 0)
			return true;
	return false;
}

/* capacity_w of m into *w: 0, or -1 (reported). */
static int
capacity(const struct ynode *m, const char *where, double *w,
    struct diag *d)
{
	const struct ynode *v = ynode_get(m, "capacity_w");
	char *end;

	if (v == NULL || v->type != YN_SCALAR || *v->value == '\0') {
		diag_at(d, v != NULL ? v : m, false, "%s: capacity_w: a number "
		    "of watts is required", where);
		return -1;
	}
	errno = 0;
	*w = strtod(v->value, &end);
	if (errno != 0 || *end != '\0' || !isfinite(*w) || *w <= 0 ||
	    *w > RACK_CAPACITY_MAX) {
		diag_at(d, v, false, "%s: capacity_w: '%s' is not a number of "
		    "watts above 0 and at most 10000000", where, v->value);
		return -1;
	}
	return 0;
}

static void
load_rack(struct wp_conf *c, const struct ynode *m, struct diag *d)
{
	static const char *const keys[] = { "name", "capacity_w", NULL };
	struct wp_rack *r = &c->racks[c->n_racks];
	char where[160];
	size_t i;

	ycheck_keys(d, m, "racks", keys);
	if ((r->name = ycheck_scalar(d, m, "name", "racks", true)) == NULL)
		return;
	snprintf(where, sizeof(where), "rack %s", r->name);
	for (i = 0; i < c->n_racks; i++)
		if (strcmp(c->racks[i].name, r->name) == 0) {
			diag_at(d, ynode_get(m, "name"), false, "duplicate rack "
			    "name '%s'", r->name);
			return;
		}
	if (!rack_used(c, r->name)) {
		diag_at(d, ynode_get(m, "name"), false, "%s: no node is in this "
		    "rack (nodes[].rack)", where);
		return;
	}
	if (capacity(m, where, &r->capacity_w, d) == -1)
		return;
	c->n_racks++;
}

int
conf_racks_load(struct wp_conf *c, const struct ynode *seq, struct diag *d)
{
	const struct ynode *m;
	size_t k = 0;

	if (seq == NULL)
		return 0;
	k += ynode_count(seq);
	if ((c->racks = calloc(k + 1, sizeof(*c->racks))) == NULL)
		return -1;
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			diag_at(d, m, false, "racks: each entry must be a mapping "
			    "{name, capacity_w}");
			continue;
		}
		load_rack(c, m, d);
	}
	return 0;
}

void
conf_racks_free(struct wp_conf *c)
{
	free(c->racks);
	c->racks = NULL;
	c->n_racks = 0;
}

const struct wp_rack *
conf_rack(const struct wp_conf *c, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < c->n_racks; i++)
		if (strcmp(c->racks[i].name, name) == 0)
			return &c->racks[i];
	return NULL;
}
