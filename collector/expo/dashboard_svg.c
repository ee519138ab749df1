/* dashboard_svg.c - small inline SVG charts. */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

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
	int	 unit;		/* SVG_U_* */
};

#define TICKS	5

/* A round step of about span / TICKS: 1, 2 or 5 times a power of ten. */
static double
nice_step(double span)
{
	double raw = span / TICKS, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void
svg_fmt(char *buf, size_t len, double v, int unit, double span)
{
	static const char *const pw[] = { "W", "kW", "MW", "GW" };
	double a = fabs(v);
	int k = 0;
	time_t t;
	struct tm tm;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (unit == SVG_U_TIME) {
		t = (time_t)llround(v);
		gmtime_r(&t, &tm);
		strftime(buf, len, span > 2 * 86400 ? "%b %d %H:%M" : span > 600 ?
		    "%H:%M" : "%H:%M:%S", &tm);
		return;
	}
	if (unit == SVG_U_WATTS) {
		while (a >= 1000 && k < 3) {
			a /= 1000;
			v /= 1000;
			k++;
		}
		snprintf(buf, len, "%.*f %s", a == 0 || a >= 100 ? 0 : a >= 10 ?
		    1 : 2, v, pw[k]);
		return;
	}
	k = a == 0 ? 0 : 2 - (int)floor(log10(a));	/* 3 digits */
	snprintf(buf, len, "%.*f", k < 0 ? 0 : k > 9 ? 9 : k, v);
}

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
		bool nonneg = a->lo >= 0;

		a->hi += fmax(1e-3, fabs(a->hi) * 0.05);
		a->lo -= fmax(1e-3, fabs(a->lo) * 0.05);
		if (zero && nonneg)	/* a flat zero: no axis below it */
			a->lo = 0;
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

/* "1.50 kW" -> "1.5 kW", "2.00" -> "2": a tick's round value. */
static void
trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end, *cut;

	if (dot == NULL || strchr(s, ':') != NULL)
		return;
	for (end = dot + 1; *end >= '0' && *end <= '9'; end++)
		;
	for (cut = end; cut > dot + 1 && cut[-1] == '0'; cut--)
		;
	if (cut == dot + 1)
		cut = dot;
	memmove(cut, end, strlen(end) + 1);
}

/* Tick labels of a along x (horiz) or y. */
static void
ticks(FILE *f, const struct axis *a, bool horiz)
{
	double step = nice_step(a->hi - a->lo), v;
	char buf[40];

	if (a->unit == SVG_U_TIME) {	/* round clock times */
		static const double st[] = { 1, 5, 10, 30, 60, 300, 600, 1800,
		    3600, 7200, 21600, 43200, 86400, 172800, 604800 };
		size_t i;

		for (i = 0; i < sizeof(st) / sizeof(st[0]) - 1 &&
		    (a->hi - a->lo) / st[i] > TICKS; i++)
			;
		step = st[i];
	}
	for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9;
	    v += step) {
		svg_fmt(buf, sizeof(buf), fabs(v) < step * 1e-9 ? 0 : v,
		    a->unit, a->hi - a->lo);
		trim_zeros(buf);
		if (horiz)
			fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
			    "font-size=\"11\" text-anchor=\"middle\">%s</text>",
			    px(a, v), H - MB + 16, buf);
		else
			fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
			    "font-size=\"11\" text-anchor=\"end\">%s</text>",
			    ML - 4, py(a, v) + 4, buf);
	}
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
		ticks(f, ay, false);
	if (ax != NULL)
		ticks(f, ax, true);
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
    const char *const *colours, int xunit, int yunit)
{
	struct axis ax, ay;
	size_t i, drawn = 0;
	bool pen;
	int k;

	axis_fit(&ax, x, n, 0, 1, false);
	axis_fit(&ay, y, n, stride, nser, true);
	ax.unit = xunit;
	ay.unit = yunit;
	frame(f, title, &ax, &ay);
	/* the last series first: the first (the wall) on top where equal */
	for (k = nser - 1; k >= 0; k--) {
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
    const char *const *names, const char *const *colours, int n, int unit)
{
	struct axis ay;
	double bw = (double)(W - ML - MR) / (n > 0 ? n : 1);
	int k, drawn = 0;

	axis_fit(&ay, v, (size_t)n, 0, 1, true);
	ay.unit = unit;
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
	return svg_scatter_u(f, title, x, y, n, hx, hy, hn, SVG_U_WATTS,
	    SVG_U_WATTS);
}

void
svg_scatter_u(FILE *f, const char *title, const double *x, const double *y,
    size_t n, const double *hx, const double *hy, size_t hn, int xunit,
    int yunit)
{
	struct axis ax, ay;
	size_t i;

	axis_fit(&ax, x, n, 0, 1, true);
	axis_fit(&ay, y, n, 0, 1, true);
	ax.unit = xunit;
	ay.unit = yunit;
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
