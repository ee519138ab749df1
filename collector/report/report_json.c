/* report_json.c - the report and curve documents (see report_json.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/clock.h"
#include "../lib/jsonv.h"
#include "report_json.h"
#include "report_models_out.h"

/* A count that may be unknown (< 0): null. */
static json_object *
jcount(double v)
{
	return v >= 0 ? jnum(v) : NULL;
}

/* ------------------------------------------------------- figures */

static json_object *
fig_json(const struct report_fig *f)
{
	json_object *o = json_object_new_object();
	const struct jtoken *j = &f->jt;
	char mix[64];

	if (!f->v.valid) {
		jset(o, "energy_j", NULL);
		jset(o, "method", json_object_new_string("none"));
		jset(o, "coverage", jnum(f->coverage));
		return o;
	}
	jset(o, "energy_j", jnum(f->v.energy_j));
	if (f->per_token) {
		jset(o, "j_per_output_token", jnum(j->j_per_output_token));
		jset(o, "j_per_total_token", jnum(j->j_per_total_token));
		jset(o, "tokens_per_joule", jnum(j->tokens_per_joule));
		jset(o, "kwh_per_million_output_tokens",
		    jnum(j->kwh_per_million_output_tokens));
		jset(o, "j_per_slo_qualified_token", jnum(j->j_per_slo_token));
	}
	if (f->net) {
		jset(o, "idle_energy_j", jnum(j->idle_energy_j));
		jset(o, "net_energy_j", jnum(j->net_energy_j));
		jset(o, "j_per_output_token_net",
		    jnum(j->net_j_per_output_token));
		jset(o, "kwh_per_million_output_tokens_net",
		    jnum(j->net_kwh_per_million_output_tokens));
	}
	jset(o, "mean_power_w", jnum(f->mean_power_w));
	jset(o, "method", json_object_new_string(f->v.mix ?
	    boundary_mix_name(f->v.mix, mix, sizeof(mix)) :
	    boundary_method_name(f->v.method)));
	jset(o, "coverage", jnum(f->coverage));
	jset(o, "instrument_bound_j", jnum(f->v.bound_j));
	jset(o, "instrument_bound_rel", jnum(f->bound_rel));
	return o;
}

static json_object *
boundaries_json(const struct report *r)
{
	json_object *b = json_object_new_object(), *o;
	int k;

	for (k = 0; k < BND_N; k++) {
		const struct report_bnd *x = &r->bnd[k];

		o = fig_json(&x->fig);
		jset(o, "nodes_counted", jint(x->counted));
		jset(o, "nodes_measured", jint(x->measured));
		jset(o, "nodes", jint(x->nodes));
		if (x->counted < x->nodes)
			jset(o, "output_tokens_covered", jcount(x->out_covered));
		jset(b, bnd_name(k), o);
	}
	return b;
}

static json_object *
idle_json(const struct report *r)
{
	json_object *is = json_object_new_object();

	if (r->idle_wall.set) {
		jset(is, "wall", fig_json(&r->idle_wall.fig));
		jset(is, "idle_power_wall_w", jnum(r->idle_wall.power_w));
	}
	if (r->idle_gpu.set) {
		jset(is, "gpu", fig_json(&r->idle_gpu.fig));
		jset(is, "idle_power_gpu_w", jnum(r->idle_gpu.power_w));
	}
	return is;
}

static json_object *
node_json(const struct report_node_fig *n)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	int k;

	jset(o, "name", json_object_new_string(n->name));
	jset(o, "class", jstr(n->cls));
	for (k = 0; k < BND_N; k++)
		jset(b, bnd_name(k), fig_json(&n->b[k]));
	jset(o, "boundaries", b);
	jset(o, "tokens", jcount(n->tokens));
	jset(o, "wall_to_gpu_ratio", jnum(n->wall_to_gpu));
	jset(o, "gpu_crosscheck_bmc_j", jnum(n->gpu_cross_bmc_j));
	jset(o, "calibration_wall_over_outlet", jnum(n->wall_over_outlet));
	jset(o, "gpu_power_limit_w", jnum(n->limit_w));
	jset(o, "curve_intervals", jint(n->curve_intervals));
	jset(o, "curve_deviation_from_class", jnum(n->curve_dev));
	jset(o, "curve_deviates", json_object_new_boolean(n->curve_deviates));
	return o;
}

/* ---------------------------------------------------------- curves */

static json_object *
curve_json(const struct report_curve *rc)
{
	json_object *o = json_object_new_object(), *bins, *fits, *x;
	const struct curve *c = &rc->c;
	int i, d;

	bins = json_object_new_array();
	for (i = 0; i < CURVE_BINS; i++) {
		json_object *b = json_object_new_object();

		jset(b, "load_from", jnum(curve_bin_load_lo(i)));
		jset(b, "load_to", jnum(curve_bin_load_lo(i + 1)));
		jset(b, "count", jint(c->bin[i].count));
		jset(b, "gpu_w", jnum(curve_bin_mean_gpu(c, i)));
		jset(b, "wall_w", jnum(curve_bin_mean_wall(c, i)));
		jset(b, "ratio", jnum(curve_bin_ratio(c, i)));
		json_object_array_add(bins, b);
	}
	jset(o, "intervals", jint(c->n));
	jset(o, "bins", bins);
	fits = json_object_new_object();
	for (d = 0; d < 2; d++) {
		const struct curve_fit *f = &rc->fit[d];

		x = json_object_new_object();
		jset(x, "valid", json_object_new_boolean(f->valid));
		jset(x, "a", f->valid ? jnum(f->a) : NULL);
		jset(x, "b", f->valid ? jnum(f->b) : NULL);
		jset(x, "c", f->valid ? jnum(f->c) : NULL);
		jset(x, "r2", f->valid ? jnum(f->r2) : NULL);
		jset(x, "rms_w", f->valid ? jnum(f->rms) : NULL);
		jset(fits, d == 0 ? "linear" : "quadratic", x);
	}
	jset(o, "fit", fits);
	return o;
}

static json_object *
curves_json(const struct report *r)
{
	json_object *cv = json_object_new_object();
	size_t i;

	for (i = 0; i < r->cls.ncls; i++)
		jset(cv, r->cls.name[i], curve_json(&r->cls.curve[i]));
	return cv;
}

/* ------------------------------------------------------------- PUE */

static json_object *
pue_rows_json(const struct report_pue_rows *rows)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < rows->n; i++) {
		json_object *x = json_object_new_object();

		jset(x, "start", jtime(rows->v[i].start));
		jset(x, "value", jnum(rows->v[i].value));
		jset(x, "why", rows->v[i].why != NULL ?
		    json_object_new_string(rows->v[i].why) : NULL);
		jset(x, "facility_energy_j", jnum(rows->v[i].facility_j));
		jset(x, "it_energy_j", jnum(rows->v[i].it_j));
		jset(x, "hours", jint(rows->v[i].hours));
		jset(x, "complete", json_object_new_boolean(
		    rows->v[i].complete));
		json_object_array_add(a, x);
	}
	return a;
}

static json_object *
pue_json(const struct report_pue *p)
{
	json_object *o = json_object_new_object(), *per, *z, *x;
	size_t i;
	int k;

	jset(o, "value", jnum(p->value));
	jset(o, "category", json_object_new_string(p->category));
	jset(o, "period", json_object_new_string(p->period_text));
	jset(o, "annual", json_object_new_boolean(p->annual));
	jset(o, "source", json_object_new_string(p->source));
	if (strcmp(p->source, "metered") != 0) {
		jset(o, "days", json_object_new_array());
		return o;
	}
	jset(o, "facility_energy_j", jnum(p->facility_j));
	jset(o, "it_energy_j", jnum(p->it_j));
	jset(o, "days", pue_rows_json(&p->days));
	per = json_object_new_object();
	for (k = 0; k <= PUE_YEAR; k++)
		if (p->listed[k])
			jset(per, pue_period_name(k), pue_rows_json(
			    &p->period[k]));
	jset(o, "periods", per);
	z = json_object_new_object();
	for (i = 0; i < p->n_zones; i++) {
		x = json_object_new_object();
		jset(x, "facility_energy_j", jnum(p->zones[i].facility_j));
		jset(x, "it_energy_j", jnum(p->zones[i].it_j));
		jset(x, "value", jnum(p->zones[i].value));
		jset(z, p->zones[i].name, x);
	}
	jset(o, "zones", z);
	return o;
}

/* ------------------------------------------------------------ runs */

static json_object *
runs_json(const struct report_runs *ru)
{
	json_object *o = json_object_new_object(), *vals;
	int k;

	jset(o, "n", json_object_new_int(ru->n));
	jset(o, "method", jstr(ru->method));
	if (!ru->complete)
		return o;
	vals = json_object_new_array();
	for (k = 0; k < ru->n; k++)
		json_object_array_add(vals, jnum(ru->x[k]));
	jset(o, "wall_j_per_output_token", vals);
	if (ru->stats_ok) {
		jset(o, "mean", jnum(ru->st.mean));
		jset(o, "sd", jnum(ru->st.sd));
		jset(o, "t", jnum(ru->st.t));
		jset(o, "ci95_half_width", jnum(ru->st.half95));
	}
	return o;
}

/* ---------------------------------------------------------- carbon */

/* {kg, g_per_million_output_tokens, kwh, coverage} */
static json_object *
pair_json(const struct report_pair *p)
{
	json_object *o = json_object_new_object();

	jset(o, "kg", jnum(p->kg));
	jset(o, "g_per_million_output_tokens", jnum(p->g_per_mtok));
	jset(o, "kwh", jnum(p->kwh));
	jset(o, "coverage", jnum(p->coverage));
	return o;
}

static json_object *
location_json(const struct report_carbon *cb)
{
	json_object *loc = json_object_new_object();
	int b;

	for (b = 0; b < REPORT_C_N; b++) {
		if (!cb->loc_ok[b])
			continue;
		jset(loc, report_carbon_bnd(b), pair_json(&cb->loc[b]));
		if (b != REPORT_C_WALL)
			continue;
		jset(loc, "gas", jstr(cb->loc_gas));
		jset(loc, "fallback_hours", jint(cb->fallback_hours));
		jset(loc, "g_per_kwh", jnum(cb->g_per_kwh));
		jset(loc, "source", json_object_new_string(cb->source));
		jset(loc, "basis", json_object_new_string(cb->basis));
		jset(loc, "intensity_source", json_object_new_string(
		    cb->intensity_source));
		jset(loc, "resolution_s", jnum(cb->resolution_s));
	}
	return loc;
}

/* The claims on the instruments (--finalise records them). */
static json_object *
claims_json(const struct report_carbon *cb)
{
	json_object *o = json_object_new_object(), *a, *x;
	size_t i;

	jset(o, "boundary", json_object_new_string(report_carbon_bnd(
	    cb->claims_bnd)));
	jset(o, "finalised", json_object_new_boolean(cb->finalised));
	a = json_object_new_array();
	for (i = 0; i < cb->n_claims; i++) {
		x = json_object_new_object();
		jset(x, "id", json_object_new_string(cb->claims[i].id));
		if (cb->claims[i].hour != 0) {
			char t[40];

			clock_iso8601(cb->claims[i].hour, t, sizeof(t));
			jset(x, "hour", json_object_new_string(t));
		}
		jset(x, "kwh", jnum(cb->claims[i].kwh));
		jset(x, "left_kwh", jnum(cb->claims[i].left_kwh));
		json_object_array_add(a, x);
	}
	jset(o, "instruments", a);
	return o;
}

/* The market-based details of the wall boundary into mk. */
static void
market_details(const struct report_carbon *cb, json_object *mk)
{
	const struct market_result *res = &cb->mres;
	json_object *rj = json_object_new_array(), *x;
	size_t h;

	for (h = 0; h < res->rejected && h < MARKET_REJECTS; h++) {
		x = json_object_new_object();
		jset(x, "id", json_object_new_string(res->rejects[h].id));
		jset(x, "reason", json_object_new_string(res->rejects[h].why));
		json_object_array_add(rj, x);
	}
	jset(mk, "coverage", jnum(res->coverage));
	jset(mk, "hourly_matching", jnum(res->hourly_matching));
	jset(mk, "hourly_gap_hours", jint(res->hourly_gap_hours));
	jset(mk, "cfe_score", jnum(res->cfe_score));
	jset(mk, "cfe_gap_hours", jint(res->cfe_gap_hours));
	jset(mk, "gas", jstr(cb->mk_gas));
	jset(mk, "remainder_method", jstr(res->remainder_step));
	jset(mk, "remainder_flag", cb->remainder_flag[0] ?
	    json_object_new_string(cb->remainder_flag) : NULL);
	jset(mk, "residual_mix_published", cb->residual_published < 0 ? NULL :
	    json_object_new_boolean(cb->residual_published));
	jset(mk, "period_consumption_source", jstr(res->period_source));
	jset(mk, "remainder_factor_g_per_kwh", jnum(res->remainder_factor));
	jset(mk, "instruments_accepted", jint(res->accepted));
	jset(mk, "instruments_mwh", jnum(cb->instruments_mwh));
	jset(mk, "instruments_rejected", rj);
	jset(mk, "claims", claims_json(cb));
	if (!cb->residual_set)
		return;
	jset(mk, "residual_mix", json_object_new_string(cb->residual_mix));
	jset(mk, "residual_mix_source", json_object_new_string(
	    cb->residual_source));
	jset(mk, "residual_mix_year", jstr(cb->residual_year));
}

static json_object *
market_json(const struct report_carbon *cb)
{
	json_object *mk = json_object_new_object();
	int b;

	for (b = 0; b < REPORT_C_N; b++) {
		if (!cb->mk_ok[b])
			continue;
		jset(mk, report_carbon_bnd(b), pair_json(&cb->mk[b]));
		if (b == REPORT_C_WALL)
			market_details(cb, mk);
	}
	return mk;
}

/* A class's location- or market-based figures, or NULL when none. */
static json_object *
class_figs(const struct report_carbon_class *k, bool market)
{
	json_object *o = NULL, *p;
	int b;

	for (b = 0; b < REPORT_C_N; b++) {
		if (!(market ? k->mk_ok[b] : k->loc_ok[b]))
			continue;
		if (o == NULL)
			o = json_object_new_object();
		p = pair_json(market ? &k->mk[b] : &k->loc[b]);
		if (market)
			jset(p, "instrument_mwh", jnum(
			    k->mk_instrument_mwh[b]));
		jset(o, report_carbon_bnd(b), p);
	}
	return o;
}

static json_object *
class_json(const struct report_carbon_class *k)
{
	json_object *o = json_object_new_object(), *kwh, *f[2];
	int b, i;

	kwh = json_object_new_object();
	for (b = 0; b < REPORT_C_N; b++)
		if (k->has_kwh[b])
			jset(kwh, report_carbon_bnd(b), jnum(k->kwh[b]));
	jset(o, "kwh", kwh);
	jset(o, "nodes", jint(k->nodes));
	jset(o, "output_tokens", jcount(k->out));
	/* in the order they were made */
	f[k->market_first] = class_figs(k, false);
	f[!k->market_first] = class_figs(k, true);
	for (i = 0; i < 2; i++)
		if (f[i] != NULL)
			jset(o, (i == 0) == !k->market_first ? "location" :
			    "market", f[i]);
	return o;
}

static json_object *
carbon_json(const struct report *r)
{
	const struct report_carbon *cb = &r->carbon;
	json_object *c = json_object_new_object(), *so, *byc;
	size_t i;

	so = json_object_new_object();
	jset(so, "name", jstr(cb->site_name));
	jset(so, "zone", jstr(cb->zone));
	jset(so, "nodes", jint(cb->nodes));
	jset(so, "output_tokens", jcount(cb->out));
	jset(c, "site", so);
	jset(c, "location", location_json(cb));
	jset(c, "market", market_json(cb));
	byc = json_object_new_object();
	for (i = 0; i < cb->n_cls; i++)
		jset(byc, cb->cls[i].name, class_json(&cb->cls[i]));
	jset(c, "by_class", byc);
	return c;
}

static json_object *
cost_json(const struct report_cost *co)
{
	json_object *o = json_object_new_object(), *byc, *x;
	size_t i;

	jset(o, "currency", jstr(co->currency));
	jset(o, "boundary", json_object_new_string(report_carbon_bnd(
	    co->boundary)));
	if (!co->ok)
		return o;
	jset(o, "amount", jnum(co->amount));
	jset(o, "per_million_output_tokens", jnum(co->per_mtok));
	jset(o, "fallback_hours", jint(co->fallback_hours));
	byc = json_object_new_object();
	for (i = 0; i < co->n_cls; i++) {
		x = json_object_new_object();
		jset(x, "amount", jnum(co->cls[i].amount));
		jset(x, "kwh", jnum(co->cls[i].kwh));
		jset(x, "per_million_output_tokens", jnum(co->cls[i].per_mtok));
		jset(byc, co->cls[i].name, x);
	}
	jset(o, "by_class", byc);
	return o;
}

/* ------------------------------------------------------ disclosure */

static json_object *
instruments_json(const struct report_instruments *ins)
{
	json_object *a = json_object_new_array(), *e, *lab;
	size_t i, k;

	for (i = 0; i < ins->n; i++) {
		const struct report_instrument *x = &ins->v[i];

		e = json_object_new_object();
		jset(e, "target", json_object_new_string(x->target));
		jset(e, "series", json_object_new_string(x->series));
		jset(e, "kind", json_object_new_string(x->kind == WP_COUNTER ?
		    "counter" : "gauge"));
		jset(e, "interval_s", jnum(x->interval_s));
		lab = json_object_new_object();
		for (k = 0; k < x->n_labels; k++)
			jset(lab, x->labels[k].key, json_object_new_string(
			    x->labels[k].value));
		jset(e, "labels", lab);
		json_object_array_add(a, e);
	}
	return a;
}

static json_object *
devices_json(const struct report_devices *d)
{
	json_object *o = json_object_new_object(), *a;
	size_t i, j;

	for (i = 0; i < d->n; i++) {
		a = json_object_new_array();
		for (j = 0; j < d->keys[i].n; j++)
			json_object_array_add(a, json_object_new_string(
			    d->keys[i].vals[j]));
		jset(o, d->keys[i].key, a);
	}
	return o;
}

static json_object *
dist_json(const struct report_dist *x)
{
	json_object *o = json_object_new_object();

	if (x->n == 0)
		return o;
	jset(o, "p50", jnum(x->p50));
	jset(o, "p90", jnum(x->p90));
	jset(o, "p99", jnum(x->p99));
	jset(o, "mean", jnum(x->mean));
	jset(o, "requests", jint(x->n));
	return o;
}

#ifndef WP_COMMIT
#define WP_COMMIT	"unknown"
#endif

/* disclosure.wattpath: the collector's own version and commit. */
static json_object *
wattpath_json(void)
{
	json_object *o = json_object_new_object();

	jset(o, "version", json_object_new_string(WP_VERSION));
	jset(o, "commit", json_object_new_string(WP_COMMIT));
	return o;
}

/* disclosure.slo: the thresholds (null: not constrained or no report.slo);
 * the achieved percentiles are disclosure.ttft_ms and tpot_ms. */
static json_object *
slo_json(const struct report_disclosure *d)
{
	json_object *o = json_object_new_object();

	jset(o, "ttft_ms", d->slo_set && d->slo_ttft_ms > 0 ?
	    jnum(d->slo_ttft_ms) : NULL);
	jset(o, "tpot_ms", d->slo_set && d->slo_tpot_ms > 0 ?
	    jnum(d->slo_tpot_ms) : NULL);
	return o;
}

/* disclosure.clock_offsets: the device clocks against the collector's. */
static json_object *
clocks_json(const struct report_disclosure *d)
{
	json_object *o = json_object_new_object();
	json_object *a = json_object_new_array(), *e;
	size_t i;

	jset(o, "tolerance_s", jnum(d->clock_tolerance_s));
	for (i = 0; i < d->n_clocks; i++) {
		const struct report_clock *c = &d->clocks[i];

		e = json_object_new_object();
		jset(e, "target", json_object_new_string(c->target));
		jset(e, "readings", json_object_new_int64((int64_t)c->readings));
		jset(e, "min_s", jnum(c->min_s));
		jset(e, "max_s", jnum(c->max_s));
		jset(e, "beyond_tolerance", json_object_new_boolean(c->beyond));
		json_object_array_add(a, e);
	}
	jset(o, "targets", a);
	if (d->more_clocks > 0)
		jset(o, "targets_not_listed", json_object_new_int64(
		    (int64_t)d->more_clocks));
	return o;
}

/* disclosure: what was measured with what, the lists. */
static void
disc_lists(const struct report_disclosure *d, json_object *o)
{
	json_object *ins = json_object_new_object();
	json_object *dev = json_object_new_object(), *x;
	size_t i;
	int g;

	for (g = 0; g < REPORT_I_N; g++) {
		jset(ins, report_instrument_group(g),
		    instruments_json(&d->ins[g]));
		jset(dev, report_device_group(g), devices_json(&d->dev[g]));
	}
	jset(o, "instruments", ins);
	jset(o, "devices", dev);
	x = json_object_new_object();
	for (i = 0; i < d->n_limits; i++)
		jset(x, d->limits[i].node, jnum(d->limits[i].w));
	jset(o, "gpu_power_limit_w", x);
	x = json_object_new_object();
	for (i = 0; i < d->n_clocks_mhz; i++)
		jset(x, d->clocks_mhz[i].node, jnum(d->clocks_mhz[i].w));
	jset(o, "gpu_sm_clock_mhz", x);
	jset(o, "sampling_interval_s", jnum(d->sampling_interval_s));
	x = json_object_new_array();
	for (i = 0; i < d->n_intervals; i++)
		json_object_array_add(x, jnum(d->intervals_s[i]));
	jset(o, "sampling_intervals_s", x);
	jset(o, "clock_offsets", clocks_json(d));
}

/* disclosure: the method, as text. */
static void
disc_method(const struct report_disclosure *d, json_object *o)
{
	json_object *p = json_object_new_object(), *part = NULL;
	int k;

	jset(o, "window_s", jnum(d->window_s));
	jset(o, "run_count", json_object_new_int(d->run_count));
	jset(o, "edges", json_object_new_string(d->edges));
	jset(o, "idle_policy", json_object_new_string(d->idle_policy));
	jset(o, "token_denominator", json_object_new_string(
	    d->token_denominator));
	jset(p, "value", jnum(d->pue_value));
	jset(p, "period", json_object_new_string(d->pue_period));
	jset(p, "category", json_object_new_string(d->pue_category));
	jset(p, "source", json_object_new_string(d->pue_source));
	jset(o, "pue", p);
	jset(o, "wall_model", json_object_new_string(d->wall_model));
	jset(o, "bounds", json_object_new_string(d->bounds));
	jset(o, "coverage_rule", json_object_new_string(d->coverage_rule));
	for (k = 0; k < BND_N; k++) {
		if (d->partial[k] == NULL)
			continue;
		if (part == NULL)
			part = json_object_new_object();
		jset(part, bnd_name(k), json_object_new_string(d->partial[k]));
	}
	if (part != NULL)
		jset(o, "partial_coverage", part);
	jset(o, "facility_method", json_object_new_string(d->facility_method));
	if (isnan(d->facility_alloc_j))
		return;
	p = json_object_new_object();
	jset(p, "method", json_object_new_string("metered facility energy "
	    "allocated by hourly IT share"));
	jset(p, "energy_j", jnum(d->facility_alloc_j));
	jset(p, "wall_x_pue_j", jnum(d->facility_primary_j));
	jset(p, "relative_difference", jnum(d->facility_alloc_rel));
	jset(o, "facility_second_method", p);
}

/* disclosure.sources: per target, the data dir its series came from
 * (a report over several data dirs). */
static json_object *
sources_json(const struct report_disclosure *d)
{
	json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < d->n_sources; i++) {
		o = json_object_new_object();
		jset(o, "target", json_object_new_string(d->sources[i].target));
		jset(o, "data_dir",
		    json_object_new_string(d->sources[i].data_dir));
		jset(o, "candidates", jint((size_t)d->sources[i].candidates));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *
disclosure_json(const struct report_disclosure *d)
{
	json_object *o = json_object_new_object(), *j;

	jset(o, "wattpath", wattpath_json());
	disc_lists(d, o);
	disc_method(d, o);
	jset(o, "slo", slo_json(d));
	j = json_object_new_object();
	jset(j, "segments_read", jint(d->segments_read));
	jset(j, "summaries_used", jint(d->summaries_used));
	jset(j, "ledger_blocks_used", jint(d->ledger_used));
	jset(j, "ledger_days_used", jint(d->ledger_days));
	jset(o, "journal", j);
	if (d->n_sources > 0)
		jset(o, "sources", sources_json(d));
	if (!d->has_requests)
		return o;
	jset(o, "isl", dist_json(&d->isl));
	jset(o, "osl", dist_json(&d->osl));
	jset(o, "ttft_ms", dist_json(&d->ttft_ms));
	jset(o, "tpot_ms", dist_json(&d->tpot_ms));
	jset(o, "requests", jint(d->requests));
	jset(o, "request_log_bad_lines", jint(d->request_log_bad_lines));
	return o;
}

/* ------------------------------------------------------- documents */

static json_object *
warnings_json(const struct report_warnings *w)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < w->n; i++)
		json_object_array_add(a, json_object_new_string(w->v[i]));
	return a;
}

json_object *
report_json_doc(const struct report *r)
{
	json_object *root = json_object_new_object(), *w, *tk, *nodes;
	size_t i;

	if (root == NULL)
		return NULL;
	w = json_object_new_object();
	jset(w, "start", jtime(r->from));
	jset(w, "end", jtime(r->to));
	jset(w, "seconds", jnum(r->secs));
	jset(root, "window", w);
	tk = json_object_new_object();
	jset(tk, "output", jcount(r->out));
	jset(tk, "input", jcount(r->in));
	jset(tk, "slo_qualified", jcount(r->slo));
	jset(root, "tokens", tk);
	jset(root, "boundaries", boundaries_json(r));
	jset(root, "idle_subtracted", idle_json(r));
	jset(root, "wall_to_gpu_ratio", jnum(r->wall_to_gpu));
	jset(root, "pue", pue_json(&r->pue));
	jset(root, "curves", curves_json(r));
	nodes = json_object_new_array();
	for (i = 0; i < r->n_nodes; i++)
		json_object_array_add(nodes, node_json(&r->nodes[i]));
	jset(root, "nodes", nodes);
	report_models_json(root, r);
	if (r->has_runs)
		jset(root, "runs", runs_json(&r->runs));
	if (r->has_carbon)
		jset(root, "carbon", carbon_json(r));
	if (r->has_cost)
		jset(root, "cost", cost_json(&r->cost));
	jset(root, "disclosure", w = disclosure_json(&r->disc));
	if (r->checks.n > 0)	/* the plausibility findings */
		jset(w, "plausibility", warnings_json(&r->checks));
	jset(root, "warnings", warnings_json(&r->warnings));
	return root;
}

json_object *
report_curve_json_doc(const struct report_curve_doc *d)
{
	json_object *root = json_object_new_object(), *nodes, *x;
	size_t i;

	if (root == NULL)
		return NULL;
	nodes = json_object_new_array();
	for (i = 0; i < d->n_nodes; i++) {
		x = curve_json(&d->nodes[i].curve);
		jset(x, "name", json_object_new_string(d->nodes[i].name));
		jset(x, "deviation_from_class", jnum(d->nodes[i].deviation));
		json_object_array_add(nodes, x);
	}
	jset(root, "scope", json_object_new_string(d->scope));
	jset(root, "step_s", jnum(d->step_s));
	jset(root, "class_curve", curve_json(&d->cls));
	jset(root, "nodes", nodes);
	jset(root, "warnings", warnings_json(&d->warnings));
	return root;
}

int
report_json_print(FILE *f, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (s == NULL || fprintf(f, "%s\n", s) < 0)
		return -1;
	return 0;
}
