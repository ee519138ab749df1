/*
 * curve.h - wall-to-GPU power curves by GPU load (pure, streaming).
 *
 * Feed intervals (mean GPU power summed over the node's GPUs, mean wall
 * power, sum of the GPUs' enforced power limits) with curve_add.  Each
 * interval's load = GPU power / limit sum (clipped to [0, 1]) picks one of
 * CURVE_BINS equal bins, which keep mean GPU power, mean wall power, their
 * ratio and a count.  Least-squares fits wall = a + b*gpu and
 * wall = a + b*gpu + c*gpu^2 with R^2 come from running sums, so a week
 * of intervals costs O(1) memory.  A node's curve deviates from its class
 * when, in a bin both have at least CURVE_MIN_COUNT intervals in, the
 * wall/GPU ratios differ by more than a tolerance.  A class curve models
 * wall energy for nodes without wall metering (labelled modeled).
 */
#ifndef WP_CURVE_H
#define WP_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#define CURVE_BINS	10
#define CURVE_MIN_COUNT	3

struct curve_bin {
	size_t	 count;
	double	 gpu_sum, wall_sum;
};

struct curve {
	struct curve_bin bin[CURVE_BINS];
	size_t	 n;
	/* running sums for the fits (x = gpu W, y = wall W) */
	double	 sx, sx2, sx3, sx4, sy, sxy, sx2y, sy2;
};

struct curve_fit {
	bool	 valid;
	double	 a, b, c;	/* c = 0 for the linear fit */
	double	 r2;
	double	 rms;	/* root mean square residual, W */
	double	 mean_wall;	/* mean wall power of the intervals, W */
};

void	 curve_init(struct curve *c);
/* Ignores intervals with a non-positive limit or non-finite powers. */
void	 curve_add(struct curve *c, double gpu_w, double wall_w,
	    double limit_w);
/* Adds every interval of src into dst (node curves into a class). */
void	 curve_merge(struct curve *dst, const struct curve *src);
double	 curve_bin_load_lo(int i);	/* lower load edge of bin i */
double	 curve_bin_mean_gpu(const struct curve *c, int i);	/* NAN empty */
double	 curve_bin_mean_wall(const struct curve *c, int i);
double	 curve_bin_ratio(const struct curve *c, int i);
/* Fits: degree 1 or 2.  valid false when underdetermined. */
void	 curve_fit(const struct curve *c, int degree, struct curve_fit *f);
double	 curve_eval(const struct curve_fit *f, double gpu_w);
/*
 * Largest relative ratio deviation of node from class over bins both
 * populated (>= CURVE_MIN_COUNT); NAN when no bin compares.  *flag when it
 * exceeds tol (e.g. 0.05).
 */
double	 curve_deviation(const struct curve *node, const struct curve *cls,
	    double tol, bool *flag);

#endif
