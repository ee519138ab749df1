/*
 * report_api.h - the report and the curve as a library: what `wattpath
 * report`/`curve` (collector/cmd/report_cmd.c) and the exposition's
 * /api/v1/report and /api/v1/curves call.  One call reads the journal
 * under c->data_dir (or the query's or report.data_dirs' data dirs, each
 * verified and one per target kept: report_merge.h) over the query's
 * windows (synchronously: the
 * exposition calls it on a worker thread), the request log and the site's
 * files it names, and hands the loaded series and c's typed settings to
 * the model (model/report.h).  c is borrowed, and must outlive what is
 * returned (names are borrowed from it).  Schema: docs/report.md.
 */
#ifndef WP_REPORT_API_H
#define WP_REPORT_API_H

#include <stdatomic.h>

#include <json-c/json.h>

#include "../../model/report_plan.h"
#include "../lib/clock.h"
#include "../lib/err.h"

struct report;			/* model/report.h */
struct report_curve_doc;
struct wp_conf;

struct report_query {
	struct report_request req;	/* windows, runs, period, step */
	const char	*requests;	/* request log path, or NULL */
	const char	*node, *cls;	/* curve: exactly one */
	const atomic_bool *cancel;	/* stops the journal scan, or NULL */
	/* several collectors' data dirs (--data-dir), merged
	 * (report_merge.h); none: report.data_dirs when config_dirs (the
	 * commands; the exposition reads its own), else c->data_dir */
	const char *const *data_dirs;
	size_t		 n_data_dirs;
	bool		 config_dirs;
	/* refuse a window that starts before the journal's first reading
	 * (the command line; the exposition's "last N minutes" just after a
	 * start is answered with its warnings instead) */
	bool		 refuse_before_data;
};

/* A query of [from, to) with every other choice at its default. */
void	 report_query_init(struct report_query *q, wp_time from, wp_time to);

/* 0 if the curve's node or class (when q names one) is in c, else -1
 * with err: what to answer "not found". */
int	 report_query_scope(const struct wp_conf *c,
		    const struct report_query *q, struct wp_err *err);

/* Returns the report (caller frees with report_free), or NULL with err (a
 * window refused, the journal or the request log unreadable). */
struct report	*report_run(const struct wp_conf *c,
		    const struct report_query *q, struct wp_err *err);
/* The curve of q->node or q->cls (caller frees with
 * report_curve_doc_free), or NULL with err. */
struct report_curve_doc *report_curve_run(const struct wp_conf *c,
		    const struct report_query *q, struct wp_err *err);

/* The report's or the curve's JSON document (curve when q names a node or
 * a class).  Caller frees with json_object_put; NULL with err. */
json_object	*report_query_json(const struct wp_conf *c,
		    const struct report_query *q, struct wp_err *err);
/* Shorthands: the report over [from, to); the curve of one node or one
 * class (exactly one of node and cls; step 0: the default). */
json_object	*report_json(const struct wp_conf *c, wp_time from,
		    wp_time to, struct wp_err *err);
json_object	*report_curve_json(const struct wp_conf *c, const char *node,
		    const char *cls, wp_time from, wp_time to, wp_time step,
		    struct wp_err *err);

#endif
