/* Unit tests: collector/lib/strpool.c (strings with shared tails) and
 * collector/lastset.c (a poll's samples kept compact in one). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/strpool.h"
#include "../../collector/lastset.h"

#define TAIL	";unit=1;profile=raritan-pdu2;vendor=Raritan;" \
		"profile_reason=config;sysdescr=Raritan PDU, MD:PX3-5190R"

static void
outlet_labels(int k, char *buf, size_t len)
{
	snprintf(buf, len, "name=Outlet %d;index=1.%d" TAIL, k, k);
}

/* Every string comes back whole, the outlets' labels cost their heads,
 * and a string equal to a recent one is stored once. */
static void
test_put_get_shared_tails(void **state)
{
	struct strpool sp = { 0 };
	char want[48][256], got[256];
	int64_t ref[48], again;
	size_t total = 0;
	int k;

	(void)state;
	for (k = 0; k < 48; k++) {
		outlet_labels(k + 1, want[k], sizeof(want[k]));
		total += strlen(want[k]) + 1;
		ref[k] = strpool_put(&sp, want[k]);
		assert_true(ref[k] >= 0);
		/* the outlet's energy: same labels, same reference */
		again = strpool_put(&sp, want[k]);
		assert_int_equal(again, ref[k]);
	}
	for (k = 0; k < 48; k++) {
		assert_int_equal(strpool_get(&sp, (uint32_t)ref[k], got,
		    sizeof(got), false), strlen(want[k]));
		assert_string_equal(got, want[k]);
		assert_true(strpool_eq(&sp, (uint32_t)ref[k], want[k]));
		assert_false(strpool_eq(&sp, (uint32_t)ref[k], "name=Outlet"));
		assert_false(strpool_eq(&sp, (uint32_t)ref[(k + 1) % 48],
		    want[k]));
	}
	/* heads only after the first: well under a third of the text */
	assert_true(sp.len * 3 < total);
	strpool_fini(&sp);
}

/* Short strings, empty ones, a tail that is the whole string, a cut and
 * the zeroed rest; reset empties and the pool works again. */
static void
test_edges(void **state)
{
	struct strpool sp = { 0 };
	const char *base = "0123456789abcdefghijklmnopqrstuvwxyz-long-enough";
	char got[16], big[128];
	int64_t a, b, c, e;
	size_t i;

	(void)state;
	a = strpool_put(&sp, base);
	b = strpool_put(&sp, base + 10);	/* all of it a tail */
	c = strpool_put(&sp, "W");
	e = strpool_put(&sp, "");
	assert_true(a >= 0 && b >= 0 && c >= 0 && e >= 0);
	strpool_get(&sp, (uint32_t)b, big, sizeof(big), false);
	assert_string_equal(big, base + 10);
	strpool_get(&sp, (uint32_t)e, big, sizeof(big), false);
	assert_string_equal(big, "");
	assert_true(strpool_eq(&sp, (uint32_t)e, ""));
	assert_false(strpool_eq(&sp, (uint32_t)c, ""));
	memset(got, 'x', sizeof(got));
	assert_int_equal(strpool_get(&sp, (uint32_t)b, got, sizeof(got),
	    true), sizeof(got) - 1);
	assert_memory_equal(got, base + 10, sizeof(got) - 1);
	assert_int_equal(got[sizeof(got) - 1], '\0');
	memset(big, 'x', sizeof(big));
	strpool_get(&sp, (uint32_t)c, big, sizeof(big), true);
	assert_string_equal(big, "W");
	for (i = 1; i < sizeof(big); i++)
		assert_int_equal(big[i], 0);
	strpool_reset(&sp);
	assert_int_equal(sp.len, 0);
	a = strpool_put(&sp, "again");
	strpool_get(&sp, (uint32_t)a, big, sizeof(big), false);
	assert_string_equal(big, "again");
	strpool_trim(&sp);
	strpool_get(&sp, (uint32_t)a, big, sizeof(big), false);
	assert_string_equal(big, "again");
	strpool_fini(&sp);
}

static void
pdu_samples(struct wp_sample *s, int n, int poll)
{
	int k;

	memset(s, 0, (size_t)n * sizeof(*s));
	for (k = 0; k < n; k++) {
		struct wp_sample *x = &s[k];

		snprintf(x->series, sizeof(x->series), "outlet/%d/%s",
		    k / 2 + 1, k % 2 ? "energy" : "power");
		outlet_labels(k / 2 + 1, x->labels, sizeof(x->labels));
		snprintf(x->raw_unit, sizeof(x->raw_unit), "%s",
		    k % 2 ? "Wh" : "W");
		x->kind = k % 2 ? WP_COUNTER : WP_GAUGE;
		x->quantity = k % 2 ? WP_Q_ENERGY : WP_Q_POWER;
		x->boundary = WP_B_OUTLET;
		x->value = 1000.0 / (k + 1) + poll;
		x->raw_value = x->value * 3;
		x->resolution = k % 2 ? 3600 : 1;
		x->flags = (uint32_t)k;
		x->t_real = 1000 + poll;
		x->t_mono = 2000 + poll;
		x->device_time = k % 3 ? 0 : 77;
	}
}

/* A poll's samples come back byte for byte, polls replace each other,
 * and find and reading see the set. */
static void
test_lastset_roundtrip(void **state)
{
	struct wp_sample in[98], out[98];
	struct lastset set = { 0 };
	double v;
	wp_time t;
	int kind, poll;

	(void)state;
	for (poll = 0; poll < 3; poll++) {
		pdu_samples(in, 98, poll);
		assert_int_equal(lastset_set(&set, in, 98, NULL), 0);
		memset(out, 0x55, sizeof(out));
		assert_int_equal(lastset_expand(&set, out), 98);
		assert_memory_equal(out, in, sizeof(in));
	}
	assert_int_equal(lastset_find(&set, "outlet/7/energy", 0), 13);
	assert_int_equal(lastset_find(&set, "outlet/7/energy", 13), 13);
	assert_int_equal(lastset_find(&set, "outlet/7", 0), -1);
	lastset_reading(&set, 13, &t, &v, &kind);
	assert_int_equal(t, 1002);
	assert_true(v == in[13].value);
	assert_int_equal(kind, WP_COUNTER);
	assert_true(set.text->pool.len < 98 * 40);	/* heads and names only */
	assert_int_equal(lastset_set(&set, in, 0, NULL), 0);
	assert_int_equal(set.n, 0);
	lastset_fini(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_shared_tails),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_lastset_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
