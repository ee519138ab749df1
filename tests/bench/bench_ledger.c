/*
 * bench_ledger.c - time `wattpath report` over a month and a year read
 * from the long-term ledger (docs/ledger.md).
 *
 * Synthesises the ledger directly (raw journals of that size do not fit
 * the machine): NODES nodes of bench_report.c's shape (a BMC with wall
 * energy and power, 4 GPUs with energy and enforced limits, an engine
 * with output and input tokens) plus a facility and an IT meter; per hour
 * one block written by ledger_append, each series' span at the real slot
 * shape (360 readings 10 s apart: first and last reading, count, gap,
 * energy, range); ledger_append writes a day block once a day has passed
 * (docs/ledger.md "Day blocks").  Then times report_json over the first 31
 * days and, when DAYS >= 365, over the first 365, each from the day blocks
 * and again from the hourly blocks alone (WATTPATH_NO_LEDGER_DAYS), and
 * prints seconds, blocks used and the ledger's bytes per series per year.
 *
 * Usage: bench_ledger [NODES [DAYS]]   (defaults 1000 31; BENCH_KEEP=1
 * keeps the ledger and its config, for profiling `wattpath report`)
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../collector/conf/conf.h"
#include "../../collector/store/jsum.h"
#include "../../collector/store/ledger.h"
#include "../../collector/report/report_api.h"
#include "../../collector/lib/sample.h"
#include "../../model/counter.h"

#define GPUS	4
#define HOUR	(3600 * WP_SEC)
#define T0	((wp_time)1767225600 * WP_SEC)	/* 2026-01-01T00:00:00Z */
#define SERIES	(2 + 2 * GPUS + 2)

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
val(struct journal_value *v, const char *series, int b, int q, int kind,
    double x)
{
	memset(v, 0, sizeof(*v));
	sample_init(&v->s, series, b, q, kind);
	v->s.value = x;
	v->cum = x;
	v->s.resolution = kind == WP_COUNTER ? 0.001 : 0;
}

static void
add(struct jsum *js, wp_time t, const char *target, struct journal_value *v,
    size_t n)
{
	struct journal_record r = { .t_real = t, .t_mono = t, .target = target,
	    .error = "", .n = n, .v = v };

	jsum_add(js, &r);
}

/* Node n's readings at hour start h + dt (dt 0 or 3590 s). */
static void
node(struct jsum *js, int n, wp_time h, wp_time dt)
{
	double hours = (double)(h - T0) / HOUR + (double)dt / HOUR;
	double load = 0.3 + 0.6 * ((n * 7) % 10) / 10.0, w = 1500 + 2400 * load;
	struct journal_value v[2 * GPUS];
	char tg[64], nm[32];
	int i;

	val(&v[0], "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER,
	    w * 3600 * hours);
	sample_add_label(&v[0].s, "vendor", "Contoso");
	val(&v[1], "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE, w);
	snprintf(tg, sizeof(tg), "n%04d/bmc", n);
	add(js, h + dt, tg, v, 2);
	for (i = 0; i < GPUS; i++) {
		snprintf(nm, sizeof(nm), "gpu/%d/energy", i);
		val(&v[2 * i], nm, WP_B_GPU, WP_Q_ENERGY, WP_COUNTER,
		    700 * load * 3600 * hours);
		snprintf(nm, sizeof(nm), "gpu/%d/power_limit", i);
		val(&v[2 * i + 1], nm, WP_B_NONE, WP_Q_OTHER, WP_GAUGE, 700);
	}
	snprintf(tg, sizeof(tg), "n%04d/gpu", n);
	add(js, h + dt + WP_MS, tg, v, 2 * GPUS);
	val(&v[0], "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    1e4 * load * 3600 * hours);
	val(&v[1], "tokens/input", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    3e4 * load * 3600 * hours);
	snprintf(tg, sizeof(tg), "n%04d/engine0", n);
	add(js, h + dt + 2 * WP_MS, tg, v, 2);
}

static void
meters(struct jsum *js, int nodes, wp_time h, wp_time dt)
{
	double hours = (double)(h - T0) / HOUR + (double)dt / HOUR;
	struct journal_value v;

	val(&v, "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
	    1.3 * 3000.0 * nodes * 3600 * hours);
	add(js, h + dt, "incomer", &v, 1);
	val(&v, "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
	    3000.0 * nodes * 3600 * hours);
	sample_add_label(&v.s, "category", "ups_output");
	add(js, h + dt, "ups", &v, 1);
}

/* The segment name of hour h: YYYYMMDDTHH.wpj (docs/journal.md). */
static void
jseg_name_bench(wp_time h, char out[32])
{
	time_t sec = (time_t)(h / WP_SEC);
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(out, 32, "%Y%m%dT%H.wpj", &tm);
}

/* Hour h's block: every series' span as 360 readings 10 s apart. */
static int
hour_block(struct ledger *l, int nodes, wp_time h, uint8_t chain[32])
{
	struct wp_err err = { 0 };
	struct jsum *js = jsum_new(h, HOUR, HOUR, chain);
	uint8_t fin[32];
	char name[32];
	size_t i, k;
	int n, rc;

	if (js == NULL)
		return -1;
	for (n = 0; n < nodes; n++) {
		node(js, n, h, 0);
		node(js, n, h, 3590 * WP_SEC);
	}
	meters(js, nodes, h, 0);
	meters(js, nodes, h, 3590 * WP_SEC);
	for (i = 0; i < js->ns; i++)
		for (k = 0; k < js->s[i].n; k++) {
			js->s[i].span[k].n = 360;
			js->s[i].span[k].max_gap = 10 * WP_SEC;
		}
	memcpy(fin, chain, 32);
	fin[h / HOUR % 32] ^= 0x5a;
	jseg_name_bench(h, name);
	rc = ledger_append(l, name, h, 360 * (3 * (uint64_t)nodes + 2), chain,
	    fin, js, h + HOUR, &err);
	if (rc != 0)
		fprintf(stderr, "ledger_append: %s\n", err.msg);
	memcpy(chain, fin, 32);
	jsum_free(js);
	return rc;
}

static void
rm_dir(const char *dir)
{
	char p[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(p);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

/* Bytes of the files in dir, those ending in sfx (NULL: all). */
static long long
dir_bytes(const char *dir, const char *sfx)
{
	char p[4096];
	struct dirent *e;
	struct stat st;
	long long sum = 0;
	DIR *d = opendir(dir);
	size_t n;

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		n = strlen(e->d_name);
		if (sfx != NULL && (n < strlen(sfx) ||
		    strcmp(e->d_name + n - strlen(sfx), sfx) != 0))
			continue;
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
	char maps[PATH_MAX];
	FILE *f;
	int n;

	/* the meter maps of the checkout (run from its root) */
	if (realpath("etc", maps) == NULL)
		return -1;
	snprintf(path, len, "%s/wattpath.yaml", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "collector: {interval: 10s, data_dir: %s, maps_dir: %s}\n"
	    "nodes:\n", dir, maps);
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

/* disclosure.journal.<k> of a report */
static long long
jdisc(json_object *o, const char *k)
{
	json_object *d, *j, *v;

	if (json_object_object_get_ex(o, "disclosure", &d) &&
	    json_object_object_get_ex(d, "journal", &j) &&
	    json_object_object_get_ex(j, k, &v))
		return json_object_get_int64(v);
	return -1;
}

static double
wall_j(json_object *o)
{
	json_object *b, *w, *e;

	if (json_object_object_get_ex(o, "boundaries", &b) &&
	    json_object_object_get_ex(b, "wall", &w) &&
	    json_object_object_get_ex(w, "energy_j", &e))
		return json_object_get_double(e);
	return -1;
}

/* The fleet's wall kWh over days (the synthetic loads are constant). */
static double
expect(int nodes, int days)
{
	double kwh = 0;
	int n;

	for (n = 0; n < nodes; n++)
		kwh += (1500 + 2400 * (0.3 + 0.6 * ((n * 7) % 10) / 10.0)) *
		    24 * days / 1000;
	return kwh;
}

static int
timed(const struct wp_conf *c, int nodes, int days)
{
	struct wp_err err = { 0 };
	json_object *o;
	double t = now_s();

	/* to the last reading: the end needs a reading at or after it */
	o = report_json(c, T0, T0 + (wp_time)days * 24 * HOUR - 10 * WP_SEC,
	    &err);
	t = now_s() - t;
	if (o == NULL) {
		fprintf(stderr, "report: %s\n", err.msg);
		return -1;
	}
	printf("report over %d nodes x %d days from the ledger%s: %.2f s "
	    "(%lld day blocks, %lld hourly blocks, %lld segments read; wall "
	    "%.9g kWh, expected %.9g)\n", nodes, days,
	    getenv("WATTPATH_NO_LEDGER_DAYS") ? " (hourly blocks only)" : "",
	    t, jdisc(o, "ledger_days_used"), jdisc(o, "ledger_blocks_used"),
	    jdisc(o, "segments_read"), wall_j(o) / 3.6e6, expect(nodes,
	    days));
	json_object_put(o);
	return 0;
}

/* The report from the day blocks, then from the hourly blocks alone (the
 * same figures), side by side in one run. */
static int
timed_both(const struct wp_conf *c, int nodes, int days)
{
	int rc;

	if (timed(c, nodes, days) != 0 ||
	    setenv("WATTPATH_NO_LEDGER_DAYS", "1", 1) != 0)
		return -1;
	rc = timed(c, nodes, days);
	unsetenv("WATTPATH_NO_LEDGER_DAYS");
	return rc;
}

int
main(int argc, char **argv)
{
	int nodes = argc > 1 ? atoi(argv[1]) : 1000;
	int days = argc > 2 ? atoi(argv[2]) : 31, h;
	char tmpl[] = "/tmp/wp-bench-ledger.XXXXXX", ldir[4200], cfg[4200];
	char *dir = mkdtemp(tmpl);
	struct conf_errs errs = { 0 };
	struct wp_err err = { 0 };
	uint8_t chain[32] = { 0 };
	struct ledger *l;
	struct wp_conf *c;
	long long bytes, dbytes;
	double t;

	if (dir == NULL || nodes < 1 || days < 1)
		return fprintf(stderr, "usage: bench_ledger [NODES [DAYS]]\n"),
		    2;
	snprintf(ldir, sizeof(ldir), "%s/ledger", dir);
	if (write_conf(dir, nodes, cfg, sizeof(cfg)) != 0 ||
	    (l = ledger_open(ldir, 0, false, &err)) == NULL) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return 1;
	}
	t = now_s();
	for (h = 0; h < days * 24; h++)
		if (hour_block(l, nodes, T0 + (wp_time)h * HOUR, chain) != 0)
			return 1;
	ledger_close(l);
	t = now_s() - t;
	bytes = dir_bytes(ldir, NULL);
	dbytes = dir_bytes(ldir, ".wpd");
	printf("ledger: %d nodes x %d days (%d series): %.0f MB in %.1f s "
	    "(day blocks %.0f MB); %.0f bytes per series per year (hourly "
	    "blocks %.0f, day blocks %.0f)\n", nodes, days,
	    nodes * SERIES + 2, (double)bytes / 1048576, t,
	    (double)dbytes / 1048576, (double)bytes / (nodes * SERIES + 2) /
	    days * 365, (double)(bytes - dbytes) / (nodes * SERIES + 2) /
	    days * 365, (double)dbytes / (nodes * SERIES + 2) / days * 365);
	fflush(stdout);
	if ((c = conf_load(cfg, NULL, &errs)) == NULL) {
		fprintf(stderr, "conf: %s\n", errs.n ? errs.msg[0] : "?");
		return 1;
	}
	if (timed_both(c, nodes, days < 31 ? days : 31) != 0 ||
	    (days >= 365 && timed_both(c, nodes, 365) != 0))
		return 1;
	conf_free(c);
	conf_errs_fini(&errs);
	if (getenv("BENCH_KEEP") != NULL) {	/* for profiling */
		printf("(kept %s)\n", dir);
		return 0;
	}
	rm_dir(ldir);
	unlink(cfg);
	rmdir(dir);
	return 0;
}
