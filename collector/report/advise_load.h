/*
 * advise_load.h - the windows of `wattpath advise` (docs/advise.md): the
 * period cut into equal windows, each inset by one sampling interval at
 * both ends (a limit read at an edge belongs to both neighbours), and per
 * window the report's figures for the nodes of one class: output tokens,
 * wall and facility energy (each node's, as the report computes them; a
 * window where a node of the class lacks one is incomplete), the mean
 * per-GPU power limit read and whether every GPU's limit held (readings
 * within ADVISE_STEADY_W), and the SLO attainment from the request log
 * (share of the output tokens of requests ending in the window that met
 * the thresholds; the log is taken to be the class's load).  The model's
 * advice over them: model/advise.h.
 */
#ifndef WP_ADVISE_LOAD_H
#define WP_ADVISE_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "../../model/advise.h"
#include "../lib/clock.h"
#include "../lib/err.h"

#define ADVISE_STEADY_W		1.0
#define ADVISE_WINDOW_DEFAULT	(300 * WP_SEC)
#define ADVISE_WINDOWS_MAX	4096

struct wp_conf;

struct advise_query {
	const char	*cls;
	wp_time		 from, to;
	wp_time		 window;	/* 0: ADVISE_WINDOW_DEFAULT */
	const char	*requests;	/* request log, or NULL */
	bool		 slo_set;	/* thresholds (else none) */
	double		 ttft_ms, tpot_ms;	/* 0: not constrained */
};

struct advise_data {
	struct advise_window *w;	/* owned */
	size_t		 n;
	wp_time		 window, guard;
	size_t		 failed;	/* windows the report refused */
	char		 first_error[WP_ERR_MSG];
};

/* Fills d (caller frees with advise_data_fini).  0, or -1 with err (no
 * such class, the window too short or too many windows, the request log
 * unreadable). */
int	 advise_load(const struct wp_conf *c, const struct advise_query *q,
	    struct advise_data *d, struct wp_err *err);
void	 advise_data_fini(struct advise_data *d);	/* NULL-safe */

#endif
