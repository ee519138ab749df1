/* Unit tests: model/counter.c - deltas, resets, wraps, dips, jitter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../model/counter.h"

static struct counter_out
feed(struct wp_counter *c, double v, double wrap, wp_time reset_time)
{
	struct counter_in in = { .value = v, .wrap = wrap,
	    .reset_time = reset_time, .t = 1 };
	struct counter_out out;

	counter_update(c, &in, &out);
	return out;
}

static void
test_first_reading_has_no_delta(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	o = feed(&c, 5000, 0, 0);
	assert_true(o.flags & 0x1);
	assert_true(o.delta == 0 && o.cum == 0);
	o = feed(&c, 5600, 0, 0);
	assert_true(o.delta == 600 && o.cum == 600);
}

static void
test_backwards_is_reset_never_negative(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	feed(&c, 1e6, 0, 0);
	feed(&c, 1.0001e6, 0, 0);
	o = feed(&c, 50, 0, 0);
	assert_true(o.flags & CTR_RESET);
	assert_true(o.delta == 50);
	assert_true(o.cum == 100 + 50);
	assert_int_equal(c.resets, 1);
}

static void
test_wrap_told_from_reset_by_magnitude(void **st)
{
	struct wp_counter c;
	struct counter_out o;
	double m = 4294967296.0;

	(void)st;
	counter_init(&c, false);
	feed(&c, m - 100, m, 0);
	o = feed(&c, 50, m, 0);
	assert_true(o.flags & CTR_WRAPPED);
	assert_true(o.delta == 150);
	/* A small step back under a modulus is still a reset, not a wrap. */
	feed(&c, 1000, m, 0);
	o = feed(&c, 400, m, 0);
	assert_true(o.flags & CTR_RESET);
	assert_true(o.delta == 400);
}

static void
test_reset_time_change_is_reset(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	feed(&c, 100, 0, 10);
	o = feed(&c, 5000, 0, 20);	/* went up, but the device reset */
	assert_true(o.flags & CTR_RESET);
	assert_true(o.delta == 5000);
}

static void
test_dip_held_then_resumed_without_spike(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, true);
	feed(&c, 1e9, 0, 0);
	o = feed(&c, 0, 0, 0);			/* meter rebooting */
	assert_true(o.flags & CTR_HELD);
	assert_true(o.delta == 0);
	o = feed(&c, 0, 0, 0);
	assert_true(o.flags & CTR_HELD);
	o = feed(&c, 1e9 + 3600, 0, 0);		/* total restored */
	assert_true(o.flags & CTR_RESUMED);
	assert_true(o.delta == 3600);
	assert_true(o.cum == 3600);
}

static void
test_dip_that_stays_becomes_reset(void **st)
{
	struct wp_counter c;
	struct counter_out o;
	int i;

	(void)st;
	counter_init(&c, true);
	feed(&c, 1e9, 0, 0);
	for (i = 0; i < 6; i++)
		assert_true(feed(&c, 10, 0, 0).flags & CTR_HELD);
	o = feed(&c, 20, 0, 0);
	assert_true(o.flags & CTR_RESET);
	assert_true(o.delta == 20);
}

static void
test_float_jitter_is_not_a_reset(void **st)
{
	struct wp_counter c;
	struct counter_in in = { .value = 1e6, .resolution = 450, .t = 1 };
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	counter_update(&c, &in, &o);
	in.value = 1e6 - 200;
	counter_update(&c, &in, &o);
	assert_false(o.flags & CTR_RESET);
	assert_true(o.delta == 0 && c.last == 1e6);
	in.value = 1e6 + 900;
	counter_update(&c, &in, &o);
	assert_true(o.delta == 900);
}

/* Readings 10 s apart at 500 W, with the plausibility limit ingest would
 * give beside a 500 W gauge (10 x 500 W + 1 kW). */
static struct counter_out
at(struct wp_counter *c, double v, int k)
{
	struct counter_in in = { .value = v, .t = (wp_time)k * 10 * WP_SEC,
	    .max_rate = 6000 };
	struct counter_out out;

	counter_update(c, &in, &out);
	return out;
}

static void
test_forward_jump_is_no_energy(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	at(&c, 81e6, 0);
	o = at(&c, 81e6 + 5000, 1);
	assert_true(o.delta == 5000 && o.flags == 0);
	/* +1e15 J in 10 s: 1e14 W beside a 500 W gauge */
	o = at(&c, 81e6 + 5000 + 1e15, 2);
	assert_true(o.flags & CTR_IMPLAUSIBLE);
	assert_true(o.flags & CTR_DISCONT);
	assert_true(o.delta == 0 && o.cum == 5000);
	assert_int_equal(c.implausible, 1);
	/* it goes on from the new value */
	o = at(&c, 81e6 + 5000 + 1e15 + 5000, 3);
	assert_true(o.delta == 5000 && o.cum == 10000 && o.flags == 0);
	/* just under the limit is energy */
	o = at(&c, 81e6 + 10000 + 1e15 + 59999, 4);
	assert_true(o.delta == 59999 && o.flags == 0);
}

/* A reading 0.1 s after one that came late holds a whole interval's
 * energy: judged over the 2 s poll interval it is plausible (300 J is
 * 150 W), over its own 0.1 s it would be 3 kW, above the 2.5 kW limit. */
static void
test_step_after_late_reading(void **st)
{
	struct wp_counter c;
	struct counter_in in = { .value = 1000, .t = 10 * WP_SEC,
	    .max_rate = 2500, .min_dt = 2 * WP_SEC };
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	counter_update(&c, &in, &o);
	in.value = 1300;
	in.t += WP_SEC / 10;
	counter_update(&c, &in, &o);
	assert_true(o.delta == 300 && o.flags == 0);
	in.min_dt = 0;
	in.value = 1600;
	in.t += WP_SEC / 10;
	counter_update(&c, &in, &o);
	assert_true(o.flags & CTR_IMPLAUSIBLE);
	/* a step too large for a whole interval is refused all the same */
	in.min_dt = 2 * WP_SEC;
	in.value = 1600 + 6000;
	in.t += WP_SEC / 10;
	counter_update(&c, &in, &o);
	assert_true(o.flags & CTR_IMPLAUSIBLE);
}

static void
test_small_step_back_is_held_not_reset(void **st)
{
	struct wp_counter c;
	struct counter_out o;
	int k;

	(void)st;
	counter_init(&c, false);
	at(&c, 81e6, 0);
	/* back 1 kJ a poll, forward 5 kJ the next: never a reset, the energy
	 * counts once the counter passes its highest value */
	for (k = 1; k <= 20; k += 2) {
		o = at(&c, 81e6 + (k / 2) * 4000 - 1000, k);
		assert_true(o.flags & CTR_BACKSTEP);
		assert_false(o.flags & CTR_RESET);
		assert_true(o.delta == 0);
		o = at(&c, 81e6 + (k / 2 + 1) * 4000, k + 1);
		assert_false(o.flags & CTR_RESET);
	}
	assert_int_equal(c.resets, 0);
	assert_true(c.cum == 10 * 4000);
	/* a drop to near zero is still a reset, counted from 0 */
	o = at(&c, 2000, 22);
	assert_true(o.flags & CTR_RESET);
	assert_true(o.delta == 2000);
}

static void
test_reset_too_large_to_be_since_restart(void **st)
{
	struct wp_counter c;
	struct counter_out o;

	(void)st;
	counter_init(&c, false);
	at(&c, 81e6, 0);
	at(&c, 81e6 + 5000, 1);
	/* down to 30 MJ: a reset by the rule, but 30 MJ in 10 s is not what
	 * a 500 W node drew since a restart: no whole counter added */
	o = at(&c, 30e6, 2);
	assert_true(o.flags & CTR_RESET);
	assert_true(o.flags & CTR_IMPLAUSIBLE);
	assert_true(o.delta == 0 && o.cum == 5000);
	o = at(&c, 30e6 + 5000, 3);
	assert_true(o.delta == 5000 && o.cum == 10000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_reading_has_no_delta),
		cmocka_unit_test(test_backwards_is_reset_never_negative),
		cmocka_unit_test(test_wrap_told_from_reset_by_magnitude),
		cmocka_unit_test(test_reset_time_change_is_reset),
		cmocka_unit_test(test_dip_held_then_resumed_without_spike),
		cmocka_unit_test(test_dip_that_stays_becomes_reset),
		cmocka_unit_test(test_float_jitter_is_not_a_reset),
		cmocka_unit_test(test_forward_jump_is_no_energy),
		cmocka_unit_test(test_step_after_late_reading),
		cmocka_unit_test(test_small_step_back_is_held_not_reset),
		cmocka_unit_test(test_reset_too_large_to_be_since_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
