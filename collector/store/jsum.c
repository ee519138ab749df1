/* jsum.c - per-segment journal summaries (format: docs/journal.md). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../model/counter.h"
#include "../lib/hmap.h"
#include "jspill.h"
#include "jsum.h"
#include "jsum_closed.h"
#include "../lib/wire.h"

#define JSUM_HDR_LEN	128
#define JSUM_SPAN_LEN	112
#define JSUM_FILE_MAX	(1u << 30)
#define JSUM_MAX_ITEMS	(1u << 24)
#define JSUM_TEXTS_MAX	8	/* texts a target's new series take */
#define SPAN_SLAB	256	/* open spans per slab (28 KiB) */

double
jsum_x(int kind, double val, double cum)
{
	return kind == WP_COUNTER ? cum : val;
}

wp_time
jsum_sub_origin(const struct jsum *s)
{
	return s->seg_start - s->slot;
}

void
jsum_ispan(const struct jsum_series *e, const struct jsum_span *sp,
    struct integ_span *is)
{
	is->t0 = sp->t0;
	is->t1 = sp->t1;
	is->v0 = jsum_x(e->kind, sp->val0, sp->cum0);
	is->v1 = jsum_x(e->kind, sp->val1, sp->cum1);
	is->pf0 = 0;
	if (e->kind == WP_COUNTER && (sp->cf0 & (CTR_RESET | CTR_DISCONT)))
		is->pf0 |= INTEG_P_RESET;
	if (e->kind == WP_COUNTER && (sp->cf0 & CTR_IMPLAUSIBLE))
		is->pf0 |= INTEG_P_IMPLAUSIBLE;
	is->n = sp->n;
	is->energy = sp->energy;
	is->max_gap = sp->max_gap;
	is->refuse = (sp->flags & (JSUM_F_RESET | JSUM_F_BACK)) != 0;
	is->implausible = (sp->flags & JSUM_F_IMPLAUSIBLE) != 0;
	is->range = true;
	is->vmin = sp->vmin;
	is->vmax = sp->vmax;
}

void
jsum_series_text(const struct jsum *s, const struct jsum_series *se,
    char series[WP_SERIES_MAX], char labels[WP_LABEL_MAX], const char **sp,
    const char **lp)
{
	if (!se->pooled) {
		*sp = se->series;
		*lp = se->labels;
		return;
	}
	if (se->texted) {
		sertext_get(se->text, se->ti, SERTEXT_SERIES, series,
		    WP_SERIES_MAX, false);
		sertext_get(se->text, se->ti, SERTEXT_LABELS, labels,
		    WP_LABEL_MAX, false);
		*sp = series;
		*lp = labels;
		return;
	}
	strpool_get(&s->pool, se->sref, series, WP_SERIES_MAX, false);
	strpool_get(&s->pool, se->lref, labels, WP_LABEL_MAX, false);
	*sp = series;
	*lp = labels;
}

void
jsum_name(const char *seg, char *out, size_t len)
{
	size_t n = strlen(seg);

	if (n > 4 && strcmp(seg + n - 4, ".wpj") == 0)
		n -= 4;
	snprintf(out, len, "%.*s.wps", (int)n, seg);
}

struct jsum *
jsum_new(wp_time seg_start, wp_time seg_len, wp_time slot,
    const uint8_t in[JSUM_HASH_LEN])
{
	struct jsum *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->seg_start = seg_start;
	s->seg_len = seg_len;
	s->slot = slot > 0 ? slot : JSUM_SLOT_DEFAULT;
	if (in != NULL)
		memcpy(s->in, in, JSUM_HASH_LEN);
	s->last_t = -1;
	s->version = JSUM_VERSION;
	return s;
}

void
jsum_free(struct jsum *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nt; i++)
		free(s->t[i].name);
	for (i = 0; s->twin != NULL && i < s->ns; i++)
		free(s->twin[i].pk);	/* its open span: in the slab */
	free(s->twin);
	for (i = 0; i < s->nslab; i++)
		free(s->slab[i]);
	free(s->slab);
	jspill_free(s->spill);
	for (i = 0; i < s->ns; i++) {
		if (s->s[i].packed)
			free(s->s[i].pk);
		else {
			free(s->s[i].span);
			free(s->s[i].sub);
		}
		if (s->s[i].texted)
			sertext_drop(s->s[i].text);
		if (s->s[i].pooled)
			continue;
		free(s->s[i].series);
		if (!s->s[i].lab_shared)
			free(s->s[i].labels);
	}
	free(s->t);
	free(s->s);
	hmap_fini(&s->thash);
	hidx_fini(&s->shash);
	strpool_fini(&s->pool);
	free(s);
}

/* ---- lookup: positions in s->t and s->s by name ---- */

struct tkey {
	const struct jsum *s;
	const char	*name;
};

static bool
t_eq(const void *entry, const void *key)
{
	const struct tkey *k = key;

	return strcmp(k->s->t[hmap_ix_of(entry)].name, k->name) == 0;
}

struct skey {
	const struct jsum *s;
	uint32_t	 target;
	const char	*series;
};

static bool
s_eq(const void *entry, const void *key)
{
	const struct skey *k = key;
	const struct jsum_series *se = &k->s->s[hmap_ix_of(entry)];

	if (se->target != k->target)
		return false;
	if (se->texted)
		return sertext_eq(se->text, se->ti, SERTEXT_SERIES, k->series);
	return se->pooled ? strpool_eq(&k->s->pool, se->sref, k->series) :
	    strcmp(se->series, k->series) == 0;
}

static uint64_t
s_hash(uint32_t target, const char *series)
{
	return hmap_hash_add(hmap_hash_add(HMAP_SEED, &target,
	    sizeof(target)), series, strlen(series));
}

/* Room for element n, doubling from first. */
static void *
grow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return p;
	ncap = *cap ? *cap * 2 : first;
	if ((np = reallocarray(p, ncap, size)) == NULL)
		return NULL;
	*cap = ncap;
	return np;
}

/* *p (of *cap elements of size sz) holds at least n.  0, or -1 out of
 * memory (*p as it was). */
static int
room(void *p, size_t *cap, size_t n, size_t sz)
{
	void *np;

	if (n <= *cap)
		return 0;
	if ((np = reallocarray(*(void **)p, n, sz)) == NULL)
		return -1;
	*(void **)p = np;
	*cap = n;
	return 0;
}

int
jsum_target_idx(struct jsum *s, const char *name)
{
	struct tkey k = { s, name };
	uint64_t h;
	void *np, *e;

	if (s->last_t >= 0 && strcmp(s->t[s->last_t].name, name) == 0)
		return s->last_t;
	h = hmap_hash(name);
	if ((e = hmap_get(&s->thash, h, t_eq, &k)) != NULL)
		return s->last_t = (int)hmap_ix_of(e);
	if (s->nt >= JSUM_MAX_ITEMS ||
	    (np = grow(s->t, &s->tcap, s->nt, sizeof(*s->t), 64)) == NULL)
		return -1;
	s->t = np;
	memset(&s->t[s->nt], 0, sizeof(*s->t));
	if ((s->t[s->nt].name = strdup(name)) == NULL)
		return -1;
	if (hmap_put(&s->thash, h, hmap_ix(s->nt)) == -1) {
		free(s->t[s->nt].name);
		return -1;
	}
	return s->last_t = (int)(s->nt++);
}

/*
 * Series smp's strings: its record's text (position i there), held, when
 * the record has one and the target's new series have not come in
 * JSUM_TEXTS_MAX texts already (counted as changes of the last one), else
 * copied into the pool.  A text holds the strings of a whole poll of the
 * target, kept to the segment's close even when only a few series were
 * new in it: the limit bounds that for a target whose series come and go
 * with every poll.  0 or -1 (out of memory).
 */
static int
series_strings(struct jsum *s, struct jsum_series *se,
    const struct wp_sample *smp, struct sertext *text, size_t i)
{
	struct jsum_target *jt = &s->t[se->target];
	int64_t sr, lr;

	se->pooled = true;
	if (text != NULL && (text == jt->last_text ||
	    jt->ntexts < JSUM_TEXTS_MAX)) {
		if (text != jt->last_text) {
			jt->last_text = text;
			jt->ntexts++;
		}
		se->texted = true;
		se->text = sertext_hold(text);
		se->ti = (uint32_t)i;
		return 0;
	}
	/* a row's power and energy come together with the same labels (the
	 * pool stores them once), the outlets' labels share their tail */
	if ((sr = strpool_put(&s->pool, smp->series)) < 0 ||
	    (lr = strpool_put(&s->pool, smp->labels)) < 0)
		return -1;
	se->sref = (uint32_t)sr;
	se->lref = (uint32_t)lr;
	return 0;
}

/* Series smp (value i of a record of target t with strings text, or
 * NULL), found or added.  NULL: out of memory. */
static struct jsum_series *
series_get(struct jsum *s, uint32_t t, const struct wp_sample *smp,
    struct sertext *text, size_t i)
{
	struct skey k = { s, t, smp->series };
	struct jsum_series *se;
	uint64_t h = s_hash(t, smp->series);
	void *np, *e;

	if ((e = hidx_get(&s->shash, h, s_eq, &k)) != NULL)
		return &s->s[hmap_ix_of(e)];
	if (s->ns >= JSUM_MAX_ITEMS ||
	    (np = grow(s->s, &s->scap, s->ns, sizeof(*s->s), 64)) == NULL)
		return NULL;
	s->s = np;
	if (s->twin_slot > 0) {
		if ((np = grow(s->twin, &s->twcap, s->ns, sizeof(*s->twin),
		    64)) == NULL)
			return NULL;
		s->twin = np;
		memset(&s->twin[s->ns], 0, sizeof(*s->twin));
	}
	se = &s->s[s->ns];
	memset(se, 0, sizeof(*se));
	se->target = t;
	if (series_strings(s, se, smp, text, i) != 0)
		return NULL;
	se->packed = true;
	se->boundary = (uint8_t)smp->boundary;
	se->quantity = (uint8_t)smp->quantity;
	se->kind = (uint8_t)smp->kind;
	se->resolution = smp->resolution;
	if (hidx_put(&s->shash, h, s->ns) == -1) {
		if (se->texted)	/* not counted: nothing else to free */
			sertext_drop(se->text);
		return NULL;
	}
	s->ns++;
	return se;
}

/* ---- accumulation ---- */

static void
span_start(struct jsum_span *sp, wp_time t, const struct journal_value *v,
    double x)
{
	memset(sp, 0, sizeof(*sp));
	sp->t0 = sp->t1 = t;
	sp->val0 = sp->val1 = v->s.value;
	sp->cum0 = sp->cum1 = v->cum;
	sp->cf0 = sp->cf1 = v->ctr_flags;
	sp->n = 1;
	sp->dsum = v->delta;
	sp->vmin = sp->vmax = sp->vsum = x;
}

/* What a reading x, gap after the reading px, adds to its span's energy:
 * a counter's rise, a gauge's trapezoid. */
static double
step_energy(int kind, double px, double x, wp_time gap)
{
	if (kind == WP_COUNTER)
		return x - px;
	return (px + x) / 2 * ((double)gap / (double)WP_SEC);
}

/* The flags a counter reading x with counter flags cf sets on the span it
 * extends after the reading px. */
static uint32_t
step_flags(double px, double x, uint32_t cf)
{
	uint32_t f = 0;

	if (x < px)
		f |= JSUM_F_BACK;
	if (cf & (CTR_RESET | CTR_DISCONT))
		f |= JSUM_F_RESET;
	if (cf & CTR_IMPLAUSIBLE)
		f |= JSUM_F_IMPLAUSIBLE;
	return f;
}

static void
span_extend(struct jsum_span *sp, struct jsum_series *se, wp_time t,
    const struct journal_value *v, double x)
{
	wp_time gap = t - sp->t1;	/* the reading before: the span's last */
	double px = jsum_x(se->kind, sp->val1, sp->cum1);

	if (gap > sp->max_gap)
		sp->max_gap = gap;
	if (se->kind == WP_COUNTER)
		sp->flags |= step_flags(px, x, v->ctr_flags);
	sp->energy += step_energy(se->kind, px, x, gap);
	sp->t1 = t;
	sp->val1 = v->s.value;
	sp->cum1 = v->cum;
	sp->cf1 = v->ctr_flags;
	sp->n++;
	sp->dsum += v->delta;
	sp->vmin = x < sp->vmin ? x : sp->vmin;
	sp->vmax = x > sp->vmax ? x : sp->vmax;
	sp->vsum += x;
}

/* Packed se: closes its open span (its slot has passed); 0 or -1. */
static int
span_close(const struct jsum *s, struct jsum_series *se)
{
	return jsum_col_close(s, &se->pk, &se->cap, se->n - 1, &se->span[0]);
}

/* Exchanges se's column with c's (its sums stay in c). */
static void
col_swap(struct jsum_series *se, struct jsum_col *c)
{
	uint32_t flags = se->flags, n = se->n, cap = se->cap;
	struct jsum_span *span = se->span;
	uint8_t *pk = se->pk;

	se->flags = c->flags;
	se->n = c->n;
	se->cap = c->cap;
	se->span = c->span;
	se->pk = c->pk;
	c->flags = flags;
	c->n = n;
	c->cap = cap;
	c->span = span;
	c->pk = pk;
}

/* ---- a twin column kept as sums (twin_sums) ---- */

/* Adds p, the next span of the same twin slot, to out: what span_extend
 * would have made of p's readings after out's. */
static void
span_join(int kind, struct jsum_span *out, const struct jsum_span *p)
{
	wp_time gap = p->t0 - out->t1;
	double px = jsum_x(kind, out->val1, out->cum1);
	double x = jsum_x(kind, p->val0, p->cum0);

	if (gap > out->max_gap)
		out->max_gap = gap;
	if (p->max_gap > out->max_gap)
		out->max_gap = p->max_gap;
	if (kind == WP_COUNTER)
		out->flags |= step_flags(px, x, p->cf0);
	out->flags |= p->flags;
	out->t1 = p->t1;
	out->val1 = p->val1;
	out->cum1 = p->cum1;
	out->cf1 = p->cf1;
	out->n += p->n;
	out->vmin = p->vmin < out->vmin ? p->vmin : out->vmin;
	out->vmax = p->vmax > out->vmax ? p->vmax : out->vmax;
}

/*
 * The twin's open span, whole: the main column's spans (nclosed closed ones,
 * pk and cap as col_close left them, then open, the last reading's) in the
 * twin slot tslot of the last reading, merged, with c's sums.  Min, max,
 * counts, gaps and flags come out as a reading at a time gives them; the
 * sums could not (a float sum depends on its order), so the twin keeps
 * those.  0, or -1 (the spill could not be read).
 */
static int
twin_open_span(const struct jsum *s, int kind, const uint8_t *pk,
    uint32_t cap, uint32_t nclosed, const struct jsum_span *open,
    wp_time tslot, const struct jsum_col *c, struct jsum_span *out)
{
	struct jsum_span sp = { 0 };
	wp_time at = open->t1 / tslot;
	struct jsum_closed cl;
	size_t k;
	bool any = false;

	if (jsum_closed_open(s, pk, cap, nclosed, &cl) != 0)
		return -1;
	for (k = 0; k <= nclosed; k++) {
		const struct jsum_span *p = &sp;

		if (k < nclosed)
			jsum_closed_next(&cl, &sp);
		else
			p = open;
		if (p->t0 / tslot != at)
			continue;
		if (!any)
			*out = *p;
		else
			span_join(kind, out, p);
		any = true;
	}
	out->energy = c->energy;
	out->dsum = c->dsum;
	out->vsum = c->vsum;
	return 0;
}

/*
 * A reading x at t of se into its twin column c, kept as sums, before the
 * main column takes it (se->span[0], if any, ends with the reading before).
 * A reading in a new twin slot closes the twin's span: packed whole.
 * 0 or -1.
 */
static int
twin_sums_put(struct jsum *s, struct jsum_series *se, struct jsum_col *c,
    wp_time t, const struct journal_value *v, double x)
{
	const struct jsum_span *last = se->n ? &se->span[0] : NULL;
	struct jsum_span whole;
	double px;

	if (last != NULL && last->t1 / s->twin_slot == t / s->twin_slot) {
		px = jsum_x(se->kind, last->val1, last->cum1);
		c->energy += step_energy(se->kind, px, x, t - last->t1);
		c->dsum += v->delta;
		c->vsum += x;
		/* the first of a main span: what span_extend gives */
		if (se->kind == WP_COUNTER && last->t0 / s->slot != t / s->slot)
			c->flags |= step_flags(px, x, v->ctr_flags);
		return 0;
	}
	if (last != NULL) {
		if (twin_open_span(s, se->kind, se->pk, se->cap, se->n - 1,
		    last, s->twin_slot, c, &whole) != 0 ||
		    jsum_col_close(s, &c->pk, &c->cap, c->n - 1, &whole) != 0)
			return -1;
	}
	if (c->n == UINT32_MAX)
		return -1;
	c->n++;
	c->energy = 0;
	c->dsum = v->delta;
	c->vsum = x;
	return 0;
}

/* Room for a writer's open span, from the summary's slab; NULL out of
 * memory.  Freed with the summary. */
static struct jsum_span *
open_span(struct jsum *s)
{
	struct jsum_span **np;

	if (s->nslab == 0 || s->slab_used == SPAN_SLAB) {
		if ((np = reallocarray(s->slab, s->nslab + 1, sizeof(*np))) ==
		    NULL)
			return NULL;
		s->slab = np;
		if ((np[s->nslab] = malloc(SPAN_SLAB * sizeof(**np))) == NULL)
			return NULL;
		s->nslab++;
		s->slab_used = 0;
	}
	return &s->slab[s->nslab - 1][s->slab_used++];
}

/* Puts a reading into se's open span at slot, or a new one.  0 or -1. */
static int
put_span(struct jsum *s, struct jsum_series *se, wp_time slot, wp_time t,
    const struct journal_value *v, double x)
{
	struct jsum_span *sp = se->n ? &se->span[0] : NULL;	/* packed:
								   the open one */

	if (sp != NULL && sp->t0 / slot == t / slot)
		span_extend(sp, se, t, v, x);
	else {
		if (se->n == UINT32_MAX || (se->n > 0 ? span_close(s, se) :
		    (se->span = open_span(s)) == NULL ? -1 : 0))
			return -1;
		sp = &se->span[0];
		se->n++;
		span_start(sp, t, v, x);
	}
	if (se->kind == WP_COUNTER && (v->ctr_flags & CTR_WRAPPED))
		sp->flags |= JSUM_F_WRAP;
	se->flags |= sp->flags;
	return 0;
}

/* A reading of se (and of its twin column tw, or NULL). */
static int
reading(struct jsum *s, struct jsum_series *se, struct jsum_col *tw,
    wp_time t, const struct journal_value *v)
{
	uint32_t skip = 0;
	double x;
	int rc;

	x = jsum_x(se->kind, v->s.value, v->cum);
	if (v->s.kind != se->kind)
		skip = JSUM_F_KIND;
	else if (se->kind == WP_COUNTER && (v->ctr_flags & CTR_HELD))
		skip = JSUM_F_HELD;
	else if (se->n > 0 && t <= se->span[0].t1)	/* the last taken */
		skip = JSUM_F_ORDER;
	else if (!isfinite(x))
		skip = JSUM_F_NONFINITE;
	if (skip) {
		se->flags |= skip;
		if (tw != NULL)
			tw->flags |= skip;
		return 0;
	}
	if (tw != NULL && s->twin_sums) {
		if (twin_sums_put(s, se, tw, t, v, x) != 0 ||
		    put_span(s, se, s->slot, t, v, x) != 0)
			return -1;
		tw->flags |= se->span[0].flags;	/* its readings' in the
						   main span: the twin's */
		return 0;
	}
	if (put_span(s, se, s->slot, t, v, x) != 0)
		return -1;
	if (tw != NULL) {
		col_swap(se, tw);
		rc = put_span(s, se, s->twin_slot, t, v, x);
		col_swap(se, tw);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static void
target_poll(struct jsum_target *tg, const struct journal_record *r)
{
	if (tg->polls + tg->failures > 0 && r->t_real - tg->last >
	    tg->max_gap)
		tg->max_gap = r->t_real - tg->last;
	if (tg->polls + tg->failures == 0)
		tg->first = r->t_real;
	tg->last = r->t_real;
	if (r->status != 0)
		tg->failures++;
	else
		tg->polls++;
}

int
jsum_set_twin(struct jsum *s, wp_time slot)
{
	if (s->ns > 0 || slot <= 0)
		return -1;
	s->twin_slot = slot;
	s->twin_sums = slot % s->slot == 0;
	return 0;
}

int
jsum_spill(struct jsum *s, int fd)
{
	if (s->ns > 0 || s->spill != NULL) {
		close(fd);
		return -1;
	}
	return (s->spill = jspill_new(fd)) == NULL ? -1 : 0;
}

int
jsum_reserve(struct jsum *s, size_t nt, size_t ns)
{
	if (nt > JSUM_MAX_ITEMS || ns > JSUM_MAX_ITEMS ||
	    room(&s->t, &s->tcap, nt, sizeof(*s->t)) != 0 ||
	    room(&s->s, &s->scap, ns, sizeof(*s->s)) != 0 ||
	    (s->twin_slot > 0 && room(&s->twin, &s->twcap, ns,
	    sizeof(*s->twin)) != 0) ||
	    hmap_reserve(&s->thash, nt) != 0 ||
	    hidx_reserve(&s->shash, ns) != 0)
		return -1;
	return 0;
}

void
jsum_twin_swap(struct jsum *s)
{
	wp_time slot;
	size_t i;

	if (s->twin_slot <= 0)
		return;
	for (i = 0; i < s->ns; i++)
		col_swap(&s->s[i], &s->twin[i]);
	slot = s->slot;
	s->slot = s->twin_slot;
	s->twin_slot = slot;
	s->swapped = !s->swapped;
}

int
jsum_add(struct jsum *s, const struct journal_record *r)
{
	struct sertext *text = sertext_of_n(r->text, r->n);
	struct jsum_series *se;
	int ti;
	size_t i;

	if (s->swapped || (ti = jsum_target_idx(s, r->target)) < 0)
		return -1;
	if (s->count == 0 || r->t_real < s->rec_min)
		s->rec_min = r->t_real;
	if (s->count == 0 || r->t_real > s->rec_max)
		s->rec_max = r->t_real;
	s->count++;
	target_poll(&s->t[ti], r);
	if (r->status != 0)
		return 0;
	for (i = 0; i < r->n; i++) {
		const struct journal_value *v = &r->v[i];
		wp_time t = v->s.t_real ? v->s.t_real : r->t_real;

		if ((se = series_get(s, (uint32_t)ti, &v->s, text, i)) ==
		    NULL ||
		    reading(s, se, s->twin != NULL ? &s->twin[se - s->s] :
		    NULL, t, v) != 0)
			return -1;
	}
	return 0;
}

/* ---- encoding ---- */

/* The span and series flags a version has (1: no JSUM_F_IMPLAUSIBLE). */
static uint32_t
flags_of(int version)
{
	return version == 1 ? JSUM_F_ALL & ~JSUM_F_IMPLAUSIBLE : JSUM_F_ALL;
}

static void
enc_span(struct wire_buf *b, const struct jsum_span *sp, uint32_t fmask)
{
	wire_put_le(b, (uint64_t)sp->t0, 8);
	wire_put_le(b, (uint64_t)sp->t1, 8);
	wire_put_f64(b, sp->val0);
	wire_put_f64(b, sp->val1);
	wire_put_f64(b, sp->cum0);
	wire_put_f64(b, sp->cum1);
	wire_put_le(b, sp->cf0, 4);
	wire_put_le(b, sp->cf1, 4);
	wire_put_le(b, sp->n, 4);
	wire_put_le(b, sp->flags & fmask, 4);
	wire_put_f64(b, sp->energy);
	wire_put_f64(b, sp->dsum);
	wire_put_le(b, (uint64_t)sp->max_gap, 8);
	wire_put_f64(b, sp->vmin);
	wire_put_f64(b, sp->vmax);
	wire_put_f64(b, sp->vsum);
}

/* se's spans into b.  0, or -1 (a spill could not be read: errno). */
static int
enc_spans(struct wire_buf *b, const struct jsum *s,
    const struct jsum_series *se, uint32_t fmask)
{
	struct jsum_span sp = { 0 };
	const struct jsum_col *m;
	struct jsum_closed cl;
	size_t k;

	if (!se->packed) {
		for (k = 0; k < se->n; k++)
			enc_span(b, &se->span[k], fmask);
		return 0;
	}
	if (jsum_closed_open(s, se->pk, se->cap, se->n > 0 ? se->n - 1 : 0,
	    &cl) != 0)
		return -1;
	for (k = 0; k + 1 < se->n; k++) {
		jsum_closed_next(&cl, &sp);
		enc_span(b, &sp, fmask);
	}
	if (se->n > 0 && se->span != NULL)
		enc_span(b, &se->span[0], fmask);
	else if (se->n > 0) {	/* a twin kept as sums, swapped in: the
				   main column is the twin's now */
		m = &s->twin[se - s->s];
		if (twin_open_span(s, se->kind, m->pk, m->cap, m->n - 1,
		    &m->span[0], s->slot, m, &sp) != 0)
			return -1;
		enc_span(b, &sp, fmask);
	}
	return 0;
}

/* Version 3: the sub-slot energies, a count byte first. */
static void
enc_sub(struct wire_buf *b, const struct jsum_series *se)
{
	const double *sub = se->packed ? NULL : se->sub;
	uint8_t k;

	wire_put_le(b, sub != NULL ? se->nsub : 0, 1);
	for (k = 0; sub != NULL && k < se->nsub; k++)
		wire_put_f64(b, sub[k]);
}

static void
enc_head(struct wire_buf *b, const struct jsum *s)
{
	size_t i;

	wire_put(b, "WPSS", 4);
	wire_put_le(b, (uint64_t)s->version, 1);
	wire_put_le(b, 0, 3);
	wire_put_le(b, (uint64_t)s->seg_start, 8);
	wire_put_le(b, (uint64_t)s->seg_len, 8);
	wire_put_le(b, (uint64_t)s->slot, 8);
	wire_put(b, s->in, JSUM_HASH_LEN);
	wire_put(b, s->fin, JSUM_HASH_LEN);
	wire_put_le(b, s->count, 8);
	wire_put_le(b, (uint64_t)s->rec_min, 8);
	wire_put_le(b, (uint64_t)s->rec_max, 8);
	wire_put_le(b, s->nt, 4);
	wire_put_le(b, s->ns, 4);
	for (i = 0; i < s->nt; i++) {
		const struct jsum_target *t = &s->t[i];

		wire_put_str(b, t->name, 255, 1);
		wire_put_le(b, t->polls, 4);
		wire_put_le(b, t->failures, 4);
		wire_put_le(b, (uint64_t)t->first, 8);
		wire_put_le(b, (uint64_t)t->last, 8);
		wire_put_le(b, (uint64_t)t->max_gap, 8);
	}
}

/* se into b.  0, or -1 (a spill could not be read: errno). */
static int
enc_series(struct wire_buf *b, const struct jsum *s,
    const struct jsum_series *se)
{
	char sbuf[WP_SERIES_MAX], lbuf[WP_LABEL_MAX];
	const char *series, *labels;

	jsum_series_text(s, se, sbuf, lbuf, &series, &labels);
	wire_put_le(b, se->target, 4);
	wire_put_str(b, series, WP_SERIES_MAX - 1, 1);
	wire_put_le(b, se->boundary, 1);
	wire_put_le(b, se->quantity, 1);
	wire_put_le(b, se->kind, 1);
	wire_put_f64(b, se->resolution);
	wire_put_str(b, labels, WP_LABEL_MAX - 1, 1);
	wire_put_le(b, se->flags & flags_of(s->version), 4);
	wire_put_le(b, se->n, 4);
	if (enc_spans(b, s, se, flags_of(s->version)) != 0)
		return -1;
	if (s->version >= JSUM_VERSION_DAY)
		enc_sub(b, se);
	return 0;
}

/* b's bytes to k, b emptied (its room kept).  0 or -1. */
static int
flush(struct wire_buf *b, const struct jsum_sink *k)
{
	if (b->oom || k->put(k->arg, b->p, b->len) != 0)
		return -1;
	b->len = 0;
	return 0;
}

/* The encoding into b, whole (k NULL) or handed to k a piece at a time. */
static int
encode(struct jsum *s, const uint8_t fin[JSUM_HASH_LEN], uint64_t count,
    struct wire_buf *b, const struct jsum_sink *k)
{
	size_t i;

	memcpy(s->fin, fin, JSUM_HASH_LEN);
	s->count = count;
	enc_head(b, s);
	for (i = 0; i < s->ns; i++) {
		if (enc_series(b, s, &s->s[i]) != 0)
			return -1;
		if (k != NULL && b->len >= JSUM_PIECE && flush(b, k) != 0)
			return -1;
	}
	if (k != NULL && b->len > 0 && flush(b, k) != 0)
		return -1;
	return b->oom ? -1 : 0;
}

int
jsum_encode(struct jsum *s, const uint8_t fin[JSUM_HASH_LEN], uint64_t count,
    uint8_t **out, size_t *len)
{
	struct wire_buf b = { 0 };

	if (encode(s, fin, count, &b, NULL) != 0) {
		free(b.p);
		return -1;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

int
jsum_write(struct jsum *s, const uint8_t fin[JSUM_HASH_LEN], uint64_t count,
    const struct jsum_sink *k)
{
	struct wire_buf b = { 0 };
	int rc = encode(s, fin, count, &b, k);

	free(b.p);
	return rc;
}

/* ---- decoding ---- */

/* Little-endian words at p (the caller checked the bytes are there). */
static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	    (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	    (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	    (uint64_t)p[7] << 56;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static double
getf64(const uint8_t *p)
{
	uint64_t u = get64(p);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* The span of JSUM_SPAN_LEN bytes at p (enc_span's layout): false when
 * it is invalid. */
static bool
dec_span_at(const uint8_t *p, struct jsum_span *sp, uint32_t fmask)
{
	sp->t0 = (wp_time)get64(p);
	sp->t1 = (wp_time)get64(p + 8);
	sp->val0 = getf64(p + 16);
	sp->val1 = getf64(p + 24);
	sp->cum0 = getf64(p + 32);
	sp->cum1 = getf64(p + 40);
	sp->cf0 = get32(p + 48);
	sp->cf1 = get32(p + 52);
	sp->n = get32(p + 56);
	sp->flags = get32(p + 60);
	sp->energy = getf64(p + 64);
	sp->dsum = getf64(p + 72);
	sp->max_gap = (wp_time)get64(p + 80);
	sp->vmin = getf64(p + 88);
	sp->vmax = getf64(p + 96);
	sp->vsum = getf64(p + 104);
	return !(sp->n == 0 || sp->t1 < sp->t0 || (sp->flags & ~fmask));
}

/* A series' n spans, in order (the caller checked n fit in d). */
static int
dec_spans(struct wire_rd *d, struct jsum_span *span, size_t n,
    uint32_t fmask)
{
	size_t k;

	for (k = 0; k < n; k++, d->off += JSUM_SPAN_LEN)
		if (!dec_span_at(d->p + d->off, &span[k], fmask) ||
		    (k > 0 && span[k].t0 <= span[k - 1].t1))
			return d->bad = true, -1;
	return 0;
}

/* A target's counts and times after its name.  0, or -1 when they are not
 * in the bytes. */
static int
dec_target_counts(struct wire_rd *d, struct jsum_target *t)
{
	t->polls = (uint32_t)wire_rd_le(d, 4);
	t->failures = (uint32_t)wire_rd_le(d, 4);
	t->first = (wp_time)wire_rd_le(d, 8);
	t->last = (wp_time)wire_rd_le(d, 8);
	t->max_gap = (wp_time)wire_rd_le(d, 8);
	return d->bad ? -1 : 0;
}

static int
dec_target(struct wire_rd *d, struct jsum_target *t)
{
	char name[256];

	wire_rd_str(d, 1, name, sizeof(name));
	if (d->bad || name[0] == '\0' || (t->name = strdup(name)) == NULL)
		return -1;
	return dec_target_counts(d, t);
}

/* Version 3: se's sub-slot energies after its spans (its array grown
 * when it holds fewer; kept between decodes).  0, or -1 malformed or out
 * of memory. */
static int
dec_sub(struct wire_rd *d, const struct jsum *s, struct jsum_series *se)
{
	size_t n, k;
	double *np;

	se->nsub = 0;
	if (s->version < JSUM_VERSION_DAY)
		return 0;
	n = (size_t)wire_rd_le(d, 1);
	if (d->bad || n > JSUM_SUB_MAX || n > (d->len - d->off) / 8)
		return -1;
	if (n > se->subcap) {
		if ((np = reallocarray(se->sub, n, sizeof(*np))) == NULL)
			return -1;
		se->sub = np;
		se->subcap = (uint8_t)n;
	}
	for (k = 0; k < n; k++)
		if (!isfinite(se->sub[k] = wire_rd_f64(d)))
			return -1;
	se->nsub = (uint8_t)n;
	return d->bad ? -1 : 0;
}

/* After a series' header: its flags, its spans (into se->span, grown
 * when it holds fewer: cap) and its sub-slot energies.  0, or -1
 * malformed or out of memory. */
static int
dec_series_body(struct wire_rd *d, const struct jsum *s, struct jsum_series *se)
{
	size_t n;
	void *np;

	se->flags = (uint32_t)wire_rd_le(d, 4);
	n = (size_t)wire_rd_le(d, 4);
	if (d->bad || se->target >= s->nt ||
	    (se->flags & ~flags_of(s->version)) ||
	    n > (d->len - d->off) / JSUM_SPAN_LEN)
		return -1;
	if (n > se->cap) {
		if ((np = reallocarray(se->span, n, sizeof(*se->span))) == NULL)
			return -1;
		se->span = np;
		se->cap = (uint32_t)n;
	}
	se->n = (uint32_t)n;
	if (dec_spans(d, se->span, n, flags_of(s->version)) != 0)
		return -1;
	return dec_sub(d, s, se);
}

/* A series' header: its target, name (into sbuf), boundary, quantity,
 * kind, resolution and labels (into lbuf); d->bad when not there. */
static void
dec_series_head(struct wire_rd *d, struct jsum_series *se,
    char sbuf[WP_SERIES_MAX], char lbuf[WP_LABEL_MAX])
{
	se->target = (uint32_t)wire_rd_le(d, 4);
	wire_rd_str(d, 1, sbuf, WP_SERIES_MAX);
	se->boundary = (uint8_t)wire_rd_le(d, 1);
	se->quantity = (uint8_t)wire_rd_le(d, 1);
	se->kind = (uint8_t)wire_rd_le(d, 1);
	se->resolution = wire_rd_f64(d);
	wire_rd_str(d, 1, lbuf, WP_LABEL_MAX);
}

static int
dec_series(struct wire_rd *d, const struct jsum *s, struct jsum_series *se)
{
	char series[WP_SERIES_MAX], labels[WP_LABEL_MAX];

	dec_series_head(d, se, series, labels);
	if ((se->series = strdup(series)) == NULL ||
	    (se->labels = strdup(labels)) == NULL)
		return -1;
	return dec_series_body(d, s, se);
}

static bool
head_ok(const uint8_t *p, size_t len)
{
	return len >= JSUM_HDR_LEN && memcmp(p, "WPSS", 4) == 0 &&
	    p[4] >= 1 && p[4] <= JSUM_VERSION_DAY;
}

/* The header (head_ok) into s, and the counts of targets and series: -1
 * when they cannot be in the bytes. */
static int
dec_head(struct wire_rd *d, struct jsum *s, size_t *nt, size_t *ns)
{
	s->version = d->p[4];
	d->off = 8;
	s->seg_start = (wp_time)wire_rd_le(d, 8);
	s->seg_len = (wp_time)wire_rd_le(d, 8);
	s->slot = (wp_time)wire_rd_le(d, 8);
	memcpy(s->in, d->p + d->off, JSUM_HASH_LEN);
	memcpy(s->fin, d->p + d->off + JSUM_HASH_LEN, JSUM_HASH_LEN);
	d->off += 2 * JSUM_HASH_LEN;
	s->count = wire_rd_le(d, 8);
	s->rec_min = (wp_time)wire_rd_le(d, 8);
	s->rec_max = (wp_time)wire_rd_le(d, 8);
	*nt = (size_t)wire_rd_le(d, 4);
	*ns = (size_t)wire_rd_le(d, 4);
	return s->slot <= 0 || *nt > d->len / 30 || *ns > d->len / 20 ? -1 : 0;
}

struct jsum *
jsum_decode(const uint8_t *p, size_t len, struct wp_err *err)
{
	struct wire_rd d = { p, len, 0, false };
	struct jsum *s;
	size_t i, nt, ns;

	if (!head_ok(p, len)) {
		err_set(err, WP_E_PROTOCOL, "summary: bad header");
		return NULL;
	}
	if ((s = jsum_new(0, 0, 1, NULL)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if (dec_head(&d, s, &nt, &ns) != 0)
		goto bad;
	if ((nt && (s->t = calloc(nt, sizeof(*s->t))) == NULL) ||
	    (ns && (s->s = calloc(ns, sizeof(*s->s))) == NULL))
		goto bad;
	for (i = 0; i < nt; i++)	/* counted first: freed if it fails */
		if (++s->nt, dec_target(&d, &s->t[i]) != 0)
			goto bad;
	for (i = 0; i < ns; i++)
		if (++s->ns, dec_series(&d, s, &s->s[i]) != 0)
			goto bad;
	if (d.off != len)
		goto bad;
	return s;
bad:
	jsum_free(s);
	err_set(err, WP_E_PROTOCOL, "summary: malformed body");
	return NULL;
}

/* ---- decoding a series at a time ---- */

/* A series' text, spans and sub-slot energies decoded into the buffers of
 * se (its text borrowed from sbuf and lbuf, its arrays grown as needed and
 * kept from series to series).  0, or -1 malformed or out of memory. */
static int
dec_series_into(struct wire_rd *d, const struct jsum *s, struct jsum_series *se,
    char sbuf[WP_SERIES_MAX], char lbuf[WP_LABEL_MAX])
{
	dec_series_head(d, se, sbuf, lbuf);
	se->series = sbuf;
	se->labels = lbuf;
	return dec_series_body(d, s, se);
}

int
jsum_decode_each(const uint8_t *p, size_t len, const struct jsum_each *e,
    struct wp_err *err)
{
	char sbuf[WP_SERIES_MAX], lbuf[WP_LABEL_MAX];
	struct wire_rd d = { p, len, 0, false };
	struct jsum_series se = { 0 };
	struct jsum *h = NULL;
	size_t i, nt, ns;
	int rc = -1;

	if (!head_ok(p, len) || (h = jsum_new(0, 0, 1, NULL)) == NULL ||
	    dec_head(&d, h, &nt, &ns) != 0 ||
	    (nt && (h->t = calloc(nt, sizeof(*h->t))) == NULL))
		goto out;
	for (i = 0; i < nt; i++)	/* counted first: freed if it fails */
		if (++h->nt, dec_target(&d, &h->t[i]) != 0)
			goto out;
	if (e->head(e->arg, h, ns) != 0)
		goto out;
	for (i = 0; i < ns; i++)
		if (dec_series_into(&d, h, &se, sbuf, lbuf) != 0 ||
		    e->series(e->arg, h, &se) != 0)
			goto out;
	rc = d.off == len ? 0 : -1;
out:
	if (rc != 0)
		err_set(err, WP_E_PROTOCOL, "summary: malformed, or out of "
		    "memory");
	free(se.span);
	free(se.sub);
	jsum_free(h);
	return rc;
}

/* ---- decoding consecutive summaries (jsum_rd) ---- */

/* n bytes at p as a string shorter than max, with no NUL inside (as
 * wire_rd_str takes it): a copy, or NULL. */
static char *
text_dup(const uint8_t *p, size_t n, size_t max)
{
	if (n >= max || memchr(p, '\0', n) != NULL)
		return NULL;
	return strndup((const char *)p, n);
}

/* Whether the len bytes at p are those of old[i] (one of nold) in the
 * bytes decoded last. */
static bool
hdr_same(const struct jsum_rd *r, const struct jsum_hdr *old, size_t nold,
    size_t i, const uint8_t *p, size_t len)
{
	return i < nold && old[i].len == len &&
	    memcmp(r->prev + old[i].off, p, len) == 0;
}

/* Room for nt targets and ns series in r's position tables and its
 * summary.  0, or -1 out of memory. */
static int
rd_room(struct jsum_rd *r, size_t nt, size_t ns)
{
	struct jsum *s = r->s;

	return room(&r->th, &r->thcap, nt, sizeof(*r->th)) != 0 ||
	    room(&r->sh, &r->shcap, ns, sizeof(*r->sh)) != 0 ||
	    room(&s->t, &s->tcap, nt, sizeof(*s->t)) != 0 ||
	    room(&s->s, &s->scap, ns, sizeof(*s->s)) != 0 ? -1 : 0;
}

/* s holds nt targets and ns series: the ones past them freed, new ones
 * zeroed (rd_room made the room). */
static void
rd_count(struct jsum *s, size_t nt, size_t ns)
{
	size_t i;

	for (i = nt; i < s->nt; i++)
		free(s->t[i].name);
	for (i = s->nt; i < nt; i++)
		memset(&s->t[i], 0, sizeof(s->t[i]));
	s->nt = nt;
	for (i = ns; i < s->ns; i++) {
		free(s->s[i].span);
		free(s->s[i].sub);
		free(s->s[i].series);
		free(s->s[i].labels);
	}
	for (i = s->ns; i < ns; i++)
		memset(&s->s[i], 0, sizeof(s->s[i]));
	s->ns = ns;
}

/* Target i (of nold decoded last); *same cleared when its name is not
 * the one at i last time. */
static int
rd_target(struct jsum_rd *r, struct wire_rd *d, size_t i, size_t nold,
    bool *same)
{
	struct jsum_target *t = &r->s->t[i];
	size_t n;

	if (d->len - d->off < 1 || d->len - d->off - 1 < (n = d->p[d->off]))
		return -1;
	if (!hdr_same(r, r->th, nold, i, d->p + d->off, n + 1)) {
		*same = false;
		free(t->name);
		if ((t->name = n == 0 ? NULL : text_dup(d->p + d->off + 1, n,
		    256)) == NULL)
			return -1;
	}
	r->th[i].off = (uint32_t)d->off;
	r->th[i].len = (uint32_t)(n + 1);
	d->off += n + 1;
	return dec_target_counts(d, t);
}

/* The header (dec_series' fields up to the labels) of len bytes at p. */
static int
rd_header(struct jsum_series *se, const uint8_t *p, size_t sl, size_t ll)
{
	free(se->series);
	free(se->labels);
	se->target = get32(p);
	se->series = text_dup(p + 5, sl, WP_SERIES_MAX);
	se->boundary = p[5 + sl];
	se->quantity = p[6 + sl];
	se->kind = p[7 + sl];
	se->resolution = getf64(p + 8 + sl);
	se->labels = text_dup(p + 17 + sl, ll, WP_LABEL_MAX);
	return se->series == NULL || se->labels == NULL ? -1 : 0;
}

/* Series i (of nold decoded last); tsame: every target's name is the
 * last summary's. */
static int
rd_series(struct jsum_rd *r, struct wire_rd *d, size_t i, size_t nold,
    bool tsame)
{
	struct jsum *s = r->s;
	struct jsum_series *se = &s->s[i];
	const uint8_t *p = d->p + d->off;
	size_t left = d->len - d->off, sl, ll;

	if (left < 17 || left - 17 < (sl = p[4]) || left - 17 - sl <
	    (ll = p[16 + sl]) + 8)
		return -1;
	se->same = hdr_same(r, r->sh, nold, i, p, 17 + sl + ll);
	if (!se->same && rd_header(se, p, sl, ll) != 0)
		return -1;
	se->same = se->same && tsame;
	r->sh[i].off = (uint32_t)d->off;
	r->sh[i].len = (uint32_t)(17 + sl + ll);
	d->off += 17 + sl + ll;
	return dec_series_body(d, s, se);
}

/* The body of the summary at d into r->s (its header read). */
static int
rd_body(struct jsum_rd *r, struct wire_rd *d, size_t nt, size_t ns)
{
	size_t i, ntold = r->s->nt, nsold = r->s->ns;
	bool tsame = nt == ntold;

	if (rd_room(r, nt, ns) != 0)
		return -1;
	rd_count(r->s, nt, ns);
	for (i = 0; i < nt; i++)
		if (rd_target(r, d, i, ntold, &tsame) != 0)
			return -1;
	for (i = 0; i < ns; i++)
		if (rd_series(r, d, i, nsold, tsame) != 0)
			return -1;
	return d->off == d->len ? 0 : -1;
}

const struct jsum *
jsum_rd_decode(struct jsum_rd *r, uint8_t **buf, size_t *cap, size_t len,
    struct wp_err *err)
{
	struct wire_rd d = { *buf, len, 0, false };
	size_t nt, ns, c = r->prev_cap;
	uint8_t *p = r->prev;
	int rc = -1;

	if (!head_ok(*buf, len))
		err_set(err, WP_E_PROTOCOL, "summary: bad header");
	else if (r->s == NULL && (r->s = jsum_new(0, 0, 1, NULL)) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	else if (dec_head(&d, r->s, &nt, &ns) != 0 ||
	    rd_body(r, &d, nt, ns) != 0)
		err_set(err, WP_E_PROTOCOL, "summary: malformed body");
	else
		rc = 0;
	if (rc != 0) {		/* what it kept may be half decoded */
		jsum_free(r->s);
		r->s = NULL;
	} else
		r->s->seq = ++r->seq;
	r->prev = *buf;
	r->prev_cap = *cap;
	*buf = p;
	*cap = c;
	return rc == 0 ? r->s : NULL;
}

void
jsum_rd_fini(struct jsum_rd *r)
{
	if (r == NULL)
		return;
	jsum_free(r->s);
	free(r->prev);
	free(r->th);
	free(r->sh);
	memset(r, 0, sizeof(*r));
}

int
jsum_slurp_into(const char *path, uint8_t **buf, size_t *cap, size_t *len,
    struct wp_err *err)
{
	struct stat st;
	char eb[128];
	size_t sz;
	ssize_t n;
	uint8_t *p;
	int fd;

	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return err_set(err, errno == ENOENT ? WP_E_CONFIG :
		    WP_E_TRANSIENT, "%s: %s", path,
		    strerror_r(errno, eb, sizeof(eb)));
	if (fstat(fd, &st) != 0 || st.st_size < 0 ||
	    (unsigned long long)st.st_size > JSUM_FILE_MAX) {
		close(fd);
		return err_set(err, WP_E_PROTOCOL, "%s: unreadable or too "
		    "large", path);
	}
	sz = (size_t)st.st_size;
	if (sz + 1 > *cap) {
		if ((p = malloc(sz + sz / 8 + 1)) == NULL) {
			close(fd);
			return err_set(err, WP_E_INTERNAL, "out of memory");
		}
		free(*buf);
		*buf = p;
		*cap = sz + sz / 8 + 1;
	}
	while (*len < sz) {
		n = read(fd, *buf + *len, sz - *len);
		if (n > 0)
			*len += (size_t)n;
		else if (n == 0 || errno != EINTR) {
			close(fd);
			return err_set(err, WP_E_TRANSIENT, "%s: read error",
			    path);
		}
	}
	close(fd);
	return 0;
}

int
jsum_slurp(const char *path, uint8_t **out, size_t *len, struct wp_err *err)
{
	size_t cap = 0;

	*out = NULL;
	if (jsum_slurp_into(path, out, &cap, len, err) == 0)
		return 0;
	free(*out);
	*out = NULL;
	*len = 0;
	return -1;
}
