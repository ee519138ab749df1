/* test_advise.c - power-cap advice (model/advise.c, issue 23). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../model/advise.h"
#include "test_model_near.h"

/* A class whose facility J/token is a parabola in the limit with its
 * minimum at 400 W; throughput falls below it; SLO met above 300 W. */
static struct advise_window
win(double lim, int k)
{
	double jpt = 2.0 + 1e-5 * (lim - 400) * (lim - 400);
	double tok = 1e6 * sqrt(lim / 700.0), noise = 1 + 0.002 * (k % 3 - 1);

	return (struct advise_window){ .limit_w = lim + 0.1 * (k % 2),
	    .steady = true, .secs = 300, .tokens = tok,
	    .wall_j = 0.8 * jpt * tok * noise, .fac_j = jpt * tok * noise,
	    .slo_share = lim > 300 ? 0.995 : 0.9 };
}

static size_t
sweep(struct advise_window *w, double lo, double hi, double step, int reps)
{
	size_t n = 0;
	double l;
	int k;

	for (k = 0; k < reps; k++)
		for (l = lo; l <= hi + 1e-9; l += step)
			w[n++] = win(l, k);
	return n;
}

static void
test_finds_minimum(void **state)
{
	struct advise_window w[64];
	struct advise_opts o = { .slo_target = NAN };
	struct advise_result r;
	size_t n = sweep(w, 250, 650, 50, 3);

	(void)state;
	assert_int_equal(advise_compute(w, n, &o, &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.n, 9);
	assert_near(r.limit_w, 400, 0.2);
	assert_near(r.fac_jpt, 2.0, 0.01);
	assert_true(r.fac_se > 0 && r.fac_se < 0.01);
	assert_true(r.range_lo_w <= r.limit_w && r.range_hi_w >= r.limit_w);
	assert_true(r.range_hi_w - r.range_lo_w <= 100);
	assert_true(isfinite(r.fit_w));
	assert_near(r.fit_w, 400, 5);
	assert_near(r.uncapped_w, 650, 0.2);
	assert_true(r.saving > 0.2 && r.saving < 0.3);
	assert_near(r.p[0].tps, 1e6 * sqrt(250.0 / 700) / 300, 20);
	assert_near(r.p[0].wall_jpt / r.p[0].fac_jpt, 0.8, 1e-9);
	advise_result_fini(&r);
}

/* The SLO moves the advice above 300 W even where J/token is lower. */
static void
test_slo_constrains(void **state)
{
	struct advise_window w[64];
	struct advise_opts o = { .slo_target = 0.99 };
	struct advise_result r;
	size_t n = sweep(w, 100, 400, 100, 2), i;

	(void)state;
	for (i = 0; i < n; i++) {	/* the minimum now at 200 W */
		double l = w[i].limit_w, jpt = 2 + 1e-5 * (l - 200) * (l - 200);

		w[i].fac_j = jpt * w[i].tokens;
	}
	assert_int_equal(advise_compute(w, n, &o, &r), 0);
	assert_near(r.limit_w, 400, 0.2);
	assert_false(r.p[0].meets);
	assert_true(r.p[3].meets);
	advise_result_fini(&r);
	o.slo_target = 0.999;
	assert_int_equal(advise_compute(w, n, &o, &r), 1);
	assert_false(r.ok);
	assert_non_null(strstr(r.why, "no power limit met the SLO"));
	advise_result_fini(&r);
}

/* Too few limits: refused, saying how many and why. */
static void
test_refuses_few_points(void **state)
{
	struct advise_window w[16];
	struct advise_opts o = { .slo_target = NAN };
	struct advise_result r;
	size_t n = sweep(w, 300, 400, 100, 3);

	(void)state;
	w[n] = win(500, 0);	/* one window only: not a point */
	w[n++].steady = true;
	w[n] = win(600, 0);
	w[n++].steady = false;	/* the limit changed: left out */
	w[n] = win(600, 1);
	w[n++].fac_j = NAN;	/* no facility figure: left out */
	assert_int_equal(advise_compute(w, n, &o, &r), 1);
	assert_false(r.ok);
	assert_int_equal(r.unsteady, 1);
	assert_int_equal(r.incomplete, 1);
	assert_int_equal(r.n, 3);
	assert_false(r.p[2].used);
	assert_non_null(strstr(r.why, "2 power limits"));
	assert_non_null(strstr(r.why, "at least 3 are needed"));
	advise_result_fini(&r);
	assert_int_equal(advise_compute(w, 0, &o, &r), 1);
	advise_result_fini(&r);
}

/* A flat curve: the range covers every limit within 2 SE. */
static void
test_flat_range(void **state)
{
	struct advise_window w[32];
	struct advise_opts o = { .slo_target = NAN };
	struct advise_result r;
	size_t n = 0, i;
	int k;

	(void)state;
	for (k = 0; k < 4; k++)
		for (i = 0; i < 4; i++) {
			double noise = 1 + 0.05 * ((k + (int)i) % 3 - 1);

			w[n] = win(300 + 100 * (double)i, k);
			w[n].fac_j = 2 * noise * w[n].tokens;
			n++;
		}
	assert_int_equal(advise_compute(w, n, &o, &r), 0);
	assert_true(r.range_hi_w - r.range_lo_w >= 200);
	advise_result_fini(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_minimum),
		cmocka_unit_test(test_slo_constrains),
		cmocka_unit_test(test_refuses_few_points),
		cmocka_unit_test(test_flat_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
