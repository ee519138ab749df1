/*
 * redfish_discover.h - pure link-walking over a Redfish service.
 *
 * The walker never does I/O: the caller asks rf_disc_next() for the next
 * URI to GET, fetches it however it likes (async for the collector, sync
 * for probe) and hands back the parsed document with rf_disc_feed().  When
 * rf_disc_next() returns NULL the walk is over and rf_disc_plan() tells
 * what to poll:
 *   - node mode: the node's wall input (docs/redfish.md, "Which figure is
 *     the node's wall": the systems the node stands for, the chassis that
 *     feed them, a ranked figure per chassis) and its GPUs (Processors
 *     with ProcessorType GPU, or chassis that stand for one GPU) with
 *     their EnvironmentMetrics, or the TelemetryService MetricReports that
 *     carry them;
 *   - PDU mode: PowerEquipment/RackPDUs outlets, mains and totals;
 *   - probe mode: both, and every reading of every chassis, the ones not
 *     chosen kept as cross-checks.
 * Collections are read whole: Members@odata.nextLink pages are followed,
 * $expand is used where the service announces it (members without a body
 * are then fetched one by one), Sensors whose Id names a quantity that is
 * not power or energy are not fetched (counted); whatever a bound leaves
 * out is said in a note.  Dangling links are counted and noted, never
 * fatal unless the service root itself cannot be read.
 */
#ifndef WP_REDFISH_DISCOVER_H
#define WP_REDFISH_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/sample.h"
#include "redfish_parse.h"
#include "redfish_plan.h"

struct json_object;
struct rf_disc;

enum rf_mode { RF_MODE_NODE = 0, RF_MODE_PDU, RF_MODE_PROBE };

/* A reading as probe lists it, with its boundary and chosen mark. */
struct rf_found {
	const struct rf_reading *r;	/* borrowed from the disc */
	int		 boundary;
	bool		 chosen;
	const char	*where;		/* "Chassis CMC", "System Node0" or "" */
	const char	*why;		/* why chosen or not, or "" */
};

/*
 * Returns a new walker (caller frees with rf_disc_free), NULL on ENOMEM.
 * system: the ComputerSystem Id (or Name) the node stands for when the
 * BMC manages several (bmc: {system: Id}), or NULL/"" for all of them.
 */
struct rf_disc	*rf_disc_new(int mode, const char *system);
void		 rf_disc_free(struct rf_disc *d);	/* NULL-safe */

/* Next path to GET ("/redfish/v1/...", perhaps with a query), borrowed
 * until the next feed; NULL when the walk is done. */
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
/* Requests the walk asked for so far (every rf_disc_next answer). */
int	 rf_disc_requests(const struct rf_disc *d);

/*
 * After the walk: chooses the sources and returns the plan (borrowed,
 * valid until rf_disc_free).  Fails (WP_E_PROTOCOL) when nothing usable
 * was found: in node mode "no wall source" with the reason, unless GPUs
 * were found (then the plan has no wall series and says so in a note).
 */
int	 rf_disc_plan(struct rf_disc *d, const struct rf_plan **plan,
	    struct wp_err *err);
/* Every distinct reading found, with boundary and chosen mark (borrowed). */
size_t	 rf_disc_found(struct rf_disc *d, const struct rf_found **out);
/*
 * What the walk and the choice have to say (borrowed, valid until
 * rf_disc_free): the rule that chose the wall figure, disagreements,
 * what was skipped or left out and why.
 */
size_t	 rf_disc_notes(const struct rf_disc *d, const char *const **out);

/* Does a chassis Id/Name stand for one GPU ("GPU_0", "HGX_GPU_SXM_3")? */
bool	 rf_is_gpu_name(const char *s);

#endif
