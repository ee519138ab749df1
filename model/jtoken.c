/* jtoken.c - J/token, tokens/J, kWh per million tokens. */
#include <math.h>
#include <string.h>

#include "jtoken.h"

double
jtoken_kwh_per_million(double j_per_token)
{
	return j_per_token * 1e6 / 3.6e6;
}

int
jtoken_compute(const struct jtoken_in *in, struct jtoken *out,
    struct wp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->j_per_total_token = NAN;
	out->j_per_slo_token = NAN;
	if (!isfinite(in->energy_j) || in->energy_j < 0)
		return err_set(err, WP_E_PROTOCOL, "energy %g J is not usable",
		    in->energy_j);
	if (!isfinite(in->output_tokens) || in->output_tokens <= 0)
		return err_set(err, WP_E_PROTOCOL, "no output tokens in the "
		    "window: J/token undefined");
	out->energy_j = in->energy_j;
	out->j_per_output_token = in->energy_j / in->output_tokens;
	out->tokens_per_joule = in->energy_j > 0 ?
	    in->output_tokens / in->energy_j : NAN;
	out->kwh_per_million_output_tokens =
	    jtoken_kwh_per_million(out->j_per_output_token);
	if (in->input_tokens >= 0)
		out->j_per_total_token = in->energy_j /
		    (in->output_tokens + in->input_tokens);
	if (in->slo_output_tokens > 0)
		out->j_per_slo_token = in->energy_j / in->slo_output_tokens;
	if (in->idle_power_w >= 0 && in->window_s > 0) {
		out->idle_energy_j = in->idle_power_w * in->window_s;
		out->net_energy_j = in->energy_j - out->idle_energy_j;
		out->idle_valid = out->net_energy_j >= 0;
		if (out->idle_valid) {
			out->net_j_per_output_token = out->net_energy_j /
			    in->output_tokens;
			out->net_kwh_per_million_output_tokens =
			    jtoken_kwh_per_million(
			    out->net_j_per_output_token);
		}
	}
	return 0;
}

static int
meets(const struct jt_request *r, const struct jt_slo *slo)
{
	if (!r->ok)
		return 0;
	if (slo->ttft_ms > 0 && !(r->ttft_ms >= 0 && r->ttft_ms <= slo->ttft_ms))
		return 0;
	if (slo->tpot_ms > 0 && !(r->tpot_ms >= 0 && r->tpot_ms <= slo->tpot_ms))
		return 0;
	return 1;
}

double
jtoken_slo_share(const struct jt_request *r, size_t n,
    const struct jt_slo *slo, double *qualified, double *total)
{
	double q = 0, t = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(r[i].output_tokens >= 0))
			continue;
		t += r[i].output_tokens;
		if (meets(&r[i], slo))
			q += r[i].output_tokens;
	}
	if (qualified != NULL)
		*qualified = q;
	if (total != NULL)
		*total = t;
	return t > 0 ? q / t : NAN;
}
