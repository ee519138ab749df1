/*
 * report_carbon.h - the report's scope-2 carbon and cost (pure), for the
 * site and per node class, at the wall and (with a PUE) the facility
 * boundary: location-based from each UTC hour's energy and intensity
 * (carbon_location), market-based from the site's contractual instruments
 * with the remainder at the supplier factor, residual mix or grid average
 * (carbon_market; the grid average flagged, the bases labelled, the
 * instruments' claims kept for the ledger), split over the classes in
 * proportion to their
 * consumption (carbon_market_allocate), and the cost of the hourly energy
 * at the facility boundary when a PUE is known, else the wall.  Needs the
 * whole wall boundary and a site with a zone and grid or market data.
 */
#ifndef WP_REPORT_CARBON_H
#define WP_REPORT_CARBON_H

#include <stdbool.h>
#include <stddef.h>

#include "carbon.h"

struct report;
struct report_input;

enum { REPORT_C_WALL, REPORT_C_FACILITY, REPORT_C_N };

/* One carbon figure. */
struct report_pair {
	double	 kg;
	double	 g_per_mtok;	/* per million output tokens, NAN unknown */
	double	 kwh;
	double	 coverage;
};

struct report_carbon_class {
	const char *name;		/* the class, or "unclassified" */
	size_t	 nodes;
	double	 out;			/* output tokens, -1 unknown */
	bool	 has_kwh[REPORT_C_N];
	double	 kwh[REPORT_C_N];
	bool	 loc_ok[REPORT_C_N];
	struct report_pair loc[REPORT_C_N];
	bool	 mk_ok[REPORT_C_N];
	struct report_pair mk[REPORT_C_N];
	double	 mk_instrument_mwh[REPORT_C_N];
	bool	 market_first;	/* its market figures came before location */
};

/* One instrument's claim by this report. */
struct report_claim {
	char	 id[64];
	wp_time	 hour;			/* hourly record, else 0 */
	double	 kwh;			/* claimed by this report */
	double	 left_kwh;		/* left after it */
	double	 volume_kwh;		/* the instrument's volume */
};

struct report_carbon {
	const char *site_name;		/* or NULL */
	const char *zone;
	size_t	 nodes;
	double	 out;			/* output tokens, -1 unknown */
	/* location-based; details from the wall boundary */
	bool	 loc_ok[REPORT_C_N];
	struct report_pair loc[REPORT_C_N];
	size_t	 fallback_hours;
	double	 g_per_kwh;
	char	 source[32], basis[16];
	char	 intensity_source[256];
	double	 resolution_s;		/* NAN without an hourly series */
	/* market-based; details from the wall boundary */
	bool	 mk_ok[REPORT_C_N];
	struct report_pair mk[REPORT_C_N];
	struct market_result mres;	/* wall */
	double	 instruments_mwh;
	bool	 residual_set;
	char	 residual_mix[160];
	const char *residual_source;	/* "unstated" when not given */
	const char *residual_year;	/* or NULL */
	/* the bases: "CO2", "CO2e" or "mixed" (warned) */
	const char *loc_gas, *mk_gas;
	/* market remainder at the grid average: why, for every output
	 * ("" when the remainder is not at the grid average) */
	char	 remainder_flag[224];
	int	 residual_published;	/* as report_site_data's */
	/* the claims this report makes on the instruments (at claims_bnd:
	 * the facility when a PUE is known, else the wall), what
	 * --finalise records in the ledger */
	struct report_claim *claims;
	size_t	 n_claims;
	int	 claims_bnd;
	bool	 finalised;		/* recorded (set by the I/O layer) */
	struct report_carbon_class *cls;	/* every class slot */
	size_t	 n_cls;
};

struct report_cost_class {
	const char *name;
	double	 amount, kwh;
	double	 per_mtok;		/* NAN unknown */
};

struct report_cost {
	const char *currency;
	int	 boundary;		/* REPORT_C_WALL or REPORT_C_FACILITY */
	bool	 ok;			/* a price for every hour */
	double	 amount;
	double	 per_mtok;
	size_t	 fallback_hours;
	struct report_cost_class *cls;	/* the classes priced */
	size_t	 n_cls;
};

/* "wall", "facility". */
const char *report_carbon_bnd(int b);
/* Class slot c's name. */
const char *report_class_label(const struct report *r, size_t c);
/* The class slots reported: every class, and "unclassified" when some
 * nodes have no class. */
size_t	 report_class_slots(const struct report *r);

/* r->carbon and r->cost (has_carbon, has_cost), warnings to r.  0 or -1
 * out of memory; released by report_carbon_free (report_free does). */
int	 report_carbon_build(const struct report_input *in, struct report *r);
void	 report_carbon_free(struct report *r);

#endif
