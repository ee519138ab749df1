/* pue.c - PUE over a window and over calendar periods. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "pue.h"

int
pue_compute(double facility_j, double it_j, double *out, struct wp_err *err)
{
	*out = NAN;
	if (!isfinite(it_j) || it_j <= 0)
		return err_set(err, WP_E_PROTOCOL, "PUE: no IT energy measured");
	if (!isfinite(facility_j) || facility_j < 0)
		return err_set(err, WP_E_PROTOCOL, "PUE: no facility energy");
	if (facility_j < it_j * (1 - 1e-9))
		return err_set(err, WP_E_PROTOCOL, "PUE %.3f is below 1 "
		    "(facility %.0f J < IT %.0f J): metering error",
		    facility_j / it_j, facility_j, it_j);
	*out = facility_j / it_j;
	if (*out < 1)
		*out = 1;
	return 0;
}

const char *
pue_category(const char *label)
{
	if (label == NULL)
		return "unstated";
	if (strcasecmp(label, "1") == 0 || strcasecmp(label, "ups") == 0 ||
	    strcasecmp(label, "category-1") == 0 ||
	    strcasecmp(label, "ups_output") == 0)
		return "PUE1 (IT energy at the UPS output)";
	if (strcasecmp(label, "2") == 0 || strcasecmp(label, "pdu") == 0 ||
	    strcasecmp(label, "category-2") == 0 ||
	    strcasecmp(label, "pdu_output") == 0)
		return "PUE2 (IT energy at the PDU output)";
	if (strcasecmp(label, "3") == 0 || strcasecmp(label, "it") == 0 ||
	    strcasecmp(label, "category-3") == 0 ||
	    strcasecmp(label, "it_input") == 0)
		return "PUE3 (IT energy at the IT equipment input)";
	return "unstated";
}

int
pue_category_level(const char *label)
{
	const char *c = pue_category(label);

	return strncmp(c, "PUE", 3) == 0 ? c[3] - '0' : 0;
}

/* Months since year 0 of "YYYY-MM" at s (7 characters), or -1. */
static int
month_of(const char *s)
{
	int y, m, n = 0;

	if (sscanf(s, "%4d-%2d%n", &y, &m, &n) != 2 || n != 7 || y < 1970 ||
	    y > 9999 || m < 1 || m > 12)
		return -1;
	return y * 12 + m - 1;
}

int
pue_declared_months(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	int a, b, y, k = 0;

	if (n == 4 && sscanf(s, "%4d%n", &y, &k) == 1 && k == 4 && y >= 1970)
		return 12;
	if (n == 7)
		return month_of(s) >= 0 ? 1 : -1;
	if (n != 16 || s[7] != '.' || s[8] != '.')
		return -1;
	a = month_of(s);
	b = month_of(s + 9);
	return a >= 0 && b >= a ? b - a + 1 : -1;
}

const char *
pue_period_name(int period)
{
	static const char *const n[] = { "window", "hour", "day", "month",
	    "year" };

	return period >= 0 && period <= PUE_YEAR ? n[period] : "unknown";
}

/* Start of the calendar period holding t (UTC). */
static wp_time
period_start(wp_time t, int period)
{
	time_t s = (time_t)(t / WP_SEC);
	struct tm tm;

	if (period == PUE_HOUR)
		return (wp_time)(s - s % 3600) * WP_SEC;
	gmtime_r(&s, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	if (period == PUE_MONTH || period == PUE_YEAR)
		tm.tm_mday = 1;
	if (period == PUE_YEAR)
		tm.tm_mon = 0;
	return (wp_time)timegm(&tm) * WP_SEC;
}

wp_time
pue_period_end(wp_time st, int period)
{
	time_t s = (time_t)(st / WP_SEC);
	struct tm tm;

	if (period == PUE_HOUR)
		return st + 3600 * WP_SEC;
	gmtime_r(&s, &tm);
	if (period == PUE_DAY)
		tm.tm_mday++;
	else if (period == PUE_MONTH)
		tm.tm_mon++;
	else
		tm.tm_year++;
	return (wp_time)timegm(&tm) * WP_SEC;
}

size_t
pue_periods(const double *fac_h, const double *it_h, size_t n,
    wp_time origin, int period, struct pue_row *rows, size_t max)
{
	size_t i, k = 0;
	struct pue_row *r = NULL;

	for (i = 0; i < n; i++) {
		wp_time st = period_start(origin + (wp_time)i * 3600 * WP_SEC,
		    period == PUE_WINDOW ? PUE_YEAR : period);

		if (period == PUE_WINDOW)
			st = origin;
		if (r == NULL || r->start != st) {
			if (k == max)
				break;
			r = &rows[k++];
			memset(r, 0, sizeof(*r));
			r->start = st;
		}
		r->hours++;
		r->facility_kwh += fac_h[i];
		r->it_kwh += it_h[i];
	}
	for (i = 0; i < k; i++) {
		if (pue_compute(rows[i].facility_kwh, rows[i].it_kwh,
		    &rows[i].value, NULL) == -1)
			rows[i].value = NAN;
		rows[i].complete = period != PUE_WINDOW &&
		    (wp_time)rows[i].hours * 3600 * WP_SEC >= pue_period_end(
		    rows[i].start, period) - rows[i].start;
	}
	return k;
}
