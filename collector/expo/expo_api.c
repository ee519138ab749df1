/* expo_api.c - /api/v1 JSON documents. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../conf/conf.h"
#include "../../model/attr.h"
#include "expo_api.h"
#include "expo_attr.h"
#include "../ingest.h"
#include "../report/report_api.h"
#include "../lib/jsonv.h"
#include "../lib/sample.h"
#include "../lib/timearg.h"

#define MAX_WINDOW	(31LL * 86400 * WP_SEC)
#define PAIRS_MAX	(HIST_PAIRS)

/* A time, null when never (0). */
static json_object *
jwhen(wp_time t)
{
	return t != 0 ? jtime(t) : NULL;
}

static void
finish(struct expo_resp *r, int status, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	r->status = status;
	r->ctype = "application/json";
	r->body = s ? strdup(s) : NULL;
	r->len = r->body ? strlen(r->body) : 0;
	json_object_put(o);
}

static void
fail(struct expo_resp *r, int status, const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(msg));
	finish(r, status, o);
}

static json_object *
fig_json(const struct fleet_fig *g)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "power_w", g->has_power ? jnum(g->power) :
	    NULL);
	json_object_object_add(o, "energy_j", g->has_energy ?
	    jnum(g->energy) : NULL);
	json_object_object_add(o, "energy_method", !g->has_energy ? NULL :
	    json_object_new_string(g->has_m[FM_COUNTER] && g->has_m[FM_GAUGE] ?
	    "counter+gauge-estimated" : fleet_method_name(g->has_m[FM_COUNTER] ?
	    FM_COUNTER : FM_GAUGE)));
	return o;
}

/* A boundary of a node set: its figures and coverage, and with_tpj (the
 * fleet) tokens per joule over the covered nodes (tpj, NAN unknown). */
static json_object *
cover_json(const struct fleet_fig *g, const struct fleet_cover *c,
    bool with_tpj, double tpj)
{
	json_object *o = fig_json(g);

	json_object_object_add(o, "nodes", json_object_new_int64(
	    (int64_t)c->nodes));
	json_object_object_add(o, "nodes_covered", json_object_new_int64(
	    (int64_t)c->covered));
	json_object_object_add(o, "coverage", jnum(fleet_coverage(c)));
	if (with_tpj) {
		json_object_object_add(o, "tokens_per_joule_15m", jnum(tpj));
		json_object_object_add(o, "joules_per_token_15m",
		    tpj > 0 ? jnum(1 / tpj) : NULL);
	}
	return o;
}

/* The site meters' sum of one role (facility_total, it_total). */
static json_object *
meter_json(bool has_p, double p, bool has_e, double e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "power_w", has_p ? jnum(p) : NULL);
	json_object_object_add(o, "energy_j", has_e ? jnum(e) : NULL);
	return o;
}

/* /api/v1/fleet: the fleet and each class by boundary; the site, its
 * meters, tokens and targets (the Sites view of other collectors reads
 * these: expo_sites.h). */
static void
api_fleet(const struct fleet *f, const struct history *h,
    struct expo_resp *r)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	json_object *cl = json_object_new_array(), *k, *kb;
	size_t i;
	int j;

	json_object_object_add(o, "time", jwhen(f->now));
	json_object_object_add(o, "nodes", json_object_new_int64(
	    (int64_t)f->n_nodes));
	json_object_object_add(o, "site", json_object_new_string(f->site));
	if (f->shard_count > 0) {
		k = json_object_new_object();
		json_object_object_add(k, "index",
		    json_object_new_int64(f->shard_index));
		json_object_object_add(k, "count",
		    json_object_new_int64(f->shard_count));
		json_object_object_add(o, "shard", k);
	} else
		json_object_object_add(o, "shard", NULL);
	for (j = 0; j < FB_N; j++) {
		double de = NAN, dt = NAN;

		if (h == NULL || history_tokens_window(h, f, j, PUE_WINDOW,
		    &de, &dt) == -1)
			de = dt = NAN;
		k = cover_json(&f->total[j], &f->cov[j], true, dt / de);
		json_object_object_add(k, "tokens_covered",
		    jnum(f->cov[j].tokens));
		json_object_object_add(k, "energy_15m_j", jnum(de));
		json_object_object_add(k, "tokens_15m", jnum(dt));
		json_object_object_add(b, fleet_boundary_name(j), k);
	}
	json_object_object_add(o, "boundaries", b);
	json_object_object_add(o, "pue_15m", h != NULL ?
	    jnum(history_pue(h, f, PUE_WINDOW)) : NULL);
	json_object_object_add(o, "facility", meter_json(f->has_fac_p,
	    f->fac_power, f->has_fac_e, f->fac_energy));
	json_object_object_add(o, "it", meter_json(f->has_it_p, f->it_power,
	    f->has_it_e, f->it_energy));
	k = json_object_new_object();
	json_object_object_add(k, "output", jnum(f->tokens_out));
	json_object_object_add(k, "input", jnum(f->tokens_in));
	json_object_object_add(o, "tokens", k);
	k = json_object_new_object();
	json_object_object_add(k, "up", json_object_new_int64(
	    (int64_t)f->targets_up));
	json_object_object_add(k, "down", json_object_new_int64(
	    (int64_t)f->targets_down));
	json_object_object_add(o, "targets", k);
	for (i = 0; i < f->n_classes; i++) {
		k = json_object_new_object();
		kb = json_object_new_object();
		json_object_object_add(k, "name", json_object_new_string(
		    f->classes[i].name));
		json_object_object_add(k, "nodes", json_object_new_int64(
		    (int64_t)f->classes[i].nodes));
		for (j = 0; j < FB_N; j++)
			json_object_object_add(kb, fleet_boundary_name(j),
			    cover_json(&f->classes[i].b[j],
			    &f->classes[i].cov[j], false, NAN));
		json_object_object_add(k, "boundaries", kb);
		json_object_array_add(cl, k);
	}
	json_object_object_add(o, "classes", cl);
	finish(r, 200, o);
}

/* One model's or tenant's entry of /api/v1/models. */
static json_object *
attr_json(const struct attr_sum *s)
{
	json_object *o = json_object_new_object(), *e, *jt;
	int b;

	json_object_object_add(o, "name", json_object_new_string(s->name));
	e = json_object_new_object();
	jt = json_object_new_object();
	for (b = 0; b < BND_N; b++) {
		json_object_object_add(e, bnd_name(b), s->ok[b] ?
		    jnum(s->j[b]) : NULL);
		json_object_object_add(jt, bnd_name(b), s->ok[b] &&
		    s->has_out && s->out > 0 ? jnum(s->j[b] / s->out) : NULL);
	}
	json_object_object_add(o, "energy_j", e);
	json_object_object_add(o, "tokens_output", s->has_out ?
	    jnum(s->out) : NULL);
	json_object_object_add(o, "joules_per_token", jt);
	return o;
}

static json_object *
tab_json(const struct attr_tab *t)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < t->n; i++)
		json_object_array_add(a, attr_json(&t->v[i]));
	return a;
}

/* /api/v1/models: the per-model and per-tenant counters of /metrics. */
static void
api_models(const struct fleet *f, const struct history *h,
    struct expo_resp *r)
{
	double pue = h != NULL ? history_pue(h, f, PUE_WINDOW) : NAN;
	json_object *o, *e;
	struct attr_view v;
	int b;

	if (expo_attr_view(f->attr, f, pue, &v) == -1)
		return fail(r, 500, "out of memory");
	o = json_object_new_object();
	json_object_object_add(o, "time", jwhen(f->now));
	json_object_object_add(o, "attribution", json_object_new_string(
	    v.rule == ATTR_PER_GPU ? "per_gpu" : "proportional"));
	json_object_object_add(o, "pue_15m", jnum(pue));
	json_object_object_add(o, "facility_unpriced_j",
	    jnum(v.facility_unpriced_j));
	e = json_object_new_object();
	for (b = BND_GPU; b <= BND_OUTLET; b++)
		json_object_object_add(e, bnd_name(b), v.nodes_ok[b] ?
		    jnum(v.nodes_j[b]) : NULL);
	json_object_object_add(o, "nodes_energy_j", e);
	json_object_object_add(o, "models", tab_json(&v.models));
	json_object_object_add(o, "tenants", tab_json(&v.tenants));
	expo_attr_view_fini(&v);
	finish(r, 200, o);
}

static json_object *
node_json(const struct fleet_node *n)
{
	json_object *o = json_object_new_object(), *b, *t;
	int k;

	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "class", json_object_new_string(n->class));
	json_object_object_add(o, "rack", json_object_new_string(n->rack));
	b = json_object_new_object();
	for (k = 0; k < FB_N; k++)
		json_object_object_add(b, fleet_boundary_name(k),
		    fig_json(&n->b[k]));
	json_object_object_add(o, "boundaries", b);
	t = json_object_new_object();
	json_object_object_add(t, "output", n->has_tok_out ?
	    jnum(n->tokens_out) : NULL);
	json_object_object_add(t, "input", n->has_tok_in ?
	    jnum(n->tokens_in) : NULL);
	json_object_object_add(o, "tokens", t);
	json_object_object_add(o, "targets", json_object_new_int(
	    (int)n->targets));
	json_object_object_add(o, "targets_down", json_object_new_int(
	    (int)n->down));
	return o;
}

static json_object *
target_json(const struct fleet_target *t)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "protocol",
	    json_object_new_string(t->protocol));
	json_object_object_add(o, "node", *t->node ?
	    json_object_new_string(t->node) : NULL);
	json_object_object_add(o, "up", json_object_new_boolean(t->up));
	json_object_object_add(o, "reason", *t->reason ?
	    json_object_new_string(t->reason) : NULL);
	json_object_object_add(o, "error", *t->error ?
	    json_object_new_string(t->error) : NULL);
	json_object_object_add(o, "last_poll", jwhen(t->last_poll));
	json_object_object_add(o, "last_success", jwhen(t->last_ok));
	json_object_object_add(o, "poll_duration_s", jnum(t->duration_s));
	json_object_object_add(o, "polls", json_object_new_int64(
	    (int64_t)t->polls));
	json_object_object_add(o, "failures", json_object_new_int64(
	    (int64_t)t->failures));
	json_object_object_add(o, "counter_resets", json_object_new_int64(
	    (int64_t)t->resets));
	return o;
}

/* Does node n match search text q (substring of name, class or rack)? */
static bool
matches(const struct fleet_node *n, const char *q)
{
	return q == NULL || *q == '\0' || strstr(n->name, q) != NULL ||
	    strstr(n->class, q) != NULL || strstr(n->rack, q) != NULL;
}

static long
num_arg(const struct expo_req *q, const char *key, long def, long lo,
    long hi)
{
	const char *s = q->arg(q->ctx, key);
	char *end;
	long v;

	if (s == NULL)
		return def;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		return -1;
	return v;
}

static void
api_nodes(const struct expo_req *q, const struct fleet *f,
    struct expo_resp *r)
{
	const char *s = q->arg(q->ctx, "q");
	long page = num_arg(q, "page", 1, 1, 1000000000);
	long per = num_arg(q, "per_page", 1000000, 1, 1000000);
	json_object *o, *a;
	size_t i, n = 0;

	if (page < 0 || per < 0)
		return fail(r, 400, "page and per_page must be positive "
		    "integers");
	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < f->n_nodes; i++) {
		if (!matches(&f->nodes[i], s))
			continue;
		if (n >= (size_t)(page - 1) * (size_t)per &&
		    n < (size_t)page * (size_t)per)
			json_object_array_add(a, node_json(&f->nodes[i]));
		n++;
	}
	json_object_object_add(o, "total", json_object_new_int64((int64_t)n));
	json_object_object_add(o, "page", json_object_new_int64(page));
	json_object_object_add(o, "nodes", a);
	finish(r, 200, o);
}

static void
api_node(const char *name, const struct fleet *f, const struct history *h,
    struct expo_resp *r)
{
	const struct fleet_node *n = fleet_node(f, name);
	double gpu[PAIRS_MAX], wall[PAIRS_MAX];
	json_object *o, *a;
	size_t i, np;

	if (n == NULL)
		return fail(r, 404, "no such node");
	o = node_json(n);
	a = json_object_new_array();
	for (i = 0; i < f->n_targets; i++)
		if (strcmp(f->targets[i].node, name) == 0)
			json_object_array_add(a, target_json(&f->targets[i]));
	json_object_object_add(o, "target_health", a);
	np = history_pairs(h, name, NULL, gpu, wall, PAIRS_MAX);
	a = json_object_new_array();
	for (i = 0; i < np; i++) {
		json_object *p = json_object_new_array();

		json_object_array_add(p, jnum(gpu[i]));
		json_object_array_add(p, jnum(wall[i]));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "recent_gpu_wall_w", a);
	finish(r, 200, o);
}

static void
api_targets(const struct fleet *f, struct expo_resp *r)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	size_t i;

	for (i = 0; i < f->n_targets; i++)
		json_object_array_add(a, target_json(&f->targets[i]));
	json_object_object_add(o, "up", json_object_new_int64(
	    (int64_t)f->targets_up));
	json_object_object_add(o, "down", json_object_new_int64(
	    (int64_t)f->targets_down));
	json_object_object_add(o, "targets", a);
	finish(r, 200, o);
}

/* --- series: straight from the views --- */

struct series_walk {
	const char	*target;
	json_object	*out;		/* the target's document once found */
};

static json_object *
flags_json(unsigned flags)
{
	static const struct { unsigned f; const char *n; } names[] = {
		{ WP_F_ESTIMATED, "estimated" }, { WP_F_STALE, "stale" },
		{ WP_F_RESET, "reset" }, { WP_F_WRAPPED, "wrapped" },
		{ WP_F_AVERAGED, "averaged" }, { WP_F_OEM, "oem" },
		{ WP_F_CROSSCHECK, "crosscheck" }, { WP_F_HELD, "held" },
		{ WP_F_DISCONT, "discontinuity" },
	};
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].f)
			json_object_array_add(a,
			    json_object_new_string(names[i].n));
	return a;
}

static json_object *
sample_json(const struct wp_sample *s, const struct ingest_ctr *k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "series", json_object_new_string(s->series));
	json_object_object_add(o, "boundary",
	    json_object_new_string(boundary_name(s->boundary)));
	json_object_object_add(o, "quantity",
	    json_object_new_string(quantity_name(s->quantity)));
	json_object_object_add(o, "kind",
	    json_object_new_string(kind_name(s->kind)));
	json_object_object_add(o, "value", jnum(s->value));
	json_object_object_add(o, "unit",
	    json_object_new_string(quantity_unit(s->quantity)));
	json_object_object_add(o, "raw_value", jnum(s->raw_value));
	json_object_object_add(o, "raw_unit",
	    json_object_new_string(s->raw_unit));
	json_object_object_add(o, "time", jwhen(s->t_real));
	json_object_object_add(o, "flags", flags_json(s->flags));
	if (k != NULL && k->valid) {
		json_object_object_add(o, "cumulative", jnum(k->cum));
		json_object_object_add(o, "delta", jnum(k->delta));
	}
	json_object_object_add(o, "labels", json_object_new_string(s->labels));
	return o;
}

static int
on_series(const struct target_view *tv, void *arg)
{
	struct series_walk *w = arg;
	json_object *a;
	size_t i;

	if (strcmp(tv->name, w->target) != 0)
		return 0;
	w->out = json_object_new_object();
	json_object_object_add(w->out, "target",
	    json_object_new_string(tv->name));
	json_object_object_add(w->out, "protocol",
	    json_object_new_string(tv->driver));
	a = json_object_new_array();
	for (i = 0; i < tv->n_last; i++)
		json_object_array_add(a, sample_json(&tv->last[i],
		    tv->ctr ? &tv->ctr[i] : NULL));
	json_object_object_add(w->out, "series", a);
	return 1;
}

static void
api_series(const struct expo_req *q, fleet_each_fn each, const void *src,
    struct expo_resp *r)
{
	struct series_walk w = { q->arg(q->ctx, "target"), NULL };

	if (w.target == NULL)
		return fail(r, 400, "target= is required");
	each(src, on_series, &w);
	if (w.out == NULL)
		return fail(r, 404, "no such target");
	finish(r, 200, w.out);
}

/* --- report and curves: parsed here, run on a worker (expo.c) --- */

static int
window(const struct expo_req *q, wp_time *from, wp_time *to,
    struct expo_resp *r)
{
	const char *a = q->arg(q->ctx, "from"), *b = q->arg(q->ctx, "to");
	wp_time now = clock_real();
	char msg[WP_ERR_MSG];

	*to = now;
	if (b != NULL && timearg_opt("to", b, TA_TO, now, to, msg,
	    sizeof(msg)) == -1) {
		fail(r, 400, msg);
		return -1;
	}
	*from = *to - 3600 * WP_SEC;
	if (a != NULL && timearg_opt("from", a, TA_FROM, now, from, msg,
	    sizeof(msg)) == -1) {
		fail(r, 400, msg);
		return -1;
	}
	if (*to - *from > MAX_WINDOW) {
		fail(r, 400, "window longer than 31 days: use wattpath report");
		return -1;
	}
	return 0;
}

bool
expo_api_is_report(const struct expo_req *q)
{
	const char *p = q->path + strlen("/api/v1/");

	return strcmp(p, "report") == 0 || strcmp(p, "curves") == 0 ||
	    strcmp(p, "history") == 0;
}

/* Copies the optional argument key of q into *out.  0, or -1 (ENOMEM). */
static int
copy_arg(const struct expo_req *q, const char *key, char **out)
{
	const char *v = q->arg(q->ctx, key);

	*out = NULL;
	return v != NULL && (*out = strdup(v)) == NULL ? -1 : 0;
}

/* /api/v1/history's scope and step into rr: 0, or -1 answered. */
static int
history_parse(const struct expo_req *q, wp_time from, wp_time to,
    struct expo_report_req *rr, struct expo_resp *r)
{
	static const char *const keys[] = { "node", "rack", "pdu", "fleet" };
	const char *st = q->arg(q->ctx, "step"), *v = NULL;
	int i, n = 0;

	for (i = 0; i < 4; i++)
		if (q->arg(q->ctx, keys[i]) != NULL) {
			v = q->arg(q->ctx, keys[i]);
			rr->h.scope = i;
			n++;
		}
	if (n != 1) {
		fail(r, 400, "exactly one of node=, rack=, pdu= and fleet= is "
		    "needed");
		return -1;
	}
	if (st != NULL && (clock_parse_duration(st, &rr->h.step) == -1 ||
	    rr->h.step < WP_SEC || rr->h.step % WP_SEC != 0)) {
		fail(r, 400, "step: not a duration of whole seconds");
		return -1;
	}
	if (from >= to) {
		fail(r, 400, "from: must be before to");
		return -1;
	}
	if ((rr->name = strdup(v)) == NULL) {
		fail(r, 500, "out of memory");
		return -1;
	}
	rr->history = true;
	rr->h.name = rr->name;
	rr->h.from = from;
	rr->h.to = to;
	return 0;
}

int
expo_api_report_parse(const struct expo_req *q, struct expo_report_req *rr,
    struct expo_resp *r)
{
	bool curve = strcmp(q->path + strlen("/api/v1/"), "curves") == 0;
	const char *st = q->arg(q->ctx, "step");
	wp_time from, to, step = 0;

	memset(rr, 0, sizeof(*rr));
	if (window(q, &from, &to, r) == -1)
		return -1;
	if (strcmp(q->path + strlen("/api/v1/"), "history") == 0)
		return history_parse(q, from, to, rr, r);
	if (curve && (q->arg(q->ctx, "node") == NULL) ==
	    (q->arg(q->ctx, "class") == NULL)) {
		fail(r, 400, "exactly one of node= and class= is needed");
		return -1;
	}
	if (curve && st != NULL && (clock_parse_duration(st, &step) == -1 ||
	    step <= 0)) {
		fail(r, 400, "step: not a duration");
		return -1;
	}
	report_query_init(&rr->q, from, to);
	if (curve && (copy_arg(q, "node", &rr->node) == -1 ||
	    copy_arg(q, "class", &rr->cls) == -1)) {
		expo_api_report_fini(rr);
		fail(r, 500, "out of memory");
		return -1;
	}
	rr->q.node = rr->node;
	rr->q.cls = rr->cls;
	rr->q.req.step = step;
	return 0;
}

void
expo_api_report_run(const struct wp_conf *c, const struct expo_report_req *rr,
    struct expo_resp *r)
{
	struct wp_err err = { 0 };
	json_object *o;

	if (rr->history) {
		if (rrdhist_scope(c, &rr->h, &err) == -1)
			return fail(r, 404, err.msg);
		if ((o = rrdhist_json(c, &rr->h, &err)) != NULL)
			return finish(r, 200, o);
		return fail(r, err.class == WP_E_CONFIG ? 400 : 500, err.msg);
	}
	if (report_query_scope(c, &rr->q, &err) == -1)
		return fail(r, 404, err.msg);
	if ((o = report_query_json(c, &rr->q, &err)) != NULL)
		return finish(r, 200, o);
	if (rr->q.cancel != NULL && atomic_load(rr->q.cancel))
		return fail(r, 503, "shutting down");
	fail(r, err.class == WP_E_CONFIG ? 400 : 500, err.msg);
}

void
expo_api_report_fini(struct expo_report_req *rr)
{
	free(rr->node);
	free(rr->cls);
	free(rr->name);
	rr->node = rr->cls = rr->name = NULL;
}

void
expo_api_handle(const struct expo_req *q, const struct wp_conf *c,
    fleet_each_fn each, const void *src, const struct history *h,
    const struct expo_attr *attr, struct expo_resp *r)
{
	const char *p = q->path + strlen("/api/v1/");
	struct fleet *f;

	if (strcmp(p, "series") == 0)
		return api_series(q, each, src, r);
	if (strcmp(p, "nodes") != 0 && strncmp(p, "nodes/", 6) != 0 &&
	    strcmp(p, "targets") != 0 && strcmp(p, "fleet") != 0 &&
	    strcmp(p, "models") != 0)
		return fail(r, 404, "no such endpoint");
	if ((f = fleet_build(c, each, src, clock_real(), 0)) == NULL)
		return fail(r, 500, "out of memory");
	f->attr = attr;
	if (strcmp(p, "nodes") == 0)
		api_nodes(q, f, r);
	else if (strcmp(p, "targets") == 0)
		api_targets(f, r);
	else if (strcmp(p, "fleet") == 0)
		api_fleet(f, h, r);
	else if (strcmp(p, "models") == 0)
		api_models(f, h, r);
	else
		api_node(p + 6, f, h, r);
	fleet_free(f);
}
