/*
 * fuzz_redfish.c - libFuzzer harness for the Redfish decoders and the
 * discovery walker.
 *
 * The input is split at NUL bytes into documents.  Each is parsed
 * (rf_json_parse) and decoded as the resource at a URI picked by its first
 * byte (rf_parse_resource); then a walk (node, PDU or probe mode, by the
 * first document's first byte) is fed the documents in turn as the
 * answers to its requests, an unparsable one as a failed fetch, and
 * planned, compacted and polled once from the parsed readings.  Built and
 * run by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../drivers/redfish/redfish_discover.h"
#include "../../drivers/redfish/redfish_parse.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DOCS	64

static const char *const uris[] = { "/redfish/v1/Chassis/1/Sensors/S",
	"/redfish/v1/Chassis/1/EnvironmentMetrics", "/redfish/v1/Chassis/1/Power",
	"/redfish/v1/Chassis/1/Power/FastPowerMeter",
	"/redfish/v1/TelemetryService/MetricReports/R",
	"/redfish/v1/Chassis/1/Sensors" };

static void
poll_once(const struct rf_plan *plan, const struct rf_readings *polled)
{
	struct rf_plan *p = rf_plan_compact(plan);
	struct wp_sample s;
	struct wp_err err;
	size_t i;

	for (i = 0; p != NULL && i < p->n_series; i++)
		if (rf_series_sample(&p->series[i], polled, &s, &err) == 0)
			rf_identity_labels(p, &s);
	rf_plan_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *doc[MAX_DOCS];
	struct rf_readings polled;
	const struct rf_plan *plan;
	const struct rf_found *f;
	struct rf_disc *d;
	struct wp_err err, fe;
	size_t n = 0, i, start = 0, k = 0;
	int mode;

	for (i = 0; i <= size && n < MAX_DOCS; i++)
		if (i == size || data[i] == 0) {
			doc[n++] = rf_json_parse((const char *)data + start,
			    i - start, &err);
			start = i + 1;
		}
	rf_readings_init(&polled);
	for (i = 0; i < n; i++)
		if (doc[i] != NULL)
			(void)rf_parse_resource(uris[(size > 0 ? data[0] : 0) %
			    (sizeof(uris) / sizeof(uris[0]))], doc[i], &polled,
			    &err);
	rf_readings_merge(&polled);
	mode = size > 0 ? data[0] % 3 : 0;
	d = rf_disc_new(mode, size > 1 && data[1] & 1 ? "Node0" : NULL);
	while (d != NULL && rf_disc_next(d) != NULL && k < 4 * MAX_DOCS) {
		err_set(&fe, WP_E_PROTOCOL, "fuzz: no document");
		if (rf_disc_feed(d, n ? doc[k % n] : NULL, &fe, &err) < 0)
			break;
		k++;
	}
	if (d != NULL && rf_disc_plan(d, &plan, &err) == 0) {
		(void)rf_disc_found(d, &f);
		poll_once(plan, &polled);
	}
	rf_disc_free(d);
	rf_readings_fini(&polled);
	for (i = 0; i < n; i++)
		json_object_put(doc[i]);
	return 0;
}
