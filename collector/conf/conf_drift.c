/*
 * conf_drift.c - the drift: block.  See conf_drift.h.
 */
#include <math.h>
#include <stdio.h>

#include "../../model/drift.h"
#include "../lib/diag.h"
#include "../lib/ycheck.h"
#include "../lib/ynode.h"
#include "conf_drift.h"

#define W_MIN	(10 * WP_SEC)
#define W_MAX	(86400 * WP_SEC)

static void
load_windows(struct drift_settings *s, const struct ynode *m, struct diag *d)
{
	static const char *const keys[] = { "wall_outlet", "pdu_inlet",
	    "it_inlets", "gpu_bmc", NULL };
	int k;

	ycheck_keys(d, m, "drift: windows", keys);
	for (k = 0; k < DK_N; k++)
		ycheck_duration(d, m, drift_kind_name(k), "drift: windows",
		    W_MIN, W_MAX, "10s..1d", &s->window[k]);
}

static void
load_accuracy(struct drift_settings *s, const struct ynode *m,
    struct diag *d)
{
	static const char *const keys[] = { "bmc", "outlet", "inlet", "meter",
	    "gpu", NULL };
	const char *v;
	double x;
	int i;

	ycheck_keys(d, m, "drift: accuracy", keys);
	for (i = 0; i < DI_N; i++) {
		v = ycheck_scalar(d, m, drift_instr_name(i), "drift: accuracy",
		    false);
		if (v == NULL)
			continue;
		if (ynode_parse_double(v, &x) < 0 || !isfinite(x) || x < 0 ||
		    x > 0.5)
			diag_at(d, ynode_get(m, drift_instr_name(i)), false,
			    "drift: accuracy: %s must be a fraction 0..0.5 "
			    "(0.02 for 2 %%), not '%s'", drift_instr_name(i), v);
		else
			s->acc[i] = x;
	}
}

void
conf_drift_load(struct drift_settings *s, const struct ynode *m,
    struct diag *d)
{
	static const char *const keys[] = { "window", "learn", "persist",
	    "windows", "accuracy", NULL };
	const struct ynode *n;
	wp_time w;
	long v;
	int k;

	drift_settings_default(s);
	if (m == NULL)
		return;
	ycheck_keys(d, m, "drift", keys);
	if (ycheck_duration(d, m, "window", "drift", W_MIN, W_MAX, "10s..1d",
	    &w) == 0)
		for (k = 0; k < DK_N; k++)
			s->window[k] = w;
	if (ycheck_long(d, m, "learn", "drift", 1, DRIFT_MAX_LEARN, &v) == 0)
		s->learn = (size_t)v;
	if (ycheck_long(d, m, "persist", "drift", 1, 1000, &v) == 0)
		s->persist = (size_t)v;
	if ((n = ycheck_typed(d, m, "windows", YN_MAP, "drift", false)))
		load_windows(s, n, d);
	if ((n = ycheck_typed(d, m, "accuracy", YN_MAP, "drift", false)))
		load_accuracy(s, n, d);
}
