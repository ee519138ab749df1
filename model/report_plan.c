/* report_plan.c - the windows of a report (see report_plan.h). */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_plan.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

static int
start_cmp(const void *a, const void *b)
{
	const struct reqlog_entry *x = a, *y = b;

	return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

/*
 * Request-log runs: requests sorted by start; a new run begins where a
 * request starts more than gap after every earlier request ended (the
 * load generator was idle).  Keeps the last n runs in p.
 */
static int
log_runs(struct report_plan *p, struct reqlog *l, int n, wp_time gap,
    struct wp_err *err)
{
	wp_time from[REPORT_MAX_RUNS], to[REPORT_MAX_RUNS];
	int k = 0, total = 0, i;
	double hi = 0;
	size_t j;

	qsort(l->e, l->n, sizeof(l->e[0]), start_cmp);
	for (j = 0; j < l->n; j++) {
		wp_time s = (wp_time)(l->e[j].t_start * WP_SEC);
		wp_time e = (wp_time)(l->e[j].t_end * WP_SEC);

		if (j == 0 || l->e[j].t_start > hi + secs(gap)) {
			k = total++ % REPORT_MAX_RUNS;
			from[k] = s;
			to[k] = e;
		}
		if (e > to[k])
			to[k] = e;
		if (l->e[j].t_end > hi)
			hi = l->e[j].t_end;
	}
	if (total < n)
		return err_set(err, WP_E_CONFIG, "--runs %d: the request log "
		    "holds %d run(s) (runs are separated by more than %.0f s "
		    "without a request)", n, total, secs(gap));
	for (i = 0; i < n; i++) {
		k = (total - n + i) % REPORT_MAX_RUNS;
		p->run_from[i] = from[k];
		p->run_to[i] = to[k];
	}
	p->run_method = "request-log runs";
	return 0;
}

/* The window from the request log: its runs, or first start .. last end. */
static int
log_window(struct report_plan *p, bool have_window, struct reqlog *rq,
    wp_time gap, struct wp_err *err)
{
	size_t i;

	if (p->runs > 1 && log_runs(p, rq, p->runs, gap, err) == -1)
		return -1;
	if (!have_window && p->runs > 1) {
		p->from = p->run_from[0];
		p->to = p->run_to[p->runs - 1];
	} else if (!have_window) {
		p->from = (wp_time)(rq->e[0].t_start * WP_SEC);
		p->to = (wp_time)(rq->e[0].t_end * WP_SEC);
		for (i = 1; i < rq->n; i++) {
			wp_time s = (wp_time)(rq->e[i].t_start * WP_SEC);
			wp_time e = (wp_time)(rq->e[i].t_end * WP_SEC);

			p->from = s < p->from ? s : p->from;
			p->to = e > p->to ? e : p->to;
		}
	}
	return 0;
}

/* The default curve step of a report over [from, to]. */
static wp_time
default_step(wp_time from, wp_time to, wp_time interval, wp_time slot)
{
	wp_time step = interval * 6 > 60 * WP_SEC ? interval * 6 :
	    60 * WP_SEC;

	if ((to - from) / 512 > step)
		step = (to - from) / 512;
	/* long windows: whole summary slots per step */
	if (to - from >= 6 * REPORT_HOUR)
		step = (step + slot - 1) / slot * slot;
	return step;
}

static int
check_windows(const struct report_plan *p, struct wp_err *err)
{
	int k;

	if (p->to - p->from < REPORT_MIN_WINDOW)
		return err_set(err, WP_E_CONFIG, "window of %.3f s refused: "
		    "shorter than the 60 s minimum", secs(p->to - p->from));
	if (p->have_idle && p->idle_to - p->idle_from < REPORT_MIN_WINDOW)
		return err_set(err, WP_E_CONFIG, "idle window shorter than 60 s");
	for (k = 0; p->runs > 1 && k < p->runs; k++)
		if (p->run_to[k] - p->run_from[k] < REPORT_MIN_WINDOW)
			return err_set(err, WP_E_CONFIG, "--runs %d: run %d "
			    "(%s) lasts %.1f s, shorter than 60 s", p->runs,
			    k + 1, p->run_method, secs(p->run_to[k] -
			    p->run_from[k]));
	return 0;
}

int
report_plan_make(struct report_plan *p, const struct report_request *q,
    const struct report_settings *s, struct reqlog *rq, const char *rq_name,
    wp_time interval, struct report_warnings *w, struct wp_err *err)
{
	wp_time len;
	int k;

	memset(p, 0, sizeof(*p));
	p->from = q->from;
	p->to = q->to;
	p->have_idle = q->have_idle;
	p->idle_from = q->idle_from;
	p->idle_to = q->idle_to;
	p->runs = q->runs > 1 ? q->runs : 1;
	p->period = q->period;
	p->step = q->step;
	p->curve = q->curve;
	if (p->curve && p->step == 0)
		p->step = interval * 6 > 60 * WP_SEC ? interval * 6 :
		    60 * WP_SEC;
	if (rq != NULL) {
		if (rq->n_bad > 0)
			report_warn(w, "%s: %zu line(s) not valid request records "
			    "skipped (first at line %lu)", rq_name, rq->n_bad,
			    rq->bad_lines[0]);
		if (log_window(p, q->have_window, rq, s->run_gap, err) == -1)
			return -1;
	}
	if (p->runs > 1 && p->run_method == NULL) {
		len = (p->to - p->from) / p->runs;
		for (k = 0; k < p->runs; k++) {
			p->run_from[k] = p->from + len * k;
			p->run_to[k] = k + 1 == p->runs ? p->to :
			    p->run_from[k] + len;
		}
		p->run_method = "equal sub-windows";
	}
	if (!p->have_idle && s->idle_set) {
		p->idle_from = s->idle_from;
		p->idle_to = s->idle_to;
		p->have_idle = true;
	}
	if (p->step == 0 && !p->curve)
		p->step = s->curve_step > 0 ? s->curve_step :
		    default_step(p->from, p->to, interval, q->slot);
	return check_windows(p, err);
}
