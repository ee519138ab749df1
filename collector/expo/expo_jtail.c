/* expo_jtail.c - the history's tail from the journal (see expo_jtail.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/counter.h"
#include "../conf/conf.h"
#include "../lib/sample.h"
#include "../store/journal.h"
#include "../store/record.h"
#include "expo_jtail.h"

#define TAIL_MAX	(2000000)	/* readings kept at most */

struct reading {
	char	*target;	/* shared by one record's readings */
	char	*series;	/* owned */
	wp_time	 t;
	double	 x;		/* W (gauge) or J cumulative (counter) */
	int	 kind;
	bool	 discont;	/* a counter reading after a reset or gap */
};

struct jtail {
	struct rrdgrid	 g;
	wp_time		 from;
	struct reading	*r;
	size_t		 n, cap;
	char		**names;	/* record targets, owned */
	size_t		 nn, ncap;
	bool		 full;
};

static int
keep_name(struct jtail *t, const char *name, char **out)
{
	if (t->nn > 0 && strcmp(t->names[t->nn - 1], name) == 0) {
		*out = t->names[t->nn - 1];
		return 0;
	}
	if (t->nn == t->ncap) {
		size_t cap = t->ncap ? t->ncap * 2 : 256;
		char **p = realloc(t->names, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		t->names = p;
		t->ncap = cap;
	}
	if ((*out = t->names[t->nn] = strdup(name)) == NULL)
		return -1;
	t->nn++;
	return 0;
}

static int
on_record(const struct journal_record *r, void *arg)
{
	struct jtail *t = arg;
	char *target = NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct journal_value *v = &r->v[i];
		struct reading *p;

		if ((v->s.quantity != WP_Q_POWER && v->s.quantity !=
		    WP_Q_ENERGY) || (v->ctr_flags & CTR_HELD))
			continue;
		if (t->n >= TAIL_MAX) {
			t->full = true;
			return 1;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 1024;
			struct reading *q = realloc(t->r, cap * sizeof(*q));

			if (q == NULL)
				return -1;
			t->r = q;
			t->cap = cap;
		}
		if (target == NULL && keep_name(t, r->target, &target) == -1)
			return -1;
		p = &t->r[t->n];
		if ((p->series = strdup(v->s.series)) == NULL)
			return -1;
		p->target = target;
		p->t = v->s.t_real != 0 ? v->s.t_real : r->t_real;
		p->kind = v->s.kind;
		p->x = v->s.kind == WP_COUNTER ? v->cum : v->s.value;
		p->discont = (v->ctr_flags & (CTR_DISCONT | CTR_RESET)) != 0;
		t->n++;
	}
	return 0;
}

struct jtail *
jtail_load(const struct wp_conf *c, const struct rrdgrid *g,
    struct wp_err *err)
{
	struct jtail *t = calloc(1, sizeof(*t));
	wp_time end = g->t0 + (wp_time)(g->n - 1) * g->step;
	char dir[4096];
	int rc;

	if (t == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	t->g = *g;
	t->from = end - 2 * c->rrd_write_delay - 2 * g->step;
	if (t->from < g->t0 - g->step)
		t->from = g->t0 - g->step;
	snprintf(dir, sizeof(dir), "%s/journal", c->data_dir);
	rc = journal_scan(dir, t->from - g->step, end + WP_SEC, on_record, t,
	    err);
	if (rc == -1 && !t->full) {
		jtail_free(t);
		return NULL;
	}
	return t;
}

void
jtail_free(struct jtail *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->r[i].series);
	for (i = 0; i < t->nn; i++)
		free(t->names[i]);
	free(t->r);
	free(t->names);
	free(t);
}

wp_time
jtail_from(const struct jtail *t)
{
	return t->from;
}

/* The point whose interval holds time x, or -1. */
static long
point_of(const struct rrdgrid *g, wp_time x)
{
	wp_time first = g->t0 - g->step;
	long i;

	if (x <= first)
		return -1;
	i = (long)((x - first + g->step - 1) / g->step) - 1;
	return i < (long)g->n ? i : -1;
}

/* Sums each point's readings of target's series: a counter's rises and
 * the time they took, or a gauge's values and their count. */
static bool
bins(const struct jtail *t, const char *target, const char *series,
    double *num, double *den)
{
	bool any = false, have = false;
	wp_time pt = 0;
	double px = 0;
	size_t k;
	long i;

	for (k = 0; k < t->n; k++) {
		const struct reading *r = &t->r[k];

		if (strcmp(r->target, target) != 0 || strcmp(r->series, series))
			continue;
		i = point_of(&t->g, r->t);
		if (r->kind == WP_COUNTER) {
			if (have && !r->discont && r->t > pt && r->x >= px &&
			    i >= 0) {
				num[i] += r->x - px;
				den[i] += (double)(r->t - pt) / WP_SEC;
				any = true;
			}
			have = true;
			pt = r->t;
			px = r->x;
		} else if (i >= 0 && isfinite(r->x)) {
			num[i] += r->x;
			den[i] += 1;
			any = true;
		}
	}
	return any;
}

bool
jtail_fill(const struct jtail *t, const char *target, const char *prefix,
    wp_time written_to, double *v)
{
	double *num = calloc(t->g.n, sizeof(double)), *den = calloc(t->g.n,
	    sizeof(double));
	char series[200];
	bool any = false;
	size_t i;

	if (num == NULL || den == NULL) {
		free(num);
		free(den);
		return false;
	}
	/* the gauge first: a coarse counter (an outlet's 1 Wh) over a short
	 * point rises by nothing or by a whole step */
	snprintf(series, sizeof(series), "%spower", prefix);
	if (!bins(t, target, series, num, den)) {
		snprintf(series, sizeof(series), "%senergy", prefix);
		bins(t, target, series, num, den);
	}
	for (i = 0; i < t->g.n; i++) {
		wp_time b = t->g.t0 + (wp_time)i * t->g.step;

		if (b > written_to && b - t->g.step >= t->from && isnan(v[i]) &&
		    den[i] > 0) {
			v[i] = num[i] / den[i];
			any = true;
		}
	}
	free(num);
	free(den);
	return any;
}
