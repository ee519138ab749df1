/*
 * sched.h - when each target polls next (pure arithmetic, no I/O).
 *
 * First polls are spread evenly over one interval (no thundering herd),
 * with a little deterministic jitter.  After a success the next poll keeps
 * the target's phase; if the loop fell behind, it reschedules from now
 * instead of bursting.  After failures the delay doubles per consecutive
 * failure up to backoff_max, but a failed target is always probed again
 * within backoff_max, so recovery is seen within minutes.
 */
#ifndef WP_SCHED_H
#define WP_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"

/* Due time of target i of n for its first poll at or after now. */
wp_time	 sched_first_due(wp_time now, wp_time interval, size_t i, size_t n,
	    uint64_t seed);
/* Due time after a successful poll that was due at prev_due. */
wp_time	 sched_next_ok(wp_time prev_due, wp_time now, wp_time interval);
/* Delay after the failures-th consecutive failure (failures >= 1). */
wp_time	 sched_backoff(int failures, wp_time interval, wp_time backoff_max);

#endif
