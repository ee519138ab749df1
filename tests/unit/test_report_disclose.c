/*
 * Unit tests: model/report_disclose.c - the disclosure as data: the wall
 * model's text states the bound constants the model uses (so the two
 * cannot drift), the instruments behind a boundary (at most 64 listed, the
 * rest counted and warned), the distinct device identities (firmware
 * listed as fw, uuid and source only in the entries), the policies.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"
#include "../../model/report_node.h"

#define NS	70

static void
test_wall_model_text_from_constants(void **st)
{
	char buf[512], want[64];

	(void)st;
	report_wall_model_text(buf, sizeof(buf));
	snprintf(want, sizeof(want), "at least %.0f %%", 100 *
	    REPORT_MODEL_MIN_REL);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "bound %d x the class fit's RMS",
	    REPORT_MODEL_RMS_FACTOR);
	assert_non_null(strstr(buf, want));
	/* as the documents have always said it */
	assert_non_null(strstr(buf, "at least 25 % (the fit may extrapolate"));
}

static void
test_instruments_and_devices(void **st)
{
	struct report_series *ser[NS];
	struct report_plan p;
	struct report_sel sel[1];
	struct report_node node = { .name = "n" };
	struct report_input in;
	struct report r;
	const struct report_devices *d;
	const struct report_instrument *e;
	int i;

	(void)st;
	for (i = 0; i < NS; i++) {
		char key[64];

		snprintf(key, sizeof(key), "n%02d/bmc|wall/energy", i);
		ser[i] = rf_result(key, RR_WALL, -1, 0, WP_COUNTER, 1, 0);
		snprintf(ser[i]->labels, sizeof(ser[i]->labels), i % 2 ?
		    "vendor=HPE;firmware=2.0;uuid=u%d" :
		    "vendor=Dell;fw=1.2;source=EnergyJoules;uuid=u%d", i);
	}
	rf_plan(&p, RF_T0, RF_T0 + 600 * WP_SEC, 60 * WP_SEC);
	memset(sel, 0, sizeof(sel));
	in = (struct report_input){ .nodes = &node, .n_nodes = 1,
	    .interval = 10 * WP_SEC, .plan = &p, .ser = ser, .n_ser = NS };
	memset(&r, 0, sizeof(r));
	r.secs = 600;
	r.pue = (struct report_pue){ .value = NAN, .category = "unstated",
	    .source = "none" };
	assert_int_equal(report_disclose_build(&in, sel, &r), 0);
	assert_int_equal(r.disc.ins[REPORT_I_WALL].n, REPORT_DISCLOSE_MAX);
	assert_int_equal(r.disc.ins[REPORT_I_WALL].more, NS -
	    REPORT_DISCLOSE_MAX);
	assert_int_equal(r.warnings.n, 1);
	assert_string_equal(r.warnings.v[0], "disclosure: 6 more instrument "
	    "series not listed");
	e = &r.disc.ins[REPORT_I_WALL].v[1];
	assert_string_equal(e->target, "n01/bmc");
	assert_string_equal(e->series, "wall/energy");
	assert_near(e->interval_s, 10, 0);
	assert_int_equal(e->n_labels, 3);	/* vendor, firmware, uuid */
	assert_string_equal(e->labels[1].key, "firmware");
	/* the BMCs: two vendors, two firmwares under fw, no uuid */
	d = &r.disc.dev[REPORT_I_WALL];
	assert_int_equal(d->n, 2);
	assert_string_equal(d->keys[0].key, "vendor");
	assert_int_equal(d->keys[0].n, 2);
	assert_string_equal(d->keys[1].key, "fw");
	assert_string_equal(d->keys[1].vals[0], "1.2");
	assert_string_equal(d->keys[1].vals[1], "2.0");
	assert_int_equal(r.disc.dev[REPORT_I_GPU].n, 0);
	/* the policies */
	assert_string_equal(r.disc.idle_policy, "gross only (no idle window "
	    "marked)");
	assert_string_equal(r.disc.facility_method, "none");
	assert_string_equal(r.disc.pue_source, "none");
	assert_int_equal(r.disc.n_intervals, 1);
	assert_int_equal(r.disc.run_count, 1);
	assert_non_null(strstr(r.disc.wall_model, "at least 25 %"));
	report_disclose_free(&r.disc);
	report_warnings_fini(&r.warnings);
	for (i = 0; i < NS; i++)
		rf_free(ser[i]);
}

/* The GPU's software as disclosed: the DCGM field read is a field (an old
 * journal's dcgm= label too), never shown as a DCGM version; NVML and
 * CUDA versions where the exporter gives them.  The SLO thresholds and
 * the achieved TTFT/TPOT percentiles of the requests ending in the window
 * (those without a value left out). */
static void
test_gpu_versions_and_slo(void **st)
{
	struct report_series *ser[2];
	struct report_plan p;
	struct report_sel sel[1];
	struct report_node node = { .name = "n" };
	struct report_settings set;
	struct reqlog_entry e[101];
	struct reqlog rq = { .e = e, .n = 101 };
	struct report_input in;
	struct report r;
	const struct report_devices *d;
	size_t i;

	(void)st;
	ser[0] = rf_result("n/gpu|gpu/0/energy", RR_GPU_IB, 0, 0, WP_COUNTER,
	    1, 0);
	snprintf(ser[0]->labels, sizeof(ser[0]->labels), "model=H100;"
	    "dcgm_field=156;driver=550.90.07;nvml=12.550.90.07;cuda=12.4");
	ser[1] = rf_result("m/gpu|gpu/0/energy", RR_GPU_IB, 0, 0, WP_COUNTER,
	    1, 0);
	snprintf(ser[1]->labels, sizeof(ser[1]->labels), "model=H100;"
	    "dcgm=156;driver=550.90.07");
	rf_plan(&p, RF_T0, RF_T0 + 600 * WP_SEC, 60 * WP_SEC);
	report_settings_init(&set);
	set.slo_set = true;
	set.slo_ttft_ms = 500;
	memset(e, 0, sizeof(e));
	for (i = 0; i < 101; i++) {
		e[i].t_end = (double)(RF_T0 / WP_SEC) + 1 + (double)i;
		e[i].ttft = 0.001 * (double)(i + 1) * 10;	/* 10..1010 ms */
		e[i].tpot = i % 2 ? 0.02 : -1;		/* half without */
		e[i].out_tokens = 100;
	}
	e[100].t_end += 3600;				/* after the window */
	memset(sel, 0, sizeof(sel));
	in = (struct report_input){ .nodes = &node, .n_nodes = 1,
	    .interval = 10 * WP_SEC, .plan = &p, .ser = ser, .n_ser = 2,
	    .set = &set, .rq = &rq };
	memset(&r, 0, sizeof(r));
	r.from = p.from;
	r.to = p.to;
	r.secs = 600;
	r.pue = (struct report_pue){ .value = NAN, .category = "unstated",
	    .source = "none", .period_text = "none" };
	assert_int_equal(report_disclose_build(&in, sel, &r), 0);
	d = &r.disc.dev[REPORT_I_GPU];
	for (i = 0; i < d->n; i++) {
		assert_string_not_equal(d->keys[i].key, "dcgm");
		if (strcmp(d->keys[i].key, "dcgm_field") == 0) {
			assert_int_equal(d->keys[i].n, 1);	/* both as one */
			assert_string_equal(d->keys[i].vals[0], "156");
		}
		if (strcmp(d->keys[i].key, "nvml") == 0)
			assert_string_equal(d->keys[i].vals[0], "12.550.90.07");
		if (strcmp(d->keys[i].key, "cuda") == 0)
			assert_string_equal(d->keys[i].vals[0], "12.4");
	}
	assert_int_equal(d->n, 5);	/* model, driver, nvml, cuda, field */
	assert_true(r.disc.slo_set);
	assert_near(r.disc.slo_ttft_ms, 500, 0);
	assert_near(r.disc.slo_tpot_ms, 0, 0);
	assert_int_equal(r.disc.ttft_ms.n, 100);
	assert_near(r.disc.ttft_ms.p50, 510, 1e-9);
	assert_near(r.disc.ttft_ms.p99, 1000, 1e-9);
	assert_int_equal(r.disc.tpot_ms.n, 50);
	assert_near(r.disc.tpot_ms.p90, 20, 1e-9);
	assert_string_equal(r.disc.facility_method, "none");
	report_disclose_free(&r.disc);
	report_warnings_fini(&r.warnings);
	rf_free(ser[0]);
	rf_free(ser[1]);
}

/* The facility boundary's method states the PUE's source and period, the
 * second method's comparison where it was computed, and at category 1
 * the losses wall x PUE leaves out; the old claim of a second method that
 * was never computed is gone. */
static void
test_facility_method(void **st)
{
	struct report_plan p;
	struct report_node node = { .name = "n" };
	struct report_sel sel[1];
	struct report_input in;
	struct report r;

	(void)st;
	rf_plan(&p, RF_T0, RF_T0 + 600 * WP_SEC, 60 * WP_SEC);
	memset(sel, 0, sizeof(sel));
	in = (struct report_input){ .nodes = &node, .n_nodes = 1,
	    .interval = 10 * WP_SEC, .plan = &p };
	memset(&r, 0, sizeof(r));
	r.secs = 600;
	r.pue = (struct report_pue){ .value = 1.3, .source = "metered",
	    .category = "PUE1 (IT energy at the UPS output)",
	    .period_text = "window", .alloc_j = 1.05e6, .primary_j = 1e6,
	    .alloc_rel = 0.05 };
	assert_int_equal(report_disclose_build(&in, sel, &r), 0);
	assert_string_equal(r.disc.pue_period, "window");
	assert_non_null(strstr(r.disc.facility_method, "wall energy x the "
	    "metered PUE (period window); second method, each hour's metered "
	    "facility energy x that hour's IT share (wall / it_total): "
	    "1.05e+06 J, +5.00 % against wall x PUE"));
	assert_non_null(strstr(r.disc.facility_method, "wall x PUE leaves "
	    "out the losses between the UPS output and the server inlets"));
	assert_near(r.disc.facility_alloc_rel, 0.05, 0);
	report_disclose_free(&r.disc);

	memset(&r.disc, 0, sizeof(r.disc));
	r.pue = (struct report_pue){ .value = 1.4, .source = "declared",
	    .category = "PUE2 (IT energy at the PDU output)",
	    .period_text = "2025", .alloc_j = NAN, .primary_j = NAN,
	    .alloc_rel = NAN };
	assert_int_equal(report_disclose_build(&in, sel, &r), 0);
	assert_string_equal(r.disc.facility_method, "wall energy x the "
	    "declared PUE (period 2025); no second method (no metered "
	    "facility energy)");
	assert_string_equal(r.disc.pue_period, "2025");
	report_disclose_free(&r.disc);
	report_warnings_fini(&r.warnings);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_model_text_from_constants),
		cmocka_unit_test(test_instruments_and_devices),
		cmocka_unit_test(test_gpu_versions_and_slo),
		cmocka_unit_test(test_facility_method),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
