/* Compact copies of a poll's samples; see lastset.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lastset.h"
#include "lib/lookback.h"

struct lastval {
	double		 value, raw_value;
	uint32_t	 flags;
	int32_t		 dreal, dmono;	/* t_real, t_mono: from the set's
					   base (unless it keeps them wide) */
	uint32_t	 rare;		/* index into the set's rare */
	uint8_t		 boundary, quantity, kind;
};

/* The fields a poll's samples mostly share (a few resolutions and wraps):
 * kept once for each run of samples having them (rare_index). */
struct lastrare {
	double		 resolution, wrap;
	wp_time		 device_time, reset_time, avg_window;
};

#define RARE_LOCAL	16	/* the distinct ones a usual poll has, and
				   more */

static void
rare_of(struct lastrare *r, const struct wp_sample *s)
{
	r->resolution = s->resolution;
	r->wrap = s->wrap;
	r->device_time = s->device_time;
	r->reset_time = s->reset_time;
	r->avg_window = s->avg_window;
}

/* The index of r among the last of t[0..*n) (lookback.h), or of r added
 * when there is room for it (max); -1 when not.  The same samples in the
 * same order give the same entries and indices. */
static long
rare_index(struct lastrare *t, size_t *n, size_t max,
    const struct lastrare *r)
{
	long k = lookback_find(t, *n, sizeof(*t), r);

	if (k >= 0)
		return k;
	if (*n == max)
		return -1;
	t[*n] = *r;
	return (long)(*n)++;
}

/* How many rare entries s[0..n) make (rare_index), in *nr: found in loc
 * (room for RARE_LOCAL) when they fit, the usual poll, else in a
 * temporary array.  0, or -1 (out of memory). */
static int
rare_count(const struct wp_sample *s, size_t n, struct lastrare *loc,
    size_t *nr)
{
	struct lastrare r, *t;
	size_t i;

	*nr = 0;
	for (i = 0; i < n; i++) {
		rare_of(&r, &s[i]);
		if (rare_index(loc, nr, RARE_LOCAL, &r) < 0)
			break;
	}
	if (i == n)
		return 0;
	if ((t = malloc(n * sizeof(*t))) == NULL)
		return -1;
	memcpy(t, loc, *nr * sizeof(*t));
	for (; i < n; i++) {
		rare_of(&r, &s[i]);
		(void)rare_index(t, nr, n, &r);
	}
	free(t);
	return 0;
}

/* Whether a - b is an int32_t (computed without overflow). */
static bool
near32(wp_time a, wp_time b)
{
	return a >= b ? (uint64_t)a - (uint64_t)b <= INT32_MAX :
	    (uint64_t)b - (uint64_t)a <= (uint64_t)INT32_MAX + 1;
}

/* Whether every time of s[0..n) is within an int32_t of s[0]'s (a poll's
 * samples are read within a few ns or ms of each other). */
static bool
times_narrow(const struct wp_sample *s, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (!near32(s[i].t_real, s[0].t_real) ||
		    !near32(s[i].t_mono, s[0].t_mono))
			return false;
	return true;
}

/* Room for n samples' times kept wide: set's, or a new array in *w (NULL
 * when set's will do; installed by take_nums).  0 or -1. */
static int
wide_room(const struct lastset *set, size_t n, wp_time **w)
{
	*w = NULL;
	if (n <= set->wcap)
		return 0;
	return (*w = reallocarray(NULL, n, 2 * sizeof(**w))) != NULL ? 0 : -1;
}

/* Sample i's t_real and t_mono. */
static void
val_times(const struct lastset *set, size_t i, wp_time *real, wp_time *mono)
{
	if (set->wide != NULL) {
		*real = set->wide[2 * i];
		*mono = set->wide[2 * i + 1];
	} else {
		*real = (wp_time)((uint64_t)set->base_real +
		    (uint64_t)(int64_t)set->v[i].dreal);
		*mono = (wp_time)((uint64_t)set->base_mono +
		    (uint64_t)(int64_t)set->v[i].dmono);
	}
}

/* Room for nr rare entries in set (its contents kept).  0 or -1. */
static int
rare_room(struct lastset *set, size_t nr)
{
	struct lastrare *t;

	if (nr <= set->rcap)
		return 0;
	if ((t = realloc(set->rare, nr * sizeof(*t))) == NULL)
		return -1;
	set->rare = t;
	set->rcap = nr;
	return 0;
}

static void
copy_nums(struct lastset *set, struct lastval *v, const struct wp_sample *s,
    size_t i)
{
	struct lastrare r;

	v->value = s->value;
	v->raw_value = s->raw_value;
	v->flags = s->flags;
	v->boundary = s->boundary;
	v->quantity = s->quantity;
	v->kind = s->kind;
	rare_of(&r, s);
	v->rare = (uint32_t)rare_index(set->rare, &set->nrare, set->rcap, &r);
	if (set->wide != NULL) {
		set->wide[2 * i] = s->t_real;
		set->wide[2 * i + 1] = s->t_mono;
		v->dreal = v->dmono = 0;
	} else {
		v->dreal = (int32_t)((uint64_t)s->t_real -
		    (uint64_t)set->base_real);
		v->dmono = (int32_t)((uint64_t)s->t_mono -
		    (uint64_t)set->base_mono);
	}
}

/* Takes s[0..n)'s numbers into v[0..n) (set's, or new), with their rare
 * entries (set has room for those rare_count found) and their times
 * narrow, or wide (in set's array, or w, new, when not NULL). */
static void
take_nums(struct lastset *set, struct lastval *v, const struct wp_sample *s,
    size_t n, bool narrow, wp_time *w)
{
	size_t i;

	set->nrare = 0;
	if (narrow || w != NULL) {
		free(set->wide);
		set->wide = w;
		set->wcap = w != NULL ? n : 0;
	}
	set->base_real = s[0].t_real;
	set->base_mono = s[0].t_mono;
	for (i = 0; i < n; i++)
		copy_nums(set, &v[i], &s[i], i);
}

int
lastset_set(struct lastset *set, const struct wp_sample *s, size_t n,
    struct sertext *text)
{
	struct lastrare loc[RARE_LOCAL];
	struct sertext *nt = NULL;
	struct lastval *v = NULL;
	wp_time *w = NULL;
	size_t nr;
	bool narrow;

	if (n == 0) {
		lastset_fini(set);
		return 0;
	}
	narrow = times_narrow(s, n);
	if (rare_count(s, n, loc, &nr) < 0 || rare_room(set, nr) < 0 ||
	    (!narrow && wide_room(set, n, &w) < 0))
		goto fail;
	/* the text given, else the set's own for a poll like the last */
	if (sertext_of_n(text, n) != NULL)
		nt = sertext_hold(text);
	else if ((nt = sertext_for(set->text, s, n, sizeof(*s))) == NULL)
		goto fail;
	if (n == set->n)
		v = set->v;
	else if ((v = malloc(n * sizeof(*v))) == NULL)
		goto fail;
	take_nums(set, v, s, n, narrow, w);
	if (v != set->v) {
		free(set->v);
		set->v = v;
	}
	sertext_drop(set->text);
	set->text = nt;
	set->n = n;
	return 0;
fail:
	free(w);
	sertext_drop(nt);
	return -1;
}

size_t
lastset_expand(const struct lastset *set, struct wp_sample *out)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct lastval *v = &set->v[i];
		const struct lastrare *r = &set->rare[v->rare];
		struct wp_sample *s = &out[i];

		memset(s, 0, sizeof(*s));
		sertext_get(set->text, i, SERTEXT_SERIES, s->series,
		    sizeof(s->series), false);
		sertext_get(set->text, i, SERTEXT_LABELS, s->labels,
		    sizeof(s->labels), false);
		sertext_get(set->text, i, SERTEXT_UNIT, s->raw_unit,
		    sizeof(s->raw_unit), false);
		s->value = v->value;
		s->raw_value = v->raw_value;
		s->resolution = r->resolution;
		s->wrap = r->wrap;
		s->device_time = r->device_time;
		s->reset_time = r->reset_time;
		s->avg_window = r->avg_window;
		val_times(set, i, &s->t_real, &s->t_mono);
		s->flags = v->flags;
		s->boundary = v->boundary;
		s->quantity = v->quantity;
		s->kind = v->kind;
	}
	return set->n;
}

void
lastset_fini(struct lastset *set)
{
	free(set->v);
	free(set->rare);
	free(set->wide);
	sertext_drop(set->text);
	set->text = NULL;
	set->v = NULL;
	set->rare = NULL;
	set->wide = NULL;
	set->n = set->nrare = set->rcap = set->wcap = 0;
}

long
lastset_find(const struct lastset *set, const char *series, size_t hint)
{
	size_t i;

	if (hint < set->n && sertext_eq(set->text, hint, SERTEXT_SERIES,
	    series))
		return (long)hint;
	for (i = 0; i < set->n; i++)
		if (sertext_eq(set->text, i, SERTEXT_SERIES, series))
			return (long)i;
	return -1;
}

void
lastset_reading(const struct lastset *set, size_t i, wp_time *t, double *v,
    int *kind)
{
	wp_time mono;

	val_times(set, i, t, &mono);
	*v = set->v[i].value;
	*kind = set->v[i].kind;
}
