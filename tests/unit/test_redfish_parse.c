/* Unit tests: drivers/redfish/redfish_parse.c - decode and bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "../../collector/lib/sample.h"
#include "../../drivers/redfish/redfish_parse.h"
#include "redfish_walk.h"

static int
parse_text(const char *uri, const char *text, struct rf_readings *r,
    struct wp_err *err)
{
	struct json_object *o = rf_json_parse(text, strlen(text), err);
	int rc;

	if (o == NULL)
		return -2;
	rc = rf_parse_resource(uri, o, r, err);
	json_object_put(o);
	return rc;
}

static void
test_bad_bodies_are_refused_clearly(void **st)
{
	struct wp_err e;
	size_t len;
	char *body;

	(void)st;
	assert_null(rf_json_parse("", 0, &e));
	assert_non_null(strstr(e.msg, "empty"));
	assert_null(rf_json_parse("{\"a\": [1, 2", 11, &e));
	assert_non_null(strstr(e.msg, "truncated"));
	assert_null(rf_json_parse("<html><body>502</body></html>", 29, &e));
	assert_non_null(strstr(e.msg, "HTML"));
	assert_null(rf_json_parse("[1,2]", 5, &e));
	assert_null(rf_json_parse("{\"a\": nope}", 11, &e));
	assert_int_equal(e.class, WP_E_PROTOCOL);
	/* The telegraf "invalid" fixtures: malformed on purpose. */
	body = NULL;
	{
		FILE *f = fopen(FIXDIR "telegraf-invalid/dell_powerinvalid.json",
		    "r");
		char buf[65536];

		assert_non_null(f);
		len = fread(buf, 1, sizeof(buf) - 1, f);
		buf[len] = '\0';
		fclose(f);
		body = buf;
		{
			struct json_object *o = rf_json_parse(body, len, &e);
			struct rf_readings r;

			rf_readings_init(&r);
			/* either refused as JSON or yields no reading */
			if (o != NULL) {
				assert_true(rf_parse_resource("/x", o, &r, &e)
				    <= 0);
				json_object_put(o);
			}
			rf_readings_fini(&r);
		}
	}
}

static void
test_wrong_types_and_absurd_values(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/e", "{\"@odata.type\":\"#EnvironmentMetrics"
	    ".v1_3_0.EnvironmentMetrics\",\"PowerWatts\":{\"Reading\":\"374\"}}",
	    &r, &e), -1);
	assert_non_null(strstr(e.msg, "not a number"));
	/* an absurd value is left out and counted, never an error for the
	 * resource: the energy counter beside it still counts */
	rf_readings_clear(&r);
	assert_int_equal(parse_text("/e", "{\"@odata.type\":\"#EnvironmentMetrics"
	    ".v1_3_0.EnvironmentMetrics\",\"PowerWatts\":{\"Reading\":-5}}",
	    &r, &e), 0);
	assert_int_equal(r.dropped, 1);
	assert_non_null(strstr(r.dropped_why, "absurd"));
	rf_readings_clear(&r);
	assert_int_equal(parse_text("/e", "{\"@odata.type\":\"#EnvironmentMetrics"
	    ".v1_3_0.EnvironmentMetrics\",\"PowerWatts\":{\"Reading\":1e12},"
	    "\"EnergyJoules\":{\"Reading\":123456}}", &r, &e), 1);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].quantity, WP_Q_ENERGY);
	assert_true(r.v[0].value == 123456);
	assert_int_equal(r.dropped, 1);
	rf_readings_clear(&r);
	/* null reading: no sample, no error */
	assert_int_equal(parse_text("/e", "{\"@odata.type\":\"#EnvironmentMetrics"
	    ".v1_3_0.EnvironmentMetrics\",\"PowerWatts\":{\"Reading\":null}}",
	    &r, &e), 0);
	assert_int_equal(r.n, 0);
	rf_readings_fini(&r);
}

static void
test_energy_units_and_resolution(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	/* Sensor v1_0_0 wrote "kW" for EnergykWh: still kWh. */
	assert_int_equal(parse_text("/s/E", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"Id\":\"E\",\"ReadingType\":\"EnergykWh\",\"ReadingUnits\""
	    ":\"kW\",\"Reading\":46.15,\"SensorResetTime\":"
	    "\"2024-01-01T00:00:00Z\",\"LifetimeReading\":100}", &r, &e), 1);
	assert_true(fabs(r.v[0].value - 46.15 * 3.6e6) < 1e-3);
	assert_true(fabs(r.v[0].resolution - 36000) < 1e-6);
	assert_string_equal(r.v[0].raw_unit, "kWh");
	assert_true(r.v[0].reset_time == 1704067200LL * WP_SEC);
	assert_true(fabs(r.v[0].lifetime - 3.6e8) < 1e-3);
	assert_int_equal(r.v[0].kind, WP_COUNTER);
	/* EnergyJoules excerpt with whole numbers: 1 J steps */
	assert_int_equal(parse_text("/c/EM", "{\"@odata.type\":\"#Environment"
	    "Metrics.v1_3_0.EnvironmentMetrics\",\"EnergyJoules\":{\"Reading\":"
	    "123456,\"DataSourceUri\":\"/c/S/EJ\"}}", &r, &e), 1);
	assert_string_equal(r.v[1].key, "/c/EM#/EnergyJoules");
	assert_string_equal(r.v[1].source, "EnvironmentMetrics.EnergyJoules");
	assert_true(r.v[1].resolution == 1);
	/* Unknown unit for a type is refused, not guessed. */
	assert_int_equal(parse_text("/s/P", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingType\":\"Power\",\"ReadingUnits\":\"BTU\","
	    "\"Reading\":3}", &r, &e), -1);
	rf_readings_fini(&r);
}

static void
test_excerpt_and_cited_sensor_count_once(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	parse_text("/c/EM", "{\"@odata.type\":\"#EnvironmentMetrics.v1_3_0."
	    "EnvironmentMetrics\",\"EnergyJoules\":{\"Reading\":500,"
	    "\"DataSourceUri\":\"/c/S/EJ\"}}", &r, &e);
	parse_text("/c/S/EJ", "{\"@odata.type\":\"#Sensor.v1_2_0.Sensor\","
	    "\"Id\":\"EJ\",\"ReadingType\":\"EnergyJoules\",\"Reading\":501,"
	    "\"SensorResetTime\":\"2025-03-01T00:00:00Z\"}", &r, &e);
	assert_int_equal(r.n, 2);
	rf_readings_merge(&r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.v[0].source, "EnvironmentMetrics.EnergyJoules");
	assert_true(r.v[0].ds_found);
	assert_true(r.v[0].reset_time > 0);
	rf_readings_fini(&r);
}

static void
test_legacy_power_control_average_window(void **st)
{
	struct rf_readings r;
	struct wp_err e;
	char *body;
	size_t len;
	struct json_object *o;

	(void)st;
	rf_readings_init(&r);
	body = fixture_read("dmtf-rackmount1", "/redfish/v1/Chassis/1U/Power",
	    &len);
	assert_non_null(body);
	o = rf_json_parse(body, len, &e);
	assert_non_null(o);
	assert_true(rf_parse_resource("/redfish/v1/Chassis/1U/Power", o, &r,
	    &e) >= 1);
	/* PowerConsumedWatts is the instant's; the PowerMetrics average is
	 * its own reading, over IntervalInMin. */
	assert_string_equal(r.v[0].key, "/redfish/v1/Chassis/1U/Power#/"
	    "PowerControl/0/PowerConsumedWatts");
	assert_true(r.v[0].value == 344);
	assert_true(r.v[0].avg_window == 0);
	assert_false(r.v[0].flags & WP_F_AVERAGED);
	assert_int_equal(r.v[0].role, RF_ROLE_INPUT);
	assert_string_equal(r.v[1].key, "/redfish/v1/Chassis/1U/Power#/"
	    "PowerControl/0/PowerMetrics/AverageConsumedWatts");
	assert_int_equal(r.v[1].src, RF_SRC_PC_AVERAGE);
	assert_true(r.v[1].value == 319);
	assert_true(r.v[1].avg_window == 30 * 60 * WP_SEC);
	assert_true(r.v[1].flags & WP_F_AVERAGED);
	json_object_put(o);
	free(body);
	rf_readings_fini(&r);
}

static void
test_hpe_oem_meter_is_labelled_oem(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/c/1/Power/PowerMeter", "{\"@odata.type\":"
	    "\"#HpePowerMeter.v2_0_0.HpePowerMeter\",\"Average\":221,"
	    "\"SampleTime\":20}", &r, &e), 1);
	assert_true(r.v[0].flags & WP_F_OEM);
	assert_int_equal(r.v[0].src, RF_SRC_OEM);
	rf_readings_fini(&r);
}

/* MetricReport values become readings keyed like the excerpts they name. */
static void
test_metric_report(void **st)
{
	static const char *const rep_uri = "/redfish/v1/TelemetryService/"
	    "MetricReports/R";
	struct rf_readings r;
	const struct rf_reading *x;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text(rep_uri,
	    "{\"@odata.type\": \"#MetricReport.v1_5_0.MetricReport\","
	    "\"MetricValues\": ["
	    "{\"MetricProperty\": \"/redfish/v1/Chassis/G1/EnvironmentMetrics"
	    "#/EnergyJoules\", \"MetricValue\": \"1234.5\","
	    "\"Timestamp\": \"2025-01-01T00:00:00Z\"},"
	    "{\"MetricProperty\": \"/redfish/v1/Chassis/G1/EnvironmentMetrics"
	    "#/PowerWatts/Reading\", \"MetricValue\": 310},"
	    "{\"MetricProperty\": \"/redfish/v1/Chassis/G1/Sensors/T#/Reading"
	    "\", \"MetricValue\": \"41\"},"
	    "{\"MetricProperty\": \"/redfish/v1/Chassis/G2/EnvironmentMetrics"
	    "#/EnergyJoules\", \"MetricValue\": \"\"},"
	    "{\"MetricValue\": \"7\"}, 3]}", &r, &e), 2);
	assert_non_null(x = rf_readings_find(&r, "/redfish/v1/Chassis/G1/"
	    "EnvironmentMetrics#/EnergyJoules"));
	assert_string_equal(x->uri, rep_uri);
	assert_int_equal(x->kind, WP_COUNTER);
	assert_true(x->value == 1234.5 && x->resolution == 0.1);
	assert_true(x->device_time > 0);
	assert_string_equal(x->source, "MetricReport.EnergyJoules");
	assert_non_null(x = rf_readings_find(&r, "/redfish/v1/Chassis/G1/"
	    "EnvironmentMetrics#/PowerWatts"));
	assert_int_equal(x->kind, WP_GAUGE);
	assert_true(x->value == 310);
	rf_readings_fini(&r);

	/* Garbage in a value we read is an error, not a zero. */
	rf_readings_init(&r);
	assert_int_equal(parse_text(rep_uri,
	    "{\"@odata.type\": \"#MetricReport.v1_5_0.MetricReport\","
	    "\"MetricValues\": [{\"MetricProperty\": \"/redfish/v1/Chassis/"
	    "G1/EnvironmentMetrics#/EnergyJoules\", \"MetricValue\": "
	    "\"12abc\"}]}", &r, &e), -1);
	assert_non_null(strstr(e.msg, "not a number"));
	assert_int_equal(parse_text(rep_uri,
	    "{\"@odata.type\": \"#MetricReport.v1_5_0.MetricReport\","
	    "\"MetricValues\": [{\"MetricProperty\": \"/redfish/v1/Chassis/"
	    "G1/EnvironmentMetrics#/PowerWatts\", \"MetricValue\": "
	    "\"-5\"}]}", &r, &e), 0);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(parse_text(rep_uri,
	    "{\"@odata.type\": \"#MetricReport.v1_5_0.MetricReport\","
	    "\"MetricValues\": {}}", &r, &e), -1);
	assert_int_equal(r.n, 0);
	rf_readings_fini(&r);
}


/* Sensors typed by their units, EnergyWh, Absent ones as markers. */
static void
test_sensor_types_units_and_states(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/s/A", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingUnits\":\"W\",\"Reading\":12.5}", &r, &e), 1);
	assert_int_equal(r.v[0].quantity, WP_Q_POWER);
	assert_int_equal(parse_text("/s/B", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingUnits\":\"kW.h\",\"Reading\":2}", &r, &e), 1);
	assert_int_equal(r.v[1].kind, WP_COUNTER);
	assert_true(r.v[1].value == 7.2e6);
	assert_int_equal(parse_text("/s/C", "{\"@odata.type\":\"#Sensor.v1_6_0."
	    "Sensor\",\"ReadingType\":\"EnergyWh\",\"Reading\":10}", &r, &e), 1);
	assert_true(r.v[2].value == 36000);
	assert_string_equal(r.v[2].source, "Sensor.EnergyWh");
	/* a temperature in Cel or a voltage: not power or energy */
	assert_int_equal(parse_text("/s/T", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingUnits\":\"Cel\",\"Reading\":40}", &r, &e), 0);
	assert_int_equal(parse_text("/s/V", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingType\":\"Voltage\",\"ReadingUnits\":\"W\","
	    "\"Reading\":12}", &r, &e), 0);
	/* Absent: a marker with no value; a null reading: nothing */
	assert_int_equal(parse_text("/s/P2", "{\"@odata.type\":\"#Sensor."
	    "v1_0_0.Sensor\",\"ReadingType\":\"Power\",\"Reading\":null,"
	    "\"Status\":{\"State\":\"Absent\"}}", &r, &e), 1);
	assert_true(r.v[3].absent);
	assert_int_equal(parse_text("/s/P3", "{\"@odata.type\":\"#Sensor."
	    "v1_0_0.Sensor\",\"ReadingType\":\"Power\",\"Reading\":null}", &r,
	    &e), 0);
	assert_int_equal(r.n, 4);
	/* a reading time beyond what a wp_time holds is no time (the fuzzer
	 * found it overflowing) */
	assert_int_equal(parse_text("/s/Y", "{\"@odata.type\":\"#Sensor.v1_0_0."
	    "Sensor\",\"ReadingType\":\"Power\",\"Reading\":1,\"ReadingTime\":"
	    "\"7066-01-01T00:00:00Z\"}", &r, &e), 1);
	assert_true(r.v[4].device_time == 0);
	rf_readings_fini(&r);
}

/* An excerpt that disagrees with the Sensor it cites yields to it; one
 * that cites an Absent Sensor is absent. */
static void
test_excerpt_disagreeing_or_citing_absent(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	parse_text("/c/PS1/Metrics", "{\"@odata.type\":\"#PowerSupplyMetrics."
	    "v1_1_0.PowerSupplyMetrics\",\"InputPowerWatts\":{\"Reading\":"
	    "937.4,\"DataSourceUri\":\"/c/S/PS1In\"}}", &r, &e);
	parse_text("/c/PS2/Metrics", "{\"@odata.type\":\"#PowerSupplyMetrics."
	    "v1_1_0.PowerSupplyMetrics\",\"InputPowerWatts\":{\"Reading\":"
	    "487.4,\"DataSourceUri\":\"/c/S/PS2In\"}}", &r, &e);
	parse_text("/c/S/PS1In", "{\"@odata.type\":\"#Sensor.v1_2_0.Sensor\","
	    "\"ReadingType\":\"Power\",\"Reading\":374,\"PhysicalContext\":"
	    "\"PowerSupply\"}", &r, &e);
	parse_text("/c/S/PS2In", "{\"@odata.type\":\"#Sensor.v1_2_0.Sensor\","
	    "\"ReadingType\":\"Power\",\"Reading\":null,\"Status\":{\"State\":"
	    "\"Absent\"}}", &r, &e);
	assert_int_equal(r.n, 4);
	rf_readings_merge(&r);
	assert_int_equal(r.n, 2);
	assert_non_null(rf_readings_find(&r, "/c/S/PS1In"));
	assert_true(rf_readings_find(&r, "/c/S/PS1In")->ds_disagree);
	assert_true(rf_readings_find(&r, "/c/S/PS1In")->ds_value == 937.4);
	assert_int_equal(rf_readings_find(&r, "/c/S/PS1In")->role,
	    RF_ROLE_PSU);
	assert_true(rf_readings_find(&r, "/c/PS2/Metrics#/InputPowerWatts")->
	    absent);
	rf_readings_fini(&r);
}

/* PowerControl members take their role from context and names; absent
 * supplies give nothing. */
static void
test_power_control_roles(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/c/Power", "{\"@odata.type\":\"#Power."
	    "v1_5_0.Power\",\"PowerControl\":[{\"MemberId\":\"0\",\"Name\":"
	    "\"Server Power Control\",\"PowerConsumedWatts\":410},{\"MemberId"
	    "\":\"1\",\"Name\":\"CPU Sub-system Power\",\"PhysicalContext\":"
	    "\"CPUSubsystem\",\"PowerConsumedWatts\":180}],\"PowerSupplies\":"
	    "[{\"MemberId\":\"0\",\"PowerInputWatts\":210},{\"MemberId\":\"1\","
	    "\"PowerInputWatts\":null,\"Status\":{\"State\":\"Absent\"}}]}",
	    &r, &e), 3);
	assert_int_equal(r.v[0].role, RF_ROLE_INPUT);
	assert_int_equal(r.v[1].role, RF_ROLE_COMPONENT);
	assert_int_equal(r.v[2].src, RF_SRC_LEGACY_PSU_IN);
	assert_int_equal(r.v[2].role, RF_ROLE_PSU);
	rf_readings_fini(&r);
}

/* HPE meters: the newest PowerDetail sample (window: the gap to the one
 * before), the 24-hour Average listed only. */
static void
test_hpe_fast_power_meter(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/c/1/Power/FastPowerMeter", "{\"@odata."
	    "type\":\"#HpePowerMeter.v2_0_1.HpePowerMeter\",\"Average\":205,"
	    "\"PowerDetail\":[{\"Average\":219,\"Time\":\"2026-01-05T10:00:00Z"
	    "\"},{\"Average\":223,\"Time\":\"2026-01-05T10:00:20Z\"}]}", &r,
	    &e), 2);
	assert_string_equal(r.v[0].source, "Oem.Hpe.FastPowerMeter");
	assert_true(r.v[0].value == 223);
	assert_true(r.v[0].avg_window == 20 * WP_SEC);
	assert_true(r.v[0].device_time > 0);
	assert_int_equal(r.v[1].src, RF_SRC_OTHER);
	assert_true(r.v[1].avg_window == 24 * 3600 * WP_SEC);
	rf_readings_fini(&r);
}

/* One bad member of an inlined collection does not lose the others. */
static void
test_inlined_member_problem_kept_apart(void **st)
{
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text("/c/S", "{\"@odata.type\":\"#Sensor"
	    "Collection.SensorCollection\",\"Members\":[{\"@odata.id\":\"/c/S/"
	    "a\",\"ReadingType\":\"Power\",\"Reading\":100},{\"@odata.id\":"
	    "\"/c/S/b\",\"ReadingType\":\"Power\",\"ReadingUnits\":\"BTU\","
	    "\"Reading\":3},{\"@odata.id\":\"/c/S/c\",\"ReadingType\":"
	    "\"EnergyJoules\",\"Reading\":5}]}", &r, &e), 2);
	assert_int_equal(r.n_problem, 1);
	assert_non_null(strstr(r.problem, "BTU"));
	assert_int_equal(r.v[0].coll_n, 3);
	rf_readings_fini(&r);
}

/* Dell iDRAC telemetry: SystemInputPower (MetricId, Oem.Dell, no
 * MetricProperty) is the OEM meter, the newest sample counts, an
 * aggregation's Minimum/Maximum is not the reading, an Average's window is
 * its label's; other MetricIds (components) are not read; a member without
 * Oem.Dell is not Dell's meter. */
static void
test_dell_telemetry_system_input_power(void **st)
{
	static const char *const uri = "/redfish/v1/TelemetryService/"
	    "MetricReports/PowerMetrics";
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	assert_int_equal(parse_text(uri, "{\"@odata.type\":\"#MetricReport."
	    "v1_4_2.MetricReport\",\"MetricValues\":["
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"401\","
	    "\"Timestamp\":\"2026-01-05T10:00:00Z\",\"Oem\":{\"Dell\":{\"FQDD\":"
	    "\"PowerMetrics\",\"Label\":\"PowerMetrics SystemInputPower\"}}},"
	    "{\"MetricId\":\"TotalCPUPower\",\"MetricValue\":\"140\","
	    "\"Timestamp\":\"2026-01-05T10:00:05Z\",\"Oem\":{\"Dell\":{}}},"
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"404.5\","
	    "\"Timestamp\":\"2026-01-05T10:00:05Z\",\"Oem\":{\"Dell\":{\"FQDD\":"
	    "\"PowerMetrics\"}}},"
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"399\","
	    "\"Timestamp\":\"2026-01-05T10:00:02Z\",\"Oem\":{\"Dell\":{}}}]}",
	    &r, &e), 1);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.v[0].key, "/redfish/v1/TelemetryService/"
	    "MetricReports/PowerMetrics#/Oem/Dell/SystemInputPower");
	assert_string_equal(r.v[0].source, "Oem.Dell.SystemInputPower");
	assert_int_equal(r.v[0].src, RF_SRC_OEM);
	assert_int_equal(r.v[0].role, RF_ROLE_INPUT);
	assert_true(r.v[0].flags & WP_F_OEM);
	assert_false(r.v[0].flags & WP_F_AVERAGED);
	assert_true(r.v[0].value == 404.5);
	rf_readings_fini(&r);

	rf_readings_init(&r);
	assert_int_equal(parse_text(uri, "{\"@odata.type\":\"#MetricReport."
	    "v1_4_2.MetricReport\",\"MetricValues\":["
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"380\","
	    "\"Oem\":{\"Dell\":{\"Label\":\"PowerMetrics SystemInputPower- "
	    "Minimum (5m0s)\"}}},"
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"420\","
	    "\"Oem\":{\"Dell\":{\"Label\":\"PowerMetrics SystemInputPower- "
	    "Maximum (5m0s)\"}}},"
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"402\","
	    "\"Oem\":{\"Dell\":{\"Label\":\"PowerMetrics SystemInputPower- "
	    "Average (5m0s)\"}}},"
	    "{\"MetricId\":\"SystemInputPower\",\"MetricValue\":\"999\"}]}",
	    &r, &e), 1);
	assert_true(r.v[0].value == 402);
	assert_true(r.v[0].flags & WP_F_AVERAGED);
	assert_true(r.v[0].avg_window == 300 * WP_SEC);
	rf_readings_fini(&r);

	rf_readings_init(&r);
	assert_int_equal(parse_text(uri, "{\"@odata.type\":\"#MetricReport."
	    "v1_4_2.MetricReport\",\"MetricValues\":[{\"MetricId\":"
	    "\"SystemInputPower\",\"MetricValue\":\"n/a\",\"Oem\":{\"Dell\":"
	    "{}}}]}", &r, &e), -1);
	assert_non_null(strstr(e.msg, "SystemInputPower"));
	rf_readings_fini(&r);
}

/* Lenovo XCC history: SystemInputPower's newest Avg sample (window the gap
 * to the Avg before it, time TimestampWithTZ); its Min and Max are not the
 * reading; other containers give nothing. */
static void
test_lenovo_history_system_input_power(void **st)
{
	static const char *const head = "{\"@odata.type\":\"#LenovoHistory"
	    "MetricValueContainer.v1_0_0.LenovoHistoryMetricValueContainer\","
	    "\"Id\":\"%s\",\"ContainerName\":\"%s\",\"Container\":["
	    "{\"MetricType\":\"Max\",\"MetricValue\":261,\"TimestampWithTZ\":"
	    "\"2026-01-05 10:01:00-05:00\"},"
	    "{\"MetricType\":\"Avg\",\"MetricValue\":250,\"TimestampWithTZ\":"
	    "\"2026-01-05 10:00:30-05:00\"},"
	    "{\"MetricType\":\"Avg\",\"MetricValue\":252,\"TimestampWithTZ\":"
	    "\"2026-01-05 10:01:00-05:00\"},"
	    "{\"MetricType\":\"Avg\",\"MetricValue\":247,\"TimestampWithTZ\":"
	    "\"2026-01-05 10:00:00-05:00\"},"
	    "{\"MetricType\":\"Min\",\"MetricValue\":240,\"TimestampWithTZ\":"
	    "\"2026-01-05 10:01:00-05:00\"}]}";
	char body[1024];
	struct rf_readings r;
	struct wp_err e;

	(void)st;
	rf_readings_init(&r);
	snprintf(body, sizeof(body), head, "SystemInputPower",
	    "SystemInputPower");
	assert_int_equal(parse_text("/redfish/v1/Systems/1/Oem/Lenovo/Metrics/"
	    "SystemInputPower", body, &r, &e), 1);
	assert_string_equal(r.v[0].source, "Oem.Lenovo.SystemInputPower");
	assert_int_equal(r.v[0].src, RF_SRC_OEM);
	assert_int_equal(r.v[0].role, RF_ROLE_INPUT);
	assert_true(r.v[0].flags & WP_F_OEM);
	assert_true(r.v[0].value == 252);
	assert_true(r.v[0].avg_window == 30 * WP_SEC);
	assert_true(r.v[0].flags & WP_F_AVERAGED);
	assert_true(r.v[0].device_time > 0);
	rf_readings_fini(&r);

	rf_readings_init(&r);
	snprintf(body, sizeof(body), head, "CPUSubsystemPower",
	    "CPUSubsystemPower");
	assert_int_equal(parse_text("/redfish/v1/Systems/1/Oem/Lenovo/Metrics/"
	    "CPUSubsystemPower", body, &r, &e), 0);
	snprintf(body, sizeof(body), head, "SystemOutputPower",
	    "SystemOutputPower");
	assert_int_equal(parse_text("/redfish/v1/Systems/1/Oem/Lenovo/Metrics/"
	    "SystemOutputPower", body, &r, &e), 0);
	assert_int_equal(r.n, 0);
	rf_readings_fini(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_report),
		cmocka_unit_test(test_bad_bodies_are_refused_clearly),
		cmocka_unit_test(test_wrong_types_and_absurd_values),
		cmocka_unit_test(test_energy_units_and_resolution),
		cmocka_unit_test(test_excerpt_and_cited_sensor_count_once),
		cmocka_unit_test(test_legacy_power_control_average_window),
		cmocka_unit_test(test_hpe_oem_meter_is_labelled_oem),
		cmocka_unit_test(test_sensor_types_units_and_states),
		cmocka_unit_test(test_excerpt_disagreeing_or_citing_absent),
		cmocka_unit_test(test_power_control_roles),
		cmocka_unit_test(test_hpe_fast_power_meter),
		cmocka_unit_test(test_inlined_member_problem_kept_apart),
		cmocka_unit_test(test_dell_telemetry_system_input_power),
		cmocka_unit_test(test_lenovo_history_system_input_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
