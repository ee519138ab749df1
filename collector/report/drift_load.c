/*
 * drift_load.c - the drift watch over a period of the journal.  See
 * drift_load.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "drift_load.h"
#include "report_load.h"

/* One side of a pair over one window: a sum of series. */
struct side {
	double	 e, bound;
	size_t	 n, bad;
};

/* The sums of one window. */
struct sums {
	struct side *wall, *out, *gib, *gbmc;	/* per node */
	struct side *pout, *inlet;		/* per PDU */
	struct side it;
};

struct ctx {
	const struct wp_conf *c;
	struct drift_table *t;
	struct report_load *l;
	const struct report_plan *p;
	int	*pdu_of;	/* per series: its PDU, -1 none */
	struct sums s;
	size_t	 nn, np;
};

/* --------------------------------------------------------- pairs */

static size_t
pair_index(const struct ctx *x, int kind, size_t i)
{
	switch (kind) {
	case DK_WALL_OUTLET:
		return i;
	case DK_GPU_BMC:
		return x->nn + i;
	case DK_PDU_INLET:
		return 2 * x->nn + i;
	}
	return 2 * x->nn + x->np;
}

static const char *
it_meter_name(const struct wp_conf *c)
{
	size_t i;

	for (i = 0; i < c->n_meters; i++)
		if (strcmp(c->meters[i].role, "it_total") == 0)
			return c->meters[i].name;
	return "site";
}

/* The window of kind k: the config's, at least the report's shortest. */
static wp_time
win_len(const struct wp_conf *c, int k)
{
	return c->drift.window[k] > REPORT_MIN_WINDOW ? c->drift.window[k] :
	    REPORT_MIN_WINDOW;
}

static int
pairs_init(struct ctx *x)
{
	struct drift_table *t = x->t;
	struct drift_opts o;
	size_t i, n = 2 * x->nn + x->np + 1;

	if ((t->v = calloc(n, sizeof(*t->v))) == NULL)
		return -1;
	t->n = n;
	for (i = 0; i < n; i++) {
		struct drift_pair *p = &t->v[i];

		p->kind = i < x->nn ? DK_WALL_OUTLET : i < 2 * x->nn ?
		    DK_GPU_BMC : i < n - 1 ? DK_PDU_INLET : DK_IT_INLETS;
		p->name = i < 2 * x->nn ? x->c->nodes[i % x->nn].name :
		    i < n - 1 ? x->c->pdus[i - 2 * x->nn].name :
		    it_meter_name(x->c);
		p->window = win_len(x->c, p->kind);
		drift_opts_for(&x->c->drift, p->kind, &o);
		if (drift_track_init(&p->t, &o) == -1)
			return -1;
	}
	return 0;
}

/* Drops the pairs that never had a measured window. */
static void
pairs_compact(struct drift_table *t)
{
	size_t i, k = 0;

	for (i = 0; i < t->n; i++)
		if (t->v[i].t.n > 0) {
			t->v[k++] = t->v[i];
			t->drifting += t->v[i].t.events > 0;
		}
	t->n = k;
}

/* --------------------------------------------------------- sums */

static int
sums_alloc(struct ctx *x)
{
	struct side *b = calloc(4 * x->nn + 2 * x->np + 1, sizeof(*b));

	if (b == NULL)
		return -1;
	x->s.wall = b;
	x->s.out = b + x->nn;
	x->s.gib = b + 2 * x->nn;
	x->s.gbmc = b + 3 * x->nn;
	x->s.pout = b + 4 * x->nn;
	x->s.inlet = b + 4 * x->nn + x->np;
	return 0;
}

static void
sums_clear(struct ctx *x)
{
	memset(x->s.wall, 0, (4 * x->nn + 2 * x->np + 1) * sizeof(*x->s.wall));
	memset(&x->s.it, 0, sizeof(x->s.it));
}

/*
 * Adds series s's energy over window run.  A window the report refuses
 * only because the counter's step is coarse for the energy (an outlet
 * that stopped counting: 0 Wh) is a measurement here, within its bound of
 * one step; any other refusal (no data, a reset inside) makes the side
 * unknown.
 */
static void
side_add(struct side *sd, const struct report_series *s, int run, int runs)
{
	const struct integ *g = runs > 1 ? &s->run[run] : &s->main;
	int rc = runs > 1 ? s->run_e[run].rc : s->rc;
	double e = runs > 1 ? s->run_e[run].energy : s->res.energy;

	sd->n++;
	if (rc == -1 && g->reason != INTEG_RESOLUTION) {
		sd->bad++;
		return;
	}
	sd->e += e;
	sd->bound += s->main.o.resolution + s->res.edge_bound;
}

/* The PDU of the outlet or inlet series s ("<pdu>|..."), or -1. */
static int
pdu_of(const struct wp_conf *c, const struct report_series *s)
{
	const char *bar = strchr(s->key, '|');
	size_t i, len = bar != NULL ? (size_t)(bar - s->key) : 0;

	for (i = 0; i < c->n_pdus && len > 0; i++)
		if (strlen(c->pdus[i].name) == len &&
		    strncmp(c->pdus[i].name, s->key, len) == 0)
			return (int)i;
	return -1;
}

static void
sums_series(struct ctx *x, size_t k, int run)
{
	const struct report_series *s = x->l->v[k];
	int runs = x->p->runs, pd = x->pdu_of[k];
	size_t nd = (size_t)s->node;

	if (s->kind != WP_COUNTER)
		return;		/* energy only: never a gauge */
	switch (s->role) {
	case RR_WALL:
		side_add(&x->s.wall[nd], s, run, runs);
		break;
	case RR_OUTLET:
		side_add(&x->s.out[nd], s, run, runs);
		if (pd >= 0)
			side_add(&x->s.pout[pd], s, run, runs);
		break;
	case RR_GPU_IB:
		side_add(&x->s.gib[nd], s, run, runs);
		break;
	case RR_GPU_BMC:
		side_add(&x->s.gbmc[nd], s, run, runs);
		break;
	case RR_INLET:
		if (pd >= 0)
			side_add(&x->s.inlet[pd], s, run, runs);
		break;
	case RR_IT:
		if (x->s.it.n == 0)
			side_add(&x->s.it, s, run, runs);
		break;
	}
}

/* ------------------------------------------------------- windows */

static bool
ok(const struct side *s)
{
	return s->n > 0 && s->bad == 0;
}

static void
win_of(struct drift_win *w, const struct side *a, const struct side *b)
{
	w->valid = ok(a) && ok(b);
	w->a = a->e;
	w->b = b->e;
	w->bound_a = a->bound;
	w->bound_b = b->bound;
}

/* The site's inlets: every PDU that has an inlet series, all valid. */
static void
site_inlets(const struct ctx *x, struct side *out)
{
	size_t p;

	memset(out, 0, sizeof(*out));
	for (p = 0; p < x->np; p++) {
		const struct side *s = &x->s.inlet[p];

		out->n += s->n;
		out->bad += s->bad;
		out->e += s->e;
		out->bound += s->bound;
	}
}

static void
feed(struct ctx *x, int kind, size_t i, const struct drift_win *w, int run)
{
	struct drift_pair *p = &x->t->v[pair_index(x, kind, i)];

	if (drift_track_add(&p->t, w) == DRIFT_EV_START && p->event_to == 0)
		p->event_to = x->p->run_to[run];
}

static void
window_feed(struct ctx *x, unsigned mask, int run)
{
	struct drift_win w;
	struct side in;
	size_t i;

	for (i = 0; i < x->nn; i++) {
		if (mask & 1u << DK_WALL_OUTLET) {
			win_of(&w, &x->s.wall[i], &x->s.out[i]);
			feed(x, DK_WALL_OUTLET, i, &w, run);
		}
		if (mask & 1u << DK_GPU_BMC) {
			win_of(&w, &x->s.gib[i], &x->s.gbmc[i]);
			w.valid = w.valid && x->s.gib[i].n == x->s.gbmc[i].n;
			feed(x, DK_GPU_BMC, i, &w, run);
		}
	}
	for (i = 0; i < x->np && (mask & 1u << DK_PDU_INLET); i++) {
		win_of(&w, &x->s.pout[i], &x->s.inlet[i]);
		feed(x, DK_PDU_INLET, i, &w, run);
	}
	if (mask & 1u << DK_IT_INLETS) {
		site_inlets(x, &in);
		win_of(&w, &in, &x->s.it);
		feed(x, DK_IT_INLETS, 0, &w, run);
	}
}

/* --------------------------------------------------------- scans */

/* One scan: the windows [from + i * len, + len) for i < runs. */
static int
scan_chunk(struct ctx *x, wp_time from, wp_time len, int runs,
    unsigned mask, struct wp_err *err)
{
	struct report_plan p = { .from = from, .to = from + runs * len,
	    .runs = runs, .run_method = "drift windows", .period = -1 };
	struct report_load l = { .c = x->c, .p = &p, .inlets = true };
	int r, rc = -1;
	size_t k;

	for (r = 0; r < runs; r++) {
		p.run_from[r] = from + r * len;
		p.run_to[r] = from + (r + 1) * len;
	}
	x->l = &l;
	x->p = &p;
	if (report_load_scan(&l, err) == -1)
		goto out;
	if ((x->pdu_of = calloc(l.n + 1, sizeof(*x->pdu_of))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto out;
	}
	for (k = 0; k < l.n; k++)
		x->pdu_of[k] = pdu_of(x->c, l.v[k]);
	for (r = 0; r < runs; r++) {
		sums_clear(x);
		for (k = 0; k < l.n; k++)
			if (l.v[k]->role != RR_NONE)
				sums_series(x, k, r);
		window_feed(x, mask, r);
	}
	rc = 0;
out:
	free(x->pdu_of);
	x->pdu_of = NULL;
	report_load_fini(&l);
	return rc;
}

/* Every window of length len over the period, for the kinds in mask. */
static int
scan_kinds(struct ctx *x, wp_time len, unsigned mask, struct wp_err *err)
{
	wp_time from = x->t->from;
	long left = (long)((x->t->to - from) / len);

	while (left > 0) {
		int runs = left > REPORT_MAX_RUNS ? REPORT_MAX_RUNS : (int)left;

		if (scan_chunk(x, from, len, runs, mask, err) == -1)
			return -1;
		from += runs * len;
		left -= runs;
	}
	return 0;
}

int
drift_table_load(const struct wp_conf *c, wp_time from, wp_time to,
    struct drift_table *t, struct wp_err *err)
{
	struct ctx x = { .c = c, .t = t, .nn = c->n_nodes, .np = c->n_pdus };
	unsigned done = 0, mask;
	int k, j, rc = -1;

	t->from = from;
	t->to = to;
	if (pairs_init(&x) == -1 || sums_alloc(&x) == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (k = 0; k < DK_N; k++) {
		if (done & 1u << k)
			continue;
		for (mask = 0, j = k; j < DK_N; j++)
			if (win_len(c, j) == win_len(c, k))
				mask |= 1u << j;
		done |= mask;
		if (to - from < win_len(c, k))
			continue;
		if (scan_kinds(&x, win_len(c, k), mask, err) == -1)
			goto out;
	}
	pairs_compact(t);
	rc = 0;
out:
	free(x.s.wall);
	return rc;
}

void
drift_table_fini(struct drift_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
