/*
 * report_fixture.h - inputs of the report model for its unit tests: a
 * plan, and series of a constant power (or token rate) read every 10 s and
 * integrated over the plan's window the way collector/report/report_load.c
 * does (hourly and curve-step bins), or a bare result.  Include after
 * <cmocka.h>.
 */
#ifndef TEST_REPORT_FIXTURE_H
#define TEST_REPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/report.h"

#define RF_T0	(1795946400LL * WP_SEC)	/* 2026-11-29T10:00:00Z */
#define RF_STEP	(10 * WP_SEC)		/* reading interval */

/* A plan of one window [from, to] with curve steps of step. */
static inline void
rf_plan(struct report_plan *p, wp_time from, wp_time to, wp_time step)
{
	memset(p, 0, sizeof(*p));
	p->from = from;
	p->to = to;
	p->runs = 1;
	p->step = step;
	p->period = -1;
}

/* A series of power (or rate) w over p's window, read every 10 s from a
 * minute before to a minute after: a counter (the cumulative) or a gauge.
 * Caller frees with rf_free. */
static inline struct report_series *
rf_series(const struct report_plan *p, const char *key, int role, int node,
    int idx, int kind, double w)
{
	struct report_series *s = calloc(1, sizeof(*s));
	struct integ_opts io = { .from = p->from, .to = p->to,
	    .interval = RF_STEP, .kind = kind,
	    .bin_len = { REPORT_HOUR, p->step } };
	struct wp_err err = { 0 };
	wp_time t, t0 = p->from - 60 * WP_SEC;

	assert_non_null(s);
	assert_non_null(s->key = strdup(key));
	s->role = role;
	s->node = node;
	s->idx = idx;
	s->kind = kind;
	s->interval = RF_STEP;
	assert_int_equal(integ_init(&s->main, &io, &err), 0);
	for (t = t0; t <= p->to + 60 * WP_SEC; t += RF_STEP)
		integ_add(&s->main, t, kind == WP_COUNTER ? w * (double)(t -
		    t0) / WP_SEC : w, 0);
	s->rc = integ_finish(&s->main, &s->res, &err);
	snprintf(s->why, sizeof(s->why), "%s", err.msg);
	return s;
}

/* A series known only by its result: energy e, or refused (rc -1). */
static inline struct report_series *
rf_result(const char *key, int role, int node, int idx, int kind, double e,
    int rc)
{
	struct report_series *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	assert_non_null(s->key = strdup(key));
	s->role = role;
	s->node = node;
	s->idx = idx;
	s->kind = kind;
	s->interval = RF_STEP;
	s->res.energy = e;
	s->rc = rc;
	if (rc != 0)
		snprintf(s->why, sizeof(s->why), "window refused (test)");
	return s;
}

static inline void
rf_free(struct report_series *s)
{
	if (s == NULL)
		return;
	integ_fini(&s->main);
	free(s->key);
	free(s);
}

#endif
