/* expo_models.c - /metrics per model and per tenant (see expo_models.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "expo_metrics.h"
#include "expo_models.h"

#define NAME_MAX_LEN	128

struct acc {
	char	 name[NAME_MAX_LEN];
	double	 gpu_j, out;
	bool	 has_gpu, has_out;
};

struct tab {
	struct acc *v;
	size_t	 n, cap;
};

/* name's entry (added; past EXPO_MODELS_MAX distinct, "other"), or NULL
 * out of memory. */
static struct acc *
slot(struct tab *t, const char *name)
{
	struct acc *v;
	size_t i;

	if (t->n >= EXPO_MODELS_MAX)
		name = "other";
	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		if ((v = realloc(t->v, cap * sizeof(*v))) == NULL)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	v = &t->v[t->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

/* The tenant listing name in the list what (0 models, 1 namespaces,
 * 2 nodes), or NULL. */
static const char *
tenant_by(const struct wp_conf *c, const char *name, int what)
{
	const struct report_settings *s = &c->report;
	size_t t, j, n;
	const char **v;

	if (name == NULL || *name == '\0')
		return NULL;
	for (t = 0; t < s->n_tenants; t++) {
		const struct report_tenant *x = &s->tenants[t];

		v = what == 0 ? x->models : what == 1 ? x->namespaces : x->nodes;
		n = what == 0 ? x->n_models : what == 1 ? x->n_namespaces :
		    x->n_nodes;
		for (j = 0; j < n; j++)
			if (strcmp(v[j], name) == 0)
				return x->name;
	}
	return NULL;
}

/* The models of node n's engines into m; returns their count and sets
 * *one when they all serve one model. */
static size_t
engine_models(const struct fleet_node *n, char m[][NAME_MAX_LEN], bool *one)
{
	size_t ne = n->conf ? n->conf->n_engines : 0, e;

	if (ne > FLEET_ENGINES)
		ne = FLEET_ENGINES;
	*one = ne > 0;
	for (e = 0; e < ne; e++) {
		snprintf(m[e], NAME_MAX_LEN, "%s", n->eng_model[e] ?
		    n->eng_model[e] : "");
		if (m[e][0] == '\0')
			snprintf(m[e], NAME_MAX_LEN, "%s",
			    n->conf->engines[e].model ? n->conf->engines[e].model :
			    "unknown");
		*one &= strcmp(m[e], m[0]) == 0;
	}
	return ne;
}

/* The engine holding GPU g of n, or -1. */
static int
holder(const struct fleet_node *n, size_t ne, bool one, int g)
{
	bool mapped = false;
	size_t e, j;

	for (e = 0; e < ne; e++)
		for (j = 0; j < n->conf->engines[e].n_gpus; j++) {
			mapped = true;
			if (n->conf->engines[e].gpus[j] == g)
				return (int)e;
		}
	return !mapped && one ? 0 : -1;
}

static int
node_add(const struct fleet *fl, const struct fleet_node *n, struct tab *mt,
    struct tab *tt)
{
	char m[FLEET_ENGINES][NAME_MAX_LEN];
	const char *tn;
	struct acc *a;
	bool one;
	size_t ne = engine_models(n, m, &one), e;
	int g, h;

	for (g = 0; g < FLEET_GPUS; g++) {
		if (!(n->gpu_has & (UINT64_C(1) << g)))
			continue;
		h = holder(n, ne, one, g);
		if ((a = slot(mt, h >= 0 ? m[h] : "unallocated")) == NULL)
			return -1;
		a->gpu_j += n->gpu_e[g];
		a->has_gpu = true;
		if (fl->conf->report.n_tenants == 0)
			continue;
		if ((tn = tenant_by(fl->conf, n->gpu_ns[g], 1)) == NULL && h >= 0)
			tn = tenant_by(fl->conf, m[h], 0);
		if (tn == NULL)
			tn = tenant_by(fl->conf, n->name, 2);
		if ((a = slot(tt, tn ? tn : "unallocated")) == NULL)
			return -1;
		a->gpu_j += n->gpu_e[g];
		a->has_gpu = true;
	}
	for (e = 0; e < ne; e++)
		if (n->eng_has & (1u << e)) {
			if ((a = slot(mt, m[e])) == NULL)
				return -1;
			a->out += n->eng_out[e];
			a->has_out = true;
		}
	return 0;
}

static void
num(FILE *f, double v)
{
	char buf[64];

	expo_fmt_value(buf, sizeof(buf), v);
	fprintf(f, " %s\n", buf);
}

static void
write_tabs(FILE *f, const struct tab *mt, const struct tab *tt)
{
	size_t i;

	fprintf(f, "# HELP wattpath_model_gpu_energy_joules_total GPU energy "
	    "of the GPUs each model's engines hold (engines[].gpus), "
	    "reset-corrected; unallocated: GPUs no engine holds.\n# TYPE "
	    "wattpath_model_gpu_energy_joules_total counter\n");
	for (i = 0; i < mt->n; i++)
		if (mt->v[i].has_gpu) {
			fputs("wattpath_model_gpu_energy_joules_total{model=\"", f);
			expo_label_escape(f, mt->v[i].name);
			fputs("\"}", f);
			num(f, mt->v[i].gpu_j);
		}
	fprintf(f, "# HELP wattpath_model_tokens_total Output tokens of each "
	    "model's engines.\n# TYPE wattpath_model_tokens_total counter\n");
	for (i = 0; i < mt->n; i++)
		if (mt->v[i].has_out) {
			fputs("wattpath_model_tokens_total{model=\"", f);
			expo_label_escape(f, mt->v[i].name);
			fputs("\",direction=\"output\"}", f);
			num(f, mt->v[i].out);
		}
	fprintf(f, "# HELP wattpath_tenant_gpu_energy_joules_total GPU energy "
	    "per tenant of the tenants: map (namespace, else model, else "
	    "node); unallocated: none of them.\n# TYPE "
	    "wattpath_tenant_gpu_energy_joules_total counter\n");
	for (i = 0; i < tt->n; i++) {
		fputs("wattpath_tenant_gpu_energy_joules_total{tenant=\"", f);
		expo_label_escape(f, tt->v[i].name);
		fputs("\"}", f);
		num(f, tt->v[i].gpu_j);
	}
}

int
expo_models_write(FILE *f, const struct fleet *fl)
{
	struct tab mt = { 0 }, tt = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < fl->n_nodes && rc == 0 && fl->conf != NULL; i++)
		rc = node_add(fl, &fl->nodes[i], &mt, &tt);
	if (rc == 0)
		write_tabs(f, &mt, &tt);
	free(mt.v);
	free(tt.v);
	return rc;
}
