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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_model_text_from_constants),
		cmocka_unit_test(test_instruments_and_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
