/* Unit tests: model/integrate.c - exact windows, refusals with reasons,
 * gauges only as labelled estimates, bins. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_model_near.h"

#include "../../collector/lib/sample.h"
#include "../../model/integrate.h"

#define T0	(1795946400LL * WP_SEC)	/* 2026-11-29T10:00:00Z */
#define S	WP_SEC

/* n readings every step s from T0 + first s, at `watts` constant. */
static void
ramp(wp_time *t, double *v, size_t n, wp_time first, wp_time step,
    double watts)
{
	size_t i;

	for (i = 0; i < n; i++) {
		t[i] = T0 + first + (wp_time)i * step;
		v[i] = 5e9 + watts * (double)(t[i] - T0) / S;
	}
}

static struct integ_opts
opts(wp_time from, wp_time to)
{
	struct integ_opts o = { .from = T0 + from, .to = T0 + to,
	    .interval = 10 * S, .kind = WP_COUNTER };

	return o;
}

static void
test_edges_interpolated_not_snapped(void **st)
{
	wp_time t[100];
	double v[100];
	struct integ_opts o = opts(3 * S + 250 * WP_MS, 603 * S + 250 * WP_MS);
	struct integ_result r;

	(void)st;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, NULL), 0);
	/* exactly 600 s x 1000 W though no reading falls on an edge */
	assert_near(r.energy, 600000, 1e-4);
	assert_near(r.mean_power, 1000, 1e-9);
	assert_near(r.edge_bound, 10000, 1e-6);	/* 2 x half a segment */
	assert_int_equal(r.points, 60);
	assert_false(r.estimated);
}

static void
test_refuse_short_window(void **st)
{
	wp_time t[100];
	double v[100];
	struct integ_opts o = opts(0, 59 * S);
	struct integ_result r;
	struct wp_err err = { 0 };

	(void)st;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_SHORT);
	assert_non_null(strstr(err.msg, "window-too-short"));
	o.to = T0 + 60 * S;
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, &err), 0);
}

static void
test_refuse_reset_inside(void **st)
{
	wp_time t[100];
	double v[100];
	uint32_t f[100] = { 0 };
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct wp_err err = { 0 };

	(void)st;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	f[30] = INTEG_P_RESET;
	assert_int_equal(integ_array(&o, t, v, f, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_RESET);
	assert_non_null(strstr(err.msg, "counter-reset"));
	/* a reset outside the window (and its edge segments) is fine */
	f[30] = 0;
	f[90] = INTEG_P_RESET;
	assert_int_equal(integ_array(&o, t, v, f, 100, &r, &err), 0);
	/* a cumulative going backwards is a reset too */
	f[90] = 0;
	v[40] = v[39] - 1;
	assert_int_equal(integ_array(&o, t, v, f, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_RESET);
	/* a step the collector refused says so, not "reset" */
	v[40] = v[39] + 10000;
	f[40] = INTEG_P_IMPLAUSIBLE | INTEG_P_RESET;
	assert_int_equal(integ_array(&o, t, v, f, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_IMPLAUSIBLE);
	assert_non_null(strstr(err.msg, "implausible-step"));
}

static void
test_refuse_gap(void **st)
{
	wp_time t[100];
	double v[100];
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct wp_err err = { 0 };

	(void)st;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	/* drop 3 readings: a 40 s gap, more than 3 x 10 s */
	memmove(&t[20], &t[23], 77 * sizeof(t[0]));
	memmove(&v[20], &v[23], 77 * sizeof(v[0]));
	/* a counter counted through it (a collector restart): exact */
	assert_int_equal(integ_array(&o, t, v, NULL, 97, &r, &err), 0);
	assert_near(r.energy, 600000, 1e-4);
	assert_int_equal(r.max_gap, 40 * S);
	/* a gauge's energy over it is unknown: refused */
	o.kind = WP_GAUGE;
	for (int i = 0; i < 97; i++)
		v[i] = 1000;
	assert_int_equal(integ_array(&o, t, v, NULL, 97, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_GAP);
	assert_non_null(strstr(err.msg, "gap of 40 s"));
	/* 30 s (2 missing) is still acceptable and the energy exact */
	o.kind = WP_COUNTER;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	memmove(&t[20], &t[22], 78 * sizeof(t[0]));
	memmove(&v[20], &v[22], 78 * sizeof(v[0]));
	assert_int_equal(integ_array(&o, t, v, NULL, 98, &r, &err), 0);
	assert_near(r.energy, 600000, 1e-4);
	assert_int_equal(r.max_gap, 30 * S);
}

static void
test_refuse_no_data_at_edges(void **st)
{
	wp_time t[100];
	double v[100];
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct wp_err err = { 0 };

	(void)st;
	ramp(t, v, 100, 5 * S, 10 * S, 1000);	/* starts after from */
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_NO_DATA);
	assert_non_null(strstr(err.msg, "start"));
	ramp(t, v, 30, -5 * S, 10 * S, 1000);	/* ends before to */
	assert_int_equal(integ_array(&o, t, v, NULL, 30, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_NO_DATA);
	assert_non_null(strstr(err.msg, "end"));
	assert_int_equal(integ_array(&o, t, v, NULL, 0, &r, &err), -1);
}

static void
test_refuse_coarse_counter(void **st)
{
	wp_time t[100];
	double v[100];
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct wp_err err = { 0 };
	size_t i;

	(void)st;
	/* an EnergykWh counter (3.6 MJ steps) on a 7.8 kW server, 10 min */
	ramp(t, v, 100, -20 * S, 10 * S, 7800);
	for (i = 0; i < 100; i++)
		v[i] = floor(v[i] / 3.6e6) * 3.6e6;
	o.resolution = 3.6e6;
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, &err), -1);
	assert_int_equal(r.reason, INTEG_RESOLUTION);
	assert_non_null(strstr(err.msg, "coarse"));
	/* a joule counter is fine */
	ramp(t, v, 100, -20 * S, 10 * S, 7800);
	o.resolution = 1;
	assert_int_equal(integ_array(&o, t, v, NULL, 100, &r, &err), 0);
	assert_near(r.res_bound, 1, 0);
}

/*
 * A Wh counter (3600 J steps) truncated at each reading: over many
 * windows with edges anywhere, the error stays below res_bound + the
 * edge bound, and the resolution part alone is below one step; a window
 * where one step is 1.9 % of the energy is accepted, 2.1 % refused.
 */
static void
test_coarse_counter_bound_holds(void **st)
{
	wp_time t[200];
	double v[200];
	struct integ_result r;
	struct wp_err err = { 0 };
	size_t i;
	int k;

	(void)st;
	for (k = 0; k < 50; k++) {
		struct integ_opts o = opts(k * 337 * WP_MS,
		    k * 337 * WP_MS + 120 * S);
		double truth = 1580.0 * 120;

		ramp(t, v, 200, -20 * S, 10 * S, 1580);
		for (i = 0; i < 200; i++)
			v[i] = floor(v[i] / 3600) * 3600;
		o.resolution = 3600;
		assert_int_equal(integ_array(&o, t, v, NULL, 200, &r, &err), 0);
		assert_near(r.res_bound, 3600, 0);
		assert_true(fabs(r.energy - truth) < 3600);
		assert_true(fabs(r.energy - truth) <= r.res_bound +
		    r.edge_bound);
	}
	{
		struct integ_opts o = opts(0, 120 * S);

		o.resolution = 3600;
		ramp(t, v, 200, -20 * S, 10 * S, 3600 / 0.021 / 120);
		assert_int_equal(integ_array(&o, t, v, NULL, 200, &r, &err), -1);
		assert_int_equal(r.reason, INTEG_RESOLUTION);
		ramp(t, v, 200, -20 * S, 10 * S, 3600 / 0.019 / 120);
		assert_int_equal(integ_array(&o, t, v, NULL, 200, &r, &err), 0);
	}
}

/*
 * A gauge sampled every 15 s on a load alternating 300 W / 700 W in
 * random stretches: the trapezoid misses, and the envelope bound (window
 * x the largest distance of the mean from the lowest and highest
 * reading) covers the miss; a steady gauge has a zero envelope.
 */
static void
test_gauge_envelope_bound(void **st)
{
	wp_time t[64];
	double v[64], p[2000], truth = 0;
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct wp_err err = { 0 };
	unsigned seed = 7;
	size_t i;

	(void)st;
	o.kind = WP_GAUGE;
	o.interval = 15 * S;
	/* 1 s resolution load over [-30, 900) s */
	for (i = 0; i < 930; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = i > 0 && (seed >> 16) % 5 != 0 ? p[i - 1] :
		    ((seed >> 20) & 1) ? 700 : 300;
		if (i >= 30 && i < 630)
			truth += p[i];
	}
	for (i = 0; i < 50; i++) {
		t[i] = T0 - 15 * S + (wp_time)i * 15 * S;
		v[i] = p[15 + i * 15];
	}
	assert_int_equal(integ_array(&o, t, v, NULL, 50, &r, &err), 0);
	assert_true(r.estimated);
	assert_near(r.vmin, 300, 0);
	assert_near(r.vmax, 700, 0);
	assert_true(r.gauge_bound > 0);
	assert_true(fabs(r.energy - truth) <= r.gauge_bound);
	assert_true(r.gauge_bound <= 400.0 * 600);
	for (i = 0; i < 50; i++)
		v[i] = 450;
	assert_int_equal(integ_array(&o, t, v, NULL, 50, &r, &err), 0);
	assert_near(r.energy, 450.0 * 600, 1e-6);
	assert_near(r.gauge_bound, 0, 1e-9);
}

static void
test_held_points_skipped_and_order(void **st)
{
	wp_time t[100];
	double v[100];
	uint32_t f[100] = { 0 };
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	struct integ g;

	(void)st;
	ramp(t, v, 100, -20 * S, 10 * S, 1000);
	f[30] = INTEG_P_HELD;
	v[30] = 0;		/* the dip value never enters */
	assert_int_equal(integ_array(&o, t, v, f, 100, &r, NULL), 0);
	assert_near(r.energy, 600000, 1e-4);
	v[30] = v[29] + 10000;
	/* duplicates and out-of-order readings are ignored */
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	integ_add(&g, t[0], v[0], 0);
	integ_add(&g, t[1], v[1], 0);
	integ_add(&g, t[1], v[1] + 1e9, 0);
	integ_add(&g, t[0], 0, 0);
	for (size_t i = 2; i < 100; i++)
		integ_add(&g, t[i], v[i], 0);
	assert_int_equal(integ_finish(&g, &r, NULL), 0);
	assert_near(r.energy, 600000, 1e-4);
	integ_fini(&g);
	integ_fini(NULL);
}

/*
 * Seed 002's bursty GPU: 4 s at 700 W, 11 s at 300 W, every 15 s.  The
 * counter gives the truth (406.7 W); a 15 s gauge that lands in the burst
 * reads 700 W.  The gauge path is only an estimate, and says so.
 */
static void
test_counter_beats_gauge_on_bursts(void **st)
{
	wp_time t[700], tg[42];
	double v[700], g[42], cum = 0;
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;
	size_t i, n = 0;

	(void)st;
	for (i = 0; i < 700; i++) {
		/* 1 s counter readings from -10 s */
		long s = (long)i - 10;
		long ph = ((s % 15) + 15) % 15;

		t[i] = T0 + (wp_time)s * S;
		v[i] = cum;
		cum += ph < 4 ? 700 : 300;
	}
	o.interval = 1 * S;
	assert_int_equal(integ_array(&o, t, v, NULL, 700, &r, NULL), 0);
	assert_near(r.mean_power, 6100.0 / 15, 1e-9);
	for (i = 0; i < 42; i++) {
		tg[n] = T0 + ((wp_time)i * 15 - 15) * S;
		g[n++] = 700;	/* sampled inside each burst */
	}
	o.kind = WP_GAUGE;
	o.interval = 15 * S;
	assert_int_equal(integ_array(&o, tg, g, NULL, n, &r, NULL), 0);
	assert_true(r.estimated);
	assert_near(r.mean_power, 700, 1e-9);
	assert_near(r.mean_power / (6100.0 / 15) - 1, 0.72, 0.005);
}

static void
test_gauge_trapezoid_edges(void **st)
{
	wp_time t[3] = { T0 - 100 * S, T0 + 300 * S, T0 + 700 * S };
	double v[3] = { 100, 500, 900 };
	struct integ_opts o = opts(0, 600 * S);
	struct integ_result r;

	(void)st;
	o.kind = WP_GAUGE;
	o.interval = 400 * S;
	/* linear 200 W at T0 to 800 W at T0+600: mean 500 W */
	assert_int_equal(integ_array(&o, t, v, NULL, 3, &r, NULL), 0);
	assert_near(r.energy, 300000, 1e-6);
}

static void
test_hourly_bins(void **st)
{
	wp_time t[800];
	double v[800];
	struct integ_opts o = opts(-1800 * S, 5400 * S + 500 * WP_MS);
	struct integ_result r;
	struct integ g;
	size_t i;

	(void)st;
	ramp(t, v, 800, -1900 * S, 10 * S, 3600);
	o.bin_len[0] = 3600 * S;
	o.bin_len[1] = 600 * S;
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	for (i = 0; i < 800; i++)
		integ_add(&g, t[i], v[i], 0);
	assert_int_equal(integ_finish(&g, &r, NULL), 0);
	assert_int_equal(g.bins[0].n, 3);
	assert_int_equal(g.bins[0].origin, T0 - 3600 * S);
	assert_near(g.bins[0].e[0], 1800 * 3600.0, 1e-3);
	assert_near(g.bins[0].e[1], 3600 * 3600.0, 1e-3);
	assert_near(g.bins[0].e[2], 1800.5 * 3600.0, 1e-3);
	assert_near(g.bins[0].e[0] + g.bins[0].e[1] + g.bins[0].e[2],
	    r.energy, 1e-3);
	assert_int_equal(g.bins[1].n, 13);
	integ_fini(&g);
	o.to = o.from - 1;
	assert_int_equal(integ_init(&g, &o, NULL), -1);
}

/* The bin each reading and span goes to is the same whether found from
 * the last bin used (bins.hint) or by division: readings and spans with
 * gaps of less than a bin, of several bins, across bin edges and on them,
 * fed to one integrator as is and to another with its hints reset.  The
 * second keeps its bins in a store of the caller's, 3 doubles apart (as a
 * report keeps many series' side by side): the same figures, and the
 * doubles between its bins untouched. */
static void
test_bins_hint_exact(void **st)
{
	static const wp_time gap[] = { 7, 10, 600, 3590, 3600, 3610, 7300, 10,
	    1, 599, 601, 10800, 13, 10, 10 };
	struct integ_opts o = opts(-1800 * S, 30 * 3600 * S);
	struct integ a, b;
	struct integ_span sp = { .n = 2 };
	wp_time t = T0 - 2000 * S;
	double *store[INTEG_BINSETS];
	size_t i, k, nb[INTEG_BINSETS];
	int j;

	(void)st;
	o.bin_len[0] = 3600 * S;
	o.bin_len[1] = 600 * S;
	assert_int_equal(integ_init(&a, &o, NULL), 0);
	for (j = 0; j < INTEG_BINSETS; j++) {
		nb[j] = integ_bin_count(o.from, o.to, o.bin_len[j]);
		assert_non_null(store[j] = calloc(nb[j] * 3, sizeof(double)));
		for (k = 0; k < nb[j] * 3; k++)
			store[j][k] = k % 3 ? 7.0 : 0.0;
		o.bin_store[j] = store[j];
		o.bin_stride[j] = 3;
	}
	assert_int_equal(integ_init(&b, &o, NULL), 0);
	for (i = 0; i < 60; i++) {
		double v = 5e9 + 3600.0 * (double)(t - T0) / S;

		t += gap[i % 15] * S + (wp_time)(i % 3) * WP_MS;
		for (j = 0; j < INTEG_BINSETS; j++)
			b.bins[j].hint = 0;
		if (i % 4 == 3) {	/* a span in one bin, as a block's */
			sp.t0 = t;
			sp.v0 = 5e9 + 3600.0 * (double)(t - T0) / S;
			sp.t1 = t + 5 * S;
			sp.v1 = sp.v0 + 3600.0 * 5;
			sp.energy = sp.v1 - sp.v0;
			sp.max_gap = 5 * S;
			assert_int_equal(integ_add_span(&a, &sp) == 0,
			    integ_add_span(&b, &sp) == 0);
			t = sp.t1;
			continue;
		}
		integ_add(&a, t, v, 0);
		integ_add(&b, t, v, 0);
	}
	for (j = 0; j < INTEG_BINSETS; j++) {
		double x, y;

		assert_int_equal(b.bins[j].n, nb[j]);
		assert_int_equal(a.bins[j].n, nb[j]);
		for (k = 0; k < a.bins[j].n; k++) {
			x = integ_bin(&a.bins[j], k);
			y = integ_bin(&b.bins[j], k);
			assert_memory_equal(&x, &y, sizeof(double));
		}
		for (k = 0; k < nb[j] * 3; k++)
			if (k % 3)
				assert_true(store[j][k] == 7.0);
	}
	assert_memory_equal(&a.energy, &b.energy, sizeof(double));
	integ_fini(&a);
	integ_fini(&b);
	for (j = 0; j < INTEG_BINSETS; j++)
		free(store[j]);		/* the caller's: integ_fini left it */
}

/* A day span (a ledger day block's, docs/ledger.md): a counter's readings
 * of 6 hours (varying power, a reading off the 10 s grid) made one span and
 * 6 hourly energies by an integrator over those hours with hourly bins (as
 * jsum_merge_finish does), added to a window's integrator by integ_add_sub:
 * its energy, points, gap and hourly and 2-hour bins those of the readings
 * fed one by one, to rounding; 30-minute bins are not whole hours, so it
 * does not fit there. */
static void
test_sub_span_equals_points(void **st)
{
	const wp_time h = 3600 * S, d0 = T0 + 24 * h;	/* on the hour */
	struct integ_opts o = opts(23 * h, 31 * h), mo = { .from = d0,
	    .to = d0 + 6 * h, .kind = WP_COUNTER, .bin_len = { h, 0 } };
	struct integ a, b, m, c;
	struct integ_span sp = { 0 };
	struct integ_result ra, rb;
	double sub[6], v = 1e6;
	wp_time t;
	size_t k;

	(void)st;
	o.bin_len[0] = h;
	o.bin_len[1] = 2 * h;
	assert_int_equal(integ_init(&a, &o, NULL), 0);
	assert_int_equal(integ_init(&b, &o, NULL), 0);
	assert_int_equal(integ_init(&m, &mo, NULL), 0);
	/* the reading before the day, then the day's, 10 s apart (one at
	 * 02:00:03), power rising 1 W a reading */
	integ_add(&a, T0 + 22 * h, v - 4e7, 0);
	integ_add(&b, T0 + 22 * h, v - 4e7, 0);
	integ_add(&a, d0 - 5 * S, v, 0);
	integ_add(&b, d0 - 5 * S, v, 0);
	for (t = d0 + 5 * S, k = 0; t < d0 + 6 * h; t += 10 * S, k++) {
		wp_time tt = t == d0 + 2 * h + 5 * S ? t - 2 * S : t;

		v += (double)(1000 + k) * 10;
		integ_add(&a, tt, v, 0);
		if (sp.n == 0) {
			sp.t0 = tt;
			sp.v0 = v;
		}
		integ_add(&m, tt, v, 0);
		sp.t1 = tt;
		sp.v1 = v;
		sp.n++;
	}
	sp.energy = m.energy;
	sp.max_gap = m.max_gap;
	for (k = 0; k < 6; k++)
		sub[k] = integ_bin(&m.bins[0], k);
	assert_true(integ_sub_fits(&b, &sp, d0, h));
	integ_add_sub(&b, &sp, sub, 6, d0, h);
	integ_add(&a, d0 + 6 * h + 5 * S, v + 1e4, 0);
	integ_add(&b, d0 + 6 * h + 5 * S, v + 1e4, 0);
	integ_add(&a, T0 + 32 * h, v + 2e7, 0);
	integ_add(&b, T0 + 32 * h, v + 2e7, 0);
	integ_add(&a, T0 + 19 * h, 0, 0);	/* ignored: before */
	assert_int_equal(integ_finish(&a, &ra, NULL), 0);
	assert_int_equal(integ_finish(&b, &rb, NULL), 0);
	assert_near(ra.energy, rb.energy, 1e-9 * ra.energy);
	assert_int_equal(ra.points, rb.points);
	assert_int_equal(ra.max_gap, rb.max_gap);
	for (k = 0; k < a.bins[0].n; k++)
		assert_near(integ_bin(&a.bins[0], k), integ_bin(&b.bins[0], k),
		    1e-6);
	for (k = 0; k < a.bins[1].n; k++)
		assert_near(integ_bin(&a.bins[1], k), integ_bin(&b.bins[1], k),
		    1e-6);
	assert_true(integ_bin(&b.bins[0], 1) > 0);	/* the day's first hour */
	/* 30-minute bins are not made of whole hours */
	o.bin_len[1] = h / 2;
	assert_int_equal(integ_init(&c, &o, NULL), 0);
	integ_add(&c, d0 - 5 * S, 1e6, 0);
	assert_false(integ_sub_fits(&c, &sp, d0, h));
	integ_fini(&a);
	integ_fini(&b);
	integ_fini(&c);
	integ_fini(&m);
}

/* The running gauge integral (the live gauge-estimated counter) is the
 * window integrator's trapezoid: between any two readings its increase
 * is what integ_array gives over that window; a gap of more than 3
 * intervals adds nothing. */
static void
test_run_matches_window(void **st)
{
	wp_time t[40];
	double v[40], at[40];
	struct integ_run run = { 0 };
	struct integ_opts o;
	struct integ_result r;
	size_t i;

	(void)st;
	for (i = 0; i < 40; i++) {
		t[i] = T0 + (wp_time)i * 10 * S + (wp_time)(i % 3) * WP_MS;
		v[i] = 300 + 200 * ((i * 7) % 5);
		integ_run_add(&run, t[i], v[i], 10 * S);
		at[i] = run.energy;
	}
	assert_near(at[0], 0, 0);
	o = opts(0, 0);
	o.kind = WP_GAUGE;
	o.interval = 10 * S;
	o.from = t[3];
	o.to = t[31];
	assert_int_equal(integ_array(&o, t, v, NULL, 40, &r, NULL), 0);
	assert_near(at[31] - at[3], r.energy, 1e-6);
	/* not after the last, or not finite: ignored */
	assert_near(integ_run_add(&run, t[39], 5000, 10 * S), 0, 0);
	assert_near(integ_run_add(&run, t[39] + S, NAN, 10 * S), 0, 0);
	assert_near(run.energy, at[39], 0);
	/* a gap of 31 s over 3 intervals of 10 s: flat, then goes on */
	assert_near(integ_run_add(&run, t[39] + 31 * S, 100, 10 * S), 0, 0);
	assert_near(integ_run_add(&run, t[39] + 41 * S, 300, 10 * S), 2000,
	    1e-9);
}

/* A ledger slot whose readings are gone: exact when it fits, refused
 * with the readings' reason when it holds a reset or a gap, the edge
 * interpolated between its readings when it straddles one. */
static void
test_span_gone(void **st)
{
	struct integ_opts o = opts(0, 3600 * S);
	struct integ_span sp = { .t0 = T0 - 3600 * S, .t1 = T0 - 10 * S,
	    .v0 = 0, .v1 = 3590e3, .n = 360, .energy = 3590e3,
	    .max_gap = 10 * S };
	struct integ_result r;
	struct integ g;

	(void)st;
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	integ_add_span_gone(&g, &sp);		/* before: fits */
	sp = (struct integ_span){ .t0 = T0, .t1 = T0 + 3590 * S, .v0 = 3600e3,
	    .v1 = 7190e3, .n = 360, .energy = 3590e3, .max_gap = 10 * S };
	integ_add_span_gone(&g, &sp);		/* inside: fits */
	sp = (struct integ_span){ .t0 = T0 + 3600 * S, .t1 = T0 + 7190 * S,
	    .v0 = 7200e3, .v1 = 10790e3, .n = 360, .energy = 3590e3,
	    .max_gap = 10 * S };
	integ_add_span_gone(&g, &sp);		/* after: fits */
	assert_int_equal(integ_finish(&g, &r, NULL), 0);
	assert_near(r.energy, 3600e3, 1e-6);
	integ_fini(&g);

	/* a reset inside the window refuses it, as its readings would */
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	integ_add(&g, T0 - 10 * S, 0, 0);
	sp = (struct integ_span){ .t0 = T0, .t1 = T0 + 3590 * S, .v0 = 10e3,
	    .v1 = 3600e3, .n = 360, .energy = 3590e3, .max_gap = 10 * S,
	    .refuse = true };
	integ_add_span_gone(&g, &sp);
	integ_add(&g, T0 + 3600 * S, 3610e3, 0);
	assert_int_equal(integ_finish(&g, &r, NULL), -1);
	assert_int_equal(r.reason, INTEG_RESET);
	integ_fini(&g);

	/* a gap inside: exact energy for a counter, refuses a gauge */
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	integ_add(&g, T0 - 10 * S, 0, 0);
	sp.refuse = false;
	sp.max_gap = 600 * S;
	integ_add_span_gone(&g, &sp);
	integ_add(&g, T0 + 3600 * S, 3610e3, 0);
	assert_int_equal(integ_finish(&g, &r, NULL), 0);
	integ_fini(&g);
	o.kind = WP_GAUGE;
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	integ_add(&g, T0 - 10 * S, 1000, 0);
	sp = (struct integ_span){ .t0 = T0, .t1 = T0 + 3590 * S, .v0 = 1000,
	    .v1 = 1000, .n = 300, .energy = 3590e3, .max_gap = 600 * S };
	integ_add_span_gone(&g, &sp);
	integ_add(&g, T0 + 3600 * S, 1000, 0);
	assert_int_equal(integ_finish(&g, &r, NULL), -1);
	assert_int_equal(r.reason, INTEG_GAP);
	integ_fini(&g);
	o.kind = WP_COUNTER;

	/* across the window's start: interpolated between its readings */
	o = opts(1800 * S, 3600 * S);
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	sp = (struct integ_span){ .t0 = T0, .t1 = T0 + 3590 * S, .v0 = 0,
	    .v1 = 3590e3, .n = 360, .energy = 3590e3, .max_gap = 10 * S };
	integ_add_span_gone(&g, &sp);
	integ_add(&g, T0 + 3600 * S, 3600e3, 0);
	assert_int_equal(integ_finish(&g, &r, NULL), 0);
	assert_near(r.energy, 1800e3, 1e-6);
	integ_fini(&g);
}

/* A refusal kept as numbers: one window per kind, the message word for
 * word (and again from a second integ_finish); the first refusal is the
 * one said, and a window too short says so whatever refused it before.
 * The window is [T0, T0 + to]; t[0] == 0: no reading before it. */
static const char *
refusal(int kind, double resolution, const struct integ_span *sp,
    const wp_time *t, const double *v, const uint32_t *f, size_t n,
    wp_time to, struct wp_err *err)
{
	struct integ_opts o = opts(0, to);
	struct wp_err again = { 0 };
	struct integ_result r;
	struct integ g;
	size_t i;

	o.kind = kind;
	o.resolution = resolution;
	assert_int_equal(integ_init(&g, &o, NULL), 0);
	if (t[0] != 0)
		integ_add(&g, t[0], v[0], 0);
	if (sp != NULL)
		integ_add_span_gone(&g, sp);
	for (i = 1; i < n; i++)
		integ_add(&g, t[i], v[i], f != NULL ? f[i] : 0);
	memset(err, 0, sizeof(*err));
	assert_int_equal(integ_finish(&g, &r, err), -1);
	assert_int_equal(integ_finish(&g, &r, &again), -1);
	assert_string_equal(again.msg, err->msg);
	integ_fini(&g);
	return err->msg;
}

static void
test_refusal_messages(void **st)
{
	wp_time t[4] = { T0 - 10 * S, T0 + 30 * S, T0 + 70 * S,
	    T0 + 700 * S };
	double v[4] = { 1000, 2000, 3000, 4000 };
	uint32_t f[4] = { 0, INTEG_P_RESET, 0, 0 };
	struct integ_span sp = { .t0 = T0, .t1 = T0 + 590 * S, .v0 = 1000,
	    .v1 = 3000, .n = 60, .energy = 2000, .max_gap = 10 * S,
	    .refuse = true };
	struct wp_err err;

	(void)st;
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (counter-reset): counter reset inside the "
	    "window (30 s after start)");
	f[1] = INTEG_P_IMPLAUSIBLE;
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (implausible-step): a counter step refused "
	    "as implausible inside the window (30 s after start): its energy "
	    "is unknown");
	v[2] = 1500;	/* the first refusal is the one said */
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (implausible-step): a counter step refused "
	    "as implausible inside the window (30 s after start): its energy "
	    "is unknown");
	f[1] = 0;
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (counter-reset): counter went backwards by "
	    "500");
	v[2] = NAN;
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (data-gap): non-finite reading");
	v[2] = 3000;
	assert_string_equal(refusal(WP_GAUGE, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (data-gap): gap of 40 s between readings "
	    "(more than 3 intervals of 10 s)");
	/* too short: said, whatever refused the window before */
	assert_string_equal(refusal(WP_GAUGE, 0, NULL, t, v, f, 4, 50 * S,
	    &err), "window refused (window-too-short): window of 50.000 s is "
	    "shorter than the 60 s minimum");
	/* integ_finish's own: an edge without a reading, a coarse counter */
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 3, 600 * S,
	    &err), "window refused (no-data-at-edge): no reading at or after "
	    "the window end");
	t[0] = 0;
	assert_string_equal(refusal(WP_COUNTER, 0, NULL, t, v, f, 4, 600 * S,
	    &err), "window refused (no-data-at-edge): no reading at or before "
	    "the window start");
	t[0] = T0 - 10 * S;
	assert_string_equal(refusal(WP_COUNTER, 100, NULL, t, v, f, 4,
	    600 * S, &err), "window refused (counter-resolution): counter "
	    "step of 100 is too coarse for 2591.27 over this window (more "
	    "than 2.0% error)");
	/* a span's */
	t[1] = T0 + 600 * S;
	assert_string_equal(refusal(WP_COUNTER, 0, &sp, t, v, f, 2, 600 * S,
	    &err), "window refused (counter-reset): counter reset or step back "
	    "inside the window (between 0 and 590 s after start)");
	sp.implausible = true;
	assert_string_equal(refusal(WP_COUNTER, 0, &sp, t, v, f, 2, 600 * S,
	    &err), "window refused (implausible-step): a counter step refused "
	    "as implausible inside the window (between 0 and 590 s after "
	    "start): its energy is unknown");
	sp.implausible = sp.refuse = false;
	sp.max_gap = 50 * S;
	assert_string_equal(refusal(WP_GAUGE, 0, &sp, t, v, f, 2, 600 * S,
	    &err), "window refused (data-gap): gap of 50 s between readings "
	    "(more than 3 intervals of 10 s)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges_interpolated_not_snapped),
		cmocka_unit_test(test_span_gone),
		cmocka_unit_test(test_bins_hint_exact),
		cmocka_unit_test(test_refuse_short_window),
		cmocka_unit_test(test_refuse_reset_inside),
		cmocka_unit_test(test_refuse_gap),
		cmocka_unit_test(test_refuse_no_data_at_edges),
		cmocka_unit_test(test_refuse_coarse_counter),
		cmocka_unit_test(test_coarse_counter_bound_holds),
		cmocka_unit_test(test_gauge_envelope_bound),
		cmocka_unit_test(test_held_points_skipped_and_order),
		cmocka_unit_test(test_counter_beats_gauge_on_bursts),
		cmocka_unit_test(test_gauge_trapezoid_edges),
		cmocka_unit_test(test_hourly_bins),
		cmocka_unit_test(test_sub_span_equals_points),
		cmocka_unit_test(test_run_matches_window),
		cmocka_unit_test(test_refusal_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
