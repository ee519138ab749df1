/*
 * expo_api.h - the JSON API of the exposition server (json-c):
 *   /api/v1/nodes[?q=&page=&per_page=]   nodes with figures by boundary
 *   /api/v1/nodes/<name>                 one node, its targets, its recent
 *                                        (gpu, wall) power pairs
 *   /api/v1/targets                      health of every target
 *   /api/v1/series?target=T              a target's last good samples
 *   /api/v1/curves?node=N|class=C&from=&to=[&step=]   report_curve_json
 *   /api/v1/report?from=&to=             report_json
 * Times are ISO-8601 or epoch seconds; from/to default to the last hour.
 * Errors are {"error": "..."} with 400 (bad request), 404, 500.  Report
 * and curves read the journal on the loop thread: windows are capped at
 * 31 days.
 */
#ifndef WP_EXPO_API_H
#define WP_EXPO_API_H

#include <stddef.h>

#include "expo_fleet.h"
#include "expo_history.h"

struct wp_conf;

struct expo_req {
	const char	*path;		/* "/api/v1/..." */
	/* the query argument key, or NULL */
	const char	*(*arg)(const void *ctx, const char *key);
	const void	*ctx;
};

struct expo_resp {
	int		 status;	/* HTTP status */
	const char	*ctype;		/* static */
	char		*body;		/* caller frees with free() */
	size_t		 len;
};

/* Answers q into r (always filled; body NULL only when out of memory). */
void	 expo_api_handle(const struct expo_req *q, const struct wp_conf *c,
	    fleet_each_fn each, const void *src, const struct history *h,
	    struct expo_resp *r);

#endif
