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

/* A series seen, one allocation: the struct, its n_mem memberships, then
 * its key.  Most series belong to no pair (an outlet that feeds no
 * configured node): those cost the struct and the key alone. */
struct dw_ser {
	bool	 have_prev;
	int	 n_mem;
	wp_time	 prev_t;
	double	 prev_v;
	double	 res;		/* the counter's resolution (bound) */
	struct dw_mem mem[];	/* n_mem, then the key "target|series" */
};

static const char *
ser_key(const struct dw_ser *s)
{
	return (const char *)&s->mem[s->n_mem];
}

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
	struct hmap ser;
	struct dw_ser **all;
	size_t	 n_all, cap_all;
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
	w->ser.dense = true;		/* every energy series of the fleet */
	w->nn = c->n_nodes;
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
	for (i = 0; i < w->n_all; i++)
		free(w->all[i]);
	for (i = 0; i < w->np; i++)
		if (w->p[i] != NULL) {
			free(w->p[i]->m);
			free(w->p[i]->mi);
			free(w->p[i]);
		}
	hmap_fini(&w->ser);
	free(w->all);
	free(w->p);
	free(w);
}

/* ------------------------------------------------- classification */

/* The node fed by outlet number n ("3") of PDU pdu, or -1. */
static int
outlet_node(const struct wp_conf *c, const char *pdu, const char *n,
    size_t len)
{
	size_t i, j;

	for (i = 0; i < c->n_nodes; i++)
		for (j = 0; j < c->nodes[i].n_outlets; j++) {
			const struct wp_outlet_ref *o = &c->nodes[i].outlets[j];

			if (strcmp(o->pdu, pdu) == 0 && strlen(o->outlet) ==
			    len && strncmp(o->outlet, n, len) == 0)
				return (int)i;
		}
	return -1;
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
classify_node(struct drift_watch *w, struct dw_class *s, const char *tg,
    const char *sl, const char *series)
{
	int nd = conf_node_index(w->c, tg, (size_t)(sl - tg));

	if (nd < 0)
		return;
	/* wall against outlets: only a node that has outlets */
	if (strcmp(sl, "/bmc") == 0 && strcmp(series, "wall/energy") == 0 &&
	    w->c->nodes[nd].n_outlets > 0)
		mem_add(s, pair_of(w, DK_WALL_OUTLET, (size_t)nd), 0);
	else if (is_gpu_energy(series))
		mem_add(s, pair_of(w, DK_GPU_BMC, (size_t)nd),
		    strcmp(sl, "/bmc") == 0);
}

static void
classify_pdu(struct drift_watch *w, struct dw_class *s, size_t pdu,
    const char *series)
{
	const char *name = w->c->pdus[pdu].name, *e;
	size_t len = strlen(series);
	int nd;

	if (len < 7 || strcmp(series + len - 7, "/energy") != 0)
		return;
	if (strncmp(series, "inlet/", 6) == 0) {
		mem_add(s, pair_of(w, DK_PDU_INLET, pdu), 1);
		mem_add(s, pair_of(w, DK_IT_INLETS, 0), 0);
		return;
	}
	if (strncmp(series, "outlet/", 7) != 0 ||
	    (e = strchr(series + 7, '/')) == NULL)
		return;
	/* the outlets that feed a node: as the report and calibrate */
	if ((nd = outlet_node(w->c, name, series + 7, (size_t)(e - series -
	    7))) < 0)
		return;
	mem_add(s, pair_of(w, DK_PDU_INLET, pdu), 0);
	mem_add(s, pair_of(w, DK_WALL_OUTLET, (size_t)nd), 1);
}

static void
classify(struct drift_watch *w, struct dw_class *s, const char *tg,
    const char *series)
{
	const struct wp_conf *c = w->c;
	const char *sl = strrchr(tg, '/');
	size_t i;

	if (sl != NULL) {
		classify_node(w, s, tg, sl, series);
		return;
	}
	for (i = 0; i < c->n_pdus; i++)
		if (strcmp(c->pdus[i].name, tg) == 0) {
			classify_pdu(w, s, i, series);
			return;
		}
	for (i = 0; i < c->n_meters; i++)
		if (strcmp(c->meters[i].name, tg) == 0 &&
		    strcmp(c->meters[i].role, "it_total") == 0 &&
		    strcmp(series, "energy") == 0)
			mem_add(s, pair_of(w, DK_IT_INLETS, 0), 1);
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

static bool
ser_eq(const void *e, const void *key)
{
	return strcmp(ser_key(e), key) == 0;
}

/* The series target|series, created (and classified) on first sight;
 * NULL out of memory. */
static struct dw_ser *
ser_get(struct drift_watch *w, const char *tg, const char *series)
{
	char key[WP_SERIES_MAX + 160];
	struct dw_class cl = { .n = 0 };
	struct dw_ser *s;
	size_t klen;
	uint64_t h;

	str_append(key, sizeof(key), str_append(key, sizeof(key),
	    str_copy(key, sizeof(key), tg), "|"), series);
	h = hmap_hash(key);
	if ((s = hmap_get(&w->ser, h, ser_eq, key)) != NULL)
		return s;
	if (w->n_all == w->cap_all) {
		size_t cap = w->cap_all ? 2 * w->cap_all : 64;
		struct dw_ser **a = reallocarray(w->all, cap, sizeof(*a));

		if (a == NULL)
			return NULL;
		w->all = a;
		w->cap_all = cap;
	}
	classify(w, &cl, tg, series);
	klen = strlen(key) + 1;
	if ((s = calloc(1, sizeof(*s) + (size_t)cl.n * sizeof(*s->mem) +
	    klen)) == NULL)
		return NULL;
	s->n_mem = cl.n;
	memcpy(s->mem, cl.mem, (size_t)cl.n * sizeof(*s->mem));
	memcpy((char *)&s->mem[cl.n], key, klen);
	if (join(w, s) == -1)
		return free(s), NULL;
	if (hmap_put(&w->ser, h, s) == -1) {
		unjoin(w, s, s->n_mem);
		free(s);
		return NULL;
	}
	w->all[w->n_all++] = s;
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
	struct dw_ser *s;
	size_t i;

	if (w == NULL || ctr == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (!ctr[i].valid || v[i].kind != WP_COUNTER ||
		    v[i].quantity != WP_Q_ENERGY)
			continue;
		if ((s = ser_get(w, target, v[i].series)) == NULL)
			return;		/* out of memory: watch less */
		if (s->n_mem == 0)
			continue;
		s->res = v[i].resolution > 0 ? v[i].resolution : 0;
		ser_reading(w, s, t, ctr[i].cum, !(ctr[i].flags &
		    CTR_UNKNOWN));
	}
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
