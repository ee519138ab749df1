/* dcgm.c - dcgm-exporter metrics to GPU readings (see dcgm.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcgm.h"
#include "promtext.h"

enum { F_ENERGY, F_POWER, F_LIMIT, F_UTIL, F_CLOCK };
enum { D_INT64, D_INT32, D_FP64 };

struct field {
	const char	*name;
	int		 id;
	int		 what;
	int		 dtype;
	const char	*unit;		/* as DCGM defines the field */
	double		 scale;		/* unit -> SI */
	double		 res;		/* one step, SI; 0 unknown */
	int		 prio;		/* lower wins */
};

static const struct field fields[] = {
	{ "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 156, F_ENERGY, D_INT64, "mJ",
	    1e-3, 1e-3, 0 },
	{ "dcgm_total_energy_consumption", 156, F_ENERGY, D_INT64, "mJ", 1e-3,
	    1e-3, 0 },
	{ "DCGM_FI_DEV_POWER_USAGE", 155, F_POWER, D_FP64, "W", 1, 0, 0 },
	{ "DCGM_FI_DEV_BOARD_POWER_WATTS", 155, F_POWER, D_FP64, "W", 1, 0, 0 },
	{ "dcgm_power_usage", 155, F_POWER, D_FP64, "W", 1, 0, 0 },
	{ "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", 164, F_LIMIT, D_FP64, "W", 1, 0,
	    0 },
	{ "DCGM_FI_DEV_BOARD_POWER_LIMIT_ENFORCED_WATTS", 164, F_LIMIT, D_FP64,
	    "W", 1, 0, 0 },
	{ "DCGM_FI_DEV_POWER_MGMT_LIMIT", 160, F_LIMIT, D_FP64, "W", 1, 0, 1 },
	{ "DCGM_FI_DEV_BOARD_POWER_LIMIT_REQUESTED_WATTS", 160, F_LIMIT, D_FP64,
	    "W", 1, 0, 1 },
	{ "DCGM_FI_DEV_GPU_UTIL", 203, F_UTIL, D_INT32, "%", 1, 0, 0 },
	{ "dcgm_gpu_utilization", 203, F_UTIL, D_INT32, "%", 1, 0, 0 },
	{ "DCGM_FI_DEV_SM_CLOCK", 100, F_CLOCK, D_INT32, "MHz", 1, 0, 0 },
	{ "dcgm_sm_clock", 100, F_CLOCK, D_INT32, "MHz", 1, 0, 0 },
};

/* A joule-valued energy field, recognised by name or OpenMetrics unit. */
static const struct field joules_field = {
	NULL, 0, F_ENERGY, D_FP64, "J", 1, 0, 1
};

struct ctx {
	const struct dcgm_opts *o;
	struct dcgm_result *r;
	char	 hosts[2][64];		/* first two distinct hosts seen */
	unsigned n_hosts;
};

static bool
ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

static const struct field *
field_find(const struct prom_sample *s)
{
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(s->name, fields[i].name) == 0)
			return &fields[i];
	if (strncmp(s->name, "DCGM_FI_", 8) == 0 &&
	    (ends_with(s->name, "_JOULES") || strcmp(s->unit, "joules") == 0))
		return &joules_field;
	return NULL;
}

/* DCGM's blank / not-found / not-supported / no-permission values. */
static bool
is_blank(const struct field *f, double v)
{
	switch (f->dtype) {
	case D_INT64:
		return v >= 9223372036854775792.0;	/* 0x7ffffffffffffff0 */
	case D_INT32:
		return v >= 2147483632.0;		/* 0x7ffffff0 */
	default:
		return v >= 140737488355328.0;		/* 2^47 */
	}
}

static void
reject(struct ctx *c, const struct prom_sample *s, const char *why)
{
	c->r->rejected++;
	if (c->r->note[0] == '\0')
		snprintf(c->r->note, sizeof(c->r->note), "line %lu: %.64s %s",
		    s->line, s->name, why);
}

/* The unit a HELP text states, "(in mJ)" -> "mJ"; NULL if none. */
static int
help_unit(const char *help, char *buf, size_t len)
{
	const char *p = strstr(help, "(in "), *e;

	if (p == NULL || (e = strchr(p + 4, ')')) == NULL ||
	    (size_t)(e - p - 4) >= len)
		return -1;
	snprintf(buf, len, "%.*s", (int)(e - p - 4), p + 4);
	return 0;
}

static bool
type_ok(const struct field *f, const struct prom_sample *s)
{
	if (s->suffix != PROM_S_NONE && s->suffix != PROM_S_TOTAL)
		return false;
	if (s->type == PROM_UNTYPED)
		return true;
	if (f->what == F_ENERGY)
		return s->type == PROM_COUNTER;
	return s->type == PROM_GAUGE;
}

/* Host filter; returns false when the row belongs to another host. */
static bool
host_ok(struct ctx *c, const char *host)
{
	unsigned i;

	if (host == NULL || *host == '\0')
		return true;
	if (c->o->hostname != NULL)
		return strcmp(host, c->o->hostname) == 0;
	for (i = 0; i < c->n_hosts && i < 2; i++)
		if (strcmp(c->hosts[i], host) == 0)
			return true;
	if (c->n_hosts < 2)
		snprintf(c->hosts[c->n_hosts], sizeof(c->hosts[0]), "%s", host);
	c->n_hosts++;
	return true;
}

static const char *
label2(const struct prom_sample *s, const char *a, const char *b)
{
	const char *v = prom_label(s, a);

	return v != NULL ? v : prom_label(s, b);
}

/* DCGM's CUDA driver version (1000 x major + 10 x minor: "12040") as
 * "12.4"; empty when absent or not a number. */
static void
cuda_version(const char *v, char *buf, size_t len)
{
	char *end;
	long n = v != NULL ? strtol(v, &end, 10) : 0;

	buf[0] = '\0';
	if (v != NULL && *v != '\0' && *end == '\0' && n > 0 && n < 1000000)
		snprintf(buf, len, "%ld.%ld", n / 1000, n % 1000 / 10);
}

/* Finds or adds the GPU of a row; NULL with err on a clash or overflow. */
static struct gpu_reading *
gpu_slot(struct ctx *c, const struct prom_sample *s, long idx,
    struct wp_err *err)
{
	struct dcgm_result *r = c->r;
	const char *uuid = label2(s, "UUID", "uuid"), *v;
	struct gpu_reading *g;
	size_t i;

	for (i = 0; i < r->n; i++) {
		g = &r->gpu[i];
		if (g->index != idx)
			continue;
		if (uuid != NULL && g->uuid[0] && strcmp(uuid, g->uuid) != 0) {
			err_set(err, WP_E_PROTOCOL, "line %lu: gpu %ld is both "
			    "%.48s and %.48s", s->line, idx, g->uuid, uuid);
			return NULL;
		}
		return g;
	}
	if (r->n >= DCGM_MAX_GPUS) {
		err_set(err, WP_E_PROTOCOL, "more than %d GPUs", DCGM_MAX_GPUS);
		return NULL;
	}
	g = &r->gpu[r->n++];
	memset(g, 0, sizeof(*g));
	g->index = (int)idx;
	for (i = 0; i < (int)(sizeof(g->prio) / sizeof(g->prio[0])); i++)
		g->prio[i] = 1000;
	snprintf(g->uuid, sizeof(g->uuid), "%s", uuid ? uuid : "");
	v = label2(s, "modelName", "model_name");
	snprintf(g->model, sizeof(g->model), "%s", v ? v : "");
	g->module = gpu_is_superchip(g->model);
	v = prom_label(s, "DCGM_FI_DRIVER_VERSION");
	snprintf(g->driver, sizeof(g->driver), "%s", v ? v : "");
	v = prom_label(s, "DCGM_FI_NVML_VERSION");
	snprintf(g->nvml, sizeof(g->nvml), "%s", v ? v : "");
	cuda_version(prom_label(s, "DCGM_FI_CUDA_DRIVER_VERSION"), g->cuda,
	    sizeof(g->cuda));
	v = label2(s, "Hostname", "hostname");
	snprintf(g->hostname, sizeof(g->hostname), "%s", v ? v : "");
	return g;
}

static void
store(struct gpu_reading *g, const struct field *f, double v)
{
	double si = v * f->scale;

	switch (f->what) {
	case F_ENERGY:
		if (g->has_energy && g->prio[F_ENERGY] == f->prio &&
		    si <= g->energy_j)
			return;		/* MIG repeat: keep the latest */
		g->has_energy = true;
		g->energy_j = si;
		g->energy_raw = v;
		snprintf(g->energy_unit, sizeof(g->energy_unit), "%s", f->unit);
		g->energy_res = f->res;
		g->energy_field = f->id;
		break;
	case F_POWER:
		g->has_power = true;
		g->power_w = si;
		g->power_raw = v;
		snprintf(g->power_unit, sizeof(g->power_unit), "%s", f->unit);
		break;
	case F_LIMIT:
		g->has_limit = true;
		g->limit_w = si;
		g->limit_field = f->id;
		break;
	case F_UTIL:
		g->has_util = true;
		g->util_pct = si;
		break;
	default:
		g->has_clock = true;
		g->sm_clock_mhz = si;
		break;
	}
	g->prio[f->what] = f->prio;
}

static int
check_value(struct ctx *c, const struct field *f, const struct prom_sample *s)
{
	char unit[16];

	if (!type_ok(f, s)) {
		reject(c, s, "has the wrong TYPE");
		return -1;
	}
	if (s->help[0] && help_unit(s->help, unit, sizeof(unit)) == 0 &&
	    strcmp(unit, f->unit) != 0) {
		reject(c, s, "HELP states another unit than the field's");
		return -1;
	}
	if (!isfinite(s->value)) {
		reject(c, s, "is not a finite number");
		return -1;
	}
	if (is_blank(f, s->value)) {
		c->r->blank++;
		return -1;
	}
	if (s->value < 0 ||
	    (f->what == F_UTIL && s->value > 100)) {
		reject(c, s, "value out of range");
		return -1;
	}
	return 0;
}

/* Kubernetes pod mapping (pod, namespace, container): the first row's
 * that has them (a label value with ';' or '=' is left out). */
static void
pod_labels(struct gpu_reading *g, const struct prom_sample *s)
{
	static const char *const k[3] = { "pod", "namespace", "container" };
	char *dst[3] = { g->pod, g->ns, g->container };
	const char *v;
	int i;

	if (g->pod[0] || g->ns[0])
		return;
	for (i = 0; i < 3; i++)
		if ((v = prom_label(s, k[i])) != NULL && *v != '\0' &&
		    strpbrk(v, ";=") == NULL)
			snprintf(dst[i], sizeof(g->pod), "%s", v);
}

/* MIG: the row's GPU instance (GPU_I_ID, GPU_I_PROFILE) and its pod's
 * namespace, kept once per instance (a profile or namespace with ',', ':'
 * or ';' is left out). */
static void
mig_instance(struct gpu_reading *g, const struct prom_sample *s)
{
	const char *id = prom_label(s, "GPU_I_ID");
	const char *prof = prom_label(s, "GPU_I_PROFILE");
	const char *ns = prom_label(s, "namespace");
	struct gpu_mig *m;
	char *end;
	long n;
	unsigned i;

	if (id == NULL || prof == NULL || *prof == '\0' ||
	    strpbrk(prof, ",:;=") != NULL)
		return;
	n = strtol(id, &end, 10);
	if (*id == '\0' || *end != '\0' || n < 0 || n > 1000)
		return;
	for (i = 0; i < g->n_mig; i++)
		if (g->mig[i].id == (int)n) {
			m = &g->mig[i];
			if (!m->ns[0] && ns != NULL && strpbrk(ns, ",:;=") == NULL)
				snprintf(m->ns, sizeof(m->ns), "%s", ns);
			return;
		}
	if (g->n_mig >= GPU_MIG_MAX)
		return;
	m = &g->mig[g->n_mig++];
	m->id = (int)n;
	snprintf(m->profile, sizeof(m->profile), "%s", prof);
	snprintf(m->ns, sizeof(m->ns), "%s", ns != NULL &&
	    strpbrk(ns, ",:;=") == NULL ? ns : "");
}

static int
on_sample(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	struct ctx *c = arg;
	const struct field *f;
	struct gpu_reading *g;
	const char *idx = prom_label(s, "gpu");
	char *end;
	long i;

	if ((f = field_find(s)) == NULL)
		return 0;
	if (idx == NULL || !host_ok(c, label2(s, "Hostname", "hostname"))) {
		c->r->ignored++;
		return 0;
	}
	if (c->n_hosts > 1) {
		c->r->ignored++;	/* reported once the parse ends */
		return 0;
	}
	i = strtol(idx, &end, 10);
	if (*idx == '\0' || *end != '\0' || i < 0 || i > 1023) {
		reject(c, s, "has a bad gpu label");
		return 0;
	}
	if (check_value(c, f, s) == -1)
		return 0;
	if ((g = gpu_slot(c, s, i, err)) == NULL)
		return -1;
	pod_labels(g, s);
	mig_instance(g, s);
	if (f->prio > g->prio[f->what])
		return 0;
	if (f->prio == g->prio[f->what] && f->what != F_ENERGY) {
		c->r->folded++;		/* MIG repeat: keep the first */
		return 0;
	}
	if (f->prio == g->prio[f->what])
		c->r->folded++;
	g->rows++;
	store(g, f, s->value);
	return 0;
}

static int
cmp_gpu(const void *a, const void *b)
{
	const struct gpu_reading *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int
dcgm_parse(const char *body, size_t len, const struct dcgm_opts *o,
    struct dcgm_result *out, struct wp_err *err)
{
	static const struct dcgm_opts none;
	struct prom_opts po = { 0 };
	struct ctx c = { 0 };
	size_t i;
	bool any = false;

	c.o = o ? o : &none;
	c.r = out;
	memset(out, 0, sizeof(*out));
	po.openmetrics = c.o->openmetrics;
	if (prom_parse(body, len, &po, on_sample, &c, err) == -1)
		return -1;
	if (c.n_hosts > 1)
		return err_set(err, WP_E_PROTOCOL, "rows from %u hosts (%.48s, "
		    "%.48s...): set hostname to pick one", c.n_hosts,
		    c.hosts[0], c.hosts[1]);
	qsort(out->gpu, out->n, sizeof(out->gpu[0]), cmp_gpu);
	for (i = 0; i < out->n; i++)
		any |= out->gpu[i].has_energy || out->gpu[i].has_power;
	if (!any)
		return err_set(err, WP_E_PROTOCOL, "no usable GPU energy or "
		    "power%s%s", out->note[0] ? ": " : "", out->note);
	return 0;
}
