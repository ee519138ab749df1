/* report_svg.c - a wall-to-GPU curve as SVG (see report_svg.h). */
#include <math.h>
#include <stdio.h>

#include "report_svg.h"

int
report_curve_svg_write(FILE *f, const struct report_curve_doc *d)
{
	const struct curve *c = &d->cls.c;
	double maxg = 1, maxw = 1;
	int i;

	for (i = 0; i < CURVE_BINS; i++)
		if (c->bin[i].count) {
			maxg = fmax(maxg, curve_bin_mean_gpu(c, i));
			maxw = fmax(maxw, curve_bin_mean_wall(c, i));
		}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
	    "height=\"400\" viewBox=\"0 0 640 400\">\n<title>wall vs GPU power"
	    ": %s</title>\n<rect width=\"640\" height=\"400\" fill=\"white\"/>\n"
	    "<line x1=\"60\" y1=\"360\" x2=\"620\" y2=\"360\" stroke=\"black\"/>"
	    "\n<line x1=\"60\" y1=\"360\" x2=\"60\" y2=\"20\" stroke=\"black\"/>"
	    "\n<text x=\"300\" y=\"390\">GPU power (W), max %.0f</text>\n"
	    "<text x=\"5\" y=\"15\">wall power (W), max %.0f</text>\n", d->scope,
	    maxg, maxw);
	for (i = 0; i < CURVE_BINS; i++)
		if (c->bin[i].count)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			    "fill=\"steelblue\"><title>load %.1f-%.1f: %zu "
			    "intervals, ratio %.3f</title></circle>\n",
			    60 + 560 * curve_bin_mean_gpu(c, i) / maxg,
			    360 - 340 * curve_bin_mean_wall(c, i) / maxw,
			    curve_bin_load_lo(i), curve_bin_load_lo(i + 1),
			    c->bin[i].count, curve_bin_ratio(c, i));
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
