/* stats.c - run-to-run statistics and instrument bounds. */
#include <math.h>
#include <string.h>

#include "stats.h"

/* t(0.975, df) for df = 1..30. */
static const double t95[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
	2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
	2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
	2.042
};

/* Beyond 30, interpolate in 1/df between tabulated points. */
static const struct { int df; double t; } t95_tail[] = {
	{ 30, 2.042 }, { 40, 2.021 }, { 60, 2.000 }, { 120, 1.980 },
	{ 0, 1.960 }	/* infinity */
};

double
stats_t95(int df)
{
	size_t i;

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t95[df - 1];
	for (i = 0; t95_tail[i + 1].df != 0; i++)
		if (df <= t95_tail[i + 1].df)
			break;
	{
		double x0 = 1.0 / t95_tail[i].df, x = 1.0 / df;
		double x1 = t95_tail[i + 1].df ? 1.0 / t95_tail[i + 1].df : 0;

		return t95_tail[i].t + (t95_tail[i + 1].t - t95_tail[i].t) *
		    (x0 - x) / (x0 - x1);
	}
}

int
stats_runs(const double *x, size_t n, struct runstats *out,
    struct wp_err *err)
{
	double sum = 0, ss = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n < 2)
		return err_set(err, WP_E_CONFIG, "run-to-run statistics need "
		    "at least 2 runs, got %zu", n);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return err_set(err, WP_E_PROTOCOL, "run %zu has no "
			    "usable value", i + 1);
		sum += x[i];
	}
	out->n = n;
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->sd = sqrt(ss / (double)(n - 1));
	out->t = stats_t95((int)n - 1);
	out->half95 = out->t * out->sd / sqrt((double)n);
	return 0;
}

double
stats_instrument_bound(double energy, double res_bound, double edge_bound,
    double accuracy_rel)
{
	return fabs(res_bound) + fabs(edge_bound) +
	    fabs(accuracy_rel) * fabs(energy);
}
