/*
 * expo_drift.h - the drift watch's families of /metrics (issue 23): per
 * pair of instruments with a measured window (labels pair, name, a, b;
 * one series per pair: bounded by 2 x nodes + PDUs + 1)
 *   wattpath_drift_ratio         b / a over the last window
 *   wattpath_drift_usual_ratio   the learned ratio (once learned)
 *   wattpath_drift_deviation     ratio / usual - 1 (once learned)
 *   wattpath_drift_tolerance     the relative tolerance of the last window
 *   wattpath_drift_active        1 while drifting beyond it, else 0
 *   wattpath_drift_events_total  drifts started since the (re)load
 * Kept apart from expo_metrics.c; docs/exposition.md, docs/drift.md.
 */
#ifndef WP_EXPO_DRIFT_H
#define WP_EXPO_DRIFT_H

#include <stdio.h>

struct drift_watch;

/* Writes the families (nothing when w is NULL or has no pair yet).
 * 0, or -1 on a write error. */
int	 expo_drift_write(FILE *f, const struct drift_watch *w);

#endif
