/*
 * bench_journal.c - the raw journal's bytes per poll on disk and the CPU
 * its writing costs (docs/journal.md, docs/benchmarks.md), for three poll
 * shapes, each written three ways: the version-1 records of before
 * (plain), version-2 records (the open segment: plain), and version-2
 * records in closed, zstd-compressed segments (what a journal keeps).
 *
 * Shapes (the real record shape, with the noise a real fleet has: poll
 * start and duration jitter of a few ms, power readings that move every
 * poll at the device's resolution):
 *   bmc  a Redfish BMC: wall energy counter (J, raw kWh at 0.001 kWh,
 *        reset time, a source label) and wall power (0.1 W)
 *   pdu  a 48-outlet SNMP PDU: 48 energy counters (raw Wh) and 48 power
 *        gauges (1 W) with the outlet's labels (name, index, profile,
 *        vendor, sysDescr), plus the inlet's two
 *   gpu  a GPU node's NVML target: 8 GPUs x (energy counter mJ, power,
 *        power limit) with the GPU's uuid label
 *   eng  an inference engine's token counters (output, input)
 * Each: HOURS hours at 10 s (hourly segments), fsync none; bytes are the
 * .wpj files (segments) and, apart, the .wps (summaries), per poll.
 *
 * Usage: bench_journal [HOURS]   (default 6)
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../collector/store/journal.h"
#include "../../model/counter.h"

#define T0	((wp_time)1796112000 * WP_SEC)	/* 2026-12-01T08:00:00Z */
#define STEP	(10 * WP_SEC)
#define MAXV	98

enum shape { BMC, PDU, GPU, ENGINE, NSHAPES };
static const char *const shape_name[] = { "bmc", "pdu", "gpu", "eng" };
static const int shape_values[] = { 2, 98, 24, 2 };

struct gen {
	uint64_t	 rng;
	double		 cum[MAXV], raw[MAXV], power[MAXV];
	struct journal_value v[MAXV];
};

static double
urand(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return (double)(g->rng >> 11) / 9007199254740992.0;
}

/* A counter reading: power p for 10 s added to raw (in units of unit_j
 * joules, quantised to q). */
static void
counter(struct gen *g, int k, const char *series, int b, double p,
    double unit_j, double q, const char *unit, wp_time t)
{
	struct journal_value *v = &g->v[k];
	double before = g->raw[k] * unit_j;

	g->raw[k] += p * 10 / unit_j;
	g->raw[k] = (double)(long long)(g->raw[k] / q + 0.5) * q;
	sample_init(&v->s, series, b, WP_Q_ENERGY, WP_COUNTER);
	v->s.raw_value = g->raw[k];
	v->s.value = g->raw[k] * unit_j;
	sample_set_unit(&v->s, unit);
	v->s.resolution = q * unit_j;
	v->s.t_real = t;
	v->delta = v->s.value - before;
	g->cum[k] += v->delta;
	v->cum = g->cum[k];
}

static void
gauge(struct gen *g, int k, const char *series, int b, double p, double q,
    wp_time t)
{
	struct journal_value *v = &g->v[k];

	sample_init(&v->s, series, b, WP_Q_POWER, WP_GAUGE);
	v->s.value = (double)(long long)(p / q + 0.5) * q;
	v->s.raw_value = v->s.value;
	sample_set_unit(&v->s, "W");
	v->s.resolution = q;
	v->s.t_real = t;
}

/* Fills g->v with poll i of shape s at t; the number of values. */
static size_t
make_poll(struct gen *g, enum shape s, int i, wp_time t)
{
	char name[64], lab[WP_LABEL_MAX];
	double p;
	int k;

	if (s == BMC) {
		p = 5200 + 800 * urand(g);
		counter(g, 0, "wall/energy", WP_B_WALL, p, 3.6e6, 0.001, "kWh",
		    t);
		g->v[0].s.reset_time = T0 - 86400 * WP_SEC;
		sample_add_label(&g->v[0].s, "source",
		    "EnvironmentMetrics.EnergyJoules");
		gauge(g, 1, "wall/power", WP_B_WALL, p, 0.1, t);
		sample_add_label(&g->v[1].s, "source",
		    "EnvironmentMetrics.PowerWatts");
		return 2;
	}
	if (s == PDU) {
		for (k = 0; k < 48; k++) {
			p = 200 + 2 * k + 400 * urand(g);
			snprintf(lab, sizeof(lab), "name=Outlet %d;index=1.%d;"
			    "profile=raritan-pdu2;vendor=Raritan;sysdescr="
			    "Raritan PDU, MD:PX3-5190R", k + 1, k + 1);
			snprintf(name, sizeof(name), "outlet/%d/energy", k + 1);
			counter(g, 2 * k, name, WP_B_OUTLET, p, 3600, 1, "Wh", t);
			snprintf(g->v[2 * k].s.labels, WP_LABEL_MAX, "%s", lab);
			snprintf(name, sizeof(name), "outlet/%d/power", k + 1);
			gauge(g, 2 * k + 1, name, WP_B_OUTLET, p, 1, t);
			snprintf(g->v[2 * k + 1].s.labels, WP_LABEL_MAX, "%s",
			    lab);
		}
		p = 15000 + 4000 * urand(g);
		counter(g, 96, "inlet/1/energy", WP_B_PDU, p, 3600, 1, "Wh", t);
		gauge(g, 97, "inlet/1/power", WP_B_PDU, p, 1, t);
		return 98;
	}
	if (s == ENGINE) {
		for (k = 0; k < 2; k++) {
			struct journal_value *v = &g->v[k];
			double d = (double)(long long)(urand(g) * 3000 *
			    (k ? 2 : 1));

			sample_init(&v->s, k ? "tokens/input" : "tokens/output",
			    WP_B_NONE, WP_Q_TOKENS, WP_COUNTER);
			g->raw[k] += d;
			v->s.value = v->s.raw_value = g->raw[k];
			sample_set_unit(&v->s, "tokens");
			v->s.resolution = 1;
			v->s.t_real = t;
			sample_add_label(&v->s, "direction", k ? "input" :
			    "output");
			v->delta = d;
			g->cum[k] += d;
			v->cum = g->cum[k];
		}
		return 2;
	}
	for (k = 0; k < 8; k++) {
		p = (i / 30 + k) % 3 ? 650 + 50 * urand(g) : 90 + 5 * urand(g);
		snprintf(lab, sizeof(lab), "uuid=GPU-%08x-94f7-%04x-4000-"
		    "73e6ed38b5a2", 0xdedba664u + (unsigned)k * 7919, k);
		snprintf(name, sizeof(name), "gpu/%d/energy", k);
		counter(g, 3 * k, name, WP_B_GPU, p, 0.001, 1, "mJ", t);
		snprintf(g->v[3 * k].s.labels, WP_LABEL_MAX, "%s", lab);
		snprintf(name, sizeof(name), "gpu/%d/power", k);
		gauge(g, 3 * k + 1, name, WP_B_GPU, p, 0.001, t);
		snprintf(g->v[3 * k + 1].s.labels, WP_LABEL_MAX, "%s", lab);
		snprintf(name, sizeof(name), "gpu/%d/power_limit", k);
		gauge(g, 3 * k + 2, name, WP_B_GPU, 700, 1, t);
		snprintf(g->v[3 * k + 2].s.labels, WP_LABEL_MAX, "%s", lab);
	}
	return 24;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Bytes of files in dir ending in ext. */
static long long
dir_bytes(const char *dir, const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat sb;
	char p[600];
	long long n = 0;
	size_t l, le = strlen(ext);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		l = strlen(de->d_name);
		if (l < le || strcmp(de->d_name + l - le, ext) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (stat(p, &sb) == 0)
			n += (long long)sb.st_size;
	}
	closedir(d);
	return n;
}

/* Writes polls of shape s into a fresh dir; bytes per poll and CPU us
 * per poll (appends, rotations, summaries, compression). */
static int
run(enum shape s, int version, int compress, int polls, double *seg_b,
    double *sum_b, double *cpu_us)
{
	struct journal_opts o = { .fsync = JOURNAL_FSYNC_NONE,
	    .compress = compress, .record_version = version };
	struct gen g = { .rng = 88172645463325252ULL };
	struct journal_record r;
	struct journal *j;
	struct wp_err err;
	char dir[256], cmd[300];
	double c0;
	int i;
	wp_time t;

	snprintf(dir, sizeof(dir), "%s/wp-bench-journal.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL || (j = journal_open(dir, &o, &err)) == NULL)
		return -1;
	c0 = cpu_now();
	for (i = 0; i < polls + 1; i++) {
		/* poll start jitter up to 5 ms; the extra poll closes the
		   last whole hour */
		t = T0 + (wp_time)i * STEP + (wp_time)(urand(&g) * 5e6);
		r = (struct journal_record){ .t_real = t,
		    .t_mono = t - T0 + 1000 * WP_SEC,
		    .duration = (wp_time)(30e6 + urand(&g) * 20e6),
		    .target = s == BMC ? "gpu-001/bmc" : s == PDU ?
		    "pdu-r1-a" : s == GPU ? "gpu-001/gpu" : "gpu-001/engine0",
		    .error = "",
		    .v = g.v };
		r.n = make_poll(&g, s, i, t);
		for (size_t k = 0; k < r.n; k++)
			g.v[k].s.t_mono = r.t_mono;
		if (journal_append(j, &r, &err) != 0) {
			fprintf(stderr, "append: %s\n", err.msg);
			journal_close(j);
			return -1;
		}
	}
	*cpu_us = (cpu_now() - c0) / (polls + 1) * 1e6;
	journal_close(j);
	/* the closed segments only: the last (open) one holds one poll */
	*seg_b = (double)dir_bytes(dir, ".wpj") / (polls + 1);
	*sum_b = (double)dir_bytes(dir, ".wps") / polls;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	int hours = argc > 1 ? atoi(argv[1]) : 6, polls, s;
	double b1, b2, bz, sum, c1, c2, cz;

	if (hours < 1)
		hours = 1;
	polls = hours * 360;
	printf("journal bytes per poll on disk, %d polls (%d h at 10 s), "
	    "hourly segments\n", polls, hours);
	printf("%-4s %7s %10s %10s %10s %9s | CPU us/poll: %6s %6s %6s\n",
	    "poll", "values", "v1 plain", "v2 plain", "v2 zstd", "summary",
	    "v1", "v2", "v2+zstd");
	for (s = 0; s < NSHAPES; s++) {
		if (run((enum shape)s, 1, -1, polls, &b1, &sum, &c1) != 0 ||
		    run((enum shape)s, 2, -1, polls, &b2, &sum, &c2) != 0 ||
		    run((enum shape)s, 2, 0, polls, &bz, &sum, &cz) != 0) {
			fprintf(stderr, "bench_journal: %s failed\n",
			    shape_name[s]);
			return 1;
		}
		printf("%-4s %7d %10.0f %10.0f %10.1f %9.1f | %18.1f %6.1f "
		    "%6.1f\n", shape_name[s], shape_values[s],
		    b1, b2, bz, sum, c1, c2, cz);
	}
	return 0;
}
