/*
 * reqlog.h - offline token source: a load generator's per-request log, one
 * JSON object per line (JSON Lines).  Pure: parses text already read.
 *
 * Fields (first name listed is canonical; aliases accepted):
 *   id             "id" | "request_id"                string or number
 *   start          "start" | "start_time" | "t_start"  epoch seconds (number)
 *   end            "end" | "end_time" | "t_end"        epoch seconds (number)
 *   input tokens   "input_tokens" | "prompt_tokens"    integer >= 0
 *   output tokens  "output_tokens" | "completion_tokens" | "generated_tokens"
 *   ttft           "ttft" | "ttft_s"                   seconds, optional
 *   tpot           "tpot" | "tpot_s"                   seconds, optional
 *   ok             "ok" | "success"                    boolean, default true
 * Required: start, end (end >= start), input and output tokens.  A line
 * that is not a JSON object or lacks or contradicts these is counted in
 * n_bad (its line number kept for the first few), never guessed; blank lines
 * are skipped.  Lines longer than REQLOG_LINE_MAX are bad.
 *
 * reqlog_window() gives MLPerf-style window totals: requests that ended in
 * [t0, t1), and of those the SLO-qualified ones (ok, TTFT <= slo_ttft and
 * TPOT <= slo_tpot where the limit is > 0; a request missing a measured
 * value that has a limit does not qualify).
 */
#ifndef WP_INBAND_REQLOG_H
#define WP_INBAND_REQLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/err.h"

#define REQLOG_LINE_MAX		(64u << 10)
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

/* Parses buf into a new log (caller frees with reqlog_free); NULL + err
 * only on out-of-memory or when no line at all is valid. */
struct reqlog	*reqlog_parse(const char *buf, size_t len, struct wp_err *err);
/* Reads and parses a file (caller frees with reqlog_free). */
struct reqlog	*reqlog_load(const char *path, struct wp_err *err);
void		 reqlog_free(struct reqlog *l);
/* Totals of requests that ended in [t0, t1). */
void		 reqlog_window(const struct reqlog *l, double t0, double t1,
		    double slo_ttft, double slo_tpot, struct reqlog_window *w);

#endif
