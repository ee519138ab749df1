/*
 * expo_jtail.h - the tail of the history the RRD files do not hold yet,
 * from the journal: without rrdcached the collector holds each file's
 * values up to collector.rrd_write_delay (store.h), so /api/v1/history
 * reads the readings after a file's last update from the journal, which
 * is written at every poll.  One scan of the journal over the tail window
 * (at most twice the write delay and two steps back from the window's
 * end: the store writes any value held longer), the readings of the
 * power and energy series kept in memory; each file's points after its
 * last update are then filled from them: the power gauge's mean over the
 * point, else the energy counter's mean power (its rises over the time
 * between readings; a coarse counter over a short point rises by nothing
 * or by a whole step, so the gauge comes first).
 * Blocking (disk): on the report workers only.
 */
#ifndef WP_EXPO_JTAIL_H
#define WP_EXPO_JTAIL_H

#include <stdbool.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "../store/rrdread.h"

struct wp_conf;
struct jtail;

/* Reads the tail of grid g from c's journal.  NULL with err on a read
 * error or out of memory; caller frees with jtail_free. */
struct jtail	*jtail_load(const struct wp_conf *c, const struct rrdgrid *g,
		    struct wp_err *err);
void		 jtail_free(struct jtail *t);	/* NULL-safe */
/* Where the tail begins (realtime): points ending after it can be filled. */
wp_time		 jtail_from(const struct jtail *t);
/*
 * Fills v (g's points, NAN unknown) where a point ends after written_to
 * and is unknown, from the readings of target's prefix ("wall/", "gpu/0/",
 * ""); returns whether any point was filled.
 */
bool		 jtail_fill(const struct jtail *t, const char *target,
		    const char *prefix, wp_time written_to, double *v);

#endif
