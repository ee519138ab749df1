/* Unit tests: collector/lib/timearg.c - times as a command line writes
 * them (--from, --to of report, curve, graph, journal export). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/timearg.h"

#define S(x)	((wp_time)(x) * WP_SEC)
/* 2026-11-29T10:00:00Z */
#define T0	1795946400LL
/* 2026-12-02T01:41:17Z, the "now" of these tests */
#define NOW	1796175677LL

static wp_time
at(const char *s, enum timearg_edge e)
{
	wp_time t = -42;

	if (timearg_parse(s, e, S(NOW), &t) != 0)
		fail_msg("'%s' refused", s);
	return t;
}

static void
test_iso(void **st)
{
	(void)st;
	assert_true(at("2026-11-29T10:00:00Z", TA_FROM) == S(T0));
	assert_true(at("2026-11-29T10:00:00Z", TA_TO) == S(T0));
	assert_true(at("2026-11-29T11:00:00+01:00", TA_FROM) == S(T0));
	assert_true(at("2026-11-29T05:30:00-0430", TA_FROM) == S(T0));
	assert_true(at("2026-11-29T11:00+01", TA_FROM) == S(T0));
	assert_true(at("2026-11-29 10:00:00Z", TA_FROM) == S(T0));
	assert_true(at("2026-11-29t10:00z", TA_FROM) == S(T0));
	/* no zone: UTC; no seconds */
	assert_true(at("2026-11-29T10:00:00", TA_FROM) == S(T0));
	assert_true(at("2026-11-29T10:00", TA_TO) == S(T0));
	assert_true(at("2026-11-29T10:00:00.25Z", TA_FROM) ==
	    S(T0) + 250 * WP_MS);
	assert_true(at("2026-11-29T10:00:00,5", TA_FROM) ==
	    S(T0) + 500 * WP_MS);
}

static void
test_spans(void **st)
{
	(void)st;
	/* a day */
	assert_true(at("2026-11-29", TA_FROM) == S(T0 - 36000));
	assert_true(at("2026-11-29", TA_TO) == S(T0 - 36000 + 86400));
	/* a month: its start, its end (the next month's start) */
	assert_true(at("2026-11", TA_FROM) == S(1793491200LL));
	assert_true(at("2026-11", TA_TO) == S(1796083200LL));
	assert_true(at("2026-12", TA_TO) == S(1798761600LL));
	assert_true(at("2026-02", TA_TO) == at("2026-03-01", TA_FROM));
	/* a year */
	assert_true(at("2026", TA_FROM) == S(1767225600LL));
	assert_true(at("2026", TA_TO) == S(1798761600LL));
	assert_true(at("2026", TA_TO) == at("2027-01-01T00:00:00Z", TA_FROM));
	assert_true(at("2024-02-29", TA_TO) == at("2024-03-01", TA_FROM));
}

static void
test_relative(void **st)
{
	(void)st;
	assert_true(at("now", TA_FROM) == S(NOW));
	assert_true(at("now", TA_TO) == S(NOW));
	assert_true(at("now-1h", TA_FROM) == S(NOW - 3600));
	assert_true(at("now-1h30m", TA_FROM) == S(NOW - 5400));
	assert_true(at("now-90m", TA_TO) == S(NOW - 5400));
	assert_true(at("now+10s", TA_TO) == S(NOW + 10));
	assert_true(at("now-2d", TA_FROM) == S(NOW - 2 * 86400));
	/* 2026-12-02 */
	assert_true(at("today", TA_FROM) == S(1796169600LL));
	assert_true(at("today", TA_TO) == S(1796169600LL + 86400));
	assert_true(at("yesterday", TA_FROM) == S(1796169600LL - 86400));
	assert_true(at("yesterday", TA_TO) == S(1796169600LL));
	assert_true(at("today", TA_FROM) == at("2026-12-02", TA_FROM));
}

static void
test_epoch(void **st)
{
	(void)st;
	assert_true(at("1795946400", TA_FROM) == S(T0));
	assert_true(at("1795946400.5", TA_TO) == S(T0) + 500 * WP_MS);
	assert_true(at("0", TA_FROM) == 0);
	/* four digits are a year, never 2026 s after 1970 */
	assert_true(at("2026", TA_FROM) != S(2026));
}

static void
test_refused(void **st)
{
	static const char *const bad[] = { "", "xyz", "now-", "now-1x",
	    "now1h", "nowish", "Now", "todayy", "tomorrow", "2026-13",
	    "2026-00", "2026-11-31", "2026-02-29", "2026-11-29T24:00",
	    "2026-11-29T10:60", "2026-11-29T10", "2026-11-29T10:00:00Q",
	    "2026-11-29T10:00+25:00", "2026-11-29T10:00:00Z ", " 2026",
	    "2026-1", "2026-11-2", "2026-11-29X10:00",
	    "-5", "1e9", "0x10", "1795946400.", "1.2.3",
	    "99999999999999999999", "1968", "yesterday-1h", NULL };
	wp_time t = 7;
	int i;

	(void)st;
	for (i = 0; bad[i] != NULL; i++) {
		if (timearg_parse(bad[i], TA_FROM, S(NOW), &t) != -1 ||
		    timearg_parse(bad[i], TA_TO, S(NOW), &t) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(t == 7);
	}
	assert_int_equal(timearg_parse(NULL, TA_FROM, 0, &t), -1);
}

static void
test_message(void **st)
{
	char msg[512];
	wp_time t;

	(void)st;
	assert_int_equal(timearg_opt("--from", "xyz", TA_FROM, S(NOW), &t, msg,
	    sizeof(msg)), -1);
	assert_true(strncmp(msg, "--from: cannot parse 'xyz' (expected ",
	    37) == 0);
	assert_non_null(strstr(msg, "now-1h"));
	assert_int_equal(timearg_opt("--to", "now", TA_TO, S(NOW), &t, msg,
	    sizeof(msg)), 0);
	assert_true(t == S(NOW));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_relative),
		cmocka_unit_test(test_epoch),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
