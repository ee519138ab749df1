/* jsum_closed.c - a writer summary's closed spans (jsum_closed.h). */
#include <stdlib.h>
#include <string.h>

#include "jspill.h"
#include "jsum.h"
#include "jsum_closed.h"

/* A series built by jsum_add (the writer's, packed) keeps only its open
 * span whole: one whose slot has passed goes to the summary's spill when
 * it has one (jsum_spill, jspill.h: the journal writer's), else is coded
 * into pk against the one before it, each of its 14 words as the XOR with
 * the same word there, its zero bytes at one end dropped (exact: unpacking
 * gives the same bits back): the high ones (times, counts), or the low
 * ones (a double whose value changed but not its low mantissa bits: whole
 * watts and joules).  The writer holds every series of the fleet for a
 * whole segment, 6-7 spans each. */
#define SPAN_WORDS	14
/* past this many closed spans (a forged summary slot of 1 ns, say), each is
 * coded against zeros, so closing one stays O(1) and not O(spans) */
#define SPAN_CHAIN_MAX	64
#define SPAN_PACK_MAX	(SPAN_WORDS / 2 + SPAN_WORDS * 8)
_Static_assert(sizeof(struct jsum_span) == SPAN_WORDS * 8,
    "struct jsum_span has no padding: packed as 14 words");

/* A word's code in span_pack: 0 zero, 1..8 its low L bytes, 9..15 its
 * high c - 8 bytes (the rest zero), whichever is shorter. */
static unsigned
word_code(uint64_t x)
{
	unsigned lo = 0, hi = 0;

	while (lo < 8 && (x >> (8 * lo)) != 0)
		lo++;
	while (hi < 8 && (x << (8 * hi)) != 0)
		hi++;
	return hi < lo ? 8 + hi : lo;
}

/* Codes sp against ref into out (at most SPAN_PACK_MAX bytes): a code
 * nibble per word (word_code), then each word's XOR with ref's bytes the
 * code keeps, low bytes first.  Returns the bytes written. */
static size_t
span_pack(uint8_t *out, const struct jsum_span *sp, const struct jsum_span *ref)
{
	uint64_t w[SPAN_WORDS], r[SPAN_WORDS], x;
	size_t i, o = SPAN_WORDS / 2, k, first;
	unsigned c;

	memcpy(w, sp, sizeof(w));
	memcpy(r, ref, sizeof(r));
	memset(out, 0, SPAN_WORDS / 2);
	for (i = 0; i < SPAN_WORDS; i++) {
		x = w[i] ^ r[i];
		c = word_code(x);
		first = c > 8 ? 16 - c : 0;
		for (k = first; k < (c > 8 ? 8 : c); k++)
			out[o++] = (uint8_t)(x >> (8 * k));
		out[i / 2] |= (uint8_t)(c << (4 * (i % 2)));
	}
	return o;
}

/* Decodes what span_pack wrote against ref into sp (may be ref).  Returns
 * the bytes read. */
static size_t
span_unpack(const uint8_t *in, struct jsum_span *sp,
    const struct jsum_span *ref)
{
	uint64_t w[SPAN_WORDS], x;
	size_t i, o = SPAN_WORDS / 2, k, first;
	unsigned c;

	memcpy(w, ref, sizeof(w));
	for (i = 0; i < SPAN_WORDS; i++) {
		c = (in[i / 2] >> (4 * (i % 2))) & 0xf;
		first = c > 8 ? 16 - c : 0;
		for (x = 0, k = first; k < (c > 8 ? 8 : c); k++)
			x |= (uint64_t)in[o++] << (8 * k);
		w[i] ^= x;
	}
	memcpy(sp, w, sizeof(w));
	return o;
}

/* The closed span k of packed spans pk into sp (k < the closed ones), with
 * *off, the bytes of pk read, and sp the previous one when k > 0. */
static void
pk_next(const uint8_t *pk, size_t k, size_t *off, struct jsum_span *sp)
{
	static const struct jsum_span zero;

	*off += span_unpack(pk + *off, sp, k < SPAN_CHAIN_MAX ? sp : &zero);
}

/* Codes sp after the nclosed spans packed in *pk (*cap bytes).  0 or -1. */
static int
pk_append(uint8_t **pk, uint32_t *cap, uint32_t nclosed,
    const struct jsum_span *sp)
{
	struct jsum_span last = { 0 };
	uint8_t buf[SPAN_PACK_MAX];
	size_t off = 0, k, len;
	void *np;

	for (k = 0; k < nclosed && nclosed < SPAN_CHAIN_MAX; k++)
		pk_next(*pk, k, &off, &last);
	len = span_pack(buf, sp, &last);
	if (*cap > UINT32_MAX - len || (np = realloc(*pk, *cap + len)) == NULL)
		return -1;
	*pk = np;
	memcpy(*pk + *cap, buf, len);
	*cap += (uint32_t)len;
	return 0;
}

/*
 * A column's closed span sp, after its nclosed others: packed into *pk
 * (*cap its bytes), or when s spills them (jsum_spill) appended to the
 * spill (*cap the reference of the column's last, pk unused).  0 or -1.
 */
int
jsum_col_close(const struct jsum *s, uint8_t **pk, uint32_t *cap,
    uint32_t nclosed, const struct jsum_span *sp)
{
	if (s->spill != NULL)
		return jspill_put(s->spill, sp, *cap, cap);
	return pk_append(pk, cap, nclosed, sp);
}

int
jsum_closed_open(const struct jsum *s, const uint8_t *pk, uint32_t cap,
    uint32_t nclosed, struct jsum_closed *c)
{
	c->pk = pk;
	c->arr = NULL;
	c->off = c->k = 0;
	if (s->spill == NULL || nclosed == 0)
		return 0;
	return jspill_chain(s->spill, cap, nclosed, &c->arr);
}

/* The next closed span into sp (the one before it, after the first). */
void
jsum_closed_next(struct jsum_closed *c, struct jsum_span *sp)
{
	if (c->arr != NULL)
		*sp = c->arr[c->k];
	else
		pk_next(c->pk, c->k, &c->off, sp);
	c->k++;
}
