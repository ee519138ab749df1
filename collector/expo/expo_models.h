/*
 * expo_models.h - /metrics per model and per tenant (bounded labels),
 * from the attribution counters of expo_attr.h (fl->attr, or a state
 * that has seen only fl):
 * wattpath_model_energy_joules_total{model,boundary} (gpu, wall, outlet,
 * facility), "unallocated" for what no model's engine held;
 * wattpath_model_tokens_total{model,direction="output"};
 * wattpath_tenant_energy_joules_total{tenant,boundary} and
 * wattpath_tenant_tokens_total{tenant,direction="output"} by the tenants:
 * map (present when it is set);
 * wattpath_attribution_facility_unpriced_joules_total: wall energy whose
 * facility share no one got, for want of a PUE at the time;
 * wattpath_attribution_rule_info{rule}.  Each series has the site label
 * when site.name is set.  At most EXPO_ATTR_MAX model label values; the
 * rest as "other".
 */
#ifndef WP_EXPO_MODELS_H
#define WP_EXPO_MODELS_H

#include <stdio.h>

#include "expo_fleet.h"

/* The families, from fl->attr and fl's nodes; pue the facility's now (NAN
 * none).  0, or -1 out of memory (nothing written). */
int	 expo_models_write(FILE *f, const struct fleet *fl, double pue);

#endif
