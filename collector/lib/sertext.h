/*
 * sertext.h - the strings of a poll's samples (series, labels, raw unit),
 * kept once for a target and shared by what keeps its last poll: the
 * last samples (lastset.h), the journal writer's previous record (jseg.h)
 * and, for the series first seen in it, the open segment's summary
 * (jsum.h).
 *
 * A sertext is built from n samples (their strings in a strpool, put in
 * sample order: series, labels, unit) and never changed after; whoever
 * keeps it holds a reference (sertext_hold, sertext_drop).  A poll whose
 * strings are the last poll's, position by position (the usual one),
 * keeps the same sertext: sertext_for.  Not thread-safe: the collector
 * uses it on its loop thread.
 */
#ifndef WP_SERTEXT_H
#define WP_SERTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"
#include "strpool.h"

enum { SERTEXT_SERIES, SERTEXT_LABELS, SERTEXT_UNIT, SERTEXT_N };

struct sertext {
	unsigned	 refs;
	size_t		 n;		/* samples */
	struct strpool	 pool;
	uint32_t	 ref[];		/* SERTEXT_N a sample, into pool */
};

/* The strings of n samples, the first at s and each stride bytes after
 * the one before (a struct holding a wp_sample first: journal values).
 * A new sertext (one reference, the caller's), or NULL: out of memory. */
struct sertext	*sertext_new(const struct wp_sample *s, size_t n,
		    size_t stride);
/* Another reference to t (NULL-safe); returns t. */
struct sertext	*sertext_hold(struct sertext *t);
/* Gives back a reference; the last frees t.  NULL-safe. */
void		 sertext_drop(struct sertext *t);
/* Whether s[0..n) (stride as sertext_new's) have t's strings, position
 * by position.  t may be NULL (false). */
bool		 sertext_same(const struct sertext *t,
		    const struct wp_sample *s, size_t n, size_t stride);
/* A reference to the text of s[0..n) (stride as sertext_new's): last's,
 * held, when sertext_same (a poll like the last), else a new one.  NULL:
 * out of memory.  last may be NULL. */
struct sertext	*sertext_for(struct sertext *last, const struct wp_sample *s,
		    size_t n, size_t stride);

/* t when it is the strings of n samples (a text given with n values),
 * else NULL: one of another count is not theirs. */
static inline struct sertext *
sertext_of_n(struct sertext *t, size_t n)
{
	return t != NULL && t->n == n ? t : NULL;
}

/* String which (SERTEXT_*) of sample i (< t->n): its reference in the
 * pool, a comparison with str, or written into out (len bytes, cut to
 * fit; the rest zeroed when zero_rest). */
static inline uint32_t
sertext_ref(const struct sertext *t, size_t i, int which)
{
	return t->ref[SERTEXT_N * i + (size_t)which];
}

static inline bool
sertext_eq(const struct sertext *t, size_t i, int which, const char *str)
{
	return strpool_eq(&t->pool, sertext_ref(t, i, which), str);
}

static inline size_t
sertext_get(const struct sertext *t, size_t i, int which, char *out,
    size_t len, bool zero_rest)
{
	return strpool_get(&t->pool, sertext_ref(t, i, which), out, len,
	    zero_rest);
}

#endif
