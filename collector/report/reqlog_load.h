/*
 * reqlog_load.h - reads a load generator's per-request log, one JSON
 * object per line (JSON Lines), into a struct reqlog (model/reqlog.h).
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
 * are skipped.  Lines longer than REQLOG_LINE_MAX are bad, and so is a
 * token count above REQLOG_TOKENS_MAX (no request is that large; the cap
 * keeps a window's sums, at most REQLOG_MAX_ENTRIES requests, far from
 * overflowing).
 */
#ifndef WP_REQLOG_LOAD_H
#define WP_REQLOG_LOAD_H

#include <stddef.h>

#include "../../model/reqlog.h"
#include "../lib/err.h"

#define REQLOG_LINE_MAX		(64u << 10)
#define REQLOG_TOKENS_MAX	1000000000LL	/* per request, each way */

/* Parses buf into a new log (caller frees with reqlog_free); NULL + err
 * only on out-of-memory or when no line at all is valid. */
struct reqlog	*reqlog_parse(const char *buf, size_t len, struct wp_err *err);
/* Reads and parses a file (caller frees with reqlog_free). */
struct reqlog	*reqlog_load(const char *path, struct wp_err *err);

#endif
