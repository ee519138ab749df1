/* Unit tests: drivers/redfish/redfish_push.c - SSE framing, pushed
 * MetricReports and their samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/sample.h"
#include "../../drivers/redfish/redfish_push.h"

/* ---- SSE ---- */

struct got {
	char	 data[8][256];
	char	 event[8][64], id[8][64];
	bool	 over[8];
	int	 n;
};

static void
on_ev(void *arg, const struct rf_sse_event *ev)
{
	struct got *g = arg;

	if (g->n >= 8)
		return;
	snprintf(g->data[g->n], sizeof(g->data[0]), "%.*s", (int)ev->len,
	    ev->data);
	snprintf(g->event[g->n], sizeof(g->event[0]), "%s", ev->event);
	snprintf(g->id[g->n], sizeof(g->id[0]), "%s", ev->id);
	g->over[g->n] = ev->oversized;
	g->n++;
}

static void
feed_split(const char *text, size_t step, struct got *g, size_t max)
{
	struct rf_sse s;
	size_t i, n = strlen(text);

	memset(g, 0, sizeof(*g));
	assert_int_equal(rf_sse_init(&s, max), 0);
	for (i = 0; i < n; i += step)
		rf_sse_feed(&s, text + i, n - i < step ? n - i : step, on_ev, g);
	rf_sse_fini(&s);
}

static void
test_sse_events_any_split(void **st)
{
	static const char text[] = "\xef\xbb\xbf: keep-alive comment\n\n"
	    "id: 1\nevent: MetricReport\ndata: {\"a\":\ndata:  1}\n\n"
	    "data:x\r\n\r\n"
	    "retry: 5000\ndata: y\r\rdata\n\n"
	    "data: tail without blank line";
	size_t step;
	struct got g;

	(void)st;
	for (step = 1; step <= sizeof(text); step++) {
		feed_split(text, step, &g, 1024);
		assert_int_equal(g.n, 4);
		assert_string_equal(g.data[0], "{\"a\":\n 1}");
		assert_string_equal(g.event[0], "MetricReport");
		assert_string_equal(g.id[0], "1");
		assert_string_equal(g.data[1], "x");
		assert_string_equal(g.event[1], "");	/* per event */
		assert_string_equal(g.id[1], "1");	/* sticky */
		assert_string_equal(g.data[2], "y");
		assert_string_equal(g.data[3], "");	/* "data" alone */
		assert_false(g.over[0]);
	}
}

static void
test_sse_oversized_refused_then_recovers(void **st)
{
	char big[400], text[800];
	struct got g;

	(void)st;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* a data line over the cap; then two lines summing over it */
	snprintf(text, sizeof(text), "data: %s\n\ndata: %.*s\ndata: %.*s\n\n"
	    "data: ok\n\n", big, 70, big, 70, big);
	feed_split(text, 7, &g, 128);
	assert_int_equal(g.n, 3);
	assert_true(g.over[0]);
	assert_string_equal(g.data[0], "");
	assert_true(g.over[1]);
	assert_false(g.over[2]);
	assert_string_equal(g.data[2], "ok");
}

/* ---- MetricReport ---- */

#define ENV "/redfish/v1/Chassis/1/EnvironmentMetrics"
#define GPU "/redfish/v1/Chassis/GPU_1/EnvironmentMetrics"

static const char report[] = "{"
    "\"@odata.type\": \"#MetricReport.v1_5_0.MetricReport\","
    "\"@odata.id\": \"/redfish/v1/TelemetryService/MetricReports/P\","
    "\"Id\": \"P\", \"Timestamp\": \"2026-12-01T10:00:05Z\","
    "\"MetricValues\": ["
    "{\"MetricProperty\": \"" ENV "#/EnergyJoules\", \"MetricValue\": "
    "\"1000.5\", \"Timestamp\": \"2026-12-01T10:00:00.250Z\"},"
    "{\"MetricProperty\": \"" ENV "#/EnergyJoules/Reading\", "
    "\"MetricValue\": \"1500.5\", \"Timestamp\": \"2026-12-01T10:00:01Z\"},"
    "{\"MetricProperty\": \"" ENV "#/PowerWatts\", \"MetricValue\": \"500\"},"
    "{\"MetricProperty\": \"/redfish/v1/Chassis/1/Sensors/T#/Reading\", "
    "\"MetricValue\": \"41\"},"
    "{\"MetricProperty\": \"" GPU "#/EnergyJoules\", \"MetricValue\": "
    "\"10\", \"Timestamp\": \"2026-12-01T10:00:01Z\"},"
    "{\"MetricProperty\": \"" ENV "#/PowerWatts\", \"MetricValue\": \"\"}"
    "]}";

static void
test_report_values_keep_their_own_time(void **st)
{
	struct rf_readings r;
	struct wp_err e;
	wp_time t0, t1, t5;
	char id[32];

	(void)st;
	assert_int_equal(clock_parse_time("2026-12-01T10:00:00.250Z", &t0), 0);
	assert_int_equal(clock_parse_time("2026-12-01T10:00:01Z", &t1), 0);
	assert_int_equal(clock_parse_time("2026-12-01T10:00:05Z", &t5), 0);
	rf_readings_init(&r);
	assert_int_equal(rf_push_parse(report, strlen(report), &r, id,
	    sizeof(id), &e), 4);
	assert_string_equal(id, "P");
	assert_string_equal(r.v[0].key, ENV "#/EnergyJoules");
	assert_true(r.v[0].value == 1000.5);
	assert_true(r.v[0].device_time == t0);
	assert_string_equal(r.v[1].key, ENV "#/EnergyJoules");	/* kept twice */
	assert_true(r.v[1].device_time == t1);
	assert_int_equal(r.v[2].quantity, WP_Q_POWER);
	assert_true(r.v[2].device_time == t5);	/* the report's Timestamp */
	assert_string_equal(r.v[3].key, GPU "#/EnergyJoules");
	rf_readings_fini(&r);
}

static void
test_report_bad_input_refused(void **st)
{
	static const char *const bad[] = {
		"{\"MetricValues\": [nope",
		"<html>busy</html>",
		"{\"MetricValues\": {}}",
		"{\"MetricValues\": [{\"MetricProperty\": \"" ENV
		    "#/PowerWatts\", \"MetricValue\": \"12x\"}]}",
		"{\"MetricValues\": [{\"MetricProperty\": \"" ENV
		    "#/PowerWatts\", \"MetricValue\": \"5\", \"Timestamp\": "
		    "\"yesterday\"}]}",
		"{\"Timestamp\": 5, \"MetricValues\": []}",
	};
	struct rf_readings r;
	struct wp_err e;
	char id[8];
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rf_readings_init(&r);
		assert_int_equal(rf_push_parse(bad[i], strlen(bad[i]), &r, id,
		    sizeof(id), &e), -1);
		assert_true(e.msg[0] != '\0');
		rf_readings_fini(&r);
	}
	/* an Event, and a report of nothing we read: no values, no error */
	rf_readings_init(&r);
	assert_int_equal(rf_push_parse("{\"Events\": [{\"MessageId\": \"x\"}]}",
	    33, &r, id, sizeof(id), &e), 0);
	assert_int_equal(rf_push_parse("{\"MetricValues\": []}", 20, &r, id,
	    sizeof(id), &e), 0);
	rf_readings_fini(&r);
}

static void
test_samples_per_series_and_time(void **st)
{
	struct rf_pick wall = { ENV, ENV "#/EnergyJoules", "" };
	struct rf_pick sum[2] = { { ENV, ENV "#/EnergyJoules", "" },
	    { GPU, GPU "#/EnergyJoules", "" } };
	struct rf_series se[2] = {
		{ .series = "wall/energy", .source = "s", .name = "",
		  .labels = "", .boundary = WP_B_WALL,
		  .quantity = WP_Q_ENERGY, .kind = WP_COUNTER, .pick = &wall,
		  .n_pick = 1 },
		{ .series = "sum/energy", .source = "s", .name = "",
		  .labels = "", .boundary = WP_B_WALL,
		  .quantity = WP_Q_ENERGY, .kind = WP_COUNTER, .pick = sum,
		  .n_pick = 2 },
	};
	struct rf_plan plan = { .series = se, .n_series = 2 };
	struct rf_readings r;
	struct wp_sample out[8];
	struct wp_err e;
	size_t n, unused;
	wp_time t1;
	char id[8];

	(void)st;
	assert_int_equal(clock_parse_time("2026-12-01T10:00:01Z", &t1), 0);
	rf_readings_init(&r);
	assert_int_equal(rf_push_parse(report, strlen(report), &r, id,
	    sizeof(id), &e), 4);
	n = rf_push_samples(&plan, &r, out, 8, &unused);
	/* wall at two times; the sum only where both picks share a time */
	assert_int_equal(n, 3);
	assert_string_equal(out[0].series, "wall/energy");
	assert_true(out[0].value == 1000.5);
	assert_true(out[1].value == 1500.5);
	assert_true(out[1].t_real == t1);
	assert_string_equal(out[2].series, "sum/energy");
	assert_true(out[2].value == 1510.5);
	assert_true(out[2].t_real == t1);
	assert_int_equal(unused, 1);		/* the power: no series */
	assert_int_equal(rf_push_samples(&plan, &r, out, 1, NULL), 1);
	rf_readings_fini(&r);
}

/* ---- subscriptions ---- */

static void
test_sub_body_is_an_event_destination(void **state)
{
	char *b = rf_sub_body("https://c:9811/wattpath/push/ab", "wattpath:c:"
	    "9811:n1/bmc");

	(void)state;
	assert_non_null(b);
	assert_non_null(strstr(b, "\"Destination\":\"https:\\/\\/c:9811"
	    "\\/wattpath\\/push\\/ab\""));
	assert_non_null(strstr(b, "\"Protocol\":\"Redfish\""));
	assert_non_null(strstr(b, "\"EventFormatType\":\"MetricReport\""));
	assert_non_null(strstr(b, "\"SubscriptionType\":\"RedfishEvent\""));
	assert_non_null(strstr(b, "\"Context\":\"wattpath:c:9811:n1\\/bmc\""));
	free(b);
}

static void
test_sub_members_and_context(void **state)
{
	static const char coll[] = "{\"Members\":[{\"@odata.id\":"
	    "\"/redfish/v1/EventService/Subscriptions/1\"},{\"@odata.id\":"
	    "\"http://x/2\"},7,{\"Id\":3},{\"@odata.id\":\"/s/4\"}]}";
	char uris[2][RF_URI_MAX];
	struct wp_err err;

	(void)state;
	assert_int_equal(rf_sub_members(coll, strlen(coll), uris, 2, &err), 2);
	assert_string_equal(uris[0], "/redfish/v1/EventService/Subscriptions/1");
	assert_string_equal(uris[1], "/s/4");	/* no path, no id: skipped */
	assert_int_equal(rf_sub_members(coll, strlen(coll), uris, 1, &err), 1);
#define MEM(b, n)	rf_sub_members(b, strlen(b), uris, n, &err)
	assert_int_equal(MEM("{\"Members\":{}}", 2), -1);
	assert_int_equal(MEM("nope", 2), -1);
	assert_int_equal(MEM("{\"Members\":[]}", 2), 0);
#undef MEM
#define HAS(b, c)	rf_sub_has_context(b, strlen(b), c)
	assert_true(HAS("{\"Context\":\"wattpath:a:n1\"}", "wattpath:a:n1"));
	assert_false(HAS("{\"Context\":\"wattpath:a:n10\"}", "wattpath:a:n1"));
	assert_false(HAS("{\"Context\":7}", "7"));
	assert_false(HAS("{\"Id\":\"1\"}", ""));
	assert_false(HAS("{", ""));
#undef HAS
}

static void
test_sub_uri_from_location_or_body(void **state)
{
	static const char body[] = "{\"@odata.id\":\"/redfish/v1/"
	    "EventService/Subscriptions/9\"}";
	char uri[64];

	(void)state;
	assert_int_equal(rf_sub_uri_of("https://10.0.0.1:443/redfish/v1/"
	    "EventService/Subscriptions/5", "", 0, uri, sizeof(uri)), 0);
	assert_string_equal(uri, "/redfish/v1/EventService/Subscriptions/5");
	assert_int_equal(rf_sub_uri_of("/s/6", body, strlen(body), uri,
	    sizeof(uri)), 0);
	assert_string_equal(uri, "/s/6");
	assert_int_equal(rf_sub_uri_of(NULL, body, strlen(body), uri,
	    sizeof(uri)), 0);
	assert_string_equal(uri, "/redfish/v1/EventService/Subscriptions/9");
	assert_int_equal(rf_sub_uri_of(NULL, "{}", 2, uri, sizeof(uri)), -1);
	assert_int_equal(rf_sub_uri_of("https://host", "", 0, uri,
	    sizeof(uri)), -1);
	assert_int_equal(rf_sub_uri_of(NULL, body, strlen(body), uri, 8), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sse_events_any_split),
		cmocka_unit_test(test_sse_oversized_refused_then_recovers),
		cmocka_unit_test(test_report_values_keep_their_own_time),
		cmocka_unit_test(test_report_bad_input_refused),
		cmocka_unit_test(test_samples_per_series_and_time),
		cmocka_unit_test(test_sub_body_is_an_event_destination),
		cmocka_unit_test(test_sub_members_and_context),
		cmocka_unit_test(test_sub_uri_from_location_or_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
