/* expo_rrdhist.c - /api/v1/history from the RRD store (see
 * expo_rrdhist.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "../conf/conf_rack.h"
#include "../store/rrdread.h"
#include "expo_jtail.h"
#include "expo_rrdhist.h"

#define MAX_PARTS	64	/* GPUs, phases, PDUs kept per scope */

/* One series being summed: the total, its files, the earliest end. */
struct acc {
	double	*v;
	size_t	 files;
	wp_time	 written_to;
};

struct hctx {
	const struct wp_conf *c;
	struct rrdgrid g;
	double	*tmp;
	json_object *series;
	wp_time	 written_to;	/* the earliest of every file read */
	size_t	 files;
	struct jtail *tail;	/* the journal after the files' ends */
	bool	 tail_tried;
	char	 tail_err[WP_ERR_MSG];	/* why the journal was not read */
	size_t	 journal_points;	/* points filled from it */
};

/* Fills the points of target's prefix after wt from the journal (no
 * rrdcached: the collector holds them, expo_jtail.h). */
static void
tail_fill(struct hctx *h, const char *target, const char *prefix, wp_time wt)
{
	wp_time end = h->g.t0 + (wp_time)(h->g.n - 1) * h->g.step;
	struct wp_err err = { 0 };
	size_t i, before = 0, after = 0;

	if (h->c->rrdcached != NULL || wt >= end)
		return;
	if (!h->tail_tried) {
		h->tail_tried = true;
		if ((h->tail = jtail_load(h->c, &h->g, &err)) == NULL)
			snprintf(h->tail_err, sizeof(h->tail_err), "%s", err.msg);
	}
	if (h->tail == NULL)
		return;
	for (i = 0; i < h->g.n; i++)
		before += !isnan(h->tmp[i]);
	jtail_fill(h->tail, target, prefix, wt, h->tmp);
	for (i = 0; i < h->g.n; i++)
		after += !isnan(h->tmp[i]);
	h->journal_points += after - before;
}

static json_object *
jnum(double v)
{
	char buf[48];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.3f", v);	/* mW: plain decimals */
	return json_object_new_double_s(round(v * 1000) / 1000, buf);
}

static int
acc_init(struct acc *a, size_t n)
{
	size_t i;

	a->files = 0;
	a->written_to = 0;
	if ((a->v = calloc(n, sizeof(*a->v))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		a->v[i] = NAN;
	return 0;
}

/* Adds target's prefix to a: 0 (read or no file), -1 with err. */
static int
acc_add(struct hctx *h, struct acc *a, const char *target, const char *prefix,
    struct wp_err *err)
{
	wp_time wt = 0;
	size_t i;
	int rc;

	rc = rrdread_power(h->c->data_dir, h->c->rrdcached, target, prefix,
	    &h->g, h->tmp, &wt, err);
	if (rc <= 0)
		return rc;
	tail_fill(h, target, prefix, wt);
	for (i = 0; i < h->g.n; i++)
		a->v[i] = a->files == 0 ? h->tmp[i] : a->v[i] + h->tmp[i];
	if (a->files == 0 || wt < a->written_to)
		a->written_to = wt;
	a->files++;
	if (h->files == 0 || wt < h->written_to)
		h->written_to = wt;
	h->files++;
	return 0;
}

/* Appends {name, kind, [pdu, index,] files, written_to, power_w}; frees a. */
static void
acc_emit(struct hctx *h, struct acc *a, const char *name, const char *kind,
    const char *pdu, int index)
{
	json_object *o, *p;
	size_t i;

	if (a->files > 0) {
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "kind", json_object_new_string(kind));
		if (pdu != NULL) {
			json_object_object_add(o, "pdu",
			    json_object_new_string(pdu));
			json_object_object_add(o, "index",
			    json_object_new_int(index));
		}
		json_object_object_add(o, "files",
		    json_object_new_int64((int64_t)a->files));
		json_object_object_add(o, "written_to", json_object_new_int64(
		    a->written_to / WP_SEC));
		p = json_object_new_array_ext((int)h->g.n);
		for (i = 0; i < h->g.n; i++)
			json_object_array_add(p, jnum(a->v[i]));
		json_object_object_add(o, "power_w", p);
		json_object_array_add(h->series, o);
	}
	free(a->v);
	a->v = NULL;
}

/* The boundaries of node nd into the three sums. */
static int
node_add(struct hctx *h, const struct wp_node *nd, struct acc b[3],
    struct wp_err *err)
{
	char target[512], prefix[160];
	int gpus[MAX_PARTS];
	size_t i, n;

	snprintf(target, sizeof(target), "%s/bmc", nd->name);
	if (acc_add(h, &b[0], target, "wall/", err) == -1)
		return -1;
	snprintf(target, sizeof(target), "%s/gpu", nd->name);
	n = rrdread_indexes(h->c->data_dir, target, "gpu", gpus, MAX_PARTS);
	for (i = 0; i < n; i++) {
		snprintf(prefix, sizeof(prefix), "gpu/%d/", gpus[i]);
		if (acc_add(h, &b[1], target, prefix, err) == -1)
			return -1;
	}
	for (i = 0; i < nd->n_outlets; i++) {
		snprintf(prefix, sizeof(prefix), "outlet/%s/",
		    nd->outlets[i].outlet);
		if (acc_add(h, &b[2], nd->outlets[i].pdu, prefix, err) == -1)
			return -1;
	}
	return 0;
}

/* Each phase of pdu (else each inlet) as a series of its own. */
static int
pdu_series(struct hctx *h, const char *pdu, struct wp_err *err)
{
	static const char *const kinds[] = { "phase", "inlet" };
	int ix[MAX_PARTS];
	char prefix[64], name[200];
	struct acc a;
	size_t k, i, n;

	for (k = 0; k < 2; k++) {
		n = rrdread_indexes(h->c->data_dir, pdu, kinds[k], ix, MAX_PARTS);
		for (i = 0; i < n; i++) {
			if (acc_init(&a, h->g.n) == -1)
				return err_set(err, WP_E_INTERNAL,
				    "out of memory");
			snprintf(prefix, sizeof(prefix), "%s/%d/", kinds[k], ix[i]);
			snprintf(name, sizeof(name), "%s %s %d", pdu, kinds[k],
			    ix[i]);
			if (acc_add(h, &a, pdu, prefix, err) == -1) {
				free(a.v);
				return -1;
			}
			acc_emit(h, &a, name, kinds[k], pdu, ix[i]);
		}
		if (n > 0)
			break;
	}
	return 0;
}

/* The distinct PDUs the outlets of rack's nodes are on, up to max. */
static size_t
rack_pdus(const struct wp_conf *c, const char *rack, const char **out,
    size_t max)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < c->n_nodes; i++) {
		const struct wp_node *nd = &c->nodes[i];

		if (nd->rack == NULL || strcmp(nd->rack, rack) != 0)
			continue;
		for (j = 0; j < nd->n_outlets && n < max; j++) {
			for (k = 0; k < n; k++)
				if (strcmp(out[k], nd->outlets[j].pdu) == 0)
					break;
			if (k == n)
				out[n++] = nd->outlets[j].pdu;
		}
	}
	return n;
}

static int
boundaries(struct hctx *h, const struct rrdhist_query *q, struct wp_err *err)
{
	static const char *const names[3] = { "wall", "gpu", "outlet" };
	struct acc b[3] = { { 0 }, { 0 }, { 0 } };
	size_t i;
	int rc = 0;

	for (i = 0; i < 3; i++)
		if (acc_init(&b[i], h->g.n) == -1)
			rc = err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; rc == 0 && i < h->c->n_nodes; i++) {
		const struct wp_node *nd = &h->c->nodes[i];

		if (q->scope == RH_FLEET || (q->scope == RH_NODE ?
		    strcmp(nd->name, q->name) == 0 :
		    nd->rack != NULL && strcmp(nd->rack, q->name) == 0))
			rc = node_add(h, nd, b, err);
	}
	for (i = 0; i < 3; i++) {
		if (rc == 0)
			acc_emit(h, &b[i], names[i], names[i], NULL, 0);
		free(b[i].v);
	}
	return rc;
}

/* Each site meter as a series of its own. */
static int
meter_series(struct hctx *h, struct wp_err *err)
{
	char name[200];
	struct acc a;
	size_t i;

	for (i = 0; i < h->c->n_meters; i++) {
		const struct wp_meter *m = &h->c->meters[i];

		if (acc_init(&a, h->g.n) == -1)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		snprintf(name, sizeof(name), "meter %s (%s)", m->name, m->role);
		if (acc_add(h, &a, m->name, "", err) == -1) {
			free(a.v);
			return -1;
		}
		acc_emit(h, &a, name, "meter", NULL, 0);
	}
	return 0;
}

int
rrdhist_scope(const struct wp_conf *c, const struct rrdhist_query *q,
    struct wp_err *err)
{
	size_t i;

	if (q->scope == RH_FLEET)
		return 0;
	for (i = 0; q->scope == RH_NODE && i < c->n_nodes; i++)
		if (strcmp(c->nodes[i].name, q->name) == 0)
			return 0;
	for (i = 0; q->scope == RH_RACK && i < c->n_nodes; i++)
		if (c->nodes[i].rack != NULL && strcmp(c->nodes[i].rack,
		    q->name) == 0)
			return 0;
	for (i = 0; q->scope == RH_PDU && i < c->n_pdus; i++)
		if (strcmp(c->pdus[i].name, q->name) == 0)
			return 0;
	return err_set(err, WP_E_CONFIG, "no %s named '%s' in the "
	    "configuration", q->scope == RH_NODE ? "node" : q->scope ==
	    RH_RACK ? "rack" : "pdu", q->name);
}

static json_object *
document(struct hctx *h, const struct rrdhist_query *q)
{
	static const char *const sn[] = { "node", "rack", "pdu", "fleet" };
	const struct wp_rack *r;
	json_object *o = json_object_new_object(), *t;
	size_t i;

	json_object_object_add(o, "scope", json_object_new_string(sn[q->scope]));
	json_object_object_add(o, "name", json_object_new_string(q->name));
	json_object_object_add(o, "from", json_object_new_int64(
	    (h->g.t0 - h->g.step) / WP_SEC));
	json_object_object_add(o, "to", json_object_new_int64((h->g.t0 +
	    (wp_time)(h->g.n - 1) * h->g.step) / WP_SEC));
	json_object_object_add(o, "step_s", json_object_new_int64(h->g.step /
	    WP_SEC));
	json_object_object_add(o, "source", json_object_new_string(
	    h->c->rrdcached != NULL ? "rrd (rrdcached, flushed)" : "rrd"));
	json_object_object_add(o, "written_to", h->files == 0 ? NULL :
	    json_object_new_int64(h->written_to / WP_SEC));
	json_object_object_add(o, "journal_points", json_object_new_int64(
	    (int64_t)h->journal_points));
	json_object_object_add(o, "journal_from", h->tail == NULL ? NULL :
	    json_object_new_int64(jtail_from(h->tail) / WP_SEC));
	if (*h->tail_err)
		json_object_object_add(o, "journal_error",
		    json_object_new_string(h->tail_err));
	if (q->scope == RH_FLEET)
		json_object_object_add(o, "nodes_summed", json_object_new_boolean(
		    h->c->n_nodes <= RRDHIST_FLEET_NODES));
	if (q->scope == RH_RACK) {
		r = conf_rack(h->c, q->name);
		json_object_object_add(o, "capacity_w", r != NULL ?
		    json_object_new_double(r->capacity_w) : NULL);
	}
	t = json_object_new_array_ext((int)h->g.n);
	for (i = 0; i < h->g.n; i++)
		json_object_array_add(t, json_object_new_int64((h->g.t0 +
		    (wp_time)i * h->g.step) / WP_SEC));
	json_object_object_add(o, "t", t);
	json_object_object_add(o, "series", h->series);
	h->series = NULL;
	return o;
}

json_object *
rrdhist_json(const struct wp_conf *c, const struct rrdhist_query *q,
    struct wp_err *err)
{
	struct hctx h = { .c = c };
	const char *pdus[MAX_PARTS];
	json_object *o = NULL;
	size_t i, n;
	int rc = 0;

	if (rrdgrid_make(q->from, q->to, q->step, &h.g, err) == -1)
		return NULL;
	if ((h.tmp = calloc(h.g.n, sizeof(*h.tmp))) == NULL ||
	    (h.series = json_object_new_array()) == NULL) {
		free(h.tmp);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (q->scope == RH_FLEET)
		rc = meter_series(&h, err);
	if (rc == 0 && (q->scope == RH_NODE || q->scope == RH_RACK ||
	    (q->scope == RH_FLEET && c->n_nodes <= RRDHIST_FLEET_NODES)))
		rc = boundaries(&h, q, err);
	if (rc == 0 && q->scope == RH_PDU)
		rc = pdu_series(&h, q->name, err);
	else if (rc == 0 && q->scope == RH_RACK) {
		n = rack_pdus(c, q->name, pdus, MAX_PARTS);
		for (i = 0; rc == 0 && i < n; i++)
			rc = pdu_series(&h, pdus[i], err);
	}
	if (rc == 0)
		o = document(&h, q);
	json_object_put(h.series);
	jtail_free(h.tail);
	free(h.tmp);
	return o;
}
