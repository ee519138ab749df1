/* Unit tests: collector/lib/clock.c - durations and times as configs and
 * command lines write them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../collector/lib/clock.h"

static wp_time
dur(const char *s)
{
	wp_time t = -42;

	assert_int_equal(clock_parse_duration(s, &t), 0);
	return t;
}

static void
test_durations(void **st)
{
	(void)st;
	assert_true(dur("10s") == 10 * WP_SEC);
	assert_true(dur("5m") == 300 * WP_SEC);
	assert_true(dur("1h") == 3600 * WP_SEC);
	assert_true(dur("250ms") == 250 * WP_MS);
	assert_true(dur("2d") == 2 * 86400 * WP_SEC);
	assert_true(dur("1.5s") == 1500 * WP_MS);
	assert_true(dur("30") == 30 * WP_SEC);		/* bare: seconds */
	assert_true(dur("0s") == 0);
	/* compounds */
	assert_true(dur("1h30m") == 5400 * WP_SEC);
	assert_true(dur("1m30s") == 90 * WP_SEC);
	assert_true(dur("1d2h3m4s5ms") == ((86400 + 7200 + 180 + 4) * WP_SEC +
	    5 * WP_MS));
	assert_true(dur("1m0.5s") == 60500 * WP_MS);
}

static void
test_durations_refused(void **st)
{
	static const char *const bad[] = { "", "s", "10", "-5s", "+5s", "0x10d",
	    "0x10", "1e3s", "10 s", " 10s", "10s ", "1h30", "5mm", "1..5s",
	    "1.2.3s", "10sec", "10S", "nan", "inf", "1h-30m", ".s",
	    "99999999999999999999d", NULL };
	wp_time t = 7;
	int i;

	(void)st;
	for (i = 0; bad[i] != NULL; i++) {
		if (i == 2)	/* "10" alone is seconds: fine */
			continue;
		if (clock_parse_duration(bad[i], &t) != -1)
			fail_msg("duration '%s' accepted", bad[i]);
		assert_true(t == 7);
	}
	assert_int_equal(clock_parse_duration(NULL, &t), -1);
}

static void
test_times(void **st)
{
	wp_time t;
	char buf[40];

	(void)st;
	assert_int_equal(clock_parse_time("2026-11-29T10:00:00Z", &t), 0);
	assert_true(t == 1795946400LL * WP_SEC);
	assert_int_equal(clock_parse_time("2026-11-29T11:00:00+01:00", &t), 0);
	assert_true(t == 1795946400LL * WP_SEC);
	assert_int_equal(clock_parse_time("1795946400", &t), 0);
	assert_true(t == 1795946400LL * WP_SEC);
	clock_iso8601(1795946400LL * WP_SEC + 5 * WP_MS, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-29T10:00:00.005Z");
	assert_int_equal(clock_parse_time("yesterday-ish", &t), -1);
}

static void
test_months(void **st)
{
	(void)st;
	assert_true(clock_next_month(1796083200LL * WP_SEC - 1) ==
	    1796083200LL * WP_SEC);			/* to 2026-12-01 */
	assert_true(clock_next_month(1798761600LL * WP_SEC - 1) ==
	    1798761600LL * WP_SEC);			/* to 2027-01-01 */
	assert_true(clock_next_month(1795946400LL * WP_SEC) ==
	    1796083200LL * WP_SEC);
	assert_true(clock_next_month(1793491200LL * WP_SEC) ==
	    1796083200LL * WP_SEC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_durations_refused),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_months),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
