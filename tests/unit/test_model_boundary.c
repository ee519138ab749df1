/* Unit tests: model/boundary.c - totals, coverage and the method mix. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_model_near.h"

#include "../../model/boundary.h"

static void
test_total_mix_and_coverage(void **st)
{
	struct bnd_total t;
	struct bnd_value ctr = { .valid = true, .energy_j = 100,
	    .method = BM_COUNTER, .bound_j = 1 };
	struct bnd_value mod = { .valid = true, .energy_j = 50,
	    .method = BM_MODELED, .bound_j = 5 };
	struct bnd_value none = { 0 };
	char buf[64];

	(void)st;
	boundary_total_init(&t);
	boundary_total_add(&t, &ctr);
	boundary_total_add(&t, &ctr);
	boundary_total_add(&t, &mod);
	boundary_total_add(&t, &none);
	assert_int_equal(t.nodes, 4);
	assert_int_equal(t.counted, 3);
	assert_int_equal(t.measured, 2);
	assert_near(boundary_coverage(&t), 0.5, 0);
	assert_near(t.energy_j, 250, 0);
	assert_near(t.bound_j, 7, 0);
	assert_int_equal(t.method, BM_MODELED);
	assert_string_equal(boundary_mix_name(t.mix, buf, sizeof(buf)),
	    "counter+modeled");
	assert_string_equal(boundary_mix_name(1u << BM_COUNTER | 1u <<
	    BM_GAUGE | 1u << BM_MODELED, buf, sizeof(buf)),
	    "counter+gauge-estimated+modeled");
	assert_string_equal(boundary_mix_name(1u << BM_GAUGE, buf,
	    sizeof(buf)), "gauge-estimated");
	assert_string_equal(boundary_mix_name(0, buf, sizeof(buf)), "none");
	/* a short buffer is cut, never overrun */
	assert_string_equal(boundary_mix_name(1u << BM_COUNTER | 1u <<
	    BM_MODELED, buf, 9), "counter");
}

static void
test_facility_follows_wall(void **st)
{
	struct bnd_value w = { .valid = true, .energy_j = 1000,
	    .method = BM_MODELED, .bound_j = 100 }, f;

	(void)st;
	boundary_facility_pue(&w, 1.3, &f);
	assert_true(f.valid);
	assert_near(f.energy_j, 1300, 1e-9);
	assert_near(f.bound_j, 130, 1e-9);
	assert_int_equal(f.method, BM_MODELED);
	boundary_facility_pue(&w, NAN, &f);
	assert_false(f.valid);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_total_mix_and_coverage),
		cmocka_unit_test(test_facility_follows_wall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
