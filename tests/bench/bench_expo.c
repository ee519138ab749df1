/*
 * bench_expo.c - time to render /metrics and the dashboard for a synthetic
 * fleet: 10,000 nodes (BMC, 8 GPUs, one engine each, two outlets), 250
 * PDUs of 80 outlets, 2 meters, 20 minutes of history.  The config is
 * written to a temporary directory (nodes_csv) and loaded by conf_load;
 * every target gets a view with plausible samples and counter states, and
 * the timings cover fleet_build plus rendering, as a request does, and
 * gzip of /metrics (what a scraper that accepts it gets), each the best of
 * REPS runs, in CPU time (wall time beside it: the machine may be shared).
 * BENCH_EXPO_DUMP=FILE writes the last /metrics there.
 * Usage: bench_expo [NODES [REPS]] (run from the repository root: meter
 * maps).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../collector/conf/conf.h"
#include "../../collector/expo/dashboard.h"
#include "../../collector/expo/expo_fleet.h"
#include "../../collector/expo/expo_gzip.h"
#include "../../collector/expo/expo_history.h"
#include "../../collector/expo/expo_metrics.h"
#include "../../collector/expo/expo_out.h"
#include "../../collector/ingest.h"
#include "../../collector/lib/sample.h"

#define GPUS	8
#define OUTLETS	80

struct synth {
	struct target_view *v;
	struct wp_sample **s;
	struct ingest_ctr **k;
	size_t	 n;
	double	 t;		/* advances the counters */
};

static void
add_sample(struct synth *sy, size_t i, size_t *n, const char *series,
    int b, int q, int kind, double v)
{
	struct wp_sample *s = &sy->s[i][*n];

	sample_init(s, series, b, q, kind);
	s->value = v;
	s->t_real = (wp_time)(1.7e9 + sy->t) * WP_SEC;
	sy->k[i][*n] = (struct ingest_ctr){ .valid = kind == WP_COUNTER,
	    .cum = v * 0.001, .delta = v * 1e-6, .span = 10 * WP_SEC,
	    .integrated = kind == WP_GAUGE && q == WP_Q_POWER };
	(*n)++;
}

static void
fill(struct synth *sy, const struct wp_conf *c, size_t i)
{
	const char *kind = c->targets[i].kind;
	char sr[64];
	size_t n = 0;
	int g;

	if (strcmp(kind, "bmc") == 0) {
		add_sample(sy, i, &n, "wall/energy", WP_B_WALL, WP_Q_ENERGY,
		    WP_COUNTER, 1e9 + sy->t * 6000);
		add_sample(sy, i, &n, "wall/power", WP_B_WALL, WP_Q_POWER,
		    WP_GAUGE, 5000 + (double)(i % 700));
	} else if (strcmp(kind, "gpu") == 0) {
		for (g = 0; g < GPUS; g++) {
			snprintf(sr, sizeof(sr), "gpu/%d/energy", g);
			add_sample(sy, i, &n, sr, WP_B_GPU, WP_Q_ENERGY,
			    WP_COUNTER, 1e8 + sy->t * 500);
			snprintf(sr, sizeof(sr), "gpu/%d/power", g);
			add_sample(sy, i, &n, sr, WP_B_GPU, WP_Q_POWER, WP_GAUGE,
			    400 + (double)(i % 300));
		}
	} else if (strcmp(kind, "engine") == 0) {
		add_sample(sy, i, &n, "tokens/output", WP_B_NONE, WP_Q_TOKENS,
		    WP_COUNTER, 1e7 + sy->t * 900);
		add_sample(sy, i, &n, "tokens/input", WP_B_NONE, WP_Q_TOKENS,
		    WP_COUNTER, 2e7 + sy->t * 1800);
	} else if (strcmp(kind, "pdu") == 0) {
		for (g = 1; g <= OUTLETS; g++) {
			snprintf(sr, sizeof(sr), "outlet/%d/energy", g);
			add_sample(sy, i, &n, sr, WP_B_OUTLET, WP_Q_ENERGY,
			    WP_COUNTER, 1e9 + sy->t * 3000);
			snprintf(sr, sizeof(sr), "outlet/%d/power", g);
			add_sample(sy, i, &n, sr, WP_B_OUTLET, WP_Q_POWER,
			    WP_GAUGE, 2600);
		}
	} else {
		add_sample(sy, i, &n, "energy", WP_B_FACILITY, WP_Q_ENERGY,
		    WP_COUNTER, 1e12 + sy->t * 6e7);
		add_sample(sy, i, &n, "power", WP_B_FACILITY, WP_Q_POWER,
		    WP_GAUGE, 6e7);
	}
	sy->v[i] = (struct target_view){ .name = c->targets[i].name,
	    .driver = c->target_drivers[i], .node = c->targets[i].node,
	    .up = i % 97 != 0, .reason = i % 97 ? "" : "transient",
	    .error = i % 97 ? "" : "timed out",
	    .last_poll_real = (wp_time)1.7e9 * WP_SEC,
	    .last_duration = 20 * WP_MS, .polls = 100, .failures = 1,
	    .last = sy->s[i], .n_last = n, .ctr = sy->k[i], .push_up = -1,
	    .last_error_reason = i % 97 ? "" : "transient",
	    .last_error_real = i % 97 ? 0 : (wp_time)1.7e9 * WP_SEC };
}

static int
each(const void *src, int (*fn)(const struct target_view *, void *),
    void *arg)
{
	const struct synth *sy = src;
	size_t i;

	for (i = 0; i < sy->n; i++)
		if (fn(&sy->v[i], arg) != 0)
			return 1;
	return 0;
}

static struct wp_conf *
write_conf(const char *dir, int nodes)
{
	char path[512], csv[512];
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	FILE *f;
	size_t i;
	int n;

	snprintf(csv, sizeof(csv), "%s/nodes.csv", dir);
	snprintf(path, sizeof(path), "%s/w.yaml", dir);
	if ((f = fopen(csv, "w")) == NULL)
		return NULL;
	fprintf(f, "name,class,rack,bmc_url,outlets,dcgm_exporter,engine_url,"
	    "engine_kind\n");
	for (n = 0; n < nodes; n++)
		fprintf(f, "gpu-%05d,%s,r%d,https://10.%d.%d.1,\"pdu-%d:%d "
		    "pdu-%d:%d\",http://10.%d.%d.2:9400/metrics,"
		    "http://10.%d.%d.3:8000/metrics,vllm\n", n,
		    n % 3 == 0 ? "hgx-h100-8" : n % 3 == 1 ? "hgx-b200-8" :
		    "mi300x-8", n / 40, n / 250, n % 250, n / 40 * 2,
		    n % 40 + 1, n / 40 * 2 + 1, n % 40 + 1, n / 250, n % 250,
		    n / 250, n % 250);
	fclose(f);
	if ((f = fopen(path, "w")) == NULL)
		return NULL;
	fprintf(f, "collector: {interval: 10s, data_dir: %s/data}\n"
	    "nodes_csv: nodes.csv\npdus:\n", dir);
	for (n = 0; n < (nodes + 39) / 40 * 2; n++)
		fprintf(f, "  - {name: pdu-%d, address: 10.200.%d.%d:161}\n", n,
		    n / 250, n % 250);
	fprintf(f, "meters:\n  - {name: m1, role: facility_total, modbus: "
	    "{tcp: 10.250.0.1:502, unit: 1}, map: eastron-sdm630}\n"
	    "  - {name: m2, role: it_total, modbus: {tcp: 10.250.0.1:502, "
	    "unit: 2}, map: eastron-sdm630}\nsite: {name: bench}\n");
	fclose(f);
	if ((c = conf_load(path, NULL, &errs)) == NULL)
		for (i = 0; i < errs.n && i < 5; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
	conf_errs_fini(&errs);
	return c;
}

/* CPU time of the process (s): the machine may be shared, so wall time
 * is printed beside it but the CPU time is what a render costs. */
static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One /metrics (or dashboard) render as a request does it: the snapshot
 * (t[0]), the text (t[1]), and for /metrics gzip of it (t[2]); wall in
 * w[], CPU in c[], ms.  The sizes in sz[0] (text), sz[1] (gzip). */
static void
render(const struct wp_conf *c, const struct synth *sy, struct history *h,
    bool metrics, double w[3], double cp[3], size_t sz[2])
{
	struct dash_query q = { NULL, NULL, 1, NULL };
	wp_time t0 = clock_mono(), t1, t2;
	double c0 = cpu_s(), c1, c2;
	struct fleet *f = fleet_build(c, each, sy, clock_real(),
	    metrics ? FLEET_PDU_READINGS : 0);	/* as the server asks */
	char *buf = NULL, *z;
	struct expo_out o;
	FILE *m = NULL;

	if (f == NULL)
		abort();
	t1 = clock_mono();
	c1 = cpu_s();
	if (metrics) {	/* as the server: into memory, sized as the last */
		if (eo_init_mem(&o, sz[0] + sz[0] / 8) == -1 ||
		    expo_metrics_out(&o, f, history_pue(h, f, PUE_WINDOW)) ==
		    -1 || (buf = eo_take(&o, &sz[0])) == NULL)
			abort();
	} else {
		if ((m = open_memstream(&buf, &sz[0])) == NULL)
			abort();
		dashboard_write(m, f, h, &q);
		fclose(m);
	}
	fleet_free(f);
	t2 = clock_mono();
	c2 = cpu_s();
	if (metrics && getenv("BENCH_EXPO_DUMP") != NULL &&
	    (m = fopen(getenv("BENCH_EXPO_DUMP"), "w")) != NULL) {
		fwrite(buf, 1, sz[0], m);
		fclose(m);
	}
	w[0] = (double)(t1 - t0) / WP_MS;
	w[1] = (double)(t2 - t1) / WP_MS;
	cp[0] = (c1 - c0) * 1e3;
	cp[1] = (c2 - c1) * 1e3;
	w[2] = cp[2] = 0;
	sz[1] = 0;
	if (metrics) {
		if ((z = expo_gzip(buf, sz[0], EXPO_GZIP_LEVEL, &sz[1])) == NULL)
			abort();
		w[2] = (double)(clock_mono() - t2) / WP_MS;
		cp[2] = (cpu_s() - c2) * 1e3;
		free(z);
	}
	free(buf);
}

static void
report(const char *what, const double w[3], const double cp[3],
    const size_t sz[2], int reps)
{
	printf("expo: %-9s %7.1f ms CPU (%6.1f snapshot + %6.1f text), "
	    "wall %7.1f ms, %9zu bytes (best of %d)\n", what, cp[0] + cp[1],
	    cp[0], cp[1], w[0] + w[1], sz[0], reps);
	if (sz[1] > 0)
		printf("expo: %-9s %7.1f ms CPU, wall %7.1f ms, %9zu bytes "
		    "(%.1fx, level %d)\n", "  gzip", cp[2], w[2], sz[1],
		    (double)sz[0] / (double)sz[1], EXPO_GZIP_LEVEL);
}

int
main(int argc, char **argv)
{
	int nodes = argc > 1 ? atoi(argv[1]) : 10000, r, w, k;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	char dir[] = "/tmp/wp-bench-expo.XXXXXX", cmd[600];
	struct synth sy = { 0 };
	struct history *h = history_new(360);
	struct wp_conf *c;
	size_t i, sz[2][2] = { { 0 } };
	double bw[2][3] = { { 0 } }, bc[2][3] = { { 0 } };

	if (mkdtemp(dir) == NULL || (c = write_conf(dir, nodes)) == NULL)
		return 1;
	sy.n = c->n_targets;
	sy.v = calloc(sy.n, sizeof(*sy.v));
	sy.s = calloc(sy.n, sizeof(*sy.s));
	sy.k = calloc(sy.n, sizeof(*sy.k));
	for (i = 0; i < sy.n; i++) {
		sy.s[i] = calloc(2 * OUTLETS, sizeof(**sy.s));
		sy.k[i] = calloc(2 * OUTLETS, sizeof(**sy.k));
	}
	for (r = 0; r < 120; r++) {	/* 20 min of history */
		struct fleet *f;

		sy.t = r * 10.0;
		for (i = 0; i < sy.n; i++)
			fill(&sy, c, i);
		f = fleet_build(c, each, &sy, (wp_time)(1.7e9 + sy.t) * WP_SEC,
		    0);		/* as the sampler, without remote write */
		history_add(h, f);
		fleet_free(f);
	}
	for (r = 0; r < reps; r++)
		for (w = 0; w < 2; w++) {
			double tw[3], tc[3];

			render(c, &sy, h, w == 0, tw, tc, sz[w]);
			for (k = 0; k < 3; k++) {
				if (r == 0 || tw[k] < bw[w][k])
					bw[w][k] = tw[k];
				if (r == 0 || tc[k] < bc[w][k])
					bc[w][k] = tc[k];
			}
		}
	printf("expo: %d nodes, %zu targets\n", nodes, sy.n);
	report("/metrics", bw[0], bc[0], sz[0], reps);
	report("dashboard", bw[1], bc[1], sz[1], reps);
	for (i = 0; i < sy.n; i++) {
		free(sy.s[i]);
		free(sy.k[i]);
	}
	free(sy.s);
	free(sy.k);
	free(sy.v);
	history_free(h);
	conf_free(c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
