/*
 * drift_load.h - the drift watch over a period of the journal (issue 23):
 * `wattpath calibrate` (and `drift`).  For each pair kind (model/drift.h)
 * the period is cut into windows of the kind's drift.window, the journal
 * scanned (report_load.c, the report's own integration of counters; gauge
 * series are never used) and every window's two energies fed, in time
 * order, to one tracker per pair: per node wall vs outlets and in-band
 * GPUs vs the BMC's GPUs, per PDU outlets vs inlet, for the site the PDU
 * inlets vs the IT meter.  Pairs with no measured window are left out.
 * Nothing is printed: collector/cmd/drift_cmd.c formats the table.
 */
#ifndef WP_DRIFT_LOAD_H
#define WP_DRIFT_LOAD_H

#include <stddef.h>

#include "../../model/drift.h"
#include "../lib/clock.h"
#include "../lib/err.h"

struct wp_conf;

struct drift_pair {
	int	 kind;			/* enum drift_kind */
	const char *name;		/* node, PDU or meter (borrowed) */
	struct drift_track t;
	wp_time	 window;
	wp_time	 event_to;		/* end of the window that started
					   the first event, 0 none */
};

struct drift_table {
	wp_time	 from, to;
	struct drift_pair *v;		/* in kind, then config order */
	size_t	 n;
	size_t	 drifting;		/* pairs with an event */
};

/* Scans c's journal over [from, to] into t (zeroed by the caller).
 * 0, or -1 with err.  Release with drift_table_fini either way. */
int	 drift_table_load(const struct wp_conf *c, wp_time from, wp_time to,
	    struct drift_table *t, struct wp_err *err);
void	 drift_table_fini(struct drift_table *t);

#endif
