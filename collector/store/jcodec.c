/*
 * jcodec.c - the journal's record encoding, version 2: each record is
 * written against the previous record of the same target in the same
 * segment (jseg.h, docs/journal.md "Record body, version 2"): the target
 * by its index in the segment, times as the difference from what the
 * previous poll predicts, each value's name, labels, unit and flags as
 * "same as before", and its numbers as the XOR with a prediction, leading
 * zero bytes dropped.  The context is per segment: a reader rebuilds it
 * by reading the segment from its start, as the writer does on resume.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/counter.h"
#include "../lib/lookback.h"
#include "jseg.h"

/* Same-as-the-previous-poll bits of a version-2 value. */
#define M_SAME_ID	0x01	/* series, boundary, quantity, kind */
#define M_SAME_LABELS	0x02
#define M_SAME_UNIT	0x04	/* raw_unit */
#define M_SAME_FLAGS	0x08	/* sample flags */
#define M_SAME_P	0x10	/* presence bits */
#define M_ALL		0x1f

/* Record bits. */
#define R_NEW_TARGET	0x01	/* target name follows (else its index) */
#define R_SAME_ERROR	0x02
#define R_SAME_N	0x04
#define R_ALL		0x07

/* ---- the context ---- */

void
jctx_init(struct jctx *c, wp_time seg_start)
{
	memset(c, 0, sizeof(*c));
	c->seg_start = seg_start;
}

void
jctx_fini(struct jctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->t[i].v);
		free(c->t[i].cv);
		free(c->t[i].rare);
		sertext_drop(c->t[i].text);
		free(c->t[i].name);
		free(c->t[i].error);
	}
	free(c->t);
	free(c->slot);
	free(c->enc_m);
	free(c->enc_p);
	memset(c, 0, sizeof(*c));
}

void
jctx_reset(struct jctx *c, wp_time seg_start)
{
	bool compact = c->compact;

	jctx_fini(c);
	jctx_init(c, seg_start);
	c->compact = compact;
}

static uint64_t
name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

/* The index of target name, or -1. */
static long
jctx_find(const struct jctx *c, const char *name)
{
	size_t i, m;

	if (c->scap == 0)
		return -1;
	m = c->scap - 1;
	for (i = name_hash(name) & m; c->slot[i]; i = (i + 1) & m)
		if (strcmp(c->t[c->slot[i] - 1].name, name) == 0)
			return (long)c->slot[i] - 1;
	return -1;
}

static int
jctx_rehash(struct jctx *c, size_t cap)
{
	uint32_t *ns = calloc(cap, sizeof(*ns));
	size_t i, k;

	if (ns == NULL)
		return -1;
	for (k = 0; k < c->n; k++) {
		for (i = name_hash(c->t[k].name) & (cap - 1); ns[i];
		    i = (i + 1) & (cap - 1))
			;
		ns[i] = (uint32_t)k + 1;
	}
	free(c->slot);
	c->slot = ns;
	c->scap = cap;
	return 0;
}

/* Adds target name; its index, or -1 (out of memory). */
static long
jctx_add(struct jctx *c, const char *name)
{
	struct jc_target *nt;
	char *copy;
	size_t i;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;

		if ((nt = reallocarray(c->t, cap, sizeof(*nt))) == NULL)
			return -1;
		c->t = nt;
		c->cap = cap;
	}
	if ((c->n + 1) * 2 > c->scap && jctx_rehash(c, c->scap ?
	    c->scap * 2 : 32) != 0)
		return -1;
	if ((copy = strdup(name)) == NULL)
		return -1;
	nt = &c->t[c->n];
	memset(nt, 0, sizeof(*nt));
	nt->name = copy;
	for (i = name_hash(name) & (c->scap - 1); c->slot[i];
	    i = (i + 1) & (c->scap - 1))
		;
	c->slot[i] = (uint32_t)++c->n;
	return (long)c->n - 1;
}

/*
 * Time fields are coded as differences; a damaged segment can hold any
 * 64-bit value, so the arithmetic wraps (two's complement) instead of
 * overflowing.  Encoder and decoder wrap alike, so round trips are exact.
 */
static int64_t
wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t
wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* t's previous record's error ("" when none). */
static const char *
error_of(const struct jc_target *t)
{
	return t->error != NULL ? t->error : "";
}

/* Keeps e as t's last error (copied only when it changed). 0 or -1. */
static int
set_error(struct jc_target *t, const char *e)
{
	char *copy = NULL;

	if (strcmp(error_of(t), e) == 0)
		return 0;
	if (*e != '\0' && (copy = strdup(e)) == NULL)
		return -1;
	free(t->error);
	t->error = copy;
	return 0;
}

/*
 * A previous value, compact (the writer's context): what the encoder
 * predicts from, and no more (a value's delta, counter flags and times are
 * never predicted from the previous one); its strings are its target's
 * text at its position; p, its presence bits in the record it came from.
 */
struct jc_val {
	double		 value, raw_value, cum;
	wp_time		 device_time;
	uint32_t	 flags;
	uint32_t	 rare;		/* index into its target's rare */
	uint16_t	 p;
	uint8_t		 boundary, quantity, kind;
};

/* The numbers of a value that the values of a poll mostly share. */
struct jc_rare {
	double		 resolution, wrap;
	wp_time		 reset_time, avg_window;
};

static const struct jc_val zero_cval;
static const struct jc_rare zero_rare;

/* The shared numbers of t's previous value i (i < t->n), or zero_rare. */
static const struct jc_rare *
rare_of(const struct jc_target *t, size_t i)
{
	return i < t->n ? &t->rare[t->cv[i].rare] : &zero_rare;
}

/* Room for n values in t (whole or compact as c keeps them). 0 or -1. */
static int
target_room(const struct jctx *c, struct jc_target *t, size_t n)
{
	void *nv;

	if (n <= t->vcap)
		return 0;
	if (c->compact) {
		if ((nv = reallocarray(t->cv, n, sizeof(*t->cv))) == NULL)
			return -1;
		t->cv = nv;
	} else {
		if ((nv = reallocarray(t->v, n, sizeof(*t->v))) == NULL)
			return -1;
		t->v = nv;
	}
	t->vcap = n;
	return 0;
}

/* The index of r among t's last rare entries (lookback.h), or of r added.
 * -1: out of memory. */
static long
rare_put(struct jc_target *t, const struct jc_rare *r)
{
	long k = lookback_find(t->rare, t->nrare, sizeof(*r), r);
	uint32_t cap;
	void *nr;

	if (k >= 0)
		return k;
	if (t->nrare == t->rcap) {
		cap = t->rcap ? 2 * t->rcap : 4;
		if ((nr = reallocarray(t->rare, cap, sizeof(*t->rare))) ==
		    NULL)
			return -1;
		t->rare = nr;
		t->rcap = cap;
	}
	t->rare[t->nrare] = *r;
	return t->nrare++;
}

/* v's numbers into cv, a value of t (its shared ones into t's rare,
 * rebuilt from empty for each record); p its presence bits in its record.
 * 0, or -1 (out of memory). */
static int
val_pack(struct jc_target *t, struct jc_val *cv, const struct journal_value *v,
    uint16_t p)
{
	const struct wp_sample *s = &v->s;
	struct jc_rare r = { s->resolution, s->wrap, s->reset_time,
	    s->avg_window };
	long k;

	if ((k = rare_put(t, &r)) < 0)
		return -1;
	cv->rare = (uint32_t)k;
	cv->value = s->value;
	cv->raw_value = s->raw_value;
	cv->cum = v->cum;
	cv->device_time = s->device_time;
	cv->flags = s->flags;
	cv->p = p;
	cv->boundary = s->boundary;
	cv->quantity = s->quantity;
	cv->kind = s->kind;
	return 0;
}

/* r's text (given: held; else new, unless kept says t's is r's strings
 * already; none for a record without values) as t's.  0 or -1 (out of
 * memory). */
static int
text_take(struct jc_target *t, const struct journal_record *r, bool kept)
{
	struct sertext *nt, *given = sertext_of_n(r->text, r->n);

	if (given != NULL || r->n == 0) {
		if (t->text != given) {
			sertext_drop(t->text);
			t->text = sertext_hold(given);
		}
		return 0;
	}
	if (kept)
		return 0;
	if ((nt = sertext_new(&r->v[0].s, r->n, sizeof(r->v[0]))) == NULL)
		return -1;
	sertext_drop(t->text);
	t->text = nt;
	return 0;
}

#define M_STRINGS	(M_SAME_ID | M_SAME_LABELS | M_SAME_UNIT)

/* Whether every string of r (target k) is what t holds: as the encoding
 * of r just found, or (r was not the last encoded: a version-1 record)
 * compared. */
static bool
strings_kept(const struct jctx *c, long k, const struct jc_target *t,
    const struct journal_record *r)
{
	size_t i;

	if (r->n != t->n)
		return false;
	if (r->n == 0 || (sertext_of_n(r->text, r->n) != NULL &&
	    r->text == t->text))
		return true;
	if (c->enc_r == r && c->enc_k == k && c->enc_n == r->n) {
		for (i = 0; i < r->n; i++)
			if ((c->enc_m[i] & M_STRINGS) != M_STRINGS)
				return false;
		return true;
	}
	for (i = 0; i < r->n; i++) {
		const struct wp_sample *s = &r->v[i].s;

		if (!sertext_eq(t->text, i, SERTEXT_SERIES, s->series) ||
		    !sertext_eq(t->text, i, SERTEXT_LABELS, s->labels) ||
		    !sertext_eq(t->text, i, SERTEXT_UNIT, s->raw_unit))
			return false;
	}
	return true;
}

/* r's values into t, compact: its strings r's text, or pooled again only
 * when one changed (or the encoding of r was not the last).  0 or -1. */
static int
commit_compact(struct jctx *c, long k, struct jc_target *t,
    const struct journal_record *r)
{
	bool kept = strings_kept(c, k, t, r);
	const uint16_t *pp = c->enc_r == r && c->enc_n == r->n ? c->enc_p :
	    NULL;		/* the presence bits the encoding found */
	size_t i;

	c->enc_r = NULL;
	t->nrare = 0;
	for (i = 0; i < r->n; i++)
		if (val_pack(t, &t->cv[i], &r->v[i], pp != NULL ? pp[i] :
		    jseg_value_present(r, &r->v[i], false)) != 0)
			break;
	if (i < r->n || text_take(t, r, kept) != 0) {
		t->n = 0;	/* no previous values: the caller starts
				   afresh (journal.c) */
		return -1;
	}
	return 0;
}

/*
 * Remembers r as its target's previous record (after it was written or
 * read), adding the target if new.  0 or -1 (out of memory).
 */
int
jctx_commit(struct jctx *c, const struct journal_record *r)
{
	long k = jctx_find(c, r->target);
	struct jc_target *t;

	if (k < 0 && (k = jctx_add(c, r->target)) < 0)
		return -1;
	t = &c->t[k];
	if (target_room(c, t, r->n) != 0)
		return -1;
	if (c->compact) {
		if (commit_compact(c, k, t, r) != 0)
			return -1;
	} else if (r->n && t->v != r->v)
		memmove(t->v, r->v, r->n * sizeof(*t->v));
	t->n = r->n;
	t->dt = t->seen ? wsub(r->t_real, t->t_real) : 0;
	t->t_real = r->t_real;
	t->off = wsub(r->t_mono, r->t_real);
	t->duration = r->duration;
	if (set_error(t, r->error ? r->error : "") != 0)
		return -1;
	t->seen = true;
	return 0;
}

/* t's whole previous values made compact. 0 or -1 (out of memory). */
static int
target_compact(struct jc_target *t)
{
	struct journal_record r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.t_real = t->t_real;
	r.t_mono = wadd(t->t_real, t->off);
	r.n = t->n;
	r.v = t->v;
	if (t->n && (t->cv = calloc(t->n, sizeof(*t->cv))) == NULL)
		return -1;
	t->nrare = 0;
	for (i = 0; i < t->n; i++)
		if (val_pack(t, &t->cv[i], &t->v[i], jseg_value_present(&r,
		    &t->v[i], false)) != 0)
			return -1;
	if (text_take(t, &r, false) != 0)
		return -1;
	free(t->v);
	t->v = NULL;
	t->vcap = t->n;
	return 0;
}

int
jctx_compact(struct jctx *c)
{
	size_t i;

	if (c->compact)
		return 0;
	for (i = 0; i < c->n; i++)
		if (target_compact(&c->t[i]) != 0) {
			jctx_reset(c, c->seg_start);
			c->compact = true;
			return -1;
		}
	c->compact = true;
	return 0;
}

/* ---- primitives ---- */

static void
put_uv(struct wire_buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	wire_put(b, x, n);
}

static uint64_t
rd_uv(struct wire_rd *d)
{
	uint64_t v = 0;
	int sh;

	for (sh = 0; sh < 64; sh += 7) {
		uint64_t byte = wire_rd_le(d, 1);

		if (d->bad)
			return 0;
		v |= (byte & 0x7f) << sh;
		if (!(byte & 0x80))
			return v;
	}
	d->bad = true;
	return 0;
}

static void
put_sv(struct wire_buf *b, int64_t v)
{
	put_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static int64_t
rd_sv(struct wire_rd *d)
{
	uint64_t u = rd_uv(d);

	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static uint64_t
dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double
bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* d as its XOR with pred: a byte count, then that many low bytes. */
static void
put_dx(struct wire_buf *b, double d, double pred)
{
	uint64_t x = dbits(d) ^ dbits(pred);
	int n = 0;

	while (n < 8 && (x >> (8 * n)) != 0)
		n++;
	wire_put_le(b, (uint64_t)n, 1);
	if (n)
		wire_put_le(b, x, n);
}

static double
rd_dx(struct wire_rd *d, double pred)
{
	uint64_t n = wire_rd_le(d, 1);

	if (n > 8) {
		d->bad = true;
		return 0;
	}
	return bitsd(dbits(pred) ^ (n ? wire_rd_le(d, (int)n) : 0));
}

/* ---- predictions: the encoder and the decoder compute the same ---- */

static const struct journal_value zero_value;

/* raw_value predicted from the previous value's value and raw_value. */
static double
pred_raw(double ref_value, double ref_raw, double value)
{
	double f;

	if (ref_value == 0 || !isfinite(ref_value) || !isfinite(ref_raw))
		return ref_raw;
	f = ref_raw / ref_value;
	return isfinite(f) ? value * f : ref_raw;
}

static double
pred_delta(const struct journal_value *ref, double value)
{
	return ref == &zero_value ? 0 : value - ref->s.value;
}

/* ---- encoding, against the writer's compact context ---- */

/* What is the same in v as in ref (a value of t, or zero_cval): ref is
 * value i of the record whose strings are text; same_text: v's record has
 * that text (its strings are those, position by position).  lab: a string
 * equal to ref's labels (the value before's, found equal to the same
 * pooled labels), or NULL. */
static uint8_t
same_bits(const struct journal_value *v, const struct jc_val *ref,
    const struct sertext *text, size_t i, bool same_text, uint16_t p,
    const char *lab)
{
	const struct wp_sample *s = &v->s;
	uint8_t m = 0;

	if (ref == &zero_cval)
		return 0;
	if (s->boundary == ref->boundary && s->quantity == ref->quantity &&
	    s->kind == ref->kind && (same_text ||
	    sertext_eq(text, i, SERTEXT_SERIES, s->series)))
		m |= M_SAME_ID;
	if (same_text || (lab != NULL ? strcmp(s->labels, lab) == 0 :
	    sertext_eq(text, i, SERTEXT_LABELS, s->labels)))
		m |= M_SAME_LABELS;
	if (same_text || sertext_eq(text, i, SERTEXT_UNIT, s->raw_unit))
		m |= M_SAME_UNIT;
	if (s->flags == ref->flags)
		m |= M_SAME_FLAGS;
	if (p == ref->p)
		m |= M_SAME_P;
	return m;
}

static void
encode_labels(struct wire_buf *b, const char *labels, const char *prev_labels)
{
	size_t pre = 0, suf = 0;

	if (jseg_labels_as_edit(prev_labels, labels, &pre, &suf)) {
		wire_put_le(b, 1, 1);
		jseg_put_labels_edit(b, labels, pre, suf);
	} else {
		wire_put_le(b, 0, 1);
		wire_put_str(b, labels, WP_LABEL_MAX - 1, 1);
	}
}

/* The optional numbers of v (presence p) against ref; ref_t_real: the
 * previous record's t_real. */
static void
encode_numbers(struct wire_buf *b, const struct journal_record *r,
    const struct journal_value *v, const struct jc_val *ref,
    const struct jc_rare *rr, uint16_t p, wp_time ref_t_real)
{
	const struct wp_sample *s = &v->s;

	if (p & P_RESOLUTION)
		put_dx(b, s->resolution, rr->resolution);
	if (p & P_WRAP)
		put_dx(b, s->wrap, rr->wrap);
	if (p & P_DEVICE_TIME)
		put_sv(b, wsub(s->device_time, ref->device_time ?
		    wadd(ref->device_time, wsub(r->t_real, ref_t_real)) :
		    r->t_real));
	if (p & P_RESET_TIME)
		put_sv(b, wsub(s->reset_time, rr->reset_time));
	if (p & P_AVG_WINDOW)
		put_sv(b, wsub(s->avg_window, rr->avg_window));
	if (p & P_T_REAL)
		put_sv(b, wsub(s->t_real, r->t_real));
	if (p & P_T_MONO)
		put_sv(b, wsub(s->t_mono, r->t_mono));
}

/* Encodes value i of r against ref (zero_cval: none) and its shared
 * numbers rr (zero_rare), ref's strings in t's text; returns its same
 * bits, its presence bits in *pout.  lab: as same_bits'. */
static uint8_t
encode_value2(struct wire_buf *b, const struct journal_record *r, size_t i,
    const struct jc_val *ref, const struct jc_rare *rr,
    const struct jc_target *t, const char *prev_labels, const char *lab,
    uint16_t *pout)
{
	const struct journal_value *v = &r->v[i];
	const struct wp_sample *s = &v->s;
	uint16_t p = *pout = jseg_value_present(r, v, false);
	uint8_t m = same_bits(v, ref, t->text, i, sertext_of_n(r->text, r->n)
	    != NULL && r->text == t->text, p, lab);

	wire_put_le(b, m, 1);
	if (!(m & M_SAME_ID)) {
		wire_put_str(b, s->series, WP_SERIES_MAX - 1, 1);
		wire_put_le(b, s->boundary, 1);
		wire_put_le(b, s->quantity, 1);
		wire_put_le(b, s->kind, 1);
	}
	if (!(m & M_SAME_P))
		put_uv(b, p);
	if (!(m & M_SAME_FLAGS))
		put_uv(b, s->flags);
	put_dx(b, s->value, ref->value);
	if (p & P_RAW_VALUE)
		put_dx(b, s->raw_value, pred_raw(ref->value, ref->raw_value,
		    s->value));
	if ((p & P_RAW_UNIT) && !(m & M_SAME_UNIT))
		wire_put_str(b, s->raw_unit, WP_UNIT_MAX - 1, 1);
	encode_numbers(b, r, v, ref, rr, p, t->t_real);
	if ((p & P_LABELS) && !(m & M_SAME_LABELS))
		encode_labels(b, s->labels, prev_labels);
	if (p & P_DELTA)
		put_dx(b, v->delta, ref == &zero_cval ? 0 : s->value -
		    ref->value);
	if (p & P_CUM)
		put_dx(b, v->cum, ref->cum + v->delta);
	if (p & P_CTR_FLAGS)
		put_uv(b, v->ctr_flags);
	return m;
}

/*
 * Value i - 1's labels when they stand for value i's previous labels: the
 * previous record's values i - 1 and i had the same pooled labels (a
 * row's power and energy) and value i - 1's were found unchanged; then
 * value i's are unchanged iff equal to value i - 1's, compared within the
 * record (cheaper than against the pool).  Else NULL.
 */
static const char *
same_labels(const struct jctx *c, const struct jc_target *t,
    const struct journal_record *r, size_t i)
{
	if (i == 0 || i >= t->n || !(c->enc_m[i - 1] & M_SAME_LABELS) ||
	    sertext_ref(t->text, i, SERTEXT_LABELS) !=
	    sertext_ref(t->text, i - 1, SERTEXT_LABELS))
		return NULL;
	return r->v[i - 1].s.labels;
}

/* Room for n values' same bits and presence bits in c's scratch. 0/-1. */
static int
enc_room(struct jctx *c, size_t n)
{
	uint8_t *nm;
	uint16_t *np;

	if (n <= c->enc_mcap)
		return 0;
	if ((nm = realloc(c->enc_m, n)) == NULL)
		return -1;
	c->enc_m = nm;
	if ((np = reallocarray(c->enc_p, n, sizeof(*np))) == NULL)
		return -1;
	c->enc_p = np;
	c->enc_mcap = n;
	return 0;
}

/* The record header of r against t (k: its index, or -1: new). */
static void
encode_header(struct wire_buf *b, const struct jctx *c,
    const struct jc_target *t, long k, const struct journal_record *r)
{
	uint8_t rf = 0;

	if (k < 0)
		rf |= R_NEW_TARGET;
	if (k >= 0 && strcmp(error_of(t), r->error ? r->error : "") == 0)
		rf |= R_SAME_ERROR;
	if (k >= 0 && t->n == r->n)
		rf |= R_SAME_N;
	wire_put_le(b, 'W', 1);
	wire_put_le(b, 'J', 1);
	wire_put_le(b, FRAME_VERSION2, 1);
	wire_put_le(b, FRAME_RECORD, 1);
	wire_put_le(b, 0, 4);		/* body length, patched later */
	wire_put_le(b, rf, 1);
	if (rf & R_NEW_TARGET)
		wire_put_str(b, r->target, TARGET_MAX, 1);
	else
		put_uv(b, (uint64_t)k);
	put_sv(b, wsub(r->t_real, t->seen ? wadd(t->t_real, t->dt) :
	    c->seg_start));
	put_sv(b, wsub(wsub(r->t_mono, r->t_real), t->off));
	put_sv(b, wsub(r->duration, t->duration));
	wire_put_le(b, (uint8_t)r->status, 1);
	if (!(rf & R_SAME_ERROR))
		wire_put_str(b, r->error ? r->error : "", ERROR_MAX, 2);
	if (!(rf & R_SAME_N))
		put_uv(b, r->n);
}

/*
 * Encodes r as a version-2 frame (header and body, no hash) into b,
 * against c (compact; its records unchanged: jctx_commit after the write,
 * which keeps the strings the encoding found unchanged).
 */
int
jctx_encode(struct jctx *c, struct wire_buf *b, const struct journal_record *r,
    struct wp_err *err)
{
	static const struct jc_target none;
	const struct jc_target *t;
	long k;
	size_t i;

	if (jseg_check_record(r, err) != 0)
		return -1;
	if (!c->compact)
		return err_set(err, WP_E_INTERNAL, "journal: encoding against "
		    "a reader's context");
	c->enc_r = NULL;
	if (enc_room(c, r->n) != 0)
		return err_set(err, WP_E_INTERNAL, "journal: out of memory");
	b->len = 0;
	b->oom = false;
	k = jctx_find(c, r->target);
	t = k >= 0 ? &c->t[k] : &none;
	encode_header(b, c, t, k, r);
	for (i = 0; i < r->n; i++)
		c->enc_m[i] = encode_value2(b, r, i, i < t->n ?
		    &t->cv[i] : &zero_cval, rare_of(t, i), t,
		    i ? r->v[i - 1].s.labels : NULL, same_labels(c, t, r, i),
		    &c->enc_p[i]);
	c->enc_r = r;
	c->enc_k = k;
	c->enc_n = r->n;
	return jseg_frame_finish(b, err);
}

/* ---- decoding, against a reader's whole context ---- */

/* The previous record of target t as a journal_record, for predictions. */
static void
ref_record(const struct jc_target *t, struct journal_record *out)
{
	memset(out, 0, sizeof(*out));
	out->t_real = t->t_real;
	out->t_mono = wadd(t->t_real, t->off);
	out->n = t->n;
	out->v = t->v;
}

static void
decode_value2(struct wire_rd *d, const struct journal_record *r,
    struct journal_value *v, const struct journal_value *ref,
    const struct journal_record *refr, const char *prev_labels)
{
	struct wp_sample *s = &v->s;
	const struct wp_sample *q = &ref->s;
	uint16_t p;
	uint64_t m = wire_rd_le(d, 1);

	memset(v, 0, sizeof(*v));
	if ((m & ~(uint64_t)M_ALL) || (ref == &zero_value && m)) {
		d->bad = true;
		return;
	}
	if (m & M_SAME_ID) {
		memcpy(s->series, q->series, sizeof(s->series));
		s->boundary = q->boundary;
		s->quantity = q->quantity;
		s->kind = q->kind;
	} else {
		wire_rd_str(d, 1, s->series, sizeof(s->series));
		s->boundary = (uint8_t)wire_rd_le(d, 1);
		s->quantity = (uint8_t)wire_rd_le(d, 1);
		s->kind = (uint8_t)wire_rd_le(d, 1);
	}
	if (m & M_SAME_P) {
		p = jseg_value_present(refr, ref, false);
	} else {
		uint64_t pp = rd_uv(d);

		p = (uint16_t)pp;
		if (pp & ~(uint64_t)(P_ALL & ~P_LABELS_PREV))
			d->bad = true;
	}
	s->flags = (m & M_SAME_FLAGS) ? q->flags : (uint32_t)rd_uv(d);
	s->value = rd_dx(d, q->value);
	s->raw_value = (p & P_RAW_VALUE) ? rd_dx(d, pred_raw(q->value,
	    q->raw_value, s->value)) : s->value;
	if (p & P_RAW_UNIT) {
		if (m & M_SAME_UNIT)
			memcpy(s->raw_unit, q->raw_unit, sizeof(s->raw_unit));
		else
			wire_rd_str(d, 1, s->raw_unit, sizeof(s->raw_unit));
	}
	s->resolution = (p & P_RESOLUTION) ? rd_dx(d, q->resolution) : 0;
	s->wrap = (p & P_WRAP) ? rd_dx(d, q->wrap) : 0;
	if (p & P_DEVICE_TIME)
		s->device_time = wadd(rd_sv(d), q->device_time ?
		    wadd(q->device_time, wsub(r->t_real, refr->t_real)) :
		    r->t_real);
	s->reset_time = (p & P_RESET_TIME) ?
	    wadd(rd_sv(d), q->reset_time) : 0;
	s->avg_window = (p & P_AVG_WINDOW) ?
	    wadd(rd_sv(d), q->avg_window) : 0;
	s->t_real = (p & P_T_REAL) ? wadd(rd_sv(d), r->t_real) : r->t_real;
	s->t_mono = (p & P_T_MONO) ? wadd(rd_sv(d), r->t_mono) : r->t_mono;
	if (p & P_LABELS) {
		if (m & M_SAME_LABELS)
			memcpy(s->labels, q->labels, sizeof(s->labels));
		else if (wire_rd_le(d, 1) == 0)
			wire_rd_str(d, 1, s->labels, sizeof(s->labels));
		else if (prev_labels == NULL)
			d->bad = true;
		else if (!d->bad)
			jseg_rd_labels_edit(d, prev_labels, s->labels);
	}
	v->delta = (p & P_DELTA) ? rd_dx(d, pred_delta(ref, s->value)) : 0;
	v->cum = (p & P_CUM) ? rd_dx(d, ref->cum + v->delta) : 0;
	v->ctr_flags = (p & P_CTR_FLAGS) ? (uint32_t)rd_uv(d) : 0;
	/* the encoder's presence bits must come out again: no value that a
	 * present bit calls absent, no absent one that is set */
	if (!d->bad && jseg_value_present(r, v, false) != p)
		d->bad = true;
}

/*
 * Decodes a version-2 body (len bytes) against c into r, its strings in
 * target and error and its values in *v (grown as needed, *vcap).
 * 0, or -1 (malformed).  The caller commits r after checking its hash.
 */
int
jctx_decode(struct jctx *c, const uint8_t *body, size_t len,
    struct journal_record *r, char target[TARGET_MAX + 1],
    char error[ERROR_MAX + 1], struct journal_value **v, size_t *vcap)
{
	static const struct jc_target none;
	struct wire_rd d = { body, len, 0, false };
	const struct jc_target *t = &none;
	struct journal_record refr;
	struct journal_value *nv;
	uint64_t rf, k;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	if (c->compact)
		return -1;
	rf = wire_rd_le(&d, 1);
	if (rf & ~(uint64_t)R_ALL)
		return -1;
	if (rf & R_NEW_TARGET) {
		wire_rd_str(&d, 1, target, TARGET_MAX + 1);
		if (d.bad || target[0] == '\0' || jctx_find(c, target) >= 0)
			return -1;
		if (rf & (R_SAME_ERROR | R_SAME_N))
			return -1;
	} else {
		k = rd_uv(&d);
		if (d.bad || k >= c->n)
			return -1;
		t = &c->t[k];
		memcpy(target, t->name, strlen(t->name) + 1);
	}
	ref_record(t, &refr);
	r->t_real = wadd(rd_sv(&d), t->seen ? wadd(t->t_real, t->dt) :
	    c->seg_start);
	r->t_mono = wadd(wadd(rd_sv(&d), t->off), r->t_real);
	r->duration = wadd(rd_sv(&d), t->duration);
	r->status = (int)wire_rd_le(&d, 1);
	if (rf & R_SAME_ERROR)
		memcpy(error, error_of(t), strlen(error_of(t)) + 1);
	else
		wire_rd_str(&d, 2, error, ERROR_MAX + 1);
	n = (rf & R_SAME_N) ? t->n : (size_t)rd_uv(&d);
	if (d.bad || n > VALUES_MAX)
		return -1;
	if (n > *vcap) {
		if ((nv = reallocarray(*v, n, sizeof(*nv))) == NULL)
			return -1;
		*v = nv;
		*vcap = n;
	}
	for (i = 0; i < n && !d.bad; i++)
		decode_value2(&d, r, &(*v)[i], i < t->n ? &t->v[i] :
		    &zero_value, &refr, i ? (*v)[i - 1].s.labels : NULL);
	if (d.bad || d.off != len)
		return -1;
	r->target = target;
	r->error = error;
	r->n = n;
	r->v = *v;
	return 0;
}
