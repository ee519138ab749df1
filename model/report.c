/* report.c - the report assembled in the order of its document (see
 * report.h): warnings keep the order of the figures they concern. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_check.h"
#include "report_fleet.h"
#include "report_node.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

void
report_warn(struct report_warnings *w, const char *fmt, ...)
{
	char buf[REPORT_WARN_MAX], **nv, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;

		if ((nv = realloc(w->v, cap * sizeof(*nv))) == NULL) {
			w->oom = true;
			return;
		}
		w->v = nv;
		w->cap = cap;
	}
	if ((s = strdup(buf)) == NULL) {
		w->oom = true;
		return;
	}
	w->v[w->n++] = s;
}

void
report_warnings_fini(struct report_warnings *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

void
report_fig_set(struct report_fig *f, const struct bnd_value *v,
    double coverage, double secs_, double out, double in, double slo,
    double idle_w)
{
	struct jtoken_in ji = { .energy_j = v->energy_j, .output_tokens = out,
	    .input_tokens = in, .slo_output_tokens = slo, .window_s = secs_,
	    .idle_power_w = idle_w };

	memset(f, 0, sizeof(*f));
	f->v = *v;
	f->coverage = coverage;
	if (!v->valid)
		return;
	f->per_token = jtoken_compute(&ji, &f->jt, NULL) == 0;
	f->net = f->per_token && idle_w >= 0 && f->jt.idle_valid;
	f->mean_power_w = secs_ > 0 ? v->energy_j / secs_ : NAN;
	f->bound_rel = v->energy_j > 0 ? v->bound_j / v->energy_j : NAN;
}

void
report_curve_set(struct report_curve *rc, const struct curve *c)
{
	if (&rc->c != c)
		rc->c = *c;
	curve_fit(&rc->c, 1, &rc->fit[0]);
	curve_fit(&rc->c, 2, &rc->fit[1]);
}

/* ------------------------------------------------------------ steps */

static int
hours_init(struct report *r)
{
	struct report_hours *h = &r->hours;

	h->origin = r->from - ((r->from % REPORT_HOUR) + REPORT_HOUR) %
	    REPORT_HOUR;
	h->nh = (size_t)((r->to - h->origin + REPORT_HOUR - 1) / REPORT_HOUR);
	h->wall = calloc(h->nh + 1, sizeof(double));
	h->fac = calloc(h->nh + 1, sizeof(double));
	h->mfac = calloc(h->nh + 1, sizeof(double));
	h->mit = calloc(h->nh + 1, sizeof(double));
	return h->wall && h->fac && h->mfac && h->mit ? 0 : -1;
}

/* Fleet tokens: the engines' counters, else the request log. */
static void
tokens(const struct report_input *in, const struct report_sel *sel,
    struct report *r)
{
	struct reqlog_window rw;

	r->out = report_fleet_tokens(in, sel, true, REPORT_W_MAIN, &r->cls,
	    r->cls.out);
	r->in = report_fleet_tokens(in, sel, false, REPORT_W_MAIN, NULL, NULL);
	if (r->out < 0 && in->rq != NULL) {
		reqlog_window(in->rq, secs(r->from), secs(r->to) + 1e-6, 0, 0,
		    &rw);
		r->out = (double)rw.out_tokens;
		r->in = (double)rw.in_tokens;
		report_warn(&r->warnings, "no engine token counters: tokens "
		    "from the request log");
	}
	if (r->out <= 0)
		report_warn(&r->warnings, "no output tokens in the window: "
		    "J/token undefined");
}

/* Every node's figures (nv: n_nodes x BND_N), into the totals and the
 * hourly wall energy; *rw and *rg: wall and GPU energy of the nodes that
 * have both. */
static void
nodes(const struct report_input *in, const struct report_sel *sel,
    struct bnd_value *nv, struct report *r, double *rw, double *rg)
{
	size_t i, h;
	int k, src;

	for (i = 0; i < in->n_nodes; i++) {
		struct bnd_value *v = &nv[i * BND_N];

		src = report_node_eval(in, r, i, &sel[i], v);
		report_node_hours(r, i, &sel[i], src, v[BND_WALL].energy_j);
		for (k = 0; k < BND_N; k++)
			boundary_total_add(&r->tot[k], &v[k]);
		if (v[BND_WALL].valid && v[BND_GPU].valid) {
			*rw += v[BND_WALL].energy_j;
			*rg += v[BND_GPU].energy_j;
		}
	}
	for (h = 0; h < r->hours.nh; h++)
		r->hours.fac[h] = isnan(r->pue.value) ? 0 : r->hours.wall[h] *
		    r->pue.value;
}

/* Whether the request log's out tokens cover enough of the counted ones
 * for an SLO figure (flagged when not, and when only in part). */
static bool
slo_covered(struct report *r, double out)
{
	double share = out / r->out;

	if (share < REPORT_CHECK_SLO_COVER) {
		report_check_flag(r, "request log: its %.0f output tokens cover "
		    "%.3g %% of the %.0f counted, under the %.0f %% an SLO "
		    "figure needs: no SLO figure", out, 100 * share, r->out,
		    100 * REPORT_CHECK_SLO_COVER);
		r->slo_share = NAN;
		return false;
	}
	if (share < 0.995)
		report_check_flag(r, "request log: its %.0f output tokens cover "
		    "%.3g %% of the %.0f counted: the SLO share is measured over "
		    "that %.3g %% only and applied to all", out, 100 * share,
		    r->out, 100 * share);
	return true;
}

/* The share of output tokens of requests ending in the window that met
 * report.slo, applied to the counted tokens. */
static void
slo(const struct report_input *in, struct report *r)
{
	const struct report_settings *s = in->set;
	struct reqlog_window rw;

	r->slo = -1;
	r->slo_share = 0;
	if (in->rq == NULL || !s->slo_set)
		return;
	reqlog_window(in->rq, secs(r->from), secs(r->to) + 1e-6,
	    s->slo_ttft_ms / 1000, s->slo_tpot_ms / 1000, &rw);
	r->slo_share = rw.out_tokens > 0 ? (double)rw.slo_out_tokens /
	    (double)rw.out_tokens : NAN;
	if (isfinite(r->slo_share) && r->out > 0 && slo_covered(r,
	    (double)rw.out_tokens))
		r->slo = r->out * r->slo_share;
}

/* Idle-subtracted figures, when the idle power covers every node. */
static void
idle(const struct report_input *in, const struct report_sel *sel,
    const struct bnd_value *tv, struct report *r)
{
	double idle_w = report_idle_power(in, sel, BND_WALL, r);
	double idle_g = report_idle_power(in, sel, BND_GPU, r);

	if (idle_w >= 0 && r->tot[BND_WALL].counted < r->tot[BND_WALL].nodes)
		idle_w = -1;
	if (idle_g >= 0 && r->tot[BND_GPU].counted < r->tot[BND_GPU].nodes)
		idle_g = -1;
	if (idle_w >= 0) {
		r->idle_wall.set = true;
		report_fig_set(&r->idle_wall.fig, &tv[BND_WALL], 1, r->secs,
		    r->out, r->in, -1, idle_w);
		r->idle_wall.power_w = idle_w;
	}
	if (idle_g >= 0) {
		r->idle_gpu.set = true;
		report_fig_set(&r->idle_gpu.fig, &tv[BND_GPU], 1, r->secs, r->out,
		    r->in, -1, idle_g);
		r->idle_gpu.power_w = idle_g;
	}
}

/* The figures after the nodes', in the document's order. */
static int
fleet(const struct report_input *in, const struct report_sel *sel,
    const struct bnd_value *nv, struct report *r)
{
	struct bnd_value tv[BND_N];
	int k;

	for (k = 0; k < BND_N; k++)
		report_fleet_boundary(in, sel, nv, k, r, &tv[k]);
	idle(in, sel, tv, r);
	if (report_pue_tables(in, r) == -1)
		return -1;
	report_pue_allocate(r);
	if (in->plan->runs > 1) {
		r->has_runs = true;
		report_fleet_runs(in, sel, r);
	}
	if (r->tot[BND_WALL].counted > 0 &&
	    r->tot[BND_WALL].counted == r->tot[BND_WALL].nodes) {
		if (report_carbon_build(in, r) == -1)
			return -1;
	} else
		report_warn(&r->warnings, "wall boundary incomplete (%zu of %zu "
		    "nodes measured or modeled): carbon and cost left out",
		    r->tot[BND_WALL].counted, r->tot[BND_WALL].nodes);
	return report_disclose_build(in, sel, r);
}

static int
build(const struct report_input *in, struct report_sel *sel,
    struct bnd_value *nv, struct report *r)
{
	double rw = 0, rg = 0;
	int k;

	r->from = in->plan->from;
	r->to = in->plan->to;
	r->secs = secs(r->to - r->from);
	r->n_nodes = in->n_nodes;
	if ((r->nodes = calloc(in->n_nodes + 1, sizeof(*r->nodes))) == NULL ||
	    hours_init(r) == -1)
		return -1;
	report_select(in->ser, in->n_ser, sel);
	if (report_classes_build(in, sel, r) == -1)
		return -1;
	report_pue_site(in, r);
	for (k = 0; k < BND_N; k++)
		boundary_total_init(&r->tot[k]);
	tokens(in, sel, r);
	nodes(in, sel, nv, r, &rw, &rg);
	slo(in, r);
	/* over the nodes that have both, measured or modeled */
	r->wall_to_gpu = rg > 0 ? rw / rg : NAN;
	if (fleet(in, sel, nv, r) == -1 ||
	    report_models_build(in, sel, r) == -1)
		return -1;
	report_check(in, sel, r);
	return 0;
}

struct report *
report_new(const struct report_input *in, struct report_warnings *w)
{
	struct report *r = calloc(1, sizeof(*r));
	struct report_sel *sel = calloc(in->n_nodes + 1, sizeof(*sel));
	struct bnd_value *nv = calloc((in->n_nodes + 1) * BND_N,
	    sizeof(*nv));
	int rc = -1;

	if (r != NULL) {
		r->warnings = *w;
		memset(w, 0, sizeof(*w));
		if (sel != NULL && nv != NULL)
			rc = build(in, sel, nv, r);
	} else
		report_warnings_fini(w);
	free(sel);
	free(nv);
	if (rc == -1 || r->warnings.oom) {
		report_free(r);
		return NULL;
	}
	return r;
}

void
report_free(struct report *r)
{
	if (r == NULL)
		return;
	free(r->nodes);
	free(r->hours.wall);
	free(r->hours.fac);
	free(r->hours.mfac);
	free(r->hours.mit);
	report_classes_free(r);
	report_pue_free(&r->pue);
	report_carbon_free(r);
	report_disclose_free(&r->disc);
	report_models_free(&r->models);
	report_models_free(&r->tenants);
	report_warnings_fini(&r->warnings);
	report_warnings_fini(&r->checks);
	free(r);
}

/* ------------------------------------------------------------ curve */

struct report_curve_doc *
report_curve_doc_new(const struct report_input *in, const bool *selected,
    const char *scope, struct report_warnings *w)
{
	struct report_curve_doc *d = calloc(1, sizeof(*d));
	struct report_sel *sel = calloc(in->n_nodes + 1, sizeof(*sel));
	size_t i;

	if (d == NULL || sel == NULL ||
	    (d->nodes = calloc(in->n_nodes + 1, sizeof(*d->nodes))) == NULL) {
		free(sel);
		report_curve_doc_free(d);
		report_warnings_fini(w);
		return NULL;
	}
	d->warnings = *w;
	memset(w, 0, sizeof(*w));
	d->scope = scope;
	d->step_s = secs(in->plan->step);
	report_select(in->ser, in->n_ser, sel);
	curve_init(&d->cls.c);
	for (i = 0; i < in->n_nodes; i++) {
		struct report_curve_node *x = &d->nodes[d->n_nodes];
		bool flag;

		if (!selected[i])
			continue;
		curve_init(&x->curve.c);
		report_node_curve(&sel[i], in->plan, &x->curve.c);
		curve_merge(&d->cls.c, &x->curve.c);
		if (x->curve.c.n == 0)
			report_warn(&d->warnings, "node %s: no complete wall+GPU "
			    "intervals (needs wall and GPU energy and power "
			    "limits)", in->nodes[i].name);
		report_curve_set(&x->curve, &x->curve.c);
		x->name = in->nodes[i].name;
		x->deviation = curve_deviation(&x->curve.c, &d->cls.c,
		    REPORT_CURVE_TOLERANCE, &flag);
		d->n_nodes++;
	}
	report_curve_set(&d->cls, &d->cls.c);
	free(sel);
	if (d->warnings.oom) {
		report_curve_doc_free(d);
		return NULL;
	}
	return d;
}

void
report_curve_doc_free(struct report_curve_doc *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	report_warnings_fini(&d->warnings);
	free(d);
}
