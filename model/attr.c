/* attr.c - one node's energy split over what ran on it (see attr.h). */
#include <stdio.h>
#include <stdlib.h>
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

static double
weight_of(const struct attr_in *in, size_t g)
{
	return in->weight != NULL ? in->weight[g] : 1.0;
}

/* x split evenly over the allocated GPUs by weight (all to unallocated
 * when none). */
static void
even(const struct attr_in *in, double *part_j, struct attr_out *out, int b,
    double x)
{
	double n = 0;
	size_t g;

	for (g = 0; g < in->n_gpus; g++)
		if (owner_of(in, g) >= 0)
			n += weight_of(in, g);
	if (!(n > 0)) {
		out->unalloc_j[b] += x;
		return;
	}
	for (g = 0; g < in->n_gpus; g++)
		if (owner_of(in, g) >= 0)
			give(part_j, out, owner_of(in, g), b,
			    x * (weight_of(in, g) / n));
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

/* Adds energy x to holder ns (the overflow entry past ATTR_MAX_HOLDS). */
static void
hold_give(struct attr_holds *h, const char *ns, double x)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (strcmp(h->v[i].ns, ns) == 0) {
			h->v[i].j += x;
			return;
		}
	if (h->n >= ATTR_MAX_HOLDS) {	/* full: the "" overflow */
		if (ns[0] != '\0') {
			hold_give(h, "", x);
			return;
		}
		i = ATTR_MAX_HOLDS;
		h->n = ATTR_MAX_HOLDS + 1;
		h->v[i].ns[0] = '\0';
		h->v[i].j = x;
		return;
	}
	snprintf(h->v[h->n].ns, sizeof(h->v[h->n].ns), "%s", ns);
	h->v[h->n++].j = x;
}

void
attr_holds_add(struct attr_holds *h, long long from, long long to,
    long long t, double cum, const char *ns)
{
	long long a, b;
	double d;

	if (h->prev && t > h->t) {
		a = h->t > from ? h->t : from;
		b = t < to ? t : to;
		d = cum - h->cum;
		if (b > a && d > 0) {
			d *= (double)(b - a) / (double)(t - h->t);
			if (strcmp(h->ns, ns) == 0) {
				hold_give(h, ns, d);
			} else {
				hold_give(h, h->ns, d / 2);
				hold_give(h, ns, d / 2);
			}
		}
	}
	if (h->prev && t <= h->t)
		return;		/* out of order: skipped */
	h->prev = true;
	h->t = t;
	h->cum = cum;
	snprintf(h->ns, sizeof(h->ns), "%s", ns);
}

double
attr_holds_shares(const struct attr_holds *h, double *share)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < h->n; i++)
		sum += h->v[i].j;
	for (i = 0; i < h->n; i++)
		share[i] = sum > 0 ? h->v[i].j / sum : 0;
	return sum;
}

int
attr_mig_slices(const char *profile)
{
	char *end;
	long n;

	if (profile == NULL || *profile < '1' || *profile > '9')
		return -1;
	n = strtol(profile, &end, 10);
	if (*end != 'g' || n < 1 || n > 8)
		return -1;
	return (int)n;
}

int
attr_mig_total(const char *gpu_model)
{
	return gpu_model != NULL && strstr(gpu_model, "A30") != NULL ? 4 : 7;
}
