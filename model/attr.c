/* attr.c - one node's energy split over what ran on it (see attr.h). */
#include <string.h>

#include "attr.h"

const char *
attr_rule_name(int rule)
{
	switch (rule) {
	case ATTR_PROPORTIONAL:
		return "proportional";
	case ATTR_PER_GPU:
		return "per_gpu";
	default:
		return "whole_per_gpu";
	}
}

static int
owner_of(const struct attr_in *in, size_t g)
{
	int o = in->owner[g];

	return o >= 0 && (size_t)o < in->n_parts ? o : -1;
}

/* Adds x to part o (-1: unallocated) at boundary b. */
static void
give(double *part_j, struct attr_out *out, int o, int b, double x)
{
	if (o < 0)
		out->unalloc_j[b] += x;
	else
		part_j[(size_t)o * BND_N + (size_t)b] += x;
}

/* x split evenly over the allocated GPUs (all to unallocated when none). */
static void
even(const struct attr_in *in, double *part_j, struct attr_out *out, int b,
    double x)
{
	size_t g, n = 0;

	for (g = 0; g < in->n_gpus; g++)
		if (owner_of(in, g) >= 0)
			n++;
	if (n == 0) {
		out->unalloc_j[b] += x;
		return;
	}
	for (g = 0; g < in->n_gpus; g++)
		if (owner_of(in, g) >= 0)
			give(part_j, out, owner_of(in, g), b, x / (double)n);
}

/* x split in proportion to each GPU's energy (of total gsum > 0). */
static void
proportional(const struct attr_in *in, double *part_j, struct attr_out *out,
    int b, double x, double gsum)
{
	size_t g;

	for (g = 0; g < in->n_gpus; g++)
		give(part_j, out, owner_of(in, g), b, x * (in->gpu_j[g] / gsum));
}

void
attr_split(const struct attr_in *in, double *part_j, struct attr_out *out)
{
	double gsum = 0, over;
	size_t g;
	int b, rule;

	memset(out, 0, sizeof(*out));
	memset(part_j, 0, in->n_parts * BND_N * sizeof(*part_j));
	for (g = 0; g < in->n_gpus; g++)
		gsum += in->gpu_j[g];
	for (b = 0; b < BND_N; b++) {
		if (!(out->ok[b] = in->tot[b].valid))
			continue;
		if (!in->tot[BND_GPU].valid || in->n_gpus == 0) {
			out->rule[b] = ATTR_WHOLE_PER_GPU;
			even(in, part_j, out, b, in->tot[b].energy_j);
			continue;
		}
		rule = in->rule == ATTR_PER_GPU || !(gsum > 0) ? ATTR_PER_GPU :
		    ATTR_PROPORTIONAL;
		out->rule[b] = b == BND_GPU ? in->rule : rule;
		for (g = 0; g < in->n_gpus; g++)
			give(part_j, out, owner_of(in, g), b, in->gpu_j[g]);
		if (b == BND_GPU)
			continue;
		/* the GPUs' own sum, so that the parts add up to tot[b] */
		over = in->tot[b].energy_j - gsum;
		if (rule == ATTR_PROPORTIONAL)
			proportional(in, part_j, out, b, over, gsum);
		else
			even(in, part_j, out, b, over);
	}
}
