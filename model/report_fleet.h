/*
 * report_fleet.h - the fleet's figures from its nodes' (pure): tokens
 * counted once per model replica (the first node of a replica with engine
 * counters; nodes outside replicas count their own), the fleet figure of
 * each boundary with its coverage, or, when some nodes have neither a
 * measured nor a modeled value, the part it covers with that part's own
 * tokens (a replica only when all its nodes are covered), idle power over
 * the idle window, and run-to-run statistics of wall J/output token.
 */
#ifndef WP_REPORT_FLEET_H
#define WP_REPORT_FLEET_H

#include <stdbool.h>

#include "report_node.h"

/* Whether node name belongs to some replica of s. */
bool	 report_in_replica(const struct report_settings *s, const char *name);
/*
 * Fleet tokens over which (REPORT_W_*, or run k), -1 none.  With k and by
 * (k->ncls + 1 slots, preset to -1) each counted node's tokens also go to
 * its class, so the classes add up to the fleet.
 */
double	 report_fleet_tokens(const struct report_input *in,
	    const struct report_sel *sel, bool output, int which,
	    const struct report_classes *k, double *by);
/*
 * The part of boundary b covered when some nodes lack a value: *tv the
 * energy of the nodes counted (valid when some node counts), *out and *in
 * their tokens (-1 none).  nv: n_nodes x BND_N node values.  Returns the
 * nodes counted.
 */
size_t	 report_cover_partial(const struct report_input *in,
	    const struct report_sel *sel, const struct bnd_value *nv, int b,
	    struct bnd_value *tv, double *out, double *in_tokens);
/* r->bnd[b] from r->tot[b] and the node values nv; tv gets its value.
 * Warns and fills the disclosure's partial coverage text when partial. */
void	 report_fleet_boundary(const struct report_input *in,
	    const struct report_sel *sel, const struct bnd_value *nv, int b,
	    struct report *r, struct bnd_value *tv);
/* Idle power of boundary b (BND_GPU or BND_WALL) over the idle window, W;
 * -1 none (warned when a node has no value). */
double	 report_idle_power(const struct report_input *in,
	    const struct report_sel *sel, int b, struct report *r);
/* r->runs over the plan's runs (warned when a run cannot be used). */
void	 report_fleet_runs(const struct report_input *in,
	    const struct report_sel *sel, struct report *r);

#endif
