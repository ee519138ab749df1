/*
 * dashboard_svg.h - inline SVG charts for the dashboard: lines over time,
 * bars, a scatter.  Each chart is a fixed-size <svg> with a title, axes
 * with round ticks in human units (SVG_U_*: clock times in UTC, W / kW /
 * MW, plain decimals; never exponent notation), and its data drawn as <path class="data"> or
 * <circle class="data">; NAN values leave gaps.  No scripts.
 */
#ifndef WP_DASHBOARD_SVG_H
#define WP_DASHBOARD_SVG_H

#include <stddef.h>
#include <stdio.h>

enum { SVG_U_NUM, SVG_U_WATTS, SVG_U_TIME };	/* TIME: epoch seconds */

/* v as an axis label of unit into buf ("88.3 kW", "14:05"); span: the
 * axis's range (picks the clock format). */
void	 svg_fmt(char *buf, size_t len, double v, int unit, double span);

/* nser series of n points: series k at y[k * stride + i], x at x[i]. */
void	 svg_lines(FILE *f, const char *title, const double *x, size_t n,
	    const double *y, size_t stride, int nser, const char *const *names,
	    const char *const *colours, int xunit, int yunit);
void	 svg_bars(FILE *f, const char *title, const double *v,
	    const char *const *names, const char *const *colours, int n,
	    int unit);
/* n points (x, y), and hn highlighted ones (hx NULL: none). */
void	 svg_scatter(FILE *f, const char *title, const double *x,
	    const double *y, size_t n, const double *hx, const double *hy,
	    size_t hn);
/* The same with the axes' units (svg_scatter: watts both). */
void	 svg_scatter_u(FILE *f, const char *title, const double *x,
	    const double *y, size_t n, const double *hx, const double *hy,
	    size_t hn, int xunit, int yunit);

#endif
