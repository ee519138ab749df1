/* jsum_merge.c - consecutive summaries merged into one (jsum.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/counter.h"
#include "jsum.h"

/* A series' key in the merge: target, name and header. */
struct mkey {
	const struct jsum		*s;
	uint32_t			 target;
	const struct jsum_series	*se;
};

static bool
ms_eq(const void *entry, const void *key)
{
	const struct mkey *k = key;
	const struct jsum_series *a = &k->s->s[hmap_ix_of(entry)], *b = k->se;

	return a->target == k->target && a->boundary == b->boundary &&
	    a->quantity == b->quantity && a->kind == b->kind &&
	    strpool_eq(&k->s->pool, a->sref, b->series);
}

static uint64_t
ms_hash(uint32_t target, const struct jsum_series *se)
{
	uint8_t hdr[3] = { se->boundary, se->quantity, se->kind };

	return hmap_hash_add(hmap_hash_add(hmap_hash_add(HMAP_SEED, &target,
	    sizeof(target)), hdr, sizeof(hdr)), se->series,
	    strlen(se->series));
}

/* Room for n elements in *p (*cap elements of sz).  0, or -1 ENOMEM. */
static int
room_for(void *p, size_t *cap, size_t n, size_t sz)
{
	size_t nc;
	void *np;

	if (n <= *cap)
		return 0;
	nc = *cap > 32 ? *cap * 2 : 64;
	if (nc < n)
		nc = n;
	if ((np = reallocarray(*(void **)p, nc, sz)) == NULL)
		return -1;
	*(void **)p = np;
	*cap = nc;
	return 0;
}

int
jsum_merge_init(struct jsum_merge *m, wp_time start, wp_time len,
    wp_time sub_len, const uint8_t in[JSUM_HASH_LEN])
{
	memset(m, 0, sizeof(*m));
	if (sub_len <= 0)
		return -1;
	/* a day's blocks hold readings a little outside it (a sample
	 * stamped after its poll started, one pushed late): one sub-slot
	 * more each side */
	m->sub_len = sub_len;
	m->from = start - sub_len;
	m->to = start + len + sub_len;
	if ((m->nsub = integ_bin_count(m->from, m->to, sub_len)) >
	    JSUM_SUB_MAX)
		return -1;
	return (m->s = jsum_new(start, len, 1, in)) == NULL ? -1 : 0;
}

/* The integrators of the series still open, freed. */
static void
free_integs(struct jsum_merge *m)
{
	size_t i;

	for (i = 0; m->g != NULL && i < m->s->ns; i++)
		integ_fini(&m->g[i]);
	free(m->g);
	m->g = NULL;
	m->gcap = 0;
}

void
jsum_merge_fini(struct jsum_merge *m)
{
	if (m->s != NULL)
		free_integs(m);
	jsum_free(m->s);
	free(m->tmap);
	memset(m, 0, sizeof(*m));
}

/* Target t of b in the merge: its counts added (gaps between the
 * summaries count).  The index, or -1 ENOMEM. */
static int
merge_target(struct jsum_merge *m, const struct jsum_target *t)
{
	size_t nt = m->s->nt;
	struct jsum_target *d;
	int ti;

	if ((ti = jsum_target_idx(m->s, t->name)) < 0)
		return -1;
	d = &m->s->t[ti];
	if ((size_t)ti == nt) {		/* new: t's counts and times */
		d->polls = t->polls;
		d->failures = t->failures;
		d->first = t->first;
		d->last = t->last;
		d->max_gap = t->max_gap;
		return ti;
	}
	if (t->first - d->last > d->max_gap)
		d->max_gap = t->first - d->last;
	if (t->max_gap > d->max_gap)
		d->max_gap = t->max_gap;
	d->last = t->last;
	d->polls += t->polls;
	d->failures += t->failures;
	return ti;
}

/* A new entry for se (of target ti) at the end, its integrator not yet
 * started.  Its index, or -1. */
static long
merge_entry(struct jsum_merge *m, uint32_t ti, const struct jsum_series *se)
{
	struct jsum *s = m->s;
	struct jsum_series *d;
	int64_t sr, lr;

	if (s->ns >= UINT32_MAX || room_for(&s->s, &s->scap, s->ns + 1,
	    sizeof(*s->s)) != 0 || room_for(&m->g, &m->gcap, s->ns + 1,
	    sizeof(*m->g)) != 0)
		return -1;
	memset(&m->g[s->ns], 0, sizeof(*m->g));
	d = &s->s[s->ns];
	memset(d, 0, sizeof(*d));
	d->target = ti;
	d->boundary = se->boundary;
	d->quantity = se->quantity;
	d->kind = se->kind;
	d->resolution = se->resolution;
	/* in the merge's pool, as a writer keeps them: a row's power and
	 * energy share their labels, outlets their labels' tail */
	if ((sr = strpool_put(&s->pool, se->series)) < 0 ||
	    (lr = strpool_put(&s->pool, se->labels)) < 0)
		return -1;
	d->pooled = true;
	d->sref = (uint32_t)sr;
	d->lref = (uint32_t)lr;
	return (long)s->ns++;
}

/* d's one span and integrator started from sp, its first: the energy of
 * each sub-slot over [m->from, m->to] into d->sub.  0, or -1 ENOMEM. */
static int
day_start(struct jsum_merge *m, struct jsum_series *d, struct integ *g,
    const struct jsum_span *sp)
{
	struct integ_opts o = { .from = m->from, .to = m->to,
	    .kind = d->kind, .bin_len = { m->sub_len, 0 } };

	if ((d->span = malloc(sizeof(*d->span))) == NULL ||
	    (d->sub = calloc(m->nsub, sizeof(*d->sub))) == NULL)
		return -1;
	o.bin_store[0] = d->sub;
	if (integ_init(g, &o, NULL) != 0)
		return -1;
	d->nsub = d->subcap = (uint8_t)m->nsub;
	d->cap = 1;
	d->n = 1;
	d->span[0] = *sp;
	d->span[0].n = 0;
	d->span[0].dsum = d->span[0].vsum = 0;
	return 0;
}

/*
 * se's spans (the next summary's) added to entry d's one span and
 * integrator, as the report's integrator adds them one by one (in the
 * order of the summaries: the figures are those of a report over all
 * the spans): a span it would not take (not within [from, to], not
 * following) flagged JSUM_F_RESET.  0, or -1 ENOMEM.
 */
static int
merge_spans(struct jsum_merge *m, size_t ix, const struct jsum_series *se)
{
	struct jsum_series *d = &m->s->s[ix];
	struct integ *g = &m->g[ix];
	struct integ_span is;
	struct jsum_span *ds;
	uint32_t k;

	d->flags |= se->flags;
	for (k = 0; k < se->n; k++) {
		const struct jsum_span *sp = &se->span[k];

		if (d->n == 0 && day_start(m, d, g, sp) != 0)
			return -1;
		ds = &d->span[0];
		jsum_ispan(d, sp, &is);
		if (sp->t0 < g->o.from || sp->t1 > g->o.to ||	/* not all
								   counted */
		    integ_add_span(g, &is) != 0) {
			ds->flags |= JSUM_F_RESET;	/* not as its readings */
			d->flags |= JSUM_F_RESET;
		}
		if (ds->n > UINT32_MAX - sp->n)
			return -1;
		ds->n += sp->n;
		ds->flags |= sp->flags;
		ds->dsum += sp->dsum;
		ds->vsum += sp->vsum;
		ds->vmin = fmin(ds->vmin, sp->vmin);
		ds->vmax = fmax(ds->vmax, sp->vmax);
		ds->t1 = sp->t1;
		ds->val1 = sp->val1;
		ds->cum1 = sp->cum1;
		ds->cf1 = sp->cf1;
	}
	return 0;
}

/* Series se of b (its target ti in the merge). */
static int
merge_series(struct jsum_merge *m, uint32_t ti, const struct jsum_series *se)
{
	struct jsum *s = m->s;
	struct mkey k = { s, ti, se };
	uint64_t h = ms_hash(ti, se);
	long ix;
	void *e;

	if ((e = hidx_get(&s->shash, h, ms_eq, &k)) != NULL)
		return merge_spans(m, hmap_ix_of(e), se);
	if ((ix = merge_entry(m, ti, se)) < 0 ||
	    hidx_put(&s->shash, h, (size_t)ix) != 0)
		return -1;
	return merge_spans(m, (size_t)ix, se);
}

/* The header and targets of the next summary b, of ns series.  0, or -1
 * ENOMEM. */
static int
merge_head(struct jsum_merge *m, const struct jsum *b, size_t ns)
{
	struct jsum *s = m->s;
	size_t i;
	int ti;

	if (room_for(&m->tmap, &m->tmcap, b->nt, sizeof(*m->tmap)) != 0)
		return -1;
	/* a day's blocks mostly hold the same series: sized by the first */
	if (m->blocks == 0 && (room_for(&s->s, &s->scap, ns,
	    sizeof(*s->s)) != 0 || room_for(&m->g, &m->gcap, ns,
	    sizeof(*m->g)) != 0 || hidx_reserve(&s->shash, ns) != 0))
		return -1;
	for (i = 0; i < b->nt; i++) {
		if ((ti = merge_target(m, &b->t[i])) < 0)
			return -1;
		m->tmap[i] = (uint32_t)ti;
	}
	memcpy(m->b_in, b->in, JSUM_HASH_LEN);
	memcpy(m->b_fin, b->fin, JSUM_HASH_LEN);
	m->b_count = b->count;
	m->b_rec_min = b->rec_min;
	m->b_rec_max = b->rec_max;
	return 0;
}

/* Series se of the summary b whose head merge_head took.  0, or -1. */
static int
merge_one(struct jsum_merge *m, const struct jsum *b,
    const struct jsum_series *se)
{
	if (se->pooled || se->packed || se->target >= b->nt)
		return -1;
	return merge_series(m, m->tmap[se->target], se);
}

/* After the series of the summary whose head merge_head took: its
 * counts. */
static void
merge_tail(struct jsum_merge *m)
{
	struct jsum *s = m->s;

	if (m->b_count > 0 && (s->count == 0 || m->b_rec_min < s->rec_min))
		s->rec_min = m->b_rec_min;
	if (m->b_count > 0 && (s->count == 0 || m->b_rec_max > s->rec_max))
		s->rec_max = m->b_rec_max;
	s->count += m->b_count;
	m->blocks++;
}

int
jsum_merge_add(struct jsum_merge *m, const struct jsum *b)
{
	size_t i;

	if (merge_head(m, b, b->ns) != 0)
		return -1;
	for (i = 0; i < b->ns; i++)
		if (merge_one(m, b, &b->s[i]) != 0)
			return -1;
	merge_tail(m);
	return 0;
}

static int
each_head(void *arg, const struct jsum *h, size_t ns)
{
	return merge_head(arg, h, ns);
}

static int
each_series(void *arg, const struct jsum *h, const struct jsum_series *se)
{
	return merge_one(arg, h, se);
}

int
jsum_merge_add_bytes(struct jsum_merge *m, const uint8_t *p, size_t len,
    struct wp_err *err)
{
	const struct jsum_each e = { each_head, each_series, m };

	if (jsum_decode_each(p, len, &e, err) != 0)
		return -1;
	merge_tail(m);
	return 0;
}

void
jsum_merge_finish(struct jsum_merge *m)
{
	struct jsum *s = m->s;
	struct jsum_series *d;
	uint32_t flags;
	size_t i;

	for (i = 0; i < s->ns; i++) {
		d = &s->s[i];
		if (d->n == 0)
			continue;
		flags = m->g[i].reason == INTEG_IMPLAUSIBLE ?
		    JSUM_F_IMPLAUSIBLE : m->g[i].reason != INTEG_OK ?
		    JSUM_F_RESET : 0;
		d->span[0].energy = m->g[i].energy;
		d->span[0].max_gap = m->g[i].max_gap;
		d->span[0].flags |= flags;
		d->flags |= flags;
	}
	free_integs(m);
	s->version = JSUM_VERSION_DAY;
	s->slot = m->sub_len;
}
