/*
 * engines.h - inference-engine /metrics text to token counters.  Pure.
 *
 * What each engine's counters mean (facts.md section 3; docs/inband.md):
 *   vllm      vllm:generation_tokens_total, vllm:prompt_tokens_total: added
 *             every engine step (in-flight requests count as they run);
 *             prompt tokens include prefix-cache hits ("processed", not
 *             "computed").  vllm:request_success_total{finished_reason}:
 *             finished requests of every reason (stop, length, abort...).
 *   sglang    sglang:generation_tokens_total, sglang:prompt_tokens_total,
 *             sglang:num_requests_total: added when a request finishes.
 *   tgi       no token counter: tgi_request_generated_tokens_sum and
 *             tgi_request_input_length_sum (histogram sums, successful
 *             requests, added at the end); tgi_request_success(_total).
 *   llamacpp  llamacpp:tokens_predicted_total, llamacpp:prompt_tokens_total
 *             (added when a slot finishes); no request counter.
 * Rows are summed over every label (finished_reason, engine index...) per
 * model (label model_name, else model) and then over models.  An exact
 * duplicate series counts once.  Counters declared with another TYPE, or
 * negative / NaN / infinite values, are rejected (never summed).  TTFT and
 * inter-token-latency histogram sums and counts are kept per model.
 *
 * The kind comes from the config, or with ENGINE_AUTO from the metric name
 * prefixes (vllm:, sglang:, tgi_, llamacpp:); several engines in one body
 * is an error in auto mode.
 */
#ifndef WP_INBAND_ENGINES_H
#define WP_INBAND_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/err.h"
#include "../../collector/lib/sample.h"

enum engine_kind {
	ENGINE_AUTO = 0,
	ENGINE_VLLM,
	ENGINE_SGLANG,
	ENGINE_TGI,
	ENGINE_LLAMACPP,
	ENGINE_NKINDS
};

enum { EW_OUT, EW_IN, EW_SUCCESS, EW_NWHAT };

#define ENGINE_MAX_MODELS	32
#define ENGINE_MAX_SERIES	4096

struct engine_model {
	char	 name[128];		/* "" when the engine has no model label */
	bool	 has[EW_NWHAT];
	double	 v[EW_NWHAT];		/* output, input tokens; successes */
	double	 created;		/* latest <counter>_created, s; 0 none */
	bool	 has_ttft, has_itl;
	double	 ttft_sum, ttft_count;	/* seconds, requests */
	double	 itl_sum, itl_count;	/* seconds, tokens */
};

struct engine_result {
	int		 kind;		/* enum engine_kind, never AUTO */
	struct engine_model model[ENGINE_MAX_MODELS];
	size_t		 n;
	bool		 has[EW_NWHAT];
	double		 v[EW_NWHAT];	/* summed over models */
	double		 start_time;	/* process start or latest _created, s */
	const char	*metric[EW_NWHAT];	/* metric names used, or NULL */
	unsigned	 duplicates;	/* exact duplicate series ignored */
	unsigned	 rejected;
	char		 note[160];	/* first rejection reason */
};

/* "vllm", "sglang", "tgi", "llamacpp", "auto" -> kind; -1 if unknown. */
int	 engine_kind_parse(const char *s);
const char *engine_kind_name(int kind);

/*
 * Parses body for an engine of the given kind (ENGINE_AUTO detects it).
 * The result is large: allocate it (caller frees it).  Returns 0 with at
 * least one token counter, or -1 with err.
 */
int	 engines_parse(const char *body, size_t len, bool openmetrics,
	    int kind, struct engine_result *out, struct wp_err *err);

#define ENGINE_SAMPLES_MAX	EW_NWHAT

/*
 * Fills out[] (room for ENGINE_SAMPLES_MAX) with tokens/output,
 * tokens/input and requests/success, each labelled with extra (NULL, or
 * key, value, ..., NULL: declared labels, before the model list that is
 * cut to fit).  Returns the count, or -1 with err.
 */
int	 engine_samples(const struct engine_result *r,
	    const char *const *extra, struct wp_sample *out,
	    struct wp_err *err);

#endif
