/*
 * expo_metrics.h - the Prometheus text exposition (format 0.0.4) of a
 * fleet snapshot.  Every family has HELP and TYPE lines; label values are
 * escaped (backslash, double quote, newline); values are plain decimals,
 * never exponent notation; a figure that is unknown (or not finite) is
 * left out rather than printed as NaN.  Names and labels:
 * docs/exposition.md.
 */
#ifndef WP_EXPO_METRICS_H
#define WP_EXPO_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "expo_fleet.h"

struct expo_out;

/* Writes every metric family; pue is NAN when unknown. 0, or -1 on a
 * write error (or out of memory). */
int	 expo_metrics_write(FILE *f, const struct fleet *fl, double pue);
/* The same into a writer (expo_out.h), e.g. one into memory. */
int	 expo_metrics_out(struct expo_out *o, const struct fleet *fl,
	    double pue);
/* Writes s as a label value, escaped. */
void	 expo_label_escape(FILE *f, const char *s);
/* Formats v as a plain decimal ("12345.6", "0.000123", "-3"): no exponent,
 * trailing zeros trimmed, up to 6 decimals (more for small values). */
void	 expo_fmt_value(char *buf, size_t len, double v);

#endif
