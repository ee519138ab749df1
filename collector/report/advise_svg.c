/* advise_svg.c - the power-cap curve as SVG (see advise_svg.h). */
#include <math.h>
#include <stdio.h>

#include "advise_svg.h"

#define W	720.0
#define H	420.0
#define X0	70.0
#define X1	(W - 70.0)
#define Y0	(H - 50.0)
#define Y1	30.0

struct axes {
	double	 xlo, xhi, ylo, yhi, thi;
};

static double
sx(const struct axes *a, double x)
{
	return X0 + (X1 - X0) * (x - a->xlo) / (a->xhi - a->xlo);
}

static double
sy(const struct axes *a, double y)
{
	return Y0 - (Y0 - Y1) * (y - a->ylo) / (a->yhi - a->ylo);
}

static double
st(const struct axes *a, double t)
{
	return Y0 - (Y0 - Y1) * t / a->thi;
}

static void
bounds(const struct advise_result *r, struct axes *a)
{
	size_t i;

	a->xlo = a->ylo = INFINITY;
	a->xhi = a->yhi = a->thi = -INFINITY;
	for (i = 0; i < r->n; i++) {
		const struct advise_point *p = &r->p[i];
		double se = isfinite(p->fac_se) ? 2 * p->fac_se : 0;

		a->xlo = fmin(a->xlo, p->limit_w);
		a->xhi = fmax(a->xhi, p->limit_w);
		a->ylo = fmin(a->ylo, fmin(p->wall_jpt, p->fac_jpt - se));
		a->yhi = fmax(a->yhi, fmax(p->wall_jpt, p->fac_jpt + se));
		a->thi = fmax(a->thi, p->tps);
	}
	if (r->n == 0 || !(a->xhi > a->xlo)) {
		a->xlo = r->n ? a->xlo - 50 : 0;
		a->xhi = r->n ? a->xhi + 50 : 1;
	}
	if (r->n == 0 || !(a->yhi > a->ylo)) {
		a->ylo = 0;
		a->yhi = r->n ? a->yhi * 2 + 1 : 1;
	}
	a->ylo -= 0.05 * (a->yhi - a->ylo);
	a->yhi += 0.05 * (a->yhi - a->ylo);
	if (!(a->thi > 0))
		a->thi = 1;
	a->thi *= 1.1;
}

/* One series as a polyline with its points. */
static void
series(FILE *f, const struct advise_result *r, const struct axes *a, int fac)
{
	const char *col = fac ? "firebrick" : "steelblue";
	size_t i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
	    "points=\"", col);
	for (i = 0; i < r->n; i++)
		fprintf(f, "%.1f,%.1f ", sx(a, r->p[i].limit_w), sy(a, fac ?
		    r->p[i].fac_jpt : r->p[i].wall_jpt));
	fprintf(f, "\"/>\n");
	for (i = 0; i < r->n; i++) {
		const struct advise_point *p = &r->p[i];
		double y = fac ? p->fac_jpt : p->wall_jpt;

		if (fac && isfinite(p->fac_se))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/>\n", sx(a, p->limit_w),
			    sy(a, y - 2 * p->fac_se), sx(a, p->limit_w),
			    sy(a, y + 2 * p->fac_se), col);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
		    "stroke=\"%s\"><title>%.0f W: %s %.5g J/token, %zu windows, "
		    "%.4g tokens/s%s</title></circle>\n", sx(a, p->limit_w),
		    sy(a, y), p->meets ? col : "white", col, p->limit_w,
		    fac ? "facility" : "wall", y, p->n, p->tps,
		    p->meets ? "" : ", misses the SLO");
	}
}

static void
throughput(FILE *f, const struct advise_result *r, const struct axes *a)
{
	size_t i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"gray\" "
	    "stroke-dasharray=\"5,4\" points=\"");
	for (i = 0; i < r->n; i++)
		fprintf(f, "%.1f,%.1f ", sx(a, r->p[i].limit_w),
		    st(a, r->p[i].tps));
	fprintf(f, "\"/>\n");
}

static void
frame(FILE *f, const struct axes *a, const char *cls)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>power-cap curve"
	    ": class %s</title>\n<rect width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"white\"/>\n", W, H, W, H, cls, W, H);
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
	    "stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
	    "y2=\"%.0f\" stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" "
	    "x2=\"%.0f\" y2=\"%.0f\" stroke=\"gray\"/>\n", X0, Y0, X1, Y0, X0,
	    Y0, X0, Y1, X1, Y0, X1, Y1);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">GPU power limit (W): %.0f .. "
	    "%.0f</text>\n<text x=\"5\" y=\"18\">J/output token: wall (blue), "
	    "facility (red, +-2 SE); %.4g .. %.4g</text>\n<text x=\"%.0f\" "
	    "y=\"18\" fill=\"gray\">tokens/s (dashed), max %.4g</text>\n",
	    X0 + 160, H - 15, a->xlo, a->xhi, a->ylo, a->yhi, X1 - 150,
	    a->thi / 1.1);
}

int
advise_svg_write(FILE *f, const struct advise_result *r, const char *cls)
{
	struct axes a;

	bounds(r, &a);
	frame(f, &a, cls);
	if (r->ok)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
		    "height=\"%.0f\" fill=\"gold\" opacity=\"0.3\"><title>"
		    "range %.0f .. %.0f W</title></rect>\n<line x1=\"%.1f\" "
		    "y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"darkgreen\" "
		    "stroke-width=\"2\"><title>advised %.0f W</title></line>\n"
		    "<text x=\"%.1f\" y=\"%.0f\" fill=\"darkgreen\">advised %.0f "
		    "W</text>\n", sx(&a, r->range_lo_w) - 3, Y1, sx(&a,
		    r->range_hi_w) - sx(&a, r->range_lo_w) + 6, Y0 - Y1,
		    r->range_lo_w, r->range_hi_w, sx(&a, r->limit_w), Y1,
		    sx(&a, r->limit_w), Y0, r->limit_w, sx(&a, r->limit_w) + 4,
		    Y1 + 14, r->limit_w);
	throughput(f, r, &a);
	series(f, r, &a, 0);
	series(f, r, &a, 1);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
