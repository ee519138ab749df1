/* Compact copies of a poll's samples; see lastset.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lastset.h"

#define DEDUP_WINDOW	8	/* strings compared with the last few */

struct lastval {
	double		 value, raw_value, resolution, wrap;
	wp_time		 device_time, reset_time, avg_window, t_real, t_mono;
	uint32_t	 flags;
	uint32_t	 series, labels, unit;	/* offsets into the pool */
	uint8_t		 boundary, quantity, kind;
};

struct build {
	char	*pool;
	size_t	 len, cap;
};

/* Offset of str in b's pool: one of the recent strings (recent[]), or a
 * new copy.  -1 out of memory. */
static long
put(struct build *b, const char *str, uint32_t *recent, size_t *nrecent)
{
	size_t i, l = strlen(str) + 1, cap;
	char *np;

	for (i = 0; i < *nrecent; i++)
		if (strcmp(b->pool + recent[i], str) == 0)
			return (long)recent[i];
	if (b->len + l > b->cap) {
		cap = b->cap ? b->cap * 2 : 1024;
		while (cap < b->len + l)
			cap *= 2;
		if ((np = realloc(b->pool, cap)) == NULL)
			return -1;
		b->pool = np;
		b->cap = cap;
	}
	memcpy(b->pool + b->len, str, l);
	if (*nrecent == DEDUP_WINDOW)
		memmove(recent, recent + 1, (DEDUP_WINDOW - 1) *
		    sizeof(recent[0]));
	else
		(*nrecent)++;
	recent[*nrecent - 1] = (uint32_t)b->len;
	b->len += l;
	return (long)(b->len - l);
}

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

int
lastset_set(struct lastset *set, const struct wp_sample *s, size_t n)
{
	struct build b = { NULL, 0, 0 };
	struct lastval *v;
	uint32_t recent[DEDUP_WINDOW];
	size_t i, nrecent = 0;
	long so, lo, uo;
	char *np;

	if (n == 0) {
		lastset_fini(set);
		return 0;
	}
	if ((v = malloc(n * sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((so = put(&b, s[i].series, recent, &nrecent)) < 0 ||
		    (lo = put(&b, s[i].labels, recent, &nrecent)) < 0 ||
		    (uo = put(&b, s[i].raw_unit, recent, &nrecent)) < 0) {
			free(v);
			free(b.pool);
			return -1;
		}
		copy_nums(&v[i], &s[i]);
		v[i].series = (uint32_t)so;
		v[i].labels = (uint32_t)lo;
		v[i].unit = (uint32_t)uo;
	}
	if (b.len < b.cap && (np = realloc(b.pool, b.len)) != NULL)
		b.pool = np;	/* give back the slack */
	free(set->v);
	free(set->pool);
	set->v = v;
	set->n = n;
	set->pool = b.pool;
	set->pool_len = b.len;
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
		snprintf(s->series, sizeof(s->series), "%s", set->pool +
		    v->series);
		snprintf(s->labels, sizeof(s->labels), "%s", set->pool +
		    v->labels);
		snprintf(s->raw_unit, sizeof(s->raw_unit), "%s", set->pool +
		    v->unit);
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
	free(set->pool);
	set->v = NULL;
	set->pool = NULL;
	set->n = set->pool_len = 0;
}

long
lastset_find(const struct lastset *set, const char *series, size_t hint)
{
	size_t i;

	if (hint < set->n && strcmp(set->pool + set->v[hint].series,
	    series) == 0)
		return (long)hint;
	for (i = 0; i < set->n; i++)
		if (strcmp(set->pool + set->v[i].series, series) == 0)
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
