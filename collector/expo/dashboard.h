/*
 * dashboard.h - the built-in dashboard: one server-rendered HTML page with
 * inline SVG charts and no script or external resource: fleet power by
 * boundary and PUE over time (from the history ring), output tokens per
 * joule by boundary, per-class wall-to-GPU scatter of recent (gpu, wall)
 * power pairs (the selected node's highlighted), class aggregates, a
 * searchable paged node table and target health.  Sized for 10,000 nodes:
 * aggregates, ?q= search (name, class or rack substring), ?page= paging,
 * ?node= selection.  The drift watch's drifting pairs, when given
 * (dashboard_drift.h).
 */
#ifndef WP_DASHBOARD_H
#define WP_DASHBOARD_H

#include <stdio.h>

#include "expo_fleet.h"
#include "expo_history.h"

#define DASH_PAGE	50	/* node rows per page */
#define DASH_CLASSES	8	/* class scatter charts drawn */

struct drift_watch;

struct dash_query {
	const char	*q;		/* search text, or NULL */
	const char	*node;		/* selected node, or NULL */
	long		 page;		/* 1-based */
	const struct drift_watch *drift;	/* drifting pairs, or NULL */
};

/* Writes the page.  0, or -1 on a write error. */
int	 dashboard_write(FILE *f, const struct fleet *fl,
	    const struct history *h, const struct dash_query *q);

#endif
