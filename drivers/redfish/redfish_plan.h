/*
 * redfish_plan.h - what the Redfish driver polls: the series discovery
 * chose (each the sum of its picks), the compact copy of a plan that
 * polling keeps once the walker is freed, the value of a series from one
 * poll's readings, and the device identity labels.  Pure; no I/O.
 */
#ifndef WP_REDFISH_PLAN_H
#define WP_REDFISH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/sample.h"
#include "redfish_parse.h"

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
	const char	*labels;	/* more "k=v;k=v" (systems=2...), or "" */
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

/*
 * A copy of plan that owns everything polling needs, in one allocation
 * sized to fit (strings interned), so that the walker can be freed: the
 * series and their picks, the URIs to GET and their $select values.
 * Caller frees with rf_plan_free.  NULL on ENOMEM.
 */
struct rf_plan	*rf_plan_compact(const struct rf_plan *plan);
void		 rf_plan_free(struct rf_plan *p);	/* NULL-safe */

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
