/*
 * record.h - what the journal holds: one record per target per poll, with
 * every value as read and the counter result.  The writer (journal.h),
 * the readers and the summaries (jsum.h) share these types.
 */
#ifndef WP_RECORD_H
#define WP_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/clock.h"
#include "../lib/sample.h"

struct sertext;

struct journal_value {
	struct wp_sample s;	/* as the driver reported it */
	double		 delta;	/* counters: energy/tokens since last, >= 0 */
	double		 cum;	/* counters: reset-corrected cumulative */
	uint32_t	 ctr_flags;	/* CTR_* from model/counter.h */
};

struct journal_record {
	wp_time		 t_real;	/* poll start, collector realtime */
	wp_time		 t_mono;
	wp_time		 duration;	/* poll duration */
	const char	*target;
	int		 status;	/* 0 ok, else enum wp_err_class */
	const char	*error;		/* message or "" (never a secret) */
	size_t		 n;
	const struct journal_value *v;
	/* v's strings (series, labels, raw unit), position by position, as
	 * the collector keeps them for the target (sertext.h), or NULL: the
	 * journal's writer holds it instead of pooling them again */
	struct sertext	*text;
};

#endif
