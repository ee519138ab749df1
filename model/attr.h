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
/* "proportional", "per_gpu", "whole_per_gpu". */
const char *attr_rule_name(int rule);

#endif
