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
	    strcmp(a->series, b->series) == 0;
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
    const uint8_t in[JSUM_HASH_LEN])
{
	memset(m, 0, sizeof(*m));
	return (m->s = jsum_new(start, len, 1, in)) == NULL ? -1 : 0;
}

void
jsum_merge_fini(struct jsum_merge *m)
{
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

/* A new entry for se (of target ti) at the end.  Its index, or -1. */
static long
merge_entry(struct jsum_merge *m, uint32_t ti, const struct jsum_series *se)
{
	struct jsum *s = m->s;
	struct jsum_series *d;

	if (s->ns >= UINT32_MAX || room_for(&s->s, &s->scap, s->ns + 1,
	    sizeof(*s->s)) != 0)
		return -1;
	d = &s->s[s->ns];
	memset(d, 0, sizeof(*d));
	d->target = ti;
	d->boundary = se->boundary;
	d->quantity = se->quantity;
	d->kind = se->kind;
	d->resolution = se->resolution;
	if ((d->series = strdup(se->series)) == NULL ||
	    (d->labels = strdup(se->labels)) == NULL) {
		free(d->series);
		return -1;
	}
	return (long)s->ns++;
}

/* se's spans after the entry's (flags OR'ed).  0, or -1 ENOMEM. */
static int
merge_spans(struct jsum_series *d, const struct jsum_series *se)
{
	size_t cap = d->cap;

	if (se->n > UINT32_MAX - d->n)
		return -1;
	if (d->n + se->n > cap) {
		struct jsum_span *np;

		cap = d->n + se->n > 2 * cap ? d->n + se->n : 2 * cap;
		if ((np = reallocarray(d->span, cap, sizeof(*np))) == NULL)
			return -1;
		d->span = np;
		d->cap = (uint32_t)cap;
	}
	memcpy(d->span + d->n, se->span, se->n * sizeof(*se->span));
	d->n += se->n;
	d->flags |= se->flags;
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

	if ((e = hmap_get(&s->shash, h, ms_eq, &k)) != NULL)
		return merge_spans(&s->s[hmap_ix_of(e)], se);
	if ((ix = merge_entry(m, ti, se)) < 0 ||
	    hmap_put(&s->shash, h, hmap_ix((size_t)ix)) != 0)
		return -1;
	return merge_spans(&s->s[ix], se);
}

int
jsum_merge_add(struct jsum_merge *m, const struct jsum *b)
{
	struct jsum *s = m->s;
	size_t i;
	int ti;

	if (room_for(&m->tmap, &m->tmcap, b->nt, sizeof(*m->tmap)) != 0)
		return -1;
	for (i = 0; i < b->nt; i++) {
		if ((ti = merge_target(m, &b->t[i])) < 0)
			return -1;
		m->tmap[i] = (uint32_t)ti;
	}
	for (i = 0; i < b->ns; i++)
		if (b->s[i].pooled || b->s[i].packed ||
		    b->s[i].target >= b->nt || merge_series(m,
		    m->tmap[b->s[i].target], &b->s[i]) != 0)
			return -1;
	if (b->count > 0 && (s->count == 0 || b->rec_min < s->rec_min))
		s->rec_min = b->rec_min;
	if (b->count > 0 && (s->count == 0 || b->rec_max > s->rec_max))
		s->rec_max = b->rec_max;
	s->count += b->count;
	if (m->blocks++ == 0)
		s->slot = b->slot;
	return 0;
}

/* Entry se's spans made one, with its energy per sub-slot of len over
 * [from, to] (jsum_merge_finish).  0, or -1 out of memory. */
static int
day_span(struct jsum_series *se, wp_time from, wp_time to, wp_time len)
{
	struct integ_opts o = { .from = from, .to = to, .kind = se->kind,
	    .bin_len = { len, 0 } };
	struct jsum_span d;
	struct integ_span is;
	struct integ g;
	uint32_t k, flags = 0;

	if (se->n == 0)
		return 0;
	if (integ_init(&g, &o, NULL) != 0 ||
	    g.bins[0].n > JSUM_SUB_MAX ||
	    (se->sub = calloc(g.bins[0].n, sizeof(*se->sub))) == NULL) {
		integ_fini(&g);
		return -1;
	}
	d = se->span[0];
	d.n = 0;
	d.dsum = d.vsum = 0;
	for (k = 0; k < se->n; k++) {
		const struct jsum_span *sp = &se->span[k];

		jsum_ispan(se, sp, &is);
		if (sp->t0 < from || sp->t1 > to ||	/* not all counted */
		    integ_add_span(&g, &is) != 0)
			flags |= JSUM_F_RESET;	/* not as its readings */
		d.n += sp->n;
		d.flags |= sp->flags;
		d.dsum += sp->dsum;
		d.vsum += sp->vsum;
		d.vmin = fmin(d.vmin, sp->vmin);
		d.vmax = fmax(d.vmax, sp->vmax);
	}
	if (g.reason == INTEG_IMPLAUSIBLE)
		flags |= JSUM_F_IMPLAUSIBLE;
	else if (g.reason != INTEG_OK)
		flags |= JSUM_F_RESET;
	d.t1 = se->span[se->n - 1].t1;
	d.val1 = se->span[se->n - 1].val1;
	d.cum1 = se->span[se->n - 1].cum1;
	d.cf1 = se->span[se->n - 1].cf1;
	d.energy = g.energy;
	d.max_gap = g.max_gap;
	d.flags |= flags;
	se->flags |= flags;
	for (k = 0; k < g.bins[0].n; k++)
		se->sub[k] = integ_bin(&g.bins[0], k);
	se->nsub = se->subcap = (uint8_t)g.bins[0].n;
	se->span[0] = d;
	se->n = 1;
	integ_fini(&g);
	return 0;
}

int
jsum_merge_finish(struct jsum_merge *m, wp_time len)
{
	struct jsum *s = m->s;
	size_t i;

	/* a day's blocks hold readings a little outside it (a sample
	 * stamped after its poll started, one pushed late): one slot more
	 * each side */
	for (i = 0; i < s->ns; i++)
		if (day_span(&s->s[i], s->seg_start - len, s->seg_start +
		    s->seg_len + len, len) != 0)
			return -1;
	s->version = JSUM_VERSION_DAY;
	s->slot = len;
	return 0;
}
