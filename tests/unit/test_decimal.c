/* Unit tests: collector/decimal.c - digits as printf's %lld writes them. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/decimal.h"

static void
check(long long v)
{
	char got[DECIMAL_MAX + 8], want[32];
	size_t n;

	memset(got, 'x', sizeof(got));
	n = decimal_put(got, v);
	snprintf(want, sizeof(want), "%lld", v);
	assert_int_equal(n, strlen(want));
	assert_true(n <= DECIMAL_MAX);
	assert_memory_equal(got, want, n);
	assert_int_equal(got[n], 'x');		/* no NUL, nothing beyond */
}

static void
test_matches_printf(void **state)
{
	long long p = 1;
	int i;

	(void)state;
	check(0);
	check(LLONG_MAX);
	check(LLONG_MIN);
	check((long long)UINT32_MAX);
	for (i = 0; i < 19; i++) {	/* 10^0 .. 10^18 and their neighbours */
		check(p);
		check(p - 1);
		check(-p);
		check(-p + 1);
		if (i < 18)
			p *= 10;
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
