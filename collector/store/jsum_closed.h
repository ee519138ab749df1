/*
 * jsum_closed.h - a writer summary's closed spans (internal to jsum.c).
 *
 * A column of a summary built by jsum_add keeps its open span whole and
 * the spans whose slot has passed either packed in memory (pk: each coded
 * against the one before it, exactly) or, when the summary has a spill
 * (jsum_spill), in the spill (jspill.h: cap the reference of the last).
 * jsum_col_close adds one; jsum_closed_open and jsum_closed_next read them
 * back, oldest first.
 */
#ifndef WP_JSUM_CLOSED_H
#define WP_JSUM_CLOSED_H

#include <stddef.h>
#include <stdint.h>

struct jsum;
struct jsum_span;

/* A column's closed span sp, after its nclosed others: packed into *pk
 * (*cap its bytes), or appended to s's spill (*cap the reference of the
 * column's last, pk unused).  0 or -1. */
int	 jsum_col_close(const struct jsum *s, uint8_t **pk, uint32_t *cap,
	    uint32_t nclosed, const struct jsum_span *sp);

/* A reader of a column's nclosed closed spans (jsum_col_close's pk and
 * cap): jsum_closed_open, then jsum_closed_next nclosed times, each
 * given the span it gave last (after the first). */
struct jsum_closed {
	const uint8_t	 *pk;
	const struct jsum_span *arr;	/* spilled: read back together (the
					   spill's buffer) */
	size_t		 off, k;
};

/* 0, or -1 with errno (the spill could not be read). */
int	 jsum_closed_open(const struct jsum *s, const uint8_t *pk,
	    uint32_t cap, uint32_t nclosed, struct jsum_closed *c);
void	 jsum_closed_next(struct jsum_closed *c, struct jsum_span *sp);

#endif
