#include "sched.h"

/* splitmix64: a tiny deterministic hash for per-target jitter. */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

wp_time
sched_first_due(wp_time now, wp_time interval, size_t i, size_t n,
    uint64_t seed)
{
	wp_time slot, jitter;

	if (n == 0 || interval <= 0)
		return now;
	slot = interval / (wp_time)n;
	/* Jitter within 1/4 of a slot keeps the order but breaks lockstep. */
	jitter = slot >= 4 ? (wp_time)(mix(seed + i) % (uint64_t)(slot / 4)) : 0;
	return now + (wp_time)((__int128)interval * (wp_time)i / (wp_time)n) +
	    jitter;
}

wp_time
sched_next_ok(wp_time prev_due, wp_time now, wp_time interval)
{
	wp_time next = prev_due + interval;

	if (interval <= 0)
		return now;
	if (next > now)
		return next;
	/* Behind: skip the missed slots, keep the phase, never burst. */
	return next + ((now - next) / interval + 1) * interval;
}

wp_time
sched_wake(wp_time due, wp_time interval, wp_time batch)
{
	wp_time step = batch < interval / 10 ? batch : interval / 10;
	wp_time r;

	if (step <= 0)
		return due;
	r = due % step;		/* due may be negative: C truncates */
	if (r < 0)
		r += step;
	return r == 0 ? due : due - r + step;
}

wp_time
sched_backoff(int failures, wp_time interval, wp_time backoff_max)
{
	wp_time d = interval;
	int i;

	if (backoff_max < interval)
		backoff_max = interval;
	for (i = 1; i < failures && d < backoff_max; i++)
		d *= 2;
	return d < backoff_max ? d : backoff_max;
}
