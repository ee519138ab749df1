/*
 * redfish_wall.h - the wall figure of one chassis (pure; no I/O).
 *
 * A level is a chassis that feeds the node, or the readings of a shared
 * chassis that name one of its systems.  Its candidates are its readings
 * with a value that measure an input: a whole (role input), the system
 * board, or one supply or rectifier (never an output or a component).
 * The figures, ranked (docs/redfish.md, "Which figure is the node's
 * wall"):
 *   energy (a counter): EnvironmentMetrics.EnergyJoules; an input Sensor
 *     EnergyJoules; EnvironmentMetrics.EnergykWh; an input Sensor
 *     EnergykWh (or EnergyWh); a board Sensor; the sum of the supplies'
 *     input energy (Sensors in J, in kWh, PowerSupplyMetrics.EnergykWh);
 *   power (a gauge): EnvironmentMetrics.PowerWatts; an input Sensor Power;
 *     Power.PowerControl[].PowerConsumedWatts; a board Sensor Power; the
 *     sum of the supplies' input power (PowerSupplyMetrics.InputPowerWatts,
 *     Sensors, Power.PowerSupplies[].PowerInputWatts); PowerMetrics
 *     AverageConsumedWatts (averaged over IntervalInMin); an OEM meter
 *     (HPE FastPowerMeter, then PowerMeter; Dell telemetry or Lenovo
 *     history SystemInputPower), below every standard figure.
 * Of several of one rank, one named total wins (an un-numbered one over
 * numbered feeds), numbered feeds of one name are summed (Mains 1 + 2),
 * else the largest (every other meter sits downstream of the input) for
 * power, the first for energy.  A supplies' sum counts each supply once
 * and only when every supply present (PowerSubsystem or Power lists them;
 * Absent ones left out) has one.  A chassis figure more than 10 % below
 * its supplies' complete input sum, while the host is on, is not the
 * input: the sum wins, the chassis' own energy counters go with its
 * power figure, and the disagreement is noted.
 */
#ifndef WP_REDFISH_WALL_H
#define WP_REDFISH_WALL_H

#include <stdbool.h>
#include <stddef.h>

#include "redfish_plan.h"

struct rf_disc;
struct rf_topo;

struct rf_level {
	int	 ch;		/* chassis index */
	int	 sys;		/* the system its readings name, or -1 */
	int	 depth;		/* hops out from the node's systems */
};

struct rf_figure {
	size_t	 idx[RF_MAX_PICKS];	/* readings of d->rd, summed */
	size_t	 n;			/* 0: none */
	int	 tier;			/* its rank (0 best), -1 none */
	const char *rule;		/* how it was chosen, for notes */
};

/* Is reading ri of d a candidate of level lv? */
bool	 rf_wall_candidate(const struct rf_disc *d, const struct rf_topo *t,
	    const struct rf_level *lv, size_t ri);
/* Has lv any candidate? */
bool	 rf_wall_has_data(const struct rf_disc *d, const struct rf_topo *t,
	    const struct rf_level *lv);
/* The energy and power figures of lv by the ranking above (n 0 where
 * there is none); notes disagreements and incomplete sums in d. */
void	 rf_wall_figures(struct rf_disc *d, const struct rf_topo *t,
	    const struct rf_level *lv, struct rf_figure *energy,
	    struct rf_figure *power);
/* How good lv's figures are, lower better: an energy counter first, then
 * the power figure's rank (without notes).  INT_MAX: none. */
int	 rf_wall_rank(struct rf_disc *d, const struct rf_topo *t,
	    const struct rf_level *lv);
/* "Chassis 1U" or "System Node0 in Chassis Blade" into buf. */
void	 rf_level_name(const struct rf_disc *d, const struct rf_level *lv,
	    char *buf, size_t len);

#endif
