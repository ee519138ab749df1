/*
 * lastset.h - the last good poll's samples of a target, kept compact.
 *
 * A struct wp_sample is a fixed 352-byte record (series and labels as
 * arrays); a PDU of 48 outlets keeps about a hundred of them between
 * polls.  A lastset keeps the numbers of each sample and its strings once
 * each in one pool (strpool.h: the labels of an outlet's power and energy
 * are the same text, and the outlets' labels share a long tail), a
 * quarter of the size or less, and expands them back into full
 * samples when the exposition asks (lastset_expand).
 * lastset_set copies (the numbers only when the strings are the set's
 * already, position by position: a poll like the last); lastset_fini frees;
 * the struct may be reused.
 */
#ifndef WP_LASTSET_H
#define WP_LASTSET_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sample.h"
#include "lib/strpool.h"

struct lastval;

struct lastset {
	struct lastval	*v;
	size_t		 n;
	struct strpool	 pool;		/* the strings (strpool.h) */
};

/* Replaces set's contents by copies of s[0..n).  0, or -1 (out of
 * memory: set unchanged). */
int	 lastset_set(struct lastset *set, const struct wp_sample *s, size_t n);
/* The samples, written into out (room for set->n).  Returns set->n. */
size_t	 lastset_expand(const struct lastset *set, struct wp_sample *out);
void	 lastset_fini(struct lastset *set);
/* The index of the sample of series in set, trying index hint first (a
 * target's polls list their series in the same order), or -1. */
long	 lastset_find(const struct lastset *set, const char *series,
	    size_t hint);
/* Sample i's realtime, value and kind (WP_GAUGE...); i < set->n. */
void	 lastset_reading(const struct lastset *set, size_t i, wp_time *t,
	    double *v, int *kind);

#endif
