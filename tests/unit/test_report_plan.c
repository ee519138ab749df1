/*
 * Unit tests: model/report_plan.c - a report's windows: the request log's
 * first start to last end, its runs (a new run after report.run_gap
 * without a request; the last N kept), equal sub-windows without a log,
 * report.idle when the command line gives none, the curve step (given,
 * configured, or the default in whole summary slots for long windows),
 * every window at least 60 s.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "../../model/report_plan.h"

#define S	WP_SEC
#define SLOT	(600 * WP_SEC)

static void
request(struct reqlog *l, double start, double end)
{
	struct reqlog_entry e = { .t_start = start, .t_end = end,
	    .in_tokens = 10, .out_tokens = 20, .ttft = -1, .tpot = -1,
	    .ok = true };

	assert_int_equal(reqlog_push(l, &e), 0);
}

static void
req_init(struct report_request *q, wp_time from, wp_time to)
{
	memset(q, 0, sizeof(*q));
	q->have_window = from != to;
	q->from = from;
	q->to = to;
	q->runs = 1;
	q->period = -1;
	q->slot = SLOT;
}

static void
test_runs_from_the_request_log(void **st)
{
	struct report_settings s;
	struct report_request q;
	struct report_plan p;
	struct report_warnings w = { 0 };
	struct wp_err err = { 0 };
	struct reqlog *l = reqlog_new();
	double t0 = (double)(RF_T0 / S);

	(void)st;
	report_settings_init(&s);
	/* three runs of 100 s, 60 s apart (over the 30 s gap), out of order */
	request(l, t0 + 320, t0 + 420);
	request(l, t0, t0 + 90);
	request(l, t0 + 10, t0 + 100);
	request(l, t0 + 160, t0 + 260);
	reqlog_bad(l, 7);
	req_init(&q, 0, 0);
	q.runs = 2;
	assert_int_equal(report_plan_make(&p, &q, &s, l, "log.jsonl", 10 * S,
	    &w, &err), 0);
	assert_string_equal(p.run_method, "request-log runs");
	assert_int_equal(p.run_from[0], RF_T0 + 160 * S);	/* the last two */
	assert_int_equal(p.run_to[1], RF_T0 + 420 * S);
	assert_int_equal(p.from, p.run_from[0]);
	assert_int_equal(p.to, p.run_to[1]);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.v[0], "log.jsonl: 1 line(s) not valid request "
	    "records skipped (first at line 7)");
	/* a longer gap setting: one run only, too few for two */
	s.run_gap = 90 * S;
	assert_int_equal(report_plan_make(&p, &q, &s, l, "log.jsonl", 10 * S,
	    &w, &err), -1);
	assert_non_null(strstr(err.msg, "holds 1 run(s)"));
	/* one run: the log's first start to last end */
	q.runs = 1;
	assert_int_equal(report_plan_make(&p, &q, &s, l, "log.jsonl", 10 * S,
	    &w, &err), 0);
	assert_int_equal(p.from, RF_T0);
	assert_int_equal(p.to, RF_T0 + 420 * S);
	reqlog_free(l);
	report_warnings_fini(&w);
}

static void
test_windows_and_step(void **st)
{
	struct report_settings s;
	struct report_request q;
	struct report_plan p;
	struct report_warnings w = { 0 };
	struct wp_err err = { 0 };

	(void)st;
	report_settings_init(&s);
	/* equal sub-windows without a log; the last one takes the rest */
	req_init(&q, RF_T0, RF_T0 + 301 * S);
	q.runs = 3;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), 0);
	assert_string_equal(p.run_method, "equal sub-windows");
	assert_int_equal(p.run_to[0] - p.run_from[0], 100 * S + S / 3);
	assert_int_equal(p.run_to[2], RF_T0 + 301 * S);
	/* default step: 6 intervals, at least 60 s */
	assert_int_equal(p.step, 60 * S);
	q.runs = 1;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 30 * S, &w,
	    &err), 0);
	assert_int_equal(p.step, 180 * S);
	/* a week: window / 512, in whole summary slots */
	req_init(&q, RF_T0, RF_T0 + 7 * 86400 * S);
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), 0);
	assert_int_equal(p.step % SLOT, 0);
	assert_true(p.step >= 7 * 86400 * S / 512);
	/* configured; a curve keeps its own default */
	s.curve_step = 90 * S;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), 0);
	assert_int_equal(p.step, 90 * S);
	q.curve = true;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), 0);
	assert_int_equal(p.step, 60 * S);
	/* report.idle when none is given */
	s.idle_set = true;
	s.idle_from = RF_T0 - 3600 * S;
	s.idle_to = RF_T0 - 3570 * S;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), -1);
	assert_string_equal(err.msg, "idle window shorter than 60 s");
	s.idle_to = RF_T0 - 3000 * S;
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), 0);
	assert_true(p.have_idle);
	assert_int_equal(p.idle_from, RF_T0 - 3600 * S);
	/* under a minute: refused */
	req_init(&q, RF_T0, RF_T0 + 59 * S);
	assert_int_equal(report_plan_make(&p, &q, &s, NULL, NULL, 10 * S, &w,
	    &err), -1);
	assert_non_null(strstr(err.msg, "shorter than the 60 s minimum"));
	assert_int_equal(w.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_from_the_request_log),
		cmocka_unit_test(test_windows_and_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
