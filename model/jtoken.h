/*
 * jtoken.h - energy per token figures for one boundary (pure).
 *
 * From an energy over a window and the tokens completed in the same
 * window: J per output token (the headline), J per total (input + output)
 * token, output tokens per joule, kWh per million output tokens
 * (J/token x 1e6 / 3.6e6), J per SLO-qualified output token, and the
 * idle-subtracted secondary figure (energy minus idle power x window
 * length, idle power measured on a marked idle window).  The gross figure
 * is always the headline; idle-subtracted never replaces it.
 */
#ifndef WP_JTOKEN_H
#define WP_JTOKEN_H

#include <stdbool.h>
#include <stddef.h>

#include "../collector/lib/err.h"

struct jtoken_in {
	double	 energy_j;
	double	 output_tokens;
	double	 input_tokens;		/* < 0 unknown */
	double	 slo_output_tokens;	/* < 0 unknown */
	double	 window_s;
	double	 idle_power_w;		/* < 0 no idle window */
};

struct jtoken {
	double	 energy_j;
	double	 j_per_output_token;
	double	 j_per_total_token;	/* NAN when input unknown */
	double	 tokens_per_joule;	/* output tokens per J */
	double	 kwh_per_million_output_tokens;
	double	 j_per_slo_token;	/* NAN when unknown */
	bool	 idle_valid;
	double	 idle_energy_j;
	double	 net_energy_j;
	double	 net_j_per_output_token;
	double	 net_kwh_per_million_output_tokens;
};

/* 0, or -1 (no output tokens, negative or non-finite energy).  When the
 * idle energy exceeds the gross energy, idle_valid is false. */
int	 jtoken_compute(const struct jtoken_in *in, struct jtoken *out,
	    struct wp_err *err);
/* kWh per million tokens from J per token. */
double	 jtoken_kwh_per_million(double j_per_token);

#endif

/* One request of a load generator's log, for SLO qualification. */
struct jt_request {
	double	 ttft_ms;	/* < 0 unknown */
	double	 tpot_ms;	/* < 0 unknown */
	double	 output_tokens;
	double	 input_tokens;
	int	 ok;		/* finished successfully */
};

struct jt_slo {
	double	 ttft_ms;	/* <= 0: not constrained */
	double	 tpot_ms;	/* <= 0: not constrained */
};

/*
 * Output tokens of requests that succeeded and met the SLO, and the output
 * tokens of all requests.  A request with an unknown latency the SLO
 * constrains does not qualify.  Returns the qualified share (0..1), or NAN
 * when there are no output tokens.
 */
double	 jtoken_slo_share(const struct jt_request *r, size_t n,
	    const struct jt_slo *slo, double *qualified, double *total);
