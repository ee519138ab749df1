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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
