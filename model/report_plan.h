/*
 * report_plan.h - the windows of a report (pure): the main window (given,
 * or the request log's first start to last end), the idle window (given,
 * or report.idle), the runs (the request log's last N runs, a run ending
 * where the load generator was idle for more than report.run_gap, or N
 * equal sub-windows) and the curve step (given, report.curve_step, or
 * max(6 x interval, 60 s, window / 512), in whole journal summary slots
 * for windows of 6 h or more, so that summaries serve them).  Every window must last REPORT_MIN_WINDOW.
 */
#ifndef WP_REPORT_PLAN_H
#define WP_REPORT_PLAN_H

#include <stdbool.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"

struct report_plan;
struct report_settings;
struct report_warnings;
struct reqlog;

/* What was asked (the command line or the API). */
struct report_request {
	bool	 have_window;
	wp_time	 from, to;
	bool	 have_idle;
	wp_time	 idle_from, idle_to;
	int	 runs;		/* >= 1 */
	int	 period;	/* enum pue_period, -1 all */
	wp_time	 step;		/* 0: the default */
	wp_time	 slot;		/* the journal's summary slot (> 0) */
	bool	 curve;
};

/*
 * Fills p from q, the settings s, the request log rq (NULL none; sorted by
 * start when runs are taken from it; rq_name names it in warnings) and the
 * sampling interval.  Warnings go to w.  0, or -1 with err (a window
 * refused, too few runs in the log).
 */
int	 report_plan_make(struct report_plan *p, const struct report_request *q,
	    const struct report_settings *s, struct reqlog *rq,
	    const char *rq_name, wp_time interval, struct report_warnings *w,
	    struct wp_err *err);

#endif
