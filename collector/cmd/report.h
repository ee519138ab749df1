/*
 * report.h - the report and curve documents as a library, for the
 * exposition's /api/v1/report and /api/v1/curves (the commands in
 * report_cmd.c print the same documents).  Both read the journal under
 * c->data_dir for the window [from, to) (at least 60 s) synchronously;
 * schema: docs/report.md.  c is borrowed.
 */
#ifndef WP_REPORT_H
#define WP_REPORT_H

#include <json-c/json.h>

#include "../lib/clock.h"
#include "../lib/err.h"

struct wp_conf;

/* Returns the report document (caller frees with json_object_put), or
 * NULL with err (a window refused, the journal unreadable). */
json_object	*report_json(const struct wp_conf *c, wp_time from,
		    wp_time to, struct wp_err *err);
/* Wall-to-GPU curve of one node or of one class (exactly one of node and
 * cls); step 0 picks the default.  Caller frees with json_object_put. */
json_object	*report_curve_json(const struct wp_conf *c, const char *node,
		    const char *cls, wp_time from, wp_time to, wp_time step,
		    struct wp_err *err);

#endif
