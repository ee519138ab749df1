/*
 * boundary.h - boundaries kept apart, never double counted (pure).
 *
 * GPU: one source per GPU.  In-band (dcgm-exporter, NVML) is preferred;
 * the BMC's reading of the same GPU (WP_F_CROSSCHECK) is kept only as a
 * cross-check and never added.  Wall: the BMC's node input.  Outlet: the
 * sum of the node's PDU outlets.  Facility: by default wall energy x the
 * PUE metered over the same window; second method, the metered facility
 * energy allocated by the node's share of IT energy.  Each value carries a
 * method (counter, gauge-estimated, modeled); totals carry coverage, the
 * share of nodes measured at that boundary.
 */
#ifndef WP_BOUNDARY_H
#define WP_BOUNDARY_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/err.h"

enum bnd_id { BND_GPU, BND_WALL, BND_OUTLET, BND_FACILITY, BND_N };

/* Ordered weakest last: a total takes its weakest contributor's method. */
enum bnd_method { BM_NONE = 0, BM_COUNTER, BM_GAUGE, BM_MODELED };

struct bnd_value {
	bool	 valid;
	double	 energy_j;
	int	 method;	/* enum bnd_method */
	double	 bound_j;	/* instrument bound */
	unsigned mix;		/* totals: 1 << method of each contributor */
};

/* One reading of one GPU's energy from one source. */
struct bnd_gpu_src {
	int	 gpu;		/* index on the node */
	bool	 inband;	/* false: BMC (cross-check when in-band exists) */
	bool	 valid;		/* window accepted */
	double	 energy_j;
	int	 method;
	double	 bound_j;
};

/*
 * Picks one source per GPU index (in-band if valid, else the BMC) and sums
 * them into out.  *cross_j gets the sum of the unused BMC readings for GPUs
 * that also have an in-band value (NAN if none), for comparison.  out is
 * invalid when some GPU has no valid source.  Returns the GPUs counted.
 */
size_t	 boundary_gpu(const struct bnd_gpu_src *src, size_t n,
	    struct bnd_value *out, double *cross_j);

struct bnd_total {
	double	 energy_j;
	double	 bound_j;
	int	 method;
	size_t	 measured;	/* nodes with a measured (not modeled) value */
	size_t	 counted;	/* nodes with a value, measured or modeled */
	size_t	 nodes;		/* nodes in scope */
	unsigned mix;		/* 1 << method of each node counted */
};

void	 boundary_total_init(struct bnd_total *t);
/* Adds one node's value (invalid: counted in nodes, adds nothing). */
void	 boundary_total_add(struct bnd_total *t, const struct bnd_value *v);
double	 boundary_coverage(const struct bnd_total *t);
/* Facility default: wall x PUE. */
void	 boundary_facility_pue(const struct bnd_value *wall, double pue,
	    struct bnd_value *out);
/* Facility second method: metered facility x node_it / it. 0 or -1. */
int	 boundary_facility_share(double facility_j, double it_j,
	    const struct bnd_value *node_it, struct bnd_value *out,
	    struct wp_err *err);
const char *boundary_method_name(int method);
/*
 * The method of a total: the single method of its contributors, or the
 * mix in the order counter, gauge-estimated, modeled joined by '+'
 * ("counter+modeled").  Writes into buf (>= 48 bytes) and returns it;
 * "none" when mix is 0.
 */
const char *boundary_mix_name(unsigned mix, char *buf, size_t len);
const char *bnd_name(int b);

#endif
