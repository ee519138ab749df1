/* Unit tests: collector/lib/strcopy.c - the text, the NUL and the return
 * as snprintf's "%s", "%.*s" and "%s%s" give them, at every buffer length. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/strcopy.h"

#define BUF	24

static const char *const texts[] = { "", "a", "X-Auth-Token: ",
    "/redfish/v1/Chassis/Node0", "0123456789012345678901234567890" };

static void
test_copy(void **state)
{
	char got[BUF + 4], want[BUF + 4];
	size_t i, len, n, w;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (len = 1; len <= BUF; len++) {
			memset(got, 'x', sizeof(got));
			memset(want, 'x', sizeof(want));
			n = str_copy(got, len, texts[i]);
			w = (size_t)snprintf(want, len, "%s", texts[i]);
			assert_int_equal(n, w);
			assert_memory_equal(got, want, sizeof(got));
		}
}

static void
test_copy_n(void **state)
{
	char got[BUF + 4], want[BUF + 4];
	size_t i, len, k, n, w;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (len = 1; len <= BUF; len++)
			for (k = 0; k <= 33; k += 3) {
				memset(got, 'x', sizeof(got));
				memset(want, 'x', sizeof(want));
				n = str_copy_n(got, len, texts[i], k);
				w = (size_t)snprintf(want, len, "%.*s", (int)k,
				    texts[i]);
				assert_int_equal(n, w);
				assert_memory_equal(got, want, sizeof(got));
			}
}

static void
test_append(void **state)
{
	char got[BUF + 4], want[BUF + 4];
	size_t i, j, len, n, w;

	(void)state;
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (j = 0; j < sizeof(texts) / sizeof(texts[0]); j++)
			for (len = 1; len <= BUF; len++) {
				memset(got, 'x', sizeof(got));
				memset(want, 'x', sizeof(want));
				n = str_copy(got, len, texts[i]);
				n = str_append(got, len, n, texts[j]);
				n = str_append(got, len, n, "#/");
				w = (size_t)snprintf(want, len, "%s%s#/",
				    texts[i], texts[j]);
				assert_int_equal(n, w);
				assert_memory_equal(got, want, sizeof(got));
			}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_copy_n),
		cmocka_unit_test(test_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
