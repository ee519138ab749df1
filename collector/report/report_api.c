/* report_api.c - the report's I/O around the model (see report_api.h). */
#include <stdlib.h>
#include <string.h>

#include "../../model/report.h"
#include "../conf/conf.h"
#include "../store/jsum.h"
#include "report_api.h"
#include "report_claims.h"
#include "report_inputs.h"
#include "report_json.h"
#include "report_load.h"
#include "report_merge.h"
#include "reqlog_load.h"

/* What the model is given, and what owns it. */
struct run {
	struct report_input in;
	struct report_node *nodes;
	struct report_outlet *outlets;
	struct report_meter *meters;
	struct report_plan plan;
	struct reqlog	*rq;
	struct report_merge ld;
	struct report_site_data data;
	struct report_warnings w;
	bool		*selected;	/* curve: nodes in scope */
};

void
report_query_init(struct report_query *q, wp_time from, wp_time to)
{
	memset(q, 0, sizeof(*q));
	q->req.have_window = true;
	q->req.from = from;
	q->req.to = to;
	q->req.runs = 1;
	q->req.period = -1;
}

/* The inventory of c as the model sees it. */
static int
inventory(const struct wp_conf *c, struct run *u)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->n_nodes; i++)
		n += c->nodes[i].n_outlets;
	u->nodes = calloc(c->n_nodes + 1, sizeof(*u->nodes));
	u->outlets = calloc(n + 1, sizeof(*u->outlets));
	u->meters = calloc(c->n_meters + 1, sizeof(*u->meters));
	if (u->nodes == NULL || u->outlets == NULL || u->meters == NULL)
		return -1;
	for (i = n = 0; i < c->n_nodes; i++) {
		u->nodes[i] = (struct report_node){ .name = c->nodes[i].name,
		    .cls = c->nodes[i].class, .outlets = &u->outlets[n],
		    .n_outlets = c->nodes[i].n_outlets,
		    .engines = c->nodes[i].engines,
		    .n_engines = c->nodes[i].n_engines };
		for (j = 0; j < c->nodes[i].n_outlets; j++, n++)
			u->outlets[n] = (struct report_outlet){
			    .pdu = c->nodes[i].outlets[j].pdu,
			    .outlet = c->nodes[i].outlets[j].outlet };
	}
	for (i = 0; i < c->n_meters; i++)
		u->meters[i] = (struct report_meter){ .name = c->meters[i].name,
		    .zone = c->meters[i].zone,
		    .it_measured_at = c->meters[i].it_measured_at };
	u->in = (struct report_input){ .nodes = u->nodes,
	    .n_nodes = c->n_nodes, .meters = u->meters,
	    .n_meters = c->n_meters, .interval = c->interval,
	    .set = &c->report, .site = &c->site, .data = &u->data,
	    .plan = &u->plan };
	return 0;
}

/* The curve's nodes: q->node, or the nodes of class q->cls. */
static int
select_nodes(const struct wp_conf *c, const struct report_query *q,
    struct run *u)
{
	size_t i;

	if ((u->selected = calloc(c->n_nodes + 1, sizeof(bool))) == NULL)
		return -1;
	for (i = 0; i < c->n_nodes; i++)
		u->selected[i] = q->node ? strcmp(c->nodes[i].name,
		    q->node) == 0 : c->nodes[i].class != NULL &&
		    strcmp(c->nodes[i].class, q->cls) == 0;
	return 0;
}

/* -1 with err when the journal's first reading (any target) comes after
 * the window's start: the window starts before the data. */
static int
before_data(const struct run *u, struct wp_err *err)
{
	char a[40], b[40];

	if (!u->ld.seen || u->ld.first_t <= u->plan.from)
		return 0;
	clock_iso8601(u->plan.from, a, sizeof(a));
	clock_iso8601(u->ld.first_t, b, sizeof(b));
	return err_set(err, WP_E_CONFIG, "the window starts at %s, before the "
	    "first reading in the journal (at %s): no figure can be computed "
	    "over it; start the window at or after %s", a, b, b);
}

/* Whether a tenant is given by namespace: GPUs then split by who held
 * them (their readings' namespace labels). */
static bool
tenants_by_namespace(const struct wp_conf *c)
{
	size_t t;

	for (t = 0; t < c->report.n_tenants; t++)
		if (c->report.tenants[t].n_namespaces > 0)
			return true;
	return false;
}

/* The data dirs the report reads: the query's, report.data_dirs (when
 * the query takes them), or collector.data_dir. */
static void
data_dirs(const struct wp_conf *c, const struct report_query *q,
    struct report_merge *m)
{
	if (q->n_data_dirs > 0) {
		m->dirs = q->data_dirs;
		m->n_dirs = q->n_data_dirs;
	} else if (q->config_dirs && c->report.n_data_dirs > 0) {
		m->dirs = (const char *const *)c->report.data_dirs;
		m->n_dirs = c->report.n_data_dirs;
	} else {
		m->dirs = (const char *const *)&c->data_dir;
		m->n_dirs = 1;
	}
}

/* What a report over several data dirs says of its choices. */
static void
merge_warnings(const struct report_merge *m, struct report_warnings *w)
{
	if (m->shared == 0)
		return;
	report_warn(w, "%zu targets were polled by several collectors (data "
	    "dirs): each target's series were taken from one of them, never "
	    "added (disclosure.sources)", m->shared);
	if (m->moved > 0)
		report_warn(w, "%zu targets were taken from a data dir other than "
		    "the first listed holding them, whose series had a gap or a "
		    "refused window: %s%s", m->moved, m->moved_names,
		    m->moved > 4 ? ", ..." : "");
}

/* Everything up to the model: the request log, the windows, the journal,
 * the site's files.  0, or -1 with err. */
static int
prepare(const struct wp_conf *c, const struct report_query *q, struct run *u,
    struct wp_err *err)
{
	struct report_request req = q->req;

	/* long windows: curve steps in whole ledger slots, so the ledger's
	 * blocks fit them (docs/ledger.md) */
	req.slot = req.have_window && req.to - req.from >= 7 * 86400 * WP_SEC &&
	    c->ledger_slot > 0 ? c->ledger_slot : JSUM_SLOT_DEFAULT;
	if (inventory(c, u) == -1 || (req.curve && select_nodes(c, q,
	    u) == -1))
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (q->requests != NULL &&
	    (u->rq = reqlog_load(q->requests, err)) == NULL)
		return -1;
	if (report_plan_make(&u->plan, &req, &c->report, u->rq, q->requests,
	    c->interval, &u->w, err) == -1)
		return -1;
	u->ld = (struct report_merge){ .c = c, .p = &u->plan,
	    .selected = u->selected, .cancel = q->cancel,
	    .holders = !req.curve && tenants_by_namespace(c) };
	data_dirs(c, q, &u->ld);
	if (report_merge_scan(&u->ld, err) == -1)
		return -1;
	if (q->refuse_before_data && before_data(u, err) == -1)
		return -1;
	if (!req.curve) {
		report_site_data_load(c, &u->data);
		report_claims_load(c, u->plan.from, u->plan.to, &u->data);
	}
	u->in.rq = u->rq;
	u->in.ser = u->ld.v;
	u->in.n_ser = u->ld.n;
	u->in.segments_read = u->ld.segments_read;
	u->in.summaries_used = u->ld.summaries_used;
	u->in.ledger_used = u->ld.ledger_used;
	u->in.ledger_days = u->ld.ledger_days;
	u->in.sources = u->ld.src;
	u->in.n_sources = u->ld.n_src;
	merge_warnings(&u->ld, &u->w);
	if (u->ld.ledger_snapped > 0)
		report_warn(&u->w, "raw journal records at a window edge have "
		    "expired: %zu ledger spans in %zu ledger blocks were taken "
		    "as their first and last readings (the edge snaps to the "
		    "ledger slot)", u->ld.ledger_snapped, u->ld.ledger_forced);
	return 0;
}

static void
run_fini(struct run *u)
{
	if (u->ld.p != NULL)
		report_merge_fini(&u->ld);
	report_site_data_fini(&u->data);
	report_warnings_fini(&u->w);
	reqlog_free(u->rq);
	free(u->selected);
	free(u->nodes);
	free(u->outlets);
	free(u->meters);
}

struct report *
report_run(const struct wp_conf *c, const struct report_query *q,
    struct wp_err *err)
{
	struct run u = { 0 };
	struct report *r = NULL;
	struct report_query rq = *q;

	rq.req.curve = false;
	if (prepare(c, &rq, &u, err) == 0 &&
	    (r = report_new(&u.in, &u.w)) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory building the "
		    "report");
	run_fini(&u);
	return r;
}

int
report_query_scope(const struct wp_conf *c, const struct report_query *q,
    struct wp_err *err)
{
	size_t i;

	if (q->node != NULL)
		return conf_node_by_name(c, q->node) != NULL ? 0 :
		    err_set(err, WP_E_CONFIG, "no node named '%s'", q->node);
	if (q->cls == NULL)
		return 0;
	for (i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].class != NULL &&
		    strcmp(c->nodes[i].class, q->cls) == 0)
			return 0;
	return err_set(err, WP_E_CONFIG, "no node of class '%s'", q->cls);
}

struct report_curve_doc *
report_curve_run(const struct wp_conf *c, const struct report_query *q,
    struct wp_err *err)
{
	struct run u = { 0 };
	struct report_curve_doc *d = NULL;
	struct report_query cq = *q;

	if ((q->node == NULL) == (q->cls == NULL)) {
		err_set(err, WP_E_CONFIG, "one of node or class is needed");
		return NULL;
	}
	if (report_query_scope(c, q, err) == -1)
		return NULL;
	cq.req.curve = true;
	cq.req.runs = 1;
	if (prepare(c, &cq, &u, err) == 0 && (d = report_curve_doc_new(&u.in,
	    u.selected, q->node ? q->node : q->cls, &u.w)) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	run_fini(&u);
	return d;
}

json_object *
report_query_json(const struct wp_conf *c, const struct report_query *q,
    struct wp_err *err)
{
	struct report_curve_doc *d;
	struct report *r;
	json_object *o;

	if (q->node != NULL || q->cls != NULL) {
		if ((d = report_curve_run(c, q, err)) == NULL)
			return NULL;
		o = report_curve_json_doc(d);
		report_curve_doc_free(d);
	} else {
		if ((r = report_run(c, q, err)) == NULL)
			return NULL;
		o = report_json_doc(r);
		report_free(r);
	}
	if (o == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	return o;
}

json_object *
report_json(const struct wp_conf *c, wp_time from, wp_time to,
    struct wp_err *err)
{
	struct report_query q;

	report_query_init(&q, from, to);
	return report_query_json(c, &q, err);
}

json_object *
report_curve_json(const struct wp_conf *c, const char *node, const char *cls,
    wp_time from, wp_time to, wp_time step, struct wp_err *err)
{
	struct report_query q;

	if ((node == NULL) == (cls == NULL)) {
		err_set(err, WP_E_CONFIG, "one of node or class is needed");
		return NULL;
	}
	report_query_init(&q, from, to);
	q.node = node;
	q.cls = cls;
	q.req.step = step;
	return report_query_json(c, &q, err);
}
