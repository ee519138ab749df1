/*
 * report_md.h - the report as Markdown for people: figures rounded to 4
 * significant digits, energies with units (J, kJ, MJ, GJ and kWh), the
 * boundary table with each figure's bound, the wall-to-GPU curve summary
 * per class, PUE, carbon and cost, per-node figures, the disclosure as
 * readable sections, the warnings.  JSON and CSV keep full precision;
 * this is a view of the same struct report.
 */
#ifndef WP_REPORT_MD_H
#define WP_REPORT_MD_H

#include <stddef.h>
#include <stdio.h>

#include "../../model/report.h"

/* Prints r to f.  0, or -1 (write error). */
int	 report_md_write(FILE *f, const struct report *r);
/* v to 4 significant digits, fixed notation ("-" when not finite);
 * returns buf. */
const char *report_md_sig(double v, char *buf, size_t len);
/* An energy in J with a unit: "12.02 MJ (3.338 kWh)"; returns buf. */
const char *report_md_energy(double j, char *buf, size_t len);

#endif
