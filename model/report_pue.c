/* report_pue.c - the report's PUE (see report_pue.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The category (1..3, 0 unstated) of IT meter series s: its config's
 * it_measured_at, else the journal's category= label; a disagreement is
 * warned. */
static int
meter_category(const struct report_input *in, const struct report_series *s,
    struct report *r)
{
	bool known = in->meters != NULL && s->idx >= 0 &&
	    (size_t)s->idx < in->n_meters;
	const char *cfg = known ? in->meters[s->idx].it_measured_at : NULL;
	const char *name = known ? in->meters[s->idx].name : s->key;
	struct wp_sample tmp;
	char lab[64];
	int lc, ll = 0;

	snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
	if (sample_get_label(&tmp, "category", lab, sizeof(lab)) == 0)
		ll = pue_category_level(lab);
	lc = pue_category_level(cfg);
	if (lc > 0 && ll > 0 && lc != ll)
		report_warn(&r->warnings, "meter %s: the journal labels its IT "
		    "energy %s, the config's it_measured_at says %s: the "
		    "config's is used", name, pue_category(lab),
		    pue_category(cfg));
	else if (lc == 0 && ll > 0)
		report_warn(&r->warnings, "meter %s: no it_measured_at in the "
		    "config; the journal's label gives %s", name,
		    pue_category(lab));
	return lc > 0 ? lc : ll;
}

/* Adds meter series s (facility_total or it_total) to the metered sums
 * and the hourly meter energies; *lvl: the IT meters' categories seen
 * (bit k: category k, bit 0 unstated). */
static void
pue_meter(const struct report_input *in, const struct report_series *s,
    struct report *r, unsigned *lvl)
{
	struct report_hours *hr = &r->hours;
	size_t h;

	if (s->role == RR_FAC) {
		r->pue.facility_j += s->res.energy;
		hr->mfac_step += s->main.o.resolution;
	} else {
		r->pue.it_j += s->res.energy;
		hr->mit_step += s->main.o.resolution;
		*lvl |= 1u << meter_category(in, s, r);
	}
	if (s->main.o.max_res_error > 0 && (hr->step_rel_max <= 0 ||
	    s->main.o.max_res_error < hr->step_rel_max))
		hr->step_rel_max = s->main.o.max_res_error;
	for (h = 0; h < r->hours.nh && h < s->main.bins[0].n; h++)
		(s->role == RR_FAC ? r->hours.mfac : r->hours.mit)[h] +=
		    integ_bin(&s->main.bins[0], h) / 3.6e6;
}

/* The site's category from the IT meters' (bits of pue_meter): one
 * category, or the least precise of several (warned), or unstated. */
static const char *
site_category(unsigned lvl, struct report *r)
{
	static const char *const lv[] = { NULL, "1", "2", "3" };
	int k, lo = 0, n = 0;

	for (k = 3; k >= 1; k--)
		if (lvl & (1u << k)) {
			lo = k;
			n++;
		}
	if (lvl & 1u) {
		if (n > 0)
			report_warn(&r->warnings, "PUE: some it_total meters do "
			    "not state where they measure (it_measured_at): "
			    "category unstated");
		return "unstated";
	}
	if (n > 1)
		report_warn(&r->warnings, "PUE: the it_total meters measure at "
		    "different points: %s, the least precise, is stated",
		    pue_category(lv[lo]));
	return pue_category(lv[lo]);
}

/* The declared report.pue, with the period it was declared for. */
static void
pue_declared(const struct report_settings *set, struct report *r)
{
	int m = pue_declared_months(set->pue_period);

	r->pue.value = set->pue_value;
	r->pue.source = "declared";
	r->pue.category = pue_category(set->pue_category);
	r->pue.period_text = m > 0 ? set->pue_period : "unstated";
	r->pue.annual = m == 12;
	if (m <= 0)
		report_warn(&r->warnings, "declared PUE %.3g: no report.pue."
		    "period, so the period it was measured over is unstated",
		    set->pue_value);
	else if (m != 12)
		report_warn(&r->warnings, "declared PUE %.3g is for %s (%d "
		    "month%s), not an annual PUE", set->pue_value,
		    set->pue_period, m, m == 1 ? "" : "s");
}

void
report_pue_site(const struct report_input *in, struct report *r)
{
	bool fac = false, it = false, bad = false;
	unsigned lvl = 0;
	struct wp_err e = { 0 };
	size_t i;

	r->pue.value = NAN;
	r->pue.alloc_j = r->pue.primary_j = r->pue.alloc_rel = NAN;
	r->pue.source = "none";
	r->pue.category = "unstated";
	r->pue.period_text = "none";
	for (i = 0; i < in->n_ser; i++) {
		const struct report_series *s = in->ser[i];

		if (s->role != RR_FAC && s->role != RR_IT)
			continue;
		if (s->rc != 0) {
			report_warn(&r->warnings, "meter %s: %s", s->key, s->why);
			bad = true;
			continue;
		}
		*(s->role == RR_FAC ? &fac : &it) = true;
		pue_meter(in, s, r, &lvl);
	}
	if (fac && it && !bad) {
		if (pue_compute(r->pue.facility_j, r->pue.it_j, &r->pue.value,
		    &e) == 0) {
			r->pue.source = "metered";
			r->pue.period_text = "window";
			r->pue.category = site_category(lvl, r);
		} else
			report_warn(&r->warnings, "%s", e.msg);
	} else if (in->set->pue_set)
		pue_declared(in->set, r);
	if (isnan(r->pue.value))
		report_warn(&r->warnings, "no PUE (no facility_total and "
		    "it_total meters over the window, no report.pue): facility "
		    "boundary left out");
}

static const char why_coarse[] = "the meters' counter steps are too coarse "
    "for its energy";
static const char why_below_1[] = "below 1: a metering error";
static const char why_no_it[] = "no IT energy";
static const char why_no_fac[] = "no facility energy";

/* Why row has no PUE, or NULL: no IT or facility energy, energies under
 * the meters' counter steps / step_rel_max (a few seconds of an edge hour
 * metered in Wh: the window's own figure passed that check in the
 * integrator), or below 1. */
static const char *
pue_row_refusal(const struct report_hours *hr, const struct pue_row *row)
{
	double fac = row->facility_kwh * 3.6e6, it = row->it_kwh * 3.6e6;

	if (!(it > 0))
		return why_no_it;
	if (!(fac > 0))
		return why_no_fac;
	if (hr->step_rel_max > 0 && (hr->mfac_step > hr->step_rel_max * fac ||
	    hr->mit_step > hr->step_rel_max * it))
		return why_coarse;
	return isnan(row->value) ? why_below_1 : NULL;
}

/* The PUE rows of one calendar period from the meters' hourly kWh; a row
 * is complete when the window covers the whole period (ISO/IEC 30134-2:
 * an annual PUE needs 12 months of data). */
static int
pue_rows(const struct report *r, int period, struct report_pue_rows *out)
{
	const struct report_hours *hr = &r->hours;
	size_t n, i, max = hr->nh + 1;
	struct pue_row *rows = calloc(max, sizeof(*rows));

	out->v = calloc(max, sizeof(*out->v));
	out->n = 0;
	if (rows == NULL || out->v == NULL) {
		free(rows);
		return -1;
	}
	n = pue_periods(hr->mfac, hr->mit, hr->nh, hr->origin, period, rows,
	    max);
	for (i = 0; i < n; i++) {
		const char *why = pue_row_refusal(hr, &rows[i]);

		out->v[out->n++] = (struct report_pue_row){
		    .start = rows[i].start, .why = why,
		    .value = why != NULL ? NAN : rows[i].value,
		    .facility_j = rows[i].facility_kwh * 3.6e6,
		    .it_j = rows[i].it_kwh * 3.6e6, .hours = rows[i].hours,
		    .complete = rows[i].complete && r->from <= rows[i].start &&
		    r->to >= pue_period_end(rows[i].start, period) };
	}
	free(rows);
	return 0;
}

/* A warning for rows of period left without a PUE by their meters'
 * counter steps (pue_row_refusal). */
static void
coarse_rows_warn(struct report *r, int period,
    const struct report_pue_rows *rows)
{
	size_t i, n = 0;

	for (i = 0; i < rows->n; i++)
		n += rows->v[i].why == why_coarse;
	if (n > 0)
		report_warn(&r->warnings, "PUE per %s: %zu row%s without a "
		    "value: the meters' counter steps exceed %.3g %% of %s "
		    "energy", pue_period_name(period), n, n == 1 ? "" : "s",
		    100 * r->hours.step_rel_max, n == 1 ? "its" : "their");
}

static bool
zone_listed(const struct report_pue *p, const char *zone)
{
	size_t i;

	for (i = 0; i < p->n_zones; i++)
		if (strcmp(p->zones[i].name, zone) == 0)
			return true;
	return false;
}

/* The partial PUE of zone from the meter series carrying it. */
static void
pue_zone(const struct report_input *in, const char *zone, struct report *r,
    struct report_pue_zone *z)
{
	bool seen = false, bad = false;
	struct wp_err e = { 0 };
	size_t j;

	memset(z, 0, sizeof(*z));
	z->name = zone;
	z->value = NAN;
	for (j = 0; j < in->n_ser; j++) {
		const struct report_series *s = in->ser[j];
		const char *sz;

		if (s->role != RR_FAC && s->role != RR_IT)
			continue;
		sz = in->meters[s->idx].zone;
		if (sz == NULL || strcmp(sz, zone) != 0)
			continue;
		if (s->rc != 0)
			bad = true;
		*(s->role == RR_FAC ? &z->facility_j : &z->it_j) +=
		    s->res.energy;
		seen = seen || s->role == RR_IT;
	}
	if (!seen || bad || z->facility_j <= 0)
		return;
	if (pue_compute(z->facility_j, z->it_j, &z->value, &e) == -1) {
		z->value = NAN;
		report_warn(&r->warnings, "zone %s: partial %s", zone, e.msg);
	}
}

int
report_pue_tables(const struct report_input *in, struct report *r)
{
	static const int ps[] = { PUE_HOUR, PUE_DAY, PUE_MONTH, PUE_YEAR };
	struct report_pue *p = &r->pue;
	int per = in->plan->period;
	size_t i;

	if (strcmp(p->source, "metered") != 0)
		return 0;
	if (pue_rows(r, PUE_DAY, &p->days) == -1)
		return -1;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (per >= 0 ? per != ps[i] : ps[i] == PUE_HOUR &&
		    r->hours.nh > 48)
			continue;
		p->listed[ps[i]] = true;
		if (pue_rows(r, ps[i], &p->period[ps[i]]) == -1)
			return -1;
		coarse_rows_warn(r, ps[i], &p->period[ps[i]]);
	}
	if ((p->zones = calloc(in->n_meters + 1, sizeof(*p->zones))) == NULL)
		return -1;
	for (i = 0; i < in->n_meters; i++)
		if (in->meters[i].zone != NULL &&
		    !zone_listed(p, in->meters[i].zone))
			pue_zone(in, in->meters[i].zone, r,
			    &p->zones[p->n_zones++]);
	return 0;
}

void
report_pue_allocate(struct report *r)
{
	const struct report_hours *hr = &r->hours;
	double a = 0, w = 0;
	size_t h;

	r->pue.alloc_j = r->pue.primary_j = r->pue.alloc_rel = NAN;
	if (strcmp(r->pue.source, "metered") != 0)
		return;
	for (h = 0; h < hr->nh; h++) {
		if (hr->wall[h] <= 0)
			continue;
		if (hr->mit[h] <= 0)
			return;
		a += hr->mfac[h] * hr->wall[h] / hr->mit[h];
		w += hr->wall[h];
	}
	if (w <= 0)
		return;
	r->pue.alloc_j = a * 3.6e6;
	r->pue.primary_j = w * r->pue.value * 3.6e6;
	r->pue.alloc_rel = r->pue.alloc_j / r->pue.primary_j - 1;
}

void
report_pue_free(struct report_pue *p)
{
	int k;

	free(p->days.v);
	for (k = 0; k <= PUE_YEAR; k++)
		free(p->period[k].v);
	free(p->zones);
}
