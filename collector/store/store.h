/*
 * store.h - RRD series through librrd, directly or through rrdcached.
 *
 * One RRD file per target series, <data_dir>/rrd/<target>/<series>.rrd
 * ('/' in names becomes '_'), except that a power gauge "<x>/power" and an
 * energy counter "<x>/energy" at the wall, outlet or PDU boundary share
 * "<x>.rrd", with a row per poll (half the files to open and map).
 * Data sources (docs/store.md):
 *   energy counters  DS "energy_mj"  DERIVE, min 0: the reset-corrected
 *                    cumulative in integer mJ (RRD keeps mean watts x 1000)
 *   token counters   DS "tokens"     DERIVE, min 0 (tokens/s)
 *   power gauges     DS "power_w"    GAUGE
 *   other gauges     DS "value"      GAUGE
 * A pair file has "power_w" then "energy_mj".  Default RRAs: 1 min x 2 d,
 * 10 min x 30 d, 1 h x 1 y, 1 d x 10 y AVERAGE, plus MIN/MAX at 1 h and
 * 1 d for files with power.
 */
#ifndef WP_STORE_H
#define WP_STORE_H

#include "../lib/clock.h"
#include "../lib/err.h"
#include "../lib/sample.h"

struct store;

struct store_opts {
	const char	*data_dir;
	const char	*rrdcached;	/* "unix:/path" or "host:port", or NULL */
	wp_time		 step;		/* RRD step; the collector interval */
	const char	*const *rras;	/* RRA definitions, NULL: defaults */
	wp_time		 write_delay;	/* librrd: hold each file's values up
					   to this long, then write them with
					   one update call (at most
					   STORE_HOLD_MAX values); 0: write
					   through.  rrdcached: unused */
};

#define STORE_HOLD_MAX	64
#define STORE_DELAY_MAX	(3600 * WP_SEC)

/* Returns a new store; caller frees with store_free.  NULL on error. */
struct store	*store_new(const struct store_opts *o, struct wp_err *err);
void		 store_free(struct store *st);	/* flushes; NULL-safe */

/*
 * Puts one value of target's series at realtime t in its file's row of
 * this poll: cum for counters (reset-corrected, SI), value for gauges.
 * Nothing is written until store_commit.  Creates the file on first use,
 * or, when values are held (librrd with a write delay), at its first
 * write.  Values at or before the file's last update are skipped, not
 * errors; a pair's row is at the time of the first of its values.
 */
int	 store_update(struct store *st, const char *target,
	    const struct wp_sample *s, double cum, wp_time t, struct wp_err *err);
/* Ends a poll: writes (or holds) the rows store_update opened.  0, or -1
 * with the first failure in err (the other files are still written). */
int	 store_commit(struct store *st, struct wp_err *err);
/* Commits, then writes held values (librrd) or asks rrdcached to flush.
 * 0 or -1. */
int	 store_flush(struct store *st, struct wp_err *err);
/* Writes the files whose held values are over twice the write delay old
 * at realtime now (a target that stopped polling).  0 or -1. */
int	 store_write_due(struct store *st, wp_time now, struct wp_err *err);

/* The path of the file named name ("wall/energy" alone, "wall" for a
 * pair) of target (for tests and `wattpath graph`). */
int	 store_path(const char *data_dir, const char *target, const char *series,
	    char *buf, size_t len);

#endif
