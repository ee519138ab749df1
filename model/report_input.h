/*
 * report_input.h - what a report is computed from, as the model sees it:
 * the inventory it reports on (nodes with their class and outlets, meters
 * with their zone), the report: settings and the site: data of the
 * config, typed.  The config (collector/conf/conf_report.c) fills the
 * settings and the site at load, so check-config sees their errors; the
 * report's I/O layer (collector/report/) fills the rest.  Plain data, all
 * strings borrowed from their owner (the config).  Keys and meaning:
 * docs/config.md and docs/report.md.
 */
#ifndef WP_REPORT_INPUT_H
#define WP_REPORT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "carbon.h"

#define REPORT_CURVE_TOLERANCE	0.05		/* report.curve_tolerance */
#define REPORT_RUN_GAP		(30 * WP_SEC)	/* report.run_gap */
#define REPORT_CLOCK_TOLERANCE	(10 * WP_SEC)	/* report.clock_tolerance */
#define REPORT_CURRENCY		"EUR"		/* site.tariff.currency */

/* One outlet feeding a node: the PDU's name, the outlet's 1-based number
 * or name, as the config gives it. */
struct report_outlet {
	const char	*pdu;
	const char	*outlet;
};

/* nodes[].engines[i] as attribution sees it (docs/report.md, "Per
 * model"): the configured model name (used where the engine's series say
 * none) and the GPU indexes the engine holds (n_gpus 0: not given). */
#define REPORT_ENGINE_GPUS	64

struct report_engine {
	const char	*model;		/* engines[].model, or NULL */
	int		 gpus[REPORT_ENGINE_GPUS];
	size_t		 n_gpus;
};

struct report_node {
	const char	*name;
	const char	*cls;		/* node class, or NULL */
	const struct report_outlet *outlets;
	size_t		 n_outlets;
	const struct report_engine *engines;	/* engines[i]: target engine<i> */
	size_t		 n_engines;
};

/* A site meter (index as in the config's meters:). */
struct report_meter {
	const char	*name;
	const char	*zone;		/* meters[].zone (partial PUE), or NULL */
	const char	*it_measured_at;	/* it_total's, as written, or NULL */
};

/* report.replicas[]: a model replica spanning nodes (its tokens counted
 * once).  Node names as written; one not in the inventory never counts. */
struct report_replica {
	const char	*name;		/* or NULL */
	const char	**nodes;
	size_t		 n_nodes;
};

/* tenants[]: who a share of the fleet's energy is charged to.  A node's
 * energy goes to a tenant by, per GPU: the dcgm-exporter namespace label
 * of the GPU's series, else the model of the engine holding it, else the
 * node (docs/report.md, "Per tenant").  Strings borrowed from the config. */
struct report_tenant {
	const char	*name;
	const char	**models;
	size_t		 n_models;
	const char	**namespaces;
	size_t		 n_namespaces;
	const char	**nodes;
	size_t		 n_nodes;
};

/* report: */
struct report_settings {
	bool		 slo_set;	/* report.slo given */
	double		 slo_ttft_ms;	/* 0: not constrained */
	double		 slo_tpot_ms;
	struct report_replica *replicas;
	size_t		 n_replicas;
	bool		 idle_set;	/* report.idle: {from, to} */
	wp_time		 idle_from, idle_to;
	bool		 pue_set;	/* report.pue: declared PUE (>= 1) */
	double		 pue_value;
	const char	*pue_category;	/* as written, or NULL */
	const char	*pue_period;	/* "2025", "2026-11", "2025-07..2026-06" */
	double		 curve_tolerance;	/* default REPORT_CURVE_TOLERANCE */
	wp_time		 curve_step;	/* 0: the default step */
	wp_time		 run_gap;	/* default REPORT_RUN_GAP */
	wp_time		 clock_tolerance;	/* report.clock_tolerance: a
					   device clock further off is
					   warned (REPORT_CLOCK_TOLERANCE) */
	int		 attribution;	/* report.attribution: enum attr_rule
					   (0 proportional, 1 per_gpu) */
	const char	**data_dirs;	/* report.data_dirs: several collectors'
					   data dirs (as written), or NULL */
	size_t		 n_data_dirs;
	struct report_tenant *tenants;	/* tenants: (top level) */
	size_t		 n_tenants;
};

/* site.grid */
struct report_grid {
	bool		 set;
	const char	*intensity_csv;	/* path as written, or NULL */
	const char	*cfe_csv;	/* hourly carbon-free share, or NULL */
	const char	*basis;		/* "direct", "lifecycle" or NULL */
	double		 yearly_g_per_kwh;	/* -1: none */
	const char	*gas;		/* the yearly average's basis: CO2, CO2e
					   (default) */
};

/* site.market */
struct report_market {
	bool		 set;
	const char	*instruments_csv;	/* or NULL */
	const char	*holder;		/* or NULL */
	double		 supplier_factor;	/* NAN: none */
	double		 period_consumption_mwh;	/* 0: this window's */
	bool		 residual_set;		/* residual_mix given */
	double		 residual_factor;	/* NAN: none */
	const char	*residual_source;	/* or NULL */
	const char	*residual_year;		/* or NULL */
	const char	*residual_gas;		/* default CO2 (AIB's basis) */
	const char	*supplier_gas;		/* default CO2e */
	/* site.market.instruments: the ledger's entries written in the
	 * config (owned by the config; line = the entry's line) */
	struct carbon_instrument *instruments;
	size_t		 n_instruments;
};

/* site.tariff */
struct report_tariff {
	bool		 set;
	double		 price;			/* per kWh; NAN: none */
	const char	*price_csv;		/* or NULL */
	const char	*currency;		/* default REPORT_CURRENCY */
};

/* site: */
struct report_site {
	const char	*name;		/* or NULL */
	const char	*zone;		/* or NULL */
	struct report_grid grid;
	struct report_market market;
	struct report_tariff tariff;
};

/* The defaults of a config without report: or site: blocks. */
void	 report_settings_init(struct report_settings *s);
void	 report_site_init(struct report_site *s);

#endif
