/* Unit tests: drivers/inband/dcgm.c and gpu.c - dcgm-exporter to GPU samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/inband/dcgm.h"
#include "inband_fixture.h"

static struct dcgm_result res;

static int
parse_text(const char *t, const char *host, struct wp_err *err)
{
	struct dcgm_opts o = { .hostname = host };

	err_clear(err);
	return dcgm_parse(t, strlen(t), &o, &res, err);
}

static int
parse_file(const char *name, const char *host, struct wp_err *err)
{
	size_t len;
	char *b = fixture(name, &len);
	int rc;

	assert_non_null(b);
	rc = parse_text(b, host, err);
	free(b);
	return rc;
}

static void
test_t4_energy_in_joules_not_millijoules(void **st)
{
	struct wp_err err;
	struct wp_sample s[GPU_SAMPLES_MAX];
	const struct gpu_reading *g;
	char v[64];
	int n;

	(void)st;
	assert_int_equal(parse_file("datadog_dcgm_metrics.txt", "424773df46e0",
	    &err), 0);
	assert_int_equal(res.n, 1);
	g = &res.gpu[0];
	assert_int_equal(g->index, 0);
	assert_string_equal(g->uuid, "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e");
	assert_string_equal(g->model, "Tesla T4");
	assert_string_equal(g->driver, "460.106.00");
	assert_false(g->module);
	/* 128996013 mJ is 128996.013 J: not 128996013 J, not 128.996 J. */
	assert_true(fabs(g->energy_j - 128996.013) < 1e-6);
	assert_true(g->energy_raw == 128996013.0);
	assert_string_equal(g->energy_unit, "mJ");
	assert_true(g->energy_res == 1e-3);
	assert_true(fabs(g->power_w - 8.969) < 1e-9);
	assert_true(g->has_util && g->util_pct == 0);
	assert_false(g->has_limit);	/* the limit row is another host's */
	assert_true(g->has_clock && g->sm_clock_mhz == 300);	/* field 100 */
	n = gpu_samples(g, "dcgm", s, &err);
	assert_int_equal(n, 4);
	assert_string_equal(s[3].series, "gpu/0/sm_clock");
	assert_true(s[3].value == 300 && s[3].kind == WP_GAUGE);
	assert_string_equal(s[0].series, "gpu/0/energy");
	assert_int_equal(s[0].boundary, WP_B_GPU);
	assert_int_equal(s[0].quantity, WP_Q_ENERGY);
	assert_int_equal(s[0].kind, WP_COUNTER);
	assert_true(fabs(s[0].value - 128996.013) < 1e-6);
	assert_string_equal(s[0].raw_unit, "mJ");
	/* the field read, named as a field: not a DCGM version */
	assert_int_equal(sample_get_label(&s[0], "dcgm_field", v, sizeof(v)),
	    0);
	assert_string_equal(v, "156");
	assert_int_equal(sample_get_label(&s[0], "dcgm", v, sizeof(v)), -1);
	assert_int_equal(sample_get_label(&s[0], "model", v, sizeof(v)), 0);
	assert_string_equal(v, "Tesla T4");
	assert_int_equal(sample_get_label(&s[0], "uuid", v, sizeof(v)), 0);
	assert_string_equal(s[1].series, "gpu/0/power");
	assert_int_equal(s[1].kind, WP_GAUGE);
	assert_string_equal(s[2].series, "gpu/0/util");
	assert_int_equal(s[2].quantity, WP_Q_OTHER);
	assert_int_equal(sample_validate(&s[0], &err), 0);
}

/*
 * The unit check that matters: energy advancing over 10 s by what the power
 * gauge says (8.969 W) must give 89.69 J, i.e. the same watts back.
 */
static void
test_energy_delta_matches_power(void **st)
{
	struct wp_err err;
	char body[1024];
	double e1, e2;
	const char *fmt =
	    "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
	    "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} 8.969000\n"
	    "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy "
	    "consumption since boot (in mJ).\n"
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\"} %s\n";

	(void)st;
	snprintf(body, sizeof(body), fmt, "128996013");
	assert_int_equal(parse_text(body, NULL, &err), 0);
	e1 = res.gpu[0].energy_j;
	snprintf(body, sizeof(body), fmt, "129085703");	/* + 89690 mJ */
	assert_int_equal(parse_text(body, NULL, &err), 0);
	e2 = res.gpu[0].energy_j;
	assert_true(fabs((e2 - e1) / 10.0 - res.gpu[0].power_w) < 1e-6);
}

static void
test_rows_from_several_hosts_are_an_error(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_file("datadog_dcgm_metrics.txt", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "2 hosts"));
	assert_non_null(strstr(err.msg, "hostname"));
	/* The other host's limit row, picked by its name. */
	assert_int_equal(parse_file("datadog_dcgm_metrics.txt", "551bdf382151",
	    &err), -1);
	assert_non_null(strstr(err.msg, "no usable"));
}

/* dcgm-exporter with Kubernetes pod mapping: pod, namespace, container
 * of the GPU kept and carried as labels of its series (issue 22); a GPU
 * without them carries none. */
static void
test_pod_labels(void **st)
{
	static const char text[] =
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\","
	    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h\","
	    "container=\"vllm\",namespace=\"search-prod\","
	    "pod=\"llama-70b-0\"} 123456\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"1\",UUID=\"GPU-b\","
	    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h\"} 654321\n";
	struct wp_sample out[GPU_SAMPLES_MAX];
	struct wp_err err;
	int n, i;
	bool seen = false;

	(void)st;
	assert_int_equal(parse_text(text, NULL, &err), 0);
	assert_int_equal(res.n, 2);
	assert_string_equal(res.gpu[0].ns, "search-prod");
	assert_string_equal(res.gpu[0].pod, "llama-70b-0");
	assert_string_equal(res.gpu[0].container, "vllm");
	assert_string_equal(res.gpu[1].ns, "");
	assert_true((n = gpu_samples(&res.gpu[0], "dcgm", out, &err)) > 0);
	for (i = 0; i < n; i++)
		if (strcmp(out[i].series, "gpu/0/energy") == 0) {
			assert_non_null(strstr(out[i].labels,
			    "namespace=search-prod;pod=llama-70b-0;"
			    "container=vllm"));
			seen = true;
		}
	assert_true(seen);
}

static void
test_mig_rows_counted_once(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_file("issue317_a30_mig_excerpt.txt", NULL, &err),
	    0);
	assert_int_equal(res.n, 2);
	assert_int_equal(res.gpu[0].index, 0);
	assert_int_equal(res.gpu[1].index, 1);
	/* Four GPU instances repeat gpu 0's rows: one reading, the latest. */
	assert_true(fabs(res.gpu[0].energy_j - 126272106.318) < 1e-3);
	assert_true(fabs(res.gpu[0].power_w - 52.636) < 1e-9);
	assert_true(fabs(res.gpu[1].energy_j - 134473486.744) < 1e-3);
	assert_true(fabs(res.gpu[1].power_w - 56.121) < 1e-9);
	assert_int_equal(res.folded, 7);
	assert_string_equal(res.gpu[0].model, "NVIDIA A30");
	/* its GPU instances, once each, for the report's MIG split */
	assert_int_equal(res.gpu[0].n_mig, 4);
	assert_int_equal(res.gpu[0].mig[0].id, 3);
	assert_string_equal(res.gpu[0].mig[3].profile, "1g.6gb");
	assert_string_equal(res.gpu[0].mig[0].ns, "");
}

/* MIG instances with their pods' namespaces: the energy series carries
 * them as mig=profile:namespace,... (issue 22). */
static void
test_mig_instances_label(void **st)
{
	static const char text[] =
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\","
	    "modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"3g.40gb\","
	    "GPU_I_ID=\"1\",namespace=\"search\",pod=\"p1\"} 1000\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\","
	    "modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"4g.40gb\","
	    "GPU_I_ID=\"2\",namespace=\"chat\",pod=\"p2\"} 1000\n"
	    "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\","
	    "GPU_I_PROFILE=\"4g.40gb\",GPU_I_ID=\"2\"} 300\n";
	struct wp_sample out[GPU_SAMPLES_MAX];
	struct wp_err err;
	int n, i;
	bool seen = false;

	(void)st;
	assert_int_equal(parse_text(text, NULL, &err), 0);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.gpu[0].n_mig, 2);
	assert_true((n = gpu_samples(&res.gpu[0], "dcgm", out, &err)) > 0);
	for (i = 0; i < n; i++)
		if (strcmp(out[i].series, "gpu/0/energy") == 0) {
			assert_non_null(strstr(out[i].labels,
			    "mig=3g.40gb:search,4g.40gb:chat"));
			seen = true;
		}
	assert_true(seen);
}

static void
test_blank_sentinels_never_readings(void **st)
{
	struct wp_err err;
	struct wp_sample s[GPU_SAMPLES_MAX];

	(void)st;
	assert_int_equal(parse_file("dcgm_blank_synth.txt", NULL, &err), 0);
	assert_int_equal(res.blank, 4);
	/* gpu 0 had only sentinels: no GPU at all. */
	assert_int_equal(res.n, 1);
	assert_int_equal(res.gpu[0].index, 1);
	assert_false(res.gpu[0].has_energy);
	assert_true(res.gpu[0].power_w == 118.5);
	assert_true(res.gpu[0].util_pct == 37);
	assert_int_equal(gpu_samples(&res.gpu[0], "dcgm", s, &err), 2);
	assert_string_equal(s[0].series, "gpu/1/power");
	/* The README scrape: its blank is on a field we do not use. */
	assert_int_equal(parse_file("readme_blank_scrape.txt", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "no usable"));
	/* All sentinels: an error, not zeros. */
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} "
	    "9223372036854775794\n", NULL, &err), -1);
}

static void
test_superchip_is_module(void **st)
{
	struct wp_err err;
	struct wp_sample s[GPU_SAMPLES_MAX];
	int n;

	(void)st;
	assert_int_equal(parse_file("dcgm_gh200_synth.txt", NULL, &err), 0);
	assert_true(res.gpu[0].module);
	assert_true(res.gpu[0].has_limit && res.gpu[0].limit_w == 900);
	n = gpu_samples(&res.gpu[0], "dcgm", s, &err);
	assert_int_equal(n, 4);
	assert_string_equal(s[3].series, "gpu/0/sm_clock");
	assert_int_equal(s[3].boundary, WP_B_NONE);
	assert_int_equal(s[0].boundary, WP_B_MODULE);
	assert_int_equal(s[1].boundary, WP_B_MODULE);
	assert_string_equal(s[2].series, "gpu/0/power_limit");
	assert_int_equal(s[2].boundary, WP_B_NONE);
	assert_true(gpu_is_superchip("NVIDIA GB200"));
	assert_false(gpu_is_superchip("NVIDIA H100 80GB HBM3"));
}

static void
test_rejected_fields(void **st)
{
	struct wp_err err;

	(void)st;
	/* Wrong TYPE. */
	assert_int_equal(parse_text(
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION gauge\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 5000\n", NULL,
	    &err), -1);
	assert_non_null(strstr(err.msg, "wrong TYPE"));
	/* A HELP that says joules for the millijoule field: not rescaled. */
	assert_int_equal(parse_text(
	    "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Energy (in J).\n"
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 5000\n", NULL,
	    &err), -1);
	assert_non_null(strstr(err.msg, "unit"));
	/* Negative and non-finite readings. */
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} -3\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} +Inf\n", NULL,
	    &err), -1);
	assert_int_equal(res.rejected, 2);
	/* Bad gpu label. */
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"x\"} 3\n", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "gpu label"));
	/* Two UUIDs claim gpu 0. */
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\"} 3\n"
	    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-b\"} 4\n", NULL, &err),
	    -1);
	assert_non_null(strstr(err.msg, "is both"));
	/* Garbage. */
	assert_int_equal(parse_text("<html>oops</html>\n", NULL, &err), -1);
	assert_int_equal(err.class, WP_E_PROTOCOL);
	/* Label-less rows are ignored. */
	assert_int_equal(parse_text("DCGM_FI_DEV_POWER_USAGE 3\n", NULL, &err),
	    -1);
	assert_int_equal(res.ignored, 1);
}

static void
test_old_namespace_and_joules_field(void **st)
{
	struct wp_err err;

	(void)st;
	assert_int_equal(parse_text(
	    "# TYPE dcgm_total_energy_consumption counter\n"
	    "dcgm_total_energy_consumption{gpu=\"2\",uuid=\"GPU-c\"} 5000\n"
	    "dcgm_power_usage{gpu=\"2\",uuid=\"GPU-c\"} 71.5\n", NULL, &err), 0);
	assert_int_equal(res.gpu[0].index, 2);
	assert_string_equal(res.gpu[0].uuid, "GPU-c");
	assert_true(res.gpu[0].energy_j == 5.0);
	/* A joule-valued field is used as J, and only without field 156. */
	assert_int_equal(parse_text(
	    "# TYPE DCGM_FI_DEV_ENERGY_JOULES counter\n"
	    "DCGM_FI_DEV_ENERGY_JOULES{gpu=\"0\"} 1234.5\n", NULL, &err), 0);
	assert_true(res.gpu[0].energy_j == 1234.5);
	assert_string_equal(res.gpu[0].energy_unit, "J");
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_ENERGY_JOULES{gpu=\"0\"} 1234.5\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 1234567\n"
	    "DCGM_FI_DEV_ENERGY_JOULES{gpu=\"0\"} 1234.6\n", NULL, &err), 0);
	assert_true(fabs(res.gpu[0].energy_j - 1234.567) < 1e-9);
	assert_int_equal(res.gpu[0].energy_field, 156);
}

/* The versions dcgm-exporter gives as labels (default-counters.csv:
 * DCGM_FI_NVML_VERSION, DCGM_FI_CUDA_DRIVER_VERSION) reach the samples
 * for the disclosure; the CUDA version 12010 reads 12.1. */
static void
test_versions_labelled(void **st)
{
	struct wp_err err;
	struct wp_sample s[4];
	char v[64];

	(void)st;
	assert_int_equal(parse_text(
	    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-9\","
	    "modelName=\"Tesla T4\",DCGM_FI_CUDA_DRIVER_VERSION=\"12010\","
	    "DCGM_FI_DRIVER_VERSION=\"470.182.03\","
	    "DCGM_FI_NVML_VERSION=\"11.470.182.03\"} 5000\n", NULL, &err), 0);
	assert_string_equal(res.gpu[0].nvml, "11.470.182.03");
	assert_string_equal(res.gpu[0].cuda, "12.1");
	assert_int_equal(gpu_samples(&res.gpu[0], "dcgm", s, &err), 1);
	assert_int_equal(sample_get_label(&s[0], "nvml", v, sizeof(v)), 0);
	assert_string_equal(v, "11.470.182.03");
	assert_int_equal(sample_get_label(&s[0], "cuda", v, sizeof(v)), 0);
	assert_string_equal(v, "12.1");
	assert_int_equal(sample_get_label(&s[0], "driver", v, sizeof(v)), 0);
	assert_string_equal(v, "470.182.03");
	assert_int_equal(sample_get_label(&s[0], "collect_interval_s", v,
	    sizeof(v)), -1);
	/* the exporter's collection interval the inband driver sets */
	res.gpu[0].collect_s = 30;
	assert_int_equal(gpu_samples(&res.gpu[0], "dcgm", s, &err), 1);
	assert_int_equal(sample_get_label(&s[0], "collect_interval_s", v,
	    sizeof(v)), 0);
	assert_string_equal(v, "30");
	/* not given, or not a number: no label */
	assert_int_equal(parse_text(
	    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\","
	    "DCGM_FI_CUDA_DRIVER_VERSION=\"x\"} 5000\n", NULL, &err), 0);
	assert_string_equal(res.gpu[0].cuda, "");
	assert_string_equal(res.gpu[0].nvml, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t4_energy_in_joules_not_millijoules),
		cmocka_unit_test(test_energy_delta_matches_power),
		cmocka_unit_test(test_rows_from_several_hosts_are_an_error),
		cmocka_unit_test(test_mig_rows_counted_once),
		cmocka_unit_test(test_mig_instances_label),
		cmocka_unit_test(test_pod_labels),
		cmocka_unit_test(test_blank_sentinels_never_readings),
		cmocka_unit_test(test_superchip_is_module),
		cmocka_unit_test(test_rejected_fields),
		cmocka_unit_test(test_old_namespace_and_joules_field),
		cmocka_unit_test(test_versions_labelled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
