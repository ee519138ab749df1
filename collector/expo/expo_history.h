/*
 * expo_history.h - a small in-memory history of fleet figures for the
 * dashboard: a ring of fleet totals sampled once per interval (power and
 * energy by boundary, output tokens, facility and IT meter energy, PUE),
 * and per node a ring of its recent (GPU, wall) power pairs for the
 * wall-to-GPU curves.  Lost on restart (the journal and RRD keep the
 * record).  Loop thread only.
 */
#ifndef WP_EXPO_HISTORY_H
#define WP_EXPO_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/clock.h"
#include "expo_fleet.h"

#define HIST_PAIRS	16	/* (gpu, wall) pairs kept per node */
#define PUE_WINDOW	(15 * 60 * WP_SEC)

struct hist_point {
	wp_time	 t;
	double	 power[FB_N], energy[FB_N];
	bool	 has_power[FB_N], has_energy[FB_N];
	double	 tokens;		/* output tokens, cumulative */
	double	 cov_tokens[FB_N];	/* of the nodes covered at b */
	uint64_t cov_sig[FB_N];		/* which nodes those are */
	double	 fac_e, it_e;
	bool	 has_fac_e, has_it_e;
	double	 pue;			/* NAN unknown */
};

struct history;

/* Returns a new history of cap points (caller frees with history_free). */
struct history	*history_new(size_t cap);
void		 history_free(struct history *h);	/* NULL-safe */
/* Appends the fleet's figures (and its PUE) and each node's pair. */
int		 history_add(struct history *h, const struct fleet *f);
size_t		 history_len(const struct history *h);
/* Point i, 0 the oldest. */
const struct hist_point *history_at(const struct history *h, size_t i);
/*
 * PUE now: facility_total energy / it_total energy since the oldest point
 * within window, else the ratio of their latest power readings.  NAN when
 * unknown.
 */
double		 history_pue(const struct history *h, const struct fleet *f,
		    wp_time window);
/* Output tokens per joule at boundary b over window: the tokens of the
 * nodes with energy at b over the energy of the same nodes, since the
 * oldest point in the window with that same set of nodes; NAN when
 * unknown. */
double		 history_tokens_per_joule(const struct history *h,
		    const struct fleet *f, int b, wp_time window);
/* The same window's energy (*de, J, > 0) and tokens (*dt, >= 0) of those
 * nodes: 0, or -1 when unknown (*de, *dt then meaningless). */
int		 history_tokens_window(const struct history *h,
		    const struct fleet *f, int b, wp_time window, double *de,
		    double *dt);
/*
 * Copies up to max recent (gpu, wall) pairs of one node (node non-NULL)
 * or of every node of class cls, evenly thinned.  Returns the count.
 */
size_t		 history_pairs(const struct history *h, const char *node,
		    const char *cls, double *gpu, double *wall, size_t max);

#endif
