/*
 * report_csv.h - the report as CSV: the key/value rows of `--format csv`
 * (the report or curve document, docs/report.md, one "path,value" row per
 * leaf, full precision; array elements that are objects with a name by
 * that name, like nodes.<name>.wall...) and the sustainability CSV of
 * `--carbon-csv` (one row per scope, name, boundary and method; the header
 * alone without carbon).
 */
#ifndef WP_REPORT_CSV_H
#define WP_REPORT_CSV_H

#include <stdio.h>

#include "../../model/report.h"

/* 0, or -1 (out of memory, write error). */
int	 report_csv_write(FILE *f, const struct report *r);
int	 report_curve_csv_write(FILE *f, const struct report_curve_doc *d);
int	 report_carbon_csv_write(FILE *f, const struct report *r);

#endif
