/* reqlog.c - request logs as data, window totals (see reqlog.h). */
#include <stdlib.h>
#include <string.h>

#include "reqlog.h"

struct reqlog *
reqlog_new(void)
{
	return calloc(1, sizeof(struct reqlog));
}

void
reqlog_free(struct reqlog *l)
{
	if (l == NULL)
		return;
	free(l->e);
	free(l);
}

int
reqlog_push(struct reqlog *l, const struct reqlog_entry *e)
{
	struct reqlog_entry *v;
	size_t cap;

	if (l->n == l->cap) {
		if (l->cap >= REQLOG_MAX_ENTRIES)
			return -1;
		cap = l->cap ? l->cap * 2 : 256;
		if ((v = realloc(l->e, cap * sizeof(*v))) == NULL)
			return -1;
		l->e = v;
		l->cap = cap;
	}
	l->e[l->n++] = *e;
	return 0;
}

void
reqlog_bad(struct reqlog *l, unsigned long line)
{
	if (l->n_bad < sizeof(l->bad_lines) / sizeof(l->bad_lines[0]))
		l->bad_lines[l->n_bad] = line;
	l->n_bad++;
}

static bool
slo_ok(const struct reqlog_entry *e, double slo_ttft, double slo_tpot)
{
	if (!e->ok)
		return false;
	if (slo_ttft > 0 && (e->ttft < 0 || e->ttft > slo_ttft))
		return false;
	if (slo_tpot > 0 && (e->tpot < 0 || e->tpot > slo_tpot))
		return false;
	return true;
}

void
reqlog_window(const struct reqlog *l, double t0, double t1, double slo_ttft,
    double slo_tpot, struct reqlog_window *w)
{
	const struct reqlog_entry *e;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < l->n; i++) {
		e = &l->e[i];
		if (e->t_end < t0 || e->t_end >= t1)
			continue;
		w->requests++;
		w->in_tokens += e->in_tokens;
		w->out_tokens += e->out_tokens;
		if (e->ok)
			w->ok++;
		if (slo_ok(e, slo_ttft, slo_tpot)) {
			w->slo_ok++;
			w->slo_in_tokens += e->in_tokens;
			w->slo_out_tokens += e->out_tokens;
		}
	}
}
