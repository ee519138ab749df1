/* driver.c - the helpers driver.h gives every driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "driver.h"
#include "ycheck.h"
#include "ynode.h"

const struct wp_cred *
driver_cred(const struct wp_target_conf *tc, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < tc->n_creds; i++)
		if (strcmp(tc->creds[i].name, name) == 0)
			return &tc->creds[i];
	return NULL;
}

void
driver_check_keys(const struct wp_target_conf *tc, const struct ynode *map,
    const char *where, const char *const *allowed, struct diag *d)
{
	ycheck_keys_also(d, map, where, allowed, map == tc->block ?
	    tc->core_keys : NULL);
}

int
probe_result_add(struct wp_probe_result *r, const struct wp_sample *s,
    const char *path, bool chosen)
{
	struct wp_probe_source *p;
	size_t cap;

	if (r->n == r->cap) {
		cap = r->cap ? r->cap * 2 : 16;
		if ((p = realloc(r->src, cap * sizeof(*p))) == NULL)
			return -1;
		r->src = p;
		r->cap = cap;
	}
	p = &r->src[r->n++];
	memset(p, 0, sizeof(*p));
	p->s = *s;
	snprintf(p->path, sizeof(p->path), "%s", path ? path : s->series);
	p->chosen = chosen;
	if (s->quantity == WP_Q_TOKENS)
		sample_get_label(s, "direction", p->direction,
		    sizeof(p->direction));
	return 0;
}

void
probe_result_fini(struct wp_probe_result *r)
{
	free(r->src);
	r->src = NULL;
	r->n = r->cap = 0;
}
