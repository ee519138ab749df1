/* sertext.c - a poll's strings, shared; see sertext.h. */
#include <stdlib.h>
#include <string.h>

#include "sertext.h"

static const struct wp_sample *
at(const struct wp_sample *s, size_t i, size_t stride)
{
	return (const struct wp_sample *)(const void *)
	    ((const char *)s + i * stride);
}

struct sertext *
sertext_new(const struct wp_sample *s, size_t n, size_t stride)
{
	struct sertext *t;
	int64_t r[SERTEXT_N];
	size_t i, k;

	if (n > (SIZE_MAX - sizeof(*t)) / (SERTEXT_N * sizeof(t->ref[0])) ||
	    (t = malloc(sizeof(*t) + n * SERTEXT_N * sizeof(t->ref[0]))) ==
	    NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->refs = 1;
	t->n = n;
	for (i = 0; i < n; i++) {
		const struct wp_sample *p = at(s, i, stride);

		if ((r[SERTEXT_SERIES] = strpool_put(&t->pool, p->series)) < 0 ||
		    (r[SERTEXT_LABELS] = strpool_put(&t->pool, p->labels)) < 0 ||
		    (r[SERTEXT_UNIT] = strpool_put(&t->pool, p->raw_unit)) < 0) {
			sertext_drop(t);
			return NULL;
		}
		for (k = 0; k < SERTEXT_N; k++)
			t->ref[SERTEXT_N * i + k] = (uint32_t)r[k];
	}
	strpool_trim(&t->pool);		/* give back the slack */
	return t;
}

struct sertext *
sertext_hold(struct sertext *t)
{
	if (t != NULL)
		t->refs++;
	return t;
}

void
sertext_drop(struct sertext *t)
{
	if (t == NULL || --t->refs > 0)
		return;
	strpool_fini(&t->pool);
	free(t);
}

bool
sertext_same(const struct sertext *t, const struct wp_sample *s, size_t n,
    size_t stride)
{
	size_t i;

	if (t == NULL || t->n != n)
		return false;
	for (i = 0; i < n; i++) {
		const struct wp_sample *p = at(s, i, stride);

		if (!sertext_eq(t, i, SERTEXT_SERIES, p->series) ||
		    !sertext_eq(t, i, SERTEXT_LABELS, p->labels) ||
		    !sertext_eq(t, i, SERTEXT_UNIT, p->raw_unit))
			return false;
	}
	return true;
}

struct sertext *
sertext_for(struct sertext *last, const struct wp_sample *s, size_t n,
    size_t stride)
{
	if (sertext_same(last, s, n, stride))
		return sertext_hold(last);
	return sertext_new(s, n, stride);
}
