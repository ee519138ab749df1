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

#include <stddef.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"

enum pue_period { PUE_WINDOW, PUE_HOUR, PUE_DAY, PUE_MONTH, PUE_YEAR };

/* 0 with *out, or -1: IT energy missing, or PUE < 1 (metering error). */
int	 pue_compute(double facility_j, double it_j, double *out,
	    struct wp_err *err);
/*
 * Normalises a category label ("1", "ups", "ups_output", "category-2",
 * "pdu", "pdu_output", "3", "it", "it_input")
 * to "category 1 (UPS output)" etc.; NULL or unknown gives "unstated".
 */
const char *pue_category(const char *label);
const char *pue_period_name(int period);

struct pue_row {
	wp_time	 start;		/* period start (UTC) */
	double	 facility_kwh, it_kwh;	/* sums of the hourly kWh */
	double	 value;		/* NAN when refused */
};

/*
 * Groups hourly energies in kWh (bin i starts at origin + i h, origin on
 * an hour) into calendar periods; writes up to max rows, returns the count
 * (rows past max are dropped).  A row whose PUE is below 1 gets value NAN.
 */
size_t	 pue_periods(const double *fac_h, const double *it_h, size_t n,
	    wp_time origin, int period, struct pue_row *rows, size_t max);

#endif
