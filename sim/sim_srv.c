/*
 * sim_srv.c - addresses, names and device counters over the model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_cmd.h"
#include "sim_srv.h"

#define DAY	86400.0

static const char *const meter_names[] = { "incomer-1", "it-ups-1",
    "cooling-1" };
static const char *const meter_roles[] = { "facility_total", "it_total",
    "cooling" };

uint32_t
sim_addr(const struct sim_srv *s, int kind, int idx)
{
	return s->addr_base + ((uint32_t)kind << 16) +
	    ((uint32_t)(idx / 254) << 8) + (uint32_t)(idx % 254) + 1;
}

int
sim_addr_index(const struct sim_srv *s, int kind, uint32_t a)
{
	uint32_t rel = a - s->addr_base - ((uint32_t)kind << 16);
	uint32_t hi = (rel >> 8) & 0xff, lo = rel & 0xff;

	if ((rel >> 16) != 0 || lo == 0 || lo == 255)
		return -1;
	return (int)(hi * 254 + lo - 1);
}

void
sim_addr_str(uint32_t a, char *buf, unsigned long len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
	    (a >> 8) & 255, a & 255);
}

int
sim_port(const struct sim_srv *s, int which)
{
	return s->port_base + which;
}

double
sim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void
sim_node_name(int i, char *buf, unsigned long len)
{
	snprintf(buf, len, "gpu-%03d", i + 1);
}

void
sim_pdu_name(const struct sim_fleet *f, int p, char *buf, unsigned long len)
{
	int ppr = f->o.pdus / f->o.racks;

	snprintf(buf, len, "pdu-r%d-%c", p / ppr + 1, 'a' + p % ppr);
}

void
sim_meter_name(int m, char *buf, unsigned long len)
{
	if (m >= 0 && m < 3)
		snprintf(buf, len, "%s", meter_names[m]);
	else
		snprintf(buf, len, "submeter-%02d", m - 2);
}

/* Meter m's part of the facility's energy e (sim_model.h SIM_MAX_METERS). */
static double
meter_part(const struct sim_fleet *f, int m, const struct sim_fac *e)
{
	if (m < 3)
		return m == 0 ? e->total : m == 1 ? e->it : e->cooling;
	return e->it / (f->o.meters - 3);
}

const char *
sim_meter_role(int m)
{
	return m >= 0 && m < 3 ? meter_roles[m] : "other";
}

double
sim_meter_energy(const struct sim_fleet *f, int m, double a, double b)
{
	struct sim_fac e;

	sim_fac_energy(f, a, b, &e);
	return meter_part(f, m, &e);
}

int
sim_srv_init(struct sim_srv *s, const struct sim_fleet *f, double start)
{
	const uint64_t seed = f->o.seed;
	double t0 = floor(start);
	int i, p;

	s->f = f;
	s->start = start;
	s->drift_bmc = s->dead_outlet = s->dead_pdu = -1;
	s->drift_gain = SIM_DRIFT;
	s->drift_ramp = SIM_DRIFT_RAMP;
	s->fault_at = start;
	s->ns = calloc(f->o.nodes, sizeof(*s->ns));
	s->pdu_base = calloc(f->o.pdus + 1, sizeof(*s->pdu_base));
	if (s->ns == NULL || s->pdu_base == NULL)
		return -1;
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < f->o.nodes; i++) {
		struct sim_nstate *n = &s->ns[i];
		const struct sim_node *nd = &f->node[i];

		n->t_bmc = t0 - floor((1 + 29 * sim_unif(seed, i, 31)) * DAY);
		n->t_gpu = t0 - floor((1 + 71 * sim_unif(seed, i, 32)) * 3600);
		n->t_eng = t0 - floor((60 + 7000 * sim_unif(seed, i, 33)));
		n->t_pdu = t0 - floor((90 + 200 * sim_unif(seed, 0, 34)) * DAY);
		sim_node_cum(nd, n->t_bmc, &n->at_bmc);
		sim_node_cum(nd, n->t_gpu, &n->at_gpu);
		sim_node_cum(nd, n->t_eng, &n->at_eng);
		sim_node_cum(nd, n->t_pdu, &n->at_pdu);
	}
	for (p = 0; p < f->o.pdus; p++)
		s->pdu_base[p] = sim_pdu_energy(f, p, f->o.nodes > 0 ?
		    s->ns[0].t_pdu : t0, start);
	s->t_meter = t0 - floor((2 + 3 * sim_unif(seed, 0, 35)) * DAY);
	sim_fac_energy(f, s->t_meter, start, &s->meter_base);
	return 0;
}

void
sim_srv_fini(struct sim_srv *s)
{
	free(s->ns);
	free(s->pdu_base);
	s->ns = NULL;
	s->pdu_base = NULL;
}

double
sim_srv_meter_counter(const struct sim_srv *s, int m, double t)
{
	return meter_part(s->f, m, &s->meter_base) +
	    sim_meter_energy(s->f, m, s->start, t);
}

double
sim_srv_meter_power(const struct sim_srv *s, int m, double t)
{
	return sim_meter_energy(s->f, m, t - 1.0, t);
}

int
sim_srv_outlet_dead(const struct sim_srv *s, int n, int p, double t)
{
	return n == s->dead_outlet && p == s->f->node[n].pdu_a &&
	    t > s->fault_at;
}

double
sim_srv_outlet_counter(const struct sim_srv *s, int n, int p, double t)
{
	struct sim_cum c;

	if (sim_srv_outlet_dead(s, n, p, t))
		t = s->fault_at;
	sim_node_cum(&s->f->node[n], t, &c);
	return (c.wall - s->ns[n].at_pdu.wall) *
	    sim_outlet_share(&s->f->node[n], p);
}

double
sim_srv_pdu_counter(const struct sim_srv *s, int p, double t)
{
	return s->pdu_base[p] + sim_pdu_energy(s->f, p, s->start, t);
}

/* The drifting BMC's gain at t (0 before the fault). */
static double
drift_gain(const struct sim_srv *s, double t)
{
	double x = s->drift_ramp > 0 ? (t - s->fault_at) / s->drift_ramp :
	    t > s->fault_at ? 1 : 0;

	return s->drift_gain * (x <= 0 ? 0 : x >= 1 ? 1 : x);
}

/* The extra energy the drifting BMC has counted by t: its gain over 10 s
 * steps (at each step's middle) times the energy of the step. */
static double
drift_extra(const struct sim_srv *s, const struct sim_node *nd, double t)
{
	double a = s->fault_at, end = fmin(t, a + s->drift_ramp), x = 0, b;
	struct sim_cum c;

	for (; a < end; a = b) {
		b = fmin(a + 10, end);
		sim_node_energy(nd, a, b, &c);
		x += drift_gain(s, (a + b) / 2) * c.wall;
	}
	if (t > end) {
		sim_node_energy(nd, end, t, &c);
		x += s->drift_gain * c.wall;
	}
	return x;
}

void
sim_srv_bmc_vals(const struct sim_srv *s, int i, double t,
    struct sim_bmc_vals *v)
{
	const struct sim_node *nd = &s->f->node[i];
	struct sim_cum c;

	double k = i == s->drift_bmc ? drift_gain(s, t) : 0;
	double x = i == s->drift_bmc ? drift_extra(s, nd, t) : 0;

	sim_node_power(nd, t, 1.0, &c);
	v->watts = round(c.wall * (1 + k) * 10) / 10;
	sim_node_cum(nd, t, &c);
	v->joules = floor(c.wall - s->ns[i].at_bmc.wall + x);
	v->kwh = floor(v->joules / 3.6e6 / s->kwh_step) * s->kwh_step;
	sim_node_power(nd, t, 60.0, &c);
	v->avg60 = round(c.wall * (1 + k) * 10) / 10;
}

double
sim_srv_gpu_mj(const struct sim_srv *s, int i, int g, double t)
{
	struct sim_cum c;

	sim_node_cum(&s->f->node[i], t, &c);
	return floor((c.gpu[g] - s->ns[i].at_gpu.gpu[g]) * 1000.0);
}

void
sim_srv_tokens(const struct sim_srv *s, int i, double t, double *out,
    double *in)
{
	struct sim_cum c;

	sim_node_cum(&s->f->node[i], t, &c);
	*out = floor(c.out_tok - s->ns[i].at_eng.out_tok);
	*in = floor(c.in_tok - s->ns[i].at_eng.in_tok);
}

void
sim_srv_engine_tokens(const struct sim_srv *s, int i, int e, double t,
    double *out, double *in)
{
	double o, n;

	sim_srv_tokens(s, i, t, &o, &n);
	if (!s->f->node[i].shared) {
		*out = e == 0 ? o : 0;
		*in = e == 0 ? n : 0;
		return;
	}
	*out = floor(SIM_SHARE_A * o);
	*in = floor(SIM_SHARE_A * n);
	if (e != 0) {
		*out = o - *out;
		*in = n - *in;
	}
}

void
sim_gpu_uuid(const struct sim_srv *s, int i, int g, char *buf,
    unsigned long len)
{
	uint64_t seed = s->f->o.seed;

	snprintf(buf, len, "GPU-%08x-%04x-%04x-%04x-%012llx",
	    (unsigned)sim_hash(seed, i, 40 + g),
	    (unsigned)(sim_hash(seed, i, 50 + g) & 0xffff), g, 0x4000 | g,
	    (unsigned long long)(sim_hash(seed, i, 60 + g) &
	    0xffffffffffffULL));
}

int
sim_srv_faults(struct sim_srv *s, const struct sim_args *a)
{
	if (a->drift_bmc >= s->f->o.nodes || a->dead_outlet >= s->f->o.nodes ||
	    a->dead_pdu >= s->f->o.pdus ||
	    (a->dead_outlet >= 0 && s->f->node[a->dead_outlet].pdu_a < 0))
		return -1;
	s->drift_bmc = a->drift_bmc;
	s->dead_outlet = a->dead_outlet;
	s->dead_pdu = a->dead_pdu;
	s->drift_gain = a->drift_gain;
	s->drift_ramp = a->drift_ramp;
	if (!isnan(a->fault_at))
		s->fault_at = a->fault_at;
	return 0;
}
