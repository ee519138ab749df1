/* report_node.c - one node's figures (see report_node.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_node.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

/* Better of two candidates for one slot: a counter whenever one exists
 * (a refused counter window is refused, never papered over with the
 * gauge), else a valid gauge. */
static const struct report_series *
better(const struct report_series *cur, const struct report_series *s)
{
	int sc_cur, sc_s;

	if (cur == NULL)
		return s;
	sc_cur = (cur->kind == WP_COUNTER) * 2 + (cur->rc == 0);
	sc_s = (s->kind == WP_COUNTER) * 2 + (s->rc == 0);
	return sc_s > sc_cur ? s : cur;
}

static void
select_one(struct report_sel *a, const struct report_series *s)
{
	switch (s->role) {
	case RR_WALL: case RR_WALL_P:
		a->wall = better(a->wall, s);
		break;
	case RR_GPU_IB: case RR_GPU_IB_P:
		a->gib[s->idx] = better(a->gib[s->idx], s);
		break;
	case RR_GPU_BMC: case RR_GPU_BMC_P:
		a->gbmc[s->idx] = better(a->gbmc[s->idx], s);
		break;
	case RR_LIMIT:
		a->lim[s->idx] = s;
		break;
	case RR_CLOCK:
		a->clk[s->idx] = s;
		break;
	case RR_OUTLET: case RR_OUTLET_P:
		if (s->idx < REPORT_MAX_SLOTS)
			a->outl[s->idx] = better(a->outl[s->idx], s);
		break;
	case RR_TOK_OUT:
		if (a->n_out < REPORT_MAX_TOKEN_SRC && s->kind == WP_COUNTER)
			a->tok_out[a->n_out++] = s;
		break;
	case RR_TOK_IN:
		if (a->n_in < REPORT_MAX_TOKEN_SRC && s->kind == WP_COUNTER)
			a->tok_in[a->n_in++] = s;
		break;
	}
}

void
report_select(struct report_series *const *ser, size_t n,
    struct report_sel *sel)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ser[i]->node >= 0)
			select_one(&sel[ser[i]->node], ser[i]);
}

int
report_series_energy(const struct report_series *s, int which, double *e)
{
	const struct report_energy *w;

	if (s == NULL)
		return -1;
	if (which == REPORT_W_MAIN) {
		*e = s->res.energy;
		return s->rc;
	}
	w = which == REPORT_W_IDLE ? &s->idle_e : &s->run_e[which];
	if (w->rc == -1)
		return -1;
	*e = w->energy;
	return 0;
}

/* The source's own refresh interval (label collect_interval_s, e.g.
 * dcgm-exporter's 30 s), s; 0 when none. */
static double
collect_interval(const struct report_series *s)
{
	struct wp_sample tmp;
	char v[32];
	double c;

	snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
	if (sample_get_label(&tmp, "collect_interval_s", v, sizeof(v)) != 0 ||
	    sscanf(v, "%lf", &c) != 1 || !isfinite(c) || c <= 0)
		return 0;
	return c;
}

double
report_series_bound(const struct report_series *s)
{
	double b = stats_instrument_bound(s->res.energy, s->res.res_bound,
	    s->res.edge_bound, 0), w = secs(s->main.o.to - s->main.o.from);
	double c = collect_interval(s);

	/* a source refreshing every c s gives values up to c s old: the two
	 * edges' readings may be stale by different amounts, up to c s of
	 * the mean power */
	if (c > 0 && w > 0)
		b += fabs(s->res.energy) / w * c;

	/* a gauge: the envelope of its readings, plus one reading step over
	 * the window (at least REPORT_GAUGE_MIN_REL of the energy) */
	if (s->kind != WP_COUNTER)
		b += s->res.gauge_bound + fmax(s->gres * secs(s->main.o.to -
		    s->main.o.from), REPORT_GAUGE_MIN_REL * fabs(s->res.energy));
	return b;
}

void
report_value(const struct report_series *s, int which, struct bnd_value *v)
{
	memset(v, 0, sizeof(*v));
	if (s != NULL && report_series_energy(s, which, &v->energy_j) == 0) {
		v->valid = true;
		v->method = s->kind == WP_COUNTER ? BM_COUNTER : BM_GAUGE;
		v->bound_j = which == REPORT_W_MAIN ? report_series_bound(s) : 0;
	}
}

const struct report_series *
report_gpu_pick(const struct report_sel *a, int g)
{
	return a->gib[g] && a->gib[g]->rc == 0 ? a->gib[g] : a->gbmc[g];
}

void
report_node_gpu(const struct report_sel *a, int which, struct bnd_value *v,
    double *cross)
{
	struct bnd_gpu_src src[2 * REPORT_MAX_GPUS];
	size_t n = 0;
	int g, k;

	for (g = 0; g < REPORT_MAX_GPUS; g++) {
		const struct report_series *p[2] = { a->gib[g], a->gbmc[g] };

		for (k = 0; k < 2; k++) {
			struct bnd_value b;

			if (p[k] == NULL)
				continue;
			report_value(p[k], which, &b);
			src[n++] = (struct bnd_gpu_src){ .gpu = g,
			    .inband = k == 0, .valid = b.valid,
			    .energy_j = b.energy_j, .method = b.method,
			    .bound_j = b.bound_j };
		}
	}
	if (n == 0) {
		memset(v, 0, sizeof(*v));
		*cross = NAN;
		return;
	}
	boundary_gpu(src, n, v, cross);
}

void
report_node_outlet(const struct report_node *nd, const struct report_sel *a,
    int which, struct bnd_value *v, char *why, size_t wlen)
{
	size_t j;

	memset(v, 0, sizeof(*v));
	if (nd->n_outlets == 0) {
		if (why != NULL)
			snprintf(why, wlen, "no outlets in the config");
		return;
	}
	v->valid = true;
	for (j = 0; j < nd->n_outlets && j < REPORT_MAX_SLOTS; j++) {
		struct bnd_value b;

		report_value(a->outl[j], which, &b);
		if (!b.valid) {
			v->valid = false;
			if (why != NULL)
				snprintf(why, wlen, "outlet %s/%s: %s",
				    nd->outlets[j].pdu, nd->outlets[j].outlet,
				    a->outl[j] == NULL ? "no outlet/<n>/energy "
				    "or power series in the journal (outlet "
				    "numbers are the PDU's, 1-based)" :
				    a->outl[j]->why);
			return;
		}
		v->energy_j += b.energy_j;
		v->bound_j += b.bound_j;
		v->method = v->method > b.method ? v->method : b.method;
	}
}

double
report_node_tokens(const struct report_sel *a, bool output, int which)
{
	const struct report_series *const *t = output ? a->tok_out : a->tok_in;
	size_t i, n = output ? a->n_out : a->n_in;
	double sum = 0, e;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (report_series_energy(t[i], which, &e) != 0)
			return -1;
		sum += e;
	}
	return sum;
}

/* The per-GPU limit readings' count, least and most, into o. */
static void
limit_range(const struct report_sel *a, struct report_node_fig *o)
{
	int g;

	o->limit_gpus = 0;
	o->limit_min_w = o->limit_max_w = NAN;
	for (g = 0; g < REPORT_MAX_GPUS; g++) {
		const struct report_series *s = a->lim[g];

		if (s == NULL || s->lim_n == 0)
			continue;
		if (o->limit_gpus == 0 || s->lim_min < o->limit_min_w)
			o->limit_min_w = s->lim_min;
		if (o->limit_gpus == 0 || s->lim_max > o->limit_max_w)
			o->limit_max_w = s->lim_max;
		o->limit_gpus++;
	}
}

double
report_node_limit(const struct report_sel *a)
{
	double sum = 0;
	int g;

	for (g = 0; g < REPORT_MAX_GPUS; g++)
		if (a->lim[g] != NULL && a->lim[g]->lim_n > 0)
			sum += a->lim[g]->lim_sum / (double)a->lim[g]->lim_n;
	return sum;
}

double
report_node_clock(const struct report_sel *a)
{
	double sum = 0;
	int g, n = 0;

	for (g = 0; g < REPORT_MAX_GPUS; g++)
		if (a->clk[g] != NULL && a->clk[g]->lim_n > 0) {
			sum += a->clk[g]->lim_sum / (double)a->clk[g]->lim_n;
			n++;
		}
	return n > 0 ? sum / n : NAN;
}

void
report_node_curve(const struct report_sel *a, const struct report_plan *p,
    struct curve *c)
{
	const struct integ_bins *wb = a->wall && a->wall->rc == 0 ?
	    &a->wall->main.bins[1] : NULL;
	double lim = report_node_limit(a), len = secs(p->step);
	size_t i;
	int g;

	if (wb == NULL || wb->e == NULL || !(lim > 0))
		return;
	for (i = 0; i < wb->n; i++) {
		double gpu = 0;
		wp_time bs = wb->origin + (wp_time)i * wb->len;
		bool ok = bs >= p->from && bs + wb->len <= p->to;

		for (g = 0; g < REPORT_MAX_GPUS && ok; g++) {
			const struct report_series *s = report_gpu_pick(a, g);

			if (s == NULL)
				continue;
			if (s->rc != 0 || s->main.bins[1].e == NULL)
				ok = false;
			else
				gpu += integ_bin(&s->main.bins[1], i) / len;
		}
		if (ok && gpu > 0)
			curve_add(c, gpu, integ_bin(wb, i) / len, lim);
	}
}

/* ------------------------------------------------- the modeled wall */

double
report_usable_ratio(const struct curve *c, int k)
{
	double x;

	if (c->bin[k].count == 0)
		return NAN;
	x = curve_bin_ratio(c, k);
	return x >= 1 ? x : NAN;
}

double
report_class_ratio(const struct curve *c, const struct curve_fit *f,
    double load, double gpu_w, double *dist)
{
	int k = (int)(load * CURVE_BINS), lo, hi;
	double x;

	k = k < 0 ? 0 : k >= CURVE_BINS ? CURVE_BINS - 1 : k;
	*dist = 0;
	for (lo = 0; lo < CURVE_BINS && isnan(report_usable_ratio(c, lo));
	    lo++)
		;
	for (hi = CURVE_BINS - 1; hi >= 0 && isnan(report_usable_ratio(c,
	    hi)); hi--)
		;
	if (lo > hi)
		return NAN;
	if (k < lo) {
		*dist = curve_bin_load_lo(lo) - load;
		return report_usable_ratio(c, lo);
	}
	if (k > hi) {
		*dist = load - curve_bin_load_lo(hi + 1);
		return report_usable_ratio(c, hi);
	}
	if (!isnan(x = report_usable_ratio(c, k)))
		return x;
	if (f->valid && gpu_w > 0 && (x = curve_eval(f, gpu_w) / gpu_w) >= 1)
		return x;
	for (; k > lo && isnan(report_usable_ratio(c, k)); k--)
		;
	return report_usable_ratio(c, k);	/* lo at worst */
}

/* The model's relative scatter from the class fit f, plus the load
 * distance ext the ratio was carried over ge_all J of GPU energy. */
static double
model_rel(const struct curve_fit *f, double ext, double ge_all)
{
	double rel = f->valid && f->mean_wall > 0 ?
	    REPORT_MODEL_RMS_FACTOR * f->rms / f->mean_wall : NAN;

	if (!(rel >= REPORT_MODEL_MIN_REL))
		rel = f->valid ? REPORT_MODEL_MIN_REL : REPORT_MODEL_NOFIT_REL;
	/* a ratio held flat beyond the class's loads: its error grows with
	 * the distance, taken one for one (the simulator's PSU and host model
	 * falls from 2.8 at 10 % load to 1.45 at 55 % and 1.35 at full load:
	 * under 1 per unit of load everywhere) */
	if (ge_all > 0)
		rel += ext / ge_all;
	return rel;
}

/* The node's GPU series with curve steps into gs; their bound and energy
 * summed.  The count, or -1 when one cannot be used. */
static int
model_gpus(const struct report_sel *a, const struct report_series **gs,
    double *gb, double *gt)
{
	int g, ng = 0;

	for (g = 0; g < REPORT_MAX_GPUS; g++) {
		const struct report_series *s = report_gpu_pick(a, g);

		if (s == NULL)
			continue;
		if (s->rc != 0 || s->main.bins[1].e == NULL)
			return -1;
		gs[ng++] = s;
		*gb += report_series_bound(s);
		*gt += s->res.energy;
	}
	return ng;
}

int
report_model_wall(const struct report_sel *a, const struct curve *cls,
    const struct report_plan *p, struct bnd_value *v)
{
	const struct report_series *gs[REPORT_MAX_GPUS];
	const struct integ_bins *b0;
	struct curve_fit f;
	double lim = report_node_limit(a), e = 0, gb = 0, gt = 0, rel;
	double ext = 0, ge_all = 0;	/* load distance carried, GPU J */
	size_t i;
	int g, ng;

	memset(v, 0, sizeof(*v));
	if (!(lim > 0) || cls == NULL || cls->n == 0)
		return -1;
	if ((ng = model_gpus(a, gs, &gb, &gt)) <= 0)
		return -1;
	b0 = &gs[ng - 1]->main.bins[1];
	curve_fit(cls, 1, &f);
	for (i = 0; i < b0->n; i++) {
		wp_time bs = b0->origin + (wp_time)i * b0->len;
		wp_time lo = bs > p->from ? bs : p->from;
		wp_time hi = bs + b0->len < p->to ? bs + b0->len : p->to;
		double ge = 0, ratio, dist;

		if (hi <= lo)
			continue;
		for (g = 0; g < ng; g++)
			ge += integ_bin(&gs[g]->main.bins[1], i);
		ratio = report_class_ratio(cls, &f, ge / secs(hi - lo) / lim,
		    ge / secs(hi - lo), &dist);
		if (!isfinite(ratio))
			return -1;
		e += ge * ratio;
		ext += ge * dist;
		ge_all += ge;
	}
	rel = model_rel(&f, ext, ge_all);
	v->valid = true;
	v->energy_j = e;
	v->method = BM_MODELED;
	v->bound_j = e * rel + (gt > 0 ? gb * e / gt : 0);
	return 0;
}

/* ---------------------------------------------------------- classes */

/* The class slot of node i's class (new ones appended), or -1. */
static int
class_slot(struct report_classes *k, const char *cl)
{
	size_t j;

	if (cl == NULL)
		return -1;
	for (j = 0; j < k->ncls && strcmp(k->name[j], cl) != 0; j++)
		;
	if (j == k->ncls) {
		k->name[k->ncls] = cl;
		curve_init(&k->curve[k->ncls++].c);
	}
	return (int)j;
}

/* A class curve from its counter-metered nodes (gauges sampled at the
 * poll interval miss bursty loads by tens of percent, which would carry
 * into every modeled node); gauge nodes only for a class without
 * counter-metered nodes. */
static void
class_curves(struct report_classes *k, const struct report_sel *sel,
    size_t n)
{
	size_t i, j;
	int pass;

	for (j = 0; j < k->ncls; j++) {
		struct curve *c = &k->curve[j].c;

		for (pass = 0; pass < 2 && c->n == 0; pass++)
			for (i = 0; i < n; i++)
				if (k->of[i] == (int)j && sel[i].wall != NULL &&
				    (pass == 1 || sel[i].wall->kind ==
				    WP_COUNTER))
					curve_merge(c, &k->node_curve[i]);
		report_curve_set(&k->curve[j], c);
	}
}

int
report_classes_build(const struct report_input *in,
    const struct report_sel *sel, struct report *r)
{
	struct report_classes *k = &r->cls;
	size_t i, j, n = in->n_nodes, nh = r->hours.nh;

	k->name = calloc(n + 1, sizeof(*k->name));
	k->of = calloc(n + 1, sizeof(int));
	k->curve = calloc(n + 1, sizeof(*k->curve));
	k->node_curve = calloc(n + 1, sizeof(struct curve));
	if (!k->name || !k->of || !k->curve || !k->node_curve)
		return -1;
	for (i = 0; i < n; i++) {
		curve_init(&k->node_curve[i]);
		if ((k->of[i] = class_slot(k, in->nodes[i].cls)) >= 0)
			report_node_curve(&sel[i], in->plan,
			    &k->node_curve[i]);
	}
	class_curves(k, sel, n);
	k->kwh_h = calloc((k->ncls + 1) * nh + 1, sizeof(double));
	k->out = calloc(k->ncls + 1, sizeof(double));
	k->nodes = calloc(k->ncls + 1, sizeof(size_t));
	if (k->kwh_h == NULL || k->out == NULL || k->nodes == NULL)
		return -1;
	for (j = 0; j <= k->ncls; j++)
		k->out[j] = -1;
	for (i = 0; i < n; i++)
		k->nodes[k->of[i] >= 0 ? (size_t)k->of[i] : k->ncls]++;
	k->tolerance = in->set->curve_tolerance;
	return 0;
}

void
report_classes_free(struct report *r)
{
	free(r->cls.name);
	free(r->cls.of);
	free(r->cls.curve);
	free(r->cls.node_curve);
	free(r->cls.kwh_h);
	free(r->cls.out);
	free(r->cls.nodes);
}

/* ------------------------------------------------------ a node's row */

/* The wall figure: measured, or modeled from the class (warned). */
static int
node_wall(const struct report_input *in, struct report *r, size_t i,
    const struct report_sel *a, struct bnd_value *v)
{
	const struct report_node *nd = &in->nodes[i];
	int c = r->cls.of[i];

	report_value(a->wall && a->wall->rc == 0 ? a->wall : NULL,
	    REPORT_W_MAIN, v);
	if (v->valid)
		return REPORT_WALL_MEASURED;
	if (c >= 0 && report_model_wall(a, &r->cls.curve[c].c, in->plan,
	    v) == 0) {
		report_warn(&r->warnings, "node %s: %s%s: wall energy modeled "
		    "from the %s class curve (bound %.1f %%)", nd->name,
		    a->wall == NULL ? "no wall metering" : "wall window "
		    "unusable: ", a->wall == NULL ? "" : a->wall->why,
		    r->cls.name[c], 100 * v->bound_j / v->energy_j);
		return REPORT_WALL_MODELED;
	}
	report_warn(&r->warnings, "node %s: no wall energy: %s%s", nd->name,
	    a->wall == NULL ? "no series in the journal" : a->wall->why,
	    c < 0 ? " (no class to model it from)" : " (its class curve "
	    "cannot model it)");
	return REPORT_WALL_NONE;
}

/* The GPU and curve warnings of node i. */
static void
node_checks(struct report *r, const struct report_node *nd, size_t i,
    const struct report_sel *a, const struct bnd_value *v)
{
	struct report_node_fig *o = &r->nodes[i];
	int k, c = r->cls.of[i];

	for (k = 0; k < REPORT_MAX_GPUS && !v[BND_GPU].valid; k++) {
		const struct report_series *x = a->gib[k] ? a->gib[k] :
		    a->gbmc[k];

		if (x != NULL && x->rc != 0) {
			report_warn(&r->warnings, "node %s: no GPU energy: gpu "
			    "%d: %s", nd->name, k, x->why);
			break;
		}
	}
	o->curve_dev = NAN;
	o->curve_deviates = false;
	if (c >= 0 && r->cls.node_curve[i].n > 0) {
		o->curve_dev = curve_deviation(&r->cls.node_curve[i],
		    &r->cls.curve[c].c, r->cls.tolerance, &o->curve_deviates);
		if (o->curve_deviates)
			report_warn(&r->warnings, "node %s: wall-to-GPU curve "
			    "deviates %.1f %% from its class %s (tolerance "
			    "%.1f %%)", nd->name, o->curve_dev * 100,
			    r->cls.name[c], r->cls.tolerance * 100);
	}
}

/* Node i's row from its values v. */
static void
node_row(struct report *r, const struct report_node *nd, size_t i,
    const struct report_sel *a, const struct bnd_value *v, double cross)
{
	struct report_node_fig *o = &r->nodes[i];
	double out = report_node_tokens(a, true, REPORT_W_MAIN);
	double in = report_node_tokens(a, false, REPORT_W_MAIN);
	int k;

	o->name = nd->name;
	o->cls = nd->cls;
	for (k = 0; k < BND_N; k++)
		report_fig_set(&o->b[k], &v[k], v[k].valid &&
		    v[k].method != BM_MODELED ? 1 : 0, r->secs, out, in, -1, -1);
	o->tokens = out;
	o->wall_to_gpu = v[BND_WALL].valid && v[BND_GPU].valid &&
	    v[BND_GPU].energy_j > 0 ? v[BND_WALL].energy_j /
	    v[BND_GPU].energy_j : NAN;
	o->gpu_cross_bmc_j = cross;
	o->wall_over_outlet = v[BND_WALL].valid &&
	    v[BND_WALL].method != BM_MODELED && v[BND_OUTLET].valid &&
	    v[BND_OUTLET].energy_j > 0 ? v[BND_WALL].energy_j /
	    v[BND_OUTLET].energy_j : NAN;
	o->limit_w = report_node_limit(a) > 0 ? report_node_limit(a) : NAN;
	limit_range(a, o);
	o->curve_intervals = r->cls.node_curve[i].n;
}

int
report_node_eval(const struct report_input *in, struct report *r, size_t i,
    const struct report_sel *a, struct bnd_value *v)
{
	const struct report_node *nd = &in->nodes[i];
	char why[WP_ERR_MSG + 128];
	double cross;
	int src;

	report_node_gpu(a, REPORT_W_MAIN, &v[BND_GPU], &cross);
	report_node_outlet(nd, a, REPORT_W_MAIN, &v[BND_OUTLET], why,
	    sizeof(why));
	if (!v[BND_OUTLET].valid && nd->n_outlets > 0)
		report_warn(&r->warnings, "node %s: no outlet energy: %s",
		    nd->name, why);
	src = node_wall(in, r, i, a, &v[BND_WALL]);
	boundary_facility_pue(&v[BND_WALL], r->pue.value, &v[BND_FACILITY]);
	node_checks(r, nd, i, a, v);
	node_row(r, nd, i, a, v, cross);
	return src;
}

/* ---------------------------------------------------- hourly energy */

/* Adds s's hourly energy x scale to the fleet's and node i's class's
 * hourly wall kWh (nodes without a class: slot ncls). */
static void
add_hours(struct report *r, size_t i, const struct report_series *s,
    double scale)
{
	size_t h, c, nh = r->hours.nh;

	if (s->main.bins[0].e == NULL)
		return;
	c = r->cls.of[i] >= 0 ? (size_t)r->cls.of[i] : r->cls.ncls;
	for (h = 0; h < nh && h < s->main.bins[0].n; h++) {
		double kwh = integ_bin(&s->main.bins[0], h) / 3.6e6 * scale;

		r->hours.wall[h] += kwh;
		r->cls.kwh_h[c * nh + h] += kwh;
	}
}

void
report_node_hours(struct report *r, size_t i, const struct report_sel *a,
    int src, double wall_j)
{
	double gpu = 0;
	int g;

	if (src == REPORT_WALL_MEASURED) {
		add_hours(r, i, a->wall, 1);
		return;
	}
	if (src != REPORT_WALL_MODELED)
		return;
	/* a modeled node: its GPUs' hourly energy scaled so that the hours
	 * add up to the modeled energy */
	for (g = 0; g < REPORT_MAX_GPUS; g++)
		if (report_gpu_pick(a, g) != NULL)
			gpu += report_gpu_pick(a, g)->res.energy;
	for (g = 0; g < REPORT_MAX_GPUS && gpu > 0; g++)
		if (report_gpu_pick(a, g) != NULL)
			add_hours(r, i, report_gpu_pick(a, g), wall_j / gpu);
}
