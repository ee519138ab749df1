/*
 * state.h - the collector's table of counter states, and its persistence.
 *
 * Keyed by (target, series).  state_save writes an atomic snapshot
 * (temp file + rename + fsync) stamped with the realtime of the newest
 * journal record it includes; state_load reads the snapshot and then
 * replays journal records after that stamp, so that even after SIGKILL the
 * first delta after a restart spans the gap exactly and nothing is counted
 * twice.
 */
#ifndef WP_STATE_H
#define WP_STATE_H

#include <stddef.h>

#include "../model/counter.h"
#include "lib/clock.h"
#include "lib/err.h"

struct state;

struct state	*state_new(void);			/* NULL on ENOMEM */
void		 state_free(struct state *s);		/* NULL-safe */
/* Returns the counter for (target, series), creating it (counter_init with
 * hold_dips) if absent; NULL on ENOMEM.  Borrowed, owned by s.  hold_dips
 * is the caller's policy: it is also applied to an existing counter (one
 * restored by state_load). */
struct wp_counter *state_counter(struct state *s, const char *target,
		    const char *series, bool hold_dips);
/* Newest journal record time folded into the table. */
wp_time		 state_stamp(const struct state *s);
void		 state_set_stamp(struct state *s, wp_time t);
size_t		 state_count(const struct state *s);	/* counters held */

/* Writes <data_dir>/state/counters atomically.  0 or -1. */
int	 state_save(const struct state *s, const char *data_dir,
	    struct wp_err *err);
/*
 * Loads the snapshot (absent is fine) and replays <data_dir>/journal
 * records with t_real > stamp: each counter value sets the counter as the
 * collector left it (last, cum, last_t, reset_time, held), and the stamp
 * becomes the newest record's time.  A malformed snapshot is an error
 * (class CONFIG) so the caller can decide to move it aside.
 */
int	 state_load(struct state *s, const char *data_dir, struct wp_err *err);

#endif
