/* integrate.c - energy over an exact window from a counter or gauge. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/lib/sample.h"
#include "integrate.h"

#define SEC(t)	((double)(t) / (double)WP_SEC)

static const char *const reason_names[] = {
	"ok", "window-too-short", "no-data-at-edge", "counter-reset",
	"data-gap", "counter-resolution", "implausible-step"
};

const char *
integ_reason_name(int reason)
{
	if (reason < 0 || reason > INTEG_IMPLAUSIBLE)
		return "unknown";
	return reason_names[reason];
}

static wp_time
floor_div_mul(wp_time t, wp_time len)
{
	wp_time q = t / len;

	if (t % len != 0 && t < 0)
		q--;
	return q * len;
}

size_t
integ_bin_count(wp_time from, wp_time to, wp_time len)
{
	wp_time origin = floor_div_mul(from, len);
	size_t n = to > origin ? (size_t)((to - origin + len - 1) / len) : 0;

	return n == 0 ? 1 : n;
}

int
integ_init(struct integ *g, const struct integ_opts *o, struct wp_err *err)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->o = *o;
	if (g->o.max_res_error <= 0)
		g->o.max_res_error = 0.02;
	if (g->o.min_window <= 0)
		g->o.min_window = 60 * WP_SEC;
	if (o->to < o->from)
		return err_set(err, WP_E_CONFIG, "window ends before it starts");
	for (i = 0; i < INTEG_BINSETS; i++) {
		struct integ_bins *b = &g->bins[i];

		if (o->bin_len[i] <= 0)
			continue;
		b->len = o->bin_len[i];
		b->origin = floor_div_mul(o->from, b->len);
		b->n = integ_bin_count(o->from, o->to, b->len);
		if (b->n > INTEG_MAX_BINS) {
			integ_fini(g);
			return err_set(err, WP_E_CONFIG, "too many bins");
		}
		if (o->bin_store[i] != NULL) {
			b->e = o->bin_store[i];
			b->stride = o->bin_stride[i] > 0 ? o->bin_stride[i] : 1;
			continue;
		}
		b->stride = 1;
		b->own = true;
		b->e = calloc(b->n, sizeof(double));
		if (b->e == NULL) {
			integ_fini(g);
			return err_set(err, WP_E_INTERNAL, "out of memory");
		}
	}
	return 0;
}

void
integ_fini(struct integ *g)
{
	int i;

	if (g == NULL)
		return;
	for (i = 0; i < INTEG_BINSETS; i++) {
		if (g->bins[i].own)
			free(g->bins[i].e);
		g->bins[i].e = NULL;
		g->bins[i].n = 0;
		g->bins[i].own = false;
	}
}

/* Why a window is refused (struct integ.why): the first refusal of a
 * reading or a span, kept as a code and the numbers its message quotes, or
 * integ_finish's own; an integrator is one of thousands, and only
 * integ_finish writes the message (why_text). */
enum why {
	WHY_NONE,
	WHY_GAP,		/* a: the gap, b: the interval (s) */
	WHY_STEP_IMPLAUSIBLE,	/* a: the step's end after start (s) */
	WHY_STEP_RESET,		/* a: as above */
	WHY_BACKWARDS,		/* a: by how much */
	WHY_NONFINITE,
	WHY_SPAN_IMPLAUSIBLE,	/* a, b: the span's ends after start (s) */
	WHY_SPAN_RESET,		/* a, b: as above */
	/* integ_finish's own, from g: */
	WHY_SHORT,		/* the window against o.min_window */
	WHY_NO_START,		/* no reading at or before o.from */
	WHY_NO_END,		/* none at or after o.to */
	WHY_RESOLUTION		/* o.resolution against the energy */
};

static void
refuse(struct integ *g, int reason, enum why why, double a, double b)
{
	if (g->reason != INTEG_OK)
		return;
	g->reason = reason;
	g->why = why;
	g->why_a = a;
	g->why_b = b;
}

static void
why_text(const struct integ *g, char *buf, size_t len)
{
	double a = g->why_a, b = g->why_b;

	switch (g->why) {
	case WHY_GAP:
		snprintf(buf, len, "gap of %.0f s between readings (more "
		    "than 3 intervals of %.0f s)", a, b);
		break;
	case WHY_STEP_IMPLAUSIBLE:
		snprintf(buf, len, "a counter step refused as implausible "
		    "inside the window (%.0f s after start): its energy is "
		    "unknown", a);
		break;
	case WHY_STEP_RESET:
		snprintf(buf, len, "counter reset inside the window (%.0f s "
		    "after start)", a);
		break;
	case WHY_BACKWARDS:
		snprintf(buf, len, "counter went backwards by %g", a);
		break;
	case WHY_NONFINITE:
		snprintf(buf, len, "non-finite reading");
		break;
	case WHY_SPAN_IMPLAUSIBLE:
		snprintf(buf, len, "a counter step refused as implausible "
		    "inside the window (between %.0f and %.0f s after start): "
		    "its energy is unknown", a, b);
		break;
	case WHY_SPAN_RESET:
		snprintf(buf, len, "counter reset or step back inside the "
		    "window (between %.0f and %.0f s after start)", a, b);
		break;
	case WHY_SHORT:
		snprintf(buf, len, "window of %.3f s is shorter than the %.0f "
		    "s minimum", SEC(g->o.to - g->o.from),
		    SEC(g->o.min_window));
		break;
	case WHY_NO_START:
	case WHY_NO_END:
		snprintf(buf, len, "no reading %s the window %s",
		    g->why == WHY_NO_END ? "at or after" : "at or before",
		    g->why == WHY_NO_END ? "end" : "start");
		break;
	case WHY_RESOLUTION:
		snprintf(buf, len, "counter step of %g is too coarse for %g "
		    "over this window (more than %.1f%% error)",
		    g->o.resolution, g->energy, 100 * g->o.max_res_error);
		break;
	default:
		snprintf(buf, len, "refused");
		break;
	}
}

/* Energy of the segment (t0,v0)-(t1,v1) over [x, y] inside it: a
 * counter's difference, or a gauge's trapezoid. */
static double
kind_energy(int kind, wp_time t0, double v0, wp_time t1, double v1,
    wp_time x, wp_time y)
{
	double dt = SEC(t1 - t0), vx, vy;

	if (kind == WP_COUNTER)
		return (v1 - v0) * (SEC(y - x) / dt);
	vx = v0 + (v1 - v0) * (SEC(x - t0) / dt);
	vy = v0 + (v1 - v0) * (SEC(y - t0) / dt);
	return (vx + vy) / 2 * SEC(y - x);
}

static double
seg_energy(const struct integ *g, wp_time t0, double v0, wp_time t1,
    double v1, wp_time x, wp_time y)
{
	return kind_energy(g->o.kind, t0, v0, t1, v1, x, y);
}

/* The bin of t (at or after the origin): b->hint's or the next when t is
 * there (the next reading or span of a series usually is), else by
 * division; the same either way. */
static size_t
bin_of(const struct integ_bins *b, wp_time t)
{
	wp_time lo = b->origin + (wp_time)b->hint * b->len;

	if (t >= lo && t - lo < b->len)
		return b->hint;
	if (t >= lo && t - lo - b->len < b->len)
		return b->hint + 1;
	return (size_t)((t - b->origin) / b->len);
}

/* [a, z] of the segment into b's bins; e: its energy over [a, z] (the
 * figure seg_energy gives, added as is when [a, z] is in one bin). */
static void
add_bins(struct integ *g, struct integ_bins *b, wp_time t0, double v0,
    wp_time t1, double v1, wp_time a, wp_time z, double e)
{
	const wp_time a0 = a;

	while (a < z) {
		size_t i = bin_of(b, a);
		wp_time end = b->origin + (wp_time)(i + 1) * b->len;
		wp_time c = end < z ? end : z;

		if (i < b->n)
			b->e[(b->hint = i) * b->stride] += a == a0 && c == z ?
			    e : seg_energy(g, t0, v0, t1, v1, a, c);
		a = c;
	}
}

static void
range_add(struct integ *g, double lo, double hi)
{
	if (!g->have_range || lo < g->vmin)
		g->vmin = lo;
	if (!g->have_range || hi > g->vmax)
		g->vmax = hi;
	g->have_range = true;
}

static void
segment(struct integ *g, wp_time t1, double v1, uint32_t pf)
{
	wp_time t0 = g->prev_t, a, z;
	double v0 = g->prev_v, e;
	int i;

	if (t1 <= g->o.from || t0 >= g->o.to)
		return;
	if (t1 - t0 > g->max_gap)
		g->max_gap = t1 - t0;
	if (g->o.kind != WP_COUNTER && g->o.interval > 0 &&
	    t1 - t0 > 3 * g->o.interval)
		refuse(g, INTEG_GAP, WHY_GAP, SEC(t1 - t0),
		    SEC(g->o.interval));
	if (pf & INTEG_P_IMPLAUSIBLE)
		refuse(g, INTEG_IMPLAUSIBLE, WHY_STEP_IMPLAUSIBLE,
		    SEC(t1 - g->o.from), 0);
	else if (pf & INTEG_P_RESET)
		refuse(g, INTEG_RESET, WHY_STEP_RESET, SEC(t1 - g->o.from),
		    0);
	if (g->o.kind == WP_COUNTER && v1 < v0)
		refuse(g, INTEG_RESET, WHY_BACKWARDS, v0 - v1, 0);
	a = t0 > g->o.from ? t0 : g->o.from;
	z = t1 < g->o.to ? t1 : g->o.to;
	e = seg_energy(g, t0, v0, t1, v1, a, z);
	g->energy += e;
	for (i = 0; i < INTEG_BINSETS; i++)
		if (g->bins[i].e != NULL)
			add_bins(g, &g->bins[i], t0, v0, t1, v1, a, z, e);
	if (g->o.kind != WP_COUNTER)
		range_add(g, v0 < v1 ? v0 : v1, v0 < v1 ? v1 : v0);
	if (g->o.kind == WP_COUNTER) {
		if (t0 < g->o.from)
			g->edge_bound += fabs(v1 - v0) / 2;
		if (t1 > g->o.to)
			g->edge_bound += fabs(v1 - v0) / 2;
	}
}

void
integ_add(struct integ *g, wp_time t, double v, uint32_t pflags)
{
	if (pflags & INTEG_P_HELD)
		return;
	if (g->have_prev && t <= g->prev_t)
		return;
	if (!isfinite(v)) {
		refuse(g, INTEG_GAP, WHY_NONFINITE, 0, 0);
		return;
	}
	if (g->have_prev)
		segment(g, t, v, pflags);
	if (t <= g->o.from)
		g->started = true;
	if (t >= g->o.to)
		g->ended = true;
	if (t >= g->o.from && t <= g->o.to)
		g->points++;
	g->have_prev = true;
	g->prev_t = t;
	g->prev_v = v;
}

static bool
one_bin(const struct integ_bins *b, wp_time t0, wp_time t1)
{
	if (b->e == NULL)
		return true;
	/* add_bins puts [t0, t1] in one bin when t1 - 1 ns is in t0's (t0
	 * at or after the origin: the span is inside the window) */
	return t1 - 1 < b->origin + (wp_time)(bin_of(b, t0) + 1) * b->len;
}

/* A span's checks but the bins': 0 it does not fit, 1 it fits (one
 * reading, or wholly outside the window), 2 it lies inside the window
 * (its bins to be checked). */
static int
span_check(const struct integ *g, const struct integ_span *sp)
{
	if (sp->n == 0 || sp->t1 < sp->t0 || (sp->n > 1 && sp->t1 == sp->t0))
		return 0;
	if (g->have_prev && sp->t0 <= g->prev_t)
		return 0;
	if (!isfinite(sp->v0) || !isfinite(sp->v1))
		return 0;
	if (sp->n == 1)
		return 1;
	if (sp->refuse || sp->implausible || (g->o.kind != WP_COUNTER &&
	    g->o.interval > 0 && sp->max_gap > 3 * g->o.interval))
		return 0;
	if (sp->t1 <= g->o.from || sp->t0 >= g->o.to)
		return 1;		/* wholly outside the window */
	if (sp->t0 < g->o.from || sp->t1 > g->o.to)
		return 0;		/* straddles an edge */
	return 2;
}

bool
integ_span_fits(const struct integ *g, const struct integ_span *sp)
{
	int i, c = span_check(g, sp);

	for (i = 0; c == 2 && i < INTEG_BINSETS; i++)
		if (!one_bin(&g->bins[i], sp->t0, sp->t1))
			return false;
	return c != 0;
}

/* Whether each of b's bins is made of whole sub-slots of len from
 * origin. */
static bool
bins_whole(const struct integ_bins *b, wp_time origin, wp_time len)
{
	wp_time d;

	if (b->e == NULL)
		return true;
	if (len <= 0)
		return false;
	d = (b->origin - origin) % len;
	return b->len % len == 0 && d == 0;
}

bool
integ_sub_fits(const struct integ *g, const struct integ_span *sp,
    wp_time origin, wp_time len)
{
	int i, c = span_check(g, sp);

	for (i = 0; c == 2 && i < INTEG_BINSETS; i++)
		if (!bins_whole(&g->bins[i], origin, len))
			return false;
	return c != 0;
}

int
integ_add_span(struct integ *g, const struct integ_span *sp)
{
	if (!integ_span_fits(g, sp))
		return -1;
	integ_add_fitted(g, sp);
	return 0;
}

/* A fitting span but its bins: the first reading fed, the rest added
 * when inside the window.  Returns whether it was (the caller adds its
 * energy to the bins). */
static bool
add_span_body(struct integ *g, const struct integ_span *sp)
{
	bool inside = false;

	integ_add(g, sp->t0, sp->v0, sp->pf0);
	if (sp->n == 1)
		return false;
	if (sp->t1 <= g->o.from) {
		g->started = true;
		g->points += sp->t1 == g->o.from;
	} else if (sp->t0 >= g->o.to) {
		g->ended = true;
	} else {
		inside = true;
		g->energy += sp->energy;
		if (g->o.kind != WP_COUNTER)
			range_add(g, sp->range ? sp->vmin : fmin(sp->v0,
			    sp->v1), sp->range ? sp->vmax : fmax(sp->v0,
			    sp->v1));
		if (sp->max_gap > g->max_gap)
			g->max_gap = sp->max_gap;
		g->points += sp->n - 1;
		if (sp->t1 >= g->o.to)
			g->ended = true;
	}
	g->prev_t = sp->t1;
	g->prev_v = sp->v1;
	return inside;
}

/* e added to b's bin of t (within its bins). */
static void
bin_add(struct integ_bins *b, wp_time t, double e)
{
	size_t k;

	if (b->e == NULL)
		return;
	k = bin_of(b, t);
	if (k < b->n)
		b->e[(b->hint = k) * b->stride] += e;
}

void
integ_add_fitted(struct integ *g, const struct integ_span *sp)
{
	int i;

	if (!add_span_body(g, sp))
		return;
	for (i = 0; i < INTEG_BINSETS; i++)
		bin_add(&g->bins[i], sp->t0, sp->energy);
}

void
integ_add_sub(struct integ *g, const struct integ_span *sp,
    const double *sub, size_t nsub, wp_time origin, wp_time len)
{
	size_t k;
	int i;

	if (!add_span_body(g, sp))
		return;
	for (i = 0; i < INTEG_BINSETS; i++)
		for (k = 0; g->bins[i].e != NULL && k < nsub; k++)
			if (sub[k] != 0)
				bin_add(&g->bins[i], origin + (wp_time)k * len,
				    sub[k]);
}

void
integ_add_span_gone(struct integ *g, const struct integ_span *sp)
{
	bool inside;

	if (integ_add_span(g, sp) == 0)
		return;
	integ_add(g, sp->t0, sp->v0, sp->pf0);
	if (sp->n < 2 || sp->t1 <= sp->t0)
		return;
	inside = sp->t1 > g->o.from && sp->t0 < g->o.to;
	if (inside && sp->implausible && g->o.kind == WP_COUNTER)
		refuse(g, INTEG_IMPLAUSIBLE, WHY_SPAN_IMPLAUSIBLE,
		    SEC(sp->t0 - g->o.from), SEC(sp->t1 - g->o.from));
	else if (inside && sp->refuse && g->o.kind == WP_COUNTER)
		refuse(g, INTEG_RESET, WHY_SPAN_RESET,
		    SEC(sp->t0 - g->o.from), SEC(sp->t1 - g->o.from));
	if (inside && g->o.kind != WP_COUNTER && g->o.interval > 0 &&
	    sp->max_gap > 3 * g->o.interval)
		refuse(g, INTEG_GAP, WHY_GAP, SEC(sp->max_gap),
		    SEC(g->o.interval));
	if (inside && sp->max_gap > g->max_gap)
		g->max_gap = sp->max_gap;
	/* the rest as the interpolation between the two readings */
	if (g->reason == INTEG_OK) {
		wp_time iv = g->o.interval;

		g->o.interval = 0;	/* the span's own gaps: checked above */
		integ_add(g, sp->t1, sp->v1, 0);
		g->o.interval = iv;
	} else {
		g->started |= sp->t1 <= g->o.from;
		g->ended |= sp->t1 >= g->o.to;
		g->prev_t = sp->t1;
		g->prev_v = sp->v1;
	}
}

int
integ_finish(struct integ *g, struct integ_result *res, struct wp_err *err)
{
	double secs = SEC(g->o.to - g->o.from);
	char why[WP_ERR_MSG];

	memset(res, 0, sizeof(*res));
	if (g->o.to - g->o.from < g->o.min_window) {
		g->reason = INTEG_SHORT;
		g->why = WHY_SHORT;
	} else if (g->reason == INTEG_OK && (!g->started || !g->ended)) {
		g->reason = INTEG_NO_DATA;
		g->why = g->started ? WHY_NO_END : WHY_NO_START;
	}
	res->energy = g->energy;
	res->mean_power = secs > 0 ? g->energy / secs : 0;
	res->estimated = g->o.kind != WP_COUNTER;
	res->edge_bound = g->edge_bound;
	res->res_bound = g->o.kind == WP_COUNTER ? g->o.resolution : 0;
	if (g->o.kind != WP_COUNTER && g->have_range) {
		double m = res->mean_power;

		res->vmin = g->vmin;
		res->vmax = g->vmax;
		res->gauge_bound = secs * fmax(g->vmax - m, m - g->vmin);
		if (res->gauge_bound < 0)
			res->gauge_bound = 0;
	}
	res->max_gap = g->max_gap;
	res->points = g->points;
	if (g->reason == INTEG_OK && g->o.kind == WP_COUNTER &&
	    g->o.resolution > 0 &&
	    g->o.resolution > g->o.max_res_error * g->energy) {
		g->reason = INTEG_RESOLUTION;
		g->why = WHY_RESOLUTION;
	}
	res->reason = g->reason;
	if (g->reason == INTEG_OK)
		return 0;
	why_text(g, why, sizeof(why));
	return err_set(err, WP_E_CONFIG, "window refused (%s): %s",
	    integ_reason_name(g->reason), why);
}

int
integ_array(const struct integ_opts *o, const wp_time *t, const double *v,
    const uint32_t *pflags, size_t n, struct integ_result *res,
    struct wp_err *err)
{
	struct integ g;
	size_t i;
	int rc;

	if (integ_init(&g, o, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		integ_add(&g, t[i], v[i], pflags != NULL ? pflags[i] : 0);
	rc = integ_finish(&g, res, err);
	integ_fini(&g);
	return rc;
}

double
integ_run_add(struct integ_run *r, wp_time t, double v, wp_time interval)
{
	double e = 0;

	if (!isfinite(v) || (r->valid && t <= r->t))
		return 0;
	if (r->valid && (interval <= 0 || t - r->t <= 3 * interval))
		e = kind_energy(WP_GAUGE, r->t, r->v, t, v, r->t, t);
	r->energy += e;
	r->valid = true;
	r->t = t;
	r->v = v;
	return e;
}
