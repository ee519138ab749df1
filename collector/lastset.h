/*
 * lastset.h - the last good poll's samples of a target, kept compact.
 *
 * A struct wp_sample is a fixed 352-byte record (series and labels as
 * arrays); a PDU of 48 outlets keeps about a hundred of them between
 * polls.  A lastset keeps the numbers of each sample (40 bytes: its times
 * as offsets from the first sample's), the fields a poll's samples mostly
 * share (resolution, wrap...) once for each run of samples having them,
 * and its strings as a reference to a sertext (sertext.h: each string once
 * in a pool, shared with the journal writer's previous record of the target
 * and the open segment's summary); it
 * expands them back into full samples when the exposition asks
 * (lastset_expand).  lastset_set copies the numbers and takes the strings'
 * sertext (the set's own again for a poll like the last); lastset_fini
 * frees; the struct may be reused.
 */
#ifndef WP_LASTSET_H
#define WP_LASTSET_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sample.h"
#include "lib/sertext.h"

struct lastval;
struct lastrare;

struct lastset {
	struct lastval	*v;
	size_t		 n;
	struct lastrare	*rare;		/* the shared fields, nrare of them */
	size_t		 nrare, rcap;
	wp_time		 base_real, base_mono;	/* the first sample's times */
	wp_time		*wide;		/* the times (t_real, t_mono) of each
					   sample, when one is more than an
					   int32_t from the base; else NULL */
	size_t		 wcap;
	struct sertext	*text;		/* the strings, held; NULL when n 0 */
};

/* Replaces set's contents by copies of s[0..n).  text: s's strings
 * (sertext_same: the caller knows it), held; or NULL (or not of n
 * samples): the set's own when they are s's, else a new one.  0, or -1
 * (out of memory: set unchanged). */
int	 lastset_set(struct lastset *set, const struct wp_sample *s, size_t n,
	    struct sertext *text);
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
