/* report_pue.c - the report's PUE (see report_pue.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Adds meter series s (facility_total or it_total) to the metered sums
 * and the hourly meter energies. */
static void
pue_meter(const struct report_series *s, struct report *r, const char **cat)
{
	struct wp_sample tmp;
	char lab[64];
	size_t h;

	if (s->role == RR_FAC) {
		r->pue.facility_j += s->res.energy;
	} else {
		r->pue.it_j += s->res.energy;
		snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
		if (sample_get_label(&tmp, "category", lab, sizeof(lab)) == 0)
			*cat = pue_category(lab);
	}
	for (h = 0; h < r->hours.nh && h < s->main.bins[0].n; h++)
		(s->role == RR_FAC ? r->hours.mfac : r->hours.mit)[h] +=
		    s->main.bins[0].e[h] / 3.6e6;
}

void
report_pue_site(const struct report_input *in, struct report *r)
{
	bool fac = false, it = false, bad = false;
	const char *cat = NULL;
	struct wp_err e = { 0 };
	size_t i;

	r->pue.value = NAN;
	r->pue.source = "none";
	r->pue.category = "unstated";
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
		pue_meter(s, r, &cat);
	}
	if (fac && it && !bad) {
		if (pue_compute(r->pue.facility_j, r->pue.it_j, &r->pue.value,
		    &e) == 0) {
			r->pue.source = "metered";
			r->pue.category = cat ? cat : "unstated";
		} else
			report_warn(&r->warnings, "%s", e.msg);
	} else if (in->set->pue_set) {
		r->pue.value = in->set->pue_value;
		r->pue.source = "declared";
		r->pue.category = pue_category(in->set->pue_category);
	}
	if (isnan(r->pue.value))
		report_warn(&r->warnings, "no PUE (no facility_total and "
		    "it_total meters over the window, no report.pue): facility "
		    "boundary left out");
}

/* The PUE rows of one calendar period from the meters' hourly kWh. */
static int
pue_rows(const struct report_hours *hr, int period,
    struct report_pue_rows *out)
{
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
	for (i = 0; i < n; i++)
		out->v[out->n++] = (struct report_pue_row){
		    .start = rows[i].start, .value = rows[i].value,
		    .facility_j = rows[i].facility_kwh * 3.6e6,
		    .it_j = rows[i].it_kwh * 3.6e6 };
	free(rows);
	return 0;
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
	if (pue_rows(&r->hours, PUE_DAY, &p->days) == -1)
		return -1;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (per >= 0 ? per != ps[i] : ps[i] == PUE_HOUR &&
		    r->hours.nh > 48)
			continue;
		p->listed[ps[i]] = true;
		if (pue_rows(&r->hours, ps[i], &p->period[ps[i]]) == -1)
			return -1;
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
report_pue_free(struct report_pue *p)
{
	int k;

	free(p->days.v);
	for (k = 0; k <= PUE_YEAR; k++)
		free(p->period[k].v);
	free(p->zones);
}
