/* advise_load.c - the windows of `wattpath advise` (see advise_load.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/report.h"
#include "../conf/conf.h"
#include "advise_load.h"
#include "report_api.h"
#include "reqlog_load.h"

/* The class's figures in report r into w (NAN / -1 where a node of the
 * class lacks one). */
static void
class_figs(const struct report *r, const char *cls, struct advise_window *w)
{
	double lim = 0;
	size_t i, gpus = 0, nodes = 0;

	w->tokens = 0;
	w->wall_j = w->fac_j = 0;
	w->steady = true;
	for (i = 0; i < r->n_nodes; i++) {
		const struct report_node_fig *n = &r->nodes[i];

		if (n->cls == NULL || strcmp(n->cls, cls) != 0)
			continue;
		nodes++;
		w->tokens = n->tokens >= 0 && w->tokens >= 0 ?
		    w->tokens + n->tokens : -1;
		w->wall_j += n->b[BND_WALL].v.valid ?
		    n->b[BND_WALL].v.energy_j : NAN;
		w->fac_j += n->b[BND_FACILITY].v.valid ?
		    n->b[BND_FACILITY].v.energy_j : NAN;
		if (n->limit_gpus > 0 && isfinite(n->limit_w)) {
			lim += n->limit_w;
			gpus += n->limit_gpus;
			if (n->limit_max_w - n->limit_min_w > ADVISE_STEADY_W)
				w->steady = false;
		}
	}
	w->limit_w = gpus > 0 ? lim / (double)gpus : NAN;
	if (nodes == 0)
		w->tokens = -1;
}

/* The SLO attainment over [a, b) from the log (NAN: none ended). */
static double
attainment(const struct reqlog *rq, const struct advise_query *q, wp_time a,
    wp_time b)
{
	struct reqlog_window rw;

	if (rq == NULL || !q->slo_set)
		return NAN;
	reqlog_window(rq, (double)a / WP_SEC, (double)b / WP_SEC,
	    q->ttft_ms / 1000, q->tpot_ms / 1000, &rw);
	return rw.out_tokens > 0 ? (double)rw.slo_out_tokens /
	    (double)rw.out_tokens : NAN;
}

/* Window k: the report over it, the class's figures. */
static void
one(const struct wp_conf *c, const struct advise_query *q,
    const struct reqlog *rq, struct advise_data *d, size_t k)
{
	wp_time a = q->from + (wp_time)k * d->window + d->guard;
	wp_time b = a + d->window - 2 * d->guard;
	struct advise_window *w = &d->w[k];
	struct report_query rqq;
	struct wp_err err = { 0 };
	struct report *r;

	memset(w, 0, sizeof(*w));
	w->secs = (double)(b - a) / WP_SEC;
	w->limit_w = w->wall_j = w->fac_j = NAN;
	w->tokens = -1;
	w->steady = true;
	w->slo_share = attainment(rq, q, a, b);
	report_query_init(&rqq, a, b);
	if ((r = report_run(c, &rqq, &err)) == NULL) {
		if (d->failed++ == 0)
			memcpy(d->first_error, err.msg, sizeof(err.msg));
		return;
	}
	class_figs(r, q->cls, w);
	report_free(r);
}

int
advise_load(const struct wp_conf *c, const struct advise_query *q,
    struct advise_data *d, struct wp_err *err)
{
	struct report_query sq;
	struct reqlog *rq = NULL;
	size_t k, n;

	memset(d, 0, sizeof(*d));
	report_query_init(&sq, q->from, q->to);
	sq.cls = q->cls;
	if (report_query_scope(c, &sq, err) == -1)
		return -1;
	d->window = q->window > 0 ? q->window : ADVISE_WINDOW_DEFAULT;
	d->guard = c->interval;
	if (d->window - 2 * d->guard < REPORT_MIN_WINDOW)
		return err_set(err, WP_E_CONFIG, "a window of %.0f s less one "
		    "sampling interval (%.0f s) at each end is under the %d s a "
		    "report needs", (double)d->window / WP_SEC,
		    (double)d->guard / WP_SEC, (int)(REPORT_MIN_WINDOW / WP_SEC));
	n = (size_t)((q->to - q->from) / d->window);
	if (n > ADVISE_WINDOWS_MAX)
		return err_set(err, WP_E_CONFIG, "%zu windows: at most %d (a "
		    "longer --window)", n, ADVISE_WINDOWS_MAX);
	if (q->requests != NULL && (rq = reqlog_load(q->requests, err)) == NULL)
		return -1;
	if ((d->w = calloc(n + 1, sizeof(*d->w))) == NULL) {
		reqlog_free(rq);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	d->n = n;
	for (k = 0; k < n; k++)
		one(c, q, rq, d, k);
	reqlog_free(rq);
	return 0;
}

void
advise_data_fini(struct advise_data *d)
{
	if (d == NULL)
		return;
	free(d->w);
	d->w = NULL;
	d->n = 0;
}
