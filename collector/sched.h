/*
 * sched.h - when each target polls next (pure arithmetic, no I/O).
 *
 * First polls are spread evenly over one interval (no thundering herd),
 * with a little deterministic jitter.  After a success the next poll keeps
 * the target's phase; if the loop fell behind, it reschedules from now
 * instead of bursting.  After failures the delay doubles per consecutive
 * failure up to backoff_max, but a failed target is always probed again
 * within backoff_max, so recovery is seen within minutes.
 *
 * A target keeps its exact due time, but its timer is set on a coarser
 * grid (sched_wake): polls that fall due within the same short window
 * start in one wake-up of the daemon.  On a fleet that is most of the
 * CPU a poll costs: a wake-up per poll finds the caches cold.
 */
#ifndef WP_SCHED_H
#define WP_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"

/* Due time of target i of n for its first poll at or after now. */
wp_time	 sched_first_due(wp_time now, wp_time interval, size_t i, size_t n,
	    uint64_t seed);
/* Due time after a successful poll that was due at prev_due. */
wp_time	 sched_next_ok(wp_time prev_due, wp_time now, wp_time interval);
/*
 * The time to wake for a poll due at due: due rounded up to a multiple of
 * min(batch, interval / 10) on the monotonic clock (due itself when that
 * step is 0).  Never earlier than due, later by less than one step.
 */
wp_time	 sched_wake(wp_time due, wp_time interval, wp_time batch);
/* Delay after the failures-th consecutive failure (failures >= 1). */
wp_time	 sched_backoff(int failures, wp_time interval, wp_time backoff_max);

#endif
