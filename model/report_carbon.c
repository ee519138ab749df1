/* report_carbon.c - the report's carbon and cost (see report_carbon.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

const char *
report_carbon_bnd(int b)
{
	return b == REPORT_C_WALL ? "wall" : "facility";
}

size_t
report_class_slots(const struct report *r)
{
	return r->cls.nodes[r->cls.ncls] > 0 ? r->cls.ncls + 1 : r->cls.ncls;
}

const char *
report_class_label(const struct report *r, size_t c)
{
	return c < r->cls.ncls ? r->cls.name[c] : "unclassified";
}

static struct report_pair
pair(double g, double out, double kwh, double coverage)
{
	return (struct report_pair){ .kg = g / 1000, .g_per_mtok = out > 0 ?
	    g / out * 1e6 : NAN, .kwh = kwh, .coverage = coverage };
}

/* Share of kWh with an hourly intensity (the rest at the yearly
 * average); NAN without energy. */
static double
loc_coverage(const struct carbon_loc *cl)
{
	return cl->kwh > 0 ? 1 - cl->fallback_kwh / cl->kwh : NAN;
}

static double
hours_sum(const double *kwh_h, size_t n)
{
	double s = 0;
	size_t h;

	for (h = 0; h < n; h++)
		s += kwh_h[h];
	return s;
}

/* Hourly kWh of class slot c at boundary b (the facility: wall x PUE, as
 * the site's); buf: nh scratch. */
static const double *
class_hours(const struct report *r, size_t c, int b, double *buf)
{
	const double *w = r->cls.kwh_h + c * r->hours.nh;
	size_t h;

	if (b == REPORT_C_WALL)
		return w;
	for (h = 0; h < r->hours.nh; h++)
		buf[h] = w[h] * r->pue.value;
	return buf;
}

/* The hourly intensity series, or NULL when there is none. */
static const struct hourly_series *
grid_series(const struct report_input *in)
{
	return in->data != NULL && in->data->grid.n > 0 ? &in->data->grid :
	    NULL;
}

/* ------------------------------------------------------ per class */

static void
class_info(struct report *r, double *buf)
{
	struct report_carbon *cb = &r->carbon;
	size_t c;
	int b;

	for (c = 0; c < cb->n_cls; c++) {
		struct report_carbon_class *k = &cb->cls[c];

		k->name = report_class_label(r, c);
		k->nodes = r->cls.nodes[c];
		k->out = r->cls.out[c];
		for (b = 0; b < REPORT_C_N; b++)
			if (b == REPORT_C_WALL || !isnan(r->pue.value)) {
				k->has_kwh[b] = true;
				k->kwh[b] = hours_sum(class_hours(r, c, b, buf),
				    r->hours.nh);
			}
	}
}

/* Location-based per class at boundary b: each hour's class energy x that
 * hour's intensity. */
static void
class_location(const struct report_input *in, struct report *r, int b,
    double *buf)
{
	const struct report_site *site = in->site;
	struct report_carbon *cb = &r->carbon;
	size_t c;

	for (c = 0; c < cb->n_cls; c++) {
		struct report_carbon_class *k = &cb->cls[c];
		struct carbon_loc cl;

		if (carbon_location(grid_series(in),
		    site->grid.yearly_g_per_kwh, class_hours(r, c, b, buf),
		    r->hours.nh, r->hours.origin, &cl, NULL) != 0)
			continue;
		k->loc_ok[b] = true;
		k->loc[b] = pair(cl.g, k->out, cl.kwh, loc_coverage(&cl));
	}
}

/* Market-based per class at boundary b: the site's result split in
 * proportion to the classes' consumption (carbon_market_allocate). */
static int
class_market(struct report *r, const struct market_result *res, int b,
    double *buf)
{
	struct report_carbon *cb = &r->carbon;
	size_t n = cb->n_cls, c;
	double *kwh = calloc(n + 1, sizeof(double));
	struct market_share *sh = calloc(n + 1, sizeof(*sh));
	struct wp_err e = { 0 };

	if (kwh == NULL || sh == NULL) {
		free(kwh);
		free(sh);
		return -1;
	}
	for (c = 0; c < n; c++)
		kwh[c] = hours_sum(class_hours(r, c, b, buf), r->hours.nh);
	if (carbon_market_allocate(res, kwh, n, sh, &e) == -1)
		report_warn(&r->warnings, "market-based by class (%s): %s",
		    report_carbon_bnd(b), e.msg);
	else
		for (c = 0; c < n; c++) {
			struct report_carbon_class *k = &cb->cls[c];

			if (!k->mk_ok[REPORT_C_WALL])	/* its first */
				k->market_first = !k->loc_ok[REPORT_C_WALL] &&
				    !k->loc_ok[REPORT_C_FACILITY];
			k->mk_ok[b] = true;
			k->mk[b] = pair(sh[c].g, k->out, sh[c].kwh,
			    sh[c].coverage);
			k->mk_instrument_mwh[b] = sh[c].covered_kwh / 1000;
		}
	free(kwh);
	free(sh);
	return 0;
}

/* --------------------------------------------------------- the site */

/* carbon.location's details: the intensity's source, basis, spacing. */
static void
intensity_source(const struct hourly_series *gs, double yearly,
    struct report_carbon *cb)
{
	if (gs != NULL)
		snprintf(cb->intensity_source, sizeof(cb->intensity_source),
		    "%s: %s; basis %s; rows every %.0f s, hourly values%s",
		    gs->layout, gs->column, gs->basis, secs(gs->resolution),
		    yearly > 0 ? "; yearly average fallback" : "");
	else
		snprintf(cb->intensity_source, sizeof(cb->intensity_source),
		    "yearly average %g gCO2eq/kWh (configured)", yearly);
	cb->resolution_s = gs != NULL ? secs(gs->resolution) : NAN;
	snprintf(cb->source, sizeof(cb->source), "%s", gs != NULL ?
	    gs->layout : "yearly average");
	snprintf(cb->basis, sizeof(cb->basis), "%s", gs != NULL ? gs->basis :
	    "unstated");
}

/* The location-based figure's basis: an intensity CSV is gCO2eq; the
 * yearly average is site.grid.gas; both used: mixed when they differ. */
static void
location_gas(const struct report_input *in, struct report *r,
    const struct carbon_loc *cl)
{
	const char *yg = in->site->grid.gas;
	struct report_carbon *cb = &r->carbon;

	if (grid_series(in) == NULL)
		cb->loc_gas = yg;
	else if (cl->fallback_hours == 0 || strcmp(yg, CARBON_GAS_CO2E) == 0)
		cb->loc_gas = CARBON_GAS_CO2E;
	else {
		cb->loc_gas = "mixed";
		report_warn(&r->warnings, "location-based: hourly gCO2eq "
		    "intensities combined with a CO2-only yearly average "
		    "(site.grid.gas): the figure is labelled 'mixed'");
	}
}

/* Location-based at boundary b over its hourly kWh. */
static void
site_location(const struct report_input *in, struct report *r, int b,
    const double *kwh_h, double *buf)
{
	const struct hourly_series *gs = grid_series(in);
	double yearly = in->site->grid.yearly_g_per_kwh;
	struct report_carbon *cb = &r->carbon;
	struct wp_err e = { 0 };
	struct carbon_loc cl;

	if (carbon_location(gs, yearly, kwh_h, r->hours.nh, r->hours.origin,
	    &cl, &e) != 0) {
		report_warn(&r->warnings, "location-based (%s): %s",
		    report_carbon_bnd(b), e.msg);
		return;
	}
	cb->loc_ok[b] = true;
	cb->loc[b] = pair(cl.g, r->out, cl.kwh, loc_coverage(&cl));
	if (b == REPORT_C_WALL) {
		cb->fallback_hours = cl.fallback_hours;
		cb->g_per_kwh = cl.g_per_kwh;
		intensity_source(gs, yearly, cb);
		location_gas(in, r, &cl);
		if (cl.fallback_hours)
			report_warn(&r->warnings, "%zu hour(s) at the yearly "
			    "average intensity (no hourly value)",
			    cl.fallback_hours);
	}
	if (buf != NULL && cb->n_cls > 0)
		class_location(in, r, b, buf);
}

/* The market options of the site for kwh_h: its grid average over those
 * hours, the reporting year of the window, the window itself. */
static void
market_opts(const struct report_input *in, const struct report *r,
    const double *kwh_h, struct market_opts *mo)
{
	const struct report_site *site = in->site;
	const struct hourly_series *grid = grid_series(in);
	time_t s = (time_t)(r->from / WP_SEC);
	struct carbon_loc loc;
	struct tm tm;

	*mo = (struct market_opts){ .zone = site->zone,
	    .holder = site->market.holder, .site = site->name,
	    .supplier_factor = site->market.supplier_factor,
	    .residual_factor = site->market.residual_factor,
	    .grid_average = site->grid.yearly_g_per_kwh,
	    .period_kwh = site->market.period_consumption_mwh * 1000,
	    .window_start = r->from, .window_end = r->to,
	    .supplier_gas = site->market.supplier_gas,
	    .residual_gas = site->market.residual_gas,
	    .grid_gas = site->grid.gas,
	    .residual_published = in->data != NULL &&
	    in->data->residual_published == 1 };
	if (grid != NULL && carbon_location(grid, site->grid.yearly_g_per_kwh,
	    kwh_h, r->hours.nh, r->hours.origin, &loc, NULL) == 0) {
		mo->grid_average = loc.g_per_kwh;
		mo->grid_gas = r->carbon.loc_gas;
	}
	gmtime_r(&s, &tm);
	mo->period_start = (wp_time)timegm(&(struct tm){ .tm_year =
	    tm.tm_year, .tm_mday = 1 }) * WP_SEC;
	mo->period_end = (wp_time)timegm(&(struct tm){ .tm_year = tm.tm_year +
	    1, .tm_mday = 1 }) * WP_SEC;
}

/* Why the remainder is at the grid average, into cb->remainder_flag, and
 * the warning when an input is missing. */
static void
remainder_flag(const struct report_input *in, struct report *r,
    const struct market_result *res)
{
	const struct report_site_data *d = in->data;
	struct report_carbon *cb = &r->carbon;
	const char *info = d != NULL && d->residual_info[0] ? d->residual_info :
	    "etc/residual-mix/published.csv";

	cb->residual_published = d != NULL ? d->residual_published : -1;
	if (!res->grid_average_used)
		return;
	if (res->residual_missing) {
		snprintf(cb->remainder_flag, sizeof(cb->remainder_flag),
		    "grid average used although zone %s publishes a residual "
		    "mix (%s): site.market.residual_mix is missing", cb->zone,
		    info);
		report_warn(&r->warnings, "market-based: %s; the GHG Protocol "
		    "Scope 2 hierarchy puts the residual mix before the grid "
		    "average", cb->remainder_flag);
	} else if (cb->residual_published == 0)
		snprintf(cb->remainder_flag, sizeof(cb->remainder_flag),
		    "grid average: no residual mix exists for zone %s (%s)",
		    cb->zone, info);
	else
		snprintf(cb->remainder_flag, sizeof(cb->remainder_flag),
		    "grid average: no residual mix given%s for zone %s",
		    cb->residual_published == -1 ? " or known to be published" :
		    "", cb->zone);
}

/* The market-based details (wall boundary). */
static void
market_details(const struct report_input *in, struct report *r,
    const struct market_result *res)
{
	const struct report_market *m = &in->site->market;
	struct report_carbon *cb = &r->carbon;

	cb->mres = *res;
	cb->instruments_mwh = res->instrument_kwh / 1000;
	cb->mk_gas = res->gas;
	if (res->residual_zero_ignored)
		report_warn(&r->warnings, "residual mix factor 0 read as 'none "
		    "published' (AIB), not as zero");
	if (res->gas_mixed)
		report_warn(&r->warnings, "market-based: factors of different "
		    "bases combined (CO2-only and CO2e): the figure is labelled "
		    "'mixed'; state the bases (gas:) or use factors of one");
	if (res->unprorated)
		report_warn(&r->warnings, "market-based: %zu instrument(s) not "
		    "counted: the window covers part of their vintage and the "
		    "period's consumption is not stated "
		    "(site.market.period_consumption_mwh)", res->unprorated);
	remainder_flag(in, r, res);
	if (!m->residual_set)
		return;
	cb->residual_set = true;
	cb->residual_source = m->residual_source ? m->residual_source :
	    "unstated";
	cb->residual_year = m->residual_year;
	snprintf(cb->residual_mix, sizeof(cb->residual_mix), "%s %s (%s "
	    "only)", cb->residual_source, m->residual_year ? m->residual_year :
	    "", m->residual_gas);
}

/* The claims of the result at boundary b (claim: each instrument's kWh)
 * into cb->claims.  0, or -1 out of memory. */
static int
keep_claims(const struct report_site_data *d, struct report *r, int b,
    const double *claim)
{
	struct report_carbon *cb = &r->carbon;
	size_t i;

	free(cb->claims);
	cb->claims = NULL;
	cb->n_claims = 0;
	cb->claims_bnd = b;
	if (d == NULL || d->n_inst == 0)
		return 0;
	if ((cb->claims = calloc(d->n_inst, sizeof(*cb->claims))) == NULL)
		return -1;
	for (i = 0; i < d->n_inst; i++) {
		struct report_claim *c = &cb->claims[cb->n_claims];
		double left;

		if (!(claim[i] > 0))
			continue;
		left = d->inst[i].mwh * 1000 - d->inst[i].claimed_kwh -
		    claim[i];
		snprintf(c->id, sizeof(c->id), "%s", d->inst[i].id);
		c->hour = d->inst[i].hour;
		c->kwh = claim[i];
		c->left_kwh = left > 0 ? left : 0;
		c->volume_kwh = d->inst[i].mwh * 1000;
		cb->n_claims++;
	}
	return 0;
}

/* Market-based at boundary b over kwh_h into res.  0, -1 (warned), or -2
 * out of memory. */
static int
site_market(const struct report_input *in, struct report *r, int b,
    const double *kwh_h, struct market_result *res)
{
	const struct report_site_data *d = in->data;
	struct market_opts mo;
	struct wp_err e = { 0 };
	double kwh = hours_sum(kwh_h, r->hours.nh);
	double *claim = calloc(d != NULL && d->n_inst ? d->n_inst : 1,
	    sizeof(double));
	int rc;

	if (claim == NULL)
		return -2;
	market_opts(in, r, kwh_h, &mo);
	mo.claim_kwh = claim;
	mo.grid_cfe = d != NULL && d->cfe.n > 0 ? &d->cfe : NULL;
	if (b == REPORT_C_WALL && d != NULL && d->inst_err[0] != '\0')
		report_warn(&r->warnings, "instruments: %s", d->inst_err);
	if (b == REPORT_C_WALL && d != NULL && d->cfe_err[0] != '\0')
		report_warn(&r->warnings, "CFE series: %s", d->cfe_err);
	if (b == REPORT_C_WALL && d != NULL && d->claims_err[0] != '\0')
		report_warn(&r->warnings, "instrument ledger: %s",
		    d->claims_err);
	if (carbon_market(d ? d->inst : NULL, d ? d->n_inst : 0, kwh, kwh_h,
	    r->hours.nh, r->hours.origin, &mo, res, &e) == -1) {
		report_warn(&r->warnings, "market-based (%s): %s",
		    report_carbon_bnd(b), e.msg);
		free(claim);
		return -1;
	}
	r->carbon.mk_ok[b] = true;
	r->carbon.mk[b] = pair(res->g, r->out, kwh, res->coverage);
	if (b == REPORT_C_WALL)
		market_details(in, r, res);
	rc = keep_claims(d, r, b, claim) == -1 ? -2 : 0;
	free(claim);
	return rc;
}

/* Location- and market-based at both boundaries, site and classes. */
static int
carbon_bounds(const struct report_input *in, struct report *r)
{
	const double *hb[REPORT_C_N] = { r->hours.wall, r->hours.fac };
	double *buf = calloc(r->hours.nh + 1, sizeof(double));
	struct report_carbon *cb = &r->carbon;
	int b, rc = 0;

	if (buf == NULL)
		return -1;
	cb->n_cls = report_class_slots(r);
	if ((cb->cls = calloc(cb->n_cls + 1, sizeof(*cb->cls))) == NULL) {
		free(buf);
		return -1;
	}
	class_info(r, buf);
	for (b = 0; b < REPORT_C_N && rc == 0; b++) {
		struct market_result res;

		if (b == REPORT_C_FACILITY && isnan(r->pue.value))
			continue;
		site_location(in, r, b, hb[b], buf);
		switch (site_market(in, r, b, hb[b], &res)) {
		case 0:
			if (cb->n_cls > 0)
				rc = class_market(r, &res, b, buf);
			break;
		case -2:
			rc = -1;
			break;
		}
	}
	free(buf);
	return rc;
}

/* ------------------------------------------------------------- cost */

static int
cost_classes(const struct report_input *in, struct report *r,
    const struct hourly_series *ps)
{
	struct report_cost *co = &r->cost;
	double *buf = calloc(r->hours.nh + 1, sizeof(double));
	size_t c, n = report_class_slots(r);
	struct cost_result cr;

	co->cls = calloc(n + 1, sizeof(*co->cls));
	if (buf == NULL || co->cls == NULL) {
		free(buf);
		return -1;
	}
	for (c = 0; c < n; c++) {
		if (cost_compute(ps, in->site->tariff.price, class_hours(r, c,
		    co->boundary, buf), r->hours.nh, r->hours.origin, &cr,
		    NULL) == -1)
			continue;
		co->cls[co->n_cls++] = (struct report_cost_class){
		    .name = report_class_label(r, c), .amount = cr.amount,
		    .kwh = cr.kwh, .per_mtok = r->cls.out[c] > 0 ? cr.amount /
		    r->cls.out[c] * 1e6 : NAN };
	}
	free(buf);
	return 0;
}

/* cost: the site's, then per class at the same boundary. */
static int
cost_build(const struct report_input *in, struct report *r)
{
	const struct report_site_data *d = in->data;
	const struct hourly_series *ps = d != NULL && d->prices.n > 0 ?
	    &d->prices : NULL;
	struct report_cost *co = &r->cost;
	struct cost_result cr;
	struct wp_err e = { 0 };

	if (d != NULL && d->price_err[0] != '\0')
		report_warn(&r->warnings, "%s", d->price_err);
	r->has_cost = true;
	co->currency = in->site->tariff.currency;
	co->boundary = isnan(r->pue.value) ? REPORT_C_WALL : REPORT_C_FACILITY;
	if (cost_compute(ps, in->site->tariff.price, co->boundary ==
	    REPORT_C_WALL ? r->hours.wall : r->hours.fac, r->hours.nh,
	    r->hours.origin, &cr, &e) == -1) {
		report_warn(&r->warnings, "cost: %s", e.msg);
		return 0;
	}
	co->ok = true;
	co->amount = cr.amount;
	co->per_mtok = r->out > 0 ? cr.amount / r->out * 1e6 : NAN;
	co->fallback_hours = cr.fallback_hours;
	return cost_classes(in, r, ps);
}

int
report_carbon_build(const struct report_input *in, struct report *r)
{
	const struct report_site *site = in->site;
	struct report_carbon *cb = &r->carbon;

	if (site->zone == NULL || (!site->grid.set && !site->market.set)) {
		report_warn(&r->warnings, "site has no zone or grid data: "
		    "carbon left out");
		return 0;
	}
	if (in->data != NULL && in->data->grid_err[0] != '\0')
		report_warn(&r->warnings, "%s", in->data->grid_err);
	r->has_carbon = true;
	cb->site_name = site->name;
	cb->zone = site->zone;
	cb->nodes = in->n_nodes;
	cb->out = r->out;
	cb->resolution_s = NAN;
	cb->loc_gas = site->grid.gas;
	cb->mk_gas = CARBON_GAS_CO2E;
	cb->residual_published = -1;
	if (carbon_bounds(in, r) == -1)
		return -1;
	return site->tariff.set ? cost_build(in, r) : 0;
}

void
report_carbon_free(struct report *r)
{
	free(r->carbon.cls);
	free(r->carbon.claims);
	free(r->cost.cls);
}
