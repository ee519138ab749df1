/*
 * carbon.h - scope-2 carbon (location- and market-based) and cost (pure).
 *
 * Parsers take a file's bytes (the caller reads the file) and build:
 *  - an hourly series (UTC hour starts, sorted, unique) of grid carbon
 *    intensity (gCO2eq/kWh) from Electricity Maps or ENTSO-E-derived CSV
 *    exports, whose header spellings vary (including the Unicode subscript
 *    in "gCO₂eq/kWh"), or of electricity prices (per kWh; "/MWh" headers
 *    converted).  Sub-hourly rows are averaged into their hour; local
 *    CET/CEST MTU strings are converted to UTC across DST days.  Missing
 *    values ("", "n/e", "N/A") are gaps, never zeroes; duplicates with
 *    different values, negative or absurd factors are errors with the line.
 *  - a list of contractual instruments (GOs, RECs, PPAs, green tariffs).
 * Location-based: each hour's energy x that hour's intensity; hours without
 * a value use the yearly zone average, flagged and counted, or fail.
 * Market-based (GHG Protocol Scope 2 hierarchy): instruments passing the
 * quality criteria (same market, vintage inside the reporting period,
 * cancelled for us, not for another site, counted once) cover consumption
 * pro rata over the period's consumption, stated or computed (the window
 * holds the instrument's period), never assumed, and never beyond what
 * finalised reports left of them (claimed_kwh, model/claims.h); the
 * remainder takes the supplier-specific factor, else the residual mix
 * (AIB: CO2 only; 0 means "none", never 0), else the grid average, the
 * step used named and the grid average flagged when the zone publishes a
 * residual mix that was not given.  Each factor has a basis (CO2, CO2e);
 * a result combining both is "mixed".  Hourly instruments give a matching
 * score: share of consumption matched by contracted clean energy in the
 * same hour (no carry-over between hours), and with the grid's hourly
 * carbon-free share a 24/7 CFE score.
 * Allocation: a site's market-based result is split over parts of its
 * consumption (node classes) in proportion to their kWh, so each part has
 * the site's coverage, the parts' covered kWh add up to the site's (never
 * more than the accepted instruments' kWh: no instrument counted twice)
 * and their grams add up to the site's.
 */
#ifndef WP_CARBON_H
#define WP_CARBON_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"

/* HOURLY_CFE: the grid's carbon-free share (a CFE% / "Low Carbon
 * Percentage" column, stored 0..1). */
enum hourly_kind { HOURLY_INTENSITY, HOURLY_PRICE, HOURLY_CFE };

struct hourly_point {
	wp_time	 t;		/* UTC hour start */
	double	 v;		/* gCO2eq/kWh, or price per kWh */
};

struct hourly_series {
	struct hourly_point *p;	/* owned */
	size_t	 n;
	char	 column[96];	/* header of the value column used */
	char	 basis[16];	/* intensity: direct, lifecycle, unstated */
	char	 layout[32];	/* electricity-maps, entsoe-derived, generic */
	wp_time	 resolution;	/* row spacing seen in the file */
	size_t	 duplicates;	/* identical duplicate rows dropped */
};

/*
 * Parses a CSV.  zone: keep rows of this zone when the file has a zone
 * column (none matching is an error).  basis: "direct" or "lifecycle"
 * preference when both columns exist (NULL: direct).  0, or -1 with err.
 * Caller frees with hourly_fini.
 */
int	 hourly_parse(const char *buf, size_t len, int kind, const char *zone,
	    const char *basis, struct hourly_series *out, struct wp_err *err);
void	 hourly_fini(struct hourly_series *s);	/* NULL-safe */
/* Value at the hour holding t, or NAN. */
double	 hourly_at(const struct hourly_series *s, wp_time t);

/* Location-based over hourly energies (bin i = origin + i hours). */
struct carbon_loc {
	double	 kwh;
	double	 g;			/* gCO2eq */
	double	 g_per_kwh;		/* energy-weighted mean */
	size_t	 hours;			/* hours with energy */
	size_t	 fallback_hours;	/* hours at the yearly average */
	double	 fallback_kwh;
};

/* series may be NULL (yearly average only).  yearly <= 0: none. */
int	 carbon_location(const struct hourly_series *series, double yearly,
	    const double *kwh_h, size_t n, wp_time origin,
	    struct carbon_loc *out, struct wp_err *err);

struct carbon_instrument {
	char	 id[64];
	char	 type[24];		/* GO, REC, PPA, green-tariff... */
	char	 market[16];		/* zone / market, e.g. FR */
	wp_time	 vintage_start, vintage_end;
	double	 mwh;
	double	 factor;		/* gCO2eq/kWh of the instrument */
	char	 cancelled_for[64];	/* "" not cancelled */
	char	 site[64];		/* "" any of ours */
	wp_time	 hour;			/* hourly record: hour start, else 0 */
	char	 gas[8];		/* factor's basis: "CO2e" (default), "CO2" */
	double	 claimed_kwh;		/* already claimed by finalised reports
					   (the ledger, carbon_claims_apply) */
	int	 line;			/* CSV line, or config line */
};

/* Parses an instruments CSV.  Caller frees *out with free(). */
int	 carbon_parse_instruments(const char *buf, size_t len,
	    struct carbon_instrument **out, size_t *n, struct wp_err *err);

struct market_opts {
	const char *zone;		/* site's market */
	const char *holder;		/* who instruments must be cancelled for */
	const char *site;		/* this site's name */
	wp_time	 period_start, period_end;	/* reporting period */
	/* the report's window; 0/0: the whole reporting period */
	wp_time	 window_start, window_end;
	double	 period_kwh;	/* stated consumption of the period; <= 0:
				   none stated (then an instrument counts only
				   when the window covers its whole period) */
	double	 supplier_factor;	/* < 0 or NAN: none */
	double	 residual_factor;	/* NAN: none given; 0: "none" */
	double	 grid_average;		/* g/kWh; < 0 or NAN: none */
	/* the factors' basis: "CO2" or "CO2e" (NULL: CO2e; residual: CO2) */
	const char *supplier_gas, *residual_gas, *grid_gas;
	/* the zone has a published residual mix (etc/residual-mix/) */
	bool	 residual_published;
	double	*claim_kwh;	/* n_in slots: each instrument's kWh claimed
				   by this result, or NULL */
	/* the grid's hourly carbon-free share (HOURLY_CFE), or NULL */
	const struct hourly_series *grid_cfe;
};

#define MARKET_REJECTS	16

struct market_result {
	double	 kwh;
	double	 covered_kwh;
	double	 coverage;		/* covered / consumption */
	double	 instrument_kwh;	/* accepted instruments' kWh */
	double	 g_covered;
	double	 remainder_kwh;
	double	 remainder_factor;
	const char *remainder_step;	/* supplier-specific, residual-mix, grid-average */
	double	 g;			/* total gCO2eq */
	size_t	 accepted, rejected;
	struct { char id[64]; char why[96]; } rejects[MARKET_REJECTS];
	double	 hourly_matching;	/* 0..1, NAN without hourly data */
	size_t	 hourly_gap_hours;	/* hours with load, no hourly record */
	bool	 residual_zero_ignored;	/* a 0 residual mix seen as "none" */
	/* grid average used although the zone publishes a residual mix that
	 * was not given (the missing input: site.market.residual_mix) */
	bool	 residual_missing;
	bool	 grid_average_used;	/* remainder at the grid average */
	const char *period_source;	/* "stated", "computed" or NULL */
	size_t	 unprorated;		/* rejected: period consumption unknown */
	size_t	 exhausted;		/* rejected: fully claimed (ledger) */
	double	 claimable_kwh;		/* accepted kWh not yet claimed */
	/* basis of the figure: "CO2", "CO2e", or "mixed" (factors of both
	 * bases combined: gas_mixed, to be warned) */
	const char *gas;
	bool	 gas_mixed;
	/* 24/7 CFE score (0..1; NAN without an hourly CFE series): per hour,
	 * load matched by the hour's contracted clean energy plus the grid's
	 * carbon-free share of the rest, over the load; no carry-over */
	double	 cfe_score;
	size_t	 cfe_gap_hours;	/* hours with load and no grid share */
};

/*
 * consumption_kwh: this report's consumption; kwh_h/n/origin: its hourly
 * split (may be NULL/0: no hourly matching).  0, or -1 when no factor at
 * all is available for the remainder.
 * Each accepted instrument's share of this window: its volume x window /
 * period consumption when the period's consumption is stated; all of it
 * when the window covers the instrument's whole period (vintage inside
 * the reporting period, or its hour) so the window's consumption is the
 * period's; otherwise it is rejected (never assumed).  The share is
 * capped by what the ledger leaves (volume - claimed_kwh), and all
 * shares together by the consumption.
 */
int	 carbon_market(const struct carbon_instrument *in, size_t n_in,
	    double consumption_kwh, const double *kwh_h, size_t n,
	    wp_time origin, const struct market_opts *o,
	    struct market_result *out, struct wp_err *err);

/* One part's share of a site's market-based result. */
struct market_share {
	double	 kwh;			/* the part's consumption */
	double	 share;			/* kwh / sum of the parts */
	double	 covered_kwh;		/* instrument kWh allocated to it */
	double	 coverage;		/* covered_kwh / kwh, NAN at 0 kWh */
	double	 g_covered;
	double	 remainder_kwh;
	double	 g;
};

/*
 * Splits site (from carbon_market) over n parts with consumption kwh[i]
 * (>= 0, adding up to site->kwh within 1e-6 relative).  0, or -1 with err
 * (negative or non-finite part, parts not adding up).
 */
int	 carbon_market_allocate(const struct market_result *site,
	    const double *kwh, size_t n, struct market_share *out,
	    struct wp_err *err);

/* The residual-mix step's basis is CO2 unless said: AIB's are CO2 only. */
#define CARBON_GAS_CO2		"CO2"
#define CARBON_GAS_CO2E		"CO2e"

/* "co2"/"CO2" -> CARBON_GAS_CO2, "co2e" -> CARBON_GAS_CO2E, else NULL. */
const char *carbon_gas(const char *s);

/*
 * Looks zone up in a list of published residual mixes (CSV "zone,year,
 * published,factor_g_co2_per_kwh,source"; '#' lines are comments): the
 * zone itself, or its country (the part before '-': "DK-DK1" is DK); the
 * latest year wins.  Returns 1 (published: year and source into info), 0
 * (listed as having none), -1 (not listed, or a malformed list).
 */
int	 carbon_residual_published(const char *buf, size_t len,
	    const char *zone, char *info, size_t ilen);

struct cost_result {
	double	 amount;
	double	 kwh;
	size_t	 fallback_hours;	/* hours priced at the flat tariff */
	bool	 hourly;
};

/* prices may be NULL; flat < 0 or NAN: none.  0 or -1 (no price). */
int	 cost_compute(const struct hourly_series *prices, double flat,
	    const double *kwh_h, size_t n, wp_time origin,
	    struct cost_result *out, struct wp_err *err);

#endif
