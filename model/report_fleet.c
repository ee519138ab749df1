/* report_fleet.c - the fleet's figures from its nodes' (see
 * report_fleet.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fleet.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

static int
node_index(const struct report_input *in, const char *name)
{
	size_t i;

	for (i = 0; i < in->n_nodes; i++)
		if (strcmp(in->nodes[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool
report_in_replica(const struct report_settings *s, const char *name)
{
	size_t i, j;

	for (i = 0; i < s->n_replicas; i++)
		for (j = 0; j < s->replicas[i].n_nodes; j++)
			if (strcmp(s->replicas[i].nodes[j], name) == 0)
				return true;
	return false;
}

/* Adds t tokens of node i to its class slot of by (-1: none yet). */
static void
class_tokens_add(const struct report_classes *k, double *by, size_t i,
    double t)
{
	size_t c;

	if (by == NULL || k == NULL || k->of == NULL)
		return;
	c = k->of[i] >= 0 ? (size_t)k->of[i] : k->ncls;
	by[c] = (by[c] > 0 ? by[c] : 0) + t;
}

double
report_fleet_tokens(const struct report_input *in,
    const struct report_sel *sel, bool output, int which,
    const struct report_classes *k, double *by)
{
	const struct report_settings *s = in->set;
	double sum = 0, t;
	bool any = false;
	size_t i, j;
	int x;

	for (i = 0; i < s->n_replicas; i++)
		for (j = 0; j < s->replicas[i].n_nodes; j++) {
			x = node_index(in, s->replicas[i].nodes[j]);
			if (x >= 0 && (t = report_node_tokens(&sel[x], output,
			    which)) >= 0) {
				sum += t;
				any = true;
				class_tokens_add(k, by, (size_t)x, t);
				break;
			}
		}
	for (i = 0; i < in->n_nodes; i++)
		if (!report_in_replica(s, in->nodes[i].name) &&
		    (t = report_node_tokens(&sel[i], output, which)) >= 0) {
			sum += t;
			any = true;
			class_tokens_add(k, by, i, t);
		}
	return any ? sum : -1;
}

/* Node i's value at boundary b (nv: n_nodes x BND_N). */
static const struct bnd_value *
nval(const struct bnd_value *nv, size_t i, int b)
{
	return &nv[i * BND_N + (size_t)b];
}

static void
cover_add(struct bnd_value *tv, const struct bnd_value *v, size_t *cnt)
{
	tv->valid = true;
	tv->energy_j += v->energy_j;
	tv->bound_j += v->bound_j;
	tv->method = tv->method > v->method ? tv->method : v->method;
	tv->mix |= 1u << v->method;
	(*cnt)++;
}

/* Adds a replica node's tokens to *out and *in (-1: none yet) when it has
 * output tokens. */
static bool
replica_tokens(const struct report_sel *a, double *out, double *in)
{
	double t;

	if ((t = report_node_tokens(a, true, REPORT_W_MAIN)) < 0)
		return false;
	*out = (*out > 0 ? *out : 0) + t;
	if ((t = report_node_tokens(a, false, REPORT_W_MAIN)) >= 0)
		*in = (*in > 0 ? *in : 0) + t;
	return true;
}

/* Replica rp when every node of it is covered at b: its nodes' energy,
 * its tokens once. */
static void
cover_replica(const struct report_input *in, const struct report_sel *sel,
    const struct bnd_value *nv, int b, const struct report_replica *rp,
    struct bnd_value *tv, double *out, double *in_tokens, size_t *cnt)
{
	bool all = rp->n_nodes > 0, tok = false;
	size_t j;
	int x;

	for (j = 0; j < rp->n_nodes && all; j++) {
		x = node_index(in, rp->nodes[j]);
		all = x >= 0 && nval(nv, (size_t)x, b)->valid;
	}
	for (j = 0; all && j < rp->n_nodes; j++) {
		x = node_index(in, rp->nodes[j]);
		cover_add(tv, nval(nv, (size_t)x, b), cnt);
		if (!tok)
			tok = replica_tokens(&sel[x], out, in_tokens);
	}
}

size_t
report_cover_partial(const struct report_input *in,
    const struct report_sel *sel, const struct bnd_value *nv, int b,
    struct bnd_value *tv, double *out, double *in_tokens)
{
	const struct report_settings *s = in->set;
	size_t i, cnt = 0;
	double t;

	memset(tv, 0, sizeof(*tv));
	*out = *in_tokens = -1;
	for (i = 0; i < s->n_replicas; i++)
		cover_replica(in, sel, nv, b, &s->replicas[i], tv, out,
		    in_tokens, &cnt);
	for (i = 0; i < in->n_nodes; i++) {
		if (report_in_replica(s, in->nodes[i].name) ||
		    !nval(nv, i, b)->valid)
			continue;
		cover_add(tv, nval(nv, i, b), &cnt);
		if ((t = report_node_tokens(&sel[i], true, REPORT_W_MAIN)) >= 0)
			*out = (*out > 0 ? *out : 0) + t;
		if ((t = report_node_tokens(&sel[i], false, REPORT_W_MAIN)) >=
		    0)
			*in_tokens = (*in_tokens > 0 ? *in_tokens : 0) + t;
	}
	return cnt;
}

static void
total_value(const struct bnd_total *t, struct bnd_value *v)
{
	memset(v, 0, sizeof(*v));
	v->valid = t->counted > 0 && t->counted == t->nodes;
	v->energy_j = t->energy_j;
	v->method = t->method;
	v->bound_j = t->bound_j;
	v->mix = t->mix;
}

/* The partial figure of boundary b: warned, and kept for the disclosure. */
static void
partial_note(struct report *r, int b, size_t cnt, size_t nodes, double out)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "covers %zu of %zu nodes (the rest neither "
	    "measured nor modeled): energy and J/token over those nodes and "
	    "their %.0f output tokens only", cnt, nodes, out);
	report_warn(&r->warnings, "%s boundary %s", bnd_name(b), buf);
	free(r->disc.partial[b]);
	r->disc.partial[b] = strdup(buf);
}

void
report_fleet_boundary(const struct report_input *in,
    const struct report_sel *sel, const struct bnd_value *nv, int b,
    struct report *r, struct bnd_value *tv)
{
	const struct bnd_total *t = &r->tot[b];
	struct report_bnd *o = &r->bnd[b];
	double out = r->out, in_tokens = r->in, slo = r->slo;
	size_t cnt = t->counted;

	total_value(t, tv);
	if (!tv->valid && t->counted > 0) {
		cnt = report_cover_partial(in, sel, nv, b, tv, &out,
		    &in_tokens);
		slo = out > 0 && isfinite(r->slo_share) ? out * r->slo_share :
		    -1;
		if (tv->valid)
			partial_note(r, b, cnt, t->nodes, out);
	}
	report_fig_set(&o->fig, tv, boundary_coverage(t), r->secs, out,
	    in_tokens, slo, -1);
	o->counted = cnt;
	o->measured = t->measured;
	o->nodes = t->nodes;
	o->out_covered = out;
	if (!tv->valid)
		report_warn(&r->warnings, "%s boundary: no node has a measured "
		    "or modeled value", bnd_name(b));
}

double
report_idle_power(const struct report_input *in, const struct report_sel *sel,
    int b, struct report *r)
{
	const struct report_plan *p = in->plan;
	double sum = 0, cross;
	size_t i;

	if (!p->have_idle)
		return -1;
	for (i = 0; i < in->n_nodes; i++) {
		struct bnd_value v;

		if (b == BND_GPU)
			report_node_gpu(&sel[i], REPORT_W_IDLE, &v, &cross);
		else
			report_value(sel[i].wall, REPORT_W_IDLE, &v);
		if (!v.valid) {
			report_warn(&r->warnings, "idle window: node %s has no "
			    "%s energy", in->nodes[i].name, bnd_name(b));
			return -1;
		}
		sum += v.energy_j;
	}
	return sum / secs(p->idle_to - p->idle_from);
}

/* Wall energy of every node over run k into *e; -1 (warned) when a node
 * has none. */
static int
run_energy(const struct report_input *in, const struct report_sel *sel,
    int k, struct report *r, double *e)
{
	size_t i;

	*e = 0;
	for (i = 0; i < in->n_nodes; i++) {
		struct bnd_value v;

		report_value(sel[i].wall, k, &v);
		if (!v.valid) {
			report_warn(&r->warnings, "run %d: node %s has no wall "
			    "energy (sub-window refused)", k + 1,
			    in->nodes[i].name);
			return -1;
		}
		*e += v.energy_j;
	}
	return 0;
}

void
report_fleet_runs(const struct report_input *in, const struct report_sel *sel,
    struct report *r)
{
	struct report_runs *o = &r->runs;
	struct wp_err e = { 0 };
	double energy, tok;
	int k;

	o->n = in->plan->runs;
	o->method = in->plan->run_method;
	for (k = 0; k < o->n; k++) {
		tok = report_fleet_tokens(in, sel, true, k, NULL, NULL);
		if (run_energy(in, sel, k, r, &energy) == -1)
			return;
		o->x[k] = tok > 0 ? energy / tok : NAN;
	}
	o->complete = true;
	if (stats_runs(o->x, (size_t)o->n, &o->st, &e) == 0)
		o->stats_ok = true;
	else
		report_warn(&r->warnings, "runs: %s", e.msg);
}
