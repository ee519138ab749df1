/*
 * redfish_topo.h - which chassis feed which systems of a Redfish service
 * (pure; no I/O).
 *
 * A system's chain is its own chassis (Links.ComputerSystems either way,
 * or a chassis with the system's Id), parts left out (GPU, CPLD, module,
 * cooling...), then every chassis outward from them by ContainedBy and
 * PoweredBy, at most CHAIN_MAX hops, each chassis once (link loops end);
 * top-level chassis that no system links (an enclosure, a chassis
 * manager) are the outermost level of every chain.  A chassis feeds the
 * systems whose chains hold it.  In a chassis that feeds several systems,
 * a reading that names one of them (RelatedItem, or the system's Id as a
 * word of its Id or Name: "Node0 Input Power") is that system's own.
 */
#ifndef WP_REDFISH_TOPO_H
#define WP_REDFISH_TOPO_H

#include <stdbool.h>
#include <stddef.h>

struct rf_disc;

struct rf_topo {
	size_t	 n_sys, n_ch;
	int	*depth;		/* [sys * n_ch + ch]: hops outward, -1 none */
	int	*r_sys;		/* per reading of d->rd: the system it names
				   in a shared chassis, or -1 (after
				   rf_topo_attribute) */
	size_t	 n_r;
};

/* Chains of every system of d; 0, or -1 on ENOMEM.  Free with
 * rf_topo_free (also after a failure). */
int	 rf_topo_new(struct rf_disc *d, struct rf_topo *t);
void	 rf_topo_free(struct rf_topo *t);
/* Hops from system sys out to chassis ch, or -1 when ch is not on its
 * chain. */
int	 rf_topo_depth(const struct rf_topo *t, size_t sys, size_t ch);
/* How many systems chassis ch feeds. */
size_t	 rf_topo_fed(const struct rf_topo *t, size_t ch);
/* Does ch feed only systems of the node (in_node)? */
bool	 rf_topo_fed_in_node(const struct rf_disc *d, const struct rf_topo *t,
	    size_t ch);
/* Fills t->r_sys for the readings of d (0, or -1 on ENOMEM). */
int	 rf_topo_attribute(struct rf_disc *d, struct rf_topo *t);

/*
 * Between the walk's first phase (chassis, systems, managers read) and its
 * second: marks the systems the node stands for (in_node: the one
 * want_system names, by Id, Name or URI segment, else all) and the chassis
 * whose power resources it needs (walked): every chassis on their chains,
 * or, when no system links any chassis, the top-level ones that are not
 * parts.  Probe mode walks every chassis but GPUs; PDU mode none.
 */
void	 rf_topo_walk(struct rf_disc *d);

#endif
