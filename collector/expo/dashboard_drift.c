/*
 * dashboard_drift.c - the dashboard's drifting pairs.  See
 * dashboard_drift.h.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "../drift_watch.h"
#include "dashboard_drift.h"
#include "html.h"

#define ROWS_MAX	100

struct dctx {
	FILE	*f;
	size_t	 pairs, active, shown;
	int	 pass;		/* 0: count, 1: rows */
};

static void
row(FILE *f, const struct drift_view *v)
{
	const struct drift_track *t = v->t;
	char now[32] = "-", dev[32] = "-";	/* a side stopped: infinite */

	if (isfinite(t->last))
		snprintf(now, sizeof(now), "%.4f", t->last);
	if (isfinite(t->last_dev))
		snprintf(dev, sizeof(dev), "%+.2f %%", 100 * t->last_dev);
	fprintf(f, "<tr class=\"down\"><td>%s</td><td>",
	    drift_kind_name(v->kind));
	html_escape(f, v->name);
	fprintf(f, "</td><td>%s/%s</td><td>%s</td><td>%.4f</td><td>%s</td>"
	    "<td>%.2f %%</td></tr>", drift_side_name(v->kind, 1),
	    drift_side_name(v->kind, 0), now, t->usual, dev,
	    100 * t->last_tol);
}

static int
visit(const struct drift_view *v, void *arg)
{
	struct dctx *x = arg;

	if (x->pass == 0) {
		x->pairs++;
		x->active += v->t->active;
	} else if (v->t->active && x->shown < ROWS_MAX) {
		x->shown++;
		row(x->f, v);
	}
	return 0;
}

void
dashboard_drift(FILE *f, const struct drift_watch *w)
{
	struct dctx x = { .f = f };

	drift_watch_each(w, visit, &x);
	if (x.pairs == 0)
		return;
	fprintf(f, "<h2>Instrument drift</h2><p>%zu pairs watched, %zu "
	    "drifting</p>", x.pairs, x.active);
	if (x.active == 0)
		return;
	fputs("<table><tr><th>pair</th><th>name</th><th>ratio</th>"
	    "<th>now</th><th>usual</th><th>deviation</th><th>tolerance</th>"
	    "</tr>", f);
	x.pass = 1;
	drift_watch_each(w, visit, &x);
	fputs("</table>", f);
	if (x.active > x.shown)
		fprintf(f, "<p>and %zu more (see /metrics: "
		    "wattpath_drift_active)</p>", x.active - x.shown);
}
