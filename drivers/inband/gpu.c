/* gpu.c - GPU readings to samples (see gpu.h). */
#include <stdio.h>
#include <string.h>

#include "../../collector/lib/err.h"
#include "gpu.h"

bool
gpu_is_superchip(const char *model)
{
	static const char *const names[] = { "GH200", "GB200", "GB300",
	    "Grace" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(model, names[i]) != NULL)
			return true;
	return false;
}

/* MIG: "profile:namespace,..." of r's instances into buf ("" none). */
static void
mig_label(const struct gpu_reading *r, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < r->n_mig; i++) {
		n = snprintf(buf + used, len - used, "%s%s:%s", i ? "," : "",
		    r->mig[i].profile, r->mig[i].ns);
		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';	/* what fits, whole instances */
			return;
		}
		used += (size_t)n;
	}
}

/* Labels in order of importance; what does not fit is left out. */
static void
add_labels(struct wp_sample *s, const struct gpu_reading *r,
    const char *source, int field_id)
{
	char field[16], mig[96];

	if (r->uuid[0])
		sample_add_label(s, "uuid", r->uuid);
	if (r->model[0])
		sample_add_label(s, "model", r->model);
	mig_label(r, mig, sizeof(mig));
	if (mig[0])	/* the report splits the GPU by it */
		sample_add_label(s, "mig", mig);
	if (strcmp(source, "dcgm") == 0 && field_id > 0) {
		snprintf(field, sizeof(field), "%d", field_id);
		sample_add_label(s, "dcgm_field", field);
	} else if (strcmp(source, "dcgm") != 0)
		sample_add_label(s, "source", source);
	if (r->collect_s > 0) {	/* before the versions: the bound needs it */
		snprintf(field, sizeof(field), "%g", r->collect_s);
		sample_add_label(s, "collect_interval_s", field);
	}
	if (r->driver[0])
		sample_add_label(s, "driver", r->driver);
	if (r->nvml[0])
		sample_add_label(s, "nvml", r->nvml);
	if (r->cuda[0])
		sample_add_label(s, "cuda", r->cuda);
	if (r->ns[0])
		sample_add_label(s, "namespace", r->ns);
	if (r->pod[0])
		sample_add_label(s, "pod", r->pod);
	if (r->container[0])
		sample_add_label(s, "container", r->container);
}

/* DCGM field ids of what dcgm.c reads (gpu.h documents the sources). */
static int
field_of(const struct gpu_reading *r, const char *what)
{
	if (strcmp(what, "energy") == 0)
		return r->energy_field;
	if (strcmp(what, "power") == 0)
		return 155;
	if (strcmp(what, "util") == 0)
		return 203;
	if (strcmp(what, "sm_clock") == 0)
		return 100;
	return r->limit_field;
}

static int
one(struct wp_sample *s, const struct gpu_reading *r, const char *source,
    const char *what, int b, int q, int k, struct wp_err *err)
{
	char series[WP_SERIES_MAX];

	snprintf(series, sizeof(series), "gpu/%d/%s", r->index, what);
	if (sample_init(s, series, b, q, k) == -1)
		return err_set(err, WP_E_INTERNAL, "bad series %s", series);
	add_labels(s, r, source, field_of(r, what));
	return 0;
}

int
gpu_samples(const struct gpu_reading *r, const char *source,
    struct wp_sample *out, struct wp_err *err)
{
	int b = r->module ? WP_B_MODULE : WP_B_GPU, n = 0;

	if (r->has_energy) {
		if (one(&out[n], r, source, "energy", b, WP_Q_ENERGY,
		    WP_COUNTER, err) == -1)
			return -1;
		out[n].value = r->energy_j;
		out[n].raw_value = r->energy_raw;
		sample_set_unit(&out[n], r->energy_unit);
		out[n].resolution = r->energy_res;
		n++;
	}
	if (r->has_power) {
		if (one(&out[n], r, source, "power", b, WP_Q_POWER, WP_GAUGE,
		    err) == -1)
			return -1;
		out[n].value = r->power_w;
		out[n].raw_value = r->power_raw;
		sample_set_unit(&out[n], r->power_unit);
		n++;
	}
	if (r->has_limit) {
		if (one(&out[n], r, source, "power_limit", WP_B_NONE,
		    WP_Q_OTHER, WP_GAUGE, err) == -1)
			return -1;
		out[n].value = out[n].raw_value = r->limit_w;
		sample_set_unit(&out[n], "W");
		n++;
	}
	if (r->has_util) {
		if (one(&out[n], r, source, "util", WP_B_NONE, WP_Q_OTHER,
		    WP_GAUGE, err) == -1)
			return -1;
		out[n].value = out[n].raw_value = r->util_pct;
		sample_set_unit(&out[n], "%");
		n++;
	}
	if (r->has_clock) {
		if (one(&out[n], r, source, "sm_clock", WP_B_NONE, WP_Q_OTHER,
		    WP_GAUGE, err) == -1)
			return -1;
		out[n].value = out[n].raw_value = r->sm_clock_mhz;
		sample_set_unit(&out[n], "MHz");
		n++;
	}
	return n;
}
