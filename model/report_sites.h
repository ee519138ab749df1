/*
 * report_sites.h - one report over several sites (`wattpath report -c
 * A.yaml -c B.yaml`): each site's report computed on its own (its
 * inventory, meters, PUE, data dirs), then a fleet total that never
 * mixes the sites' PUEs.  Per boundary the fleet energy is the sum of the
 * sites' figures (the facility boundary: each site's own facility
 * energy, its wall x its PUE or its metered allocation, summed; never the
 * fleet's wall x one PUE), with the sites' bounds added; given only when
 * every site has the figure, else left out with a warning naming the
 * sites without it.  The fleet PUE is the sum of the sites' metered
 * facility energies over the sum of their metered IT energies, only when
 * every site's PUE is metered (a declared PUE has no energies to add).
 * Pure computation: the reports are borrowed.
 */
#ifndef WP_REPORT_SITES_H
#define WP_REPORT_SITES_H

#include <stddef.h>

#include "boundary.h"
#include "report.h"

/* One site: its name (site.name) and its report, both borrowed. */
struct report_site_row {
	const char	*name;
	const struct report *r;
};

/* A fleet figure at one boundary. */
struct report_sites_bnd {
	bool	 valid;		/* every site has the figure */
	double	 energy_j, bound_j;
	double	 j_per_output_token;	/* NAN unknown */
	size_t	 sites;		/* sites with the figure */
};

struct report_sites {
	const struct report_site_row *rows;	/* borrowed */
	size_t	 n;
	struct report_sites_bnd b[BND_N];
	double	 out;			/* output tokens, -1 unknown */
	double	 pue, facility_j, it_j;	/* metered at every site, else NAN */
	struct report_warnings w;
};

/* s from n >= 1 sites' reports over the same window.  0, or -1 out of
 * memory; release with report_sites_fini either way. */
int	 report_sites_sum(struct report_sites *s,
	    const struct report_site_row *rows, size_t n);
void	 report_sites_fini(struct report_sites *s);

#endif
