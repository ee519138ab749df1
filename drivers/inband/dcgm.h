/*
 * dcgm.h - dcgm-exporter /metrics text to per-GPU readings.  Pure.
 *
 * Recognised fields, each with the unit its DCGM definition gives (never
 * guessed from the magnitude):
 *   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (156, int64 mJ since driver load)
 *   a DCGM_FI_* field whose name ends in _JOULES or whose OpenMetrics UNIT
 *     is "joules" (J), used only where field 156 is absent
 *   DCGM_FI_DEV_POWER_USAGE / DCGM_FI_DEV_BOARD_POWER_WATTS (155, W)
 *   DCGM_FI_DEV_ENFORCED_POWER_LIMIT / ..._BOARD_POWER_LIMIT_ENFORCED_WATTS
 *     (164, W), else DCGM_FI_DEV_POWER_MGMT_LIMIT (160, W)
 *   DCGM_FI_DEV_GPU_UTIL (203, %)
 *   and the 1.x names (--use-old-namespace) dcgm_total_energy_consumption,
 *   dcgm_power_usage, dcgm_gpu_utilization.
 * A HELP text that states another unit ("(in J)" for field 156) makes the
 * field unusable rather than silently rescaled.
 *
 * Rows are grouped per physical GPU by UUID (else the gpu label).  In MIG
 * mode the device rows repeat once per GPU instance (GPU_I_ID): they are
 * folded (energy: the largest, i.e. latest, reading; others: the first).
 * DCGM blank / not-supported sentinels (int64 >= 0x7ffffffffffffff0,
 * int32 >= 0x7ffffff0, double >= 2^47) are never readings.  Rows from
 * several hosts (Hostname or hostname label) are an error unless a hostname
 * filter picks one.  Rows without a gpu label are ignored.
 */
#ifndef WP_INBAND_DCGM_H
#define WP_INBAND_DCGM_H

#include <stdbool.h>
#include <stddef.h>

#include "../../collector/lib/err.h"
#include "gpu.h"

#define DCGM_MAX_GPUS	64

struct dcgm_opts {
	bool		 openmetrics;	/* body is OpenMetrics text */
	const char	*hostname;	/* keep rows of this host only, or NULL */
};

struct dcgm_result {
	struct gpu_reading gpu[DCGM_MAX_GPUS];	/* ordered by index */
	size_t		 n;
	unsigned	 blank;		/* sentinel values skipped */
	unsigned	 folded;	/* repeated (MIG) rows folded */
	unsigned	 ignored;	/* rows without a gpu label, other hosts */
	unsigned	 rejected;	/* negative, wrong type, unit mismatch */
	char		 note[160];	/* first reason a field was rejected */
};

/*
 * Parses body.  Returns 0 with at least one GPU that has energy or power,
 * or -1 with err (malformed text, several hosts, index clash, nothing
 * usable: err then says why).
 */
int	 dcgm_parse(const char *body, size_t len, const struct dcgm_opts *o,
	    struct dcgm_result *out, struct wp_err *err);

#endif
