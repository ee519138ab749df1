/*
 * dashboard_drift.h - the dashboard's list of instrument pairs that
 * disagree now (the drift watch, docs/drift.md): how many pairs are
 * watched, and each drifting pair (at most 100 rows) with its ratio now,
 * its usual ratio, the deviation and the tolerance.
 */
#ifndef WP_DASHBOARD_DRIFT_H
#define WP_DASHBOARD_DRIFT_H

#include <stdio.h>

struct drift_watch;

/* Writes the section (nothing when w is NULL or watches no pair). */
void	 dashboard_drift(FILE *f, const struct drift_watch *w);

#endif
