/*
 * sim_truth_caps.c - the truth of a power-limit sweep (--cap-sweep): per
 * limit, the fleet's output tokens, wall energy and facility energy by the
 * report's rule (wall x the metered PUE of each segment: facility_total
 * over it_total), J/token at both, throughput, and the limits that
 * minimise each (the optimum `wattpath advise` should find).
 */
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "sim_cmd.h"

struct cap_sum {
	int	 segments;
	double	 secs, tok, wall, fac;
};

static void
jnum(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, isfinite(v) ?
	    json_object_new_double(v) : NULL);
}

/* Segment [s, e) at limit c of the sweep, added to sum[c]. */
static void
segment(const struct sim_fleet *f, double s, double e, struct cap_sum *sum)
{
	struct sim_cum c;
	struct sim_fac fac;
	double wall = 0, tok = 0;
	int i;

	for (i = 0; i < f->o.nodes; i++) {
		sim_node_energy(&f->node[i], s, e, &c);
		wall += c.wall;
		tok += c.out_tok;
	}
	sim_fac_energy(f, s, e, &fac);
	sum->segments++;
	sum->secs += e - s;
	sum->tok += tok;
	sum->wall += wall;
	sum->fac += fac.it > 0 ? wall * fac.total / fac.it : NAN;
}

static json_object *
points(const struct cap_sum *sum, const struct sim_opts *o, double *bw,
    double *bf)
{
	json_object *arr = json_object_new_array(), *x;
	double mw = INFINITY, mf = INFINITY;
	int c;

	for (c = 0; c < o->n_caps; c++) {
		const struct cap_sum *p = &sum[c];

		if (p->segments == 0 || !(p->tok > 0))
			continue;
		x = json_object_new_object();
		jnum(x, "limit_w", o->caps[c]);
		json_object_object_add(x, "segments",
		    json_object_new_int(p->segments));
		jnum(x, "seconds", p->secs);
		jnum(x, "tokens_output", p->tok);
		jnum(x, "tokens_per_s", p->tok / p->secs);
		jnum(x, "wall_j", p->wall);
		jnum(x, "facility_j", p->fac);
		jnum(x, "wall_j_per_token", p->wall / p->tok);
		jnum(x, "facility_j_per_token", p->fac / p->tok);
		json_object_array_add(arr, x);
		if (p->wall / p->tok < mw) {
			mw = p->wall / p->tok;
			*bw = o->caps[c];
		}
		if (p->fac / p->tok < mf) {
			mf = p->fac / p->tok;
			*bf = o->caps[c];
		}
	}
	return arr;
}

json_object *
sim_truth_caps(const struct sim_fleet *f, double a, double b)
{
	const struct sim_opts *o = &f->o;
	struct cap_sum sum[SIM_CAPS_MAX];
	json_object *x = json_object_new_object();
	double t = a, e, bw = NAN, bf = NAN;

	memset(sum, 0, sizeof(sum));
	while (t < b) {
		e = (floor(t / o->cap_dwell) + 1) * o->cap_dwell;
		if (e > b)
			e = b;
		segment(f, t, e, &sum[sim_cap_index(o, t)]);
		t = e;
	}
	jnum(x, "dwell_s", o->cap_dwell);
	jnum(x, "throughput_exponent", SIM_CAP_EXP);
	json_object_object_add(x, "points", points(sum, o, &bw, &bf));
	jnum(x, "optimum_wall_w", bw);
	jnum(x, "optimum_facility_w", bf);
	return x;
}
