/* curve.c - binned wall-to-GPU curves and least-squares fits. */
#include <math.h>
#include <string.h>

#include "curve.h"

void
curve_init(struct curve *c)
{
	memset(c, 0, sizeof(*c));
}

void
curve_add(struct curve *c, double gpu_w, double wall_w, double limit_w)
{
	double load, x = gpu_w, y = wall_w;
	int i;

	if (!(limit_w > 0) || !isfinite(gpu_w) || !isfinite(wall_w) ||
	    gpu_w < 0 || wall_w < 0)
		return;
	load = gpu_w / limit_w;
	i = (int)(load * CURVE_BINS);
	if (i < 0)
		i = 0;
	if (i >= CURVE_BINS)
		i = CURVE_BINS - 1;
	c->bin[i].count++;
	c->bin[i].gpu_sum += gpu_w;
	c->bin[i].wall_sum += wall_w;
	c->n++;
	c->sx += x;
	c->sx2 += x * x;
	c->sx3 += x * x * x;
	c->sx4 += x * x * x * x;
	c->sy += y;
	c->sxy += x * y;
	c->sx2y += x * x * y;
	c->sy2 += y * y;
}

void
curve_merge(struct curve *dst, const struct curve *src)
{
	int i;

	for (i = 0; i < CURVE_BINS; i++) {
		dst->bin[i].count += src->bin[i].count;
		dst->bin[i].gpu_sum += src->bin[i].gpu_sum;
		dst->bin[i].wall_sum += src->bin[i].wall_sum;
	}
	dst->n += src->n;
	dst->sx += src->sx;
	dst->sx2 += src->sx2;
	dst->sx3 += src->sx3;
	dst->sx4 += src->sx4;
	dst->sy += src->sy;
	dst->sxy += src->sxy;
	dst->sx2y += src->sx2y;
	dst->sy2 += src->sy2;
}

double
curve_bin_load_lo(int i)
{
	return (double)i / CURVE_BINS;
}

double
curve_bin_mean_gpu(const struct curve *c, int i)
{
	return c->bin[i].count ? c->bin[i].gpu_sum / (double)c->bin[i].count :
	    NAN;
}

double
curve_bin_mean_wall(const struct curve *c, int i)
{
	return c->bin[i].count ? c->bin[i].wall_sum / (double)c->bin[i].count :
	    NAN;
}

double
curve_bin_ratio(const struct curve *c, int i)
{
	return c->bin[i].gpu_sum > 0 ? c->bin[i].wall_sum / c->bin[i].gpu_sum :
	    NAN;
}

static double
det3(const double m[3][3])
{
	return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
	    m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
	    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* Solves the 3x3 normal equations by Cramer's rule. */
static bool
solve3(const double m[3][3], const double r[3], double out[3])
{
	double d = det3(m), t[3][3];
	int k, i;

	if (!(fabs(d) > 1e-12 * fabs(m[0][0] * m[1][1] * m[2][2])) ||
	    !isfinite(d))
		return false;
	for (k = 0; k < 3; k++) {
		memcpy(t, m, sizeof(t));
		for (i = 0; i < 3; i++)
			t[i][k] = r[i];
		out[k] = det3(t) / d;
	}
	return true;
}

void
curve_fit(const struct curve *c, int degree, struct curve_fit *f)
{
	double n = (double)c->n, sst, sse;

	memset(f, 0, sizeof(*f));
	if (c->n < (size_t)(degree + 2))
		return;
	if (degree == 1) {
		double d = n * c->sx2 - c->sx * c->sx;

		if (!(fabs(d) > 1e-12 * n * c->sx2))
			return;
		f->b = (n * c->sxy - c->sx * c->sy) / d;
		f->a = (c->sy - f->b * c->sx) / n;
		sse = c->sy2 - f->a * c->sy - f->b * c->sxy;
	} else {
		double m[3][3] = { { n, c->sx, c->sx2 },
		    { c->sx, c->sx2, c->sx3 }, { c->sx2, c->sx3, c->sx4 } };
		double r[3] = { c->sy, c->sxy, c->sx2y }, o[3];

		if (!solve3(m, r, o))
			return;
		f->a = o[0];
		f->b = o[1];
		f->c = o[2];
		sse = c->sy2 - f->a * c->sy - f->b * c->sxy - f->c * c->sx2y;
	}
	sst = c->sy2 - c->sy * c->sy / n;
	if (sse < 0)
		sse = 0;
	f->r2 = sst > 0 ? 1 - sse / sst : 1;
	f->rms = sqrt(sse / n);
	f->mean_wall = c->sy / n;
	f->valid = true;
}

double
curve_eval(const struct curve_fit *f, double gpu_w)
{
	return f->a + f->b * gpu_w + f->c * gpu_w * gpu_w;
}

double
curve_deviation(const struct curve *node, const struct curve *cls, double tol,
    bool *flag)
{
	double worst = NAN;
	int i;

	for (i = 0; i < CURVE_BINS; i++) {
		double rn, rc, d;

		if (node->bin[i].count < CURVE_MIN_COUNT ||
		    cls->bin[i].count < CURVE_MIN_COUNT)
			continue;
		rn = curve_bin_ratio(node, i);
		rc = curve_bin_ratio(cls, i);
		if (!(rc > 0) || !isfinite(rn))
			continue;
		d = fabs(rn / rc - 1);
		if (isnan(worst) || d > worst)
			worst = d;
	}
	if (flag != NULL)
		*flag = !isnan(worst) && worst > tol;
	return worst;
}
