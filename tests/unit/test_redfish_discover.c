/* Unit tests: drivers/redfish/redfish_discover.c on real fixture trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/sample.h"
#include "../../drivers/redfish/redfish_model.h"
#include "redfish_walk.h"

static size_t
n_chosen(struct rf_disc *d, int boundary)
{
	const struct rf_found *f;
	size_t i, n, k = 0;

	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++)
		if (f[i].chosen && f[i].boundary == boundary)
			k++;
	return k;
}

static void
test_rackmount1_picks_chassis_energy_sensor(void **st)
{
	const struct rf_series *e, *p;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("dmtf-rackmount1", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	e = plan_series(d, "wall/energy");
	p = plan_series(d, "wall/power");
	assert_non_null(e);
	assert_non_null(p);
	assert_string_equal(e->source, "Sensor.EnergykWh");
	assert_int_equal(e->n_pick, 1);
	assert_string_equal(e->pick[0].key,
	    "/redfish/v1/Chassis/1U/Sensors/TotalEnergy");
	assert_true(e->resolution == 3.6e6);
	/* PSU metrics are incomplete (Bay2 has none): EnvironmentMetrics. */
	assert_string_equal(p->source, "EnvironmentMetrics.PowerWatts");
	assert_int_equal(n_chosen(d, WP_B_WALL), 1);
	rf_disc_free(d);
}

/* The tower mockup's excerpts (EnvironmentMetrics 974 W, each supply
 * 487.4 W) cite Sensors that say 374 W and, for the second supply,
 * Absent: the Sensors are read, so the supplies' sum is incomplete and
 * the chassis total Sensor is the power. */
static void
test_tower_sensor_over_disagreeing_excerpt(void **st)
{
	const struct rf_series *p;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("dmtf-tower", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	p = plan_series(d, "wall/power");
	assert_non_null(p);
	assert_string_equal(p->source, "Sensor.Power");
	assert_int_equal(p->n_pick, 1);
	assert_string_equal(p->pick[0].key,
	    "/redfish/v1/Chassis/Tower/Sensors/TotalPower");
	rf_disc_free(d);
}

static void
test_bladed_blades_share_one_enclosure(void **st)
{
	struct wp_err err;
	struct rf_disc *d;
	const struct rf_found *f;
	size_t n, i, in_wall = 0;
	int rc;

	(void)st;
	/* Four blades point at one enclosure whose legacy Power has only
	 * output watts: no wall source, never four copies of one. */
	d = walk("dmtf-bladed", RF_MODE_PROBE, &rc, &err);
	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++)
		if (f[i].boundary == WP_B_WALL)
			in_wall++;
	assert_int_equal(in_wall, 0);
	assert_int_equal(n, 2);	/* two supplies' LastPowerOutputWatts */
	assert_null(plan_series(d, "wall/power"));
	rf_disc_free(d);
}

static void
test_delta_shelf_energyjoules_not_kwh(void **st)
{
	const struct rf_series *e;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("lambdalabs-powershelf_delta", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	e = plan_series(d, "wall/energy");
	assert_non_null(e);
	/* The J and kWh sensors are different counters: J wins, and only the
	 * supplies' input side is summed. */
	assert_string_equal(e->source, "Sensor.EnergyJoules");
	assert_int_equal(e->n_pick, 6);
	assert_null(strstr(e->pick[0].key, "out"));
	rf_disc_free(d);
}

static void
test_hpe_psu_id_mismatch_followed(void **st)
{
	const struct rf_series *e;
	struct wp_err err;
	struct rf_disc *d;
	const struct rf_plan *p;
	int rc;

	(void)st;
	d = walk("telegraf-hpe-subsys", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	rf_disc_plan(d, &p, &err);
	assert_true(p->dangling >= 1);	/* PowerSupply1/Metrics is 404 */
	e = plan_series(d, "wall/energy");
	assert_non_null(e);
	assert_string_equal(e->pick[0].uri,
	    "/redfish/v1/Chassis/1/PowerSubsystem/PowerSupplies/Bay1/Metrics");
	assert_true(p->select_ok);
	rf_disc_free(d);
}

static void
test_cisco_legacy_and_missing_watts(void **st)
{
	const struct rf_series *p;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("iserver-cisco-ucsc-c220-m5sx", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	p = plan_series(d, "wall/power");
	assert_non_null(p);
	assert_string_equal(p->source, "Power.PowerControl.PowerConsumedWatts");
	assert_null(plan_series(d, "wall/energy"));
	rf_disc_free(d);
	/* UCS X 9508: PowerControl without PowerConsumedWatts, blades' links
	 * dangling: a clear error, no bogus source. */
	d = walk("iserver-cisco-ucsx-9508", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "no power or energy source"));
	rf_disc_free(d);
}

static void
test_pdu_outlets_and_inlet(void **st)
{
	const struct rf_series *s;
	struct wp_err err;
	struct rf_disc *d;
	struct rf_readings polled;
	struct wp_sample smp;
	const struct rf_plan *p;
	int rc;

	(void)st;
	d = walk("dmtf-pdu", RF_MODE_PDU, &rc, &err);
	assert_int_equal(rc, 0);
	rf_disc_plan(d, &p, &err);
	assert_string_equal(p->model, "ZAP4000");
	assert_string_equal(p->firmware, "4.3.0");
	s = plan_series(d, "outlet/1/energy");
	assert_non_null(s);
	assert_string_equal(s->name, "A1");
	assert_int_equal(s->boundary, WP_B_OUTLET);
	assert_non_null(plan_series(d, "inlet/1/power"));
	/* A sample from readings: missing pick -> error, no partial sum. */
	rf_readings_init(&polled);
	assert_int_equal(rf_series_sample(s, &polled, &smp, &err), -1);
	rf_readings_fini(&polled);
	rf_disc_free(d);
}

static void
test_gpu_name_patterns(void **st)
{
	(void)st;
	assert_true(rf_is_gpu_name("HGX_GPU_SXM_3"));
	assert_true(rf_is_gpu_name("GPU_0"));
	assert_true(rf_is_gpu_name("GPU1"));
	assert_false(rf_is_gpu_name("GPU Board"));
	assert_false(rf_is_gpu_name("1U"));
}

/* HGX-style GPU chassis: one gpu/<i> pair each, boundary gpu, never in the
 * wall; the wall is the node chassis alone. */
static void
test_hgx_gpu_chassis(void **st)
{
	const struct rf_series *w, *g;
	const struct rf_plan *plan;
	const struct rf_found *f;
	struct wp_err err;
	struct rf_disc *d;
	char name[32];
	size_t i, n, gpu_chosen = 0;
	int rc;

	(void)st;
	d = walk("synthetic-hgx", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	w = plan_series(d, "wall/energy");
	assert_non_null(w);
	assert_int_equal(w->n_pick, 1);
	assert_string_equal(w->pick[0].key,
	    "/redfish/v1/Chassis/1/EnvironmentMetrics#/EnergyJoules");
	assert_int_equal(w->boundary, WP_B_WALL);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "gpu/%zu/energy", i);
		assert_non_null(g = plan_series(d, name));
		assert_int_equal(g->boundary, WP_B_GPU);
		assert_int_equal(g->kind, WP_COUNTER);
		assert_int_equal(g->n_pick, 1);
		assert_non_null(strstr(g->pick[0].key, "HGX_GPU_SXM_"));
		snprintf(name, sizeof(name), "HGX_GPU_SXM_%zu", i + 1);
		assert_string_equal(g->name, name);
		snprintf(name, sizeof(name), "gpu/%zu/power", i);
		assert_non_null(g = plan_series(d, name));
		assert_int_equal(g->kind, WP_GAUGE);
	}
	assert_null(plan_series(d, "gpu/8/energy"));
	assert_int_equal(rf_disc_plan(d, &plan, &err), 0);
	assert_string_equal(plan->firmware, "syn-1.2.3");
	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++) {
		if (f[i].boundary == WP_B_GPU && f[i].chosen)
			gpu_chosen++;
		if (strstr(f[i].r->uri, "HGX_GPU"))
			assert_int_equal(f[i].boundary, WP_B_GPU);
	}
	assert_int_equal(gpu_chosen, 8);	/* energy, per GPU */
	rf_disc_free(d);
}

/* A TelemetryService report: GPUs 1-4 polled through it (one GET instead
 * of eight), GPUs 5-8 (no EnvironmentMetrics) read from it alone; the
 * node's power in the report is the node chassis' (polled through the
 * report too), never a GPU's. */
static void
test_hgx_telemetry_report(void **st)
{
	static const char *const rep = "/redfish/v1/TelemetryService/"
	    "MetricReports/HGX_PlatformEnvironmentMetrics_0";
	const struct rf_series *g;
	const struct rf_found *f;
	struct wp_err err;
	struct rf_disc *d;
	char name[32];
	size_t i, n, k;
	int rc;

	(void)st;
	d = walk("synthetic-hgx-telemetry", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rc, 0);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "gpu/%zu/energy", i);
		assert_non_null(g = plan_series(d, name));
		assert_int_equal(g->boundary, WP_B_GPU);
		assert_int_equal(g->n_pick, 1);
		assert_string_equal(g->pick[0].uri, rep);
		assert_string_equal(g->source, "MetricReport.EnergyJoules");
		snprintf(name, sizeof(name), "HGX_GPU_SXM_%zu", i + 1);
		assert_string_equal(g->name, name);
		snprintf(name, sizeof(name), "gpu/%zu/power", i);
		assert_non_null(g = plan_series(d, name));
		assert_string_equal(g->pick[0].uri, rep);
	}
	g = plan_series(d, "wall/energy");
	assert_non_null(g);
	assert_string_equal(g->pick[0].uri, "/redfish/v1/Chassis/1/"
	    "EnvironmentMetrics");
	n = rf_disc_found(d, &f);
	for (i = k = 0; i < n; i++) {
		if (strstr(f[i].r->key, "HGX_GPU_SXM_1/EnvironmentMetrics#/"
		    "EnergyJoules"))
			k++;	/* the excerpt and the report's: once */
		if (strcmp(f[i].r->uri, rep) == 0 && strstr(f[i].r->key,
		    "Chassis/1/"))
			assert_int_equal(f[i].boundary, WP_B_WALL);
	}
	assert_int_equal(k, 1);
	rf_disc_free(d);
}

static void
test_identity_labels_sanitised_and_fitted(void **st)
{
	struct rf_plan plan;
	struct wp_sample s;
	char v[WP_LABEL_MAX];
	size_t i;

	(void)st;
	memset(&plan, 0, sizeof(plan));
	snprintf(plan.vendor, sizeof(plan.vendor), "  Contoso;Ltd=1 ");
	snprintf(plan.model, sizeof(plan.model), "3500RX");
	snprintf(plan.firmware, sizeof(plan.firmware), "1.45\n");
	assert_int_equal(sample_init(&s, "wall/energy", WP_B_WALL, WP_Q_ENERGY,
	    WP_COUNTER), 0);
	assert_int_equal(sample_add_label(&s, "source", "Sensor.EnergykWh"), 0);
	rf_identity_labels(&plan, &s);
	assert_string_equal(s.labels, "source=Sensor.EnergykWh;"
	    "vendor=Contoso_Ltd_1;model=3500RX;fw=1.45_");

	/* Long values share the room left; short ones keep theirs. */
	memset(plan.vendor, 'V', sizeof(plan.vendor) - 1);
	memset(plan.model, 'M', sizeof(plan.model) - 1);
	snprintf(plan.firmware, sizeof(plan.firmware), "2.0");
	assert_int_equal(sample_init(&s, "wall/energy", WP_B_WALL, WP_Q_ENERGY,
	    WP_COUNTER), 0);
	memset(v, 'n', 60);
	v[60] = '\0';
	assert_int_equal(sample_add_label(&s, "source", "EnvironmentMetrics."
	    "EnergyJoules"), 0);
	assert_int_equal(sample_add_label(&s, "name", v), 0);
	rf_identity_labels(&plan, &s);
	assert_true(strlen(s.labels) <= WP_LABEL_MAX - 1 &&
	    strlen(s.labels) >= WP_LABEL_MAX - 2);	/* rounding */
	assert_int_equal(sample_get_label(&s, "fw", v, sizeof(v)), 0);
	assert_string_equal(v, "2.0");
	assert_int_equal(sample_get_label(&s, "vendor", v, sizeof(v)), 0);
	for (i = 0; v[i]; i++)
		assert_int_equal(v[i], 'V');
	assert_true(i > 20);
	assert_int_equal(sample_get_label(&s, "model", v, sizeof(v)), 0);
	assert_true(strlen(v) + 1 >= i && strlen(v) <= i + 1);

	/* No room at all: nothing added, nothing broken. */
	memset(s.labels, 'x', WP_LABEL_MAX - 4);
	s.labels[WP_LABEL_MAX - 4] = '\0';
	rf_identity_labels(&plan, &s);
	assert_int_equal(strlen(s.labels), WP_LABEL_MAX - 4);

	/* Empty identity: no label. */
	memset(&plan, 0, sizeof(plan));
	assert_int_equal(sample_init(&s, "gpu/0/power", WP_B_GPU, WP_Q_POWER,
	    WP_GAUGE), 0);
	rf_identity_labels(&plan, &s);
	assert_string_equal(s.labels, "");
}


static bool
has_note(struct rf_disc *d, const char *text)
{
	const char *const *notes;
	size_t i, n = rf_disc_notes(d, &notes);

	for (i = 0; i < n; i++)
		if (strstr(notes[i], text) != NULL)
			return true;
	return false;
}

/* The 805-sensor node: its input, the 791st member, is read however the
 * service answers: with $expand, paged, paged and without $expand, or
 * with an $expand that leaves the bodies out; nothing is left behind. */
static void
test_805_sensors_read_whole(void **st)
{
	static const struct { int page; bool no_expand, hollow; int max; }
	    ways[] = { { 0, false, false, 8 }, { 100, false, false, 16 },
	    { 100, true, false, 830 }, { 0, false, true, 820 },
	    { 250, false, true, 825 } };
	const struct rf_series *p;
	struct wp_err err;
	struct rf_disc *d;
	size_t i;
	int rc;

	(void)st;
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		fx.page = ways[i].page;
		fx.no_expand = ways[i].no_expand;
		fx.hollow_expand = ways[i].hollow;
		d = walk("synthetic-cray-ex255a", RF_MODE_NODE, &rc, &err);
		assert_int_equal(rc, 0);
		assert_non_null(p = plan_series(d, "wall/power"));
		assert_int_equal(p->n_pick, 1);
		assert_string_equal(p->pick[0].key, "/redfish/v1/Chassis/Node0/"
		    "Sensors/Sensor_0790");
		if (rf_disc_requests(d) > ways[i].max)
			fail_msg("way %zu: %d requests", i, rf_disc_requests(d));
		assert_false(has_note(d, "only the first"));
		assert_false(has_note(d, "the walk stopped"));
		rf_disc_free(d);
	}
	fx.page = 0;
	fx.no_expand = fx.hollow_expand = false;
}

/* Two nodes behind one BMC: without system: both inputs are chosen (their
 * sum is the BMC's total, labelled systems=2); with system: one node's. */
static void
test_two_nodes_one_bmc(void **st)
{
	const struct rf_series *e;
	const struct rf_found *f;
	struct wp_err err;
	struct rf_disc *d;
	size_t i, n, chosen = 0;
	int rc;

	(void)st;
	d = walk_system("synthetic-cray-ex235n", RF_MODE_PROBE, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++) {
		if (f[i].chosen) {
			chosen++;
			assert_int_equal(f[i].boundary, WP_B_WALL);
			assert_non_null(strstr(f[i].r->key, "_Energy"));
		}
		if (strstr(f[i].r->key, "CPU0") || strstr(f[i].r->key,
		    "Accelerator"))
			assert_int_equal(f[i].boundary, WP_B_COMPONENT);
	}
	assert_int_equal(chosen, 2);
	e = plan_series(d, "wall/energy");
	assert_string_equal(e->labels, "systems=2");
	rf_disc_free(d);
	d = walk_system("synthetic-cray-ex235n", RF_MODE_PROBE, "Node0", &rc,
	    &err);
	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++)
		if (strstr(f[i].r->key, "Node1_"))
			assert_int_equal(f[i].boundary, WP_B_COMPONENT);
	e = plan_series(d, "wall/energy");
	assert_int_equal(e->n_pick, 1);
	assert_non_null(strstr(e->pick[0].key, "Node0_Energy"));
	assert_string_equal(e->labels, "");
	rf_disc_free(d);
	/* a system the BMC does not have: no wall, and said so */
	d = walk_system("synthetic-cray-ex235n", RF_MODE_NODE, "Node7", &rc,
	    &err);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err.msg, "no system 'Node7'"));
	rf_disc_free(d);
}

/* An enclosure shared by two servers is not one server's wall: the rule
 * is said, and the server's own average is its figure. */
static void
test_enclosure_rule_disclosed(void **st)
{
	const struct rf_series *p;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("synthetic-cisco-s3260-dual", RF_MODE_NODE, &rc, &err);
	assert_non_null(p = plan_series(d, "wall/power"));
	assert_string_equal(p->labels, "systems=2;enclosure=CMC");
	rf_disc_free(d);
	d = walk_system("synthetic-cisco-s3260-dual", RF_MODE_NODE,
	    "WZP2350000", &rc, &err);
	assert_non_null(p = plan_series(d, "wall/power"));
	assert_int_equal(p->kind, WP_GAUGE);
	assert_true(p->flags & WP_F_AVERAGED);
	assert_true(p->avg_window == 60 * WP_SEC);
	assert_non_null(strstr(p->pick[0].key, "Server1/Power#/PowerControl/0/"
	    "PowerMetrics/AverageConsumedWatts"));
	rf_disc_free(d);
}

/* The supplies' sum against a chassis figure: the disagreement noted. */
static void
test_psu_check_noted(void **st)
{
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("synthetic-psu-below", RF_MODE_NODE, &rc, &err);
	assert_true(has_note(d, "EnvironmentMetrics.PowerWatts (700.0 W) is "
	    "more than 10 % below"));
	rf_disc_free(d);
	d = walk("synthetic-powered-off", RF_MODE_NODE, &rc, &err);
	assert_false(has_note(d, "below"));
	rf_disc_free(d);
	d = walk("dmtf-rackmount1", RF_MODE_NODE, &rc, &err);
	assert_true(has_note(d, "PS1InputPower reads 374 W, an excerpt citing "
	    "it 937.4"));
	rf_disc_free(d);
}

/* Identity from the system and its manager, not the first chassis. */
static void
test_identity_from_system_and_manager(void **st)
{
	const struct rf_plan *p;
	struct wp_err err;
	struct rf_disc *d;
	int rc;

	(void)st;
	d = walk("synthetic-dell-r650", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rf_disc_plan(d, &p, &err), 0);
	assert_string_equal(p->vendor, "Dell Inc.");
	assert_string_equal(p->model, "PowerEdge R650");
	assert_string_equal(p->firmware, "5.10.00.00");
	rf_disc_free(d);
	d = walk("synthetic-gb300-cpld", RF_MODE_NODE, &rc, &err);
	assert_int_equal(rf_disc_plan(d, &p, &err), 0);
	assert_string_equal(p->model, "GB300 NVL72 Compute Tray");
	assert_string_equal(p->firmware, "gb300-25.04");
	rf_disc_free(d);
}

/* Walks a tree given as (uri, json) pairs, every other URI a 404. */
static struct rf_disc *
walk_docs(const char *const (*docs)[2], size_t n_docs, int *requests)
{
	struct rf_disc *d = rf_disc_new(RF_MODE_NODE, NULL);
	struct json_object *o;
	struct wp_err err, fe = { 0 };
	const char *uri;
	size_t i;

	*requests = 0;
	while ((uri = rf_disc_next(d)) != NULL && (*requests)++ < 100) {
		for (i = 0; i < n_docs; i++)
			if (strcmp(docs[i][0], uri) == 0)
				break;
		o = i < n_docs ? json_tokener_parse(docs[i][1]) : NULL;
		err_set(&fe, WP_E_PROTOCOL, "HTTP 404");
		assert_int_equal(rf_disc_feed(d, o, &fe, &err), 0);
		json_object_put(o);
	}
	return d;
}

/* Loops in links end; a link to a missing chassis is not fatal. */
static void
test_link_loops_end(void **st)
{
	static const char *const docs[][2] = {
		{ "/redfish/v1/", "{\"Chassis\":{\"@odata.id\":\"/redfish/v1/"
		    "Chassis\"},\"Systems\":{\"@odata.id\":\"/redfish/v1/"
		    "Systems\"}}" },
		{ "/redfish/v1/Chassis", "{\"Members\":[{\"@odata.id\":"
		    "\"/redfish/v1/Chassis/A\"},{\"@odata.id\":\"/redfish/v1/"
		    "Chassis/B\"}],\"Members@odata.nextLink\":"
		    "\"/redfish/v1/Chassis\"}" },
		{ "/redfish/v1/Chassis/A", "{\"Id\":\"A\",\"Links\":{"
		    "\"ContainedBy\":{\"@odata.id\":\"/redfish/v1/Chassis/B\"},"
		    "\"ComputerSystems\":[{\"@odata.id\":\"/redfish/v1/Systems/"
		    "S\"}]},\"Power\":{\"@odata.id\":\"/redfish/v1/Chassis/A/"
		    "Power\"}}" },
		{ "/redfish/v1/Chassis/B", "{\"Id\":\"B\",\"Links\":{"
		    "\"ContainedBy\":{\"@odata.id\":\"/redfish/v1/Chassis/A\"},"
		    "\"PoweredBy\":[{\"@odata.id\":\"/redfish/v1/Chassis/B/"
		    "Power#/PowerSupplies/0\"},{\"@odata.id\":\"/redfish/v1/"
		    "Chassis/Gone\"}]}}" },
		{ "/redfish/v1/Chassis/A/Power", "{\"@odata.type\":\"#Power."
		    "v1_7_0.Power\",\"PowerControl\":[{\"PowerConsumedWatts\":"
		    "321}]}" },
	};
	struct rf_disc *d;
	int n;

	(void)st;
	d = walk_docs(docs, sizeof(docs) / sizeof(docs[0]), &n);
	assert_true(n < 20);
	assert_non_null(plan_series(d, "wall/power"));
	rf_disc_free(d);
}

/* Two top-level chassis of one system list the same supplies' Sensors:
 * counted once, said so. */
static void
test_repeated_chassis_counted_once(void **st)
{
#define SENS(c, s, w) "{\"@odata.type\":\"#Sensor.v1_7_0.Sensor\"," \
    "\"@odata.id\":\"/redfish/v1/Chassis/" c "/Sensors/" s "\",\"Id\":\"" \
    s "\",\"ReadingType\":\"Power\",\"Reading\":" w ",\"PhysicalContext\":" \
    "\"PowerSupply\"}"
#define CHAS(c) "{\"Id\":\"" c "\",\"ChassisType\":\"RackMount\"," \
    "\"Links\":{\"ComputerSystems\":[{\"@odata.id\":\"/redfish/v1/" \
    "Systems/S\"}]},\"Sensors\":{\"@odata.id\":\"/redfish/v1/Chassis/" c \
    "/Sensors\"}}"
#define COLL(c) "{\"@odata.type\":\"#SensorCollection.SensorCollection\"," \
    "\"Members\":[{\"@odata.id\":\"/redfish/v1/Chassis/" c "/Sensors/" \
    "PSU0_Input_Power\"},{\"@odata.id\":\"/redfish/v1/Chassis/" c \
    "/Sensors/PSU1_Input_Power\"}]}"
	static const char *const docs[][2] = {
		{ "/redfish/v1/", "{\"Chassis\":{\"@odata.id\":\"/redfish/v1/"
		    "Chassis\"},\"Systems\":{\"@odata.id\":\"/redfish/v1/"
		    "Systems\"}}" },
		{ "/redfish/v1/Systems", "{\"Members\":[{\"@odata.id\":"
		    "\"/redfish/v1/Systems/S\"}]}" },
		{ "/redfish/v1/Systems/S", "{\"Id\":\"S\",\"PowerState\":"
		    "\"On\"}" },
		{ "/redfish/v1/Chassis", "{\"Members\":[{\"@odata.id\":"
		    "\"/redfish/v1/Chassis/Node\"},{\"@odata.id\":\"/redfish/v1/"
		    "Chassis/WFP_Baseboard\"}]}" },
		{ "/redfish/v1/Chassis/Node", CHAS("Node") },
		{ "/redfish/v1/Chassis/WFP_Baseboard", CHAS("WFP_Baseboard") },
		{ "/redfish/v1/Chassis/Node/Sensors", COLL("Node") },
		{ "/redfish/v1/Chassis/WFP_Baseboard/Sensors",
		    COLL("WFP_Baseboard") },
		{ "/redfish/v1/Chassis/Node/Sensors/PSU0_Input_Power",
		    SENS("Node", "PSU0_Input_Power", "597") },
		{ "/redfish/v1/Chassis/Node/Sensors/PSU1_Input_Power",
		    SENS("Node", "PSU1_Input_Power", "588") },
		{ "/redfish/v1/Chassis/WFP_Baseboard/Sensors/PSU0_Input_Power",
		    SENS("WFP_Baseboard", "PSU0_Input_Power", "597") },
		{ "/redfish/v1/Chassis/WFP_Baseboard/Sensors/PSU1_Input_Power",
		    SENS("WFP_Baseboard", "PSU1_Input_Power", "588") },
	};
	const struct rf_series *p;
	struct rf_disc *d;
	int n;

	(void)st;
	d = walk_docs(docs, sizeof(docs) / sizeof(docs[0]), &n);
	assert_non_null(p = plan_series(d, "wall/power"));
	assert_int_equal(p->n_pick, 2);
	assert_true(has_note(d, "repeats the readings of"));
	rf_disc_free(d);
#undef SENS
#undef CHAS
#undef COLL
}

/* The OEM meter of a tree, or NULL. */
static const struct rf_found *
oem_found(struct rf_disc *d, const char *source)
{
	const struct rf_found *f;
	size_t i, n;

	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++)
		if ((f[i].r->flags & WP_F_OEM) &&
		    strcmp(f[i].r->source, source) == 0)
			return &f[i];
	return NULL;
}

/* Dell's telemetry and Lenovo's system history are outside any chassis:
 * read at the system's own chassis, the figure only without a standard
 * one, a cross-check with it. */
static void
test_oem_meters_placed_and_ranked(void **st)
{
	static const struct {
		const char *tree, *source, *where, *pick;
		bool chosen;
	} c[] = {
		{ "synthetic-dell-idrac-telemetry", "Oem.Dell.SystemInputPower",
		    "System.Embedded.1", NULL, false },
		{ "synthetic-dell-idrac-telemetry-only",
		    "Oem.Dell.SystemInputPower", "System.Embedded.1",
		    "/redfish/v1/TelemetryService/MetricReports/PowerMetrics",
		    true },
		{ "synthetic-lenovo-xcc", "Oem.Lenovo.SystemInputPower",
		    "1", NULL, false },
		{ "synthetic-lenovo-xcc-only", "Oem.Lenovo.SystemInputPower",
		    "1", "/redfish/v1/Systems/1/Oem/Lenovo/Metrics/"
		    "SystemInputPower", true },
	};
	const struct rf_series *p;
	const struct rf_found *f;
	struct wp_err err;
	struct rf_disc *d;
	size_t i;
	int rc;

	(void)st;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		d = walk(c[i].tree, RF_MODE_NODE, &rc, &err);
		assert_int_equal(rc, 0);
		assert_non_null(f = oem_found(d, c[i].source));
		assert_int_equal(f->boundary, WP_B_WALL);
		assert_string_equal(f->where, c[i].where);
		assert_int_equal(f->chosen, c[i].chosen);
		assert_non_null(p = plan_series(d, "wall/power"));
		if (c[i].pick) {
			assert_string_equal(p->source, c[i].source);
			assert_string_equal(p->pick[0].uri, c[i].pick);
		} else {
			assert_string_equal(p->source,
			    "Power.PowerControl.PowerConsumedWatts");
			assert_string_equal(f->why, "cross-check");
		}
		rf_disc_free(d);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rackmount1_picks_chassis_energy_sensor),
		cmocka_unit_test(test_tower_sensor_over_disagreeing_excerpt),
		cmocka_unit_test(test_bladed_blades_share_one_enclosure),
		cmocka_unit_test(test_delta_shelf_energyjoules_not_kwh),
		cmocka_unit_test(test_hpe_psu_id_mismatch_followed),
		cmocka_unit_test(test_cisco_legacy_and_missing_watts),
		cmocka_unit_test(test_pdu_outlets_and_inlet),
		cmocka_unit_test(test_gpu_name_patterns),
		cmocka_unit_test(test_identity_labels_sanitised_and_fitted),
		cmocka_unit_test(test_hgx_gpu_chassis),
		cmocka_unit_test(test_hgx_telemetry_report),
		cmocka_unit_test(test_805_sensors_read_whole),
		cmocka_unit_test(test_two_nodes_one_bmc),
		cmocka_unit_test(test_enclosure_rule_disclosed),
		cmocka_unit_test(test_psu_check_noted),
		cmocka_unit_test(test_identity_from_system_and_manager),
		cmocka_unit_test(test_link_loops_end),
		cmocka_unit_test(test_repeated_chassis_counted_once),
		cmocka_unit_test(test_oem_meters_placed_and_ranked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
