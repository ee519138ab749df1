/* Unit tests: collector/sched.c - spreading, phase keeping, backoff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../collector/sched.h"

static void
test_first_polls_spread_over_interval(void **st)
{
	wp_time iv = 10 * WP_SEC, prev = -1, d;
	size_t i, n = 1000, per_second[10] = { 0 };

	(void)st;
	for (i = 0; i < n; i++) {
		d = sched_first_due(0, iv, i, n, 42);
		assert_true(d >= 0 && d < iv);
		assert_true(d > prev);		/* order kept, no ties */
		prev = d;
		per_second[d / WP_SEC]++;
	}
	/* No thundering herd: every second of the interval gets ~n/10. */
	for (i = 0; i < 10; i++)
		assert_true(per_second[i] >= 90 && per_second[i] <= 110);
}

static void
test_success_keeps_phase(void **st)
{
	(void)st;
	assert_int_equal(sched_next_ok(100 * WP_SEC, 101 * WP_SEC, 10 * WP_SEC),
	    110 * WP_SEC);
}

static void
test_behind_reschedules_from_now_without_burst(void **st)
{
	wp_time next;

	(void)st;
	/* Due at 100 s, finished at 135 s: the missed slots are skipped. */
	next = sched_next_ok(100 * WP_SEC, 135 * WP_SEC, 10 * WP_SEC);
	assert_int_equal(next, 140 * WP_SEC);
	assert_true(next > 135 * WP_SEC);
}

static void
test_backoff_doubles_to_cap(void **st)
{
	wp_time iv = 10 * WP_SEC, cap = 300 * WP_SEC;

	(void)st;
	assert_int_equal(sched_backoff(1, iv, cap), 10 * WP_SEC);
	assert_int_equal(sched_backoff(2, iv, cap), 20 * WP_SEC);
	assert_int_equal(sched_backoff(3, iv, cap), 40 * WP_SEC);
	assert_int_equal(sched_backoff(6, iv, cap), 300 * WP_SEC);
	assert_int_equal(sched_backoff(1000, iv, cap), 300 * WP_SEC);
	/* A cap below the interval never polls faster than the interval. */
	assert_int_equal(sched_backoff(5, iv, WP_SEC), iv);
}

static void
test_wake_on_batch_grid(void **st)
{
	wp_time iv = 10 * WP_SEC, b = 250 * WP_MS;

	(void)st;
	/* Rounded up to the grid, never early, never a step late. */
	assert_int_equal(sched_wake(0, iv, b), 0);
	assert_int_equal(sched_wake(1, iv, b), b);
	assert_int_equal(sched_wake(b, iv, b), b);
	assert_int_equal(sched_wake(b + 1, iv, b), 2 * b);
	assert_int_equal(sched_wake(-1, iv, b), 0);
	assert_int_equal(sched_wake(-b - 1, iv, b), -b);
	/* The step is at most a tenth of the interval. */
	assert_int_equal(sched_wake(1, WP_SEC, b), 100 * WP_MS);
	/* 0 (or an interval under 10 ns) keeps the exact due time. */
	assert_int_equal(sched_wake(12345, iv, 0), 12345);
	assert_int_equal(sched_wake(12345, 9, b), 12345);
}

static void
test_wake_batches_a_fleet(void **st)
{
	wp_time iv = 10 * WP_SEC, b = 250 * WP_MS, d, w, prev = -1;
	size_t i, n = 1000, wakes = 0;

	(void)st;
	/* 1,000 targets spread over 10 s wake 40 times, 25 polls each. */
	for (i = 0; i < n; i++) {
		d = sched_first_due(WP_SEC, iv, i, n, 7);
		w = sched_wake(d, iv, b);
		assert_true(w >= d && w - d < b);
		if (w != prev)
			wakes++;
		prev = w;
	}
	assert_true(wakes >= 40 && wakes <= 41);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_polls_spread_over_interval),
		cmocka_unit_test(test_success_keeps_phase),
		cmocka_unit_test(test_behind_reschedules_from_now_without_burst),
		cmocka_unit_test(test_backoff_doubles_to_cap),
		cmocka_unit_test(test_wake_on_batch_grid),
		cmocka_unit_test(test_wake_batches_a_fleet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
