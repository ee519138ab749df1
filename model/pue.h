/*
 * pue.h - energy-based PUE (ISO/IEC 30134-2, Green Grid categories), pure.
 *
 * PUE = facility energy / IT energy over the same period; by construction
 * >= 1, so a value below 1 is refused as a metering error (a meter on the
 * wrong side, a missing feed).  The category says where IT energy was
 * measured: 1 UPS output, 2 PDU output, 3 IT equipment input.  Periods:
 * the report window, or calendar hours, days, months and years (UTC) built
 * from hourly energies.  Partial PUE is the same ratio inside a zone.
 */
#ifndef WP_PUE_H
#define WP_PUE_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"

enum pue_period { PUE_WINDOW, PUE_HOUR, PUE_DAY, PUE_MONTH, PUE_YEAR };

/* 0 with *out, or -1: IT energy missing, or PUE < 1 (metering error). */
int	 pue_compute(double facility_j, double it_j, double *out,
	    struct wp_err *err);
/*
 * Normalises a category label ("1", "ups", "ups_output", "category-2",
 * "pdu", "pdu_output", "3", "it", "it_input") to ISO/IEC 30134-2's
 * "PUE1 (IT energy at the UPS output)", PUE2 (PDU output), PUE3 (IT
 * equipment input); NULL or unknown gives "unstated".
 */
const char *pue_category(const char *label);
/* The category's number, 1..3, or 0 when unstated or unknown. */
int	 pue_category_level(const char *label);
/*
 * The months a declared PUE's period covers: a year "2025" (12), a month
 * "2026-11" (1) or a range of months "2025-07..2026-06" (12); -1 when s
 * is none of these.  "Annual" is 12 months.
 */
int	 pue_declared_months(const char *s);
const char *pue_period_name(int period);
/* The end of the calendar period (UTC) starting at st. */
wp_time	 pue_period_end(wp_time st, int period);

struct pue_row {
	wp_time	 start;		/* period start (UTC) */
	double	 facility_kwh, it_kwh;	/* sums of the hourly kWh */
	double	 value;		/* NAN when refused */
	size_t	 hours;		/* hourly bins in the row (edge ones partial) */
	bool	 complete;	/* bins for the whole calendar period */
};

/*
 * Groups hourly energies in kWh (bin i starts at origin + i h, origin on
 * an hour) into calendar periods; writes up to max rows, returns the count
 * (rows past max are dropped).  A row whose PUE is below 1 gets value NAN.
 */
size_t	 pue_periods(const double *fac_h, const double *it_h, size_t n,
	    wp_time origin, int period, struct pue_row *rows, size_t max);

#endif
