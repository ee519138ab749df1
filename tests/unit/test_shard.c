/*
 * Unit tests: collector/lib/shard.c - FNV-1a test vectors, jump consistent
 * hash against an independent reference (values computed by a separate
 * Python implementation of the paper's code), the consistency property
 * (count -> count + 1 moves keys only into the new shard), and balance.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "../../collector/lib/shard.h"

static void
test_fnv1a_vectors(void **st)
{
	(void)st;
	/* the published FNV-1a 64 test vectors */
	assert_true(shard_fnv1a("") == 0xcbf29ce484222325ULL);
	assert_true(shard_fnv1a("a") == 0xaf63dc4c8601ec8cULL);
	assert_true(shard_fnv1a("foobar") == 0x85944171f73967e8ULL);
}

static void
test_jump_reference(void **st)
{
	static const struct { const char *k; uint32_t want[6]; } v[] = {
		{ "gpu-001", { 0, 0, 0, 4, 5, 5 } },
		{ "gpu-002", { 0, 1, 2, 4, 5, 27 } },
		{ "gpu-003", { 0, 1, 1, 1, 1, 54 } },
		{ "pdu-r1-a", { 0, 0, 0, 0, 0, 27 } },
		{ "incomer-1", { 0, 1, 1, 1, 1, 63 } },
		{ "gpu-1000", { 0, 0, 0, 0, 8, 14 } },
	};
	static const uint32_t counts[6] = { 1, 2, 3, 5, 10, 100 };
	size_t i, j;

	(void)st;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (j = 0; j < 6; j++)
			assert_int_equal(shard_of(v[i].k, counts[j]),
			    v[i].want[j]);
	assert_int_equal(shard_of("anything", 0), 0);
}

/* Growing the set of collectors moves keys only to the new one. */
static void
test_consistent_and_balanced(void **st)
{
	char key[32];
	uint32_t n, a, b, per[8] = { 0 };
	unsigned i, moved;

	(void)st;
	for (n = 1; n < 8; n++) {
		moved = 0;
		for (i = 0; i < 4000; i++) {
			snprintf(key, sizeof(key), "gpu-%05u", i);
			a = shard_of(key, n);
			b = shard_of(key, n + 1);
			assert_true(a < n && b < n + 1);
			if (a != b) {
				assert_int_equal(b, n);
				moved++;
			}
		}
		/* about 1/(n+1) of the keys move: within 25 % of that */
		assert_true(moved * (n + 1) > 4000 * 3 / 4);
		assert_true(moved * (n + 1) < 4000 * 5 / 4);
	}
	for (i = 0; i < 8000; i++) {
		snprintf(key, sizeof(key), "node%u", i);
		per[shard_of(key, 8)]++;
	}
	for (n = 0; n < 8; n++)
		assert_true(per[n] > 800 && per[n] < 1200);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv1a_vectors),
		cmocka_unit_test(test_jump_reference),
		cmocka_unit_test(test_consistent_and_balanced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
