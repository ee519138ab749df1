/* Unit tests: request logs (collector/report/reqlog_load.c, model/reqlog.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/report/reqlog_load.h"

static const char good[] =
    "{\"id\":\"r1\",\"start\":1000.0,\"end\":1002.5,\"input_tokens\":100,"
    "\"output_tokens\":50,\"ttft\":0.2,\"tpot\":0.04,\"ok\":true}\n"
    "{\"request_id\":2,\"start_time\":1001,\"end_time\":1009,"
    "\"prompt_tokens\":10,\"completion_tokens\":300,\"ttft_s\":1.5,"
    "\"tpot_s\":0.02,\"success\":true}\r\n"
    "\n"
    "{\"id\":\"r3\",\"start\":1003,\"end\":1004,\"input_tokens\":7,"
    "\"output_tokens\":0,\"ok\":false}\n"
    "{\"id\":\"r4\",\"start\":1005,\"end\":1010,\"input_tokens\":1,"
    "\"output_tokens\":9}";

static void
test_parse_and_window(void **st)
{
	struct wp_err err;
	struct reqlog *l;
	struct reqlog_window w;

	(void)st;
	l = reqlog_parse(good, strlen(good), &err);
	assert_non_null(l);
	assert_int_equal(l->n, 4);
	assert_int_equal(l->n_bad, 0);
	assert_string_equal(l->e[0].id, "r1");
	assert_string_equal(l->e[1].id, "2");
	assert_true(l->e[1].out_tokens == 300 && l->e[1].ttft == 1.5);
	assert_false(l->e[2].ok);
	assert_true(l->e[3].ok && l->e[3].ttft < 0);
	/* Requests that ended in [1000, 1010): r1, r2, r3 (r4 ends at 1010). */
	reqlog_window(l, 1000, 1010, 0, 0, &w);
	assert_int_equal(w.requests, 3);
	assert_int_equal(w.ok, 2);
	assert_true(w.out_tokens == 350 && w.in_tokens == 117);
	assert_int_equal(w.slo_ok, 2);
	/* TTFT SLO 1 s: r2 misses it. */
	reqlog_window(l, 1000, 1011, 1.0, 0.05, &w);
	assert_int_equal(w.requests, 4);
	assert_int_equal(w.slo_ok, 1);	/* r1; r4 has no TTFT measured */
	assert_true(w.slo_out_tokens == 50);
	reqlog_free(l);
}

static void
test_bad_lines(void **st)
{
	static const char text[] =
	    "not json\n"
	    "{\"start\":5,\"end\":4,\"input_tokens\":1,\"output_tokens\":1}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":-1,\"output_tokens\":1}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":1.5,\"output_tokens\":1}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":1}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":1,\"output_tokens\":1,"
	    "\"ok\":\"yes\"}\n"
	    "[1,2]\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":1,\"output_tokens\":1} x\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":2,\"output_tokens\":3}\n"
	    /* found by fuzz_reqlog: two such summed past LLONG_MAX */
	    "{\"start\":5,\"end\":6,\"input_tokens\":9223372036854775807,"
	    "\"output_tokens\":1}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":1,"
	    "\"output_tokens\":1000000001}\n"
	    "{\"start\":5,\"end\":6,\"input_tokens\":2,";
	struct wp_err err;
	struct reqlog *l;

	(void)st;
	l = reqlog_parse(text, strlen(text), &err);
	assert_non_null(l);
	assert_int_equal(l->n, 1);
	assert_int_equal(l->n_bad, 11);
	assert_int_equal(l->bad_lines[0], 1);
	reqlog_free(l);
	assert_null(reqlog_parse("garbage\n", 8, &err));
	assert_string_equal(err.msg, "no valid request line (1 bad, first at "
	    "line 1)");
	assert_null(reqlog_parse("\n\n", 2, &err));	/* nothing, not "0 bad" */
	assert_string_equal(err.msg, "no request line in it");
	assert_null(reqlog_load("/nonexistent/requests.jsonl", &err));
	assert_int_equal(err.class, WP_E_CONFIG);
	/* a directory opens, and its read fails: an error, not an empty log */
	assert_null(reqlog_load("/", &err));
	assert_int_equal(err.class, WP_E_CONFIG);
	assert_string_equal(err.msg, "/: Is a directory");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_window),
		cmocka_unit_test(test_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
