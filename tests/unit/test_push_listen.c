/* Unit tests: collector/push_listen.c - the push URL's token. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/push_listen.h"

static void
test_tokens_random_hex(void **state)
{
	char a[PUSH_TOKEN_LEN + 1], b[PUSH_TOKEN_LEN + 1];
	struct wp_err err;

	(void)state;
	assert_int_equal(push_token_new(a, &err), 0);
	assert_int_equal(push_token_new(b, &err), 0);
	assert_int_equal(strlen(a), PUSH_TOKEN_LEN);
	assert_int_equal(strspn(a, "0123456789abcdef"), PUSH_TOKEN_LEN);
	assert_string_not_equal(a, b);
}

static void
test_token_compare(void **state)
{
	char a[PUSH_TOKEN_LEN + 1], b[PUSH_TOKEN_LEN + 2];
	struct wp_err err;

	(void)state;
	assert_int_equal(push_token_new(a, &err), 0);
	memcpy(b, a, sizeof(a));
	assert_true(push_token_eq(a, b));
	b[PUSH_TOKEN_LEN - 1] ^= 1;		/* the last character differs */
	assert_false(push_token_eq(a, b));
	b[PUSH_TOKEN_LEN - 1] ^= 1;
	b[PUSH_TOKEN_LEN] = '0';		/* one too long */
	b[PUSH_TOKEN_LEN + 1] = '\0';
	assert_false(push_token_eq(b, a));
	b[PUSH_TOKEN_LEN - 1] = '\0';		/* one too short */
	assert_false(push_token_eq(b, a));
	assert_false(push_token_eq("", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens_random_hex),
		cmocka_unit_test(test_token_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
