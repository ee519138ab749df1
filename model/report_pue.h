/*
 * report_pue.h - the report's PUE (pure): metered over the window from the
 * facility_total and it_total meters (refused when a meter's window is),
 * else the declared report.pue, else none (the facility boundary left
 * out); with metered PUE, its calendar periods (UTC hours for windows up
 * to 48 h, days, months, years) and the partial PUE of each meter zone.
 */
#ifndef WP_REPORT_PUE_H
#define WP_REPORT_PUE_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "pue.h"

struct report;
struct report_input;

struct report_pue_row {
	wp_time	 start;		/* period start (UTC) */
	double	 value;		/* NAN when refused */
	const char *why;	/* why refused (static text), else NULL */
	double	 facility_j, it_j;
	size_t	 hours;		/* hours of data in the row */
	bool	 complete;	/* they cover the whole calendar period */
};

struct report_pue_rows {
	struct report_pue_row *v;
	size_t	 n;
};

/* Partial PUE of a zone: its facility_total over its it_total meters. */
struct report_pue_zone {
	const char *name;	/* borrowed from the input's meters */
	double	 facility_j, it_j;
	double	 value;		/* NAN when unknown */
};

struct report_pue {
	double	 value;		/* NAN: none */
	const char *category;	/* static text */
	const char *source;	/* "metered", "declared", "none" */
	const char *period_text;	/* "window" (metered), the declared period
				 * (report.pue.period), "unstated", "none" */
	bool	 annual;	/* declared over 12 months */
	double	 facility_j, it_j;	/* metered over the window */
	struct report_pue_rows days;
	bool	 listed[PUE_YEAR + 1];	/* periods shown */
	struct report_pue_rows period[PUE_YEAR + 1];
	struct report_pue_zone *zones;
	size_t	 n_zones;
	/* the facility boundary's second method (metered only): each hour's
	 * metered facility energy x that hour's IT share (wall / it_total);
	 * NAN when not computed (an hour with wall energy and no IT energy) */
	double	 alloc_j, primary_j;	/* allocated; wall x PUE, hourly */
	double	 alloc_rel;		/* alloc / primary - 1 */
};

/* r->pue's value, source and category, and the meters' hourly kWh in
 * r->hours; warnings to r.  Before the nodes (the facility boundary). */
void	 report_pue_site(const struct report_input *in, struct report *r);
/* With metered PUE: r->pue's days, periods and zones.  0 or -1 out of
 * memory; released by report_pue_free (report_free does). */
int	 report_pue_tables(const struct report_input *in, struct report *r);
/* r->pue's second method, from r->hours (after the nodes). */
void	 report_pue_allocate(struct report *r);
void	 report_pue_free(struct report_pue *p);

#endif
