/* Unit tests: model/carbon.c - seed 000's carbon and cost example, CSV
 * layouts and bad input, the market-based hierarchy, hourly matching. */
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
#include "../../model/jtoken.h"

#define H	(3600 * WP_SEC)
#define DAY0	(1795996800LL * WP_SEC)		/* 2026-11-30T00:00:00Z */

static int
parse(const char *csv, int kind, const char *zone, struct hourly_series *s,
    struct wp_err *err)
{
	return hourly_parse(csv, strlen(csv), kind, zone, NULL, s, err);
}

/* An Electricity Maps export (newer header) with three zones. */
static const char em_new[] =
    "Datetime (UTC),Country,Zone name,Zone id,"
    "Carbon intensity gCO\xe2\x82\x82" "eq/kWh (direct),"
    "Carbon intensity gCO\xe2\x82\x82" "eq/kWh (Life cycle),"
    "Carbon-free energy percentage (CFE%),Renewable energy percentage (RE%),"
    "Data source,Data estimated,Data estimation method\r\n"
    "2026-11-30 00:00:00,France,France,FR,40,55,90,30,x,false,\r\n"
    "2026-11-30 01:00:00,France,France,FR,40,55,90,30,x,false,\r\n"
    "2026-11-30 02:00:00,France,France,FR,40,55,90,30,x,false,\r\n"
    "2026-11-30 00:00:00,Spain,Spain,ES,160,190,60,50,x,false,\r\n"
    "2026-11-30 01:00:00,Spain,Spain,ES,160,190,60,50,x,false,\r\n"
    "2026-11-30 02:00:00,Spain,Spain,ES,160,190,60,50,x,false,\r\n"
    "2026-11-30 00:00:00,Germany,Germany,DE,363,400,50,50,x,false,\r\n"
    "2026-11-30 01:00:00,Germany,Germany,DE,363,400,50,50,x,false,\r\n"
    "2026-11-30 02:00:00,Germany,Germany,DE,363,400,50,50,x,false,\r\n";

/*
 * Seed 000: 8 x 700 W boards at 2,800 tok/s is 2.0 J/token, 2.8 J/token at
 * PUE 1.4, about 0.78 kWh per million tokens; about 31, 125 and 283 gCO2
 * and 0.045, 0.042 and 0.071 EUR per million tokens in FR, ES and DE.
 */
static void
test_seed000_countries(void **st)
{
	static const struct { const char *zone; double g, eur, price; } c[] = {
		{ "FR", 31, 0.045, 0.058 }, { "ES", 125, 0.042, 0.054 },
		{ "DE", 283, 0.071, 0.091 }
	};
	double secs = 7200, tokens = 2800 * secs, kwh_h[3];
	double board_j = 5600 * secs, fac_j = board_j * 1.4;
	struct jtoken j;
	struct jtoken_in in = { .energy_j = fac_j, .output_tokens = tokens,
	    .input_tokens = -1, .slo_output_tokens = -1, .idle_power_w = -1 };
	size_t i;

	(void)st;
	assert_int_equal(jtoken_compute(&in, &j, NULL), 0);
	assert_near(j.j_per_output_token, 2.8, 1e-12);
	assert_near(j.kwh_per_million_output_tokens, 0.78, 0.005);
	/* a 2 h window from 00:30Z: half, full and half hours */
	kwh_h[0] = kwh_h[2] = fac_j / 4 / 3.6e6;
	kwh_h[1] = fac_j / 2 / 3.6e6;
	for (i = 0; i < 3; i++) {
		struct hourly_series s;
		struct carbon_loc loc;
		struct cost_result cost;
		char prices[256];

		assert_int_equal(parse(em_new, HOURLY_INTENSITY, c[i].zone, &s,
		    NULL), 0);
		assert_string_equal(s.basis, "direct");
		assert_string_equal(s.layout, "electricity-maps");
		assert_int_equal(carbon_location(&s, -1, kwh_h, 3, DAY0, &loc,
		    NULL), 0);
		assert_int_equal(loc.fallback_hours, 0);
		assert_near(loc.g / tokens * 1e6, c[i].g, 2.0);
		hourly_fini(&s);
		/* cost: flat tariff, then an hourly CSV in EUR/MWh */
		assert_int_equal(cost_compute(NULL, c[i].price, kwh_h, 3, DAY0,
		    &cost, NULL), 0);
		assert_near(cost.amount / tokens * 1e6, c[i].eur, 0.0006);
		snprintf(prices, sizeof(prices), "datetime,price (EUR/MWh)\n"
		    "2026-11-30T00:00:00Z,%g\n2026-11-30T01:00:00Z,%g\n"
		    "2026-11-30T02:00:00Z,%g\n", c[i].price * 1000,
		    c[i].price * 1000, c[i].price * 1000);
		assert_int_equal(parse(prices, HOURLY_PRICE, NULL, &s, NULL), 0);
		assert_int_equal(cost_compute(&s, -1, kwh_h, 3, DAY0, &cost,
		    NULL), 0);
		assert_true(cost.hourly);
		assert_near(cost.amount / tokens * 1e6, c[i].eur, 0.0006);
		hourly_fini(&s);
	}
}

static void
test_header_generations_and_basis(void **st)
{
	static const char old[] =
	    "\xef\xbb\xbf" "Datetime (UTC),Country,Zone Name,Zone Id,"
	    "Carbon Intensity gCO\xe2\x82\x82" "eq/kWh (direct),"
	    "Carbon Intensity gCO\xe2\x82\x82" "eq/kWh (LCA),"
	    "Low Carbon Percentage,Renewable Percentage,Data Source,"
	    "Data Estimated,Data Estimation Method\n"
	    "2026-11-30 00:00:00,France,France,FR,30,50,,,,,\n";
	static const char ascii[] =
	    "datetime,zone,carbon_intensity_gco2eq_per_kwh\n"
	    "2026-11-30T00:00:00+01:00,FR,44\n";
	struct hourly_series s;

	(void)st;
	assert_int_equal(hourly_parse(old, strlen(old), HOURLY_INTENSITY, "FR",
	    "lifecycle", &s, NULL), 0);
	assert_string_equal(s.basis, "lifecycle");
	assert_near(hourly_at(&s, DAY0 + 10 * WP_SEC), 50, 0);
	hourly_fini(&s);
	assert_int_equal(parse(old, HOURLY_INTENSITY, "FR", &s, NULL), 0);
	assert_string_equal(s.basis, "direct");
	assert_near(hourly_at(&s, DAY0), 30, 0);
	hourly_fini(&s);
	assert_int_equal(parse(ascii, HOURLY_INTENSITY, "FR", &s, NULL), 0);
	/* +01:00 local midnight is 23:00Z the day before */
	assert_near(hourly_at(&s, DAY0 - H), 44, 0);
	assert_true(isnan(hourly_at(&s, DAY0)));
	assert_string_equal(s.basis, "unstated");
	hourly_fini(&s);
}

/* ENTSO-E-derived, local CET/CEST MTU on the 25-hour day of 2024-10-27,
 * 15-minute rows averaged into hours. */
static void
test_entsoe_dst_day(void **st)
{
	char csv[8192];
	size_t o, i;
	struct hourly_series s;
	struct wp_err err = { 0 };
	wp_time day = 1729980000LL * WP_SEC;	/* 2024-10-26T22:00Z */

	(void)st;
	o = (size_t)snprintf(csv, sizeof(csv), "Area;MTU (CET/CEST);"
	    "Carbon intensity [gCO2eq/kWh]\n");
	for (i = 0; i < 25; i++) {
		int h = i < 3 ? (int)i : (int)i - 1;	/* 02:00 twice */

		o += (size_t)snprintf(csv + o, sizeof(csv) - o,
		    "BZN|DE-LU;27.10.2024 %02d:00 - 27.10.2024 %02d:00;%zu\n"
		    "BZN|DE-LU;27.10.2024 %02d:30 - 27.10.2024 %02d:45;%zu\n",
		    h, h + 1, 300 + i, h, h, 302 + i);
	}
	if (parse(csv, HOURLY_INTENSITY, "DE-LU", &s, &err) != 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.layout, "entsoe-derived");
	assert_int_equal(s.n, 25);
	assert_int_equal(s.resolution, 30 * 60 * WP_SEC);
	for (i = 0; i < 25; i++)
		assert_near(hourly_at(&s, day + (wp_time)i * H), 301 + i, 1e-9);
	hourly_fini(&s);
	/* the spring-forward hour does not exist */
	assert_int_equal(parse("MTU (CET/CEST),zone,gCO2eq/kWh\n"
	    "31.03.2024 02:00 - 31.03.2024 03:00,DE,300\n", HOURLY_INTENSITY,
	    "DE", &s, &err), -1);
	assert_non_null(strstr(err.msg, "DST gap"));
}

static void
test_bad_intensity_input(void **st)
{
	static const struct { const char *csv, *want; } bad[] = {
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,FR,-3\n",
		    "negative" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,FR,5000\n",
		    "absurd" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,FR,40\n"
		    "2026-11-30T00:00Z,FR,41\n", "different values" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30 00:00,FR,40\n",
		    "no time zone" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,DE,40\n",
		    "no rows for zone FR" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,FR,forty\n",
		    "not a number" },
		{ "datetime,zone,gCO2eq/kWh\nyesterday,FR,40\n",
		    "not a date" },
		{ "zone,gCO2eq/kWh\nFR,40\n", "no datetime column" },
		{ "datetime,zone,price\n2026-11-30T00:00Z,FR,40\n",
		    "intensity column" },
		{ "datetime,zone,gCO2eq/kWh\n2026-11-30T00:00Z,FR,n/e\n",
		    "all missing" },
		{ "", "empty" },
	};
	struct hourly_series s;
	struct wp_err err;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(bad[i].csv, HOURLY_INTENSITY, "FR", &s,
		    &err), -1);
		if (strstr(err.msg, bad[i].want) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg,
			    bad[i].want);
	}
	assert_int_equal(parse("datetime,price\n2026-11-30T00:00Z,40\n",
	    HOURLY_PRICE, NULL, &s, &err), -1);
	assert_non_null(strstr(err.msg, "per kWh or per MWh"));
}

/* Gaps fall back to the yearly average, flagged and counted; never 0. */
static void
test_gaps_and_duplicates(void **st)
{
	static const char csv[] = "datetime,zone,gCO2eq/kWh\n"
	    "2026-11-30T00:00:00Z,FR,40\n"
	    "2026-11-30T00:00:00Z,FR,40\n"		/* identical duplicate */
	    "2026-11-30T01:00:00Z,FR,n/e\n"		/* a gap */
	    "2026-11-30T02:00:00Z,FR,60\n";
	double kwh[3] = { 10, 10, 10 };
	struct hourly_series s;
	struct carbon_loc loc;
	struct wp_err err = { 0 };

	(void)st;
	assert_int_equal(parse(csv, HOURLY_INTENSITY, "FR", &s, &err), 0);
	assert_int_equal(s.duplicates, 1);
	assert_int_equal(s.n, 2);
	assert_int_equal(carbon_location(&s, 56, kwh, 3, DAY0, &loc, NULL), 0);
	assert_int_equal(loc.fallback_hours, 1);
	assert_near(loc.fallback_kwh, 10, 0);
	assert_near(loc.g, 400 + 560 + 600, 1e-9);
	assert_int_equal(carbon_location(&s, -1, kwh, 3, DAY0, &loc, &err), -1);
	assert_non_null(strstr(err.msg, "2026-11-30T01:00Z"));
	/* yearly only (a site with zone and an average, no CSV) */
	assert_int_equal(carbon_location(NULL, 56, kwh, 3, DAY0, &loc, NULL),
	    0);
	assert_int_equal(loc.fallback_hours, 3);
	assert_int_equal(carbon_location(NULL, 9999, kwh, 3, DAY0, &loc, &err),
	    -1);
	hourly_fini(&s);
	hourly_fini(NULL);
}

static const char instruments[] =
    "id,type,market,vintage_start,vintage_end,mwh,factor,cancelled_for,site\n"
    "GO-FR-1,GO,FR,2026-01-01,2026-12-31,0.006,0,acme,\n"
    "GO-FR-2,GO,FR,2026-01-01,2026-12-31,0.004,0,acme,par-1\n"
    "GO-DE-1,GO,DE,2026-01-01,2026-12-31,5,0,acme,\n"	/* other market */
    "GO-FR-3,GO,FR,2024-01-01,2024-12-31,5,0,acme,\n"	/* old vintage */
    "GO-FR-4,GO,FR,2026-01-01,2026-12-31,5,0,,\n"	/* not cancelled */
    "GO-FR-1,GO,FR,2026-01-01,2026-12-31,5,0,acme,\n"	/* twice */
    "GO-FR-5,GO,FR,2026-01-01,2026-12-31,5,0,acme,lyon-2\n"
    "GO-FR-6,GO,FR,2026-01-01,2026-12-31,5,0,other-co,\n";

static struct market_opts
mopts(void)
{
	struct market_opts o = { .zone = "FR", .holder = "acme",
	    .site = "par-1", .period_start = 1767225600LL * WP_SEC,
	    .period_end = 1798761600LL * WP_SEC, .supplier_factor = NAN,
	    .residual_factor = 40.74, .grid_average = 56 };

	return o;
}

static void
test_market_partial_and_rejections(void **st)
{
	struct carbon_instrument *in;
	size_t n, i;
	struct market_result r;
	struct market_opts o = mopts();
	static const char *const want[] = { "other market",
	    "vintage outside", "not cancelled", "counted twice",
	    "another site", "someone else" };

	(void)st;
	assert_int_equal(carbon_parse_instruments(instruments,
	    strlen(instruments), &in, &n, NULL), 0);
	assert_int_equal(n, 8);
	/* 20 kWh consumed, 10 kWh of valid GOs: half covered */
	assert_int_equal(carbon_market(in, n, 20, NULL, 0, 0, &o, &r, NULL), 0);
	assert_int_equal(r.accepted, 2);
	assert_int_equal(r.rejected, 6);
	for (i = 0; i < 6; i++)
		assert_non_null(strstr(r.rejects[i].why, want[i]));
	assert_near(r.coverage, 0.5, 1e-12);
	assert_string_equal(r.remainder_step, "residual-mix");
	assert_near(r.g, 10 * 40.74, 1e-9);
	assert_true(isnan(r.hourly_matching));
	/* supplier factor first in the hierarchy */
	o.supplier_factor = 25;
	assert_int_equal(carbon_market(in, n, 20, NULL, 0, 0, &o, &r, NULL), 0);
	assert_string_equal(r.remainder_step, "supplier-specific");
	assert_near(r.g, 250, 1e-9);
	/* an AIB 0 means "no residual mix": grid average, never 0 */
	o.supplier_factor = NAN;
	o.residual_factor = 0;
	assert_int_equal(carbon_market(in, n, 20, NULL, 0, 0, &o, &r, NULL), 0);
	assert_true(r.residual_zero_ignored);
	assert_string_equal(r.remainder_step, "grid-average");
	assert_near(r.g, 560, 1e-9);
	o.grid_average = NAN;
	assert_int_equal(carbon_market(in, n, 20, NULL, 0, 0, &o, &r, NULL),
	    -1);
	/* pro rata over the period's consumption */
	o = mopts();
	o.period_kwh = 40;
	assert_int_equal(carbon_market(in, n, 20, NULL, 0, 0, &o, &r, NULL), 0);
	assert_near(r.coverage, 0.25, 1e-12);
	free(in);
}

static void
test_market_full_coverage(void **st)
{
	struct carbon_instrument *in;
	size_t n;
	struct market_result r;
	struct market_opts o = mopts();

	(void)st;
	assert_int_equal(carbon_parse_instruments(instruments,
	    strlen(instruments), &in, &n, NULL), 0);
	assert_int_equal(carbon_market(in, n, 8, NULL, 0, 0, &o, &r, NULL), 0);
	assert_near(r.coverage, 1, 0);
	assert_near(r.g, 0, 0);
	assert_string_equal(r.remainder_step, "none");
	free(in);
}

/* Hourly certificates for 22 of 24 hours: the 2 missing hours match
 * nothing, and hour 5 has less clean energy than load. */
static void
test_hourly_matching_with_gap(void **st)
{
	char csv[8192];
	size_t o, n, h;
	struct carbon_instrument *in;
	struct market_result r;
	struct market_opts mo = mopts();
	double kwh[24];

	(void)st;
	o = (size_t)snprintf(csv, sizeof(csv), "id,type,market,vintage_start,"
	    "vintage_end,mwh,factor,cancelled_for,hour\n");
	for (h = 0; h < 24; h++) {
		kwh[h] = 100;
		if (h == 13 || h == 14)
			continue;
		o += (size_t)snprintf(csv + o, sizeof(csv) - o, "PPA-7,PPA,FR,"
		    "2026-11-30,2026-11-30,%s,0,acme,2026-11-30T%02zu:00:00Z\n",
		    h == 5 ? "0.05" : "0.2", h);
	}
	assert_int_equal(carbon_parse_instruments(csv, o, &in, &n, NULL), 0);
	assert_int_equal(n, 22);
	assert_int_equal(carbon_market(in, n, 2400, kwh, 24, DAY0, &mo, &r,
	    NULL), 0);
	assert_int_equal(r.hourly_gap_hours, 2);
	assert_near(r.hourly_matching, (21 * 100 + 50) / 2400.0, 1e-12);
	assert_int_equal(r.accepted, 22);
	free(in);
}

static void
test_bad_instruments(void **st)
{
	static const char *const bad[] = {
		"id,market\nx,FR\n",
		"id,type,market,vintage_start,vintage_end,mwh,factor,"
		    "cancelled_for\nA,GO,FR,2026-01-01,2026-12-31,lots,0,acme\n",
		"id,type,market,vintage_start,vintage_end,mwh,factor,"
		    "cancelled_for\nA,GO,FR,2026-01-01,2026-12-31,1,,acme\n",
		"id,type,market,vintage_start,vintage_end,mwh,factor,"
		    "cancelled_for\nA,GO,FR,soon,2026-12-31,1,0,acme\n",
		"",
	};
	struct carbon_instrument *in;
	size_t n, i;
	struct wp_err err;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(carbon_parse_instruments(bad[i],
		    strlen(bad[i]), &in, &n, &err), -1);
		assert_true(err.msg[0] != '\0');
		assert_null(in);
	}
	/* negative volume or factor parses but is rejected, not used */
	{
		static const char neg[] = "id,type,market,vintage_start,"
		    "vintage_end,mwh,factor,cancelled_for\n"
		    "A,GO,FR,2026-01-01,2026-12-31,-1,0,acme\n"
		    "B,GO,FR,2026-01-01,2026-12-31,1,-5,acme\n";
		struct market_result r;
		struct market_opts o = mopts();

		assert_int_equal(carbon_parse_instruments(neg, strlen(neg),
		    &in, &n, NULL), 0);
		assert_int_equal(carbon_market(in, n, 10, NULL, 0, 0, &o, &r,
		    NULL), 0);
		assert_int_equal(r.rejected, 2);
		assert_near(r.coverage, 0, 0);
		free(in);
	}
}

static void
test_cost_fallback(void **st)
{
	static const char csv[] = "Datetime (UTC),Price (EUR/kWh)\n"
	    "2026-11-30 00:00:00,0.10\n2026-11-30 02:00:00,-0.01\n";
	struct hourly_series s;
	struct cost_result c;
	double kwh[3] = { 10, 10, 10 };
	struct wp_err err = { 0 };

	(void)st;
	assert_int_equal(parse(csv, HOURLY_PRICE, NULL, &s, NULL), 0);
	assert_int_equal(cost_compute(&s, 0.05, kwh, 3, DAY0, &c, NULL), 0);
	assert_int_equal(c.fallback_hours, 1);
	assert_near(c.amount, 1.0 + 0.5 - 0.1, 1e-12);
	assert_int_equal(cost_compute(&s, -1, kwh, 3, DAY0, &c, &err), -1);
	assert_int_equal(cost_compute(NULL, NAN, kwh, 3, DAY0, &c, &err), -1);
	hourly_fini(&s);
}

/*
 * Two node classes, hand computed: location-based per class is each hour's
 * class energy x that hour's intensity and the classes add up to the site;
 * market-based splits the site's result by consumption and never
 * allocates more than the accepted instruments' MWh.
 */
static void
test_two_classes(void **st)
{
	static const char csv[] = "datetime,zone,carbon_intensity_avg\n"
	    "2026-11-30T00:00:00Z,FR,50\n2026-11-30T01:00:00Z,FR,300\n"
	    "2026-11-30T02:00:00Z,FR,100\n";
	double a[3] = { 2.2, 3.2, 2.7 }, b[3] = { 3.0, 0.5, 0.8 }, site[3];
	double parts[2], sum_mwh;
	struct hourly_series s;
	struct carbon_loc la, lb, ls;
	struct carbon_instrument *in;
	struct market_result r;
	struct market_share sh[2];
	struct market_opts o = mopts();
	struct wp_err err = { 0 };
	size_t n, h;
	int k;

	(void)st;
	for (h = 0; h < 3; h++)
		site[h] = a[h] + b[h];
	assert_int_equal(parse(csv, HOURLY_INTENSITY, "FR", &s, &err), 0);
	assert_int_equal(carbon_location(&s, -1, a, 3, DAY0, &la, NULL), 0);
	assert_int_equal(carbon_location(&s, -1, b, 3, DAY0, &lb, NULL), 0);
	assert_int_equal(carbon_location(&s, -1, site, 3, DAY0, &ls, NULL), 0);
	assert_near(la.g, 2.2 * 50 + 3.2 * 300 + 2.7 * 100, 1e-9);	/* 1340 */
	assert_near(lb.g, 3.0 * 50 + 0.5 * 300 + 0.8 * 100, 1e-9);	/* 380 */
	assert_near(la.g + lb.g, ls.g, 1e-9);
	/* not the energy share of the site's grams: the hours matter */
	assert_true(fabs(la.g - ls.g * la.kwh / ls.kwh) > 100);
	hourly_fini(&s);
	/* 10 kWh of valid GOs (0 g) over 12.4 kWh, rest at 40.74 */
	assert_int_equal(carbon_parse_instruments(instruments,
	    strlen(instruments), &in, &n, NULL), 0);
	assert_int_equal(carbon_market(in, n, ls.kwh, site, 3, DAY0, &o, &r,
	    NULL), 0);
	assert_near(r.instrument_kwh, 10, 1e-12);
	parts[0] = la.kwh;
	parts[1] = lb.kwh;
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, &err), 0);
	assert_near(sh[0].g, (12.4 - 10) * 40.74 * 8.1 / 12.4, 1e-9);
	assert_near(sh[0].g + sh[1].g, r.g, 1e-9);
	assert_near(sh[0].coverage, r.coverage, 1e-12);
	assert_near(sh[1].coverage, r.coverage, 1e-12);
	sum_mwh = (sh[0].covered_kwh + sh[1].covered_kwh) / 1000;
	assert_true(sum_mwh <= r.instrument_kwh / 1000 + 1e-15);
	assert_near(sh[0].remainder_kwh + sh[1].remainder_kwh, r.remainder_kwh,
	    1e-12);
	/* more instruments than consumption: still at most the consumption,
	 * never an instrument counted for two classes */
	for (k = 0; k < 2; k++)
		parts[k] /= 10;
	assert_int_equal(carbon_market(in, n, ls.kwh / 10, NULL, 0, 0, &o, &r,
	    NULL), 0);
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, NULL), 0);
	assert_near(sh[0].covered_kwh + sh[1].covered_kwh, ls.kwh / 10, 1e-12);
	assert_true(sh[0].covered_kwh + sh[1].covered_kwh <= r.instrument_kwh);
	assert_near(sh[0].g + sh[1].g, 0, 0);
	/* a class without energy: no coverage figure, nothing allocated */
	parts[1] = 0;
	parts[0] = ls.kwh / 10;
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, NULL), 0);
	assert_true(isnan(sh[1].coverage));
	assert_near(sh[1].covered_kwh, 0, 0);
	/* bad parts: negative, NAN, not adding up to the site */
	parts[1] = -1;
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, &err), -1);
	parts[1] = NAN;
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, &err), -1);
	parts[1] = 1;
	assert_int_equal(carbon_market_allocate(&r, parts, 2, sh, &err), -1);
	assert_non_null(strstr(err.msg, "add up"));
	free(in);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed000_countries),
		cmocka_unit_test(test_header_generations_and_basis),
		cmocka_unit_test(test_entsoe_dst_day),
		cmocka_unit_test(test_bad_intensity_input),
		cmocka_unit_test(test_gaps_and_duplicates),
		cmocka_unit_test(test_market_partial_and_rejections),
		cmocka_unit_test(test_market_full_coverage),
		cmocka_unit_test(test_hourly_matching_with_gap),
		cmocka_unit_test(test_bad_instruments),
		cmocka_unit_test(test_cost_fallback),
		cmocka_unit_test(test_two_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
