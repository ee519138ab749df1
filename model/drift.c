/*
 * drift.c - instruments that disagree (pure).  See drift.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"

static const char *const kinds[DK_N] = {
	"wall_outlet", "pdu_inlet", "it_inlets", "gpu_bmc"
};
static const char *const sides[DK_N][2] = {
	{ "wall", "outlets" }, { "outlets", "inlet" },
	{ "inlets", "it_meter" }, { "gpu_inband", "gpu_bmc" }
};

static const char *const instrs[DI_N] = {
	"bmc", "outlet", "inlet", "meter", "gpu"
};
/* the instruments of sides a and b of each kind */
static const int side_instr[DK_N][2] = {
	{ DI_BMC, DI_OUTLET }, { DI_OUTLET, DI_INLET },
	{ DI_INLET, DI_METER }, { DI_GPU, DI_BMC }
};

const char *
drift_instr_name(int i)
{
	return i >= 0 && i < DI_N ? instrs[i] : NULL;
}

void
drift_settings_default(struct drift_settings *s)
{
	static const double acc[DI_N] = { 0.02, 0.01, 0.01, 0.005, 0.05 };
	int k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < DK_N; k++)
		s->window[k] = 600 * WP_SEC;
	s->learn = 6;
	s->persist = 2;
	memcpy(s->acc, acc, sizeof(acc));
}

void
drift_opts_for(const struct drift_settings *s, int k, struct drift_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->learn = s->learn;
	o->persist = s->persist;
	if (k >= 0 && k < DK_N) {
		o->acc_a = s->acc[side_instr[k][0]];
		o->acc_b = s->acc[side_instr[k][1]];
	}
}

const char *
drift_kind_name(int k)
{
	return k >= 0 && k < DK_N ? kinds[k] : NULL;
}

const char *
drift_side_name(int k, int side)
{
	return k >= 0 && k < DK_N && (side == 0 || side == 1) ?
	    sides[k][side] : NULL;
}

int
drift_kind_parse(const char *s)
{
	int k;

	for (k = 0; k < DK_N; k++)
		if (strcmp(s, kinds[k]) == 0)
			return k;
	return -1;
}

int
drift_track_init(struct drift_track *t, const struct drift_opts *o)
{
	memset(t, 0, sizeof(*t));
	if (o->learn < 1 || o->learn > DRIFT_MAX_LEARN || o->persist < 1 ||
	    !(o->acc_a >= 0) || !(o->acc_b >= 0))
		return -1;
	t->o = *o;
	t->usual = t->last = t->last_dev = t->last_tol = NAN;
	t->worst_dev = 0;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The usual ratio (median) and the spread of the learned windows. */
static void
learn_done(struct drift_track *t)
{
	double v[DRIFT_MAX_LEARN], m = 0, ss = 0;
	size_t n = t->n_learn, i;

	memcpy(v, t->learn_r, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	t->usual = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	t->learn_sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	t->learned = true;
}

static double
rel(double bound, double e)
{
	return e != 0 ? fabs(bound / e) : 0;
}

static void
stats_add(struct drift_track *t, double r)
{
	if (t->n == 0 || r < t->min)
		t->min = r;
	if (t->n == 0 || r > t->max)
		t->max = r;
	t->n++;
	t->sum += r;
	t->sumsq += r * r;
	t->last = r;
}

/* A window after learning: beyond the tolerance or not, and the event. */
static int
judge(struct drift_track *t, const struct drift_win *w, double r)
{
	double dev = isinf(r) ? r : r / t->usual - 1;
	double tol = t->o.acc_a + t->o.acc_b + rel(w->bound_a, w->a) +
	    rel(w->bound_b, w->b) + 3 * rel(t->learn_sd, t->usual);

	t->last_dev = dev;
	t->last_tol = tol;
	if (isfinite(dev) && fabs(dev) > fabs(t->worst_dev))
		t->worst_dev = dev;
	if (fabs(dev) <= tol) {
		t->run = 0;
		if (!t->active)
			return DRIFT_EV_NONE;
		t->active = false;
		return DRIFT_EV_END;
	}
	t->n_beyond++;
	t->run++;
	if (t->active || t->run < t->o.persist)
		return DRIFT_EV_NONE;
	t->active = true;
	t->events++;
	return DRIFT_EV_START;
}

int
drift_track_add(struct drift_track *t, const struct drift_win *w)
{
	double r;

	if (!w->valid || !isfinite(w->a) || !isfinite(w->b) || w->a < 0 ||
	    w->b < 0 || (w->a == 0 && (w->b == 0 || !t->learned))) {
		t->invalid++;
		return DRIFT_EV_NONE;
	}
	/* side a stopped while b goes on (every outlet of a PDU dead): an
	 * infinite ratio, beyond any tolerance, kept out of the statistics */
	if (w->a == 0)
		return t->usual > 0 ? (t->last = INFINITY,
		    judge(t, w, INFINITY)) : DRIFT_EV_NONE;
	r = w->b / w->a;
	stats_add(t, r);
	if (!t->learned) {
		t->learn_r[t->n_learn++] = r;
		if (t->n_learn == t->o.learn)
			learn_done(t);
		return DRIFT_EV_NONE;
	}
	/* a side that never measured anything: no ratio to keep */
	return t->usual > 0 ? judge(t, w, r) : DRIFT_EV_NONE;
}

double
drift_track_mean(const struct drift_track *t)
{
	return t->n > 0 ? t->sum / (double)t->n : NAN;
}

double
drift_track_sd(const struct drift_track *t)
{
	double m, v;

	if (t->n < 2)
		return NAN;
	m = t->sum / (double)t->n;
	v = (t->sumsq - (double)t->n * m * m) / (double)(t->n - 1);
	return v > 0 ? sqrt(v) : 0;
}
