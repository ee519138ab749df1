/* rrdread.c - power read back from the RRD store (see rrdread.h). */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rrd.h>
#include <rrd_client.h>

#include "rrdread.h"
#include "store.h"

#define GRID_POINTS	300

int
rrdgrid_make(wp_time from, wp_time to, wp_time step, struct rrdgrid *g,
    struct wp_err *err)
{
	wp_time span = to - from;

	if (span <= 0)
		return err_set(err, WP_E_CONFIG, "the window is empty");
	if (step <= 0) {
		step = (span / GRID_POINTS + WP_SEC - 1) / WP_SEC * WP_SEC;
		if (step < WP_SEC)
			step = WP_SEC;
	}
	if (step % WP_SEC != 0)
		return err_set(err, WP_E_CONFIG, "step: whole seconds");
	g->step = step;
	g->t0 = (to / step) * step;		/* the last point, aligned */
	g->n = (size_t)((g->t0 - from) / step) + 1;
	if (g->n > RRDREAD_POINTS_MAX)
		return err_set(err, WP_E_CONFIG, "the window over step is %zu "
		    "points, over %d", g->n, RRDREAD_POINTS_MAX);
	g->t0 -= (wp_time)(g->n - 1) * step;
	return 0;
}

/* The path of target's series name if the file exists: 1, else 0. */
static int
file_of(const char *data_dir, const char *target, const char *name,
    char *path, size_t len)
{
	return store_path(data_dir, target, name, path, len) == 0 &&
	    access(path, R_OK) == 0;
}

/* The position of ds in names, or -1. */
static long
ds_index(char **names, unsigned long n, const char *ds)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], ds) == 0)
			return (long)i;
	return -1;
}

/* Row k's power: energy_mj / 1000 where known, else power_w. */
static double
row_power(const rrd_value_t *row, long ie, long ip)
{
	if (ie >= 0 && !isnan(row[ie]))
		return row[ie] / 1000.0;
	return ip >= 0 ? row[ip] : NAN;
}

/*
 * Rows of fstep seconds, row k over (fs + k fstep, fs + (k+1) fstep],
 * onto g: each point the overlap-weighted mean of the known rows, known
 * when they cover at least half of what the rows cover of it, and never
 * past last (the file's last update).
 */
static void
regrid(const double *rows, size_t m, time_t fs, unsigned long fstep,
    time_t last, const struct rrdgrid *g, double *v)
{
	size_t i, k = 0;

	for (i = 0; i < g->n; i++) {
		double b = (double)((g->t0 + (wp_time)i * g->step) / WP_SEC);
		double a = b - (double)(g->step / WP_SEC);
		double sum = 0, known = 0, seen = 0;
		size_t j;

		v[i] = NAN;
		if (b > (double)last)
			continue;
		while (k < m && (double)fs + (double)((k + 1) * fstep) <= a)
			k++;
		for (j = k; j < m; j++) {
			double r0 = (double)fs + (double)(j * fstep);
			double r1 = r0 + (double)fstep;
			double o = fmin(r1, b) - fmax(r0, a);

			if (r0 >= b)
				break;
			if (o <= 0)
				continue;
			seen += o;
			if (!isnan(rows[j])) {
				sum += rows[j] * o;
				known += o;
			}
		}
		if (known > 0 && known * 2 >= seen)
			v[i] = sum / known;
	}
}

/* Fetches path's power onto g.  0, or -1 with err. */
static int
fetch(const char *path, const char *daemon, const struct rrdgrid *g,
    double *v, wp_time *written_to, struct wp_err *err)
{
	time_t start = (time_t)((g->t0 - g->step) / WP_SEC), end =
	    (time_t)(g->t0 / WP_SEC + (time_t)(g->n - 1) * (g->step / WP_SEC));
	unsigned long step = (unsigned long)(g->step / WP_SEC), nds = 0, i;
	char **names = NULL;
	rrd_value_t *data = NULL;
	double *rows;
	time_t last;
	size_t m, k;
	long ie, ip;

	rrd_clear_error();
	if (daemon != NULL && rrdc_flush_if_daemon(daemon, path) != 0)
		return err_set(err, WP_E_TRANSIENT, "rrdcached %s: flush %s: "
		    "%s", daemon, path, rrd_get_error());
	if ((last = rrd_last_r(path)) == -1 ||
	    rrd_fetch_r(path, "AVERAGE", &start, &end, &step, &nds, &names,
	    &data) != 0)
		return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
		    rrd_get_error());
	ie = ds_index(names, nds, "energy_mj");
	ip = ds_index(names, nds, "power_w");
	if (ip < 0 && ie < 0)
		ip = 0;			/* "value": a gauge of its own */
	m = step > 0 && end > start ? (size_t)(end - start) / step : 0;
	if ((rows = calloc(m + 1, sizeof(*rows))) == NULL) {
		for (i = 0; i < nds; i++)
			rrd_freemem(names[i]);
		rrd_freemem(names);
		rrd_freemem(data);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	for (k = 0; k < m; k++)
		rows[k] = row_power(data + k * nds, ie, ip);
	regrid(rows, m, start, step, last, g, v);
	free(rows);
	for (i = 0; i < nds; i++)
		rrd_freemem(names[i]);
	rrd_freemem(names);
	rrd_freemem(data);
	*written_to = (wp_time)last * WP_SEC;
	return 0;
}

int
rrdread_power(const char *data_dir, const char *daemon, const char *target,
    const char *prefix, const struct rrdgrid *g, double *v,
    wp_time *written_to, struct wp_err *err)
{
	char name[200], path[4096];
	size_t len = strlen(prefix);

	if (len >= sizeof(name) - 8 || (len > 0 && (len < 2 ||
	    prefix[len - 1] != '/')))
		return err_set(err, WP_E_INTERNAL, "bad prefix '%s'", prefix);
	snprintf(name, sizeof(name), "%.*s", len > 0 ? (int)len - 1 : 0, prefix);
	if (len == 0 || !file_of(data_dir, target, name, path, sizeof(path))) {
		snprintf(name, sizeof(name), "%senergy", prefix);
		if (!file_of(data_dir, target, name, path, sizeof(path))) {
			snprintf(name, sizeof(name), "%spower", prefix);
			if (!file_of(data_dir, target, name, path, sizeof(path)))
				return 0;
		}
	}
	return fetch(path, daemon, g, v, written_to, err) == -1 ? -1 : 1;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

size_t
rrdread_indexes(const char *data_dir, const char *target, const char *kind,
    int *out, size_t max)
{
	char dir[4096], probe[4096];
	size_t n = 0, klen = strlen(kind), i;
	struct dirent *e;
	DIR *d;

	/* the target's folder, as store_path names it */
	if (store_path(data_dir, target, "x", probe, sizeof(probe)) == -1)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(strlen(probe) - 6), probe);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max) {
		const char *p = e->d_name + klen + 1;
		char *end;
		long ix;
		bool dup = false;

		if (strncmp(e->d_name, kind, klen) != 0 || e->d_name[klen] != '_' ||
		    *p < '0' || *p > '9')
			continue;
		ix = strtol(p, &end, 10);
		if ((strcmp(end, ".rrd") != 0 && *end != '_') || ix > 1000000)
			continue;
		for (i = 0; i < n && !dup; i++)
			dup = out[i] == (int)ix;
		if (!dup)
			out[n++] = (int)ix;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), cmp_int);
	return n;
}
