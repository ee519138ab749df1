/* Unit tests: the market-based method's issue 19 findings - model/carbon.c
 * (residual mix before the grid average, the factors' bases, pro-rating
 * that is never assumed, the published residual-mix list) and
 * model/claims.c (the instrument ledger: no MWh claimed twice). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_model_near.h"

#include "../../model/carbon.h"
#include "../../model/claims.h"

#define H	(3600 * WP_SEC)
#define DAY0	(1795996800LL * WP_SEC)		/* 2026-11-30T00:00:00Z */
#define Y2026	(1767225600LL * WP_SEC)
#define Y2027	(1798761600LL * WP_SEC)

static struct market_opts
opts(wp_time from, wp_time to)
{
	return (struct market_opts){ .zone = "FR", .holder = "acme",
	    .site = "par-1", .period_start = Y2026, .period_end = Y2027,
	    .window_start = from, .window_end = to, .supplier_factor = NAN,
	    .residual_factor = 40.74, .grid_average = 56 };
}

/* One GO of mwh for the whole of 2026, factor f, basis gas. */
static struct carbon_instrument
go(const char *id, double mwh, double f, const char *gas)
{
	struct carbon_instrument x = { .type = "GO", .market = "FR",
	    .vintage_start = Y2026, .vintage_end = Y2027, .mwh = mwh,
	    .factor = f, .cancelled_for = "acme" };

	snprintf(x.id, sizeof(x.id), "%s", id);
	snprintf(x.gas, sizeof(x.gas), "%s", gas);
	return x;
}

/*
 * The finding: one 0.1 MWh certificate, no period_consumption_mwh, two
 * one-hour reports of 78 kWh each: it covered both fully, 155 kWh claimed
 * from 100.  Now the window's share of a year's certificate is unknown
 * without the period's consumption: not counted, and said.
 */
static void
test_no_period_consumption_no_claim(void **st)
{
	struct carbon_instrument in = go("GO-1", 0.1, 0, "CO2e");
	double kwh[1] = { 78 }, claim = -1, claimed = 0;
	struct market_opts o;
	struct market_result r;
	int h;

	(void)st;
	for (h = 0; h < 2; h++) {
		o = opts(DAY0 + h * H, DAY0 + (h + 1) * H);
		o.claim_kwh = &claim;
		assert_int_equal(carbon_market(&in, 1, 78, kwh, 1, DAY0 + h * H,
		    &o, &r, NULL), 0);
		assert_int_equal(r.accepted, 0);
		assert_int_equal(r.unprorated, 1);
		assert_near(r.covered_kwh, 0, 0);
		assert_near(claim, 0, 0);
		assert_string_equal(r.remainder_step, "residual-mix");
		assert_near(r.g, 78 * 40.74, 1e-9);
		claimed += claim;
	}
	assert_true(claimed <= 100);
	/* a window holding the whole vintage computes the period's
	 * consumption: all of it counts (capped by the consumption) */
	o = opts(Y2026, Y2027);
	assert_int_equal(carbon_market(&in, 1, 156, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_near(r.covered_kwh, 100, 1e-9);
	assert_string_equal(r.period_source, "computed");
}

/* Stated period consumption, and the ledger: two overlapping finalised
 * reports share one certificate; the second sees what is left, a third
 * finds it used up. */
static void
test_ledger_overlapping_reports(void **st)
{
	struct carbon_instrument in = go("GO-1", 0.1, 0, "CO2e");
	struct market_opts o = opts(DAY0, DAY0 + H);
	struct market_result r;
	struct claim c = { .id = "GO-1", .site = "par-1" }, *cl;
	char led[1024], line[256];
	double claim = 0;
	size_t n, len;

	(void)st;
	o.period_kwh = 156;		/* the vintage's consumption, stated */
	o.claim_kwh = &claim;
	/* report A: hour 0, 78 kWh: 100 x 78 / 156 */
	assert_int_equal(carbon_market(&in, 1, 78, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_near(claim, 50, 1e-9);
	assert_string_equal(r.period_source, "stated");
	c.kwh = claim;
	c.from = DAY0;
	c.to = DAY0 + H;
	len = (size_t)snprintf(led, sizeof(led), "%s", CLAIMS_HEADER);
	assert_true(claims_format(&c, line, sizeof(line)) > 0);
	len += (size_t)snprintf(led + len, sizeof(led) - len, "%s", line);
	/* report B: hours 0-1, 156 kWh, overlapping A: its share is 100,
	 * the ledger leaves 50 */
	assert_int_equal(claims_parse(led, len, &cl, &n, NULL), 0);
	assert_int_equal(n, 1);
	claims_apply(&in, 1, cl, n, "par-1", DAY0, DAY0 + 2 * H);
	assert_near(in.claimed_kwh, 50, 1e-9);
	o.window_end = DAY0 + 2 * H;
	assert_int_equal(carbon_market(&in, 1, 156, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_near(claim, 50, 1e-9);
	assert_near(r.covered_kwh, 50, 1e-9);
	assert_near(r.g, 106 * 40.74, 1e-9);
	/* report A run again sees its own claim as its own */
	claims_apply(&in, 1, cl, n, "par-1", DAY0, DAY0 + H);
	assert_near(in.claimed_kwh, 0, 0);
	assert_true(claims_same_report(&cl[0], "par-1", DAY0, DAY0 + H));
	/* both finalised: a third report finds nothing left */
	c.kwh = 50;
	c.to = DAY0 + 2 * H;
	assert_true(claims_format(&c, line, sizeof(line)) > 0);
	len += (size_t)snprintf(led + len, sizeof(led) - len, "%s", line);
	free(cl);
	assert_int_equal(claims_parse(led, len, &cl, &n, NULL), 0);
	claims_apply(&in, 1, cl, n, "par-1", DAY0 + H, DAY0 + 2 * H);
	assert_near(in.claimed_kwh, 100, 1e-9);
	o.window_start = DAY0 + H;
	assert_int_equal(carbon_market(&in, 1, 78, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_int_equal(r.exhausted, 1);
	assert_near(r.covered_kwh, 0, 0);
	free(cl);
}

static void
test_bad_ledger(void **st)
{
	static const char *const bad[] = {
		"GO-1,0,5,par-1,0,3600\n",		/* 6 fields */
		"GO-1,0,lots,par-1,0,3600,0\n",
		"GO-1,0,-1,par-1,0,3600,0\n",
		",0,1,par-1,0,3600,0\n",
		"GO-1,x,1,par-1,0,3600,0\n",
	};
	struct claim *cl, c = { .id = "a,b" };
	struct wp_err err;
	char line[128];
	size_t i, n;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(claims_parse(bad[i], strlen(bad[i]), &cl, &n,
		    &err), -1);
		assert_non_null(strstr(err.msg, "line 1"));
		assert_null(cl);
	}
	assert_int_equal(claims_parse("", 0, &cl, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(cl);
	assert_int_equal(claims_format(&c, line, sizeof(line)), -1);
}

/* The hierarchy: residual mix before the grid average; the grid average
 * only where none exists, and a missing one named. */
static void
test_residual_before_grid_average(void **st)
{
	struct carbon_instrument in = go("GO-1", 0.01, 0, "CO2e");
	struct market_opts o = opts(Y2026, Y2027);
	struct market_result r;

	(void)st;
	assert_int_equal(carbon_market(&in, 1, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_string_equal(r.remainder_step, "residual-mix");
	assert_string_equal(r.gas, "CO2");	/* AIB: CO2 only */
	assert_false(r.grid_average_used);
	/* published for the zone, none configured: flagged as missing */
	o.residual_factor = NAN;
	o.residual_published = true;
	assert_int_equal(carbon_market(&in, 1, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_string_equal(r.remainder_step, "grid-average");
	assert_true(r.grid_average_used && r.residual_missing);
	assert_string_equal(r.gas, "CO2e");
	assert_near(r.g, 10 * 56, 1e-9);
	/* none exists for the zone: the grid average stands, flagged only */
	o.residual_published = false;
	assert_int_equal(carbon_market(&in, 1, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_true(r.grid_average_used);
	assert_false(r.residual_missing);
	/* an AIB 0 is "none", not missing */
	o.residual_factor = 0;
	o.residual_published = true;
	assert_int_equal(carbon_market(&in, 1, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_true(r.residual_zero_ignored);
	assert_false(r.residual_missing);
}

/* CO2 and CO2e never mixed silently. */
static void
test_gas_bases(void **st)
{
	struct carbon_instrument in[2] = { go("PPA-1", 0.01, 30, "CO2e"),
	    go("GO-2", 0.005, 0, "CO2") };
	struct market_opts o = opts(Y2026, Y2027);
	struct market_result r;

	(void)st;
	/* a CO2e PPA factor with a CO2-only residual mix: mixed */
	assert_int_equal(carbon_market(in, 2, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_true(r.gas_mixed);
	assert_string_equal(r.gas, "mixed");
	assert_near(r.g, 10 * 30 + 5 * 40.74, 1e-9);
	/* the residual mix declared CO2e: one basis */
	o.residual_gas = "CO2e";
	assert_int_equal(carbon_market(in, 2, 20, NULL, 0, 0, &o, &r, NULL),
	    0);
	assert_false(r.gas_mixed);
	assert_string_equal(r.gas, "CO2e");
	/* zero-factor certificates only: the remainder's basis labels it */
	o.residual_gas = NULL;
	assert_int_equal(carbon_market(&in[1], 1, 20, NULL, 0, 0, &o, &r,
	    NULL), 0);
	assert_string_equal(r.gas, "CO2");
	assert_false(r.gas_mixed);
	assert_string_equal(carbon_gas("co2e"), CARBON_GAS_CO2E);
	assert_string_equal(carbon_gas("CO2"), CARBON_GAS_CO2);
	assert_null(carbon_gas("ch4"));
}

static void
test_published_list(void **st)
{
	static const char list[] =
	    "# comment\n"
	    "zone,year,published,factor_g_co2_per_kwh,source\n"
	    "FR,2022,no,,old\n"
	    "FR,2023,yes,40.74,AIB European Residual Mixes\n"
	    "AT,2023,no,,AIB (full disclosure)\n"
	    "DK,2023,yes,,\"AIB, DK\"\n";
	char info[96] = "";

	(void)st;
	assert_int_equal(carbon_residual_published(list, strlen(list), "FR",
	    info, sizeof(info)), 1);
	assert_string_equal(info, "AIB European Residual Mixes 2023");
	assert_int_equal(carbon_residual_published(list, strlen(list), "AT",
	    info, sizeof(info)), 0);
	assert_int_equal(carbon_residual_published(list, strlen(list),
	    "DK-DK1", info, sizeof(info)), 1);
	assert_string_equal(info, "AIB, DK 2023");
	assert_int_equal(carbon_residual_published(list, strlen(list),
	    "US-CAL-CISO", info, sizeof(info)), -1);
	assert_int_equal(carbon_residual_published(list, strlen(list), NULL,
	    info, sizeof(info)), -1);
}

/* 24/7 CFE: hour 0 fully matched, hour 1 half matched with the grid 50 %
 * carbon-free, hour 2 unmatched with no grid share (a gap, counted 0). */
static void
test_cfe_score(void **st)
{
	static const char csv[] = "Datetime (UTC),Zone id,Carbon intensity "
	    "gCO2eq/kWh (direct),Carbon-free energy percentage (CFE%)\n"
	    "2026-11-30 00:00:00,FR,20,90\n2026-11-30 01:00:00,FR,30,50\n"
	    "2026-11-30 02:00:00,FR,40,\n";
	static const char bad[] = "Datetime (UTC),Low Carbon Percentage\n"
	    "2026-11-30 00:00:00Z,150\n";
	struct carbon_instrument in[2] = { go("H-0", 0.1, 0, "CO2e"),
	    go("H-1", 0.05, 0, "CO2e") };
	struct market_opts o = opts(DAY0, DAY0 + 3 * H);
	struct market_result r;
	struct hourly_series cfe;
	struct wp_err err = { 0 };
	double kwh[3] = { 100, 100, 100 };

	(void)st;
	in[0].hour = DAY0;
	in[1].hour = DAY0 + H;
	assert_int_equal(hourly_parse(csv, strlen(csv), HOURLY_CFE, "FR", NULL,
	    &cfe, NULL), 0);
	assert_int_equal(cfe.n, 2);
	assert_near(hourly_at(&cfe, DAY0), 0.9, 1e-12);
	o.grid_cfe = &cfe;
	assert_int_equal(carbon_market(in, 2, 300, kwh, 3, DAY0, &o, &r, NULL),
	    0);
	assert_near(r.cfe_score, (100 + 50 + 0.5 * 50 + 0) / 300.0, 1e-12);
	assert_int_equal(r.cfe_gap_hours, 1);
	assert_near(r.hourly_matching, 150 / 300.0, 1e-12);
	/* the hourly records' share is their hour's: computed */
	assert_near(r.covered_kwh, 150, 1e-9);
	/* another hour's record is not this window's: neither counted nor
	 * rejected */
	{
		struct carbon_instrument three[3] = { in[0], in[1],
		    go("H-5", 1, 0, "CO2e") };

		three[2].hour = DAY0 + 5 * H;
		assert_int_equal(carbon_market(three, 3, 300, kwh, 3, DAY0, &o,
		    &r, NULL), 0);
		assert_int_equal(r.accepted, 2);
		assert_int_equal(r.rejected, 0);
		assert_near(r.covered_kwh, 150, 1e-9);
	}
	/* without a series, no score */
	o.grid_cfe = NULL;
	assert_int_equal(carbon_market(in, 2, 300, kwh, 3, DAY0, &o, &r, NULL),
	    0);
	assert_true(isnan(r.cfe_score));
	hourly_fini(&cfe);
	assert_int_equal(hourly_parse(bad, strlen(bad), HOURLY_CFE, NULL, NULL,
	    &cfe, &err), -1);
	assert_non_null(strstr(err.msg, "not 0..100"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_period_consumption_no_claim),
		cmocka_unit_test(test_ledger_overlapping_reports),
		cmocka_unit_test(test_bad_ledger),
		cmocka_unit_test(test_residual_before_grid_average),
		cmocka_unit_test(test_gas_bases),
		cmocka_unit_test(test_published_list),
		cmocka_unit_test(test_cfe_score),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
