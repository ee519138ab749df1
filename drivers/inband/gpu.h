/*
 * gpu.h - one GPU's readings, whatever the source (dcgm-exporter, NVML),
 * and their conversion to samples (docs/series.md: gpu/<i>/energy, power,
 * power_limit, util).  Pure.
 *
 * Values are already in SI (J, W) and percent; the raw value and unit are
 * kept for the journal.  On a superchip (GH200, GB200...) the "GPU" energy
 * and power cover the whole module, so the boundary becomes module.
 */
#ifndef WP_INBAND_GPU_H
#define WP_INBAND_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/sample.h"

#define GPU_MIG_MAX	8	/* GPU instances kept per GPU */

struct gpu_reading {
	int	 index;		/* as the source numbers it (gpu label) */
	char	 uuid[64];
	char	 model[64];
	char	 driver[32];
	char	 nvml[32];	/* NVML version, where the source gives it */
	char	 cuda[16];	/* CUDA driver version "12.4", likewise */
	char	 hostname[64];
	double	 collect_s;	/* the source's own refresh interval, 0 none */
	/* dcgm-exporter with Kubernetes pod mapping: the pod holding it */
	char	 pod[64], ns[64], container[64];
	/* MIG: its GPU instances (GPU_I_ID, GPU_I_PROFILE and the namespace
	 * of each instance's pod, "" none), in the order first seen */
	struct gpu_mig {
		int	 id;
		char	 profile[16];
		char	 ns[64];
	} mig[GPU_MIG_MAX];
	unsigned n_mig;
	bool	 module;	/* superchip: covers CPU + GPU */
	bool	 has_energy, has_power, has_limit, has_util, has_clock;
	double	 energy_j;	/* counter since driver load */
	double	 energy_raw;
	char	 energy_unit[8];	/* "mJ" (field 156, NVML) or "J" */
	double	 energy_res;	/* one step in J */
	int	 energy_field;	/* DCGM field id, 0 if none */
	double	 power_w;
	double	 power_raw;
	char	 power_unit[8];	/* "W" (DCGM) or "mW" (NVML) */
	double	 limit_w;	/* enforced power limit */
	int	 limit_field;	/* DCGM field id (164 enforced, 160), 0 */
	double	 util_pct;
	double	 sm_clock_mhz;	/* SM clock */
	unsigned rows;		/* source rows folded into this GPU (MIG) */
	int	 prio[5];	/* dcgm.c: priority of the field that set each */
};

#define GPU_SAMPLES_MAX	5

/* True for Grace superchips (GH200, GB200, GB300) by model name. */
bool	 gpu_is_superchip(const char *model);

/*
 * Fills out[] (room for GPU_SAMPLES_MAX) with r's samples; source is
 * "dcgm" or "nvml" (a label).  Returns the number filled, or -1 with err.
 */
int	 gpu_samples(const struct gpu_reading *r, const char *source,
	    struct wp_sample *out, struct wp_err *err);

#endif
