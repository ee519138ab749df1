/*
 * fuzz_reqlog.c - libFuzzer harness for the request-log reader
 * (collector/report/reqlog_load.c, JSON Lines) and the window totals
 * (model/reqlog.c).  The input is a log.
 * Invariants: kept requests plus bad lines never exceed the lines given;
 * every kept request has finite times with end >= start, tokens >= 0, a
 * NUL-terminated id; bad line numbers are within the input; a window over
 * everything counts every request, and its SLO totals never exceed its
 * totals.  Built and run by tests/fuzz/run.sh.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/report/reqlog_load.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reqlog_window w;
	struct reqlog *l;
	struct wp_err err;
	size_t i, lines = 1;
	const struct reqlog_entry *e;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if ((l = reqlog_parse((const char *)data, size, &err)) == NULL)
		return 0;
	if (l->n == 0 || l->n + l->n_bad > lines)
		abort();	/* NULL when no line is valid */
	for (i = 0; i < l->n_bad && i < 8; i++)
		if (l->bad_lines[i] < 1 || l->bad_lines[i] > lines)
			abort();
	for (i = 0; i < l->n; i++) {
		e = &l->e[i];
		if (!isfinite(e->t_start) || !isfinite(e->t_end) ||
		    e->t_end < e->t_start || e->in_tokens < 0 ||
		    e->out_tokens < 0 || strnlen(e->id, sizeof(e->id)) ==
		    sizeof(e->id) || isnan(e->ttft) || isnan(e->tpot))
			abort();
	}
	reqlog_window(l, -INFINITY, INFINITY, 1.0, 0.1, &w);
	if (w.requests != l->n || w.ok > w.requests || w.slo_ok > w.ok ||
	    w.slo_in_tokens > w.in_tokens || w.slo_out_tokens > w.out_tokens)
		abort();
	reqlog_free(l);
	return 0;
}
