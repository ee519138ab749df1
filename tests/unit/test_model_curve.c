/* Unit tests: model/curve.c - bins by load, fits with R^2, deviation. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"

#include "../../model/curve.h"

/* An 8 x 700 W node: wall = 1500 + 1.2 gpu + 2e-5 gpu^2 (fixed host
 * power, so the ratio falls as load rises). */
static double
wall_of(double gpu)
{
	return 1500 + 1.2 * gpu + 2e-5 * gpu * gpu;
}

static void
test_bins_and_quadratic_fit(void **st)
{
	struct curve c;
	struct curve_fit f1, f2;
	int i;

	(void)st;
	curve_init(&c);
	for (i = 0; i <= 200; i++) {
		double gpu = 600 + 5000.0 * i / 200;

		curve_add(&c, gpu, wall_of(gpu), 5600);
	}
	curve_add(&c, NAN, 1, 5600);		/* ignored */
	curve_add(&c, 100, 200, 0);		/* no limit: ignored */
	assert_int_equal(c.n, 201);
	curve_fit(&c, 2, &f2);
	assert_true(f2.valid);
	assert_near(f2.a, 1500, 1e-4);
	assert_near(f2.b, 1.2, 1e-8);
	assert_near(f2.c, 2e-5, 1e-12);
	assert_near(f2.r2, 1, 1e-9);
	curve_fit(&c, 1, &f1);
	assert_true(f1.valid);
	assert_true(f1.r2 > 0.99 && f1.r2 < 1);
	/* residuals: none for the exact quadratic, some for the line; the
	 * line's RMS matches the residuals computed directly */
	assert_near(f2.rms, 0, 1e-3);
	{
		double sse = 0, mw = 0;

		for (i = 0; i <= 200; i++) {
			double gpu = 600 + 5000.0 * i / 200;
			double d = wall_of(gpu) - curve_eval(&f1, gpu);

			sse += d * d;
			mw += wall_of(gpu);
		}
		assert_near(f1.rms, sqrt(sse / 201), 1e-3);
		assert_near(f1.mean_wall, mw / 201, 1e-6);
		assert_true(f1.rms > 1);
	}
	assert_near(curve_eval(&f2, 3000), wall_of(3000), 1e-6);
	/* the ratio falls with load */
	assert_true(curve_bin_ratio(&c, 1) > curve_bin_ratio(&c, 9));
	assert_near(curve_bin_load_lo(3), 0.3, 1e-12);
	assert_true(isnan(curve_bin_mean_gpu(&c, 0)));
	assert_true(curve_bin_mean_wall(&c, 5) > 0);
}

static void
test_underdetermined_fit(void **st)
{
	struct curve c;
	struct curve_fit f;

	(void)st;
	curve_init(&c);
	curve_add(&c, 1000, 2500, 5600);
	curve_add(&c, 1000, 2500, 5600);
	curve_add(&c, 1000, 2500, 5600);
	curve_fit(&c, 1, &f);
	assert_false(f.valid);		/* one x value only */
	curve_fit(&c, 2, &f);
	assert_false(f.valid);
}

static void
test_deviation_flags_outlier_node(void **st)
{
	struct curve cls, good, bad;
	bool flag;
	int i;

	(void)st;
	curve_init(&cls);
	curve_init(&good);
	curve_init(&bad);
	for (i = 0; i < 100; i++) {
		double gpu = 600 + 48.0 * i;

		curve_add(&good, gpu, wall_of(gpu) * 1.01, 5600);
		curve_add(&bad, gpu, wall_of(gpu) * 1.12, 5600);
		curve_add(&cls, gpu, wall_of(gpu), 5600);
	}
	curve_merge(&cls, &good);
	assert_int_equal(cls.n, 200);
	assert_true(curve_deviation(&good, &cls, 0.05, &flag) < 0.05);
	assert_false(flag);
	assert_true(curve_deviation(&bad, &cls, 0.05, &flag) > 0.05);
	assert_true(flag);
	curve_init(&bad);
	assert_true(isnan(curve_deviation(&bad, &cls, 0.05, &flag)));
	assert_false(flag);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bins_and_quadratic_fit),
		cmocka_unit_test(test_underdetermined_fit),
		cmocka_unit_test(test_deviation_flags_outlier_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
