/*
 * nvml.h - optional local GPU source for a node-agent mode: NVML loaded at
 * run time with dlopen("libnvidia-ml.so.1"), so wattpath has no build or
 * package dependency on the NVIDIA driver.
 *
 * Per GPU: nvmlDeviceGetTotalEnergyConsumption (mJ since the driver was
 * loaded; Volta+), nvmlDeviceGetPowerUsage (mW), nvmlDeviceGetEnforcedPowerLimit
 * (mW), utilisation, name and UUID; the driver version.  Values are turned
 * into SI in a struct gpu_reading (gpu.h).  A call NVML answers with "not
 * supported" leaves that reading out.  Calls block (typically well under a
 * millisecond per GPU); the driver makes them on the loop thread.
 */
#ifndef WP_INBAND_NVML_H
#define WP_INBAND_NVML_H

#include <stddef.h>

#include "../../collector/lib/err.h"
#include "gpu.h"

struct nvml;

/*
 * Loads the library (NULL: "libnvidia-ml.so.1") and calls nvmlInit_v2.
 * Returns a handle (caller frees with nvml_close), or NULL with a clear
 * message in err ("NVML not available: ...").
 */
struct nvml	*nvml_open(const char *lib, struct wp_err *err);
/* Reads up to max GPUs into out; *n gets the count.  0 or -1 with err. */
int		 nvml_read(struct nvml *h, struct gpu_reading *out, size_t max,
		    size_t *n, struct wp_err *err);
/* nvmlShutdown and dlclose.  NULL-safe. */
void		 nvml_close(struct nvml *h);

#endif
