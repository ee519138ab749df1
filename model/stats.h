/*
 * stats.h - uncertainty of reported figures (pure).
 *
 * Two kinds, always reported side by side: the instrument bound (counter
 * resolution at both edges + edge interpolation + the accuracy class of
 * the meter or profile, added linearly as a worst case), and run-to-run
 * statistics over repeated runs: mean, sample standard deviation and the
 * 95 % Student t-interval (half-width t(0.975, n-1) x sd / sqrt(n)).
 */
#ifndef WP_STATS_H
#define WP_STATS_H

#include <stddef.h>

#include "../collector/lib/err.h"

struct runstats {
	size_t	 n;
	double	 mean;
	double	 sd;		/* sample standard deviation (n - 1) */
	double	 half95;	/* half-width of the 95 % t-interval */
	double	 t;		/* the t quantile used */
};

/* Two-sided 95 % Student t quantile for df degrees of freedom (>= 1). */
double	 stats_t95(int df);
/* Needs n >= 2 finite values; 0 or -1. */
int	 stats_runs(const double *x, size_t n, struct runstats *out,
	    struct wp_err *err);
/* Worst-case instrument bound on an energy, same unit as energy. */
double	 stats_instrument_bound(double energy, double res_bound,
	    double edge_bound, double accuracy_rel);

#endif
