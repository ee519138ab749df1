/*
 * expo_api.h - the JSON API of the exposition server (json-c):
 *   /api/v1/nodes[?q=&page=&per_page=]   nodes with figures by boundary
 *   /api/v1/nodes/<name>                 one node, its targets, its recent
 *                                        (gpu, wall) power pairs
 *   /api/v1/targets                      health of every target
 *   /api/v1/series?target=T              a target's last good samples
 *   /api/v1/curves?node=N|class=C&from=&to=[&step=]   the curve document
 *   /api/v1/report?from=&to=             the report document
 *   /api/v1/history?node=N|rack=R|pdu=P|fleet=all&from=&to=[&step=]   power over
 *                                        time from the RRD store
 *                                        (expo_rrdhist.h)
 * Times are ISO-8601 or epoch seconds; from/to default to the last hour.
 * Errors are {"error": "..."} with 400 (bad request), 404, 500.  Report
 * and curves read the journal: their requests are parsed here on the loop
 * thread (expo_api_report_parse) and computed on a worker thread; so is
 * history, which reads the RRD files
 * (expo_api_report_run, expo.c); windows are capped at 31 days.
 */
#ifndef WP_EXPO_API_H
#define WP_EXPO_API_H

#include <stdbool.h>
#include <stddef.h>

#include "../report/report_api.h"
#include "expo_fleet.h"
#include "expo_history.h"
#include "expo_rrdhist.h"

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

/* A report, curves or history request, to compute off the loop (strings
 * owned). */
struct expo_report_req {
	struct report_query q;		/* node and cls point below */
	char		*node, *cls;
	bool		 history;	/* /api/v1/history: h, not q */
	struct rrdhist_query h;		/* h.name points at name */
	char		*name;
};

/* Whether q is /api/v1/report, /api/v1/curves or /api/v1/history (not
 * for expo_api_handle). */
bool	 expo_api_is_report(const struct expo_req *q);
/* Parses report or curves request q into rr: 0 (release rr with
 * expo_api_report_fini), or -1 with the error answered into r. */
int	 expo_api_report_parse(const struct expo_req *q,
	    struct expo_report_req *rr, struct expo_resp *r);
/* Answers rr over c into r: safe on any thread; c must stay alive. */
void	 expo_api_report_run(const struct wp_conf *c,
	    const struct expo_report_req *rr, struct expo_resp *r);
void	 expo_api_report_fini(struct expo_report_req *rr);

/* Answers q, any other endpoint, into r (always filled; body NULL only
 * when out of memory); attr: the per-model counters' state (expo_attr.h),
 * or NULL. */
void	 expo_api_handle(const struct expo_req *q, const struct wp_conf *c,
	    fleet_each_fn each, const void *src, const struct history *h,
	    const struct expo_attr *attr, struct expo_resp *r);

#endif
