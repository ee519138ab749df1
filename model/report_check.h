/*
 * report_check.h - plausibility checks of a report (pure).  What a figure
 * rests on is checked against what the window measured, and a finding is
 * a warning (in the order the checks run) and a line of the disclosure's
 * "plausibility" list, so an auditor sees it beside the figure:
 *   - a window under REPORT_CHECK_WINDOW (600 s: seed 002's and MLPerf
 *     Power's minimum run) is flagged short;
 *   - an idle window in which output tokens were counted (by the engines'
 *     counters or the request log), or whose power is within
 *     REPORT_CHECK_IDLE_NEAR of the window's own (so it was not idle), makes
 *     the idle-subtracted figures implausible.
 * The request log's coverage of the counted tokens is checked where the SLO
 * share is taken (report.c).  report_has_figure says whether a report
 * holds any energy figure at all (`wattpath report` exits 1 when not).
 */
#ifndef WP_REPORT_CHECK_H
#define WP_REPORT_CHECK_H

#include <stdbool.h>

#include "../collector/lib/clock.h"

#define REPORT_CHECK_WINDOW	(600 * WP_SEC)
#define REPORT_CHECK_IDLE_NEAR	0.05	/* idle power >= 95 % of busy */
/* The least share of the counted output tokens a request log must cover
 * for an SLO figure; under it there is none. */
#define REPORT_CHECK_SLO_COVER	0.5

struct report;
struct report_input;
struct report_sel;

/* Runs the checks on r (built from in and sel): warnings and r->checks. */
void	 report_check(const struct report_input *in,
	    const struct report_sel *sel, struct report *r);
/* A finding: a warning, and a line of r->checks (formatted). */
void	 report_check_flag(struct report *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* True when some boundary of the fleet or of a node has an energy. */
bool	 report_has_figure(const struct report *r);

#endif
