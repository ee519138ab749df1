/* Compact copies of a poll's samples; see lastset.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lastset.h"

struct lastval {
	double		 value, raw_value, resolution, wrap;
	wp_time		 device_time, reset_time, avg_window, t_real, t_mono;
	uint32_t	 flags;
	uint32_t	 series, labels, unit;	/* references into the pool */
	uint8_t		 boundary, quantity, kind;
};

static void
copy_nums(struct lastval *v, const struct wp_sample *s)
{
	v->value = s->value;
	v->raw_value = s->raw_value;
	v->resolution = s->resolution;
	v->wrap = s->wrap;
	v->device_time = s->device_time;
	v->reset_time = s->reset_time;
	v->avg_window = s->avg_window;
	v->t_real = s->t_real;
	v->t_mono = s->t_mono;
	v->flags = s->flags;
	v->boundary = s->boundary;
	v->quantity = s->quantity;
	v->kind = s->kind;
}

/* Whether s[0..n) have set's strings, position by position: the usual
 * poll, the same series, labels and units as the last. */
static bool
same_text(const struct lastset *set, const struct wp_sample *s, size_t n)
{
	const struct strpool *p = &set->pool;
	size_t i;

	if (n != set->n)
		return false;
	for (i = 0; i < n; i++)
		if (!strpool_eq(p, set->v[i].series, s[i].series) ||
		    !strpool_eq(p, set->v[i].labels, s[i].labels) ||
		    !strpool_eq(p, set->v[i].unit, s[i].raw_unit))
			return false;
	return true;
}

int
lastset_set(struct lastset *set, const struct wp_sample *s, size_t n)
{
	struct strpool b = { 0 };
	struct lastval *v;
	int64_t so, lo, uo;
	size_t i;

	if (n == 0) {
		lastset_fini(set);
		return 0;
	}
	if (same_text(set, s, n)) {	/* the pool as it is: numbers only */
		for (i = 0; i < n; i++)
			copy_nums(&set->v[i], &s[i]);
		return 0;
	}
	if ((v = malloc(n * sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((so = strpool_put(&b, s[i].series)) < 0 ||
		    (lo = strpool_put(&b, s[i].labels)) < 0 ||
		    (uo = strpool_put(&b, s[i].raw_unit)) < 0) {
			free(v);
			strpool_fini(&b);
			return -1;
		}
		copy_nums(&v[i], &s[i]);
		v[i].series = (uint32_t)so;
		v[i].labels = (uint32_t)lo;
		v[i].unit = (uint32_t)uo;
	}
	strpool_trim(&b);	/* give back the slack */
	free(set->v);
	strpool_fini(&set->pool);
	set->v = v;
	set->n = n;
	set->pool = b;
	return 0;
}

size_t
lastset_expand(const struct lastset *set, struct wp_sample *out)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct lastval *v = &set->v[i];
		struct wp_sample *s = &out[i];

		memset(s, 0, sizeof(*s));
		strpool_get(&set->pool, v->series, s->series,
		    sizeof(s->series), false);
		strpool_get(&set->pool, v->labels, s->labels,
		    sizeof(s->labels), false);
		strpool_get(&set->pool, v->unit, s->raw_unit,
		    sizeof(s->raw_unit), false);
		s->value = v->value;
		s->raw_value = v->raw_value;
		s->resolution = v->resolution;
		s->wrap = v->wrap;
		s->device_time = v->device_time;
		s->reset_time = v->reset_time;
		s->avg_window = v->avg_window;
		s->t_real = v->t_real;
		s->t_mono = v->t_mono;
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
	strpool_fini(&set->pool);
	set->v = NULL;
	set->n = 0;
}

long
lastset_find(const struct lastset *set, const char *series, size_t hint)
{
	size_t i;

	if (hint < set->n && strpool_eq(&set->pool, set->v[hint].series,
	    series))
		return (long)hint;
	for (i = 0; i < set->n; i++)
		if (strpool_eq(&set->pool, set->v[i].series, series))
			return (long)i;
	return -1;
}

void
lastset_reading(const struct lastset *set, size_t i, wp_time *t, double *v,
    int *kind)
{
	*t = set->v[i].t_real;
	*v = set->v[i].value;
	*kind = set->v[i].kind;
}
