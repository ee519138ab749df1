/*
 * report_node.h - one node's figures (pure): the series chosen for each
 * boundary (a counter whenever one exists, a refused counter never
 * replaced by the gauge of the same quantity; in-band GPU readings before
 * the BMC's), the node's GPU, wall and outlet energy over a window with
 * their bounds, its tokens and power limits, its wall-to-GPU curve, and,
 * for a node without a usable wall reading, the wall energy modeled from
 * its class curve (report_model_wall).
 */
#ifndef WP_REPORT_NODE_H
#define WP_REPORT_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "boundary.h"
#include "curve.h"
#include "report.h"

/* Bound of a gauge figure: at least this share of its energy. */
#define REPORT_GAUGE_MIN_REL	1e-4
/*
 * Bound of a modeled wall figure: a node is modeled at its own load, which
 * the class's metered nodes may never have run at (the fit extrapolates);
 * the simulator's truth shows errors of 15 % there, so at least a quarter;
 * half when the class fit is underdetermined.  Otherwise RMS_FACTOR x the
 * class fit's RMS residual over its mean wall power (no cancellation over
 * the window assumed).
 */
#define REPORT_MODEL_MIN_REL	0.25
#define REPORT_MODEL_NOFIT_REL	0.50
#define REPORT_MODEL_RMS_FACTOR	2

/* Windows of a series' energy: the main window, the idle one, or run k. */
#define REPORT_W_MAIN	(-2)
#define REPORT_W_IDLE	(-1)

/* The series chosen for each boundary of one node. */
struct report_sel {
	const struct report_series *wall;
	const struct report_series *gib[REPORT_MAX_GPUS];
	const struct report_series *gbmc[REPORT_MAX_GPUS];
	const struct report_series *lim[REPORT_MAX_GPUS];
	const struct report_series *clk[REPORT_MAX_GPUS];	/* SM clocks */
	const struct report_series *outl[REPORT_MAX_SLOTS];
	const struct report_series *tok_out[REPORT_MAX_TOKEN_SRC];
	const struct report_series *tok_in[REPORT_MAX_TOKEN_SRC];
	size_t	 n_out, n_in;
};

/* What a node's wall figure is, for its hourly energy. */
enum report_wall_src { REPORT_WALL_NONE, REPORT_WALL_MEASURED,
    REPORT_WALL_MODELED };

/* Fills sel[node] (n_nodes entries, zeroed) from the series, in order. */
void	 report_select(struct report_series *const *ser, size_t n,
	    struct report_sel *sel);
/* Energy of s over window which: 0, or -1 (none, refused). */
int	 report_series_energy(const struct report_series *s, int which,
	    double *e);
/* The instrument bound of s's main-window energy, J. */
double	 report_series_bound(const struct report_series *s);
/* s's energy over which as a boundary value (invalid when s is NULL or
 * refused; the bound for the main window only). */
void	 report_value(const struct report_series *s, int which,
	    struct bnd_value *v);
/* The GPU source used per GPU index: in-band if accepted, else the BMC. */
const struct report_series *report_gpu_pick(const struct report_sel *a,
	    int g);
void	 report_node_gpu(const struct report_sel *a, int which,
	    struct bnd_value *v, double *cross_j);
/* The sum of a node's outlets; invalid when one is missing or refused
 * (why, when not NULL, names it). */
void	 report_node_outlet(const struct report_node *nd,
	    const struct report_sel *a, int which, struct bnd_value *v,
	    char *why, size_t wlen);
/* Output (or input) tokens of a node over which; -1 none. */
double	 report_node_tokens(const struct report_sel *a, bool output,
	    int which);
/* The sum of the node's GPUs' mean enforced power limits, W (0 none). */
double	 report_node_limit(const struct report_sel *a);
/* The mean SM clock of a's GPUs over the window, MHz (NAN: none read). */
double	 report_node_clock(const struct report_sel *a);
/* Feeds the node's complete curve steps inside the window into c. */
void	 report_node_curve(const struct report_sel *a,
	    const struct report_plan *p, struct curve *c);

/* A bin's wall/GPU ratio when usable (>= 1), else NAN. */
double	 report_usable_ratio(const struct curve *c, int k);
/*
 * Wall/GPU ratio of a class at a GPU load, and *dist, how far (in load)
 * outside the class's measured loads it had to be carried.  Inside that
 * range: the load's bin, else the linear fit (interpolation).  Outside it:
 * the nearest usable bin's ratio held flat.  NAN when the class has no
 * usable bin.
 */
double	 report_class_ratio(const struct curve *c, const struct curve_fit *f,
	    double load, double gpu_w, double *dist);
/*
 * Wall energy of a node without wall metering, modeled from its class
 * curve: each curve step's GPU energy x the class's wall/GPU ratio at that
 * step's GPU load, bound as REPORT_MODEL_* say plus the load distance the
 * ratio was carried and the GPU energy's bound.  0 with v (method
 * modeled), or -1 (no limits, no class curve, a GPU without steps).
 */
int	 report_model_wall(const struct report_sel *a, const struct curve *cls,
	    const struct report_plan *p, struct bnd_value *v);

/* Builds r->cls: classes in node order, class curves from their counter
 * wall-metered nodes (gauge ones only for a class without any).  0 or -1
 * out of memory; released by report_classes_free (report_free does). */
int	 report_classes_build(const struct report_input *in,
	    const struct report_sel *sel, struct report *r);
void	 report_classes_free(struct report *r);

/* Node i's figures into r->nodes[i] and v (BND_N values); warnings to r.
 * Returns the source of its wall figure. */
int	 report_node_eval(const struct report_input *in, struct report *r,
	    size_t i, const struct report_sel *a, struct bnd_value *v);
/* Adds node i's hourly wall kWh (from src) to the fleet's and its
 * class's. */
void	 report_node_hours(struct report *r, size_t i,
	    const struct report_sel *a, int src, double wall_j);

#endif
