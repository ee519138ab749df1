/*
 * redfish_choose.h - which of the readings discovery found the node
 * polls: its systems, the chassis that feed them, the ranked wall figure
 * of each (docs/redfish.md, "Which figure is the node's wall"), its GPUs,
 * a PDU's outlets and inlets; the probe's list with chosen marks, the
 * device identity and the notes that disclose the rule.  Pure; no I/O.
 */
#ifndef WP_REDFISH_CHOOSE_H
#define WP_REDFISH_CHOOSE_H

#include <stdbool.h>

#include "../../collector/lib/err.h"

struct rf_disc;

/* Does a MetricReport read so far carry a reading of base or below it? */
bool	 rf_report_covers(const struct rf_disc *d, const char *base);
/*
 * After the walk: folds excerpts into their Sensors and report values
 * into the readings they stand for, then builds d's series, found list,
 * identity and notes.  Returns 0, or -1 with err when nothing usable was
 * found (WP_E_PROTOCOL: "no power or energy source ..."; in node mode
 * the reason there is no wall source), or on ENOMEM (WP_E_INTERNAL).
 */
int	 rf_choose(struct rf_disc *d, struct wp_err *err);

#endif
