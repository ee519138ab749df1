/*
 * drift_watch.c - the drift watch while the collector runs.  See
 * drift_watch.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "drift_watch.h"
#include "lib/hmap.h"
#include "../model/counter.h"
#include "lib/log.h"
#include "lib/strcopy.h"

#define MEM_MAX	2	/* pairs one series belongs to */
#define CTR_UNKNOWN (CTR_DISCONT | CTR_RESET | CTR_HELD | CTR_IMPLAUSIBLE)

/* One series in one pair: its edges on the pair's window grid. */
struct dw_mem {
	size_t	 pair;
	int	 side;		/* 0: a, 1: b */
	bool	 have_edge, have_win;
	wp_time	 edge_b;	/* the last edge passed */
	double	 edge_v;	/* the cumulative interpolated there */
	wp_time	 win_b;		/* the end of the last window closed */
	double	 win_e;		/* its energy */
};

/* A series that belongs to a pair, one allocation: the struct, its n_mem
 * memberships, then its name.  A series of no pair (an outlet that feeds
 * no configured node, a phase) has no record: classify says so again at
 * each poll, from its target's few facts (struct dw_tgt). */
struct dw_ser {
	bool	 have_prev;
	int	 n_mem;
	wp_time	 prev_t;
	double	 prev_v;
	double	 res;		/* the counter's resolution (bound) */
	struct dw_mem mem[];	/* n_mem, then the series' name */
};

static const char *
ser_name(const struct dw_ser *s)
{
	return (const char *)&s->mem[s->n_mem];
}

/* An outlet of a PDU that feeds a node (borrowed from the conf). */
struct dw_claim {
	const char *outlet;
	int	 node;
};

/* A target seen: what classifying its series needs (found once), and its
 * series that belong to pairs, in the order first seen. */
struct dw_tgt {
	int	 cls;		/* TG_* */
	int	 idx;		/* node or PDU index */
	bool	 bmc;		/* a node's "/bmc" target */
	struct dw_claim *claims;	/* PDU: its outlets that feed nodes,
					   by outlet text */
	size_t	 nclaims;
	struct dw_ser **m;	/* members */
	size_t	 nm, mcap;
	size_t	 next;		/* the member expected next (polls give
				   their series in the same order) */
	char	 name[];
};

enum { TG_NONE, TG_NODE, TG_PDU, TG_IT_METER };

/* The pairs a series belongs to, as classify finds them. */
struct dw_class {
	struct dw_mem mem[MEM_MAX];
	int	 n;
};

struct dw_pair {
	int	 kind;
	const char *name;
	wp_time	 window;
	struct drift_track t;
	wp_time	 last_b;	/* last window fed */
	struct dw_ser **m;	/* members */
	int	*mi;		/* their membership index */
	size_t	 nm, cap;
};

struct drift_watch {
	const struct wp_conf *c;
	struct dw_pair **p;	/* np, each made when a series joins it */
	size_t	 np, nn;
	struct hmap tg;		/* struct dw_tgt by name */
	bool	 it_meter;	/* an it_total meter is configured */
};

/* ------------------------------------------------------- building */

static size_t
pair_of(const struct drift_watch *w, int kind, size_t i)
{
	switch (kind) {
	case DK_WALL_OUTLET:
		return i;
	case DK_GPU_BMC:
		return w->nn + i;
	case DK_PDU_INLET:
		return 2 * w->nn + i;
	}
	return w->np - 1;
}

static const char *
it_meter(const struct wp_conf *c)
{
	size_t i;

	for (i = 0; i < c->n_meters; i++)
		if (strcmp(c->meters[i].role, "it_total") == 0)
			return c->meters[i].name;
	return NULL;
}

struct drift_watch *
drift_watch_new(const struct wp_conf *c)
{
	struct drift_watch *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->c = c;
	w->nn = c->n_nodes;
	w->it_meter = it_meter(c) != NULL;
	w->np = 2 * c->n_nodes + c->n_pdus + 1;
	if ((w->p = calloc(w->np, sizeof(*w->p))) == NULL)
		return free(w), NULL;
	return w;
}

/* Pair i, made on first use; NULL out of memory. */
static struct dw_pair *
pair_get(struct drift_watch *w, size_t i)
{
	const struct wp_conf *c = w->c;
	struct drift_opts o;
	struct dw_pair *p;

	if (w->p[i] != NULL)
		return w->p[i];
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->kind = i < w->nn ? DK_WALL_OUTLET : i < 2 * w->nn ?
	    DK_GPU_BMC : i < w->np - 1 ? DK_PDU_INLET : DK_IT_INLETS;
	p->name = i < 2 * w->nn ? c->nodes[i % w->nn].name :
	    i < w->np - 1 ? c->pdus[i - 2 * w->nn].name : it_meter(c);
	p->window = c->drift.window[p->kind];
	drift_opts_for(&c->drift, p->kind, &o);
	(void)drift_track_init(&p->t, &o);	/* checked by conf */
	return w->p[i] = p;
}

void
drift_watch_free(struct drift_watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->tg.cap; i++) {
		struct dw_tgt *t = w->tg.slot[i].e;

		if (t == NULL)
			continue;
		while (t->nm > 0)
			free(t->m[--t->nm]);
		free(t->m);
		free(t->claims);
		free(t);
	}
	for (i = 0; i < w->np; i++)
		if (w->p[i] != NULL) {
			free(w->p[i]->m);
			free(w->p[i]->mi);
			free(w->p[i]);
		}
	hmap_fini(&w->tg);
	free(w->p);
	free(w);
}

/* ------------------------------------------------- classification */

/* By outlet text, then node: an outlet two nodes claim is the first's. */
static int
claim_cmp(const void *a, const void *b)
{
	const struct dw_claim *x = a, *y = b;
	int d = strcmp(x->outlet, y->outlet);

	return d != 0 ? d : (x->node > y->node) - (x->node < y->node);
}

/* PDU pdu's outlets that feed nodes (the claims the report and calibrate
 * use), sorted by their text.  0, or -1 out of memory. */
static int
tgt_claims(struct drift_watch *w, struct dw_tgt *t, const char *pdu)
{
	const struct wp_conf *c = w->c;
	size_t i, j, n = 0;

	for (i = 0; i < c->n_nodes; i++)
		for (j = 0; j < c->nodes[i].n_outlets; j++)
			n += strcmp(c->nodes[i].outlets[j].pdu, pdu) == 0;
	if (n == 0)
		return 0;
	if ((t->claims = calloc(n, sizeof(*t->claims))) == NULL)
		return -1;
	for (i = 0; i < c->n_nodes; i++)
		for (j = 0; j < c->nodes[i].n_outlets; j++) {
			const struct wp_outlet_ref *o = &c->nodes[i].outlets[j];

			if (strcmp(o->pdu, pdu) != 0)
				continue;
			t->claims[t->nclaims].outlet = o->outlet;
			t->claims[t->nclaims++].node = (int)i;
		}
	qsort(t->claims, t->nclaims, sizeof(*t->claims), claim_cmp);
	return 0;
}

/* The node fed by the outlet whose text is n[0..len) of PDU target t (the
 * first node claiming it), or -1. */
static int
outlet_node(const struct dw_tgt *t, const char *n, size_t len)
{
	size_t lo = 0, hi = t->nclaims, mid;
	int d;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		/* a longer text that n[0..len) begins is after it, as is
		 * equal text: both keep the search left of mid */
		d = strncmp(t->claims[mid].outlet, n, len);
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nclaims && strncmp(t->claims[lo].outlet, n, len) == 0 &&
	    t->claims[lo].outlet[len] == '\0')
		return t->claims[lo].node;
	return -1;
}

static int
pdu_index(const struct wp_conf *c, const char *name)
{
	const struct wp_pdu *p = conf_pdu(c, name);

	return p != NULL ? (int)(p - c->pdus) : -1;
}

static bool
is_it_meter(const struct wp_conf *c, const char *name)
{
	const struct wp_meter *m = conf_meter(c, name);

	return m != NULL && strcmp(m->role, "it_total") == 0;
}

/* Target name's facts, found once; NULL out of memory. */
static struct dw_tgt *
tgt_new(struct drift_watch *w, const char *name)
{
	const char *sl = strrchr(name, '/');
	size_t len = strlen(name) + 1;
	struct dw_tgt *t;

	if ((t = calloc(1, sizeof(*t) + len)) == NULL)
		return NULL;
	memcpy(t->name, name, len);
	if (sl != NULL) {
		t->idx = conf_node_index(w->c, name, (size_t)(sl - name));
		t->cls = t->idx >= 0 ? TG_NODE : TG_NONE;
		t->bmc = strcmp(sl, "/bmc") == 0;
	} else if ((t->idx = pdu_index(w->c, name)) >= 0) {
		t->cls = TG_PDU;
		if (tgt_claims(w, t, name) == -1)
			return free(t), NULL;
	} else if (is_it_meter(w->c, name)) {
		t->cls = TG_IT_METER;
	}
	return t;
}

static bool
tgt_eq(const void *e, const void *key)
{
	return strcmp(((const struct dw_tgt *)e)->name, key) == 0;
}

/* Target name, made on first sight; NULL out of memory. */
static struct dw_tgt *
tgt_get(struct drift_watch *w, const char *name)
{
	uint64_t h = hmap_hash(name);
	struct dw_tgt *t;

	if ((t = hmap_get(&w->tg, h, tgt_eq, name)) != NULL)
		return t;
	if ((t = tgt_new(w, name)) == NULL)
		return NULL;
	if (hmap_put(&w->tg, h, t) == -1) {
		free(t->claims);
		free(t);
		return NULL;
	}
	return t;
}

static bool
is_gpu_energy(const char *s)
{
	const char *e;

	if (strncmp(s, "gpu/", 4) != 0 || (e = strchr(s + 4, '/')) == NULL)
		return false;
	return e > s + 4 && strcmp(e, "/energy") == 0;
}

static void
mem_add(struct dw_class *s, size_t pair, int side)
{
	if (s->n < MEM_MAX) {
		s->mem[s->n].pair = pair;
		s->mem[s->n++].side = side;
	}
}

static void
classify_node(struct drift_watch *w, struct dw_class *s,
    const struct dw_tgt *t, const char *series)
{
	/* wall against outlets: only a node that has outlets */
	if (t->bmc && strcmp(series, "wall/energy") == 0 &&
	    w->c->nodes[t->idx].n_outlets > 0)
		mem_add(s, pair_of(w, DK_WALL_OUTLET, (size_t)t->idx), 0);
	else if (is_gpu_energy(series))
		mem_add(s, pair_of(w, DK_GPU_BMC, (size_t)t->idx), t->bmc);
}

static void
classify_pdu(struct drift_watch *w, struct dw_class *s,
    const struct dw_tgt *t, const char *series)
{
	size_t len = strlen(series);
	const char *e;
	int nd;

	if (len < 7 || strcmp(series + len - 7, "/energy") != 0)
		return;
	if (strncmp(series, "inlet/", 6) == 0) {
		/* a pair only where its other side can be: outlets that
		 * feed nodes, an IT meter */
		if (t->nclaims > 0)
			mem_add(s, pair_of(w, DK_PDU_INLET, (size_t)t->idx),
			    1);
		if (w->it_meter)
			mem_add(s, pair_of(w, DK_IT_INLETS, 0), 0);
		return;
	}
	if (strncmp(series, "outlet/", 7) != 0 ||
	    (e = strchr(series + 7, '/')) == NULL)
		return;
	/* the outlets that feed a node: as the report and calibrate */
	if ((nd = outlet_node(t, series + 7, (size_t)(e - series - 7))) < 0)
		return;
	mem_add(s, pair_of(w, DK_PDU_INLET, (size_t)t->idx), 0);
	mem_add(s, pair_of(w, DK_WALL_OUTLET, (size_t)nd), 1);
}

/* The pairs series of target t belongs to, into s (none: s->n 0). */
static void
classify(struct drift_watch *w, struct dw_class *s, const struct dw_tgt *t,
    const char *series)
{
	switch (t->cls) {
	case TG_NODE:
		classify_node(w, s, t, series);
		break;
	case TG_PDU:
		classify_pdu(w, s, t, series);
		break;
	case TG_IT_METER:
		if (strcmp(series, "energy") == 0)
			mem_add(s, pair_of(w, DK_IT_INLETS, 0), 1);
		break;
	}
}

/* Takes s out of the first n of its pairs (the last member of each). */
static void
unjoin(struct drift_watch *w, const struct dw_ser *s, int n)
{
	int k;

	for (k = 0; k < n; k++)
		w->p[s->mem[k].pair]->nm--;
}

/* Makes s a member of each of its pairs.  0, or -1 out of memory (then
 * a member of none). */
static int
join(struct drift_watch *w, struct dw_ser *s)
{
	int k;

	for (k = 0; k < s->n_mem; k++) {
		struct dw_pair *p = pair_get(w, s->mem[k].pair);

		if (p == NULL) {
			unjoin(w, s, k);
			return -1;
		}
		if (p->nm == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 4;
			struct dw_ser **m = reallocarray(p->m, cap,
			    sizeof(*m));
			int *mi = m ? reallocarray(p->mi, cap, sizeof(*mi)) :
			    NULL;

			if (m != NULL)
				p->m = m;
			if (mi == NULL) {
				unjoin(w, s, k);
				return -1;
			}
			p->mi = mi;
			p->cap = cap;
		}
		p->m[p->nm] = s;
		p->mi[p->nm++] = k;
	}
	return 0;
}

/* Series of target t that belongs to the pairs cl found, made and joined
 * on first sight (looked for where the last poll's order says first);
 * NULL out of memory. */
static struct dw_ser *
ser_get(struct drift_watch *w, struct dw_tgt *t, const char *series,
    const struct dw_class *cl)
{
	struct dw_ser *s, **m;
	size_t i, k, len;

	for (i = 0; i < t->nm; i++) {
		k = (t->next + i) % t->nm;
		if (strcmp(ser_name(t->m[k]), series) == 0) {
			t->next = k + 1;
			return t->m[k];
		}
	}
	if (t->nm == t->mcap) {
		size_t cap = t->mcap ? 2 * t->mcap : 2;

		if ((m = reallocarray(t->m, cap, sizeof(*m))) == NULL)
			return NULL;
		t->m = m;
		t->mcap = cap;
	}
	len = strlen(series) + 1;
	if ((s = calloc(1, sizeof(*s) + (size_t)cl->n * sizeof(*s->mem) +
	    len)) == NULL)
		return NULL;
	s->n_mem = cl->n;
	memcpy(s->mem, cl->mem, (size_t)cl->n * sizeof(*s->mem));
	memcpy((char *)&s->mem[cl->n], series, len);
	if (join(w, s) == -1)
		return free(s), NULL;
	t->m[t->nm++] = s;
	t->next = t->nm;
	return s;
}

/* --------------------------------------------------------- windows */

static void
log_event(const struct dw_pair *p, int ev)
{
	const struct drift_track *t = &p->t;

	if (ev == DRIFT_EV_START)
		log_warnx("drift: %s %s: %s/%s ratio %.4f, usual %.4f (%+.2f "
		    "%%, tolerance %.2f %%)", drift_kind_name(p->kind),
		    p->name, drift_side_name(p->kind, 1),
		    drift_side_name(p->kind, 0), t->last, t->usual,
		    100 * t->last_dev, 100 * t->last_tol);
	else if (ev == DRIFT_EV_END)
		log_info("drift: %s %s: back within tolerance: ratio %.4f, "
		    "usual %.4f", drift_kind_name(p->kind), p->name, t->last,
		    t->usual);
}

/* Feeds pair p's window ending at b when every member has it. */
static void
pair_try(struct dw_pair *p, wp_time b)
{
	struct drift_win win = { .valid = true };
	size_t i, sides[2] = { 0, 0 };
	int ev;

	if (b <= p->last_b || p->name == NULL)
		return;
	for (i = 0; i < p->nm; i++) {
		const struct dw_ser *s = p->m[i];
		const struct dw_mem *m = &s->mem[p->mi[i]];

		if (!m->have_win || m->win_b != b)
			return;
		sides[m->side]++;
		*(m->side ? &win.b : &win.a) += m->win_e;
		*(m->side ? &win.bound_b : &win.bound_a) += s->res;
	}
	if (sides[0] == 0 || sides[1] == 0)
		return;		/* one instrument only: no pair */
	p->last_b = b;
	if ((ev = drift_track_add(&p->t, &win)) != DRIFT_EV_NONE)
		log_event(p, ev);
}

/* The membership's edges between the previous reading and (t, v). */
static bool
mem_step(struct dw_mem *m, const struct dw_ser *s, wp_time win, wp_time t,
    double v)
{
	wp_time b = t / win * win;
	double vb;

	if (b <= s->prev_t)
		return false;		/* no edge passed */
	vb = s->prev_v + (v - s->prev_v) * (double)(b - s->prev_t) /
	    (double)(t - s->prev_t);
	if (m->have_edge && b - m->edge_b == win) {
		m->have_win = true;
		m->win_b = b;
		m->win_e = vb - m->edge_v;
	} else {
		m->have_win = false;
	}
	m->have_edge = true;
	m->edge_b = b;
	m->edge_v = vb;
	return m->have_win;
}

static void
ser_reading(struct drift_watch *w, struct dw_ser *s, wp_time t, double v,
    bool known)
{
	int k;

	for (k = 0; k < s->n_mem; k++) {
		struct dw_mem *m = &s->mem[k];
		struct dw_pair *p = w->p[m->pair];	/* joined */

		if (!known || !s->have_prev || t <= s->prev_t ||
		    t - s->prev_t > p->window) {
			m->have_edge = m->have_win = false;
			continue;
		}
		if (mem_step(m, s, p->window, t, v))
			pair_try(p, m->win_b);
	}
	s->have_prev = true;
	s->prev_t = t;
	s->prev_v = v;
}

void
drift_watch_poll(struct drift_watch *w, const char *target, wp_time t,
    const struct wp_sample *v, const struct ingest_ctr *ctr, size_t n)
{
	struct dw_class cl;
	struct dw_tgt *tg = NULL;
	struct dw_ser *s;
	size_t i;

	if (w == NULL || ctr == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (!ctr[i].valid || v[i].kind != WP_COUNTER ||
		    v[i].quantity != WP_Q_ENERGY)
			continue;
		/* a target is kept from its first energy counter on */
		if (tg == NULL && (tg = tgt_get(w, target)) == NULL)
			return;		/* out of memory: watch less */
		if (tg->cls == TG_NONE)
			return;		/* in no pair */
		cl.n = 0;
		classify(w, &cl, tg, v[i].series);
		if (cl.n == 0)
			continue;
		if ((s = ser_get(w, tg, v[i].series, &cl)) == NULL)
			return;		/* out of memory: watch less */
		s->res = v[i].resolution > 0 ? v[i].resolution : 0;
		ser_reading(w, s, t, ctr[i].cum, !(ctr[i].flags &
		    CTR_UNKNOWN));
	}
}

size_t
drift_watch_held(const struct drift_watch *w)
{
	const struct dw_tgt *t;
	size_t i, n = 0;

	for (i = 0; w != NULL && i < w->tg.cap; i++)
		if ((t = w->tg.slot[i].e) != NULL)
			n += t->nm;
	return n;
}

int
drift_watch_each(const struct drift_watch *w,
    int (*fn)(const struct drift_view *, void *), void *arg)
{
	struct drift_view dv;
	size_t i;
	int rc;

	for (i = 0; w != NULL && i < w->np; i++) {
		const struct dw_pair *p = w->p[i];

		if (p == NULL || p->t.n == 0 || p->name == NULL)
			continue;
		dv.kind = p->kind;
		dv.name = p->name;
		dv.t = &p->t;
		if ((rc = fn(&dv, arg)) != 0)
			return rc;
	}
	return 0;
}
