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
		    .zone = zones[i], .it_measured_at = "pdu_output" };
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
	assert_string_equal(s.r.pue.category, "PUE2 (IT energy at the PDU output)");
	assert_int_equal(s.r.warnings.n, 0);
	site_free(&s);

	/* a meter refused over the window: the declared PUE */
	site_setup(&s);
	meter(&s, 0, RR_FAC, 1300, -1);
	meter(&s, 1, RR_IT, 1000, 0);
	s.set.pue_set = true;
	s.set.pue_value = 1.5;
	s.set.pue_category = "ups";
	s.set.pue_period = "2025";
	report_pue_site(&s.in, &s.r);
	assert_near(s.r.pue.value, 1.5, 0);
	assert_string_equal(s.r.pue.source, "declared");
	assert_string_equal(s.r.pue.category, "PUE1 (IT energy at the UPS output)");
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

/* The periods of ISO/IEC 30134-2: a day of a 30-hour span is complete
 * only where its 24 hours are there; a year of one hour is that hour,
 * not an annual PUE. */
static void
test_period_rows_complete(void **st)
{
	double fac[30], it[30];
	struct pue_row rows[4];
	wp_time t0 = RF_T0 - 10 * 3600 * WP_SEC;	/* 2026-11-29T00:00Z */
	size_t i, n;

	(void)st;
	for (i = 0; i < 30; i++) {
		fac[i] = 130;
		it[i] = 100;
	}
	n = pue_periods(fac, it, 30, t0, PUE_DAY, rows, 4);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].hours, 24);
	assert_true(rows[0].complete);
	assert_int_equal(rows[1].hours, 6);
	assert_false(rows[1].complete);
	n = pue_periods(fac, it, 1, t0, PUE_YEAR, rows, 4);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].hours, 1);
	assert_false(rows[0].complete);
	n = pue_periods(fac, it, 1, t0, PUE_HOUR, rows, 4);
	assert_true(rows[0].complete);
	n = pue_periods(fac, it, 30, t0, PUE_MONTH, rows, 4);
	assert_int_equal(n, 1);		/* 30 h of November */
	assert_int_equal(rows[0].hours, 30);
	assert_false(rows[0].complete);
}

/* report_pue_tables over hand-made hourly meter kWh (two hours from
 * RF_T0) with both meters' steps 1 Wh (3600 J), the integrator's 2 %. */
static void
rows_of(struct report *r, const struct report_plan *plan, double *mfac,
    double *mit)
{
	struct report_input in = { .plan = plan };

	memset(r, 0, sizeof(*r));
	r->from = plan->from;
	r->to = plan->to;
	r->pue.source = "metered";
	r->hours = (struct report_hours){ .origin = RF_T0, .nh = 2,
	    .mfac = mfac, .mit = mit, .mfac_step = 3600, .mit_step = 3600,
	    .step_rel_max = 0.02 };
	assert_int_equal(report_pue_tables(&in, r), 0);
}

static void
rows_free(struct report *r)
{
	report_pue_free(&r->pue);
	report_warnings_fini(&r->warnings);
}

/* A window from 10:00:55 to 11:00:05 metered in Wh: the 11:00 hour's 5 s
 * of IT energy, 60 kJ, is under 50 steps, so that row has no PUE, with
 * the reason and a warning; the whole hour and the day have theirs.  An
 * hour without IT or facility energy, or below 1, says so instead. */
static void
test_rows_coarse_steps(void **st)
{
	/* kWh: 16 kW and 12 kW, the edge hour's IT a step (1 Wh) short */
	double mfac[2] = { 16.0 * 3545 / 3600, 16.0 * 5 / 3600 },
	    mit[2] = { 12.0 * 3545 / 3600, (12.0 * 5 - 3.6) / 3600 };
	struct report_plan plan;
	const struct report_pue_rows *h;
	struct report r;

	(void)st;
	rf_plan(&plan, RF_T0 + 55 * WP_SEC, RF_T0 + 3605 * WP_SEC, WP_SEC);
	rows_of(&r, &plan, mfac, mit);
	h = &r.pue.period[PUE_HOUR];
	assert_int_equal(h->n, 2);
	assert_near(h->v[0].value, 4.0 / 3, 1e-12);
	assert_null(h->v[0].why);
	assert_true(isnan(h->v[1].value));
	assert_non_null(h->v[1].why);
	assert_non_null(strstr(h->v[1].why, "too coarse"));
	assert_near(h->v[1].it_j, 12000.0 * 5 - 3600, 1e-6);
	assert_int_equal(r.warnings.n, 1);
	assert_string_equal(r.warnings.v[0], "PUE per hour: 1 row without a "
	    "value: the meters' counter steps exceed 2 % of its energy");
	/* the day's row holds both hours: its steps are fine */
	assert_int_equal(r.pue.period[PUE_DAY].n, 1);
	assert_null(r.pue.period[PUE_DAY].v[0].why);
	assert_near(r.pue.period[PUE_DAY].v[0].value, (16.0 * 3550) /
	    (12.0 * 3550 - 3.6), 1e-9);
	rows_free(&r);

	/* the 11:00 hour without IT energy, then without facility energy,
	 * then below 1 (long enough for its steps): each its own reason */
	mit[1] = 0;
	rows_of(&r, &plan, mfac, mit);
	assert_true(isnan(r.pue.period[PUE_HOUR].v[1].value));
	assert_string_equal(r.pue.period[PUE_HOUR].v[1].why, "no IT energy");
	assert_int_equal(r.warnings.n, 0);
	rows_free(&r);
	mit[1] = 12.0 * 5 / 3600;
	mfac[1] = 0;
	rows_of(&r, &plan, mfac, mit);
	assert_string_equal(r.pue.period[PUE_HOUR].v[1].why,
	    "no facility energy");
	assert_int_equal(r.warnings.n, 0);
	rows_free(&r);
	mit[1] = 1.2;			/* 6 min at 12 kW */
	mfac[1] = 1.1;
	rows_of(&r, &plan, mfac, mit);
	assert_true(isnan(r.pue.period[PUE_HOUR].v[1].value));
	assert_string_equal(r.pue.period[PUE_HOUR].v[1].why,
	    "below 1: a metering error");
	rows_free(&r);
}

/* The meters' steps summed per role, and the least max_res_error of
 * their integrators (one never set, as a fixture's, is not 0 %). */
static void
test_meter_steps(void **st)
{
	struct report_series *f, *i1, *i2;
	struct site s;

	(void)st;
	site_setup(&s);
	f = meter(&s, 0, RR_FAC, 1300, 0);
	i1 = meter(&s, 1, RR_IT, 500, 0);
	i2 = meter(&s, 2, RR_IT, 500, 0);
	f->main.o.resolution = 439;	/* f32 kWh near 1,000 kWh: 2^-13 kWh */
	f->main.o.max_res_error = 0.02;
	i1->main.o.resolution = i2->main.o.resolution = 3600;
	i1->main.o.max_res_error = 0.01;
	report_pue_site(&s.in, &s.r);
	assert_near(s.r.pue.value, 1.3, 1e-12);
	assert_near(s.r.hours.mfac_step, 439, 1e-12);
	assert_near(s.r.hours.mit_step, 7200, 1e-12);
	assert_near(s.r.hours.step_rel_max, 0.01, 1e-15);
	site_free(&s);
}

/* A declared PUE carries the period it was declared for: annual only
 * over 12 months; without report.pue.period the period is unstated
 * (never "window"), and both are warned. */
static void
test_declared_period(void **st)
{
	static const struct { const char *period, *shown, *warn; bool annual;
	    int months; } c[] = {
		{ "2025", "2025", NULL, true, 12 },
		{ "2025-07..2026-06", "2025-07..2026-06", NULL, true, 12 },
		{ "2026-11", "2026-11", "is for 2026-11 (1 month), not an "
		    "annual PUE", false, 1 },
		{ NULL, "unstated", "the period it was measured over is "
		    "unstated", false, -1 },
	};
	struct site s;
	size_t i;

	(void)st;
	assert_int_equal(pue_declared_months("2026-13"), -1);
	assert_int_equal(pue_declared_months("2026-06..2026-01"), -1);
	assert_int_equal(pue_declared_months("window"), -1);
	assert_int_equal(pue_declared_months("2024-01..2025-12"), 24);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		site_setup(&s);
		s.set.pue_set = true;
		s.set.pue_value = 1.4;
		s.set.pue_category = "pdu_output";
		s.set.pue_period = c[i].period;
		assert_int_equal(pue_declared_months(c[i].period), c[i].months);
		report_pue_site(&s.in, &s.r);
		assert_string_equal(s.r.pue.source, "declared");
		assert_string_equal(s.r.pue.period_text, c[i].shown);
		assert_int_equal(s.r.pue.annual, c[i].annual);
		assert_string_equal(s.r.pue.category,
		    "PUE2 (IT energy at the PDU output)");
		if (c[i].warn == NULL)
			assert_int_equal(s.r.warnings.n, 0);
		else {
			assert_int_equal(s.r.warnings.n, 1);
			assert_non_null(strstr(s.r.warnings.v[0], c[i].warn));
		}
		site_free(&s);
	}
}

/* The category is worked out at report time from the config's
 * it_measured_at; a journal label that disagrees is warned (the config
 * wins); a label alone is used, warned; IT meters at different points
 * give the least precise category, warned. */
static void
test_category_from_config(void **st)
{
	struct site s;

	(void)st;
	/* the config says ups_output, the journal category=2 */
	site_setup(&s);
	s.meters[1].name = "ups-1";
	s.meters[1].it_measured_at = "ups_output";
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	report_pue_site(&s.in, &s.r);
	assert_string_equal(s.r.pue.category,
	    "PUE1 (IT energy at the UPS output)");
	assert_string_equal(s.r.pue.period_text, "window");
	assert_int_equal(s.r.warnings.n, 1);
	assert_string_equal(s.r.warnings.v[0], "meter ups-1: the journal "
	    "labels its IT energy PUE2 (IT energy at the PDU output), the "
	    "config's it_measured_at says PUE1 (IT energy at the UPS output): "
	    "the config's is used");
	site_free(&s);

	/* config and label agree: no warning */
	site_setup(&s);
	s.meters[1].it_measured_at = "pdu_output";
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	report_pue_site(&s.in, &s.r);
	assert_string_equal(s.r.pue.category,
	    "PUE2 (IT energy at the PDU output)");
	assert_int_equal(s.r.warnings.n, 0);
	site_free(&s);

	/* the config does not say: the label, warned */
	site_setup(&s);
	s.meters[1].name = "ups-1";
	s.meters[1].it_measured_at = NULL;
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 1000, 0);
	report_pue_site(&s.in, &s.r);
	assert_string_equal(s.r.pue.category,
	    "PUE2 (IT energy at the PDU output)");
	assert_int_equal(s.r.warnings.n, 1);
	assert_non_null(strstr(s.r.warnings.v[0], "meter ups-1: no "
	    "it_measured_at in the config"));
	site_free(&s);

	/* two IT meters at the PDU output and the IT input: PUE2, warned */
	site_setup(&s);
	s.meters[1].it_measured_at = "pdu_output";
	s.meters[2].it_measured_at = "it_input";
	meter(&s, 0, RR_FAC, 1300, 0);
	meter(&s, 1, RR_IT, 500, 0);
	meter(&s, 2, RR_IT, 500, 0)->labels[0] = '\0';
	report_pue_site(&s.in, &s.r);
	assert_string_equal(s.r.pue.category,
	    "PUE2 (IT energy at the PDU output)");
	assert_int_equal(s.r.warnings.n, 1);
	assert_non_null(strstr(s.r.warnings.v[0], "measure at different "
	    "points"));
	site_free(&s);
}

/* The facility boundary's second method: each hour's metered facility
 * energy x that hour's IT share (wall / it_total), compared with wall x
 * the window's PUE.  Equal when the PUE is flat; apart when the wall's
 * share moves from hour to hour under a varying PUE. */
static void
test_second_method(void **st)
{
	double wall[2] = { 10, 30 }, mfac[2] = { 150, 120 }, mit[2] = { 100,
	    100 }, fac[2] = { 0, 0 };
	struct report r;

	(void)st;
	memset(&r, 0, sizeof(r));
	r.hours = (struct report_hours){ .nh = 2, .wall = wall, .fac = fac,
	    .mfac = mfac, .mit = mit };
	r.pue.source = "declared";
	r.pue.value = 1.35;
	report_pue_allocate(&r);
	assert_true(isnan(r.pue.alloc_j));	/* no metered facility */
	r.pue.source = "metered";
	report_pue_allocate(&r);
	/* 150 x 0.1 + 120 x 0.3 = 51 kWh against 40 x 1.35 = 54 kWh */
	assert_near(r.pue.alloc_j, 51 * 3.6e6, 1e-3);
	assert_near(r.pue.primary_j, 54 * 3.6e6, 1e-3);
	assert_near(r.pue.alloc_rel, 51.0 / 54 - 1, 1e-12);
	mit[1] = 0;				/* an hour without IT energy */
	report_pue_allocate(&r);
	assert_true(isnan(r.pue.alloc_j));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metered_declared_none),
		cmocka_unit_test(test_metered_below_one_refused),
		cmocka_unit_test(test_zones),
		cmocka_unit_test(test_period_rows_complete),
		cmocka_unit_test(test_rows_coarse_steps),
		cmocka_unit_test(test_meter_steps),
		cmocka_unit_test(test_declared_period),
		cmocka_unit_test(test_category_from_config),
		cmocka_unit_test(test_second_method),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
