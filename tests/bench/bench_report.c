/*
 * bench_report.c - time `wattpath report` over a large journal.
 *
 * Writes a synthetic journal with journal_append into a temporary
 * directory: NODES nodes (a BMC with wall energy and power, 4 GPUs with
 * energy and enforced limits, one engine with output and input tokens)
 * plus a facility and an IT meter, polled every 10 s for DAYS days (the
 * writer also writes each closed hour's summary, jsum.h), then times
 * report_json twice over the same window: with summaries (edge segments
 * read, interior hours from their summaries) and without (every record
 * read: WATTPATH_NO_SUMMARIES), and prints seconds and records/s of
 * both.  The target is 1,000 nodes x 7 days; when that would not fit in
 * MAX_MB of disk (measured from the bytes of one simulated hour), the
 * days are cut to fit and the 7-day times are extrapolated from the
 * measured costs: the full scan linearly in records, the summary path as
 * the measured edge segments plus 168 - edges summaries at the measured
 * cost per summary.
 *
 * Usage: bench_report [NODES [DAYS [MAX_MB]]]   (defaults 1000 7 4096)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../collector/conf/conf.h"
#include "../../collector/store/journal.h"
#include "../../collector/report/report_api.h"
#include "../../collector/lib/sample.h"
#include "../../model/counter.h"

#define GPUS	4
#define STEP	(10 * WP_SEC)
#define T0	((wp_time)1795939200 * WP_SEC)	/* 2026-11-29T00:00:00Z */

struct gen {
	struct journal *j;
	int	 nodes;
	double	*wall, *gpu, *tok, fac, it;
	size_t	 records;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
val(struct journal_value *v, const char *series, int b, int q, int kind,
    double x, int first)
{
	memset(v, 0, sizeof(*v));
	sample_init(&v->s, series, b, q, kind);
	v->s.value = x;
	v->cum = x;
	v->s.resolution = kind == WP_COUNTER ? 0.001 : 0;
	v->ctr_flags = first ? CTR_DISCONT : 0;
}

static int
put(struct gen *g, wp_time t, const char *target, struct journal_value *v,
    size_t n)
{
	struct journal_record r = { .t_real = t, .t_mono = t, .target = target,
	    .error = "", .n = n, .v = v };
	struct wp_err err = { 0 };

	if (journal_append(g->j, &r, &err) != 0) {
		fprintf(stderr, "journal_append: %s\n", err.msg);
		return -1;
	}
	g->records++;
	return 0;
}

/* One poll of every target at t. */
static int
poll_all(struct gen *g, wp_time t, int first)
{
	struct journal_value v[2 * GPUS];
	char tg[64], nm[32];
	int n, i;

	for (n = 0; n < g->nodes; n++) {
		double load = 0.3 + 0.6 * ((n * 7 + (int)(t / STEP)) % 10) / 10.0;

		val(&v[0], "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER,
		    g->wall[n], first);
		sample_add_label(&v[0].s, "vendor", "Contoso");
		sample_add_label(&v[0].s, "model", "3500RX");
		val(&v[1], "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE,
		    1500 + 2400 * load, 0);
		snprintf(tg, sizeof(tg), "n%04d/bmc", n);
		if (put(g, t, tg, v, 2) == -1)
			return -1;
		for (i = 0; i < GPUS; i++) {
			snprintf(nm, sizeof(nm), "gpu/%d/energy", i);
			val(&v[2 * i], nm, WP_B_GPU, WP_Q_ENERGY, WP_COUNTER,
			    g->gpu[n * GPUS + i], first);
			sample_add_label(&v[2 * i].s, "model", "NVIDIA H100");
			sample_add_label(&v[2 * i].s, "driver", "580.65.06");
			snprintf(nm, sizeof(nm), "gpu/%d/power_limit", i);
			val(&v[2 * i + 1], nm, WP_B_NONE, WP_Q_OTHER, WP_GAUGE,
			    700, 0);
			g->gpu[n * GPUS + i] += 700 * load * 10;
		}
		snprintf(tg, sizeof(tg), "n%04d/gpu", n);
		if (put(g, t + WP_MS, tg, v, 2 * GPUS) == -1)
			return -1;
		val(&v[0], "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
		    g->tok[n], first);
		val(&v[1], "tokens/input", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
		    g->tok[n] * 3, first);
		snprintf(tg, sizeof(tg), "n%04d/engine0", n);
		if (put(g, t + 2 * WP_MS, tg, v, 2) == -1)
			return -1;
		g->wall[n] += (1500 + 2400 * load) * 10;
		g->tok[n] += 10000 * load * 10;
	}
	val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER, g->fac,
	    first);
	if (put(g, t, "incomer", v, 1) == -1)
		return -1;
	val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER, g->it,
	    first);
	sample_add_label(&v[0].s, "category", "ups_output");
	if (put(g, t, "ups", v, 1) == -1)
		return -1;
	g->fac += 1.3 * 3000.0 * g->nodes * 10;
	g->it += 3000.0 * g->nodes * 10;
	return 0;
}

/* disclosure.journal.<k> of a report */
static long long
jint2(json_object *o, const char *k)
{
	json_object *d, *j, *v;

	if (json_object_object_get_ex(o, "disclosure", &d) &&
	    json_object_object_get_ex(d, "journal", &j) &&
	    json_object_object_get_ex(j, k, &v))
		return json_object_get_int64(v);
	return -1;
}

static long long
dir_bytes(const char *dir)
{
	char p[4096];
	struct dirent *e;
	struct stat st;
	long long sum = 0;
	DIR *d = opendir(dir);

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && stat(p, &st) == 0 &&
		    S_ISREG(st.st_mode))
			sum += st.st_size;
	}
	if (d != NULL)
		closedir(d);
	return sum;
}

static int
write_conf(const char *dir, int nodes, char *path, size_t len)
{
	FILE *f;
	int n;

	snprintf(path, len, "%s/wattpath.yaml", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "collector: {interval: 10s, data_dir: %s}\n"
	    "nodes:\n", dir);
	for (n = 0; n < nodes; n++)
		fprintf(f, "  - name: n%04d\n    class: h100-4\n"
		    "    bmc: {url: https://10.%d.%d.1, auth: none}\n"
		    "    gpu: {dcgm_exporter: http://10.%d.%d.2:9400/metrics}\n"
		    "    engines: [{url: http://10.%d.%d.2:8000/metrics, "
		    "kind: vllm}]\n", n, n / 250, n % 250, n / 250, n % 250,
		    n / 250, n % 250);
	fprintf(f, "meters:\n"
	    "  - {name: incomer, role: facility_total, modbus: {tcp: "
	    "10.9.0.1:502, unit: 1}, map: eastron-sdm630}\n"
	    "  - {name: ups, role: it_total, modbus: {tcp: 10.9.0.1:502, "
	    "unit: 2}, map: eastron-sdm630}\n"
	    "site: {name: bench, zone: FR}\n");
	return fclose(f);
}

int
main(int argc, char **argv)
{
	int nodes = argc > 1 ? atoi(argv[1]) : 1000;
	double days = argc > 2 ? atof(argv[2]) : 7;
	long long max_mb = argc > 3 ? atoll(argv[3]) : 4096;
	char tmpl[] = "/tmp/wp-bench-report.XXXXXX", jdir[4200], cfg[4200];
	struct journal_opts jo = { .fsync = JOURNAL_FSYNC_NONE,
	    .retention = 400 * 86400 * WP_SEC };
	struct gen g = { .nodes = nodes };
	struct conf_errs errs = { 0 };
	struct wp_err err = { 0 };
	struct wp_conf *c;
	json_object *o;
	double t_w, t_r, t_s, full_days = days, bph;
	long long used, seg;
	long long polls, p, bytes;
	char *dir = mkdtemp(tmpl);

	if (dir == NULL || nodes < 1 || days <= 0)
		return fprintf(stderr, "usage: bench_report [NODES [DAYS "
		    "[MAX_MB]]]\n"), 2;
	snprintf(jdir, sizeof(jdir), "%s/journal", dir);
	g.wall = calloc((size_t)nodes, sizeof(double));
	g.gpu = calloc((size_t)nodes * GPUS, sizeof(double));
	g.tok = calloc((size_t)nodes, sizeof(double));
	if ((g.j = journal_open(jdir, &jo, &err)) == NULL || !g.wall ||
	    !g.gpu || !g.tok || write_conf(dir, nodes, cfg, sizeof(cfg)) != 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return 1;
	}
	/* one hour first: bytes per hour decide how many days fit */
	t_w = now_s();
	for (p = 0; p < 360; p++)
		if (poll_all(&g, T0 + p * STEP, p == 0) == -1)
			return 1;
	journal_flush(g.j, NULL);
	bph = (double)dir_bytes(jdir);
	if (bph * 24 * days > (double)max_mb * 1048576) {
		days = (double)max_mb * 1048576 / (bph * 24);
		if (days < 2.0 / 24)
			days = 2.0 / 24;
	}
	polls = (long long)(days * 8640);
	printf("journal: %.1f MB per hour for %d nodes; writing %.2f days "
	    "(target %.0f, cap %lld MB)\n", bph / 1048576, nodes, days,
	    full_days, max_mb);
	fflush(stdout);
	for (; p < polls; p++)
		if (poll_all(&g, T0 + p * STEP, 0) == -1)
			return 1;
	journal_close(g.j);
	t_w = now_s() - t_w;
	bytes = dir_bytes(jdir);
	printf("wrote %zu records (%.0f MB) in %.1f s\n", g.records,
	    (double)bytes / 1048576, t_w);
	if ((c = conf_load(cfg, NULL, &errs)) == NULL) {
		fprintf(stderr, "conf: %s\n", errs.n ? errs.msg[0] : "?");
		return 1;
	}
	t_s = now_s();
	o = report_json(c, T0 + 30 * WP_SEC, T0 + (polls - 3) * STEP, &err);
	t_s = now_s() - t_s;
	if (o == NULL) {
		fprintf(stderr, "report: %s\n", err.msg);
		return 1;
	}
	used = jint2(o, "summaries_used");
	seg = jint2(o, "segments_read");
	printf("report with summaries over %d nodes x %.2f days: %.2f s "
	    "(%lld segments read, %lld summaries used), %.0f records/s "
	    "equivalent\n", nodes, days, t_s, seg, used,
	    (double)g.records / t_s);
	fflush(stdout);
	json_object_put(o);
	setenv("WATTPATH_NO_SUMMARIES", "1", 1);
	t_r = now_s();
	o = report_json(c, T0 + 30 * WP_SEC, T0 + (polls - 3) * STEP, &err);
	t_r = now_s() - t_r;
	unsetenv("WATTPATH_NO_SUMMARIES");
	if (o == NULL) {
		fprintf(stderr, "report: %s\n", err.msg);
		return 1;
	}
	{
		json_object *b, *w, *e;

		if (json_object_object_get_ex(o, "boundaries", &b) &&
		    json_object_object_get_ex(b, "wall", &w) &&
		    json_object_object_get_ex(w, "j_per_output_token", &e))
			printf("wall J/output token %.4f\n",
			    json_object_get_double(e));
	}
	printf("report reading every record over %d nodes x %.2f days at "
	    "10 s: %.2f s, %.0f records/s, %.0f MB/s\n", nodes, days, t_r,
	    (double)g.records / t_r, (double)bytes / 1048576 / t_r);
	if (days < full_days && used > 0) {
		double per_seg = t_r / (double)(seg + used);
		double per_sum = (t_s - (double)seg * per_seg) / (double)used;
		double hours = full_days * 24;

		if (per_sum < 0)
			per_sum = 0;
		printf("extrapolated to %d nodes x %.0f days: every record "
		    "%.1f s; with summaries %.1f s (%lld edge segments at %.2f "
		    "s + %.0f summaries at %.3f s)\n", nodes, full_days,
		    t_r * full_days / days, (double)seg * per_seg +
		    (hours - (double)seg) * per_sum, seg, per_seg,
		    hours - (double)seg, per_sum);
	}
	json_object_put(o);
	conf_free(c);
	free(g.wall);
	free(g.gpu);
	free(g.tok);
	if (getenv("KEEP") == NULL) {
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return 0;
}
