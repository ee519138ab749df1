/*
 * reqlog.h - a load generator's request log as data (pure): one entry per
 * request (start and end in epoch seconds, input and output tokens,
 * optional TTFT and TPOT, success), the lines that were not valid
 * requests, and MLPerf-style window totals.  The JSON Lines reader that
 * fills it is collector/report/reqlog_load.h.
 *
 * reqlog_window() totals the requests that ended in [t0, t1), and of those
 * the SLO-qualified ones (ok, TTFT <= slo_ttft and TPOT <= slo_tpot where
 * the limit is > 0; a request missing a measured value that has a limit
 * does not qualify).
 */
#ifndef WP_REQLOG_H
#define WP_REQLOG_H

#include <stdbool.h>
#include <stddef.h>

#define REQLOG_MAX_ENTRIES	50000000u

struct reqlog_entry {
	char	 id[64];
	double	 t_start, t_end;	/* epoch seconds */
	long long in_tokens, out_tokens;
	double	 ttft, tpot;		/* seconds; < 0 when absent */
	bool	 ok;
};

struct reqlog {
	struct reqlog_entry *e;		/* owned */
	size_t	 n, cap;
	size_t	 n_bad;			/* malformed lines skipped */
	unsigned long bad_lines[8];	/* first bad line numbers */
};

struct reqlog_window {
	size_t	 requests, ok, slo_ok;
	long long in_tokens, out_tokens;	/* all requests that ended */
	long long slo_in_tokens, slo_out_tokens;	/* SLO-qualified only */
};

/* An empty log (caller frees with reqlog_free), or NULL out of memory. */
struct reqlog	*reqlog_new(void);
void		 reqlog_free(struct reqlog *l);		/* NULL-safe */
/* Appends a request.  0, or -1 (out of memory, REQLOG_MAX_ENTRIES). */
int		 reqlog_push(struct reqlog *l, const struct reqlog_entry *e);
/* Counts line (1-based) as not a valid request. */
void		 reqlog_bad(struct reqlog *l, unsigned long line);
/* Totals of requests that ended in [t0, t1). */
void		 reqlog_window(const struct reqlog *l, double t0, double t1,
		    double slo_ttft, double slo_tpot, struct reqlog_window *w);

#endif
