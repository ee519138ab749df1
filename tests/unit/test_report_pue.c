/*
 * Unit tests: model/report_pue.c - which PUE a report takes (metered from
 * the facility_total and it_total meters; the declared report.pue only
 * when there are no usable meters; none, warned, otherwise; a metered
 * PUE below 1 is refused, not replaced by the declared one) and the
 * partial PUE of each meter zone.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"

#define NM	5

struct site {
	struct report_meter meters[NM];
	struct report_settings set;
	struct report_plan plan;
	struct report_series *ser[NM];
	size_t n;
	struct report_input in;
	struct report r;
};

static void
site_setup(struct site *s)
{
	static const char *const zones[NM] = { "hall-a", "hall-a", "hall-b",
	    "hall-b", "hall-c" };
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < NM; i++)
		s->meters[i] = (struct report_meter){ .name = "m",
		    .zone = zones[i] };
	report_settings_init(&s->set);
	rf_plan(&s->plan, RF_T0, RF_T0 + 3600 * WP_SEC, 600 * WP_SEC);
	s->in = (struct report_input){ .meters = s->meters, .n_meters = NM,
	    .set = &s->set, .plan = &s->plan };
}

/* Meter i's energy series: facility_total or it_total, e J or refused. */
static struct report_series *
meter(struct site *s, int i, int role, double e, int rc)
{
	char key[32];

	snprintf(key, sizeof(key), "m%d|energy", i);
	s->ser[s->n] = rf_result(key, role, -1, i, WP_COUNTER, e, rc);
	if (role == RR_IT)
		snprintf(s->ser[s->n]->labels, sizeof(s->ser[s->n]->labels),
		    "category=2");
	s->in.ser = s->ser;
	s->in.n_ser = ++s->n;
	return s->ser[s->n - 1];
}

static void
site_free(struct site *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		rf_free(s->ser[i]);
	report_pue_free(&s->r.pue);
	report_warnings_fini(&s->r.warnings);
}

static void
test_metered_declared_none(void **st)
{
	struct site s;

	(void)st;
	site_setup(&s);
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	s.set.pue_set = true;
	s.set.pue_value = 1.5;
	s.set.pue_category = "1";
	report_pue_site(&s.in, &s.r);
	assert_near(s.r.pue.value, 1.3, 1e-12);	/* meters before a declaration */
	assert_string_equal(s.r.pue.source, "metered");
	assert_string_equal(s.r.pue.category, "category 2 (PDU output)");
	assert_int_equal(s.r.warnings.n, 0);
	site_free(&s);

	/* a meter refused over the window: the declared PUE */
	site_setup(&s);
	meter(&s, 0, RR_FAC, 1300, -1);
	meter(&s, 1, RR_IT, 1000, 0);
	s.set.pue_set = true;
	s.set.pue_value = 1.5;
	s.set.pue_category = "ups";
	report_pue_site(&s.in, &s.r);
	assert_near(s.r.pue.value, 1.5, 0);
	assert_string_equal(s.r.pue.source, "declared");
	assert_string_equal(s.r.pue.category, "category 1 (UPS output)");
	assert_int_equal(s.r.warnings.n, 1);
	assert_string_equal(s.r.warnings.v[0], "meter m0|energy: window "
	    "refused (test)");
	site_free(&s);

	/* neither: none, and the facility boundary is said to be left out */
	site_setup(&s);
	meter(&s, 1, RR_IT, 1000, 0);
	report_pue_site(&s.in, &s.r);
	assert_true(isnan(s.r.pue.value));
	assert_string_equal(s.r.pue.source, "none");
	assert_int_equal(s.r.warnings.n, 1);
	assert_non_null(strstr(s.r.warnings.v[0], "facility boundary left "
	    "out"));
	site_free(&s);
}

/* A metered PUE below 1 is a metering error: refused, and the declared
 * value does not stand in for meters that disagree. */
static void
test_metered_below_one_refused(void **st)
{
	struct site s;

	(void)st;
	site_setup(&s);
	meter(&s, 0, RR_FAC, 900, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	s.set.pue_set = true;
	s.set.pue_value = 1.5;
	report_pue_site(&s.in, &s.r);
	assert_true(isnan(s.r.pue.value));
	assert_string_equal(s.r.pue.source, "none");
	assert_int_equal(s.r.warnings.n, 2);
	assert_non_null(strstr(s.r.warnings.v[0], "metering error"));
	site_free(&s);
}

static void
test_zones(void **st)
{
	struct site s;

	(void)st;
	site_setup(&s);
	meter(&s, 0, RR_FAC, 1300, 0);	/* hall-a: 1.3 */
	meter(&s, 1, RR_IT, 1000, 0);
	meter(&s, 2, RR_IT, 500, 0);	/* hall-b: 1.2 */
	meter(&s, 3, RR_FAC, 600, 0);
	meter(&s, 4, RR_FAC, 100, 0);	/* hall-c: no IT meter */
	report_pue_site(&s.in, &s.r);
	assert_near(s.r.pue.value, 2000.0 / 1500, 1e-12);
	assert_int_equal(report_pue_tables(&s.in, &s.r), 0);
	assert_int_equal(s.r.pue.n_zones, 3);
	assert_string_equal(s.r.pue.zones[0].name, "hall-a");
	assert_near(s.r.pue.zones[0].value, 1.3, 1e-12);
	assert_string_equal(s.r.pue.zones[1].name, "hall-b");
	assert_near(s.r.pue.zones[1].value, 1.2, 1e-12);
	assert_near(s.r.pue.zones[1].it_j, 500, 0);
	assert_true(isnan(s.r.pue.zones[2].value));
	assert_near(s.r.pue.zones[2].facility_j, 100, 0);
	site_free(&s);

	/* a zone with a refused meter has no partial PUE (the site none) */
	site_setup(&s);
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	meter(&s, 2, RR_IT, 500, -1);
	meter(&s, 3, RR_FAC, 600, 0);
	report_pue_site(&s.in, &s.r);
	assert_string_equal(s.r.pue.source, "none");
	assert_int_equal(report_pue_tables(&s.in, &s.r), 0);
	assert_int_equal(s.r.pue.n_zones, 0);	/* tables: metered only */
	s.r.pue.source = "metered";
	assert_int_equal(report_pue_tables(&s.in, &s.r), 0);
	assert_int_equal(s.r.pue.n_zones, 3);
	assert_near(s.r.pue.zones[0].value, 1.3, 1e-12);
	assert_string_equal(s.r.pue.zones[1].name, "hall-b");
	assert_true(isnan(s.r.pue.zones[1].value));
	assert_near(s.r.pue.zones[1].it_j, 500, 0);	/* still shown */
	site_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metered_declared_none),
		cmocka_unit_test(test_metered_below_one_refused),
		cmocka_unit_test(test_zones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
