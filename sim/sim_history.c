/*
 * sim_history.c - `wattpath-sim history`: a long synthetic history written
 * straight into a collector data directory, for report benchmarks.
 *
 * Writes <data-dir>/wattpath.yaml (the fleet's config, data_dir pointing
 * at <data-dir>) and then, for every step from --from (default: --to minus
 * --days) to --to (default: now), one poll per target with the readings
 * the served devices would have given at that instant, through the
 * collector's own ingest path (counters, journal, RRD store, state).  The
 * result is what `wattpath run` would have recorded polling the simulator
 * at a perfect --step, so `wattpath report` runs on it and `wattpath-sim
 * truth` (same fleet options) checks it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../collector/conf/conf.h"
#include "../collector/ingest.h"
#include "../collector/lib/sample.h"
#include "sim_cmd.h"
#include "sim_conf.h"
#include "sim_srv.h"

#define NS(t)	((wp_time)llround((t) * WP_SEC))

struct hist {
	struct sim_srv	 s;
	struct ingest	*in;
	double		 from, to, step;
	double		 meter_cum[SIM_MAX_METERS];	/* from t_meter, J */
	double		 t_prev;
	unsigned long	 polls;
	struct wp_sample *v;	/* one poll's samples */
	size_t		 n, cap;
};

static struct wp_sample *
add(struct hist *h, const char *series, int b, int q, int k, double value,
    double raw, const char *unit, double res)
{
	struct wp_sample *s;

	if (h->n >= h->cap)
		return NULL;
	s = &h->v[h->n];
	if (sample_init(s, series, b, q, k) == -1)
		return NULL;
	h->n++;
	s->value = value;
	s->raw_value = raw;
	sample_set_unit(s, unit);
	s->resolution = res;
	return s;
}

static int
poll(struct hist *h, const char *target, double t, int hold)
{
	struct ingest_poll p = { 0 };
	struct wp_err err;
	size_t i;

	/* each reading at the poll's time, as a driver stamps it (else the
	 * RRD store takes it as "now" and the whole history is skipped) */
	for (i = 0; i < h->n; i++)
		h->v[i].t_real = NS(t);
	p.target = target;
	p.hold_dips = hold;
	p.t_real = NS(t);
	p.t_mono = NS(t - h->from) + WP_SEC;
	p.duration = 20 * WP_MS;
	p.error = "";
	p.v = h->v;
	p.n = h->n;
	if (ingest_poll(h->in, &p, &err) == -1) {
		fprintf(stderr, "wattpath-sim: %s: %s\n", target, err.msg);
		return -1;
	}
	h->n = 0;
	h->polls++;
	return 0;
}

static void
bmc_samples(struct hist *h, int i, double t)
{
	const struct sim_node *nd = &h->s.f->node[i];
	struct sim_bmc_vals v;
	struct wp_sample *s;

	sim_srv_bmc_vals(&h->s, i, t, &v);
	if (nd->shape == SS_JOULES &&
	    (s = add(h, "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER,
	    v.joules, v.joules, "J", 1)) != NULL)
		sample_add_label(s, "source", "EnvironmentMetrics.EnergyJoules");
	if (nd->shape == SS_KWH &&
	    (s = add(h, "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER,
	    v.kwh * 3.6e6, v.kwh, "kWh", h->s.kwh_step * 3.6e6)) != NULL) {
		s->reset_time = NS(h->s.ns[i].t_bmc);
		sample_add_label(s, "source", "EnvironmentMetrics.EnergykWh");
	}
	if ((s = add(h, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE,
	    v.watts, v.watts, "W", 0.1)) != NULL)
		sample_add_label(s, "source", nd->shape == SS_LEGACY ?
		    "Power.PowerControl.PowerConsumedWatts" :
		    "EnvironmentMetrics.PowerWatts");
}

/* --shared: the Kubernetes pod mapping of GPU g at t, as serve's dcgm. */
static void
pod_labels(struct wp_sample *s, const struct sim_node *nd, int i, int g,
    double t)
{
	char pod[48];
	int m = sim_gpu_model_at(nd, g, t);

	if (!nd->shared || m < 0)
		return;
	snprintf(pod, sizeof(pod), "%s-%d", m ? "mistral" : "llama", i);
	sample_add_label(s, "namespace", m ? SIM_NS_B : SIM_NS_A);
	sample_add_label(s, "pod", pod);
	sample_add_label(s, "container", "vllm");
}

static void
gpu_samples(struct hist *h, int i, double t)
{
	struct sim_cum p;
	struct wp_sample *s;
	char series[32], uuid[64];
	double mj;
	int g;

	sim_node_power(&h->s.f->node[i], t, 1.0, &p);
	for (g = 0; g < SIM_GPUS; g++) {
		sim_gpu_uuid(&h->s, i, g, uuid, sizeof(uuid));
		mj = sim_srv_gpu_mj(&h->s, i, g, t);
		snprintf(series, sizeof(series), "gpu/%d/energy", g);
		if ((s = add(h, series, WP_B_GPU, WP_Q_ENERGY, WP_COUNTER,
		    mj / 1000.0, mj, "mJ", 0.001)) != NULL) {
			sample_add_label(s, "uuid", uuid);
			sample_add_label(s, "dcgm", "156");
			pod_labels(s, &h->s.f->node[i], i, g, t);
		}
		snprintf(series, sizeof(series), "gpu/%d/power", g);
		if ((s = add(h, series, WP_B_GPU, WP_Q_POWER, WP_GAUGE,
		    p.gpu[g], p.gpu[g], "W", 0)) != NULL)
			sample_add_label(s, "uuid", uuid);
		snprintf(series, sizeof(series), "gpu/%d/power_limit", g);
		if ((s = add(h, series, WP_B_NONE, WP_Q_OTHER, WP_GAUGE,
		    sim_cap_at(&h->s.f->o, t), sim_cap_at(&h->s.f->o, t), "W",
		    0)) != NULL)
			sample_add_label(s, "uuid", uuid);
	}
}

/* Engine e's token counters; with --shared, labelled with its model. */
static void
engine_samples(struct hist *h, int i, int e, double t)
{
	const char *model = !h->s.f->node[i].shared || e == 0 ? SIM_MODEL_A :
	    SIM_MODEL_B;
	struct wp_sample *s;
	double out, in;

	sim_srv_engine_tokens(&h->s, i, e, t, &out, &in);
	if ((s = add(h, "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    out, out, "tokens", 1)) != NULL) {
		sample_add_label(s, "direction", "output");
		if (h->s.f->o.shared > 0)
			sample_add_label(s, "model", model);
	}
	if ((s = add(h, "tokens/input", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    in, in, "tokens", 1)) != NULL) {
		sample_add_label(s, "direction", "input");
		if (h->s.f->o.shared > 0)
			sample_add_label(s, "model", model);
	}
}

static int
node_polls(struct hist *h, int i, double t)
{
	char name[32], target[48];

	sim_node_name(i, name, sizeof(name));
	bmc_samples(h, i, t);
	snprintf(target, sizeof(target), "%s/bmc", name);
	if (poll(h, target, t, 0) == -1)
		return -1;
	gpu_samples(h, i, t);
	snprintf(target, sizeof(target), "%s/gpu", name);
	if (poll(h, target, t, 0) == -1)
		return -1;
	engine_samples(h, i, 0, t);
	snprintf(target, sizeof(target), "%s/engine0", name);
	if (poll(h, target, t, 0) == -1)
		return -1;
	if (!h->s.f->node[i].shared)
		return 0;
	engine_samples(h, i, 1, t);
	snprintf(target, sizeof(target), "%s/engine1", name);
	return poll(h, target, t, 0);
}

/* One PDU: the inlet and every outlet that feeds a node (Wh counters). */
static int
pdu_poll(struct hist *h, int p, double t)
{
	const struct sim_fleet *f = h->s.f;
	char name[32], series[32];
	struct wp_sample *s;
	struct sim_cum c;
	double wh;
	int i;

	wh = floor(sim_srv_pdu_counter(&h->s, p, t) / 3600.0);
	add(h, "inlet/1/energy", WP_B_PDU, WP_Q_ENERGY, WP_COUNTER,
	    wh * 3600, wh, "Wh", 3600);
	add(h, "inlet/1/power", WP_B_PDU, WP_Q_POWER, WP_GAUGE,
	    round(sim_pdu_energy(f, p, t - 1, t)), 0, "W", 1);
	for (i = 0; i < f->o.nodes; i++) {
		const struct sim_node *nd = &f->node[i];

		if (nd->pdu_a != p && nd->pdu_b != p)
			continue;
		wh = floor(sim_srv_outlet_counter(&h->s, i, p, t) / 3600.0);
		snprintf(series, sizeof(series), "outlet/%d/energy", nd->outlet);
		if ((s = add(h, series, WP_B_OUTLET, WP_Q_ENERGY, WP_COUNTER,
		    wh * 3600, wh, "Wh", 3600)) != NULL)
			s->wrap = 4294967296.0 * 3600;
		sim_node_power(nd, t, 1.0, &c);
		snprintf(series, sizeof(series), "outlet/%d/power", nd->outlet);
		add(h, series, WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    sim_srv_outlet_dead(&h->s, i, p, t) ? 0 :
		    round(c.wall * sim_outlet_share(nd, p)), 0, "W", 1);
	}
	sim_pdu_name(f, p, name, sizeof(name));
	return poll(h, name, t, 0);
}

static int
meter_poll(struct hist *h, int m, double t)
{
	char name[32];
	float kwh;
	double w;

	h->meter_cum[m] += sim_meter_energy(h->s.f, m, h->t_prev, t);
	kwh = (float)(h->meter_cum[m] / 3.6e6);
	w = (float)sim_srv_meter_power(&h->s, m, t);
	add(h, "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
	    (double)kwh * 3.6e6, kwh, "kWh", 0);
	add(h, "power", WP_B_FACILITY, WP_Q_POWER, WP_GAUGE, w, w, "W", 0);
	sim_meter_name(m, name, sizeof(name));
	return poll(h, name, t, 1);
}

static int
step_all(struct hist *h, double t)
{
	const struct sim_fleet *f = h->s.f;
	int i;

	for (i = 0; i < f->o.nodes; i++)
		if (node_polls(h, i, t) == -1)
			return -1;
	for (i = 0; i < f->o.pdus; i++)
		if (pdu_poll(h, i, t) == -1)
			return -1;
	for (i = 0; i < f->o.meters; i++)
		if (meter_poll(h, i, t) == -1)
			return -1;
	h->t_prev = t;
	return 0;
}

/* Writes the config and opens the collector's ingest on it. */
static struct wp_conf *
setup(struct hist *h, const struct sim_args *a, char *cfg, size_t len)
{
	struct sim_conf_opts co = { 0 };
	struct conf_errs errs = { 0 };
	struct wp_conf *conf;
	char dir[PATH_MAX], interval[32], ret[32], err[512];
	struct wp_err werr;
	size_t i;

	if (mkdir(a->data_dir, 0750) == -1 && errno != EEXIST)
		return fprintf(stderr, "wattpath-sim: %s: %s\n", a->data_dir,
		    strerror(errno)), NULL;
	if (realpath(a->data_dir, dir) == NULL)
		return NULL;
	snprintf(cfg, len, "%s/wattpath.yaml", dir);
	snprintf(interval, sizeof(interval), "%.0fs", h->step);
	snprintf(ret, sizeof(ret), "%.0fd", ceil((h->to - h->from) / 86400) +
	    2);
	co.path = cfg;
	co.ca_path = "/dev/null";
	co.interval = interval;
	co.listen_port = sim_port(&h->s, SP_SNMP) + 1;
	co.with_pdus = h->s.f->o.pdus > 0;
	co.pdu_profile = a->pdu_profile;
	co.meter_map = a->meter_map;
	co.maps_dir = a->maps_dir;
	co.data_dir = dir;
	co.fsync = "none";
	co.retention = ret;
	if (sim_conf_write(&h->s, &co, err, sizeof(err)) == -1)
		return fprintf(stderr, "wattpath-sim: %s\n", err), NULL;
	if ((conf = conf_load(cfg, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		return NULL;
	}
	if ((h->in = ingest_new(conf, &werr)) == NULL) {
		fprintf(stderr, "wattpath-sim: %s\n", werr.msg);
		conf_free(conf);
		return NULL;
	}
	ingest_set_batch(h->in);	/* every value into the RRD files */
	return conf;
}

static int
run(struct hist *h, const struct sim_args *a)
{
	struct wp_conf *conf;
	char cfg[PATH_MAX + 32];
	double t, t0 = sim_now();
	int m, rc = 0;

	if ((conf = setup(h, a, cfg, sizeof(cfg))) == NULL)
		return 1;
	for (m = 0; m < h->s.f->o.meters; m++)
		h->meter_cum[m] = sim_srv_meter_counter(&h->s, m, h->from);
	h->t_prev = h->from;
	for (t = h->from; t <= h->to + 1e-9 && rc == 0; t += h->step)
		rc = step_all(h, t);
	ingest_free(h->in);
	conf_free(conf);
	if (rc == -1)
		return 1;
	printf("wattpath-sim: history %.0f s at %.0f s steps: %lu polls in "
	    "%.1f s; config %s\n", h->to - h->from, h->step, h->polls,
	    sim_now() - t0, cfg);
	return 0;
}

int
sim_cmd_history(const struct sim_args *a)
{
	struct sim_fleet *f;
	struct hist *h;
	char err[256];
	int rc;

	if (a->data_dir == NULL) {
		fprintf(stderr, "wattpath-sim: history needs --data-dir\n");
		return 2;
	}
	if ((f = sim_fleet_new(&a->fo, err, sizeof(err))) == NULL) {
		fprintf(stderr, "wattpath-sim: %s\n", err);
		return 2;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->v = calloc((h->cap = 3 * SIM_GPUS + 4 +
	    2 * (size_t)(f->o.nodes / f->o.racks + 1)),
	    sizeof(*h->v))) == NULL) {
		free(h);
		sim_fleet_free(f);
		return 1;
	}
	h->step = a->step;
	h->to = isnan(a->to) ? floor(sim_now() / h->step) * h->step : a->to;
	h->from = isnan(a->from) ? h->to - a->days * 86400.0 : a->from;
	if (h->to <= h->from) {
		fprintf(stderr, "wattpath-sim: empty history window\n");
		rc = 2;
	} else if (sim_srv_init(&h->s, f, h->from) == -1) {
		rc = 1;
	} else {
		h->s.addr_base = a->addr_base;
		h->s.port_base = a->port_base ? a->port_base : 18000;
		h->s.kwh_step = a->kwh_step;
		snprintf(h->s.user, sizeof(h->s.user), "monitor");
		snprintf(h->s.pass, sizeof(h->s.pass), "not-served");
		snprintf(h->s.community, sizeof(h->s.community), "not-served");
		rc = sim_srv_faults(&h->s, a) == -1 ? (fprintf(stderr,
		    "wattpath-sim: fault on a node out of range\n"), 2) :
		    run(h, a);
	}
	sim_srv_fini(&h->s);
	free(h->v);
	free(h);
	sim_fleet_free(f);
	return rc;
}
