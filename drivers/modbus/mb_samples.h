/*
 * mb_samples.h - registers read by a plan -> struct wp_sample, per
 * docs/series.md: "energy" (facility counter, J) from the map's
 * total_energy_import, "power" (facility gauge, W) from total_power, and
 * "v/<name>" for the other values (energy and power units on the facility
 * boundary in SI, anything else boundary none, quantity other, in the map's
 * unit).  Pure: no I/O, no state.
 */
#ifndef WP_MB_SAMPLES_H
#define WP_MB_SAMPLES_H

#include <stdint.h>

#include "../../collector/lib/sample.h"
#include "regmap.h"

struct mb_info {
	char	 role[16];	/* facility_total, it_total, cooling, other */
	char	 category[16];	/* it_measured_at, or "" */
	char	 map[64];	/* map stem */
};

/*
 * Decodes every value of m from regs (laid out as plan p was read; status
 * holds each read's Modbus exception code or 0) into out[] (room for m->n)
 * and idx[] (the value index of each sample).  Returns the number of
 * samples, or -1 with err when the total energy or the total power is
 * unusable (exception, NaN, not available, outside its sanity bounds):
 * then the poll has no trustworthy reading.  Other values that fail are
 * left out.
 */
int	 mb_samples_build(const struct regmap *m, const struct mb_info *info,
	    const struct rm_plan *p, const uint16_t *regs, const int *status,
	    struct wp_sample *out, int *idx, struct wp_err *err);

/* "total_power fc3:0x0BF3 f32 ABCD" - a value and where it lives. */
void	 mb_value_path(const struct regmap *m, int i, char *buf, size_t len);

#endif
