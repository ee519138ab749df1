/*
 * integrate.h - energy over an exact window [from, to] from one series.
 *
 * Pure and streaming: feed a series' points in time order with
 * integ_add(), then integ_finish().  Only O(1) state is kept (plus optional
 * caller-sized bins), so a week of 10 s readings costs nothing to hold.
 *
 * Counters (kind WP_COUNTER): v is the reset-corrected cumulative (J, or
 * tokens) as the journal keeps it.  Energy is the cumulative interpolated
 * linearly at both edges between the readings around each edge: no
 * snapping, no averaging of gauges.  Gauges (WP_GAUGE, W): trapezoid over
 * the window, edges interpolated; the result is flagged estimated.
 *
 * A window is refused (integ_finish returns -1 with a reason) when it is
 * shorter than min_window (60 s), when no reading lies at or before from
 * or at or after to, when it spans a counter reset or discontinuity or a
 * step the collector refused as implausible (its energy unknown), a
 * gauge's gap between readings longer than 3 sampling intervals (a
 * counter's gap is exact energy: the device counted through it, and a
 * reset inside shows as a step back or a new reset time), or when the
 * counter's resolution is too coarse for the energy measured (one step,
 * more than max_res_error of it: an EnergykWh counter over a short run).
 *
 * Bounds (integ_result): a counter's difference of two quantized readings
 * (both truncated or both rounded, each edge interpolated between two
 * readings) is off by less than one step: res_bound = resolution.  The
 * edge interpolation of a counter: half the straddling segment per edge.
 * A gauge's trapezoid: gauge_bound = window x max(vmax - mean, mean -
 * vmin) over the readings used, exact whenever the power stayed within
 * the range the readings saw (a load periodic at the sampling interval
 * can hide its range from the readings; see docs/report.md).
 *
 * Bins (optional): energy per fixed-length bin aligned to origin (e.g.
 * UTC hours for carbon, curve steps for wall-to-GPU curves), accumulated
 * (+=) into an array the integrator owns, or into a store the caller
 * gives (bin_store: integ_bin_count zeroed doubles, stride apart, so that
 * many series can keep a bin's energies side by side); they cover
 * [from, to] only.  Read bin k with integ_bin().
 */
#ifndef WP_INTEGRATE_H
#define WP_INTEGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../collector/lib/clock.h"
#include "../collector/lib/err.h"

enum integ_reason {
	INTEG_OK = 0,
	INTEG_SHORT,		/* window shorter than min_window */
	INTEG_NO_DATA,		/* no reading around an edge */
	INTEG_RESET,		/* counter reset or discontinuity inside */
	INTEG_GAP,		/* gauge readings further apart than 3 intervals */
	INTEG_RESOLUTION,	/* counter too coarse for this window */
	INTEG_IMPLAUSIBLE	/* a step refused as implausible inside */
};

/* Point flags (integ_add): any of these on a point inside the window refuses
 * a counter window; HELD points are skipped (the dip is unknown). */
#define INTEG_P_RESET	0x1	/* counter restarted or discontinuity here */
#define INTEG_P_HELD	0x2	/* counter held in a dip: value unknown */
#define INTEG_P_IMPLAUSIBLE 0x4	/* a step refused as implausible here */

#define INTEG_BINSETS	2
#define INTEG_MAX_BINS	100000000	/* per bin set: more is refused */

struct integ_bins {
	wp_time	 origin;	/* start of bin 0 */
	wp_time	 len;		/* bin length */
	size_t	 n;
	double	*e;		/* bin k at e[k * stride] */
	size_t	 stride;	/* 1 when the integrator owns e */
	bool	 own;		/* e is the integrator's (integ_fini frees) */
	size_t	 hint;		/* the bin added to last (< n): readings
				   in time order find theirs there or in
				   the next without a division */
};

struct integ_opts {
	wp_time	 from, to;
	wp_time	 interval;	/* sampling interval; 0: no gap check */
	int	 kind;		/* WP_COUNTER or WP_GAUGE */
	double	 resolution;	/* counter step (SI); 0 unknown */
	double	 max_res_error;	/* default 0.02 */
	wp_time	 min_window;	/* default 60 s */
	wp_time	 bin_len[INTEG_BINSETS];	/* 0: no bins */
	/* NULL: the integrator allocates the bins; else the caller's
	 * zeroed store of integ_bin_count() bins, bin_stride apart, which
	 * it keeps and frees after integ_fini */
	double	*bin_store[INTEG_BINSETS];
	size_t	 bin_stride[INTEG_BINSETS];
};

struct integ_result {
	double	 energy;	/* J (or tokens) over [from, to] */
	double	 mean_power;	/* energy / window seconds */
	bool	 estimated;	/* from gauges */
	double	 edge_bound;	/* worst-case edge interpolation error */
	double	 res_bound;	/* 1 x resolution (counters) */
	double	 gauge_bound;	/* gauges: envelope bound, J (0 counters) */
	double	 vmin, vmax;	/* gauges: range of the readings used */
	wp_time	 max_gap;	/* longest gap between readings used */
	size_t	 points;	/* readings used */
	int	 reason;	/* enum integ_reason */
};

struct integ {		/* what a reading or span touches first (the
			   state, the bins, o's window), why last: a report
			   holds two or more per series, a day's merge one */
	bool	 have_prev;
	bool	 started;	/* a reading at or before from */
	bool	 ended;		/* a reading at or after to */
	bool	 have_range;
	int	 reason;
	wp_time	 prev_t;
	double	 prev_v;
	double	 energy;
	double	 edge_bound;
	double	 vmin, vmax;	/* gauges: range of readings used */
	wp_time	 max_gap;
	size_t	 points;
	struct integ_bins bins[INTEG_BINSETS];
	struct integ_opts o;	/* from, to, interval, kind first */
	/* the refusal, as numbers (integrate.c writes its message in
	 * integ_finish): a code and the values the message quotes */
	double	 why_a, why_b;
	uint8_t	 why;
};

/* The number of bins of length len over [from, to] (integ_init's). */
size_t	 integ_bin_count(wp_time from, wp_time to, wp_time len);

static inline double
integ_bin(const struct integ_bins *b, size_t k)
{
	return b->e[k * b->stride];
}

/* Sets up; allocates bins when asked.  0, or -1 (bad options, ENOMEM).
 * Caller releases with integ_fini. */
int	 integ_init(struct integ *g, const struct integ_opts *o,
	    struct wp_err *err);
void	 integ_fini(struct integ *g);		/* NULL-safe */
/* Feeds one reading; points at or before the previous one are ignored. */
void	 integ_add(struct integ *g, wp_time t, double v, uint32_t pflags);
/* Checks and returns the result: 0, or -1 with res->reason and err. */
int	 integ_finish(struct integ *g, struct integ_result *res,
	    struct wp_err *err);
/*
 * A run of readings already reduced (a journal summary span): n >= 1
 * readings at strictly increasing times t0 .. t1, finite, none held; the
 * first (t0, v0, pf0) is fed as a point; for the others only the sum of
 * their segments' energies (counters: v[i+1] - v[i]; gauges: trapezoid),
 * the largest gap, the count and the last (t1, v1) are needed.  refuse:
 * a reset/discontinuity flag on a reading after the first, or the value
 * going down; implausible: a step the collector refused as implausible
 * on one of them (the reason given before a reset's, as for points).
 */
struct integ_span {
	wp_time	 t0, t1;
	double	 v0, v1;
	uint32_t pf0;
	size_t	 n;
	double	 energy;
	wp_time	 max_gap;
	bool	 refuse;
	bool	 implausible;
	bool	 range;	/* vmin, vmax set: the readings' range */
	double	 vmin, vmax;
};

/* True when integ_add_span(g, sp) gives exactly what feeding every
 * reading would: the span follows the last point, cannot refuse, and lies
 * inside the window and one bin of each bin set, or wholly outside. */
bool	 integ_span_fits(const struct integ *g, const struct integ_span *sp);
/* Adds a span that fits.  0, or -1 (it does not fit; nothing added). */
int	 integ_add_span(struct integ *g, const struct integ_span *sp);
/* The same without the check, for a span integ_span_fits said fits this
 * integrator, or one of a run of spans in time order (each after the last
 * one's t1) checked one by one against its state before the first. */
void	 integ_add_fitted(struct integ *g, const struct integ_span *sp);
/*
 * A span whose energy is also given per sub-slot (a ledger day block's
 * day span: sub[k] is its energy in [origin + k len, origin + (k + 1)
 * len), nsub of them, the segments between its readings split there as
 * integ_add splits them into bins).  It fits as a span does, but for the
 * bins: each bin set's bins must be whole sub-slots (their length a
 * multiple of len, their origin on a sub-slot's start).  Added, each
 * sub-slot's energy goes to its bin.  The figures are those of the
 * readings to floating-point rounding (the same sums, in another order).
 */
bool	 integ_sub_fits(const struct integ *g, const struct integ_span *sp,
	    wp_time origin, wp_time len);
void	 integ_add_sub(struct integ *g, const struct integ_span *sp,
	    const double *sub, size_t nsub, wp_time origin, wp_time len);
/* A span that does not fit and whose readings are gone (a ledger slot
 * whose raw records expired): its first reading is fed as a point, its
 * last ends it, and inside the window what would have refused the
 * window refuses it (a reset or step back, a gauge's gap longer than 3
 * intervals), the reason the readings would give, without their exact
 * time.  A span that could be fed whole is, by the interpolation between
 * its first and last readings (the edge snaps to the slot). */
void	 integ_add_span_gone(struct integ *g, const struct integ_span *sp);
/* Convenience over arrays (tests, small series). */
int	 integ_array(const struct integ_opts *o, const wp_time *t,
	    const double *v, const uint32_t *pflags, size_t n,
	    struct integ_result *res, struct wp_err *err);
const char *integ_reason_name(int reason);

/*
 * A running energy from a power gauge, for a live cumulative (the
 * exposition's gauge-estimated counters): the same trapezoid as a gauge
 * window above, segment by segment, added up since the first reading.  A
 * segment longer than 3 intervals (a window the report would refuse) adds
 * nothing: the energy stays flat over the gap and goes on from the next
 * reading.  Plain data; zeroed is empty.
 */
struct integ_run {
	bool	 valid;		/* has a last reading */
	wp_time	 t;		/* its time */
	double	 v;		/* its value (W) */
	double	 energy;	/* J since the first reading */
};

/* Feeds reading (t, v); one not after the last, or not finite, is
 * ignored.  interval 0: no gap rule.  Returns the energy added. */
double	 integ_run_add(struct integ_run *r, wp_time t, double v,
	    wp_time interval);

#endif
