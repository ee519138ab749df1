/*
 * expo_attr.h - the per-model and per-tenant energy counters of /metrics
 * and /api/v1/models: each node's energy attributed, interval by
 * interval, to what ran on it (model/attr.h's rule, as the report's).
 *
 * The state keeps each node's readings as of the last commit (its
 * in-band GPUs' and engines' reset-corrected cumulatives, its wall and
 * outlet energy) and, per model and per tenant, the energy attributed so
 * far at each boundary.  A commit (each collector interval, so that the
 * split depends on nothing a client does) splits what each node gained
 * since the previous one: each GPU's gain to the model
 * whose engine holds it (engines[].gpus; one model on the node and no
 * gpus: all its GPUs) and to the tenant of its namespace label, else of
 * that model, else of the node (tenants:); a GPU no one holds to
 * "unallocated"; the wall and outlet gains over the GPU gain by
 * report.attribution (in proportion to GPU energy, or evenly per
 * allocated GPU; an interval in which a boundary gained less than the
 * GPUs, as coarse counters do, is split in proportion, so that no counter
 * goes back); the facility as the wall gain x the PUE at that commit
 * (wattpath_facility_pue), the wall gain of an interval without a PUE
 * counted apart (facility_unpriced_j).  A node seen first attributes all
 * it had, once each of its engines has reported (its model known) or is
 * named in the config, or 3 intervals after it was first seen (an engine
 * that never reports: "unknown").  The parts add up to the nodes' gains at every boundary, to
 * floating-point rounding, and no sum goes back from one commit to the
 * next.  A view (expo_attr_view) of a state is its sums as of the last
 * commit, with the nodes' energy they were split from; without a state
 * (a one-off snapshot) it is the split of everything fl's nodes have.
 * A reading that went back (a target held, or gone on a reload) attributes
 * nothing, and a base never goes down: what comes back is not attributed
 * twice (a node whose source is gone for good counts again once it is past
 * its old figure).  At most EXPO_ATTR_MAX model names, the rest as
 * "other"; tenants are the config's, plus "unallocated".
 */
#ifndef WP_EXPO_ATTR_H
#define WP_EXPO_ATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "../../model/boundary.h"
#include "expo_fleet.h"

#define EXPO_ATTR_MAX	64
#define EXPO_ATTR_NAME	128

/* One model's or tenant's sums. */
struct attr_sum {
	char	 name[EXPO_ATTR_NAME];
	double	 j[BND_N];		/* J attributed at each boundary */
	bool	 ok[BND_N];		/* some energy attributed there */
	double	 out;			/* output tokens */
	bool	 has_out;
};

struct attr_tab {
	struct attr_sum *v;
	size_t	 n, cap;
};

/* The sums as of one commit (caller frees with expo_attr_view_fini). */
struct attr_view {
	struct attr_tab	 models, tenants;
	double		 facility_unpriced_j;	/* wall J with no PUE */
	int		 rule;			/* report.attribution */
	/* the nodes' energy the sums were split from (gpu, wall, outlet;
	 * a state's views only) */
	double		 nodes_j[BND_N];
	bool		 nodes_ok[BND_N];
};

struct expo_attr;

/* A new, empty state (caller frees with expo_attr_free), or NULL. */
struct expo_attr *expo_attr_new(void);
void	 expo_attr_free(struct expo_attr *a);
/* Splits fl's gains since the last commit (pue: the facility's now, NAN
 * none) into a's sums and moves the base to fl.  0, or -1 out of memory
 * (the state as before). */
int	 expo_attr_commit(struct expo_attr *a, const struct fleet *fl,
	    double pue);
/* a's sums as of its last commit, or (a NULL) the split of all fl's
 * nodes have, into *v.  0, or -1 out of memory (*v empty). */
int	 expo_attr_view(const struct expo_attr *a, const struct fleet *fl,
	    double pue, struct attr_view *v);
void	 expo_attr_view_fini(struct attr_view *v);

#endif
