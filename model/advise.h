/*
 * advise.h - power-cap advice from windows at different GPU power limits
 * (pure; issue 23, docs/advise.md).
 *
 * Input: one entry per window of a node class: the GPU power limit in
 * force (per GPU, W) and whether it held through the window, the class's
 * output tokens, its wall and facility energy, and the share of output
 * tokens that met the SLO (NAN: unknown).  Windows whose limit changed,
 * or that lack tokens or energy, are left out (and counted).  Windows whose
 * limits are within bin_w of the first of a point are one point.
 *
 * Per point: J/token at the wall and the facility (sum of energy / sum of
 * tokens over its windows), throughput (tokens / s), SLO attainment (token
 * weighted), and the standard error of the facility J/token (the spread of
 * the windows' own figures over sqrt(n)).  The advice is the point that
 * meets the SLO (attainment >= slo_target; every point when no target)
 * with the least facility J/token; its uncertainty: the SE, the range of
 * SLO-meeting limits whose facility J/token is within 2 combined SEs of it
 * (statistically not distinguishable), and the vertex of the parabola
 * through it and its two neighbours when that vertex lies between them.
 *
 * advise_compute refuses (returns 1, the reason in why) with fewer than
 * min_points points of at least min_windows windows each, without a
 * facility figure, or when no point meets the SLO.
 */
#ifndef WP_ADVISE_H
#define WP_ADVISE_H

#include <stdbool.h>
#include <stddef.h>

#define ADVISE_MIN_POINTS	3
#define ADVISE_MIN_WINDOWS	2
#define ADVISE_SLO_TARGET	0.99
#define ADVISE_WHY_MAX		320

struct advise_window {
	double	 limit_w;	/* per GPU, W; NAN unknown */
	bool	 steady;	/* the limit held through the window */
	double	 secs;
	double	 tokens;	/* output tokens; < 0 unknown */
	double	 wall_j, fac_j;	/* NAN unknown */
	double	 slo_share;	/* 0..1, NAN unknown */
};

struct advise_opts {
	double	 bin_w;		/* > 0; 0: 1 W */
	size_t	 min_points;	/* 0: ADVISE_MIN_POINTS */
	size_t	 min_windows;	/* 0: ADVISE_MIN_WINDOWS */
	double	 slo_target;	/* NAN: no SLO constraint */
};

struct advise_point {
	double	 limit_w;	/* mean of its windows' limits */
	size_t	 n;		/* windows */
	double	 secs, tokens, wall_j, fac_j;
	double	 wall_jpt, fac_jpt;	/* J per output token */
	double	 fac_se;	/* standard error of fac_jpt, NAN n < 2 */
	double	 tps;		/* output tokens / s */
	double	 slo;		/* attainment, NAN unknown */
	bool	 meets;		/* the SLO (true without a target) */
	bool	 used;		/* n >= min_windows */
};

struct advise_result {
	struct advise_point *p;	/* by limit, ascending; owned */
	size_t	 n;
	size_t	 windows, unsteady, incomplete;	/* given, left out */
	bool	 ok;		/* advice given (else why) */
	char	 why[ADVISE_WHY_MAX];
	size_t	 best;		/* index in p */
	double	 limit_w, fac_jpt, fac_se;
	double	 range_lo_w, range_hi_w;
	double	 fit_w;		/* NAN: no vertex between the neighbours */
	double	 uncapped_w;	/* the highest limit seen */
	double	 saving;	/* 1 - best / highest limit's facility J/token */
};

/*
 * Fills r (caller frees with advise_result_fini) from n windows.  0 advice
 * given, 1 refused (r->why says why; r->p still holds the points), -1 out
 * of memory.
 */
int	 advise_compute(const struct advise_window *w, size_t n,
	    const struct advise_opts *o, struct advise_result *r);
void	 advise_result_fini(struct advise_result *r);	/* NULL-safe */

#endif
