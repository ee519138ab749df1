/*
 * sim_model.c - the fleet model: profiles, power curves, exact integrals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_model.h"

#define PH_MAX		256
#define BURSTY_TICKS	617	/* 61.7 s: not a multiple of any poll interval (a load locked to
				   the poller would hide its range from every sampler) */
#define HOUR		3600.0

static const char *const profile_names[] = { "seed", "bursty", "steady",
    "idle" };
static const char *const shape_names[] = { "joules", "kwh", "watts",
    "legacy" };

uint64_t
sim_hash(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t z;

	z = seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL);
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double
sim_unif(uint64_t seed, uint64_t a, uint64_t b)
{
	return (double)(sim_hash(seed, a, b) >> 11) / 9007199254740992.0;
}

const char *
sim_profile_name(int p)
{
	return p >= 0 && p < SP_N ? profile_names[p] : "mix";
}

int
sim_profile_parse(const char *s)
{
	int i;

	for (i = 0; i < SP_N; i++)
		if (strcmp(s, profile_names[i]) == 0)
			return i;
	return strcmp(s, "mix") == 0 ? SP_MIX : -1;
}

const char *
sim_shape_name(int s)
{
	return s >= 0 && s < SS_N ? shape_names[s] : "mix";
}

int
sim_shape_parse(const char *s)
{
	int i;

	for (i = 0; i < SS_N; i++)
		if (strcmp(s, shape_names[i]) == 0)
			return i;
	return strcmp(s, "mix") == 0 ? SS_MIX : -1;
}

/* Per GPU: linear in load, so the seed's 700 W / 300 W are exact. */
double
sim_gpu_power(double u)
{
	return SIM_GPU_IDLE_W + (SIM_GPU_MAX_W - SIM_GPU_IDLE_W) * u;
}

/* CPUs, memory, NICs, NVSwitch: fixed + load; fans follow the cube law. */
double
sim_host_power(double u)
{
	double fan = 0.35 + 0.65 * u;

	return 800.0 + 250.0 * u + 40.0 + 460.0 * fan * fan * fan;
}

/* Four 3.3 kW supplies sharing the load: efficiency falls at low load. */
double
sim_psu_eff(double dc_w)
{
	double x = dc_w / 13200.0, d = 1.0 - x;

	if (d < 0)
		d = 0;
	return 0.955 - 0.06 * d * d * d;
}

/* The layout: before the move (moved 0) or after it (1). */
static int
gpu_model(const struct sim_node *n, int g, int moved)
{
	if (!n->shared)
		return 0;
	if (moved && g == SIM_MOVE_FROM)
		return -1;
	if (moved && g == SIM_IDLE_GPU)
		return 0;
	return g == SIM_IDLE_GPU ? -1 : g < SIM_SHARED_A_GPUS ? 0 : 1;
}

int
sim_gpu_model(const struct sim_node *n, int g)
{
	return gpu_model(n, g, 0);
}

int
sim_gpu_model_at(const struct sim_node *n, int g, double t)
{
	return gpu_model(n, g, t >= n->move_t);
}

/* Power of every channel while phase p runs under the GPU power limit cap
 * (W per GPU; 0: none). */
static void
phase_power(const struct sim_node *n, const struct sim_phase *p, double cap,
    int moved, struct sim_cum *w)
{
	double g = sim_gpu_power(p->u), idle = sim_gpu_power(0), f = 1, tf;
	int i;

	if (cap > 0 && g > cap && g > idle) {
		f = (cap - idle) / (g - idle);
		if (f < 0.05)
			f = 0.05;
		g = idle + (g - idle) * f;
	}
	tf = f < 1 ? pow(f, SIM_CAP_EXP) : 1;
	memset(w, 0, sizeof(*w));
	for (i = 0; i < SIM_GPUS; i++) {
		w->gpu[i] = (gpu_model(n, i, moved) < 0 ? idle : g) *
		    n->gpu_k[i];
		w->gpu_total += w->gpu[i];
	}
	w->dc = w->gpu_total + sim_host_power(p->u * f);
	w->wall = w->dc / sim_psu_eff(w->dc);
	w->out_tok = p->out_rate * tf;
	w->in_tok = p->in_rate * tf;
}

static void
cum_axpy(struct sim_cum *y, double a, const struct sim_cum *x)
{
	int i;

	for (i = 0; i < SIM_GPUS; i++)
		y->gpu[i] += a * x->gpu[i];
	y->gpu_total += a * x->gpu_total;
	y->dc += a * x->dc;
	y->wall += a * x->wall;
	y->out_tok += a * x->out_tok;
	y->in_tok += a * x->in_tok;
}

static int
add_phase(struct sim_phase *ph, uint32_t *n, uint32_t ticks, double u,
    double out, double in)
{
	if (*n >= PH_MAX || ticks == 0)
		return 0;
	ph[*n] = (struct sim_phase){ ticks, u, out, in };
	(*n)++;
	return 1;
}

/* The seed's cycle: 4 s at 700 W, 11 s at 300 W per GPU. */
static void
profile_seed(struct sim_phase *ph, uint32_t *n)
{
	add_phase(ph, n, 40, 1.0, 0.0, 110000.0);
	add_phase(ph, n, 110, (300.0 - SIM_GPU_IDLE_W) /
	    (SIM_GPU_MAX_W - SIM_GPU_IDLE_W), 13000.0, 0.0);
}

/* Prefill bursts, decode stretches and short gaps over a 61.7 s period. */
static void
profile_bursty(uint64_t seed, int node, struct sim_phase *ph, uint32_t *n)
{
	uint32_t used = 0, len, k = 0;
	double r, u;

	while (used < BURSTY_TICKS && *n < PH_MAX) {
		r = sim_unif(seed, (uint64_t)node * 1000 + k, 1);
		if (k % 2 == 0) {	/* prefill */
			len = 3 + (uint32_t)(r * 12);
			u = 0.95 + 0.05 * sim_unif(seed, node * 1000 + k, 2);
		} else if (r < 0.15) {	/* gap */
			len = 5 + (uint32_t)(sim_unif(seed, node * 1000 + k,
			    3) * 25);
			u = 0.04;
		} else {		/* decode */
			len = 10 + (uint32_t)(r * 50);
			u = 0.45 + 0.25 * sim_unif(seed, node * 1000 + k, 2);
		}
		if (len > BURSTY_TICKS - used)
			len = BURSTY_TICKS - used;
		if (k % 2 == 0)
			add_phase(ph, n, len, u, 0.0, 100000.0 * u);
		else
			add_phase(ph, n, len, u, u > 0.1 ? 24000.0 * u : 0.0,
			    0.0);
		used += len;
		k++;
	}
}

/* Per limit of the sweep: one period's integral and the prefix sums. */
static int
cap_tables(struct sim_node *nd)
{
	struct sim_cum w;
	uint32_t k;
	int c;

	if (nd->n_caps == 0)
		return 0;
	nd->cper = calloc(nd->n_caps, sizeof(*nd->cper));
	nd->cpre = calloc((size_t)nd->n_caps * nd->n_ph, sizeof(*nd->cpre));
	if (nd->cper == NULL || nd->cpre == NULL)
		return -1;
	for (c = 0; c < nd->n_caps; c++)
		for (k = 0; k < nd->n_ph; k++) {
			nd->cpre[(size_t)c * nd->n_ph + k] = nd->cper[c];
			phase_power(nd, &nd->ph[k], nd->caps[c], 0, &w);
			cum_axpy(&nd->cper[c], nd->ph[k].ticks * SIM_TICK, &w);
		}
	return 0;
}

/* The moved layout's period integral and prefix sums (--pod-move). */
static int
move_tables(struct sim_node *nd)
{
	struct sim_cum w;
	uint32_t k;

	if (!isfinite(nd->move_t))
		return 0;
	if ((nd->mpre = calloc(nd->n_ph, sizeof(*nd->mpre))) == NULL)
		return -1;
	memset(&nd->mper, 0, sizeof(nd->mper));
	for (k = 0; k < nd->n_ph; k++) {
		nd->mpre[k] = nd->mper;
		phase_power(nd, &nd->ph[k], 0, 1, &w);
		cum_axpy(&nd->mper, nd->ph[k].ticks * SIM_TICK, &w);
	}
	return 0;
}

static int
node_profile(struct sim_node *nd, uint64_t seed, int i)
{
	struct sim_phase ph[PH_MAX];
	uint32_t n = 0, k;
	double t = 0;

	switch (nd->profile) {
	case SP_SEED:
		profile_seed(ph, &n);
		break;
	case SP_BURSTY:
		profile_bursty(seed, i, ph, &n);
		break;
	case SP_STEADY:
		add_phase(ph, &n, 10, 0.75, 18000.0, 30000.0);
		break;
	default:
		add_phase(ph, &n, 10, 0.0, 0.0, 0.0);
		break;
	}
	nd->ph = calloc(n, sizeof(*nd->ph));
	nd->t0 = calloc(n, sizeof(*nd->t0));
	nd->pre = calloc(n, sizeof(*nd->pre));
	if (nd->ph == NULL || nd->t0 == NULL || nd->pre == NULL)
		return -1;
	memcpy(nd->ph, ph, n * sizeof(*ph));
	nd->n_ph = n;
	memset(&nd->per, 0, sizeof(nd->per));
	for (k = 0; k < n; k++) {
		struct sim_cum w;

		nd->t0[k] = t;
		nd->pre[k] = nd->per;
		phase_power(nd, &ph[k], 0, 0, &w);
		cum_axpy(&nd->per, ph[k].ticks * SIM_TICK, &w);
		t += ph[k].ticks * SIM_TICK;
	}
	nd->period = t;
	return cap_tables(nd) == -1 ? -1 : move_tables(nd);
}

static void
node_layout(struct sim_fleet *f, struct sim_node *nd, int i)
{
	const struct sim_opts *o = &f->o;
	int per_rack = (o->nodes + o->racks - 1) / o->racks;
	int ppr = o->pdus / o->racks, g;

	nd->rack = i / per_rack;
	nd->outlet = i % per_rack + 1;
	nd->pdu_a = nd->pdu_b = -1;
	nd->share_a = 1.0;
	if (ppr >= 1)
		nd->pdu_a = nd->rack * ppr;
	if (ppr >= 2) {
		nd->pdu_b = nd->rack * ppr + 1;
		nd->share_a = 0.47 + 0.06 * sim_unif(o->seed, i, 11);
	}
	if (nd->profile == SP_SEED) {
		for (g = 0; g < SIM_GPUS; g++)
			nd->gpu_k[g] = 1.0;
	} else {
		double s = 0;

		for (g = 0; g < SIM_GPUS; g++) {
			nd->gpu_k[g] = 0.97 + 0.06 * sim_unif(o->seed, i,
			    20 + g);
			s += nd->gpu_k[g];
		}
		for (g = 0; g < SIM_GPUS; g++)
			nd->gpu_k[g] *= SIM_GPUS / s;
	}
}

/* The default mix: every profile and every BMC shape appears. */
static const int mix_profile[8] = { SP_SEED, SP_BURSTY, SP_STEADY,
    SP_BURSTY, SP_SEED, SP_STEADY, SP_BURSTY, SP_IDLE };

static int
check_opts(const struct sim_opts *o, char *err, unsigned long errlen)
{
	if (o->nodes < 1 || o->nodes > 60000)
		snprintf(err, errlen, "--nodes must be 1..60000");
	else if (o->racks < 1 || o->racks > o->nodes)
		snprintf(err, errlen, "--racks must be 1..nodes");
	else if (o->pdus < 0 || o->pdus > 2 * o->racks ||
	    o->pdus % o->racks != 0)
		snprintf(err, errlen, "--pdus must be 0, racks or 2*racks");
	else if ((o->nodes + o->racks - 1) / o->racks > 512 && o->pdus > 0)
		snprintf(err, errlen, "at most 512 nodes per rack with PDUs");
	else if (o->meters < 0 || o->meters > SIM_MAX_METERS)
		snprintf(err, errlen, "--meters must be 0..%d", SIM_MAX_METERS);
	else if (isfinite(o->pod_move) && (o->shared < 1 || o->n_caps > 0))
		snprintf(err, errlen, "--pod-move needs --shared and no "
		    "--cap-sweep");
	else
		return 0;
	return -1;
}

/* Whether a is a whole multiple of b (to a tick's rounding). */
static int
whole(double a, double b)
{
	double q = a / b;

	return b > 0 && q >= 1 && fabs(q - floor(q + 0.5)) < 1e-9;
}

struct sim_fleet *
sim_fleet_new(const struct sim_opts *o, char *err, unsigned long errlen)
{
	struct sim_fleet *f;
	int i;

	if (check_opts(o, err, errlen) == -1)
		return NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->node = calloc(o->nodes, sizeof(*f->node))) == NULL)
		goto oom;
	f->o = *o;
	f->pdu_idle_w = 18.0;
	f->rack_net_w = 650.0;
	for (i = 0; i < o->nodes; i++) {
		struct sim_node *nd = &f->node[i];

		nd->profile = o->profile == SP_MIX ? mix_profile[i % 8] :
		    o->profile;
		nd->shape = o->shape == SS_MIX ? (i + i / 8) % SS_N : o->shape;
		nd->shared = i >= o->nodes - o->shared;
		nd->caps = f->o.caps;
		nd->n_caps = o->n_caps;
		nd->dwell = o->cap_dwell;
		nd->move_t = nd->shared && isfinite(o->pod_move) ? o->pod_move :
		    INFINITY;
		node_layout(f, nd, i);
		if (node_profile(nd, o->seed, i) == -1)
			goto oom;
		nd->shift = floor(sim_unif(o->seed, i, 7) * nd->period /
		    SIM_TICK) * SIM_TICK;
		if (nd->n_caps > 0 && !whole(nd->dwell, nd->period)) {
			snprintf(err, errlen, "--cap-dwell %g s is not a whole "
			    "number of node %d's load period (%g s: steady and "
			    "idle 1 s, seed 15 s, bursty 61.7 s)", nd->dwell, i,
			    nd->period);
			sim_fleet_free(f);
			return NULL;
		}
	}
	return f;
oom:
	sim_fleet_free(f);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

void
sim_fleet_free(struct sim_fleet *f)
{
	int i;

	if (f == NULL)
		return;
	for (i = 0; f->node != NULL && i < f->o.nodes; i++) {
		free(f->node[i].ph);
		free(f->node[i].t0);
		free(f->node[i].pre);
		free(f->node[i].cper);
		free(f->node[i].cpre);
		free(f->node[i].mpre);
	}
	free(f->node);
	free(f);
}

/* Index of the phase in force at offset r within the period. */
static uint32_t
phase_at(const struct sim_node *n, double r)
{
	uint32_t lo = 0, hi = n->n_ph;

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (n->t0[mid] <= r)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The integral from the epoch to t as if limit c (-1: none) held all
 * along. */
static void
cum_at_cap(const struct sim_node *n, int c, int moved, double t,
    struct sim_cum *out)
{
	double x = t + n->shift, cyc = floor(x / n->period);
	double r = x - cyc * n->period;
	const struct sim_cum *per = moved ? &n->mper : c < 0 ? &n->per :
	    &n->cper[c];
	const struct sim_cum *pre = moved ? n->mpre : c < 0 ? n->pre :
	    &n->cpre[(size_t)c * n->n_ph];
	struct sim_cum w;
	uint32_t k;

	if (r < 0)
		r = 0;
	if (r > n->period)
		r = n->period;
	k = phase_at(n, r);
	memset(out, 0, sizeof(*out));
	cum_axpy(out, cyc, per);
	cum_axpy(out, 1.0, &pre[k]);
	phase_power(n, &n->ph[k], c < 0 ? 0 : n->caps[c], moved, &w);
	cum_axpy(out, r - n->t0[k], &w);
}

void
sim_node_cum(const struct sim_node *n, double t, struct sim_cum *c)
{
	double j, cyc, per_seg;
	struct sim_cum a;
	int r, k;

	if (n->n_caps == 0 && t >= n->move_t) {
		/* to the move as before, then the moved layout */
		cum_at_cap(n, -1, 0, n->move_t, c);
		cum_at_cap(n, -1, 1, t, &a);
		cum_axpy(c, 1.0, &a);
		cum_at_cap(n, -1, 1, n->move_t, &a);
		cum_axpy(c, -1.0, &a);
		return;
	}
	if (n->n_caps == 0) {
		cum_at_cap(n, -1, 0, t, c);
		return;
	}
	/* whole sweeps, whole segments of this sweep, then the segment in
	 * force (each segment a whole number of load periods) */
	j = floor(t / n->dwell);
	cyc = floor(j / n->n_caps);
	r = (int)(j - cyc * n->n_caps);
	per_seg = n->dwell / n->period;
	memset(c, 0, sizeof(*c));
	for (k = 0; k < n->n_caps; k++)
		cum_axpy(c, per_seg * (cyc + (k < r ? 1 : 0)), &n->cper[k]);
	cum_at_cap(n, r, 0, t, &a);
	cum_axpy(c, 1.0, &a);
	cum_at_cap(n, r, 0, j * n->dwell, &a);
	cum_axpy(c, -1.0, &a);
}

void
sim_node_energy(const struct sim_node *n, double a, double b,
    struct sim_cum *c)
{
	struct sim_cum ca;

	sim_node_cum(n, b, c);
	sim_node_cum(n, a, &ca);
	cum_axpy(c, -1.0, &ca);
}

void
sim_node_power(const struct sim_node *n, double t, double w,
    struct sim_cum *p)
{
	struct sim_cum e;

	sim_node_energy(n, t - w, t, &e);
	memset(p, 0, sizeof(*p));
	cum_axpy(p, 1.0 / w, &e);
}

void
sim_node_inst(const struct sim_node *n, double t, struct sim_cum *p)
{
	double x = t + n->shift;
	double r = x - floor(x / n->period) * n->period;
	int c = n->n_caps > 0 ? (int)fmod(floor(t / n->dwell), n->n_caps) : -1;

	phase_power(n, &n->ph[phase_at(n, r)], c < 0 ? 0 : n->caps[c],
	    t >= n->move_t, p);
}

int
sim_cap_index(const struct sim_opts *o, double t)
{
	return o->n_caps > 0 ? (int)fmod(floor(t / o->cap_dwell), o->n_caps) :
	    -1;
}

double
sim_cap_at(const struct sim_opts *o, double t)
{
	int c = sim_cap_index(o, t);

	return c < 0 ? SIM_GPU_MAX_W : o->caps[c];
}

/* Hourly outdoor temperature: a daily swing plus weather noise. */
double
sim_outdoor_temp(uint64_t seed, double t)
{
	double h = floor(t / HOUR), hod = fmod(h, 24.0);

	return 16.0 + 7.0 * sin(2 * M_PI * (hod - 9.0) / 24.0) +
	    3.0 * (sim_unif(seed, (uint64_t)h, 99) - 0.5);
}

static double
cool_coef(double temp)
{
	return 0.10 + 0.012 * (temp > 10.0 ? temp - 10.0 : 0.0);
}

double
sim_outlet_share(const struct sim_node *n, int pdu)
{
	if (pdu == n->pdu_a)
		return n->share_a;
	if (pdu == n->pdu_b)
		return 1.0 - n->share_a;
	return 0;
}

double
sim_pdu_energy(const struct sim_fleet *f, int pdu, double a, double b)
{
	struct sim_cum c;
	double e = f->pdu_idle_w * (b - a);
	int i;

	for (i = 0; i < f->o.nodes; i++) {
		const struct sim_node *n = &f->node[i];

		if (n->pdu_a != pdu && n->pdu_b != pdu)
			continue;
		sim_node_energy(n, a, b, &c);
		e += c.wall * sim_outlet_share(n, pdu);
	}
	return e;
}

/* One window inside a single hour: everything is linear in IT energy. */
static void
fac_hour(const struct sim_fleet *f, double a, double b, struct sim_fac *s)
{
	double dt = b - a, wall = 0, it, loss, cool, other, nn = f->o.nodes;
	struct sim_cum c;
	int i;

	for (i = 0; i < f->o.nodes; i++) {
		sim_node_energy(&f->node[i], a, b, &c);
		wall += c.wall;
	}
	it = wall + dt * (f->o.pdus * f->pdu_idle_w +
	    f->o.racks * f->rack_net_w);
	loss = dt * (500.0 + 60.0 * nn) + 0.035 * it;
	cool = dt * (1000.0 + 80.0 * nn) +
	    cool_coef(sim_outdoor_temp(f->o.seed, a)) * (it + loss);
	other = dt * (500.0 + 30.0 * nn);
	s->wall += wall;
	s->it += it;
	s->ups_loss += loss;
	s->ups_in += it + loss;
	s->cooling += cool;
	s->other += other;
	s->total += it + loss + cool + other;
}

void
sim_fac_energy(const struct sim_fleet *f, double a, double b,
    struct sim_fac *out)
{
	double t = a, end;

	memset(out, 0, sizeof(*out));
	while (t < b) {
		end = (floor(t / HOUR) + 1) * HOUR;
		if (end > b)
			end = b;
		fac_hour(f, t, end, out);
		t = end;
	}
}
