/* report_check.c - plausibility checks (see report_check.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "report.h"
#include "report_check.h"
#include "report_fleet.h"

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

void
report_check_flag(struct report *r, const char *fmt, ...)
{
	char buf[REPORT_WARN_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	report_warn(&r->warnings, "%s", buf);
	report_warn(&r->checks, "%s", buf);
	if (r->checks.oom)
		r->warnings.oom = true;
}

/* Output tokens in the idle window: the engines' counters, the log's. */
static void
idle_tokens(const struct report_input *in, const struct report_sel *sel,
    struct report *r)
{
	const struct report_plan *p = in->plan;
	struct reqlog_window rw;
	double tok;

	tok = report_fleet_tokens(in, sel, true, REPORT_W_IDLE, NULL, NULL);
	if (tok > 0)
		report_check_flag(r, "idle window: %.0f output tokens counted "
		    "by the engines in it: it was not idle, the idle-subtracted "
		    "figures are not plausible", tok);
	if (in->rq == NULL)
		return;
	reqlog_window(in->rq, secs(p->idle_from), secs(p->idle_to) + 1e-6, 0,
	    0, &rw);
	if (rw.out_tokens > 0)
		report_check_flag(r, "idle window: %zu requests (%lld output "
		    "tokens) of the request log ended in it: it was not idle, "
		    "the idle-subtracted figures are not plausible",
		    rw.requests, rw.out_tokens);
}

/* Idle power of boundary name near the window's own power. */
static void
idle_near(struct report *r, const char *name, const struct report_idle *id,
    const struct report_bnd *b)
{
	double busy = b->fig.mean_power_w;

	if (!id->set || !isfinite(busy) || busy <= 0)
		return;
	if (id->power_w >= busy * (1 - REPORT_CHECK_IDLE_NEAR))
		report_check_flag(r, "idle window: %s idle power %.1f W is "
		    "%.1f %% of the window's %.1f W (within %.0f %%): the idle "
		    "window was not idle or the window was not busy; the "
		    "idle-subtracted figures are not plausible", name,
		    id->power_w, 100 * id->power_w / busy, busy,
		    100 * REPORT_CHECK_IDLE_NEAR);
}

void
report_check(const struct report_input *in, const struct report_sel *sel,
    struct report *r)
{
	const struct report_plan *p = in->plan;

	if (p->to - p->from < REPORT_CHECK_WINDOW)
		report_check_flag(r, "window of %.0f s is shorter than %.0f s "
		    "(seed 002's and MLPerf Power's minimum): a short window's "
		    "figures weigh its edges and warm-up more",
		    secs(p->to - p->from), secs(REPORT_CHECK_WINDOW));
	if (!p->have_idle)
		return;
	idle_tokens(in, sel, r);
	idle_near(r, "wall", &r->idle_wall, &r->bnd[BND_WALL]);
	idle_near(r, "GPU", &r->idle_gpu, &r->bnd[BND_GPU]);
}

bool
report_has_figure(const struct report *r)
{
	size_t i;
	int k;

	for (k = 0; k < BND_N; k++)
		if (r->bnd[k].fig.v.valid)
			return true;
	for (i = 0; i < r->n_nodes; i++)
		for (k = 0; k < BND_N; k++)
			if (r->nodes[i].b[k].v.valid)
				return true;
	return false;
}
