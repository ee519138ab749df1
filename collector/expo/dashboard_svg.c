/* dashboard_svg.c - small inline SVG charts. */
#include <math.h>
#include <stdbool.h>

#include "dashboard_svg.h"
#include "html.h"

#define W	560
#define H	260
#define ML	70		/* left margin: y labels */
#define MR	20
#define MT	28
#define MB	36

struct axis {
	double	 lo, hi;
};

static void
axis_fit(struct axis *a, const double *v, size_t n, size_t stride, int nser,
    bool zero)
{
	size_t i;
	int k;

	a->lo = INFINITY;
	a->hi = -INFINITY;
	for (k = 0; k < nser; k++)
		for (i = 0; i < n; i++) {
			double x = v[(size_t)k * stride + i];

			if (!isfinite(x))
				continue;
			a->lo = fmin(a->lo, x);
			a->hi = fmax(a->hi, x);
		}
	if (!isfinite(a->lo)) {
		a->lo = 0;
		a->hi = 1;
	}
	if (zero && a->lo > 0)
		a->lo = 0;
	if (a->hi - a->lo < 1e-9 * fmax(1, fabs(a->hi))) {
		a->hi += fmax(1e-3, fabs(a->hi) * 0.05);
		a->lo -= fmax(1e-3, fabs(a->lo) * 0.05);
	}
}

static double
px(const struct axis *a, double v)
{
	return ML + (W - ML - MR) * (v - a->lo) / (a->hi - a->lo);
}

static double
py(const struct axis *a, double v)
{
	return H - MB - (H - MT - MB) * (v - a->lo) / (a->hi - a->lo);
}

static void
frame(FILE *f, const char *title, const struct axis *ax,
    const struct axis *ay)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>", W, H, W,
	    H);
	html_escape(f, title);
	fprintf(f, "</title><text x=\"%d\" y=\"18\" font-size=\"13\">", ML);
	html_escape(f, title);
	fprintf(f, "</text><path d=\"M%d %d V%d H%d\" stroke=\"#444\" "
	    "fill=\"none\"/>", ML, MT, H - MB, W - MR);
	if (ay != NULL)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
		    "text-anchor=\"end\">%.4g</text><text x=\"%d\" y=\"%d\" "
		    "font-size=\"11\" text-anchor=\"end\">%.4g</text>", ML - 4,
		    MT + 4, ay->hi, ML - 4, H - MB, ay->lo);
	if (ax != NULL)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.4g</text>"
		    "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">"
		    "%.4g</text>", ML, H - MB + 16, ax->lo, W - MR, H - MB + 16,
		    ax->hi);
}

static void
empty(FILE *f)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#888\">no data yet</text>",
	    ML + 20, H / 2);
}

void
svg_lines(FILE *f, const char *title, const double *x, size_t n,
    const double *y, size_t stride, int nser, const char *const *names,
    const char *const *colours)
{
	struct axis ax, ay;
	size_t i, drawn = 0;
	bool pen;
	int k;

	axis_fit(&ax, x, n, 0, 1, false);
	axis_fit(&ay, y, n, stride, nser, true);
	frame(f, title, &ax, &ay);
	for (k = 0; k < nser; k++) {
		fprintf(f, "<path class=\"data\" fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" d=\"", colours[k]);
		for (i = 0, pen = false; i < n; i++) {
			double v = y[(size_t)k * stride + i];

			if (!isfinite(v)) {
				pen = false;
				continue;
			}
			fprintf(f, "%s%.1f %.1f ", pen ? "L" : "M", px(&ax, x[i]),
			    py(&ay, v));
			pen = true;
			drawn++;
		}
		fprintf(f, "\"/><text x=\"%d\" y=\"%d\" font-size=\"11\" "
		    "fill=\"%s\">", W - MR - 70 * (nser - k), MT - 12 + 12,
		    colours[k]);
		html_escape(f, names[k]);
		fputs("</text>", f);
	}
	if (drawn == 0)
		empty(f);
	fputs("</svg>\n", f);
}

void
svg_bars(FILE *f, const char *title, const double *v,
    const char *const *names, const char *const *colours, int n)
{
	struct axis ay;
	double bw = (double)(W - ML - MR) / (n > 0 ? n : 1);
	int k, drawn = 0;

	axis_fit(&ay, v, (size_t)n, 0, 1, true);
	frame(f, title, NULL, &ay);
	for (k = 0; k < n; k++) {
		double x = ML + bw * k + bw * 0.2;

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">", x,
		    H - MB + 16);
		html_escape(f, names[k]);
		fputs("</text>", f);
		if (!isfinite(v[k]))
			continue;
		fprintf(f, "<path class=\"data\" fill=\"%s\" d=\"M%.1f %.1f "
		    "H%.1f V%.1f H%.1f Z\"><title>%.6g</title></path>",
		    colours[k], x, py(&ay, ay.lo), x + bw * 0.6, py(&ay, v[k]), x,
		    v[k]);
		drawn++;
	}
	if (drawn == 0)
		empty(f);
	fputs("</svg>\n", f);
}

void
svg_scatter(FILE *f, const char *title, const double *x, const double *y,
    size_t n, const double *hx, const double *hy, size_t hn)
{
	struct axis ax, ay;
	size_t i;

	axis_fit(&ax, x, n, 0, 1, true);
	axis_fit(&ay, y, n, 0, 1, true);
	frame(f, title, &ax, &ay);
	for (i = 0; i < n; i++)
		fprintf(f, "<circle class=\"data\" cx=\"%.1f\" cy=\"%.1f\" "
		    "r=\"2.5\" fill=\"#1f77b4\" fill-opacity=\"0.5\"/>",
		    px(&ax, x[i]), py(&ay, y[i]));
	for (i = 0; hx != NULL && i < hn; i++)
		fprintf(f, "<circle class=\"data sel\" cx=\"%.1f\" cy=\"%.1f\" "
		    "r=\"4\" fill=\"#d62728\"/>", px(&ax, hx[i]), py(&ay, hy[i]));
	if (n == 0)
		empty(f);
	fputs("</svg>\n", f);
}
