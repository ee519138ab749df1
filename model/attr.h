/*
 * attr.h - one node's energy split over what ran on it (pure).
 *
 * A node's figure at each boundary (GPU, wall, outlet, facility) is split
 * over parts (the models served on the node) and `unallocated`:
 *  - GPU boundary: each GPU's energy goes whole to the part that held the
 *    GPU (owner), a GPU held by none to unallocated;
 *  - any outer boundary b: its overhead over the GPU figure (b minus GPU)
 *    is split in proportion to GPU energy (ATTR_PROPORTIONAL, default;
 *    unallocated takes the share of its idle GPUs' energy), or evenly per
 *    allocated GPU (ATTR_PER_GPU; unallocated takes none unless no GPU is
 *    allocated).  Proportional with no GPU energy falls back to per GPU.
 *  - a node without a GPU figure: each boundary's whole figure is split
 *    evenly per allocated GPU (ATTR_WHOLE_PER_GPU), all to unallocated when
 *    no GPU is allocated.
 * The parts and unallocated add up to the node's figure at every boundary
 * (to floating-point rounding); a boundary without a node figure gets no
 * split (ok false).
 */
#ifndef WP_ATTR_H
#define WP_ATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "boundary.h"

enum attr_rule { ATTR_PROPORTIONAL, ATTR_PER_GPU, ATTR_WHOLE_PER_GPU };

struct attr_in {
	size_t	 n_gpus;
	const double *gpu_j;		/* n_gpus: each GPU's energy */
	const int *owner;		/* n_gpus: part index, -1 unallocated */
	size_t	 n_parts;
	const struct bnd_value *tot;	/* BND_N: the node's figures */
	int	 rule;			/* ATTR_PROPORTIONAL or ATTR_PER_GPU */
	/* n_gpus: each entry's share of one device, for the per-GPU rules
	 * (a GPU split over holders is one entry per holder, weights adding
	 * up to 1); NULL: 1 each */
	const double *weight;
};

struct attr_out {
	bool	 ok[BND_N];		/* the node has a figure at b */
	int	 rule[BND_N];		/* the rule applied at b */
	double	 unalloc_j[BND_N];
};

/*
 * Splits in's figures: part_j (n_parts x BND_N, part p's boundary b at
 * [p * BND_N + b]) and out.  Owners out of range count as unallocated.
 */
void	 attr_split(const struct attr_in *in, double *part_j,
	    struct attr_out *out);
/*
 * Who held one GPU over a window, from its readings: the holder each
 * reading names (dcgm's `namespace` label, "" none) and the energy of the
 * intervals between readings, clipped to the window [from, to] (linear
 * within an interval, as the report's integrator takes a counter).  An
 * interval whose two readings name the same holder is its; one whose
 * readings differ (the pod moved at an unknown time within it) is split
 * half and half.  Past ATTR_MAX_HOLDS holders the rest goes to "".
 */
#define ATTR_MAX_HOLDS	4
#define ATTR_HOLD_NAME	64
struct attr_hold {
	char	 ns[ATTR_HOLD_NAME];
	double	 j;
};

struct attr_holds {
	struct attr_hold v[ATTR_MAX_HOLDS + 1];	/* the last: "" overflow */
	size_t	 n;
	bool	 prev;		/* the previous reading: */
	long long t;		/* wp_time */
	double	 cum;
	char	 ns[ATTR_HOLD_NAME];
};

/* One reading at t (wp_time) of cumulative energy cum (J) naming holder
 * ns, for the window [from, to]. */
void	 attr_holds_add(struct attr_holds *h, long long from, long long to,
	    long long t, double cum, const char *ns);
/* The holders' shares of the energy held: share[i] for h->v[i] (h->n
 * entries); returns the energy held (0: no interval in the window). */
double	 attr_holds_shares(const struct attr_holds *h, double *share);

/*
 * MIG: a GPU instance's compute slices from its profile name ("3g.40gb",
 * "1g.10gb+me", "7g.80gb": N), -1 for a name that is not a profile (no
 * leading Ng, or N outside 1..8); and the compute slices of a whole GPU by
 * its model name: 4 for an A30, else 7 (A100, H100, H200, B200).  An
 * instance's share of the GPU is N over the larger of that and the sum of
 * its instances' N; the slices no instance holds are unallocated.
 */
int	 attr_mig_slices(const char *profile);
int	 attr_mig_total(const char *gpu_model);

/* "proportional", "per_gpu", "whole_per_gpu". */
const char *attr_rule_name(int rule);

#endif
