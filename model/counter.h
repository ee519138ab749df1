/*
 * counter.h - counter deltas with reset, wrap and dip detection (pure).
 *
 * One struct wp_counter per counter series.  counter_update() takes the
 * next reading (SI units) and returns the delta to add, never negative:
 *  - first reading: no delta (DISCONT), the cumulative starts at 0;
 *  - value >= last: delta = value - last;
 *  - value a hair below last (within one resolution step, or 1e-9
 *    relative: float rounding of a re-read): jitter, no delta, last kept;
 *  - value a little below last (at most BACKSTEP_MAX of it: a meter's
 *    re-read or a BMC's recomputed total, never a restart): held, no
 *    delta, last kept (BACKSTEP), so the energy counts again once the
 *    counter passes last;
 *  - value < last and a modulus is known and the drop is more than half the
 *    modulus: a wrap, delta = value + wrap - last (WRAPPED);
 *  - device said reset (WP_F_RESET) or reset_time changed, or value < last
 *    otherwise: a reset, delta = value (energy since the restart, counted
 *    from 0) and RESET is set;
 *  - with hold_dips, a drop to below (1 - dip_fraction) of last is first
 *    held as unknown (HELD, no delta) for up to hold_max polls: if the
 *    counter comes back to >= last the held time is bridged exactly by
 *    value - last; if it stays down it is declared a reset then.
 * Plausibility (max_rate > 0, and a reading time after the last): a step
 * whose implied mean rate (delta less one resolution step, over the time
 * since the last reading) exceeds max_rate is no energy: the counter is rebased on the new value
 * with no delta (IMPLAUSIBLE | DISCONT), whether it is a forward jump or
 * the value a reset would count as "since the restart".
 * cum is the reset-corrected cumulative (SI) since the series was first
 * seen: what the store and the journal keep.  The struct is plain data, so
 * the journal can persist it and a restart can resume exactly.
 */
#ifndef WP_COUNTER_H
#define WP_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

#include "../collector/lib/clock.h"

#define CTR_DISCONT	0x1	/* no delta: first reading or after a gap policy */
#define CTR_RESET	0x2
#define CTR_WRAPPED	0x4
#define CTR_HELD	0x8
#define CTR_RESUMED	0x10	/* a held dip recovered */
#define CTR_BACKSTEP	0x20	/* a small step back, held (no delta) */
#define CTR_IMPLAUSIBLE	0x40	/* a step above max_rate: rebased, no delta */

#define BACKSTEP_MAX	0.01	/* a step back of at most 1 % is held */

struct wp_counter {
	double	 last;		/* last accepted device value (SI) */
	double	 cum;		/* reset-corrected cumulative (SI) */
	wp_time	 last_t;	/* realtime of last */
	wp_time	 reset_time;	/* last device reset epoch seen, 0 unknown */
	/* the owner's: the cumulative its log of deltas (the journal) holds;
	 * a delta is cum - logged_cum, so deltas add up to the cumulative
	 * even after a record could not be written */
	double	 logged_cum;
	uint32_t resets;	/* resets seen, for "reset storm" alerts */
	uint32_t implausible;	/* steps refused as implausible */
	uint32_t held;		/* polls held in a dip so far */
	bool	 valid;		/* has a last value */
	bool	 logged_set;
	/* policy (set once by the owner): */
	bool	 hold_dips;
	uint32_t hold_max;	/* polls; default 6 */
	double	 dip_fraction;	/* default 0.5 */
};	/* fields ordered to leave almost no padding: a collector holds one
	   per counter of the fleet */

struct counter_in {
	double	 value;		/* SI */
	double	 wrap;		/* modulus in SI, 0 none */
	double	 resolution;	/* one step in SI, 0 unknown */
	wp_time	 t;		/* realtime of the reading */
	wp_time	 reset_time;	/* device reset epoch, 0 unknown */
	bool	 device_reset;	/* device flagged a reset (WP_F_RESET) */
	double	 max_rate;	/* SI per second a step may imply at most;
				   0: no plausibility check */
	wp_time	 min_dt;	/* a step is judged over at least this long
				   (the poll interval: a reading just after
				   a late one holds up to an interval's
				   energy); 0: the time since the last */
};

struct counter_out {
	double	 delta;		/* >= 0; 0 when flags has DISCONT or HELD */
	double	 cum;		/* cumulative after this reading */
	uint32_t flags;		/* CTR_* */
};

void	 counter_init(struct wp_counter *c, bool hold_dips);
/* Feeds one reading; returns the delta in out.  Never fails. */
void	 counter_update(struct wp_counter *c, const struct counter_in *in,
	    struct counter_out *out);

#endif
