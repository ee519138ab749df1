/*
 * lookback.h - a record among the last few of an array.
 *
 * The values of a poll come in runs (an outlet's power, its energy, the
 * next outlet's...), so the fields they share are kept once for each run:
 * a record is looked for among the last LOOKBACK_N of those kept, byte for
 * byte, and added when not there (the last samples, lastset.c; the journal
 * writer's previous values, jcodec.c).  Bounded, so a poll whose values
 * all differ costs LOOKBACK_N comparisons a value, not one per value kept.
 */
#ifndef WP_LOOKBACK_H
#define WP_LOOKBACK_H

#include <stddef.h>
#include <string.h>

#define LOOKBACK_N	8

/* The index of the size-byte record e among the last LOOKBACK_N of the n
 * records at tab, the nearest first, or -1. */
static inline long
lookback_find(const void *tab, size_t n, size_t size, const void *e)
{
	const unsigned char *t = tab;
	size_t i;

	for (i = n; i-- > 0 && n - i <= LOOKBACK_N;)
		if (memcmp(t + i * size, e, size) == 0)
			return (long)i;
	return -1;
}

#endif
