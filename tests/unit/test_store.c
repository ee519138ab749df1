/*
 * Unit tests: collector/store.c - names, create/update/skip-old with
 * librrd directly (values fetched back with rrd_fetch_r), configured
 * RRAs, file sizes.  With WP_RRDCACHED=unix:/path and WP_RRD_DIR=DIR (set
 * by tests/integration/020-rrdcached.sh) the same run goes through a real
 * rrdcached; WP_RRDCACHED_RESTART, if set, is a shell command run half-way
 * that restarts the daemon, so the store must reconnect.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <cmocka.h>

#include <rrd.h>

#include "../../collector/store/store.h"

#define T0	1699999980LL		/* a whole minute, seconds */
#define STEP	10

struct fx {
	char	 dir[256];
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/wp-store.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(f);
	return 0;
}

static long	file_size(const char *);

/* The file's last update; T0 - 1 while it does not exist (with a write
 * delay a file is created at its first write, its start one second before
 * its first value). */
static long
last_written(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (long)rrd_last_r(path) : T0 - 1;
}

/* One value as a poll of its own: store_update, then store_commit. */
static int
put(struct store *st, const char *target, const struct wp_sample *s,
    double cum, wp_time t, struct wp_err *err)
{
	if (store_update(st, target, s, cum, t, err) != 0)
		return -1;
	return store_commit(st, err);
}

static void
samples(struct wp_sample *e, struct wp_sample *p, struct wp_sample *tok)
{
	sample_init(e, "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER);
	sample_init(p, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE);
	sample_init(tok, "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER);
}

/* Feeds 500 W (energy ramp and gauge) and 50 tokens/s over [a, b). */
static void
feed(struct store *st, const char *target, long a, long b)
{
	struct wp_sample e, p, tok;
	struct wp_err err;
	long t;

	samples(&e, &p, &tok);
	for (t = a; t < b; t += STEP) {
		p.value = 500;
		if (store_update(st, target, &e, 500.0 * (double)(t - T0),
		    (wp_time)t * WP_SEC + 250 * WP_MS, &err) != 0 ||
		    store_update(st, target, &p, 0, (wp_time)t * WP_SEC,
		    &err) != 0 ||
		    store_update(st, target, &tok, 50.0 * (double)(t - T0),
		    (wp_time)t * WP_SEC, &err) != 0 ||
		    store_commit(st, &err) != 0)
			fail_msg("store_update at %ld: %s", t, err.msg);
	}
}

/* Mean of the known values of data source ds (NULL: the first) of an
 * RRD over [a, b] at resolution res. */
static double
fetch_ds_mean(const char *path, const char *ds, const char *cf, long a,
    long b, long res, int *known)
{
	time_t start = a, end = b;
	unsigned long step = (unsigned long)res, nds, i, n, k = 0;
	char **names;
	rrd_value_t *data;
	double sum = 0;

	rrd_clear_error();
	if (rrd_fetch_r(path, cf, &start, &end, &step, &nds, &names,
	    &data) != 0)
		fail_msg("rrd_fetch_r %s: %s", path, rrd_get_error());
	while (ds != NULL && k < nds && strcmp(names[k], ds) != 0)
		k++;
	if (k == nds)
		fail_msg("%s has no data source %s", path, ds);
	n = (unsigned long)(end - start) / step;
	*known = 0;
	for (i = 0; i < n; i++)
		if (!isnan(data[i * nds + k])) {
			sum += data[i * nds + k];
			(*known)++;
		}
	for (i = 0; i < nds; i++)
		rrd_freemem(names[i]);
	rrd_freemem(names);
	rrd_freemem(data);
	return *known ? sum / *known : NAN;
}

static double
fetch_mean(const char *path, const char *cf, long a, long b, long res,
    int *known)
{
	return fetch_ds_mean(path, NULL, cf, a, b, res, known);
}

static void
check_values(const char *dir, const char *target, long a, long b)
{
	char path[512];
	int known;
	double m;

	/* wall/energy and wall/power: one pair file */
	assert_int_equal(store_path(dir, target, "wall", path,
	    sizeof(path)), 0);
	m = fetch_ds_mean(path, "energy_mj", "AVERAGE", a, b, 60, &known);
	assert_true(known >= (b - a) / 60 - 2);
	/* DERIVE of mJ: mean watts x 1000 */
	assert_true(fabs(m - 500000.0) < 1e-6 * 500000.0);
	m = fetch_ds_mean(path, "power_w", "AVERAGE", a, b, 60, &known);
	assert_true(known >= (b - a) / 60 - 2);
	assert_true(fabs(m - 500.0) < 1e-9);
	assert_int_equal(store_path(dir, target, "tokens/output", path,
	    sizeof(path)), 0);
	m = fetch_mean(path, "AVERAGE", a, b, 60, &known);
	assert_true(fabs(m - 50.0) < 1e-9);
}

static void
test_path_mapping(void **state)
{
	char buf[512];

	(void)state;
	assert_int_equal(store_path("/d", "gpu-001/bmc", "gpu/3/energy", buf,
	    sizeof(buf)), 0);
	assert_string_equal(buf, "/d/rrd/gpu-001_bmc/gpu_3_energy.rrd");
	assert_int_equal(store_path("/d", "../etc", "a:b c", buf,
	    sizeof(buf)), 0);
	assert_string_equal(buf, "/d/rrd/_._etc/a_b_c.rrd");
	assert_int_equal(store_path("/d", "", "x", buf, sizeof(buf)), -1);
	assert_int_equal(store_path("/d", "t", "wall/energy", buf, 20), -1);
}

/* A file's name is kept under <data_dir>/rrd/: a series is refused as too
 * long exactly where its whole path would not fit PATH_MAX (store_path),
 * for data directories whose length puts the limit anywhere near. */
static void
test_long_paths(void **state)
{
	struct fx *f = *state;
	struct wp_sample e, p, tok;
	struct wp_err err;
	char dir[PATH_MAX + 64], buf[PATH_MAX];
	size_t base = strlen(f->dir), len;
	int accepted = 0, refused = 0;

	samples(&e, &p, &tok);
	p.value = 500;
	for (len = PATH_MAX - 40; len < PATH_MAX; len++) {
		/* one component longer than NAME_MAX: nothing is created */
		struct store_opts o = { .data_dir = dir,
		    .step = STEP * WP_SEC, .write_delay = 60 * WP_SEC };
		struct store *st;
		int want, got;

		snprintf(dir, sizeof(dir), "%s/%0*d", f->dir,
		    (int)(len - base - 1), 0);
		assert_int_equal(strlen(dir), len);
		assert_non_null(st = store_new(&o, &err));
		want = store_path(dir, "pdu-1", "outlet_7", buf, sizeof(buf));
		p.t_real = T0 * WP_SEC;
		strcpy(p.series, "outlet/7/power");
		got = store_update(st, "pdu-1", &p, 0, T0 * WP_SEC, &err);
		assert_int_equal(got, want);
		accepted += got == 0;
		refused += got != 0;
		store_free(st);	/* its write fails: the directory cannot be */
	}
	assert_true(accepted > 0 && refused > 0);
}

static void
test_direct_create_update_fetch(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC };
	struct wp_err err;
	struct store *st = store_new(&o, &err);

	assert_non_null(st);
	feed(st, "gpu-001/bmc", T0, T0 + 1800);
	assert_int_equal(store_flush(st, &err), 0);
	store_free(st);
	check_values(f->dir, "gpu-001/bmc", T0 + 120, T0 + 1740);
}

/* Held (as the collector runs it): each file's values are written with
 * one update call at most write_delay after the oldest was taken; files
 * opened together are written spread out; the archived means are the same. */
static void
test_held_updates_are_written_within_the_delay(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .write_delay = 60 * WP_SEC };
	struct wp_sample e, p, tok;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char path[512];
	long t, last = 0, writes = 0;

	assert_non_null(st);
	samples(&e, &p, &tok);
	p.value = 500;
	store_path(f->dir, "b", "wall", path, sizeof(path));
	for (t = T0; t < T0 + 600; t += STEP) {
		long now;

		assert_int_equal(put(st, "b", &p, 0, t * WP_SEC,
		    &err), 0);
		now = last_written(path);
		/* nothing is held longer than the delay */
		assert_true(now >= t - 60);
		if (now != last)
			writes++;
		last = now;
	}
	/* 60 values in 60 s batches (7 values): 9 or 10 writes, not 60 */
	assert_true(writes >= 8 && writes <= 11);
	assert_int_equal(store_flush(st, &err), 0);
	assert_int_equal(rrd_last_r(path), T0 + 590);
	feed(st, "gpu-002/bmc", T0, T0 + 1800);
	store_free(st);		/* writes what is held */
	check_values(f->dir, "gpu-002/bmc", T0 + 120, T0 + 1740);
}

/* 64 files opened in the same step are not all written in one step. */
static void
test_held_files_are_written_spread_out(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .write_delay = 300 * WP_SEC };
	struct wp_sample p, e, tok;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	long first[64] = { 0 }, t;
	char target[32], path[512];
	int i, j, distinct = 0;

	assert_non_null(st);
	samples(&e, &p, &tok);
	p.value = 400;
	for (t = T0; t <= T0 + 300; t += STEP)
		for (i = 0; i < 64; i++) {
			snprintf(target, sizeof(target), "n%02d/bmc", i);
			assert_int_equal(put(st, target, &p, 0,
			    t * WP_SEC, &err), 0);
			store_path(f->dir, target, "wall", path,
			    sizeof(path));
			if (first[i] == 0 && last_written(path) >= T0)
				first[i] = t;
		}
	for (i = 0; i < 64; i++) {
		assert_true(first[i] >= T0 && first[i] <= T0 + 300);
		for (j = 0; j < i && first[j] != first[i]; j++)
			;
		distinct += j == i;
	}
	/* 31 possible steps; hashing the paths fills well over a third */
	assert_true(distinct >= 12);
	store_free(st);
}

/* A target that stops polling: store_write_due writes what it left held
 * once that is over twice the delay old. */
static void
test_write_due_writes_stopped_targets(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .write_delay = 60 * WP_SEC };
	struct wp_sample p, e, tok;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char path[512];
	long t;

	assert_non_null(st);
	samples(&e, &p, &tok);
	p.value = 300;
	store_path(f->dir, "gone", "wall", path, sizeof(path));
	/* poll until the file holds something, then stop */
	for (t = T0; t < T0 + 200 || last_written(path) == t - STEP; t += STEP)
		assert_int_equal(put(st, "gone", &p, 0, t * WP_SEC,
		    &err), 0);
	t -= STEP;		/* the last value, held */
	assert_true(last_written(path) < t);
	/* the oldest held is under a delay old at t */
	assert_int_equal(store_write_due(st, (t + 60) * WP_SEC, &err), 0);
	assert_true(last_written(path) < t);
	assert_int_equal(store_write_due(st, (t + 121) * WP_SEC, &err), 0);
	assert_int_equal(rrd_last_r(path), t);
	store_free(st);
}

/* With a write delay a new file is created at its first write, not at
 * its first value (a fleet's first poll would create every file at once);
 * write-through creates it at once; a file that cannot be created is an
 * error at its write and is tried again at the next. */
static void
test_held_file_created_at_first_write(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .write_delay = 60 * WP_SEC };
	struct wp_sample p, e, tok;
	struct wp_err err;
	struct store *st = store_new(&o, &err), *other;
	char path[512], dir[512];
	FILE *fp;
	long t;

	assert_non_null(st);
	samples(&e, &p, &tok);
	p.value = 250;
	store_path(f->dir, "late", "wall", path, sizeof(path));
	assert_int_equal(put(st, "late", &p, 0, T0 * WP_SEC, &err), 0);
	assert_int_equal(file_size(path), -1);
	for (t = T0 + STEP; last_written(path) < T0; t += STEP)
		assert_int_equal(put(st, "late", &p, 0, t * WP_SEC,
		    &err), 0);
	assert_true(t - T0 <= 70);
	assert_true(file_size(path) > 0);
	store_free(st);

	/* a target directory that is a file: the write fails, and again at
	 * the next batch; once the way is clear the file is created */
	o.write_delay = 10 * WP_SEC;
	st = store_new(&o, &err);
	snprintf(dir, sizeof(dir), "%s/rrd/blocked", f->dir);
	assert_non_null(fp = fopen(dir, "w"));
	fclose(fp);
	for (t = T0; put(st, "blocked", &p, 0, t * WP_SEC, &err) == 0;
	    t += STEP)
		assert_true(t < T0 + 20);
	assert_non_null(strstr(err.msg, "blocked"));
	assert_int_equal(put(st, "blocked", &p, 0,
	    (t + 10) * WP_SEC, &err), 0);
	assert_int_equal(put(st, "blocked", &p, 0,
	    (t + 20) * WP_SEC, &err), -1);
	assert_int_equal(unlink(dir), 0);
	assert_int_equal(put(st, "blocked", &p, 0,
	    (t + 30) * WP_SEC, &err), 0);
	assert_int_equal(put(st, "blocked", &p, 0,
	    (t + 40) * WP_SEC, &err), 0);
	store_path(f->dir, "blocked", "wall", path, sizeof(path));
	assert_int_equal(rrd_last_r(path), t + 40);
	store_free(st);

	/* write-through: created at the first value */
	o.write_delay = 0;
	st = store_new(&o, &err);
	assert_int_equal(put(st, "now", &p, 0, T0 * WP_SEC, &err), 0);
	store_path(f->dir, "now", "wall", path, sizeof(path));
	assert_int_equal(rrd_last_r(path), T0);
	store_free(st);

	/* a file that appears while values are held is written, not
	 * refused: what it already has is skipped */
	o.write_delay = 10 * WP_SEC;
	st = store_new(&o, &err);
	assert_int_equal(put(st, "both", &p, 0, T0 * WP_SEC, &err), 0);
	o.write_delay = 0;
	other = store_new(&o, &err);
	assert_int_equal(put(other, "both", &p, 0,
	    (T0 + 20) * WP_SEC, &err), 0);
	store_free(other);
	for (t = T0 + 10; t <= T0 + 60; t += STEP)
		assert_int_equal(put(st, "both", &p, 0, t * WP_SEC,
		    &err), 0);
	assert_int_equal(store_flush(st, &err), 0);
	store_path(f->dir, "both", "wall", path, sizeof(path));
	assert_int_equal(rrd_last_r(path), T0 + 60);
	store_free(st);
}

/* Gauges go in exactly: fractional, whole, large and negative values. */
static void
test_gauge_values_exact(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .write_delay = 300 * WP_SEC };
	static const double want[] = { 412.75, 400, 1.5e12 + 0.5, -7.25,
	    0.001 };
	struct wp_sample g;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char path[512], series[32];
	int known;
	size_t i;
	long t;

	assert_non_null(st);
	for (i = 0; i < 5; i++) {
		snprintf(series, sizeof(series), "ctx/g%zu", i);
		sample_init(&g, series, WP_B_NONE, i < 2 ? WP_Q_POWER :
		    WP_Q_OTHER, WP_GAUGE);
		g.value = want[i];
		for (t = T0; t < T0 + 900; t += STEP)
			assert_int_equal(put(st, "g", &g, 0,
			    t * WP_SEC, &err), 0);
	}
	store_free(st);
	for (i = 0; i < 5; i++) {
		snprintf(series, sizeof(series), "ctx/g%zu", i);
		store_path(f->dir, "g", series, path, sizeof(path));
		assert_true(fabs(fetch_mean(path, "AVERAGE", T0 + 60, T0 + 840,
		    60, &known) - want[i]) <= 1e-9 * fabs(want[i]));
		assert_true(known >= 10);
	}
}

/*
 * A poll's power gauge and energy counter of one instance go in one row
 * of one file, at the time of the first of them, even when the other was
 * read in the next second; nothing is written before store_commit; a
 * poll without one of them leaves only that one unknown.  GPU series,
 * and series without an instance, keep files of their own.
 */
static void
test_pair_rows(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC };
	struct wp_sample e, p, g, m;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char path[512];
	int known;
	long t;

	assert_non_null(st);
	sample_init(&e, "outlet/7/energy", WP_B_OUTLET, WP_Q_ENERGY,
	    WP_COUNTER);
	sample_init(&p, "outlet/7/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE);
	sample_init(&g, "gpu/0/energy", WP_B_GPU, WP_Q_ENERGY, WP_COUNTER);
	sample_init(&m, "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER);
	p.value = 250;
	store_path(f->dir, "pdu", "outlet/7", path, sizeof(path));
	for (t = T0; t < T0 + 1800; t += STEP) {
		wp_time at = (wp_time)t * WP_SEC;

		assert_int_equal(store_update(st, "pdu", &e,
		    250.0 * (double)(t - T0), at + 900 * WP_MS, &err), 0);
		if (t < T0 + 900)	/* then the gauge stops */
			assert_int_equal(store_update(st, "pdu", &p, 0,
			    at + 1100 * WP_MS, &err), 0);
		assert_int_equal(store_update(st, "pdu", &g, 0, at, &err), 0);
		assert_int_equal(store_update(st, "meter", &m, 0, at, &err),
		    0);
		if (t == T0)	/* created, not written */
			assert_int_equal(rrd_last_r(path), T0 - 1);
		assert_int_equal(store_commit(st, &err), 0);
		assert_int_equal(rrd_last_r(path), t);
	}
	store_free(st);
	assert_true(fabs(fetch_ds_mean(path, "energy_mj", "AVERAGE",
	    T0 + 120, T0 + 1740, 60, &known) - 250000.0) < 1e-6 * 250000.0);
	assert_true(known >= 25);
	assert_true(fabs(fetch_ds_mean(path, "power_w", "AVERAGE", T0 + 120,
	    T0 + 840, 60, &known) - 250.0) < 1e-9);
	assert_true(known >= 10);
	fetch_ds_mean(path, "power_w", "AVERAGE", T0 + 960, T0 + 1740, 60,
	    &known);
	assert_int_equal(known, 0);
	store_path(f->dir, "pdu", "gpu/0/energy", path, sizeof(path));
	assert_true(file_size(path) > 0);
	store_path(f->dir, "meter", "energy", path, sizeof(path));
	assert_true(file_size(path) > 0);
}

static void
test_old_values_are_skipped(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC };
	struct wp_sample e, p, tok;
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char path[512];

	samples(&e, &p, &tok);
	p.value = 100;
	assert_int_equal(put(st, "n", &p, 0, (T0 + 100) * WP_SEC,
	    &err), 0);
	assert_int_equal(put(st, "n", &p, 0, (T0 + 100) * WP_SEC,
	    &err), 0);		/* same second: skipped */
	assert_int_equal(put(st, "n", &p, 0, (T0 + 50) * WP_SEC,
	    &err), 0);		/* older: skipped */
	store_free(st);
	store_path(f->dir, "n", "wall", path, sizeof(path));
	assert_int_equal(rrd_last_r(path), T0 + 100);
	/* a new store (a restart) learns the last update from the file */
	st = store_new(&o, &err);
	assert_int_equal(put(st, "n", &p, 0, (T0 + 90) * WP_SEC,
	    &err), 0);
	assert_int_equal(rrd_last_r(path), T0 + 100);
	assert_int_equal(put(st, "n", &p, 0, (T0 + 110) * WP_SEC,
	    &err), 0);
	assert_int_equal(rrd_last_r(path), T0 + 110);
	store_free(st);
}

static long
file_size(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static void
test_default_rras_and_sizes(void **state)
{
	struct fx *f = *state;
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC };
	struct wp_err err;
	struct store *st = store_new(&o, &err);
	char pt[512], pp[512];
	rrd_info_t *info, *i;
	int rras = 0, ds = 0;

	feed(st, "n", T0, T0 + 30);
	store_free(st);
	store_path(f->dir, "n", "tokens/output", pt, sizeof(pt));
	store_path(f->dir, "n", "wall", pp, sizeof(pp));
	fprintf(stderr, "sizes: tokens %ld bytes, wall power+energy %ld "
	    "bytes\n", file_size(pt), file_size(pp));
	/* a counter alone: 4 AVERAGE RRAs (19,610 rows); a pair: 2 data
	 * sources, 8 RRAs with MIN and MAX (44,430 rows) */
	assert_true(file_size(pt) > 150000 && file_size(pt) < 200000);
	assert_true(file_size(pp) > 700000 && file_size(pp) < 800000);
	info = rrd_info_r(pp);
	assert_non_null(info);
	for (i = info; i; i = i->next) {
		if (strstr(i->key, ".cf") != NULL)
			rras++;
		if (strcmp(i->key, "step") == 0)
			assert_int_equal(i->value.u_cnt, STEP);
		if (strcmp(i->key, "ds[power_w].minimal_heartbeat") == 0 ||
		    strcmp(i->key, "ds[energy_mj].minimal_heartbeat") == 0) {
			assert_int_equal(i->value.u_cnt, 3 * STEP);
			ds++;
		}
		if (strcmp(i->key, "ds[energy_mj].type") == 0)
			assert_string_equal(i->value.u_str, "DERIVE");
		if (strcmp(i->key, "rra[0].pdp_per_row") == 0)
			assert_int_equal(i->value.u_cnt, 6);
		if (strcmp(i->key, "rra[0].rows") == 0)
			assert_int_equal(i->value.u_cnt, 2880);
	}
	rrd_info_free(info);
	assert_int_equal(rras, 8);
	assert_int_equal(ds, 2);
}

static void
test_configured_rras_and_bad_options(void **state)
{
	struct fx *f = *state;
	const char *rras[] = { "RRA:AVERAGE:0.5:1:100", NULL };
	const char *bad[] = { "AVERAGE:0.5:1:100", NULL };
	struct store_opts o = { .data_dir = f->dir, .step = STEP * WP_SEC,
	    .rras = rras };
	struct wp_err err;
	struct store *st;
	char pe[512];

	st = store_new(&o, &err);
	assert_non_null(st);
	feed(st, "n", T0, T0 + 30);
	store_free(st);
	store_path(f->dir, "n", "wall", pe, sizeof(pe));
	assert_true(file_size(pe) < 4096);
	o.rras = bad;
	assert_null(store_new(&o, &err));
	assert_int_equal(err.class, WP_E_CONFIG);
	o.rras = NULL;
	o.step = 0;
	assert_null(store_new(&o, &err));
	o.step = 1500 * WP_MS;
	assert_null(store_new(&o, &err));
	o.step = 10 * WP_SEC;
	o.data_dir = "/proc/wp-nope";
	st = store_new(&o, &err);
	assert_non_null(st);
	{
		struct wp_sample e, p, tok;

		samples(&e, &p, &tok);
		assert_int_equal(put(st, "n", &p, 0, T0 * WP_SEC,
		    &err), -1);
	}
	store_free(st);
	/* a bad rrd file is an error, not a crash */
	{
		char p[512];
		FILE *fp;
		struct wp_sample e, pw, tok;

		o.data_dir = f->dir;
		store_path(f->dir, "junk", "wall", p, sizeof(p));
		mkdir(strcat(strcpy(pe, f->dir), "/rrd/junk"), 0755);
		fp = fopen(p, "w");
		fputs("not an rrd", fp);
		fclose(fp);
		st = store_new(&o, &err);
		samples(&e, &pw, &tok);
		assert_int_equal(put(st, "junk", &pw, 0, T0 * WP_SEC,
		    &err), -1);
		store_free(st);
	}
}

static void
test_through_rrdcached(void **state)
{
	const char *addr = getenv("WP_RRDCACHED");
	const char *dir = getenv("WP_RRD_DIR");
	const char *restart = getenv("WP_RRDCACHED_RESTART");
	struct store_opts o = { .step = STEP * WP_SEC };
	struct wp_err err;
	struct store *st;

	(void)state;
	if (addr == NULL || dir == NULL) {
		skip();
		return;
	}
	o.data_dir = dir;
	o.rrdcached = addr;
	st = store_new(&o, &err);
	assert_non_null(st);
	feed(st, "it-node/bmc", T0, T0 + 900);
	if (restart) {
		assert_int_equal(store_flush(st, &err), 0);
		if (system(restart) != 0)
			fail_msg("restart command failed: %s", restart);
	}
	feed(st, "it-node/bmc", T0 + 900, T0 + 1800);
	if (store_flush(st, &err) != 0)
		fail_msg("flush: %s", err.msg);
	store_free(st);
	check_values(dir, "it-node/bmc", T0 + 120, T0 + 1740);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_mapping),
		cmocka_unit_test_setup_teardown(test_long_paths, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_direct_create_update_fetch,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_held_updates_are_written_within_the_delay, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_held_files_are_written_spread_out, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_write_due_writes_stopped_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_held_file_created_at_first_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gauge_values_exact, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pair_rows, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_old_values_are_skipped,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_rras_and_sizes,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_configured_rras_and_bad_options, setup, teardown),
		cmocka_unit_test(test_through_rrdcached),
	};

	/* as `wattpath run` does: a daemon restart must not kill us */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
