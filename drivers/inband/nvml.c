/* nvml.c - NVML through dlopen (see nvml.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml.h"

/* The few NVML types we need, as nvml.h declares them. */
typedef int nvml_ret;
typedef struct nvml_dev_st *nvml_dev;
struct nvml_util {
	unsigned int	 gpu;
	unsigned int	 memory;
};

#define NVML_SUCCESS		0
#define NVML_CLOCK_SM		1	/* nvmlClockType_t */
#define NVML_NAME_LEN		96
#define NVML_UUID_LEN		96

struct nvml {
	void		*dl;
	nvml_ret	(*init)(void);
	nvml_ret	(*shutdown)(void);
	const char	*(*error_string)(nvml_ret);
	nvml_ret	(*count)(unsigned int *);
	nvml_ret	(*handle)(unsigned int, nvml_dev *);
	nvml_ret	(*energy)(nvml_dev, unsigned long long *);
	nvml_ret	(*power)(nvml_dev, unsigned int *);
	nvml_ret	(*limit)(nvml_dev, unsigned int *);
	nvml_ret	(*util)(nvml_dev, struct nvml_util *);
	nvml_ret	(*name)(nvml_dev, char *, unsigned int);
	nvml_ret	(*uuid)(nvml_dev, char *, unsigned int);
	nvml_ret	(*driver)(char *, unsigned int);
	nvml_ret	(*version)(char *, unsigned int);	/* optional */
	nvml_ret	(*cuda)(int *);			/* optional */
	nvml_ret	(*clock)(nvml_dev, int, unsigned int *);	/* optional */
};

static const char *
nv_err(const struct nvml *h, nvml_ret r)
{
	const char *s = h->error_string ? h->error_string(r) : NULL;

	return s ? s : "unknown NVML error";
}

/* Resolves sym into *fp; fails naming it. */
static int
sym(struct nvml *h, const char *name, void *fp, struct wp_err *err)
{
	void *p = dlsym(h->dl, name);

	if (p == NULL)
		return err_set(err, WP_E_CONFIG, "NVML library lacks %s", name);
	memcpy(fp, &p, sizeof(p));
	return 0;
}

static int
resolve(struct nvml *h, struct wp_err *err)
{
	if (sym(h, "nvmlInit_v2", &h->init, err) == -1 ||
	    sym(h, "nvmlShutdown", &h->shutdown, err) == -1 ||
	    sym(h, "nvmlErrorString", &h->error_string, err) == -1 ||
	    sym(h, "nvmlDeviceGetCount_v2", &h->count, err) == -1 ||
	    sym(h, "nvmlDeviceGetHandleByIndex_v2", &h->handle, err) == -1 ||
	    sym(h, "nvmlDeviceGetTotalEnergyConsumption", &h->energy,
	    err) == -1 ||
	    sym(h, "nvmlDeviceGetPowerUsage", &h->power, err) == -1 ||
	    sym(h, "nvmlDeviceGetEnforcedPowerLimit", &h->limit, err) == -1 ||
	    sym(h, "nvmlDeviceGetUtilizationRates", &h->util, err) == -1 ||
	    sym(h, "nvmlDeviceGetName", &h->name, err) == -1 ||
	    sym(h, "nvmlDeviceGetUUID", &h->uuid, err) == -1 ||
	    sym(h, "nvmlSystemGetDriverVersion", &h->driver, err) == -1)
		return -1;
	/* versions for the disclosure; older libraries may lack them */
	if (sym(h, "nvmlSystemGetNVMLVersion", &h->version, NULL) == -1)
		h->version = NULL;
	if (sym(h, "nvmlSystemGetCudaDriverVersion", &h->cuda, NULL) == -1)
		h->cuda = NULL;
	if (sym(h, "nvmlDeviceGetClockInfo", &h->clock, NULL) == -1)
		h->clock = NULL;
	return 0;
}

struct nvml *
nvml_open(const char *lib, struct wp_err *err)
{
	struct nvml *h;
	const char *why;
	nvml_ret r;

	if ((h = calloc(1, sizeof(*h))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if ((h->dl = dlopen(lib ? lib : "libnvidia-ml.so.1",
	    RTLD_NOW | RTLD_LOCAL)) == NULL) {
		why = dlerror();
		err_set(err, WP_E_CONFIG, "NVML not available (no NVIDIA "
		    "driver on this machine?): %.160s", why ? why : "dlopen");
		free(h);
		return NULL;
	}
	if (resolve(h, err) == -1) {
		err_prefix(err, "NVML not usable");
		nvml_close(h);
		return NULL;
	}
	if ((r = h->init()) != NVML_SUCCESS) {
		err_set(err, WP_E_TRANSIENT, "nvmlInit_v2: %s", nv_err(h, r));
		h->shutdown = NULL;	/* nothing to shut down */
		nvml_close(h);
		return NULL;
	}
	return h;
}

void
nvml_close(struct nvml *h)
{
	if (h == NULL)
		return;
	if (h->shutdown != NULL && h->init != NULL)
		h->shutdown();
	if (h->dl != NULL)
		dlclose(h->dl);
	free(h);
}

/* The system's NVML and CUDA driver versions into g (left empty when the
 * library does not give them). */
static void
read_versions(struct nvml *h, struct gpu_reading *g)
{
	char buf[NVML_NAME_LEN];
	int c;

	if (h->version != NULL && h->version(buf, sizeof(buf)) ==
	    NVML_SUCCESS)
		snprintf(g->nvml, sizeof(g->nvml), "%s", buf);
	if (h->cuda != NULL && h->cuda(&c) == NVML_SUCCESS && c > 0)
		snprintf(g->cuda, sizeof(g->cuda), "%d.%d", c / 1000,
		    c % 1000 / 10);
}

static void
read_one(struct nvml *h, nvml_dev d, unsigned int i, const char *drv,
    struct gpu_reading *g)
{
	unsigned long long mj;
	unsigned int mw, mhz;
	struct nvml_util u;
	char buf[NVML_NAME_LEN];

	memset(g, 0, sizeof(*g));
	g->index = (int)i;
	g->rows = 1;
	snprintf(g->driver, sizeof(g->driver), "%s", drv);
	read_versions(h, g);
	if (h->name(d, buf, sizeof(buf)) == NVML_SUCCESS)
		snprintf(g->model, sizeof(g->model), "%s", buf);
	if (h->uuid(d, buf, sizeof(buf)) == NVML_SUCCESS)
		snprintf(g->uuid, sizeof(g->uuid), "%s", buf);
	g->module = gpu_is_superchip(g->model);
	if (h->energy(d, &mj) == NVML_SUCCESS) {
		g->has_energy = true;
		g->energy_raw = (double)mj;
		g->energy_j = (double)mj * 1e-3;
		g->energy_res = 1e-3;
		snprintf(g->energy_unit, sizeof(g->energy_unit), "mJ");
	}
	if (h->power(d, &mw) == NVML_SUCCESS) {
		g->has_power = true;
		g->power_raw = mw;
		g->power_w = mw * 1e-3;
		snprintf(g->power_unit, sizeof(g->power_unit), "mW");
	}
	if (h->limit(d, &mw) == NVML_SUCCESS) {
		g->has_limit = true;
		g->limit_w = mw * 1e-3;
	}
	if (h->util(d, &u) == NVML_SUCCESS && u.gpu <= 100) {
		g->has_util = true;
		g->util_pct = u.gpu;
	}
	if (h->clock != NULL && h->clock(d, NVML_CLOCK_SM, &mhz) ==
	    NVML_SUCCESS) {
		g->has_clock = true;
		g->sm_clock_mhz = mhz;
	}
}

int
nvml_read(struct nvml *h, struct gpu_reading *out, size_t max, size_t *n,
    struct wp_err *err)
{
	unsigned int count, i;
	nvml_dev d;
	nvml_ret r;
	char drv[80] = "";

	*n = 0;
	if ((r = h->count(&count)) != NVML_SUCCESS)
		return err_set(err, WP_E_TRANSIENT, "nvmlDeviceGetCount_v2: %s",
		    nv_err(h, r));
	if (h->driver(drv, sizeof(drv)) != NVML_SUCCESS)
		drv[0] = '\0';
	for (i = 0; i < count && *n < max; i++) {
		if ((r = h->handle(i, &d)) != NVML_SUCCESS)
			return err_set(err, WP_E_TRANSIENT, "GPU %u: %s", i,
			    nv_err(h, r));
		read_one(h, d, i, drv, &out[(*n)++]);
	}
	return 0;
}
