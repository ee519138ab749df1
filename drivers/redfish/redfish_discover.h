/*
 * redfish_discover.h - pure link-walking over a Redfish service.
 *
 * The walker never does I/O: the caller asks rf_disc_next() for the next
 * URI to GET, fetches it however it likes (async for the collector, sync
 * for probe) and hands back the parsed document with rf_disc_feed().  When
 * rf_disc_next() returns NULL the walk is over and rf_disc_plan() tells
 * what to poll:
 *   - node mode: the chassis that carry the node's input power (chassis
 *     with Links.ComputerSystems, or their ContainedBy/PoweredBy parent
 *     when they have no power resource of their own; never a child and its
 *     parent both), each with its best energy and power source in the
 *     issue's order; GPUs (Processors with ProcessorType GPU, or chassis
 *     that stand for one GPU) with their EnvironmentMetrics, or the
 *     TelemetryService MetricReports that carry them (then one report is
 *     polled instead of each GPU's resource);
 *   - PDU mode: PowerEquipment/RackPDUs outlets, mains and totals;
 *   - probe mode: both, and every reading of every chassis.
 * Dangling links are counted and logged by the caller, never fatal unless
 * the service root itself cannot be read.
 */
#ifndef WP_REDFISH_DISCOVER_H
#define WP_REDFISH_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/sample.h"
#include "redfish_parse.h"

struct json_object;
struct rf_disc;

enum rf_mode { RF_MODE_NODE = 0, RF_MODE_PDU, RF_MODE_PROBE };

#define RF_MAX_PICKS	16	/* readings summed into one series */

/*
 * Strings of a pick, series and plan are borrowed: from the walker's
 * readings while the walker lives, from the plan's own block in a plan
 * made by rf_plan_compact().
 */
struct rf_pick {
	const char	*uri;		/* resource to GET each poll */
	const char	*key;		/* reading key in that resource */
	const char	*reset_uri;	/* Sensor giving SensorResetTime, or "" */
};

/* One series the collector polls: the sum of its picks. */
struct rf_series {
	const char	*series;	/* "wall/energy" */
	const char	*source;	/* label source= */
	const char	*name;		/* label name= (outlets, GPUs), or "" */
	int		 boundary, quantity, kind;
	uint32_t	 flags;		/* WP_F_OEM, WP_F_AVERAGED */
	struct rf_pick	*pick;
	size_t		 n_pick;
	double		 resolution;	/* SI */
	wp_time		 avg_window;
};

struct rf_plan {
	struct rf_series *series;	/* owned by the disc or the block */
	size_t		 n_series;
	/* Only in a plan from rf_plan_compact(): each resource to GET once
	 * per poll (pick and reset URIs, deduplicated), with the $select
	 * value for it ("" for none). */
	const char	**uris, **select;
	size_t		 n_uris;
	char		 vendor[64], model[128], firmware[64];
	char		 session_uri[RF_URI_MAX];	/* SessionService/Sessions */
	bool		 select_ok;	/* ProtocolFeaturesSupported.SelectQuery */
	int		 dangling;	/* links that could not be read */
};

/* A reading as probe lists it, with its boundary and chosen mark. */
struct rf_found {
	const struct rf_reading *r;	/* borrowed from the disc */
	int		 boundary;
	bool		 chosen;
};

/* Returns a new walker (caller frees with rf_disc_free), NULL on ENOMEM. */
struct rf_disc	*rf_disc_new(int mode);
void		 rf_disc_free(struct rf_disc *d);	/* NULL-safe */

/* Next path to GET ("/redfish/v1/..."), borrowed until the next feed;
 * NULL when the walk is done. */
const char	*rf_disc_next(struct rf_disc *d);
/*
 * Answer for the path rf_disc_next() returned: doc (borrowed) or NULL
 * with why (fetch_err).  Returns 0, or -1 when discovery cannot go on
 * (service root unreadable), err says why.
 */
int	 rf_disc_feed(struct rf_disc *d, struct json_object *doc,
	    const struct wp_err *fetch_err, struct wp_err *err);
/* Last dangling-link message ("" if none). */
const char *rf_disc_last_problem(const struct rf_disc *d);
/* Absurd values the walk left out (borrowed reason of the first), 0 none. */
size_t	 rf_disc_dropped(const struct rf_disc *d, const char **why);

/*
 * After the walk: chooses the sources and returns the plan (borrowed,
 * valid until rf_disc_free).  Fails (WP_E_PROTOCOL) when nothing usable
 * was found.
 */
int	 rf_disc_plan(struct rf_disc *d, const struct rf_plan **plan,
	    struct wp_err *err);
/*
 * A copy of plan that owns everything polling needs, in one allocation
 * sized to fit (strings interned), so that the walker can be freed: the
 * series and their picks, the URIs to GET and their $select values.
 * Caller frees with rf_plan_free.  NULL on ENOMEM.
 */
struct rf_plan	*rf_plan_compact(const struct rf_plan *plan);
void		 rf_plan_free(struct rf_plan *p);	/* NULL-safe */

/* Every distinct reading found, with boundary and chosen mark (borrowed). */
size_t	 rf_disc_found(struct rf_disc *d, const struct rf_found **out);

/*
 * Builds the value of one series from the readings of this poll (the
 * parsed resources of the plan's URIs merged in polled).  Fills s; -1
 * with err when a pick is missing (no bogus partial sum).
 */
int	 rf_series_sample(const struct rf_series *se,
	    const struct rf_readings *polled, struct wp_sample *s,
	    struct wp_err *err);

/*
 * Appends the device identity of the plan to s's labels for the report's
 * disclosure: vendor=, model=, fw= (empty ones left out).  Values are
 * sanitised (';', '=' and control characters become '_', spaces trimmed)
 * and shortened so that all three fit after the labels already there.
 */
void	 rf_identity_labels(const struct rf_plan *plan, struct wp_sample *s);

/* Does a chassis Id/Name stand for one GPU ("GPU_0", "HGX_GPU_SXM_3")? */
bool	 rf_is_gpu_name(const char *s);

#endif
