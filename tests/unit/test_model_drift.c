/* test_model_drift.c - the drift tracker (model/drift.c, issue 23). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../model/drift.h"

static const struct drift_opts opts = { .learn = 6, .persist = 2,
    .acc_a = 0.02, .acc_b = 0.01 };

static struct drift_win
win(double a, double b)
{
	struct drift_win w = { .valid = true, .a = a, .b = b,
	    .bound_a = 1, .bound_b = 3600 };

	return w;
}

/* A healthy pair (outlets 1.5 % above the wall, +-0.2 % noise) is never
 * flagged; its usual ratio and spread are learned. */
static void
test_healthy_pair_quiet(void **state)
{
	struct drift_track t;
	int i, ev;

	(void)state;
	assert_int_equal(drift_track_init(&t, &opts), 0);
	for (i = 0; i < 48; i++) {
		double a = 3e6 + 1e5 * (i % 5);
		struct drift_win w = win(a, a * (1.015 + 0.002 * ((i % 3) - 1)));

		ev = drift_track_add(&t, &w);
		assert_int_equal(ev, DRIFT_EV_NONE);
	}
	assert_true(t.learned);
	assert_true(fabs(t.usual - 1.015) < 0.0025);
	assert_int_equal(t.n, 48);
	assert_int_equal(t.n_beyond, 0);
	assert_false(t.active);
	assert_true(drift_track_sd(&t) < 0.003);
	assert_true(t.last_tol > 0.03 && t.last_tol < 0.05);
}

/* A wall reading that drifts up by 5 % over 12 windows after learning:
 * flagged once (START), after the tolerance is crossed `persist` times,
 * and the END when it comes back. */
static void
test_drift_event_once(void **state)
{
	struct drift_track t;
	int i, starts = 0, ends = 0, start_at = -1, ev;

	(void)state;
	assert_int_equal(drift_track_init(&t, &opts), 0);
	for (i = 0; i < 30; i++) {
		double k = i < 6 ? 0 : fmin(0.05, 0.05 * (i - 6) / 12.0);
		double e = 3e6;
		struct drift_win w = win(e * (1 + k), e * 1.01);

		if (i >= 26)	/* recalibrated */
			w = win(e, e * 1.01);
		ev = drift_track_add(&t, &w);
		if (ev == DRIFT_EV_START && start_at < 0)
			start_at = i;
		starts += ev == DRIFT_EV_START;
		ends += ev == DRIFT_EV_END;
	}
	assert_int_equal(starts, 1);
	assert_int_equal(ends, 1);
	/* tolerance ~3.1 %: crossed at k > 0.031 (i = 14), persisted at 15 */
	assert_true(start_at >= 14 && start_at <= 16);
	assert_true(t.worst_dev < -0.04);
	assert_false(t.active);
	assert_int_equal(t.events, 1);
}

/* A dead outlet (its side at half the energy): one event; a single odd
 * window with persist 2 is not; invalid windows count apart. */
static void
test_dead_side_and_glitch(void **state)
{
	struct drift_track t;
	struct drift_win w;
	int i, starts = 0;

	(void)state;
	assert_int_equal(drift_track_init(&t, &opts), 0);
	for (i = 0; i < 20; i++) {
		w = win(3e6, i == 8 ? 2.5e6 : i >= 12 ? 1.5e6 : 3e6);
		if (i == 10)
			w.valid = false;
		starts += drift_track_add(&t, &w) == DRIFT_EV_START;
	}
	assert_int_equal(starts, 1);
	assert_true(t.active);
	assert_int_equal(t.invalid, 1);
	assert_true(fabs(t.last_dev + 0.5) < 1e-9);
	assert_true(fabs(t.min - 0.5) < 1e-9);
}

/* Side a stops (every outlet of a PDU dead) while b goes on: beyond,
 * out of the statistics; before learning, such a window is invalid. */
static void
test_side_a_stops(void **state)
{
	struct drift_track t;
	struct drift_win w;
	int i, starts = 0;

	(void)state;
	assert_int_equal(drift_track_init(&t, &opts), 0);
	w = win(0, 3e6);
	assert_int_equal(drift_track_add(&t, &w), DRIFT_EV_NONE);
	assert_int_equal(t.invalid, 1);
	for (i = 0; i < 10; i++) {
		w = win(i < 7 ? 3e6 : 0, 3.03e6);
		starts += drift_track_add(&t, &w) == DRIFT_EV_START;
	}
	assert_int_equal(starts, 1);
	assert_true(t.active);
	assert_true(isinf(t.last_dev));
	assert_int_equal(t.n, 7);
	assert_true(fabs(t.max - 1.01) < 1e-12);
}

static void
test_bad_opts_and_names(void **state)
{
	struct drift_track t;
	struct drift_opts o = opts;

	(void)state;
	o.learn = 0;
	assert_int_equal(drift_track_init(&t, &o), -1);
	o = opts;
	o.persist = 0;
	assert_int_equal(drift_track_init(&t, &o), -1);
	o = opts;
	o.acc_a = NAN;
	assert_int_equal(drift_track_init(&t, &o), -1);
	assert_int_equal(drift_kind_parse("pdu_inlet"), DK_PDU_INLET);
	assert_int_equal(drift_kind_parse("nope"), -1);
	assert_string_equal(drift_side_name(DK_WALL_OUTLET, 1), "outlets");
	assert_null(drift_kind_name(DK_N));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_pair_quiet),
		cmocka_unit_test(test_drift_event_once),
		cmocka_unit_test(test_dead_side_and_glitch),
		cmocka_unit_test(test_side_a_stops),
		cmocka_unit_test(test_bad_opts_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
