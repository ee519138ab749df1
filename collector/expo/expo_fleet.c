/* expo_fleet.c - a snapshot of the fleet from the target views. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/counter.h"
#include "../conf/conf.h"
#include "expo_fleet.h"
#include "../ingest.h"
#include "../lib/decimal.h"
#include "../lib/hmap.h"
#include "../lib/sample.h"

/* String -> index over the one hash table; keys are owned copies, in
 * an array sized once (the map holds pointers into it). */
struct sent {
	char	*key;
	size_t	 val;
};

struct smap {
	struct hmap	 h;
	struct sent	*e;
	size_t		 n, cap;
};

struct acc {
	double	 e, p, pm, eg;		/* energy, gauge power, counter mean,
					   gauge integral */
	bool	 he, hp, hpm, heg;
};

struct build {
	const struct wp_conf *c;
	struct fleet	*f;
	struct smap	 nodes;		/* node name -> index */
	struct smap	 outlets;	/* "pdu\037outlet" -> node index */
	size_t		 n_outlets;	/* mapped in the config */
	struct acc	*oacc;		/* outlet readings per node */
	unsigned	 what;		/* FLEET_* */
	bool		 oom;
};

static int
smap_init(struct smap *m, size_t n)
{
	m->cap = n;
	m->e = calloc(n + 1, sizeof(*m->e));
	return m->e != NULL && hmap_reserve(&m->h, n) == 0 ? 0 : -1;
}

static void
smap_fini(struct smap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->e[i].key);
	free(m->e);
	hmap_fini(&m->h);
}

/* Adds key (copied) unless present; 0, or -1 out of memory. */
static int
smap_put(struct smap *m, const char *key, size_t val)
{
	uint64_t h = hmap_hash(key);
	struct sent *e;

	if (hmap_get(&m->h, h, hmap_str_eq, key) != NULL)
		return 0;
	if (m->n == m->cap)
		return -1;
	e = &m->e[m->n];
	if ((e->key = strdup(key)) == NULL)
		return -1;
	e->val = val;
	if (hmap_put(&m->h, h, e) == -1) {
		free(e->key);
		return -1;
	}
	m->n++;
	return 0;
}

static const size_t *
smap_get(const struct smap *m, const char *key)
{
	const struct sent *e = hmap_get(&m->h, hmap_hash(key), hmap_str_eq,
	    key);

	return e != NULL ? &e->val : NULL;
}

const char *
fleet_method_name(int m)
{
	return m == FM_COUNTER ? "counter" : "gauge-estimated";
}

double
fleet_coverage(const struct fleet_cover *c)
{
	return c->nodes > 0 ? (double)c->covered / (double)c->nodes : NAN;
}

const char *
fleet_boundary_name(int b)
{
	static const char *const names[FB_N] = { "wall", "gpu", "outlet" };

	return b >= 0 && b < FB_N ? names[b] : "none";
}

/* --- per-node figures, two passes: gauges, then counter means --- */

static void
acc_sample(struct acc *a, const struct wp_sample *s,
    const struct ingest_ctr *k)
{
	if (s->quantity == WP_Q_POWER && s->kind == WP_GAUGE) {
		a->p += s->value;
		a->hp = true;
		if (k != NULL && k->integrated) {
			a->eg += k->cum;
			a->heg = true;
		}
	} else if (s->quantity == WP_Q_ENERGY && s->kind == WP_COUNTER &&
	    k != NULL && k->valid && !(k->flags & CTR_HELD)) {
		a->e += k->cum;
		a->he = true;
		if (k->span > 0 && !(k->flags & (CTR_DISCONT | CTR_RESET))) {
			a->pm += k->delta / ((double)k->span / WP_SEC);
			a->hpm = true;
		}
	}
}

/* A target's energy at a boundary: its counters where it has any, else
 * its gauges' integral. */
static void
acc_fold(struct fleet_fig *g, const struct acc *a)
{
	int m = a->he ? FM_COUNTER : FM_GAUGE;

	if (a->he || a->heg) {
		g->energy += a->he ? a->e : a->eg;
		g->energy_m[m] += a->he ? a->e : a->eg;
		g->has_m[m] = true;
		g->has_energy = true;
	}
	if (a->hp || a->hpm) {
		g->power += a->hp ? a->p : a->pm;
		g->has_power = true;
	}
}

static int
fig_of(const struct wp_sample *s)
{
	if (s->flags & WP_F_CROSSCHECK)
		return -1;
	switch (s->boundary) {
	case WP_B_WALL:		return FB_WALL;
	case WP_B_GPU:
	case WP_B_MODULE:	return FB_GPU;
	default:		return -1;
	}
}

/* A copy of s's label key, or NULL (none, or out of memory: the
 * per-model counters then fall back as without it). */
static char *
label_dup(const struct wp_sample *s, const char *key)
{
	char buf[WP_LABEL_MAX];

	return sample_get_label(s, key, buf, sizeof(buf)) == 0 && buf[0] ?
	    strdup(buf) : NULL;
}

/* n's in-band arrays, made when it has none; NULL out of memory. */
static struct fleet_inband *
inband(struct fleet_node *n)
{
	if (n->ib == NULL)
		n->ib = calloc(1, sizeof(*n->ib));
	return n->ib;
}

const char *
fleet_gpu_ns(const struct fleet_node *n, int g)
{
	return n->ib != NULL ? n->ib->gpu_ns[g] : NULL;
}

const char *
fleet_eng_model(const struct fleet_node *n, int e)
{
	return n->ib != NULL ? n->ib->eng_model[e] : NULL;
}

/* One in-band GPU's cumulative energy ("gpu/<i>/energy"), kept per
 * index for the per-model counters.  0, or -1 out of memory. */
static int
gpu_sample(struct fleet_node *n, const struct wp_sample *s,
    const struct ingest_ctr *k)
{
	char *end;
	long g;

	if (strncmp(s->series, "gpu/", 4) != 0 || s->kind != WP_COUNTER ||
	    s->quantity != WP_Q_ENERGY || k == NULL || !k->valid ||
	    (k->flags & CTR_HELD))
		return 0;
	g = strtol(s->series + 4, &end, 10);
	if (end == s->series + 4 || strcmp(end, "/energy") != 0 || g < 0 ||
	    g >= FLEET_GPUS)
		return 0;
	if (inband(n) == NULL)
		return -1;
	n->ib->gpu_e[g] = k->cum;
	n->gpu_has |= UINT64_C(1) << g;
	free(n->ib->gpu_ns[g]);
	n->ib->gpu_ns[g] = label_dup(s, "namespace");
	return 0;
}

/* An engine target's output tokens ("<node>/engine<e>"), per engine.
 * 0, or -1 out of memory. */
static int
engine_tokens(struct fleet_node *n, const struct target_view *tv,
    const struct wp_sample *s, const struct ingest_ctr *k)
{
	const char *p = strrchr(tv->name, '/');
	char *end;
	long e;

	if (p == NULL || strncmp(p, "/engine", 7) != 0 ||
	    strcmp(s->series, "tokens/output") != 0)
		return 0;
	e = strtol(p + 7, &end, 10);
	if (end == p + 7 || *end != '\0' || e < 0 || e >= FLEET_ENGINES)
		return 0;
	if (inband(n) == NULL)
		return -1;
	n->ib->eng_out[e] = k->cum;
	n->eng_has |= 1u << e;
	free(n->ib->eng_model[e]);
	n->ib->eng_model[e] = label_dup(s, "model");
	return 0;
}

/* A node target's readings into n.  0, or -1 out of memory. */
static int
node_target(struct fleet_node *n, const struct target_view *tv)
{
	struct acc a[FB_N] = { 0 };
	size_t i;
	int b, rc = 0;

	for (i = 0; i < tv->n_last; i++) {
		const struct wp_sample *s = &tv->last[i];
		const struct ingest_ctr *k = tv->ctr ? &tv->ctr[i] : NULL;

		if (s->quantity == WP_Q_TOKENS && s->kind == WP_COUNTER &&
		    k != NULL && k->valid) {
			if (strcmp(s->series, "tokens/output") == 0) {
				n->tokens_out += k->cum;
				n->has_tok_out = true;
				rc |= engine_tokens(n, tv, s, k);
			} else if (strcmp(s->series, "tokens/input") == 0) {
				n->tokens_in += k->cum;
				n->has_tok_in = true;
			}
			continue;
		}
		if ((b = fig_of(s)) >= 0)
			acc_sample(&a[b], s, k);
		if (b == FB_GPU)
			rc |= gpu_sample(n, s, k);
	}
	for (b = 0; b < FB_N; b++)
		acc_fold(&n->b[b], &a[b]);
	return rc;
}

/* "outlet/<n>/energy" -> "<n>" in buf; 0 or -1. */
static int
outlet_num(const char *series, char *buf, size_t len)
{
	const char *p, *q;

	if (strncmp(series, "outlet/", 7) != 0)
		return -1;
	p = series + 7;
	if ((q = strchr(p, '/')) == NULL || (size_t)(q - p) >= len)
		return -1;
	memcpy(buf, p, (size_t)(q - p));
	buf[q - p] = '\0';
	return 0;
}

/* "a\037b" into key (room for len), cut short if it must be: no snprintf,
 * as it runs per outlet reading per snapshot. */
static void
outlet_key(char *key, size_t len, const char *a, const char *b)
{
	size_t na = strnlen(a, len - 2), nb = strnlen(b, len - 2 - na);

	memcpy(key, a, na);
	key[na] = '\037';
	memcpy(key + na + 1, b, nb);
	key[na + 1 + nb] = '\0';
}

static const size_t *
outlet_node(const struct build *bd, const char *pdu,
    const struct wp_sample *s)
{
	char num[32], name[WP_LABEL_MAX], key[512];
	const size_t *ix = NULL;

	if (outlet_num(s->series, num, sizeof(num)) == -1)
		return NULL;
	outlet_key(key, sizeof(key), pdu, num);
	if ((ix = smap_get(&bd->outlets, key)) == NULL &&
	    sample_get_label(s, "name", name, sizeof(name)) == 0) {
		outlet_key(key, sizeof(key), pdu, name);
		ix = smap_get(&bd->outlets, key);
	}
	return ix;
}

/* "[u<k>/]<role>/<n>/<quantity>" of PDU target's series into r (target,
 * unit, role, index); 0, or -1 when it is none. */
static int
pdu_series(const char *target, const char *series,
    struct fleet_pdu_reading *r)
{
	static const char *const roles[] = { "outlet", "inlet", "phase",
	    "circuit", NULL };
	const char *p = series, *q;
	unsigned long long u = 0;
	size_t i, n;

	r->target = target;
	r->has_unit = false;
	/* a unit as %u writes it: digits, no leading zero, 32 bits */
	if (p[0] == 'u' && p[1] >= '0' && p[1] <= '9' &&
	    (p[1] != '0' || p[2] == '/')) {
		for (q = p + 1; *q >= '0' && *q <= '9' && u <= UINT32_MAX;
		    q++)
			u = u * 10 + (unsigned)(*q - '0');
		if (*q == '/' && u <= UINT32_MAX) {
			r->unit = (uint32_t)u;
			r->has_unit = true;
			p = q + 1;
		}
	}
	for (i = 0; roles[i] != NULL; i++) {
		n = strlen(roles[i]);
		if (strncmp(p, roles[i], n) == 0 && p[n] == '/')
			break;
	}
	if (roles[i] == NULL || (q = strchr(p + n + 1, '/')) == NULL ||
	    q == p + n + 1 || (size_t)(q - p - n - 1) >= sizeof(r->index))
		return -1;
	r->role = roles[i];
	memcpy(r->index, p + n + 1, (size_t)(q - p - n - 1));
	r->index[q - p - n - 1] = '\0';
	return 0;
}

const char *
fleet_pdu_name(const struct fleet_pdu_reading *r, char *buf, size_t len)
{
	char digits[DECIMAL_MAX];
	size_t tl, dl;

	if (!r->has_unit)
		return r->target;
	/* no snprintf: a PDU behind a shared agent has every reading so */
	dl = decimal_put(digits, r->unit);
	if (len < dl + 3)
		return "";
	tl = strnlen(r->target, len - dl - 3);	/* the name cut to fit */
	memcpy(buf, r->target, tl);
	memcpy(buf + tl, "-u", 2);
	memcpy(buf + tl + 2, digits, dl);
	buf[tl + 2 + dl] = '\0';
	return buf;
}

/* Keeps s (a power, energy or AC reading of a PDU) for /metrics, when the
 * snapshot is to hold them. */
static void
pdu_reading(struct build *bd, const char *target, const struct wp_sample *s,
    const struct ingest_ctr *k)
{
	struct fleet *f = bd->f;
	struct fleet_pdu_reading *r;
	bool counter = s->kind == WP_COUNTER;

	if (!(bd->what & FLEET_PDU_READINGS))
		return;
	if (s->quantity != WP_Q_POWER && s->quantity != WP_Q_ENERGY &&
	    s->quantity != WP_Q_APPARENT_POWER &&
	    s->quantity != WP_Q_REACTIVE_POWER &&
	    s->quantity != WP_Q_APPARENT_ENERGY)
		return;
	if (counter && (k == NULL || !k->valid || (k->flags & CTR_HELD)))
		return;
	if (f->n_pdu == f->cap_pdu) {
		size_t cap = f->cap_pdu ? f->cap_pdu * 2 : 256;

		if ((r = realloc(f->pdu, cap * sizeof(*r))) == NULL) {
			bd->oom = true;
			return;
		}
		f->pdu = r;
		f->cap_pdu = cap;
	}
	r = &f->pdu[f->n_pdu];
	if (pdu_series(target, s->series, r) < 0)
		return;
	r->quantity = s->quantity;
	r->value = counter ? k->cum : s->value;
	f->n_pdu++;
}

/* A PDU's readings for /metrics; its outlets accumulate per node over all
 * PDUs, folded at the end. */
static void
pdu_target(struct build *bd, const struct target_view *tv)
{
	const size_t *ix;
	size_t i;

	for (i = 0; i < tv->n_last; i++) {
		const struct wp_sample *s = &tv->last[i];
		const struct ingest_ctr *k = tv->ctr ? &tv->ctr[i] : NULL;

		if (s->boundary != WP_B_OUTLET && s->boundary != WP_B_PDU)
			continue;
		pdu_reading(bd, tv->name, s, k);
		if (bd->n_outlets == 0 || s->boundary != WP_B_OUTLET ||
		    (ix = outlet_node(bd, tv->name, s)) == NULL)
			continue;
		acc_sample(&bd->oacc[*ix], s, k);
	}
}

static void
fold_outlets(struct build *bd)
{
	size_t i;

	for (i = 0; i < bd->f->n_nodes; i++)
		acc_fold(&bd->f->nodes[i].b[FB_OUTLET], &bd->oacc[i]);
}

static void
meter_target(struct build *bd, const struct wp_meter *m,
    const struct target_view *tv)
{
	struct fleet_meter *fm = &bd->f->meters[bd->f->n_meters++];
	size_t i;

	*fm = (struct fleet_meter){ m->name, m->role ? m->role : "other",
	    0, 0, false, false };
	for (i = 0; i < tv->n_last; i++) {
		const struct wp_sample *s = &tv->last[i];
		const struct ingest_ctr *k = tv->ctr ? &tv->ctr[i] : NULL;

		if (strcmp(s->series, "energy") == 0 && k != NULL &&
		    k->valid && !(k->flags & CTR_HELD)) {
			fm->energy = k->cum;
			fm->has_energy = true;
		} else if (strcmp(s->series, "power") == 0) {
			fm->power = s->value;
			fm->has_power = true;
		}
	}
}

static void
add_target(struct build *bd, const struct target_view *tv)
{
	struct fleet *f = bd->f;
	struct fleet_target *t;
	size_t i;

	if (f->n_targets == f->cap_targets) {
		size_t cap = f->cap_targets ? f->cap_targets * 2 : 64;

		if ((t = realloc(f->targets, cap * sizeof(*t))) == NULL) {
			bd->oom = true;
			return;
		}
		f->targets = t;
		f->cap_targets = cap;
	}
	t = &f->targets[f->n_targets++];
	*t = (struct fleet_target){ tv->name, tv->driver,
	    tv->node ? tv->node : "", tv->reason ? tv->reason : "",
	    tv->error ? tv->error : "", tv->up,
	    (double)tv->last_duration / WP_SEC, tv->last_poll_real,
	    tv->n_last > 0 ? tv->last[0].t_real : 0, tv->polls,
	    tv->failures, 0, 0, tv->push_up >= 0, tv->push_up > 0, { 0 },
	    { 0 }, tv->last_error_reason ? tv->last_error_reason : "",
	    tv->last_error_real };
	if (tv->push_reports != NULL)
		memcpy(t->push_reports, tv->push_reports,
		    sizeof(t->push_reports));
	if (tv->push_refused != NULL)
		memcpy(t->push_refused, tv->push_refused,
		    sizeof(t->push_refused));
	for (i = 0; i < tv->n_last; i++) {
		if (tv->ctr != NULL && tv->ctr[i].valid)
			t->resets += tv->ctr[i].resets;
		if (tv->last[i].flags & WP_F_STALE)
			t->stale++;
	}
	if (tv->up)
		f->targets_up++;
	else
		f->targets_down++;
}

static int
on_view(const struct target_view *tv, void *arg)
{
	struct build *bd = arg;
	const struct wp_meter *m;
	const size_t *ix;

	add_target(bd, tv);
	if (tv->node != NULL && (ix = smap_get(&bd->nodes, tv->node)) != NULL) {
		bd->f->nodes[*ix].targets++;
		bd->f->nodes[*ix].down += !tv->up;
		if (node_target(&bd->f->nodes[*ix], tv) != 0)
			bd->oom = true;
	} else if ((m = conf_meter(bd->c, tv->name)) != NULL)
		meter_target(bd, m, tv);
	else if (conf_pdu(bd->c, tv->name) != NULL)
		pdu_target(bd, tv);
	return bd->oom ? 1 : 0;
}

/* --- setup and totals --- */

static int
index_conf(struct build *bd)
{
	const struct wp_conf *c = bd->c;
	char key[512];
	size_t i, j, n_out = 0;

	for (i = 0; i < c->n_nodes; i++)
		n_out += c->nodes[i].n_outlets;
	if (smap_init(&bd->nodes, c->n_nodes) == -1 ||
	    smap_init(&bd->outlets, n_out) == -1)
		return -1;
	bd->n_outlets = n_out;
	for (i = 0; i < c->n_nodes; i++) {
		const struct wp_node *nd = &c->nodes[i];

		bd->f->nodes[i] = (struct fleet_node){ .name = nd->name,
		    .class = nd->class ? nd->class : "",
		    .rack = nd->rack ? nd->rack : "", .conf = nd };
		if (smap_put(&bd->nodes, nd->name, i) == -1)
			return -1;
		for (j = 0; j < nd->n_outlets; j++) {
			outlet_key(key, sizeof(key), nd->outlets[j].pdu,
			    nd->outlets[j].outlet);
			if (smap_put(&bd->outlets, key, i) == -1)
				return -1;
		}
	}
	return 0;
}

static void
fig_add(struct fleet_fig *t, const struct fleet_fig *g)
{
	int m;

	t->energy += g->energy;
	t->power += g->power;
	t->has_energy |= g->has_energy;
	t->has_power |= g->has_power;
	for (m = 0; m < FM_N; m++) {
		t->energy_m[m] += g->energy_m[m];
		t->has_m[m] |= g->has_m[m];
	}
}

static void
cover_add(struct fleet_cover *c, const struct fleet_node *n, int b)
{
	c->nodes++;
	if (!n->b[b].has_energy)
		return;
	c->covered++;
	c->tokens += n->tokens_out;
	/* order-free: the set, not the order it was visited in */
	c->sig += hmap_hash(n->name) | 1;
}

/* The class of node n in f->classes (added when new). */
static struct fleet_class *
class_of(struct fleet *f, const struct fleet_node *n)
{
	size_t i;

	for (i = 0; i < f->n_classes; i++)
		if (strcmp(f->classes[i].name, n->class) == 0)
			return &f->classes[i];
	f->classes[f->n_classes].name = n->class;
	return &f->classes[f->n_classes++];
}

static void
cover_totals(struct fleet *f)
{
	struct fleet_class *k;
	size_t i;
	int b;

	for (i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *n = &f->nodes[i];

		k = class_of(f, n);
		k->nodes++;
		if (n->b[FB_WALL].has_power && n->b[FB_GPU].has_power) {
			k->pair_wall += n->b[FB_WALL].power;
			k->pair_gpu += n->b[FB_GPU].power;
			k->n_pair++;
		}
		for (b = 0; b < FB_N; b++) {
			cover_add(&f->cov[b], n, b);
			cover_add(&k->cov[b], n, b);
			fig_add(&k->b[b], &n->b[b]);
		}
	}
}

static void
totals(struct fleet *f)
{
	size_t i;
	int b;

	cover_totals(f);
	for (i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *n = &f->nodes[i];

		for (b = 0; b < FB_N; b++) {
			fig_add(&f->total[b], &n->b[b]);
			f->n_total[b] += n->b[b].has_power;
		}
		f->tokens_out += n->tokens_out;
		f->tokens_in += n->tokens_in;
	}
	for (i = 0; i < f->n_meters; i++) {
		const struct fleet_meter *m = &f->meters[i];
		bool fac = strcmp(m->role, "facility_total") == 0;
		bool it = strcmp(m->role, "it_total") == 0;

		if (fac && m->has_energy) {
			f->fac_energy += m->energy;
			f->has_fac_e = true;
		}
		if (fac && m->has_power) {
			f->fac_power += m->power;
			f->has_fac_p = true;
		}
		if (it && m->has_energy) {
			f->it_energy += m->energy;
			f->has_it_e = true;
		}
		if (it && m->has_power) {
			f->it_power += m->power;
			f->has_it_p = true;
		}
	}
}

struct fleet *
fleet_build(const struct wp_conf *c, fleet_each_fn each, const void *src,
    wp_time now, unsigned what)
{
	struct build bd = { .c = c, .what = what };
	struct fleet *f;
	const char *site = c->site.name;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	bd.f = f;
	f->now = now;
	f->conf = c;
	f->site = site ? site : "";
	f->shard_index = c->shard_index;
	f->shard_count = c->shard_count;
	f->n_nodes = c->n_nodes;
	if ((f->nodes = calloc(c->n_nodes + 1, sizeof(*f->nodes))) == NULL ||
	    (f->meters = calloc(c->n_meters + 1, sizeof(*f->meters))) == NULL ||
	    (f->classes = calloc(c->n_nodes + 1, sizeof(*f->classes))) ==
	    NULL ||
	    (bd.oacc = calloc(c->n_nodes + 1, sizeof(*bd.oacc))) == NULL ||
	    index_conf(&bd) == -1)
		bd.oom = true;
	if (!bd.oom)
		each(src, on_view, &bd);
	if (!bd.oom)
		fold_outlets(&bd);
	free(bd.oacc);
	smap_fini(&bd.nodes);
	smap_fini(&bd.outlets);
	if (bd.oom) {
		fleet_free(f);
		return NULL;
	}
	totals(f);
	return f;
}

void
fleet_free(struct fleet *f)
{
	size_t i;
	int k;

	if (f == NULL)
		return;
	for (i = 0; f->nodes != NULL && i < f->n_nodes; i++) {
		struct fleet_inband *ib = f->nodes[i].ib;

		if (ib == NULL)
			continue;
		for (k = 0; k < FLEET_GPUS; k++)
			free(ib->gpu_ns[k]);
		for (k = 0; k < FLEET_ENGINES; k++)
			free(ib->eng_model[k]);
		free(ib);
	}
	free(f->nodes);
	free(f->targets);
	free(f->meters);
	free(f->classes);
	free(f->pdu);
	free(f);
}

const struct fleet_node *
fleet_node(const struct fleet *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (strcmp(f->nodes[i].name, name) == 0)
			return &f->nodes[i];
	return NULL;
}
