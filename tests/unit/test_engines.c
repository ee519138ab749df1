/* Unit tests: drivers/inband/engines.c - engine token counters. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/inband/engines.h"
#include "inband_fixture.h"

static struct engine_result res;

static int
parse_text(const char *t, int kind, struct wp_err *err)
{
	err_clear(err);
	return engines_parse(t, strlen(t), false, kind, &res, err);
}

static int
parse_file(const char *name, int kind, struct wp_err *err)
{
	size_t len;
	char *b = fixture(name, &len);
	int rc;

	assert_non_null(b);
	err_clear(err);
	rc = engines_parse(b, len, false, kind, &res, err);
	free(b);
	return rc;
}

static void
test_vllm_fixture_old_and_new_names(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_file("datadog_vllm_metrics.txt", ENGINE_AUTO,
	    &err), 0);
	assert_int_equal(res.kind, ENGINE_VLLM);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.model[0].name, "facebook/opt-125m");
	assert_true(res.v[EW_OUT] == 7 && res.v[EW_IN] == 5);
	assert_true(res.v[EW_SUCCESS] == 1);
	assert_string_equal(res.metric[EW_OUT], "vllm:generation_tokens_total");
	/* TTFT histogram; ITL from the new name, not the deprecated one. */
	assert_true(res.model[0].has_ttft);
	assert_true(fabs(res.model[0].ttft_sum - 0.31326723098754883) < 1e-12);
	assert_true(res.model[0].ttft_count == 1);
	assert_true(fabs(res.model[0].itl_sum - 0.6237391703762114) < 1e-12);
	assert_true(res.model[0].itl_count == 144);
	/* The histogram named ..._total is not summed into anything. */
	assert_true(res.start_time == 1.7181405583e9);
	/* Same body with the kind configured. */
	assert_int_equal(parse_file("datadog_vllm_metrics.txt", ENGINE_VLLM,
	    &err), 0);
}

static void
test_vllm_two_models_summed_duplicate_once(void **st)
{
	struct wp_err err;
	struct wp_sample s[ENGINE_SAMPLES_MAX];
	char v[WP_LABEL_MAX];
	int n;

	(void)st;
	assert_int_equal(parse_file("vllm_two_models_synth.txt", ENGINE_AUTO,
	    &err), 0);
	assert_int_equal(res.n, 2);
	assert_true(res.v[EW_OUT] == 6700);
	assert_true(res.v[EW_IN] == 1750);
	assert_true(res.v[EW_SUCCESS] == 14);
	assert_int_equal(res.duplicates, 1);
	assert_true(res.start_time == 1.7644104e9);
	n = engine_samples(&res, NULL, s, &err);
	assert_int_equal(n, 3);
	assert_string_equal(s[0].series, "tokens/output");
	assert_int_equal(s[0].quantity, WP_Q_TOKENS);
	assert_int_equal(s[0].kind, WP_COUNTER);
	assert_int_equal(s[0].boundary, WP_B_NONE);
	assert_true(s[0].value == 6700);
	assert_true(s[0].reset_time == (wp_time)(1.7644104e9 * 1e9));
	assert_int_equal(sample_get_label(&s[0], "direction", v, sizeof(v)), 0);
	assert_string_equal(v, "output");
	assert_int_equal(sample_get_label(&s[0], "engine", v, sizeof(v)), 0);
	assert_string_equal(v, "vllm");
	assert_int_equal(sample_get_label(&s[0], "model", v, sizeof(v)), 0);
	assert_non_null(strstr(v, "meta-llama/Llama-3.1-8B-Instruct"));
	assert_string_equal(s[1].series, "tokens/input");
	assert_int_equal(sample_get_label(&s[1], "direction", v, sizeof(v)), 0);
	assert_string_equal(v, "input");
	assert_string_equal(s[2].series, "requests/success");
	assert_int_equal(s[2].quantity, WP_Q_OTHER);
	assert_int_equal(sample_validate(&s[0], &err), 0);
	assert_int_equal(sample_validate(&s[2], &err), 0);
}

static void
test_sglang_tgi_llamacpp(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_file("sglang_docs_metrics.txt", ENGINE_AUTO,
	    &err), 0);
	assert_int_equal(res.kind, ENGINE_SGLANG);
	assert_true(res.v[EW_OUT] == 7557572 && res.v[EW_IN] == 8128902);
	assert_false(res.has[EW_SUCCESS]);
	assert_true(res.model[0].itl_count == 7400757);	/* old TPOT name */
	assert_int_equal(parse_file("tgi_generated_tokens_synth.txt",
	    ENGINE_AUTO, &err), 0);
	assert_int_equal(res.kind, ENGINE_TGI);
	assert_true(res.v[EW_OUT] == 21980 && res.v[EW_IN] == 30512);
	assert_true(res.v[EW_SUCCESS] == 109);
	assert_string_equal(res.model[0].name, "");
	assert_int_equal(parse_file("llamacpp_blog_metrics.txt", ENGINE_AUTO,
	    &err), 0);
	assert_int_equal(res.kind, ENGINE_LLAMACPP);
	assert_true(res.v[EW_OUT] == 1 && res.v[EW_IN] == 16135);
	assert_false(res.has[EW_SUCCESS]);
	/* The real TGI excerpt has no token histogram: a clear error. */
	assert_int_equal(parse_file("datadog_tgi_payload_excerpt.txt",
	    ENGINE_AUTO, &err), -1);
	assert_non_null(strstr(err.msg, "tgi"));
	assert_int_equal(parse_file("datadog_tgi_payload_excerpt.txt",
	    ENGINE_TGI, &err), -1);
	assert_non_null(strstr(err.msg, "no tgi token counters"));
	/* DCGM metrics are no engine. */
	assert_int_equal(parse_file("datadog_dcgm_metrics.txt", ENGINE_AUTO,
	    &err), -1);
}

static void
test_kind_mismatch_and_mixed(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_file("datadog_vllm_metrics.txt", ENGINE_SGLANG,
	    &err), -1);
	assert_non_null(strstr(err.msg, "look like vllm"));
	assert_int_equal(parse_text(
	    "vllm:generation_tokens_total{model_name=\"a\"} 5\n"
	    "sglang:generation_tokens_total{model_name=\"b\"} 6\n",
	    ENGINE_AUTO, &err), -1);
	assert_non_null(strstr(err.msg, "both vllm and sglang"));
	/* Configured: the other engine's counters are ignored. */
	assert_int_equal(parse_text(
	    "vllm:generation_tokens_total{model_name=\"a\"} 5\n"
	    "sglang:generation_tokens_total{model_name=\"b\"} 6\n",
	    ENGINE_SGLANG, &err), 0);
	assert_true(res.v[EW_OUT] == 6);
	assert_int_equal(engine_kind_parse("llamacpp"), ENGINE_LLAMACPP);
	assert_int_equal(engine_kind_parse("auto"), ENGINE_AUTO);
	assert_int_equal(engine_kind_parse("triton"), -1);
}

static void
test_bad_counters_rejected(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_text(
	    "# TYPE vllm:generation_tokens_total gauge\n"
	    "vllm:generation_tokens_total{model_name=\"a\"} 5\n", ENGINE_AUTO,
	    &err), -1);
	assert_non_null(strstr(err.msg, "wrong TYPE"));
	assert_int_equal(parse_text(
	    "vllm:generation_tokens_total{model_name=\"a\"} NaN\n"
	    "vllm:prompt_tokens_total{model_name=\"a\"} -4\n", ENGINE_VLLM,
	    &err), -1);
	assert_non_null(strstr(err.msg, "finite"));
	/* One bad row does not poison the good ones, and is not summed. */
	assert_int_equal(parse_text(
	    "vllm:generation_tokens_total{model_name=\"a\"} 5\n"
	    "vllm:generation_tokens_total{model_name=\"b\"} +Inf\n",
	    ENGINE_VLLM, &err), 0);
	assert_true(res.v[EW_OUT] == 5);
	assert_int_equal(res.rejected, 1);
	/* Truncated body. */
	assert_int_equal(parse_text(
	    "vllm:generation_tokens_total{model_name=\"a\"} 5\nvllm:pro",
	    ENGINE_VLLM, &err), -1);
	assert_non_null(strstr(err.msg, "truncated"));
	/* SGLang per-TP-rank copies count once. */
	assert_int_equal(parse_text(
	    "sglang:generation_tokens_total{model_name=\"m\",tp_rank=\"0\"} 10\n"
	    "sglang:generation_tokens_total{model_name=\"m\",tp_rank=\"1\"} 10\n",
	    ENGINE_AUTO, &err), 0);
	assert_true(res.v[EW_OUT] == 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vllm_fixture_old_and_new_names),
		cmocka_unit_test(test_vllm_two_models_summed_duplicate_once),
		cmocka_unit_test(test_sglang_tgi_llamacpp),
		cmocka_unit_test(test_kind_mismatch_and_mixed),
		cmocka_unit_test(test_bad_counters_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
