/*
 * report.h - the energy-per-token report as data (pure).
 *
 * report_new assembles a struct report from loaded series and typed
 * settings: per node, the boundaries (GPU, wall, outlet, facility) from
 * the series chosen for each (report_node.h), modeled wall energy from
 * class curves; the fleet figures with coverage and model replicas
 * (report_fleet.h); PUE, its calendar periods and zones (report_pue.h);
 * location- and market-based carbon and cost, per site and node class
 * (report_carbon.h); run statistics, idle-subtracted figures; and the
 * disclosure (report_disclose.h).  Warnings are kept in the order they
 * arise.  No I/O: the series come from collector/report/report_load.c,
 * the site's files from report_inputs.c, and the writers
 * (collector/report/report_json.c, report_md.c, report_csv.c) format the
 * struct.  Meaning of every figure: docs/report.md.
 */
#ifndef WP_REPORT_H
#define WP_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"
#include "../collector/lib/sample.h"
#include "attr.h"
#include "boundary.h"
#include "carbon.h"
#include "curve.h"
#include "integrate.h"
#include "jtoken.h"
#include "pue.h"
#include "reqlog.h"
#include "report_carbon.h"
#include "report_disclose.h"
#include "report_input.h"
#include "report_models.h"
#include "report_pue.h"
#include "stats.h"

#define REPORT_MAX_RUNS		64
#define REPORT_MAX_GPUS		64	/* GPU indexes per node */
#define REPORT_MAX_SLOTS	16	/* outlets per node */
#define REPORT_MAX_TOKEN_SRC	8	/* engines per node */
#define REPORT_MIN_WINDOW	(60 * WP_SEC)
#define REPORT_HOUR		(3600 * WP_SEC)
#define REPORT_WARN_MAX		512	/* bytes of one warning */

/* What a journal series is to the report (docs/series.md). */
enum report_role {
	RR_NONE, RR_WALL, RR_WALL_P, RR_GPU_IB, RR_GPU_IB_P, RR_GPU_BMC,
	RR_GPU_BMC_P, RR_LIMIT, RR_OUTLET, RR_OUTLET_P, RR_TOK_OUT, RR_TOK_IN,
	RR_FAC, RR_IT,
	RR_INLET,	/* a PDU's inlet energy: only for the drift watch */
	RR_CLOCK	/* a GPU's SM clock (MHz): its mean, like RR_LIMIT */
};

/* The roles whose figure is the mean of their readings (lim_sum, lim_n),
 * not an energy. */
static inline bool
report_role_is_mean(int role)
{
	return role == RR_LIMIT || role == RR_CLOCK;
}

/* Where a target's series came from in a report over several data dirs
 * (collectors): the one chosen, and how many held the target. */
struct report_source {
	const char *target, *data_dir;
	int	 candidates;
};

/* A window's energy of a series: 0 with energy, or -1 refused. */
struct report_energy {
	int	 rc;
	double	 energy;
};

/*
 * One series of the journal, integrated over the report's windows by the
 * loader: the main window with bins (hourly, curve steps), the idle
 * window and the runs.  The model only reads it.
 */
struct report_series {	/* what a span touches first (role to main) */
	char	*key;		/* "target|series" */
	int	 role;		/* enum report_role */
	int	 node;		/* node index, -1 for site meters */
	int	 idx;		/* GPU index, outlet slot, meter index */
	int	 kind;		/* WP_COUNTER or WP_GAUGE */
	wp_time	 interval;	/* the target's sampling interval */
	double	 gres;		/* gauges: reading resolution (W) */
	struct attr_holds *holds;	/* RR_GPU_IB counters when tracked
					   (report_load.h), else NULL; owned */
	uint64_t sum_mark;	/* the loader's: the summary that last gave */
	wp_time	 sum_t1;	/* ...its last span's end */
	struct integ *run;	/* plan runs, or NULL */
	struct integ main, idle;
	double	 lim_sum;	/* RR_LIMIT, RR_CLOCK: sum and count of
				   readings */
	size_t	 lim_n;
	double	 lim_min, lim_max;	/* mean roles: with lim_n > 0 */
	/* readings in the main window stamped by the device: its time
	 * minus the collector's, s (lowest and highest) */
	size_t	 clk_n;
	double	 clk_min, clk_max;
	struct integ_result res;	/* main window */
	int	 rc;		/* 0, or -1 refused (why) */
	char	 why[WP_ERR_MSG];
	struct report_energy idle_e;
	struct report_energy *run_e;	/* plan runs, or NULL */
	char	 labels[WP_LABEL_MAX];
};

/* Warnings in the order they arose.  Strings owned. */
struct report_warnings {
	char	**v;
	size_t	  n, cap;
	bool	  oom;		/* some warning was dropped */
};

/* The windows of a report (report_plan.h). */
struct report_plan {
	wp_time	 from, to;
	bool	 have_idle;
	wp_time	 idle_from, idle_to;
	int	 runs;		/* 1: no runs */
	wp_time	 run_from[REPORT_MAX_RUNS], run_to[REPORT_MAX_RUNS];
	const char *run_method;	/* static text, NULL with one run */
	wp_time	 step;		/* curve step */
	int	 period;	/* enum pue_period, -1 all */
	bool	 curve;		/* a curve, not a report */
};

/* The files a site names, read by the I/O layer.  An error text is the
 * report's warning for that file ("" none); the data is then empty. */
struct report_site_data {
	struct hourly_series grid;		/* site.grid.intensity_csv */
	char	 grid_err[REPORT_WARN_MAX];
	struct hourly_series cfe;		/* site.grid.cfe_csv */
	char	 cfe_err[REPORT_WARN_MAX];
	struct carbon_instrument *inst;		/* site.market.instruments and
						   instruments_csv, their
						   claimed_kwh from the ledger */
	size_t	 n_inst;
	char	 inst_err[REPORT_WARN_MAX];
	char	 claims_err[REPORT_WARN_MAX];	/* the ledger unreadable */
	/* the zone in etc/residual-mix/published.csv: 1 a residual mix is
	 * published (source and year in residual_info), 0 none exists for
	 * it (full disclosure), -1 the zone is not listed or no list */
	int	 residual_published;
	char	 residual_info[96];
	struct hourly_series prices;		/* site.tariff.price_csv */
	char	 price_err[REPORT_WARN_MAX];
};

struct report_input {
	const struct report_node *nodes;
	size_t	 n_nodes;
	const struct report_meter *meters;
	size_t	 n_meters;
	wp_time	 interval;	/* the collector's sampling interval */
	const struct report_settings *set;
	const struct report_site *site;
	const struct report_site_data *data;
	const struct report_plan *plan;
	const struct reqlog *rq;	/* request log, or NULL */
	/* the series in the order of the loader's table */
	struct report_series *const *ser;
	size_t	 n_ser;
	size_t	 segments_read, summaries_used;	/* journal scan */
	size_t	 ledger_used;	/* ledger blocks taken */
	size_t	 ledger_days;	/* ledger day blocks taken */
	/* a report over several data dirs: the one each target's series
	 * were taken from (disclosure.sources), else none */
	const struct report_source *sources;
	size_t	 n_sources;
};

/* A figure at one boundary. */
struct report_fig {
	struct bnd_value v;	/* invalid: no figure */
	double	 coverage;	/* share of nodes measured */
	bool	 per_token;	/* jt holds the per-token figures */
	struct jtoken jt;
	bool	 net;		/* jt's idle-subtracted figures hold */
	double	 mean_power_w;	/* NAN when unknown */
	double	 bound_rel;	/* bound_j / energy_j, NAN at 0 */
};

/* A fleet figure: the nodes counted (measured or modeled). */
struct report_bnd {
	struct report_fig fig;
	size_t	 counted, measured, nodes;
	double	 out_covered;	/* counted < nodes: the tokens used, -1 none */
};

struct report_node_fig {
	const char *name, *cls;		/* borrowed from the input */
	struct report_fig b[BND_N];
	double	 tokens;		/* output tokens, -1 unknown */
	double	 wall_to_gpu;		/* NAN unknown (and below) */
	double	 gpu_cross_bmc_j;
	double	 wall_over_outlet;
	double	 limit_w;
	/* the per-GPU limit readings: GPUs with one, least and most (NAN
	 * without), for `wattpath advise` */
	size_t	 limit_gpus;
	double	 limit_min_w, limit_max_w;
	size_t	 curve_intervals;
	double	 curve_dev;
	bool	 curve_deviates;
};

struct report_idle {
	bool	 set;
	struct report_fig fig;
	double	 power_w;
};

/* A wall-to-GPU curve with its fits (linear, quadratic). */
struct report_curve {
	struct curve c;
	struct curve_fit fit[2];
};

struct report_runs {
	int	 n;
	const char *method;
	bool	 complete;	/* every run has a value in x */
	double	 x[REPORT_MAX_RUNS];	/* wall J/output token, NAN none */
	bool	 stats_ok;
	struct runstats st;
};

/* Hourly kWh (bin i starts at origin + i h) over the window. */
struct report_hours {
	wp_time	 origin;
	size_t	 nh;
	double	*wall, *fac;	/* the wall boundary, x PUE */
	double	*mfac, *mit;	/* the site meters */
	/* the site meters' counter steps (J), summed per role, and the least
	 * max_res_error of their integrators (a fraction): a row of hours
	 * whose energy is under step / step_rel_max has no PUE (pue_rows) */
	double	 mfac_step, mit_step, step_rel_max;
};

/* Node classes: curves of their wall-metered nodes, hourly wall kWh,
 * tokens; slot ncls is the nodes without a class. */
struct report_classes {
	size_t	 ncls;
	const char **name;		/* ncls */
	int	*of;			/* per node: class, -1 none */
	struct report_curve *curve;	/* ncls */
	struct curve *node_curve;	/* per node */
	double	*kwh_h;			/* (ncls + 1) x nh */
	double	*out;			/* ncls + 1: output tokens, -1 unknown */
	size_t	*nodes;			/* ncls + 1 */
	double	 tolerance;
};

struct report {
	wp_time	 from, to;
	double	 secs;
	double	 out, in;		/* tokens, -1 unknown */
	double	 slo;			/* SLO-qualified tokens, -1 unknown */
	double	 slo_share;		/* NAN unknown */
	struct bnd_total tot[BND_N];
	struct report_bnd bnd[BND_N];
	struct report_idle idle_wall, idle_gpu;
	double	 wall_to_gpu;
	struct report_pue pue;
	struct report_classes cls;
	struct report_hours hours;
	struct report_node_fig *nodes;
	size_t	 n_nodes;
	bool	 has_runs;
	struct report_runs runs;
	bool	 has_carbon;
	struct report_carbon carbon;
	bool	 has_cost;
	struct report_cost cost;
	struct report_disclosure disc;
	struct report_models models;	/* per model (report_models.h) */
	struct report_models tenants;	/* per tenant: tenants: in order,
					   then unallocated; empty without */
	struct report_warnings warnings;
	/* plausibility findings (report_check.h), also in warnings */
	struct report_warnings checks;
};

/* The curve document of `wattpath curve`: one node or one class. */
struct report_curve_node {
	const char *name;
	struct report_curve curve;
	double	 deviation;	/* from the class curve, NAN none */
};

struct report_curve_doc {
	const char *scope;
	double	 step_s;
	struct report_curve cls;
	struct report_curve_node *nodes;
	size_t	 n_nodes;
	struct report_warnings warnings;
};

/*
 * A figure from value v: coverage as given, the per-token figures over out
 * and in tokens (slo: SLO-qualified output tokens, -1 none; idle_w: idle
 * power, -1 none) and window of secs seconds.
 */
void	 report_fig_set(struct report_fig *f, const struct bnd_value *v,
	    double coverage, double secs, double out, double in, double slo,
	    double idle_w);

/* Appends a warning (formatted, cut at REPORT_WARN_MAX bytes). */
void	 report_warn(struct report_warnings *w, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 report_warnings_fini(struct report_warnings *w);	/* NULL-safe */

/*
 * The report of in, continuing the warnings in w (taken over: w is empty
 * after).  Returns a new report (caller frees with report_free), or NULL
 * out of memory.  Borrows nothing from in's series or data: names come
 * from in's nodes and settings, which must outlive it.
 */
struct report	*report_new(const struct report_input *in,
		    struct report_warnings *w);
void		 report_free(struct report *r);		/* NULL-safe */

/*
 * The curve of the nodes selected (per node index) in scope (the node or
 * class name, borrowed), continuing w (taken over).  Caller frees with
 * report_curve_doc_free; NULL out of memory.
 */
struct report_curve_doc *report_curve_doc_new(const struct report_input *in,
		    const bool *selected, const char *scope,
		    struct report_warnings *w);
void		 report_curve_doc_free(struct report_curve_doc *d);

/* c's fits, as a report carries them. */
void	 report_curve_set(struct report_curve *rc, const struct curve *c);

#endif
