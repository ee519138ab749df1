/* advise.c - power-cap advice (see advise.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"

static bool
complete(const struct advise_window *w)
{
	return isfinite(w->limit_w) && w->limit_w > 0 && w->tokens > 0 &&
	    w->secs > 0 && isfinite(w->wall_j) && isfinite(w->fac_j);
}

static int
by_limit(const void *a, const void *b)
{
	const struct advise_window *x = *(const struct advise_window *const *)a;
	const struct advise_window *y = *(const struct advise_window *const *)b;

	return (x->limit_w > y->limit_w) - (x->limit_w < y->limit_w);
}

/* The point of windows v[0..n): sums, per-token figures, the SE. */
static void
point(struct advise_point *p, const struct advise_window *const *v, size_t n,
    double target)
{
	double lim = 0, slo_t = 0, slo_w = 0, m = 0, m2 = 0, x, d;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->n = n;
	for (i = 0; i < n; i++) {
		lim += v[i]->limit_w;
		p->secs += v[i]->secs;
		p->tokens += v[i]->tokens;
		p->wall_j += v[i]->wall_j;
		p->fac_j += v[i]->fac_j;
		if (isfinite(v[i]->slo_share)) {
			slo_t += v[i]->slo_share * v[i]->tokens;
			slo_w += v[i]->tokens;
		}
		/* Welford over the windows' own facility J/token */
		x = v[i]->fac_j / v[i]->tokens;
		d = x - m;
		m += d / (double)(i + 1);
		m2 += d * (x - m);
	}
	p->limit_w = lim / (double)n;
	p->wall_jpt = p->wall_j / p->tokens;
	p->fac_jpt = p->fac_j / p->tokens;
	p->tps = p->tokens / p->secs;
	p->fac_se = n >= 2 ? sqrt(m2 / (double)(n - 1)) / sqrt((double)n) : NAN;
	p->slo = slo_w > 0 ? slo_t / slo_w : NAN;
	p->meets = isnan(target) || (isfinite(p->slo) && p->slo >= target);
}

/* The points of r from the complete, steady windows.  0, or -1 OOM. */
static int
points(const struct advise_window *w, size_t n, double bin, double target,
    struct advise_result *r)
{
	const struct advise_window **v;
	size_t i, k = 0, start;

	if ((v = calloc(n + 1, sizeof(*v))) == NULL ||
	    (r->p = calloc(n + 1, sizeof(*r->p))) == NULL) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!w[i].steady)
			r->unsteady++;
		else if (!complete(&w[i]))
			r->incomplete++;
		else
			v[k++] = &w[i];
	}
	qsort(v, k, sizeof(*v), by_limit);
	for (start = 0, i = 1; i <= k; i++)
		if (i == k || v[i]->limit_w - v[start]->limit_w > bin) {
			point(&r->p[r->n++], &v[start], i - start, target);
			start = i;
		}
	free(v);
	return 0;
}

/* The vertex of the parabola through the best point and its neighbours,
 * when it lies between them (NAN otherwise). */
static double
vertex(const struct advise_point *a, const struct advise_point *b,
    const struct advise_point *c)
{
	double x1 = a->limit_w, x2 = b->limit_w, x3 = c->limit_w;
	double y1 = a->fac_jpt, y2 = b->fac_jpt, y3 = c->fac_jpt;
	double den = (x1 - x2) * (x1 - x3) * (x2 - x3);
	double A = (x3 * (y2 - y1) + x2 * (y1 - y3) + x1 * (y3 - y2)) / den;
	double B = (x3 * x3 * (y1 - y2) + x2 * x2 * (y3 - y1) +
	    x1 * x1 * (y2 - y3)) / den;
	double xv;

	if (!(A > 0) || !isfinite(den) || den == 0)
		return NAN;
	xv = -B / (2 * A);
	return xv >= x1 && xv <= x3 ? xv : NAN;
}

/* The used neighbour of p[i] in direction d (-1, +1), or NULL. */
static const struct advise_point *
neighbour(const struct advise_result *r, size_t i, int d)
{
	size_t j = i;

	while ((d < 0 && j > 0) || (d > 0 && j + 1 < r->n)) {
		j = d < 0 ? j - 1 : j + 1;
		if (r->p[j].used)
			return &r->p[j];
	}
	return NULL;
}

/* The best SLO-meeting used point, its range and vertex.  0, or 1 with
 * why when no point meets the SLO. */
static int
choose(struct advise_result *r, double target)
{
	const struct advise_point *b, *lo, *hi;
	double best_slo = -1, at = NAN, tol;
	size_t i;
	bool any = false;

	for (i = 0; i < r->n; i++) {
		const struct advise_point *p = &r->p[i];

		if (!p->used)
			continue;
		if (isfinite(p->slo) && p->slo > best_slo) {
			best_slo = p->slo;
			at = p->limit_w;
		}
		if (p->meets && (!any || p->fac_jpt < r->p[r->best].fac_jpt)) {
			r->best = i;
			any = true;
		}
	}
	if (!any) {
		if (best_slo < 0)
			snprintf(r->why, sizeof(r->why), "no SLO attainment is "
			    "known for any power limit (the request log covers "
			    "none of the windows)");
		else
			snprintf(r->why, sizeof(r->why), "no power limit met "
			    "the SLO (attainment %.4g needed; the best was %.4g, "
			    "at %.0f W)", target, best_slo, at);
		return 1;
	}
	b = &r->p[r->best];
	r->limit_w = b->limit_w;
	r->fac_jpt = b->fac_jpt;
	r->fac_se = b->fac_se;
	r->range_lo_w = r->range_hi_w = b->limit_w;
	for (i = 0; i < r->n; i++) {
		const struct advise_point *p = &r->p[i];
		double s1 = isfinite(b->fac_se) ? b->fac_se : 0;
		double s2 = isfinite(p->fac_se) ? p->fac_se : 0;

		if (!p->used || !p->meets)
			continue;
		tol = 2 * sqrt(s1 * s1 + s2 * s2);
		if (p->fac_jpt - b->fac_jpt <= tol) {
			if (p->limit_w < r->range_lo_w)
				r->range_lo_w = p->limit_w;
			if (p->limit_w > r->range_hi_w)
				r->range_hi_w = p->limit_w;
		}
	}
	lo = neighbour(r, r->best, -1);
	hi = neighbour(r, r->best, +1);
	r->fit_w = lo != NULL && hi != NULL ? vertex(lo, b, hi) : NAN;
	return 0;
}

int
advise_compute(const struct advise_window *w, size_t n,
    const struct advise_opts *o, struct advise_result *r)
{
	double bin = o->bin_w > 0 ? o->bin_w : 1.0;
	size_t minp = o->min_points ? o->min_points : ADVISE_MIN_POINTS;
	size_t minw = o->min_windows ? o->min_windows : ADVISE_MIN_WINDOWS;
	size_t i, used = 0;
	const struct advise_point *top = NULL;

	memset(r, 0, sizeof(*r));
	r->windows = n;
	r->fit_w = r->limit_w = r->fac_jpt = r->fac_se = NAN;
	r->range_lo_w = r->range_hi_w = r->uncapped_w = r->saving = NAN;
	if (points(w, n, bin, o->slo_target, r) == -1)
		return -1;
	for (i = 0; i < r->n; i++)
		if ((r->p[i].used = r->p[i].n >= minw)) {
			used++;
			top = &r->p[i];
		}
	if (used < minp) {
		snprintf(r->why, sizeof(r->why), "%zu power limit%s with at "
		    "least %zu windows each (of %zu windows: %zu with the limit "
		    "changing, %zu without tokens or energy; %zu limit%s seen): "
		    "at least %zu are needed for a curve", used,
		    used == 1 ? "" : "s", minw, n, r->unsteady, r->incomplete,
		    r->n, r->n == 1 ? "" : "s", minp);
		return 1;
	}
	if (choose(r, o->slo_target) != 0)
		return 1;
	r->uncapped_w = top->limit_w;
	r->saving = 1 - r->fac_jpt / top->fac_jpt;
	r->ok = true;
	return 0;
}

void
advise_result_fini(struct advise_result *r)
{
	if (r == NULL)
		return;
	free(r->p);
	r->p = NULL;
	r->n = 0;
}
