/*
 * drift_watch.h - the drift watch while the collector runs (issue 23).
 *
 * Keeps, per counter series that belongs to a pair of instruments
 * (model/drift.h; the pairs as drift_load.h builds them from the
 * journal), its reset-corrected cumulative interpolated linearly at the
 * edges of the pair's windows (multiples of drift.window[kind] from the
 * epoch, the report's own edge rule), and when every series of a pair has
 * the same window closed, feeds the window's two energies to the pair's
 * tracker.  A drift beyond the tolerance is logged once when it starts
 * and once when it ends (never per window), and shown by /metrics
 * (collector/expo/expo_drift.c).  State starts afresh on a reload.  On
 * the loop thread only.
 */
#ifndef WP_DRIFT_WATCH_H
#define WP_DRIFT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/drift.h"
#include "ingest.h"
#include "lib/clock.h"
#include "lib/sample.h"

struct wp_conf;
struct drift_watch;

/* A pair as the exposition shows it (strings borrowed from the conf). */
struct drift_view {
	int	 kind;			/* enum drift_kind */
	const char *name;		/* node, PDU or IT meter */
	const struct drift_track *t;
};

/* A watch over c's pairs (c must outlive it), or NULL out of memory. */
struct drift_watch *drift_watch_new(const struct wp_conf *c);
void	 drift_watch_free(struct drift_watch *w);		/* NULL-safe */
/* One good poll of target at realtime t: its samples and their counter
 * states (ctr: n entries, or NULL: nothing to do). */
void	 drift_watch_poll(struct drift_watch *w, const char *target, wp_time t,
	    const struct wp_sample *v, const struct ingest_ctr *ctr, size_t n);
/* The series it keeps state for: those that belong to a pair (a series of
 * none costs nothing but a look at its name at each poll). */
size_t	 drift_watch_held(const struct drift_watch *w);
/* Calls fn for each pair with a window measured, in a fixed order;
 * stops when fn returns non-zero.  NULL-safe (nothing). */
int	 drift_watch_each(const struct drift_watch *w,
	    int (*fn)(const struct drift_view *, void *), void *arg);

#endif
