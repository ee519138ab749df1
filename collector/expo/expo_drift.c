/*
 * expo_drift.c - the drift watch's families of /metrics.  See
 * expo_drift.h.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "../drift_watch.h"
#include "expo_drift.h"
#include "expo_metrics.h"

enum { F_RATIO, F_USUAL, F_DEV, F_TOL, F_ACTIVE, F_EVENTS, F_N };

static const struct {
	const char	*name, *type, *help;
} fam[F_N] = {
	{ "wattpath_drift_ratio", "gauge", "Energy of instrument b over "
	    "instrument a of a pair, over the last drift window." },
	{ "wattpath_drift_usual_ratio", "gauge", "The pair's usual ratio, "
	    "learned from its first drift.learn windows." },
	{ "wattpath_drift_deviation", "gauge", "Last ratio over the usual one, "
	    "minus 1." },
	{ "wattpath_drift_tolerance", "gauge", "Relative tolerance of the last "
	    "window: the instruments' accuracy, bounds and learned spread." },
	{ "wattpath_drift_active", "gauge", "1 while the pair disagrees beyond "
	    "its tolerance (drift.persist windows in a row), else 0." },
	{ "wattpath_drift_events_total", "counter", "Drifts started since the "
	    "collector started or reloaded." },
};

struct wctx {
	FILE	*f;
	int	 fam;
	int	 err;
};

static double
value(const struct drift_view *v, int k)
{
	const struct drift_track *t = v->t;

	switch (k) {
	case F_RATIO:
		return t->last;
	case F_USUAL:
		return t->learned ? t->usual : NAN;
	case F_DEV:
		return t->learned ? t->last_dev : NAN;
	case F_TOL:
		return t->last_tol;
	case F_ACTIVE:
		return t->active ? 1 : 0;
	}
	return (double)t->events;
}

static int
one(const struct drift_view *v, void *arg)
{
	struct wctx *x = arg;
	double d = value(v, x->fam);
	char buf[64];

	if (!isfinite(d))
		return 0;
	expo_fmt_value(buf, sizeof(buf), d);
	fprintf(x->f, "%s{pair=\"%s\",name=\"", fam[x->fam].name,
	    drift_kind_name(v->kind));
	expo_label_escape(x->f, v->name);
	if (fprintf(x->f, "\",a=\"%s\",b=\"%s\"} %s\n",
	    drift_side_name(v->kind, 0), drift_side_name(v->kind, 1), buf) < 0)
		return x->err = -1, -1;
	return 0;
}

static int
count(const struct drift_view *v, void *arg)
{
	(void)v;
	++*(int *)arg;
	return 0;
}

int
expo_drift_write(FILE *f, const struct drift_watch *w)
{
	struct wctx x = { .f = f };
	int n = 0;

	drift_watch_each(w, count, &n);
	if (n == 0)
		return 0;
	for (x.fam = 0; x.fam < F_N; x.fam++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam[x.fam].name,
		    fam[x.fam].help, fam[x.fam].name, fam[x.fam].type);
		drift_watch_each(w, one, &x);
		if (x.err)
			return -1;
	}
	return ferror(f) ? -1 : 0;
}
