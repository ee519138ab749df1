/*
 * report_svg.h - a wall-to-GPU curve as an SVG plot (`wattpath curve
 * --format svg`): one point per populated load bin, mean GPU power
 * against mean wall power, each with its load range, count and ratio.
 */
#ifndef WP_REPORT_SVG_H
#define WP_REPORT_SVG_H

#include <stdio.h>

#include "../../model/report.h"

/* Plots d's class curve, titled with its scope.  0, or -1 (write error). */
int	 report_curve_svg_write(FILE *f, const struct report_curve_doc *d);

#endif
