/*
 * advise_svg.h - the power-cap curve of `wattpath advise --plot FILE.svg`:
 * J/token at the wall and the facility against the GPU power limit (with
 * the facility figure's +-2 SE), throughput on the right axis, points that
 * miss the SLO hollow, the advised limit and its range marked.
 */
#ifndef WP_ADVISE_SVG_H
#define WP_ADVISE_SVG_H

#include <stdio.h>

#include "../../model/advise.h"

/* 0, or -1 (a write error). */
int	 advise_svg_write(FILE *f, const struct advise_result *r,
	    const char *cls);

#endif
