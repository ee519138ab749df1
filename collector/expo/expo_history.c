/* expo_history.c - rings of fleet figures and per-node power pairs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/hmap.h"
#include "expo_history.h"

struct nodeh {
	char	*name, *class;		/* name first: the map's key */
	float	 gpu[HIST_PAIRS], wall[HIST_PAIRS];
	unsigned n, head;
};

struct history {
	struct hist_point *v;
	size_t	 cap, n, head;		/* head: next slot */
	struct hmap nodes;		/* struct nodeh by name */
};

struct history *
history_new(size_t cap)
{
	struct history *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->cap = cap ? cap : 1;
	if ((h->v = calloc(h->cap, sizeof(*h->v))) == NULL) {
		free(h);
		return NULL;
	}
	return h;
}

void
history_free(struct history *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nodes.cap; i++) {
		struct nodeh *nh = h->nodes.slot[i].e;

		if (nh != NULL) {
			free(nh->name);
			free(nh->class);
			free(nh);
		}
	}
	hmap_fini(&h->nodes);
	free(h->v);
	free(h);
}

size_t
history_len(const struct history *h)
{
	return h->n;
}

const struct hist_point *
history_at(const struct history *h, size_t i)
{
	if (i >= h->n)
		return NULL;
	return &h->v[(h->head + h->cap - h->n + i) % h->cap];
}

/* Oldest point within window of now that passes ok(), or NULL. */
static const struct hist_point *
oldest(const struct history *h, wp_time now, wp_time window,
    bool (*ok)(const struct hist_point *, int), int b)
{
	const struct hist_point *p;
	size_t i;

	for (i = 0; i < h->n; i++) {
		p = history_at(h, i);
		if (p->t >= now - window && p->t < now && ok(p, b))
			return p;
	}
	return NULL;
}

static bool
has_meters(const struct hist_point *p, int b)
{
	(void)b;
	return p->has_fac_e && p->has_it_e;
}

double
history_pue(const struct history *h, const struct fleet *f, wp_time window)
{
	const struct hist_point *p = NULL;
	double df, di;

	if (f->has_fac_e && f->has_it_e)
		p = oldest(h, f->now, window, has_meters, 0);
	if (p != NULL) {
		df = f->fac_energy - p->fac_e;
		di = f->it_energy - p->it_e;
		if (di > 0 && df >= 0)
			return df / di;
	}
	if (f->has_fac_p && f->has_it_p && f->it_power > 0)
		return f->fac_power / f->it_power;
	return NAN;
}

int
history_tokens_window(const struct history *h, const struct fleet *f, int b,
    wp_time window, double *de, double *dt)
{
	const struct hist_point *p = NULL;
	size_t i;

	if (b < 0 || b >= FB_N || !f->total[b].has_energy)
		return -1;
	for (i = 0; i < h->n && p == NULL; i++) {
		p = history_at(h, i);
		if (p->t < f->now - window || p->t >= f->now ||
		    !p->has_energy[b] || p->cov_sig[b] != f->cov[b].sig)
			p = NULL;
	}
	if (p == NULL)
		return -1;
	*de = f->total[b].energy - p->energy[b];
	*dt = f->cov[b].tokens - p->cov_tokens[b];
	return *de > 0 && *dt >= 0 ? 0 : -1;
}

double
history_tokens_per_joule(const struct history *h, const struct fleet *f,
    int b, wp_time window)
{
	double de, dt;

	return history_tokens_window(h, f, b, window, &de, &dt) == 0 ?
	    dt / de : NAN;
}

/* --- per-node pairs --- */

/* The pairs of node name (created when new), its class kept current. */
static struct nodeh *
node_get(struct history *h, const char *name, const char *cls)
{
	uint64_t hv = hmap_hash(name);
	struct nodeh *nh = hmap_get(&h->nodes, hv, hmap_str_eq, name);

	if (nh == NULL) {
		if ((nh = calloc(1, sizeof(*nh))) == NULL)
			return NULL;
		if ((nh->name = strdup(name)) == NULL ||
		    hmap_put(&h->nodes, hv, nh) == -1) {
			free(nh->name);
			free(nh);
			return NULL;
		}
	}
	if (nh->class == NULL || strcmp(nh->class, cls) != 0) {
		free(nh->class);
		nh->class = strdup(cls);
	}
	return nh->class ? nh : NULL;
}

static int
add_pairs(struct history *h, const struct fleet *f)
{
	struct nodeh *nh;
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *n = &f->nodes[i];

		if (!n->b[FB_WALL].has_power || !n->b[FB_GPU].has_power)
			continue;
		if ((nh = node_get(h, n->name, n->class)) == NULL)
			return -1;
		nh->gpu[nh->head] = (float)n->b[FB_GPU].power;
		nh->wall[nh->head] = (float)n->b[FB_WALL].power;
		nh->head = (nh->head + 1) % HIST_PAIRS;
		if (nh->n < HIST_PAIRS)
			nh->n++;
	}
	return 0;
}

int
history_add(struct history *h, const struct fleet *f)
{
	struct hist_point *p = &h->v[h->head];
	double pue = history_pue(h, f, PUE_WINDOW);
	int b;

	memset(p, 0, sizeof(*p));
	p->t = f->now;
	for (b = 0; b < FB_N; b++) {
		p->power[b] = f->total[b].power;
		p->energy[b] = f->total[b].energy;
		p->has_power[b] = f->total[b].has_power;
		p->has_energy[b] = f->total[b].has_energy;
		p->cov_tokens[b] = f->cov[b].tokens;
		p->cov_sig[b] = f->cov[b].sig;
	}
	p->tokens = f->tokens_out;
	p->fac_e = f->fac_energy;
	p->it_e = f->it_energy;
	p->has_fac_e = f->has_fac_e;
	p->has_it_e = f->has_it_e;
	p->pue = pue;
	h->head = (h->head + 1) % h->cap;
	if (h->n < h->cap)
		h->n++;
	return add_pairs(h, f);
}

size_t
history_pairs(const struct history *h, const char *node, const char *cls,
    double *gpu, double *wall, size_t max)
{
	size_t i, total = 0, out = 0, seen = 0, step;
	unsigned k;

	for (i = 0; i < h->nodes.cap; i++) {
		const struct nodeh *nh = h->nodes.slot[i].e;

		if (nh != NULL && (node ? strcmp(nh->name, node) == 0 :
		    strcmp(nh->class, cls) == 0))
			total += nh->n;
	}
	step = max > 0 && total > max ? (total + max - 1) / max : 1;
	for (i = 0; i < h->nodes.cap && out < max; i++) {
		const struct nodeh *nh = h->nodes.slot[i].e;

		if (nh == NULL || (node ? strcmp(nh->name, node) != 0 :
		    strcmp(nh->class, cls) != 0))
			continue;
		for (k = 0; k < nh->n && out < max; k++, seen++)
			if (seen % step == 0) {
				gpu[out] = nh->gpu[k];
				wall[out] = nh->wall[k];
				out++;
			}
	}
	return out;
}
