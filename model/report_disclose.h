/*
 * report_disclose.h - the disclosure every report carries, as data
 * (pure): the instruments behind each boundary (one entry per series: its
 * target, series, counter or gauge, sampling interval, identity labels)
 * and the distinct device identities (BMC vendor/model/firmware, PDU
 * sysDescr, meter model, GPU model/driver/NVML/CUDA and the DCGM field
 * read, engine and model, KV cache precision), the GPUs' power limits,
 * the sampling intervals, the device clocks' offsets, the window and runs, the policies (edges, idle,
 * token denominator, PUE, facility method, wall model, bounds, coverage)
 * as text, the SLO thresholds, the journal's reading, the request log's
 * distributions (ISL, OSL, achieved TTFT and TPOT).  The
 * texts are built here from the constants they state (report_node.h).
 */
#ifndef WP_REPORT_DISCLOSE_H
#define WP_REPORT_DISCLOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "boundary.h"

struct report;
struct report_input;
struct report_sel;

#define REPORT_DISCLOSE_MAX	64	/* entries per list */
#define REPORT_ID_KEYS		19	/* identity label keys */

/* The instrument groups, and their devices. */
enum { REPORT_I_GPU, REPORT_I_WALL, REPORT_I_OUTLET, REPORT_I_FACILITY,
    REPORT_I_TOKENS, REPORT_I_N };

struct report_label {
	const char *key;	/* static */
	char	*value;		/* owned */
};

struct report_instrument {
	char	*target, *series;	/* owned */
	int	 kind;
	double	 interval_s;
	struct report_label labels[REPORT_ID_KEYS];
	size_t	 n_labels;
};

struct report_instruments {
	struct report_instrument *v;	/* at most REPORT_DISCLOSE_MAX */
	size_t	 n;
	size_t	 more;			/* series not listed */
};

/* One identity label's distinct values (key "fw" for firmware). */
struct report_devkey {
	const char *key;		/* static */
	char	**vals;			/* owned, at most REPORT_DISCLOSE_MAX */
	size_t	 n;
};

struct report_devices {
	struct report_devkey keys[REPORT_ID_KEYS];	/* first seen first */
	size_t	 n;
};

struct report_limit {
	const char *node;
	double	 w;
};

/* A target whose readings carry the device's own time (Redfish
 * ReadingTime, a MetricReport's Timestamp): that time minus the
 * collector's poll time over the window's readings, s.  A reading's own
 * time also lags by the device's update interval. */
struct report_clock {
	char	*target;	/* owned */
	size_t	 readings;
	double	 min_s, max_s;
	bool	 beyond;	/* |min_s| or |max_s| above the tolerance */
};

/* Input or output tokens of the requests that ended in the window. */
struct report_dist {
	size_t	 n;
	double	 p50, p90, p99, mean;
};

/* disclosure.sources: a report_source with its strings owned. */
struct report_disc_source {
	char	*target, *data_dir;
	int	 candidates;
};

struct report_disclosure {
	struct report_instruments ins[REPORT_I_N];
	struct report_devices dev[REPORT_I_N];
	struct report_limit *limits;	/* nodes with limits */
	size_t	 n_limits;
	struct report_limit *clocks_mhz;	/* nodes with SM clocks: w is
						   their GPUs' mean, MHz */
	size_t	 n_clocks_mhz;
	double	 sampling_interval_s;
	struct report_clock *clocks;	/* at most REPORT_DISCLOSE_MAX */
	size_t	 n_clocks, more_clocks;	/* more: targets not listed */
	double	 clock_tolerance_s;
	double	*intervals_s;		/* distinct, of the series used */
	size_t	 n_intervals;
	double	 window_s;
	int	 run_count;
	const char *edges;		/* the policies, as text */
	char	 idle_policy[256];
	const char *token_denominator;
	double	 pue_value;		/* NAN none */
	const char *pue_category, *pue_source, *pue_period;
	char	 wall_model[512];
	const char *bounds, *coverage_rule;
	char	*partial[BND_N];	/* partial boundaries' text, or NULL */
	char	 facility_method[640];	/* "none" without a PUE */
	double	 facility_alloc_j;	/* the second method, NAN none */
	double	 facility_primary_j, facility_alloc_rel;
	size_t	 segments_read, summaries_used;
	size_t	 ledger_used;
	size_t	 ledger_days;
	struct report_disc_source *sources;	/* several data dirs */
	size_t	 n_sources;
	bool	 slo_set;		/* report.slo given */
	double	 slo_ttft_ms, slo_tpot_ms;	/* 0: not constrained */
	bool	 has_requests;
	struct report_dist isl, osl;
	struct report_dist ttft_ms, tpot_ms;	/* achieved, where logged */
	size_t	 requests, request_log_bad_lines;
};

/* The group names: "gpu", "wall", "outlet", "facility", "tokens" and
 * their devices' "gpu", "bmc", "pdu", "meter", "engine". */
const char *report_instrument_group(int g);
const char *report_device_group(int g);
/* The wall model's text, from REPORT_MODEL_*: into buf, returned. */
const char *report_wall_model_text(char *buf, size_t len);

/* r->disc (warnings to r).  0 or -1 out of memory; released by
 * report_disclose_free (report_free does). */
int	 report_disclose_build(const struct report_input *in,
	    const struct report_sel *sel, struct report *r);
void	 report_disclose_free(struct report_disclosure *d);

#endif
