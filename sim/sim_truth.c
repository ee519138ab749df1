/*
 * sim_truth.c - `wattpath-sim truth` and `wattpath-sim naive`: exact
 * energies over a window, from the model alone (no server needed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../collector/lib/clock.h"
#include "sim_cmd.h"
#include "sim_srv.h"

struct totals {
	double	 gpu, wall, outlet, pdu, out_tok, in_tok;
};

static int
window(const struct sim_args *a)
{
	if (isnan(a->from) || isnan(a->to)) {
		fprintf(stderr, "wattpath-sim: --from and --to are required\n");
		return -1;
	}
	if (a->to <= a->from) {
		fprintf(stderr, "wattpath-sim: --to must be after --from\n");
		return -1;
	}
	return 0;
}

static struct sim_fleet *
fleet(const struct sim_args *a)
{
	struct sim_fleet *f;
	char err[256];

	if ((f = sim_fleet_new(&a->fo, err, sizeof(err))) == NULL)
		fprintf(stderr, "wattpath-sim: %s\n", err);
	return f;
}

static void
jnum(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void
jstr(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static json_object *
node_json(const struct sim_fleet *f, int i, double a, double b,
    struct totals *t)
{
	const struct sim_node *nd = &f->node[i];
	json_object *o = json_object_new_object(), *g, *outs, *x;
	struct sim_cum c;
	char name[32];
	int k, p;

	sim_node_energy(nd, a, b, &c);
	sim_node_name(i, name, sizeof(name));
	jstr(o, "name", name);
	json_object_object_add(o, "rack", json_object_new_int(nd->rack + 1));
	jstr(o, "profile", sim_profile_name(nd->profile));
	jstr(o, "bmc_source", sim_shape_name(nd->shape));
	jnum(o, "gpu_j", c.gpu_total);
	g = json_object_new_array();
	for (k = 0; k < SIM_GPUS; k++)
		json_object_array_add(g, json_object_new_double(c.gpu[k]));
	json_object_object_add(o, "gpus_j", g);
	jnum(o, "dc_j", c.dc);
	jnum(o, "wall_j", c.wall);
	outs = json_object_new_array();
	for (p = 0; p < f->o.pdus; p++) {
		double share = sim_outlet_share(nd, p);

		if (share <= 0)
			continue;
		x = json_object_new_object();
		sim_pdu_name(f, p, name, sizeof(name));
		jstr(x, "pdu", name);
		json_object_object_add(x, "outlet",
		    json_object_new_int(nd->outlet));
		jnum(x, "j", c.wall * share);
		json_object_array_add(outs, x);
		t->outlet += c.wall * share;
	}
	json_object_object_add(o, "outlets", outs);
	jnum(o, "tokens_output", c.out_tok);
	jnum(o, "tokens_input", c.in_tok);
	jnum(o, "wall_over_gpu", c.wall / c.gpu_total);
	t->gpu += c.gpu_total;
	t->wall += c.wall;
	t->out_tok += c.out_tok;
	t->in_tok += c.in_tok;
	return o;
}

static json_object *
fac_json(const struct sim_fleet *f, const struct sim_fac *e, double a)
{
	json_object *o = json_object_new_object();

	jnum(o, "wall_j", e->wall);
	jnum(o, "it_j", e->it);
	jnum(o, "ups_loss_j", e->ups_loss);
	jnum(o, "cooling_j", e->cooling);
	jnum(o, "other_j", e->other);
	jnum(o, "total_j", e->total);
	jnum(o, "outdoor_temp_c", sim_outdoor_temp(f->o.seed, a));
	return o;
}

/* The model's wall/GPU ratio against GPU load (power / 700 W limit),
 * for a node at a constant load. */
static json_object *
curve_json(void)
{
	json_object *arr = json_object_new_array(), *x;
	double load, u, gpu, dc;

	for (load = 0.1; load < 1.0 + 1e-9; load += 0.005) {
		u = (load * SIM_GPU_MAX_W - SIM_GPU_IDLE_W) /
		    (SIM_GPU_MAX_W - SIM_GPU_IDLE_W);
		gpu = SIM_GPUS * sim_gpu_power(u);
		dc = gpu + sim_host_power(u);
		x = json_object_new_object();
		jnum(x, "load", load);
		jnum(x, "gpu_w", gpu);
		jnum(x, "wall_w", dc / sim_psu_eff(dc));
		jnum(x, "ratio", dc / sim_psu_eff(dc) / gpu);
		json_object_array_add(arr, x);
	}
	return arr;
}

static json_object *
truth_json(const struct sim_fleet *f, double a, double b)
{
	json_object *o = json_object_new_object(), *arr, *x, *jt;
	struct totals t = { 0 };
	struct sim_fac e;
	char buf[64];
	int i;

	clock_iso8601((wp_time)llround(a * WP_SEC), buf, sizeof(buf));
	jstr(o, "from", buf);
	clock_iso8601((wp_time)llround(b * WP_SEC), buf, sizeof(buf));
	jstr(o, "to", buf);
	jnum(o, "seconds", b - a);
	json_object_object_add(o, "seed", json_object_new_int64(
	    (int64_t)f->o.seed));
	arr = json_object_new_array();
	for (i = 0; i < f->o.nodes; i++)
		json_object_array_add(arr, node_json(f, i, a, b, &t));
	json_object_object_add(o, "nodes", arr);
	arr = json_object_new_array();
	for (i = 0; i < f->o.pdus; i++) {
		x = json_object_new_object();
		sim_pdu_name(f, i, buf, sizeof(buf));
		jstr(x, "name", buf);
		jnum(x, "inlet_j", sim_pdu_energy(f, i, a, b));
		t.pdu += sim_pdu_energy(f, i, a, b);
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "pdus", arr);
	arr = json_object_new_array();
	for (i = 0; i < f->o.meters; i++) {
		x = json_object_new_object();
		sim_meter_name(i, buf, sizeof(buf));
		jstr(x, "name", buf);
		jstr(x, "role", sim_meter_role(i));
		jnum(x, "j", sim_meter_energy(f, i, a, b));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "meters", arr);
	sim_fac_energy(f, a, b, &e);
	json_object_object_add(o, "facility", fac_json(f, &e, a));
	x = json_object_new_object();
	jnum(x, "gpu_j", t.gpu);
	jnum(x, "wall_j", t.wall);
	jnum(x, "outlet_j", t.outlet);
	jnum(x, "pdu_inlet_j", t.pdu);
	jnum(x, "it_j", e.it);
	jnum(x, "facility_j", e.total);
	jnum(x, "tokens_output", t.out_tok);
	jnum(x, "tokens_input", t.in_tok);
	json_object_object_add(o, "totals", x);
	jt = json_object_new_object();
	if (t.out_tok > 0) {
		jnum(jt, "gpu", t.gpu / t.out_tok);
		jnum(jt, "wall", t.wall / t.out_tok);
		if (f->o.pdus > 0)
			jnum(jt, "outlet", t.outlet / t.out_tok);
		jnum(jt, "facility", e.total / t.out_tok);
	}
	json_object_object_add(o, "j_per_output_token", jt);
	jnum(o, "pue", e.total / e.it);
	jnum(o, "wall_over_gpu", t.wall / t.gpu);
	json_object_object_add(o, "wall_gpu_curve", curve_json());
	if (f->o.shared > 0)
		json_object_object_add(o, "models", sim_truth_models(f, a, b));
	if (f->o.n_caps > 0)
		json_object_object_add(o, "power_cap", sim_truth_caps(f, a, b));
	return o;
}

static void
print_text(json_object *o)
{
	json_object *tot = json_object_object_get(o, "totals");
	json_object *jt = json_object_object_get(o, "j_per_output_token");
	json_object *v;

#define G(obj, k) (json_object_object_get_ex(obj, k, &v) ? \
	json_object_get_double(v) : NAN)
	printf("truth %s .. %s (%.3f s)\n",
	    json_object_get_string(json_object_object_get(o, "from")),
	    json_object_get_string(json_object_object_get(o, "to")),
	    G(o, "seconds"));
	printf("  %-10s %16s %14s\n", "boundary", "energy (J)", "J/out-token");
	printf("  %-10s %16.1f %14.5f\n", "gpu", G(tot, "gpu_j"), G(jt, "gpu"));
	printf("  %-10s %16.1f %14.5f\n", "wall", G(tot, "wall_j"),
	    G(jt, "wall"));
	printf("  %-10s %16.1f %14.5f\n", "outlet", G(tot, "outlet_j"),
	    G(jt, "outlet"));
	printf("  %-10s %16.1f\n", "it", G(tot, "it_j"));
	printf("  %-10s %16.1f %14.5f\n", "facility", G(tot, "facility_j"),
	    G(jt, "facility"));
	printf("  tokens: %.0f output, %.0f input; PUE %.4f; wall/gpu %.4f\n",
	    G(tot, "tokens_output"), G(tot, "tokens_input"), G(o, "pue"),
	    G(o, "wall_over_gpu"));
#undef G
}

int
sim_cmd_truth(const struct sim_args *a)
{
	struct sim_fleet *f;
	json_object *o;

	if (window(a) == -1)
		return 2;
	if ((f = fleet(a)) == NULL)
		return 1;
	o = truth_json(f, a->from, a->to);
	if (a->json)
		printf("%s\n", json_object_to_json_string_ext(o,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_text(o);
	json_object_put(o);
	sim_fleet_free(f);
	return 0;
}

/* GPU 0 of node 0: what a 1 s power gauge and the mJ counter show at t. */
static double
gauge(const struct sim_node *n, double t)
{
	struct sim_cum p;

	sim_node_power(n, t, 1.0, &p);
	return p.gpu[0];
}

static double
counter_mj(const struct sim_node *n, double t)
{
	struct sim_cum c;

	sim_node_cum(n, t, &c);
	return floor(c.gpu[0] * 1000.0);
}

/* Scrapes every `every` s from a + off: naive and counter estimates. */
static json_object *
naive_one(const struct sim_node *n, double a, double b, double every,
    double off, double *nerr, double *cerr)
{
	json_object *o = json_object_new_object();
	double t, first = a + off, last = first, psum = 0, truth;
	struct sim_cum e;
	int k = 0;

	for (t = first; t + every <= b; t += every) {
		psum += gauge(n, t);
		last = t + every;
		k++;
	}
	sim_node_energy(n, first, last, &e);
	truth = e.gpu[0];
	*nerr = (psum * every - truth) / truth;
	*cerr = ((counter_mj(n, last) - counter_mj(n, first)) / 1000.0 -
	    truth) / truth;
	jnum(o, "offset_s", off);
	json_object_object_add(o, "scrapes", json_object_new_int(k + 1));
	jnum(o, "truth_j", truth);
	jnum(o, "naive_j", psum * every);
	jnum(o, "naive_err", *nerr);
	jnum(o, "counter_j", (counter_mj(n, last) - counter_mj(n, first)) /
	    1000.0);
	jnum(o, "counter_err", *cerr);
	return o;
}

int
sim_cmd_naive(const struct sim_args *a)
{
	struct sim_fleet *f;
	json_object *o, *arr;
	double off, ne, ce, nmax = 0, cmax = 0, nmin = 0;

	if (window(a) == -1)
		return 2;
	if (a->to - a->from < 2 * a->every) {
		fprintf(stderr, "wattpath-sim: window shorter than 2 scrapes\n");
		return 2;
	}
	if ((f = fleet(a)) == NULL)
		return 1;
	o = json_object_new_object();
	jstr(o, "profile", sim_profile_name(f->node[0].profile));
	jnum(o, "every_s", a->every);
	arr = json_object_new_array();
	for (off = 0; off < a->every; off += 1.0) {
		json_object_array_add(arr, naive_one(&f->node[0], a->from,
		    a->to, a->every, off, &ne, &ce));
		nmax = fmax(nmax, ne);
		nmin = fmin(nmin, ne);
		cmax = fmax(cmax, fabs(ce));
	}
	json_object_object_add(o, "scrape_phases", arr);
	jnum(o, "naive_err_max", nmax);
	jnum(o, "naive_err_min", nmin);
	jnum(o, "counter_err_max_abs", cmax);
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	sim_fleet_free(f);
	return 0;
}
