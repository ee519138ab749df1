/*
 * rrdread.h - power read back from the RRD store (store.h) for the
 * dashboard's history (/api/v1/history) and `wattpath graph`: the mean
 * power of one series prefix of a target ("wall/", "gpu/0/",
 * "outlet/3/", "phase/1/"; "": a meter's own "energy" and "power") on a
 * regular grid, from the pair file
 * "<prefix>.rrd" (energy_mj / 1000 where known, else power_w), else the
 * counter's file "<prefix>energy.rrd", else the gauge's
 * "<prefix>power.rrd".  Through rrdcached (daemon non-NULL) each file is
 * flushed first, so nothing the daemon holds is missing.  Without it the
 * values the collector holds (collector.rrd_write_delay) are not in the
 * file yet: every point after the file's last update is unknown (NAN),
 * never drawn from a part of the data, and written_to says where the
 * file ends.  Blocking (librrd, rrdcached): never on the loop thread.
 */
#ifndef WP_RRDREAD_H
#define WP_RRDREAD_H

#include <stddef.h>

#include "../lib/clock.h"
#include "../lib/err.h"

#define RRDREAD_POINTS_MAX	2000

/* A grid: n points, point i the mean over (t0 + (i-1) step, t0 + i step]. */
struct rrdgrid {
	wp_time	 t0, step;
	size_t	 n;
};

/* The grid of [from, to] with step (0: the window over about 300
 * points, whole seconds): 0, or -1 with err (an empty window, over
 * RRDREAD_POINTS_MAX points). */
int	 rrdgrid_make(wp_time from, wp_time to, wp_time step,
	    struct rrdgrid *g, struct wp_err *err);

/*
 * Reads target's prefix onto grid g into v (g->n values, W, NAN
 * unknown); *written_to: the file's last update (realtime).  1 read, 0
 * no file for it, -1 with err (librrd's message).
 */
int	 rrdread_power(const char *data_dir, const char *daemon,
	    const char *target, const char *prefix, const struct rrdgrid *g,
	    double *v, wp_time *written_to, struct wp_err *err);

/* The indexes N of target's files "<kind>_N.rrd" / "<kind>_N_*.rrd"
 * (kind "phase", "gpu", ...), ascending, up to max.  Returns the count. */
size_t	 rrdread_indexes(const char *data_dir, const char *target,
	    const char *kind, int *out, size_t max);

#endif
