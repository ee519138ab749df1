/*
 * Unit tests: seed 002's worked example reproduced from counter series.
 *
 * One 8-GPU server, a 600 s window whose edges fall between 10 s readings,
 * 12,000,000 output and 30,000,000 input tokens.  Every figure comes out of
 * the pure model (integrate, boundary, jtoken, pue, stats) fed with
 * reset-corrected cumulative counters, as the journal stores them.
 */
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
#include "../../model/boundary.h"
#include "../../model/integrate.h"
#include "../../model/jtoken.h"
#include "../../model/pue.h"
#include "../../model/stats.h"

#define T0	(1795946400LL * WP_SEC)	/* 2026-11-29T10:00:00Z */
#define NPT	80

/*
 * A counter series read every 10 s starting 7 s before T0 + off, rising at
 * `rate` per second on average: interior segments alternate rate +/- wiggle
 * (pairs cancel), the segments around both edges run at exactly `rate`.
 */
static void
series(double rate, double wiggle, wp_time off, wp_time *t, double *v)
{
	double cum = 123456.0;	/* arbitrary offset: only differences matter */
	int i;

	for (i = 0; i < NPT; i++) {
		t[i] = T0 + off + (wp_time)(i * 10 - 7) * WP_SEC;
		v[i] = cum;
		/* segment i -> i+1 */
		{
			double r = rate;
			wp_time a = t[i], b = t[i] + 10 * WP_SEC;
			int edge = (a < T0 + off && b > T0 + off) ||
			    (a < T0 + off + 600 * WP_SEC &&
			    b > T0 + off + 600 * WP_SEC);

			if (!edge && i > 2 && i < 57)
				r += (i % 2) ? wiggle : -wiggle;
			cum += r * 10;
		}
	}
}

static double
window_energy(double rate, double wiggle, wp_time off, int kind_res)
{
	struct integ_opts o = { .from = T0 + off, .to = T0 + off +
	    600 * WP_SEC, .interval = 10 * WP_SEC, .kind = WP_COUNTER,
	    .resolution = kind_res ? 0.001 : 0 };
	struct integ_result r;
	struct wp_err err = { 0 };
	wp_time t[NPT];
	double v[NPT];

	series(rate, wiggle, off, t, v);
	assert_int_equal(integ_array(&o, t, v, NULL, NPT, &r, &err), 0);
	assert_false(r.estimated);
	return r.energy;
}

static void
test_gpu_and_wall_boundaries(void **st)
{
	struct bnd_gpu_src g[16];
	struct bnd_value gpu, wall;
	struct jtoken jg, jw;
	struct jtoken_in in = { .output_tokens = 0, .input_tokens = 0,
	    .slo_output_tokens = -1, .window_s = 600, .idle_power_w = -1 };
	double out_tok, in_tok, cross;
	int i;

	(void)st;
	for (i = 0; i < 8; i++) {
		/* in-band DCGM counter (mJ converted to J): 650 W average */
		g[i] = (struct bnd_gpu_src){ .gpu = i, .inband = true,
		    .valid = true, .method = BM_COUNTER,
		    .energy_j = window_energy(650, 40, 0, 1) };
		/* the BMC's reading of the same GPU: cross-check only */
		g[8 + i] = (struct bnd_gpu_src){ .gpu = i, .inband = false,
		    .valid = true, .method = BM_COUNTER,
		    .energy_j = window_energy(660, 0, 0, 0) };
	}
	assert_int_equal(boundary_gpu(g, 16, &gpu, &cross), 8);
	assert_true(gpu.valid);
	assert_near(gpu.energy_j, 3120000, 1e-3);
	assert_near(cross, 8 * 660 * 600, 1e-3);
	wall = (struct bnd_value){ .valid = true, .method = BM_COUNTER,
	    .energy_j = window_energy(7800, 300, 0, 0) };
	assert_near(wall.energy_j, 4680000, 1e-3);

	out_tok = window_energy(20000, 1000, 0, 0);
	in_tok = window_energy(50000, 0, 0, 0);
	assert_near(out_tok, 12000000, 1e-3);
	assert_near(in_tok, 30000000, 1e-3);
	in.output_tokens = out_tok;
	in.input_tokens = in_tok;
	in.energy_j = gpu.energy_j;
	assert_int_equal(jtoken_compute(&in, &jg, NULL), 0);
	in.energy_j = wall.energy_j;
	assert_int_equal(jtoken_compute(&in, &jw, NULL), 0);
	assert_near(jg.j_per_output_token, 0.26, 1e-9);
	assert_near(jw.j_per_output_token, 0.39, 1e-9);
	assert_near(wall.energy_j / gpu.energy_j, 1.5, 1e-9);
	/* "about 0.111 J per total token" */
	assert_near(jw.j_per_total_token, 0.111, 0.0005);
	/* 0.39 J/token = about 0.108 kWh per million output tokens */
	assert_near(jw.kwh_per_million_output_tokens, 0.108, 0.0005);
	assert_near(jw.tokens_per_joule, 1 / 0.39, 1e-9);
}

static void
test_idle_subtracted_and_slo(void **st)
{
	struct jtoken j;
	struct jtoken_in in = { .energy_j = 0, .output_tokens = 12e6,
	    .input_tokens = 30e6, .window_s = 600, .idle_power_w = 0 };
	struct jt_request req[100];
	struct jt_slo slo = { .ttft_ms = 2000, .tpot_ms = 200 };
	double q, tot, share;
	int i;

	(void)st;
	/* idle: 2,400 W measured on a marked idle window an hour earlier */
	in.idle_power_w = window_energy(2400, 100, -3600 * WP_SEC, 0) / 600;
	assert_near(in.idle_power_w, 2400, 1e-6);
	in.energy_j = window_energy(7800, 300, 0, 0);
	/* 6 % of output tokens from requests that missed TTFT or TPOT */
	for (i = 0; i < 100; i++)
		req[i] = (struct jt_request){ .ttft_ms = 400, .tpot_ms = 50,
		    .output_tokens = 120000, .input_tokens = 300000, .ok = 1 };
	req[3].ttft_ms = 2500;
	req[17].tpot_ms = 250;
	req[40].ttft_ms = -1;	/* unknown latency never qualifies */
	req[41].ok = 0;		/* failed */
	req[42].tpot_ms = 200.5;
	req[99].ttft_ms = 2000.1;
	share = jtoken_slo_share(req, 100, &slo, &q, &tot);
	assert_near(share, 0.94, 1e-12);
	in.slo_output_tokens = in.output_tokens * share;
	assert_int_equal(jtoken_compute(&in, &j, NULL), 0);
	assert_true(j.idle_valid);
	assert_near(j.idle_energy_j, 1440000, 1e-3);
	assert_near(j.net_energy_j, 3240000, 1e-3);
	assert_near(j.net_j_per_output_token, 0.27, 1e-9);
	assert_near(in.slo_output_tokens, 11280000, 1e-3);
	/* "about 0.415" */
	assert_near(j.j_per_slo_token, 0.415, 0.0005);
	/* the gross figure is still the headline */
	assert_near(j.j_per_output_token, 0.39, 1e-9);
}

static void
test_facility_at_metered_pue(void **st)
{
	struct bnd_value wall = { .valid = true, .method = BM_COUNTER },
	    fac, share;
	struct jtoken j;
	struct jtoken_in in = { .output_tokens = 12e6, .input_tokens = -1,
	    .slo_output_tokens = -1, .idle_power_w = -1, .window_s = 600 };
	double it, facility, pue;

	(void)st;
	wall.energy_j = window_energy(7800, 300, 0, 0);
	/* site meters over the same window: IT 100 kW, facility 130 kW */
	it = window_energy(100000, 5000, 0, 0);
	facility = window_energy(130000, 2000, 0, 0);
	assert_int_equal(pue_compute(facility, it, &pue, NULL), 0);
	assert_near(pue, 1.3, 1e-9);
	boundary_facility_pue(&wall, pue, &fac);
	in.energy_j = fac.energy_j;
	assert_int_equal(jtoken_compute(&in, &j, NULL), 0);
	/* 0.39 x 1.3 = 0.507 */
	assert_near(j.j_per_output_token, 0.507, 1e-9);
	/* second method: metered facility allocated by IT share */
	assert_int_equal(boundary_facility_share(facility, it, &wall, &share,
	    NULL), 0);
	assert_near(share.energy_j, fac.energy_j, 1e-3);
}

static void
test_three_runs_interval(void **st)
{
	double x[3];
	struct runstats rs;
	struct jtoken j;
	struct jtoken_in in = { .output_tokens = 12e6, .input_tokens = -1,
	    .slo_output_tokens = -1, .idle_power_w = -1, .window_s = 600 };
	static const double watts[3] = { 7700, 7840, 7920 };
	int i;

	(void)st;
	for (i = 0; i < 3; i++) {
		in.energy_j = window_energy(watts[i], 100,
		    (wp_time)i * 900 * WP_SEC, 0);
		assert_int_equal(jtoken_compute(&in, &j, NULL), 0);
		x[i] = j.j_per_output_token;
	}
	assert_near(x[0], 0.385, 1e-12);
	assert_int_equal(stats_runs(x, 3, &rs, NULL), 0);
	assert_near(rs.mean, 0.391, 0.0005);
	assert_near(rs.sd, 0.0056, 0.00005);
	assert_near(rs.t, 4.303, 1e-9);
	assert_near(rs.half95, 0.014, 0.0005);
}

static void
test_stats_edges(void **st)
{
	double one = 1, bad[2] = { 1, NAN };
	struct runstats rs;
	struct wp_err err = { 0 };

	(void)st;
	assert_int_equal(stats_runs(&one, 1, &rs, &err), -1);
	assert_int_equal(stats_runs(bad, 2, &rs, &err), -1);
	assert_near(stats_t95(1), 12.706, 1e-9);
	assert_near(stats_t95(1000000), 1.960, 1e-3);
	assert_true(stats_t95(45) < 2.021 && stats_t95(45) > 2.000);
	assert_true(isnan(stats_t95(0)));
	assert_near(stats_instrument_bound(1000, 2, 3, 0.01), 15,
	    1e-12);
}

static void
test_pue_refused_below_one(void **st)
{
	double pue;
	struct wp_err err = { 0 };
	double fac_h[30], it_h[30];
	struct pue_row rows[4];
	size_t i, n;

	(void)st;
	assert_int_equal(pue_compute(90, 100, &pue, &err), -1);
	assert_non_null(strstr(err.msg, "metering error"));
	assert_int_equal(pue_compute(100, 0, &pue, &err), -1);
	assert_string_equal(pue_category("2"),
	    "PUE2 (IT energy at the PDU output)");
	assert_string_equal(pue_category(NULL), "unstated");
	/* 30 hours from 2026-11-29T00:00Z: two days, the 2nd one bad */
	for (i = 0; i < 30; i++) {
		it_h[i] = 100;
		fac_h[i] = i < 24 ? 125 : 80;
	}
	n = pue_periods(fac_h, it_h, 30, T0 - 10 * 3600 * WP_SEC, PUE_DAY,
	    rows, 4);
	assert_int_equal(n, 2);
	assert_near(rows[0].value, 1.25, 1e-12);
	assert_true(isnan(rows[1].value));
	n = pue_periods(fac_h, it_h, 30, T0 - 10 * 3600 * WP_SEC, PUE_HOUR,
	    rows, 4);
	assert_int_equal(n, 4);		/* capped at max */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_and_wall_boundaries),
		cmocka_unit_test(test_idle_subtracted_and_slo),
		cmocka_unit_test(test_facility_at_metered_pue),
		cmocka_unit_test(test_three_runs_interval),
		cmocka_unit_test(test_stats_edges),
		cmocka_unit_test(test_pue_refused_below_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
