/*
 * Unit tests: model/report_carbon.c - a site of two node classes and some
 * unclassified nodes over three hours, with an hourly intensity (one hour
 * missing: the yearly average), a guarantee of origin and a residual mix:
 * per class, location-based and market-based carbon add up to the site's
 * at both boundaries, every class carries the site's instrument coverage
 * and their instrument MWh add up to what the site used, never more than
 * the instruments hold; cost per class adds up to the site's.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"

#define NH	3
#define NS	3	/* class slots: A, B, unclassified */
#define PUE	1.25

struct fx {
	const char *names[2];
	int of[4];
	double kwh_h[NS * NH];
	double out[NS];
	size_t nodes[NS];
	double wall[NH], fac[NH];
	struct hourly_point pts[2];
	struct carbon_instrument go;
	struct report_site site;
	struct report_site_data data;
	struct report_input in;
	struct report r;
};

static void
fx_setup(struct fx *f)
{
	static const double kwh[NS][NH] = { { 10, 20, 30 }, { 5, 5, 5 },
	    { 1, 2, 3 } };
	int c, h;

	memset(f, 0, sizeof(*f));
	f->names[0] = "A";
	f->names[1] = "B";
	for (c = 0; c < NS; c++)
		for (h = 0; h < NH; h++) {
			f->kwh_h[c * NH + h] = kwh[c][h];
			f->wall[h] += kwh[c][h];
		}
	for (h = 0; h < NH; h++)
		f->fac[h] = f->wall[h] * PUE;
	f->out[0] = 1e6;
	f->out[1] = 5e5;
	f->out[2] = -1;			/* unknown: per-token figures null */
	f->nodes[0] = 2;
	f->nodes[1] = f->nodes[2] = 1;
	f->r = (struct report){ .from = RF_T0, .to = RF_T0 + NH * REPORT_HOUR,
	    .out = 1.5e6, .pue = { .value = PUE },
	    .hours = { .origin = RF_T0, .nh = NH, .wall = f->wall,
	    .fac = f->fac },
	    .cls = { .ncls = 2, .name = f->names, .kwh_h = f->kwh_h,
	    .out = f->out, .nodes = f->nodes } };
	/* hours 0 and 1 have an intensity, hour 2 the yearly average */
	f->pts[0] = (struct hourly_point){ RF_T0, 40 };
	f->pts[1] = (struct hourly_point){ RF_T0 + REPORT_HOUR, 60 };
	f->data.grid = (struct hourly_series){ .p = f->pts, .n = 2,
	    .column = "carbon intensity", .basis = "direct",
	    .layout = "generic", .resolution = REPORT_HOUR };
	/* 20 kWh of guarantees of origin at 0 g, for the window's hours
	 * (the window holds their period: its consumption is computed) */
	f->go = (struct carbon_instrument){ .id = "go-1", .type = "GO",
	    .market = "FR", .vintage_start = RF_T0,
	    .vintage_end = RF_T0 + NH * REPORT_HOUR, .mwh = 0.02,
	    .factor = 0, .cancelled_for = "acme" };
	f->data.inst = &f->go;
	f->data.n_inst = 1;
	report_site_init(&f->site);
	f->site.name = "s1";
	f->site.zone = "FR";
	f->site.grid.set = true;
	f->site.grid.yearly_g_per_kwh = 50;
	f->site.market.set = true;
	f->site.market.holder = "acme";
	f->site.market.residual_set = true;
	f->site.market.residual_factor = 42;
	f->site.tariff.set = true;
	f->site.tariff.price = 0.1;
	f->in = (struct report_input){ .n_nodes = 4, .site = &f->site,
	    .data = &f->data };
}

static void
fx_free(struct fx *f)
{
	report_carbon_free(&f->r);
	report_warnings_fini(&f->r.warnings);
}

static void
test_classes_add_up_to_the_site(void **st)
{
	struct fx f;
	const struct report_carbon *cb = &f.r.carbon;
	double lkg[2] = { 0, 0 }, mkg[2] = { 0, 0 }, mwh = 0, kwh = 81;
	size_t c;
	int b;

	(void)st;
	fx_setup(&f);
	assert_int_equal(report_carbon_build(&f.in, &f.r), 0);
	assert_true(f.r.has_carbon);
	assert_int_equal(cb->n_cls, NS);
	assert_string_equal(cb->cls[2].name, "unclassified");
	/* location, wall: 16 kWh x 40 + 27 x 60 + 38 x 50 (the fallback) */
	assert_true(cb->loc_ok[REPORT_C_WALL] && cb->loc_ok[REPORT_C_FACILITY]);
	assert_near(cb->loc[REPORT_C_WALL].kg, (16 * 40 + 27 * 60 + 38 * 50) /
	    1000.0, 1e-12);
	assert_near(cb->loc[REPORT_C_WALL].coverage, 1 - 38 / kwh, 1e-12);
	assert_int_equal(cb->fallback_hours, 1);
	assert_int_equal(f.r.warnings.n, 1);
	/* market: 20 kWh covered at 0 g, the rest at the residual mix */
	assert_near(cb->mk[REPORT_C_WALL].coverage, 20 / kwh, 1e-12);
	assert_near(cb->mk[REPORT_C_WALL].kg, (kwh - 20) * 42 / 1000, 1e-9);
	assert_string_equal(cb->mres.remainder_step, "residual-mix");
	for (b = 0; b < REPORT_C_N; b++)
		for (c = 0; c < cb->n_cls; c++) {
			const struct report_carbon_class *k = &cb->cls[c];

			assert_true(k->loc_ok[b] && k->mk_ok[b]);
			lkg[b] += k->loc[b].kg;
			mkg[b] += k->mk[b].kg;
			assert_near(k->mk[b].coverage, cb->mk[b].coverage,
			    1e-12);
			if (b == REPORT_C_WALL)
				mwh += k->mk_instrument_mwh[b];
		}
	for (b = 0; b < REPORT_C_N; b++) {
		assert_near(lkg[b], cb->loc[b].kg, 1e-9);
		assert_near(mkg[b], cb->mk[b].kg, 1e-9);
	}
	assert_near(mwh, 0.02, 1e-12);
	assert_true(mwh <= cb->instruments_mwh + 1e-12);
	assert_near(cb->cls[0].kwh[REPORT_C_FACILITY], 60 * PUE, 1e-12);
	assert_near(cb->cls[0].loc[REPORT_C_WALL].g_per_mtok,
	    (10 * 40 + 20 * 60 + 30 * 50) / 1e6 * 1e6, 1e-9);
	assert_true(isnan(cb->cls[2].loc[REPORT_C_WALL].g_per_mtok));
	fx_free(&f);
}

static void
test_cost_by_class(void **st)
{
	struct fx f;
	double sum = 0;
	size_t c;

	(void)st;
	fx_setup(&f);
	assert_int_equal(report_carbon_build(&f.in, &f.r), 0);
	assert_true(f.r.has_cost && f.r.cost.ok);
	assert_int_equal(f.r.cost.boundary, REPORT_C_FACILITY);	/* a PUE */
	assert_near(f.r.cost.amount, 81 * PUE * 0.1, 1e-12);
	assert_near(f.r.cost.per_mtok, f.r.cost.amount / 1.5e6 * 1e6, 1e-12);
	assert_int_equal(f.r.cost.n_cls, NS);
	for (c = 0; c < f.r.cost.n_cls; c++)
		sum += f.r.cost.cls[c].amount;
	assert_near(sum, f.r.cost.amount, 1e-12);
	assert_true(isnan(f.r.cost.cls[2].per_mtok));
	fx_free(&f);
	/* without a PUE: the wall, and no facility figures */
	fx_setup(&f);
	f.r.pue.value = NAN;
	assert_int_equal(report_carbon_build(&f.in, &f.r), 0);
	assert_int_equal(f.r.cost.boundary, REPORT_C_WALL);
	assert_near(f.r.cost.amount, 81 * 0.1, 1e-12);
	assert_false(f.r.carbon.loc_ok[REPORT_C_FACILITY]);
	assert_false(f.r.carbon.cls[0].has_kwh[REPORT_C_FACILITY]);
	fx_free(&f);
}

/* A zone, and grid or market data, or carbon is left out (said). */
static void
test_needs_zone_and_data(void **st)
{
	struct fx f;

	(void)st;
	fx_setup(&f);
	f.site.zone = NULL;
	assert_int_equal(report_carbon_build(&f.in, &f.r), 0);
	assert_false(f.r.has_carbon || f.r.has_cost);
	assert_int_equal(f.r.warnings.n, 1);
	assert_string_equal(f.r.warnings.v[0], "site has no zone or grid "
	    "data: carbon left out");
	fx_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_add_up_to_the_site),
		cmocka_unit_test(test_cost_by_class),
		cmocka_unit_test(test_needs_zone_and_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
