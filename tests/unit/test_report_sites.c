/*
 * Unit tests: model/report_sites.c - the fleet over several sites: each
 * boundary the sites' sum with bounds added; the facility boundary each
 * site's own summed (not the fleet wall x one PUE); the fleet PUE the sum
 * of metered facility energies over the sum of IT energies (not the mean
 * of the sites' PUEs), left out with a warning when a site's PUE is not
 * metered; a figure missing at one site leaves the fleet figure out,
 * naming the site.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../model/report_sites.h"

/* A site's report: wall, facility = wall x pue, metered energies. */
static void
site(struct report *r, double wall, double fac, double it, double out,
    const char *src)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->bnd[BND_WALL].fig.v = (struct bnd_value){ .valid = true,
	    .energy_j = wall, .bound_j = wall / 100 };
	r->bnd[BND_GPU].fig.v = (struct bnd_value){ .valid = true,
	    .energy_j = wall / 2, .bound_j = 1 };
	r->bnd[BND_FACILITY].fig.v = (struct bnd_value){ .valid = true,
	    .energy_j = wall * fac / it, .bound_j = 2 };
	r->pue.source = src;
	r->pue.facility_j = fac;
	r->pue.it_j = it;
	r->pue.value = fac / it;
}

static void
test_sums_without_mixing(void **st)
{
	struct report a, b;
	struct report_site_row rows[2] = { { "a", &a }, { "b", &b } };
	struct report_sites s;

	(void)st;
	/* a: PUE 1.2 on 1000 J of wall; b: PUE 2.0 on 100 J */
	site(&a, 1000, 1200, 1000, 10, "metered");
	site(&b, 100, 400, 200, 10, "metered");
	assert_int_equal(report_sites_sum(&s, rows, 2), 0);
	assert_true(s.b[BND_WALL].valid);
	assert_true(fabs(s.b[BND_WALL].energy_j - 1100) < 1e-9);
	assert_true(fabs(s.b[BND_WALL].bound_j - 11) < 1e-9);
	assert_true(fabs(s.b[BND_FACILITY].energy_j - 1400) < 1e-9);
	assert_true(fabs(s.b[BND_FACILITY].bound_j - 4) < 1e-9);
	assert_true(fabs(s.b[BND_WALL].j_per_output_token - 55) < 1e-9);
	/* (1200 + 400) / (1000 + 200), not (1.2 + 2.0) / 2 */
	assert_true(fabs(s.pue - 1600.0 / 1200.0) < 1e-12);
	assert_int_equal(s.b[BND_OUTLET].sites, 0);
	assert_false(s.b[BND_OUTLET].valid);
	assert_int_equal(s.w.n, 0);
	report_sites_fini(&s);
}

static void
test_missing_site(void **st)
{
	struct report a, b;
	struct report_site_row rows[2] = { { "a", &a }, { "b", &b } };
	struct report_sites s;

	(void)st;
	site(&a, 1000, 1200, 1000, 10, "metered");
	site(&b, 100, 0, 1, -1, "none");
	b.bnd[BND_FACILITY].fig.v.valid = false;
	assert_int_equal(report_sites_sum(&s, rows, 2), 0);
	assert_false(s.b[BND_FACILITY].valid);
	assert_int_equal(s.b[BND_FACILITY].sites, 1);
	assert_true(s.b[BND_WALL].valid);
	assert_true(isnan(s.pue));
	assert_true(s.out < 0);
	assert_true(isnan(s.b[BND_WALL].j_per_output_token));
	assert_int_equal(s.w.n, 3);
	assert_non_null(strstr(s.w.v[0], "site b"));
	assert_non_null(strstr(s.w.v[1], "none at b"));
	assert_non_null(strstr(s.w.v[2], "not metered"));
	report_sites_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_sums_without_mixing),
		cmocka_unit_test(test_missing_site),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
