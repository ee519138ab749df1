/* Unit tests: expo_metrics.c (names, escaping, plain decimals) and
 * dashboard.c (escaping, charts, paging) on a hand-built fleet; html.c's
 * URL decoding. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/expo/dashboard.h"
#include "../../collector/expo/expo_history.h"
#include "../../collector/expo/expo_metrics.h"
#include "../../collector/expo/html.h"

static char *
render(const struct fleet *fl, double pue, const struct history *h,
    const struct dash_query *q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (q == NULL)
		assert_int_equal(expo_metrics_write(f, fl, pue), 0);
	else
		assert_int_equal(dashboard_write(f, fl, h, q), 0);
	fclose(f);
	return buf;
}

static void
fleet_one(struct fleet *fl, struct fleet_node *n, struct fleet_target *t)
{
	memset(fl, 0, sizeof(*fl));
	memset(n, 0, sizeof(*n));
	memset(t, 0, sizeof(*t));
	n->name = "gpu \"7\"\\x\ny";
	n->class = "hgx";
	n->rack = "r1";
	n->b[FB_WALL] = (struct fleet_fig){ 12345678901.5, 1234.5, true, true };
	n->b[FB_GPU] = (struct fleet_fig){ 0, 0.000123, false, true };
	*t = (struct fleet_target){ .name = "gpu-7/bmc", .protocol = "redfish",
	    .node = "", .reason = "auth", .error = "401", .up = false,
	    .polls = 3, .failures = 3 };
	fl->nodes = n;
	fl->n_nodes = 1;
	fl->targets = t;
	fl->n_targets = 1;
	fl->targets_down = 1;
	fl->now = 1000 * WP_SEC;
	fl->site = "s<1>";
}

static void
test_fmt_plain_decimal(void **st)
{
	char b[64];

	(void)st;
	expo_fmt_value(b, sizeof(b), 12345.6);
	assert_string_equal(b, "12345.6");
	expo_fmt_value(b, sizeof(b), 1e15);
	assert_string_equal(b, "1000000000000000");
	expo_fmt_value(b, sizeof(b), 0.000123);
	assert_string_equal(b, "0.000123");
	expo_fmt_value(b, sizeof(b), -3);
	assert_string_equal(b, "-3");
	expo_fmt_value(b, sizeof(b), 1e-30);
	assert_string_equal(b, "0");
	expo_fmt_value(b, sizeof(b), NAN);
	assert_string_equal(b, "0");
}

static void
test_metrics_text(void **st)
{
	struct fleet fl;
	struct fleet_node n;
	struct fleet_target t;
	char *s;

	(void)st;
	fleet_one(&fl, &n, &t);
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "# TYPE wattpath_node_energy_joules_total "
	    "counter\n"));
	assert_non_null(strstr(s, "wattpath_node_energy_joules_total{node="
	    "\"gpu \\\"7\\\"\\\\x\\ny\",class=\"hgx\",rack=\"r1\",boundary="
	    "\"wall\"} 12345678901.5\n"));
	assert_non_null(strstr(s, "boundary=\"gpu\"} 0.000123\n"));
	/* the GPU has no energy counter: no energy series for it */
	assert_null(strstr(s, "wattpath_node_energy_joules_total{node=\"gpu "
	    "\\\"7\\\"\\\\x\\ny\",class=\"hgx\",rack=\"r1\",boundary=\"gpu\""));
	assert_non_null(strstr(s, "wattpath_target_up{target=\"gpu-7/bmc\","
	    "protocol=\"redfish\"} 0\n"));
	assert_non_null(strstr(s, "wattpath_target_down_reason{target="
	    "\"gpu-7/bmc\",protocol=\"redfish\",reason=\"auth\"} 1\n"));
	/* unknown PUE: family described, no sample */
	assert_non_null(strstr(s, "# HELP wattpath_facility_pue "));
	assert_null(strstr(s, "\nwattpath_facility_pue "));
	assert_null(strstr(s, "e+"));
	free(s);
	s = render(&fl, 1.25, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_facility_pue 1.25\n"));
	free(s);
	s = render(&fl, 0.9, NULL, NULL);	/* below 1: left out */
	assert_null(strstr(s, "\nwattpath_facility_pue "));
	free(s);
}

static void
test_dashboard(void **st)
{
	struct fleet fl;
	struct fleet_node n;
	struct fleet_target t;
	struct history *h = history_new(8);
	struct dash_query q = { "<b>", NULL, 1, NULL };
	char *s;
	int i;

	(void)st;
	fleet_one(&fl, &n, &t);
	for (i = 0; i < 5; i++) {
		fl.now = (1000 + i) * WP_SEC;
		fl.total[FB_WALL] = (struct fleet_fig){ 10.0 * i, 100 + i, true,
		    true };
		assert_int_equal(history_add(h, &fl), 0);
	}
	s = render(&fl, NAN, h, &q);
	assert_null(strstr(s, "value=\"<b>"));	/* search text escaped */
	assert_non_null(strstr(s, "&lt;b&gt;"));
	assert_non_null(strstr(s, "s&lt;1&gt;"));	/* site escaped */
	assert_non_null(strstr(s, "0 matching"));
	assert_non_null(strstr(s, "<path class=\"data\""));
	assert_non_null(strstr(s, " L"));	/* a line of several points */
	assert_null(strstr(s, "<script"));
	free(s);
	q.q = "hgx";
	q.page = 7;
	s = render(&fl, NAN, h, &q);
	assert_non_null(strstr(s, "1 matching"));
	assert_non_null(strstr(s, "page 1 of 1"));
	assert_non_null(strstr(s, "gpu &quot;7&quot;"));
	free(s);
	history_free(h);
}

static void
test_url_unescape(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "gpu-001%2Fx", "gpu-001/x" },
		{ "gpu-001%00.json", "gpu-001%00.json" },	/* no NUL */
		{ "a%2", "a%2" }, { "a%zz%41", "a%zzA" }, { "%", "%" },
		{ "%e2%9c%93", "\xe2\x9c\x93" }, { "", "" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(buf, cases[i].in);
		assert_int_equal(html_url_unescape(buf), strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_plain_decimal),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_dashboard),
		cmocka_unit_test(test_url_unescape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
