/*
 * drift.h - instruments that disagree (pure).
 *
 * A pair is two instruments measuring the same energy at two boundaries of
 * one node, PDU or site: the BMC's wall and the sum of the node's PDU
 * outlets, a PDU's outlets and its inlet, the IT meter and the sum of the
 * PDU inlets, the BMC's GPU readings and dcgm's.  Each window gives one
 * energy per side (counter deltas integrated as the report does, never
 * gauges) and the ratio b / a.  The tracker learns the pair's usual ratio
 * from its first `learn` valid windows (their median) and their spread;
 * afterwards a window whose ratio is off the usual one by more than the
 * tolerance is "beyond", and `persist` windows beyond in a row make the
 * pair drifting (an event: drift_track_add returns DRIFT_EV_START, and
 * DRIFT_EV_END when a window is back within the tolerance).  A pair
 * whose usual ratio is 0 (side b never measured anything while learning)
 * is never judged.  A window where side a measured nothing while b did
 * (after learning) has an infinite ratio: beyond, outside the statistics.
 *
 * Tolerance (relative): the two instruments' stated accuracy (acc_a +
 * acc_b), plus each window's instrument bounds relative to its energies
 * (resolution and edge interpolation), plus 3 x the learned windows'
 * standard deviation of the ratio relative to the usual ratio.
 */
#ifndef WP_DRIFT_H
#define WP_DRIFT_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/clock.h"

#define DRIFT_MAX_LEARN	64

enum drift_kind { DK_WALL_OUTLET, DK_PDU_INLET, DK_IT_INLETS, DK_GPU_BMC,
    DK_N };

/* "wall_outlet", "pdu_inlet", "it_inlets", "gpu_bmc"; NULL out of range. */
const char *drift_kind_name(int k);
/* What a and b are for kind k ("wall", "outlets"...). */
const char *drift_side_name(int k, int side);
int	 drift_kind_parse(const char *s);	/* -1 unknown */

/* The instruments whose stated accuracy makes a pair's tolerance. */
enum drift_instr { DI_BMC, DI_OUTLET, DI_INLET, DI_METER, DI_GPU, DI_N };
const char *drift_instr_name(int i);	/* "bmc", "outlet", ... */

/* The drift: block of the configuration (docs/drift.md). */
struct drift_settings {
	wp_time	 window[DK_N];	/* per pair kind; default 10 min */
	size_t	 learn, persist;	/* default 6, 2 */
	double	 acc[DI_N];	/* default bmc 2 %, outlet and inlet 1 %,
				   meter 0.5 %, gpu 5 % */
};
void	 drift_settings_default(struct drift_settings *s);

struct drift_opts {
	size_t	 learn;		/* windows learned, 1..DRIFT_MAX_LEARN */
	size_t	 persist;	/* windows beyond in a row for an event (>= 1) */
	double	 acc_a, acc_b;	/* stated relative accuracy of each side */
};

/* One window of a pair: the energies of side a and side b (J). */
struct drift_win {
	bool	 valid;		/* both sides measured over the window */
	double	 a, b;
	double	 bound_a, bound_b;	/* instrument bounds (J), >= 0 */
};

enum drift_event { DRIFT_EV_NONE, DRIFT_EV_START, DRIFT_EV_END };

struct drift_track {
	struct drift_opts o;
	double	 learn_r[DRIFT_MAX_LEARN];
	size_t	 n_learn;
	bool	 learned;
	double	 usual;		/* learned ratio (median), NAN before */
	double	 learn_sd;	/* sd of the learned ratios */
	/* every valid window */
	size_t	 n, n_beyond, run;
	double	 sum, sumsq, min, max;
	double	 last;		/* last ratio, NAN none */
	double	 last_dev;	/* last ratio / usual - 1, NAN before learned */
	double	 last_tol;	/* tolerance of the last window */
	double	 worst_dev;	/* largest |dev| seen after learning */
	bool	 active;	/* drifting now */
	size_t	 events;	/* DRIFT_EV_START so far */
	size_t	 invalid;	/* windows with a side missing */
};

/* The tracker options of pair kind k under s. */
void	 drift_opts_for(const struct drift_settings *s, int k,
	    struct drift_opts *o);

/* 0, or -1 when o is out of range. */
int	 drift_track_init(struct drift_track *t, const struct drift_opts *o);
/* Feeds the next window (in time order); returns an enum drift_event. */
int	 drift_track_add(struct drift_track *t, const struct drift_win *w);
/* Mean and sample standard deviation of the ratios (NAN when undefined). */
double	 drift_track_mean(const struct drift_track *t);
double	 drift_track_sd(const struct drift_track *t);

#endif
