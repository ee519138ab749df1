/*
 * dashboard_svg.h - inline SVG charts for the dashboard: lines over time,
 * bars, a scatter.  Each chart is a fixed-size <svg> with a title, axes
 * with min/max labels, and its data drawn as <path class="data"> or
 * <circle class="data">; NAN values leave gaps.  No scripts.
 */
#ifndef WP_DASHBOARD_SVG_H
#define WP_DASHBOARD_SVG_H

#include <stddef.h>
#include <stdio.h>

/* nser series of n points: series k at y[k * stride + i], x at x[i]. */
void	 svg_lines(FILE *f, const char *title, const double *x, size_t n,
	    const double *y, size_t stride, int nser, const char *const *names,
	    const char *const *colours);
void	 svg_bars(FILE *f, const char *title, const double *v,
	    const char *const *names, const char *const *colours, int n);
/* n points (x, y), and hn highlighted ones (hx NULL: none). */
void	 svg_scatter(FILE *f, const char *title, const double *x,
	    const double *y, size_t n, const double *hx, const double *hy,
	    size_t hn);

#endif
