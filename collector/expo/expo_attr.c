/* expo_attr.c - per-model and per-tenant energy, interval by interval
 * (see expo_attr.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/attr.h"
#include "../../model/report_models.h"
#include "../conf/conf.h"
#include "../lib/hmap.h"
#include "expo_attr.h"

#define UNALLOCATED	"unallocated"
#define PARTS_MAX	(FLEET_GPUS + FLEET_ENGINES)

/* One node's readings as of the last commit. */
struct node_base {
	char	*name;
	double	 gpu[FLEET_GPUS];
	uint64_t gpu_has;
	double	 out[FLEET_ENGINES];
	unsigned eng_has;
	double	 b[FB_N];
	bool	 has_b[FB_N];
	wp_time	 first;			/* realtime first seen */
};

/* How long a node's gains wait for an engine that has not reported yet
 * (its model unknown), in intervals. */
#define WAIT_INTERVALS	3

struct expo_attr {
	struct hmap	  h;		/* name -> node_base */
	struct node_base **nb;		/* owned */
	size_t		  n, cap;
	struct attr_view  sums;
};

/* What one node gained since its base (0 where it went back). */
struct gains {
	double	 gpu[FLEET_GPUS];
	double	 out[FLEET_ENGINES];
	double	 b[FB_N];
};

/* A node's parts for one split: names, and each GPU's owner. */
struct parts {
	const char *name[PARTS_MAX];
	size_t	 n;
	int	 gpu[FLEET_GPUS];	/* GPU indexes split over */
	double	 gpu_j[FLEET_GPUS];
	int	 owner[FLEET_GPUS];	/* part index, -1 none */
	size_t	 ng;
};

static bool
base_eq(const void *e, const void *key)
{
	return strcmp(((const struct node_base *)e)->name, key) == 0;
}

static const struct node_base *
base_of(const struct expo_attr *a, const char *name)
{
	return a != NULL ? hmap_get(&a->h, hmap_hash(name), base_eq, name) :
	    NULL;
}

/* name's entry in t (added; past EXPO_ATTR_MAX names, "other"), or NULL
 * out of memory. */
static struct attr_sum *
tab_slot(struct attr_tab *t, const char *name)
{
	struct attr_sum *v;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	if (t->n >= EXPO_ATTR_MAX && strcmp(name, "other") != 0)
		return tab_slot(t, "other");	/* a new name past the cap */
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

static int
tab_copy(struct attr_tab *dst, const struct attr_tab *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src->n == 0)
		return 0;
	if ((dst->v = malloc(src->n * sizeof(*dst->v))) == NULL)
		return -1;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = dst->cap = src->n;
	return 0;
}

/* --- who holds what on one node --- */

/* The name of the tenant whose list what (RT_BY_*) names name, or NULL. */
static const char *
tenant_by(const struct wp_conf *c, const char *name, int what)
{
	int t = report_tenant_by(&c->report, name, what);

	return t >= 0 ? c->report.tenants[t].name : NULL;
}

/* The model of each of n's engines into m (its label, else the config's,
 * else "unknown"); returns their count and sets *one when they all serve
 * one model. */
static size_t
engine_models(const struct fleet_node *n, const char *m[FLEET_ENGINES],
    bool *one)
{
	size_t ne = n->conf ? n->conf->n_engines : 0, e;

	if (ne > FLEET_ENGINES)
		ne = FLEET_ENGINES;
	*one = ne > 0;
	for (e = 0; e < ne; e++) {
		const char *label = fleet_eng_model(n, (int)e);

		m[e] = label ? label : n->conf->engines[e].model ?
		    n->conf->engines[e].model : "unknown";
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

/* The part named name in p (added), or -1 with name NULL. */
static int
part_of(struct parts *p, const char *name)
{
	size_t i;

	if (name == NULL)
		return -1;
	for (i = 0; i < p->n; i++)
		if (strcmp(p->name[i], name) == 0)
			return (int)i;
	p->name[p->n] = name;
	return (int)p->n++;
}

/* The GPUs to split over: those read, and those an engine names. */
static void
gpus_of(const struct fleet_node *n, size_t ne, const struct gains *d,
    struct parts *p)
{
	uint64_t seen = n->gpu_has;
	size_t e, j;
	int g;

	for (e = 0; e < ne; e++)
		for (j = 0; j < n->conf->engines[e].n_gpus; j++)
			if ((g = n->conf->engines[e].gpus[j]) >= 0 &&
			    g < FLEET_GPUS)
				seen |= UINT64_C(1) << g;
	p->ng = 0;
	for (g = 0; g < FLEET_GPUS; g++)
		if (seen & (UINT64_C(1) << g)) {
			p->gpu[p->ng] = g;
			p->gpu_j[p->ng++] = d->gpu[g];
		}
}

/* The tenant of GPU g held by model (NULL none): its namespace's, else
 * the model's, else the node's; NULL none. */
static const char *
gpu_tenant(const struct wp_conf *c, const struct fleet_node *n, int g,
    const char *model)
{
	const char *t = tenant_by(c, fleet_gpu_ns(n, g), RT_BY_NAMESPACE);

	if (t == NULL && model != NULL)
		t = tenant_by(c, model, RT_BY_MODEL);
	return t != NULL ? t : tenant_by(c, n->name, RT_BY_NODE);
}

/* --- the split --- */

/* The node's figures gained (tot) and the rule for this interval. */
static int
node_totals(const struct fleet_node *n, const struct gains *d,
    const struct parts *p, double pue, int rule, struct bnd_value *tot,
    double *unpriced)
{
	static const int fb[BND_N] = { FB_GPU, FB_WALL, FB_OUTLET, FB_WALL };
	double gsum = 0;
	size_t k;
	int b;

	memset(tot, 0, BND_N * sizeof(*tot));
	for (k = 0; k < p->ng; k++)
		gsum += p->gpu_j[k];
	tot[BND_GPU].valid = n->gpu_has != 0;
	tot[BND_GPU].energy_j = gsum;
	for (b = BND_WALL; b < BND_N; b++) {
		tot[b].valid = n->b[fb[b]].has_energy;
		tot[b].energy_j = d->b[fb[b]];
	}
	if (tot[BND_WALL].valid && !(isfinite(pue) && pue >= 1)) {
		*unpriced += tot[BND_WALL].energy_j;
		tot[BND_FACILITY].valid = false;
	}
	tot[BND_FACILITY].energy_j *= pue;
	for (b = BND_WALL; b < BND_N; b++)
		if (tot[b].valid && tot[BND_GPU].valid &&
		    tot[b].energy_j < gsum)
			rule = ATTR_PROPORTIONAL;	/* no part goes back */
	return rule;
}

/* name's entry in t, or NULL. */
static struct attr_sum *
tab_find(struct attr_tab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

/* Whether part k of a split got anything at a boundary. */
static bool
part_got(const double *part_j, size_t k, const struct attr_out *o)
{
	int b;

	for (b = 0; b < BND_N; b++)
		if (o->ok[b] && part_j[k * BND_N + b] != 0)
			return true;
	return false;
}

/* p's split of tot onto t (unallocated as its own entry; a part that
 * got nothing is not added). */
static int
split_onto(struct attr_tab *t, const struct parts *p,
    const struct bnd_value *tot, int rule)
{
	double part_j[PARTS_MAX * BND_N];
	struct attr_out o;
	struct attr_sum *s;
	bool un = false;
	size_t k;
	int b;

	attr_split(&(struct attr_in){ .n_gpus = p->ng, .gpu_j = p->gpu_j,
	    .owner = p->owner, .n_parts = p->n, .tot = tot, .rule = rule },
	    part_j, &o);
	for (k = 0; k < p->n; k++) {
		if (!part_got(part_j, k, &o) && tab_find(t, p->name[k]) == NULL)
			continue;
		if ((s = tab_slot(t, p->name[k])) == NULL)
			return -1;
		for (b = 0; b < BND_N; b++)
			if (o.ok[b]) {
				s->j[b] += part_j[k * BND_N + b];
				s->ok[b] = true;
			}
	}
	for (k = 0; k < p->ng; k++)
		un |= p->owner[k] < 0;
	for (b = 0; b < BND_N; b++)
		un |= o.ok[b] && o.unalloc_j[b] != 0;
	if (!un)
		return 0;
	if ((s = tab_slot(t, UNALLOCATED)) == NULL)
		return -1;
	for (b = 0; b < BND_N; b++)
		if (o.ok[b]) {
			s->j[b] += o.unalloc_j[b];
			s->ok[b] = true;
		}
	return 0;
}

/* Engine e's tokens gained onto its entry named name in t. */
static int
tokens_onto(struct attr_tab *t, const char *name, double x)
{
	struct attr_sum *s = tab_slot(t, name);

	if (s == NULL)
		return -1;
	s->out += x;
	s->has_out = true;
	return 0;
}

static int
node_tenants(const struct wp_conf *c, const struct fleet_node *n,
    const struct gains *d, struct parts *p, const char **m, size_t ne,
    bool one, const struct bnd_value *tot, int rule, struct attr_tab *t)
{
	const char *tn;
	size_t k, e;
	int h;

	p->n = 0;
	for (k = 0; k < p->ng; k++) {
		h = holder(n, ne, one, p->gpu[k]);
		p->owner[k] = part_of(p, gpu_tenant(c, n, p->gpu[k],
		    h >= 0 ? m[h] : NULL));
	}
	if (split_onto(t, p, tot, rule) == -1)
		return -1;
	for (e = 0; e < ne; e++) {
		if (!(n->eng_has & (1u << e)))
			continue;
		if ((tn = tenant_by(c, m[e], RT_BY_MODEL)) == NULL)
			tn = tenant_by(c, n->name, RT_BY_NODE);
		if (tokens_onto(t, tn != NULL ? tn : UNALLOCATED,
		    d->out[e]) == -1)
			return -1;
	}
	return 0;
}

/* n's gains d split onto v. */
static int
node_split(const struct wp_conf *c, const struct fleet_node *n,
    const struct gains *d, double pue, struct attr_view *v)
{
	const char *m[FLEET_ENGINES];
	struct bnd_value tot[BND_N];
	struct parts p;
	bool one;
	size_t ne = engine_models(n, m, &one), k, e;
	int h, rule;

	p.n = 0;
	gpus_of(n, ne, d, &p);
	for (k = 0; k < p.ng; k++) {
		h = holder(n, ne, one, p.gpu[k]);
		p.owner[k] = part_of(&p, h >= 0 ? m[h] : NULL);
	}
	for (e = 0; e < ne; e++)
		(void)part_of(&p, m[e]);	/* a model without GPUs too */
	rule = node_totals(n, d, &p, pue, v->rule, tot,
	    &v->facility_unpriced_j);
	if (split_onto(&v->models, &p, tot, rule) == -1)
		return -1;
	for (e = 0; e < ne; e++)
		if ((n->eng_has & (1u << e)) &&
		    tokens_onto(&v->models, m[e], d->out[e]) == -1)
			return -1;
	if (c->report.n_tenants == 0)
		return 0;
	return node_tenants(c, n, d, &p, m, ne, one, tot, rule, &v->tenants);
}

static double
gain(double now, double base, bool had)
{
	double x = had ? now - base : now;

	return x > 0 ? x : 0;
}

static void
gains_of(const struct fleet_node *n, const struct node_base *base,
    struct gains *d)
{
	int g, b;

	memset(d, 0, sizeof(*d));
	for (g = 0; g < FLEET_GPUS; g++)
		if (n->gpu_has & (UINT64_C(1) << g))
			d->gpu[g] = gain(n->ib->gpu_e[g], base ? base->gpu[g] :
			    0, base && (base->gpu_has & (UINT64_C(1) << g)));
	for (g = 0; g < FLEET_ENGINES; g++)
		if (n->eng_has & (1u << g))
			d->out[g] = gain(n->ib->eng_out[g], base ?
			    base->out[g] : 0, base && (base->eng_has &
			    (1u << g)));
	for (b = 0; b < FB_N; b++)
		if (n->b[b].has_energy)
			d->b[b] = gain(n->b[b].energy, base ? base->b[b] : 0,
			    base && base->has_b[b]);
}

/* --- the state --- */

struct expo_attr *
expo_attr_new(void)
{
	return calloc(1, sizeof(struct expo_attr));
}

void
expo_attr_free(struct expo_attr *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++) {
		free(a->nb[i]->name);
		free(a->nb[i]);
	}
	free(a->nb);
	hmap_fini(&a->h);
	expo_attr_view_fini(&a->sums);
	free(a);
}

/* n's base (added empty, first seen at now), or NULL out of memory. */
static struct node_base *
base_get(struct expo_attr *a, const char *name, wp_time now)
{
	struct node_base *nb = (struct node_base *)base_of(a, name), **v;

	if (nb != NULL)
		return nb;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;

		if ((v = realloc(a->nb, cap * sizeof(*v))) == NULL)
			return NULL;
		a->nb = v;
		a->cap = cap;
	}
	if ((nb = calloc(1, sizeof(*nb))) == NULL ||
	    (nb->name = strdup(name)) == NULL ||
	    hmap_put(&a->h, hmap_hash(name), nb) == -1) {
		if (nb != NULL)
			free(nb->name);
		free(nb);
		return NULL;
	}
	nb->first = now;
	a->nb[a->n++] = nb;
	return nb;
}

/* x raised to v (a base never goes down: what a reading lost and got
 * back, as a node's sum over targets does when one is held, is not
 * attributed twice). */
static void
raise_to(double *x, double v)
{
	if (v > *x)
		*x = v;
}

/* Moves nb up to n's readings (those n has; the others kept). */
static void
base_move(struct node_base *nb, const struct fleet_node *n)
{
	int g, b;

	for (g = 0; g < FLEET_GPUS; g++)
		if (n->gpu_has & (UINT64_C(1) << g))
			raise_to(&nb->gpu[g], n->ib->gpu_e[g]);
	nb->gpu_has |= n->gpu_has;
	for (g = 0; g < FLEET_ENGINES; g++)
		if (n->eng_has & (1u << g))
			raise_to(&nb->out[g], n->ib->eng_out[g]);
	nb->eng_has |= n->eng_has;
	for (b = 0; b < FB_N; b++)
		if (n->b[b].has_energy) {
			raise_to(&nb->b[b], n->b[b].energy);
			nb->has_b[b] = true;
		}
}

static int
view_copy(struct attr_view *dst, const struct attr_view *src)
{
	memset(dst, 0, sizeof(*dst));
	if (tab_copy(&dst->models, &src->models) == -1 ||
	    tab_copy(&dst->tenants, &src->tenants) == -1) {
		expo_attr_view_fini(dst);
		return -1;
	}
	dst->facility_unpriced_j = src->facility_unpriced_j;
	dst->rule = src->rule;
	return 0;
}

/* Whether n's gains are split now: every engine of it has reported, or
 * is named in the config, or the node was first seen WAIT_INTERVALS
 * ago (base NULL: now). */
static bool
node_ready(const struct fleet *fl, const struct fleet_node *n,
    const struct node_base *base)
{
	size_t ne = n->conf ? n->conf->n_engines : 0, e;

	if (base != NULL && fl->now - base->first >= WAIT_INTERVALS *
	    fl->conf->interval)
		return true;
	for (e = 0; e < ne && e < FLEET_ENGINES; e++)
		if (!(n->eng_has & (1u << e)) && n->conf->engines[e].model ==
		    NULL)
			return false;
	return true;
}

/* fl's gains over a's bases split onto v (nodes not ready skipped). */
static int
split_fleet(const struct expo_attr *a, const struct fleet *fl, double pue,
    struct attr_view *v)
{
	struct gains d;
	size_t i;

	v->rule = fl->conf != NULL ? fl->conf->report.attribution :
	    ATTR_PROPORTIONAL;
	for (i = 0; i < fl->n_nodes && fl->conf != NULL; i++) {
		const struct node_base *nb = base_of(a, fl->nodes[i].name);

		if (!node_ready(fl, &fl->nodes[i], nb))
			continue;
		gains_of(&fl->nodes[i], nb, &d);
		if (node_split(fl->conf, &fl->nodes[i], &d, pue, v) == -1)
			return -1;
	}
	return 0;
}

int
expo_attr_commit(struct expo_attr *a, const struct fleet *fl, double pue)
{
	struct node_base *nb;
	struct attr_view v;
	size_t i;

	if (view_copy(&v, &a->sums) == -1)
		return -1;
	for (i = 0; i < fl->n_nodes; i++)	/* first: nothing half done */
		if (base_get(a, fl->nodes[i].name, fl->now) == NULL)
			goto fail;
	/* the gains over the bases as they were, then the bases moved */
	if (split_fleet(a, fl, pue, &v) == -1)
		goto fail;
	for (i = 0; i < fl->n_nodes && fl->conf != NULL; i++) {
		nb = (struct node_base *)base_of(a, fl->nodes[i].name);
		if (node_ready(fl, &fl->nodes[i], nb))
			base_move(nb, &fl->nodes[i]);
	}
	expo_attr_view_fini(&a->sums);
	a->sums = v;
	return 0;
fail:
	expo_attr_view_fini(&v);
	return -1;
}

/* The nodes' energy a's sums were split from: its bases summed. */
static void
base_totals(const struct expo_attr *a, struct attr_view *v)
{
	static const int fb[BND_N] = { -1, FB_WALL, FB_OUTLET, -1 };
	size_t i;
	int b, g;

	for (i = 0; i < a->n; i++) {
		const struct node_base *nb = a->nb[i];

		for (g = 0; g < FLEET_GPUS; g++)
			if (nb->gpu_has & (UINT64_C(1) << g)) {
				v->nodes_j[BND_GPU] += nb->gpu[g];
				v->nodes_ok[BND_GPU] = true;
			}
		for (b = BND_WALL; b <= BND_OUTLET; b++)
			if (nb->has_b[fb[b]]) {
				v->nodes_j[b] += nb->b[fb[b]];
				v->nodes_ok[b] = true;
			}
	}
}

int
expo_attr_view(const struct expo_attr *a, const struct fleet *fl,
    double pue, struct attr_view *v)
{
	static const struct attr_view empty;

	if (a != NULL) {
		if (view_copy(v, &a->sums) == -1)
			return -1;
		base_totals(a, v);
		return 0;
	}
	if (view_copy(v, &empty) == -1 || split_fleet(NULL, fl, pue, v) == -1) {
		expo_attr_view_fini(v);
		return -1;
	}
	return 0;
}

void
expo_attr_view_fini(struct attr_view *v)
{
	free(v->models.v);
	free(v->tenants.v);
	memset(v, 0, sizeof(*v));
}
