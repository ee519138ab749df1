/* Unit tests: drivers/inband/promtext.c - Prometheus / OpenMetrics text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/inband/promtext.h"
#include "inband_fixture.h"

#define MAXS	64

struct got {
	size_t	 n;
	char	 name[MAXS][96];
	char	 family[MAXS][96];
	int	 type[MAXS], suffix[MAXS];
	double	 value[MAXS], ts[MAXS];
	int	 has_ts[MAXS];
	char	 labels[MAXS][256];	/* "a=x|b=y" */
	char	 unit[MAXS][16];
	unsigned long total;
};

static int
collect(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	struct got *g = arg;
	size_t i, k;

	(void)err;
	g->total++;
	if (g->n >= MAXS)
		return 0;
	k = g->n++;
	snprintf(g->name[k], sizeof(g->name[k]), "%s", s->name);
	snprintf(g->family[k], sizeof(g->family[k]), "%s", s->family);
	snprintf(g->unit[k], sizeof(g->unit[k]), "%s", s->unit);
	g->type[k] = s->type;
	g->suffix[k] = s->suffix;
	g->value[k] = s->value;
	g->ts[k] = s->ts;
	g->has_ts[k] = s->has_ts;
	g->labels[k][0] = '\0';
	for (i = 0; i < s->n_labels; i++) {
		size_t u = strlen(g->labels[k]);
		snprintf(g->labels[k] + u, sizeof(g->labels[k]) - u, "%s%s=%s",
		    i ? "|" : "", s->labels[i].name, s->labels[i].value);
	}
	return 0;
}

static int
parse(const char *text, bool om, struct got *g, struct wp_err *err)
{
	struct prom_opts o = { .openmetrics = om };

	memset(g, 0, sizeof(*g));
	err_clear(err);
	return prom_parse(text, strlen(text), &o, collect, g, err);
}

static void
test_labels_escapes_values(void **st)
{
	struct got g;
	struct wp_err err;
	const char *t =
	    "# HELP m Help with \\\\ and \\n.\n"
	    "# TYPE m gauge\n"
	    "m{a=\"x\\\\y\",b=\"q\\\"uote\",c=\"l1\\nl2\"} 1.5 1700000000123\n"
	    "m{gpu=\"0\", UUID=\"U\" ,} NaN\n"
	    "m +Inf\n"
	    "m{} -Inf\n"
	    "  m\t2e3\n"
	    "x_no_type 7\n"
	    "# a plain comment\n"
	    "\n";

	(void)st;
	assert_int_equal(parse(t, false, &g, &err), 0);
	assert_int_equal(g.n, 6);
	assert_string_equal(g.labels[0], "a=x\\y|b=q\"uote|c=l1\nl2");
	assert_true(g.value[0] == 1.5 && g.has_ts[0]);
	assert_true(fabs(g.ts[0] - 1700000000.123) < 1e-6);
	assert_int_equal(g.type[0], PROM_GAUGE);
	assert_string_equal(g.labels[1], "gpu=0|UUID=U");
	assert_true(isnan(g.value[1]));
	assert_true(isinf(g.value[2]) && g.value[2] > 0);
	assert_true(isinf(g.value[3]) && g.value[3] < 0);
	assert_true(g.value[4] == 2000);
	assert_int_equal(g.type[5], PROM_UNTYPED);
	assert_string_equal(g.family[5], "x_no_type");
}

static void
test_histogram_summary_families(void **st)
{
	struct got g;
	struct wp_err err;
	const char *t =
	    "# TYPE vllm:iteration_tokens_total histogram\n"
	    "vllm:iteration_tokens_total_bucket{le=\"1.0\"} 3\n"
	    "vllm:iteration_tokens_total_bucket{le=\"+Inf\"} 5\n"
	    "vllm:iteration_tokens_total_sum 267\n"
	    "vllm:iteration_tokens_total_count 5\n"
	    "# TYPE s summary\n"
	    "s{quantile=\"0.5\"} 1\n"
	    "s_sum 10\n"
	    "s_count 4\n"
	    "# TYPE c_total counter\n"
	    "c_total 9\n"
	    "# TYPE g gauge\n"
	    "g_sum 1\n";

	(void)st;
	assert_int_equal(parse(t, false, &g, &err), 0);
	assert_int_equal(g.n, 9);
	assert_string_equal(g.family[0], "vllm:iteration_tokens_total");
	assert_int_equal(g.suffix[0], PROM_S_BUCKET);
	assert_int_equal(g.type[0], PROM_HISTOGRAM);
	assert_int_equal(g.suffix[2], PROM_S_SUM);
	assert_int_equal(g.suffix[3], PROM_S_COUNT);
	assert_int_equal(g.type[4], PROM_SUMMARY);
	assert_int_equal(g.suffix[4], PROM_S_NONE);
	assert_int_equal(g.suffix[5], PROM_S_SUM);
	assert_int_equal(g.type[7], PROM_COUNTER);
	assert_int_equal(g.suffix[7], PROM_S_TOTAL);
	/* g_sum is not a member of gauge g: its own, untyped family. */
	assert_string_equal(g.family[8], "g_sum");
	assert_int_equal(g.type[8], PROM_UNTYPED);
}

static void
test_openmetrics(void **st)
{
	struct got g;
	struct wp_err err;
	const char *t =
	    "# TYPE e counter\n"
	    "# UNIT e joules\n"
	    "# HELP e Energy.\n"
	    "e_total{gpu=\"0\"} 12.5 1700000000.25 # {trace_id=\"a\"} 1 1.0\n"
	    "e_created{gpu=\"0\"} 1690000000.0\n"
	    "# EOF\n";

	(void)st;
	assert_int_equal(parse(t, true, &g, &err), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.family[0], "e");
	assert_int_equal(g.suffix[0], PROM_S_TOTAL);
	assert_string_equal(g.unit[0], "joules");
	assert_true(fabs(g.ts[0] - 1700000000.25) < 1e-6);
	assert_int_equal(g.suffix[1], PROM_S_CREATED);
	/* # EOF without its newline is fine too. */
	assert_int_equal(parse("a 1\n# EOF", true, &g, &err), 0);
	/* No # EOF: truncated. */
	assert_int_equal(parse("a 1\n", true, &g, &err), -1);
	assert_non_null(strstr(err.msg, "EOF"));
	/* Data after # EOF. */
	assert_int_equal(parse("a 1\n# EOF\nb 2\n", true, &g, &err), -1);
	assert_non_null(strstr(err.msg, "after # EOF"));
	/* In Prometheus text, # EOF is only a comment. */
	assert_int_equal(parse("a 1\n# EOF\nb 2\n", false, &g, &err), 0);
	assert_int_equal(g.n, 2);
	/* OpenMetrics timestamps are seconds; Prometheus ones integer ms. */
	assert_int_equal(parse("a 1 1.5\n", false, &g, &err), -1);
	assert_non_null(strstr(err.msg, "timestamp"));
}

static void
test_bad_input_errors(void **st)
{
	static const struct { const char *text; const char *msg; } bad[] = {
		{ "m{a=\"x\\t\"} 1\n", "escape" },
		{ "m{a=\"x} 1\n", "unterminated" },
		{ "m{a=x} 1\n", "not quoted" },
		{ "m{a=\"1\" b=\"2\"} 1\n", "expected ','" },
		{ "m{a=\"1\",a=\"2\"} 1\n", "repeated" },
		{ "m{1a=\"1\"} 1\n", "label name" },
		{ "m 12abc\n", "bad value" },
		{ "m\n", "no value" },
		{ "m 1 2 3\n", "unexpected" },
		{ "9m 1\n", "metric name" },
		{ "m-x 1\n", "after metric name" },
		{ "# TYPE m gauge\n# TYPE m counter\nm 1\n", "changes" },
		{ "# TYPE m flux\n", "unknown TYPE" },
		{ "# TYPE\n", "metric name" },
		{ "m 1e999\n", "bad value" },
		{ "m 1\nm 2", "truncated" },
		{ "<html><body>502 Bad Gateway</body></html>\n", "metric name" },
	};
	struct got g;
	struct wp_err err;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i].text, false, &g, &err) != -1)
			fail_msg("case %zu parsed", i);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("case %zu: \"%s\" does not mention \"%s\"", i,
			    err.msg, bad[i].msg);
		assert_int_equal(err.class, WP_E_PROTOCOL);
	}
	/* A NUL byte inside a line. */
	{
		struct prom_opts o = { 0 };
		assert_int_equal(prom_parse("m 1\0x\n", 6, &o, collect, &g,
		    &err), -1);
		assert_non_null(strstr(err.msg, "NUL"));
	}
}

static void
test_limits(void **st)
{
	struct prom_opts o = { .max_line = 1024, .max_labels = 4,
	    .max_families = 3 };
	struct got g;
	struct wp_err err;
	char *big;
	size_t n = 10u << 20, i;

	(void)st;
	/* A 10 MiB line: clear error, no crash, bounded memory. */
	big = malloc(n + 2);
	assert_non_null(big);
	memcpy(big, "m{a=\"", 5);
	memset(big + 5, 'x', n - 5);
	big[n] = '\n';
	memset(&g, 0, sizeof(g));
	assert_int_equal(prom_parse(big, n + 1, &o, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 1024"));
	assert_int_equal(prom_parse(big, n + 1, NULL, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
	assert_int_equal(prom_parse("m{a=\"1\",b=\"2\",c=\"3\",d=\"4\",e=\"5\"} 1\n",
	    41, &o, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "more than 4 labels"));
	assert_int_equal(prom_parse("# TYPE a gauge\n# TYPE b gauge\n"
	    "# TYPE c gauge\n# TYPE d gauge\n", 60, &o, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "families"));
	/* Many families within the default limit: the table grows. */
	{
		char *t = malloc(2000 * 40), *p = t;
		for (i = 0; i < 2000; i++)
			p += sprintf(p, "# TYPE f%zu gauge\nf%zu %zu\n", i, i, i);
		memset(&g, 0, sizeof(g));
		assert_int_equal(prom_parse(t, (size_t)(p - t), NULL, collect,
		    &g, &err), 0);
		assert_int_equal(g.total, 2000);
		free(t);
	}
}

static void
test_duplicates_and_out_of_order_pass_through(void **st)
{
	struct got g;
	struct wp_err err;
	const char *t =
	    "# TYPE a counter\n"
	    "a_total{x=\"1\"} 1\n"
	    "# TYPE b gauge\n"
	    "b 2\n"
	    "a_total{x=\"1\"} 3\n"
	    "# TYPE a counter\n";

	(void)st;
	assert_int_equal(parse(t, false, &g, &err), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.type[2], PROM_COUNTER);
	assert_true(g.value[2] == 3);
}

/* Feeding in chunks of every size gives the same samples. */
static void
test_streaming_chunks(void **st)
{
	struct got whole, part;
	struct wp_err err;
	struct prom_parser *p;
	size_t len, off, step, k;
	char *body = fixture("datadog_vllm_metrics.txt", &len);

	(void)st;
	assert_non_null(body);
	memset(&whole, 0, sizeof(whole));
	assert_int_equal(prom_parse(body, len, NULL, collect, &whole, &err), 0);
	for (step = 1; step < 300; step = step * 3 + 1) {
		memset(&part, 0, sizeof(part));
		p = prom_new(NULL, collect, &part, &err);
		assert_non_null(p);
		for (off = 0; off < len; off += step) {
			k = len - off < step ? len - off : step;
			assert_int_equal(prom_feed(p, body + off, k, &err), 0);
		}
		assert_int_equal(prom_finish(p, &err), 0);
		assert_int_equal(prom_samples(p), whole.total);
		prom_free(p);
		assert_int_equal(part.total, whole.total);
		assert_memory_equal(part.value, whole.value,
		    sizeof(whole.value));
	}
	free(body);
}

static void
test_real_fixtures_parse(void **st)
{
	static const char *const ok[] = {
		"datadog_dcgm_metrics.txt", "issue317_a30_mig_excerpt.txt",
		"readme_blank_scrape.txt", "datadog_vllm_metrics.txt",
		"datadog_tgi_payload_excerpt.txt", "sglang_docs_metrics.txt",
		"llamacpp_blog_metrics.txt",
	};
	struct got g;
	struct wp_err err;
	size_t i, len;
	char *b;

	(void)st;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		b = fixture(ok[i], &len);
		assert_non_null(b);
		memset(&g, 0, sizeof(g));
		if (prom_parse(b, len, NULL, collect, &g, &err) != 0)
			fail_msg("%s: %s", ok[i], err.msg);
		assert_true(g.total > 2);
		free(b);
	}
	/* llama.cpp prints "inf" in lower case. */
	b = fixture("llamacpp_blog_metrics.txt", &len);
	memset(&g, 0, sizeof(g));
	assert_int_equal(prom_parse(b, len, NULL, collect, &g, &err), 0);
	assert_true(isinf(g.value[7]));
	free(b);
	/* The README text with shell lines and "..." is not exposition. */
	b = fixture("readme_sample_blank_value.txt", &len);
	assert_int_equal(prom_parse(b, len, NULL, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "line 1:"));
	free(b);
}

static int
stop_at_two(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	int *n = arg;

	(void)s;
	if (++*n == 2)
		return err_set(err, WP_E_PROTOCOL, "enough");
	return 0;
}

static void
test_callback_stops(void **st)
{
	struct wp_err err;
	int n = 0;

	(void)st;
	assert_int_equal(prom_parse("a 1\nb 2\nc 3\n", 12, NULL, stop_at_two,
	    &n, &err), -1);
	assert_int_equal(n, 2);
	assert_string_equal(err.msg, "enough");
	assert_true(prom_content_is_openmetrics(
	    "application/openmetrics-text; version=1.0.0; charset=utf-8"));
	assert_false(prom_content_is_openmetrics("text/plain; version=0.0.4"));
	assert_false(prom_content_is_openmetrics(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_escapes_values),
		cmocka_unit_test(test_histogram_summary_families),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_bad_input_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_duplicates_and_out_of_order_pass_through),
		cmocka_unit_test(test_streaming_chunks),
		cmocka_unit_test(test_real_fixtures_parse),
		cmocka_unit_test(test_callback_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
