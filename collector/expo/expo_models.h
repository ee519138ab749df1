/*
 * expo_models.h - /metrics per model and per tenant (bounded labels):
 * wattpath_model_gpu_energy_joules_total{model}: each in-band GPU's
 * reset-corrected energy to the model whose engine holds it
 * (engines[].gpus; a node whose engines serve one model and give no gpus:
 * all its GPUs), a GPU no engine holds to "unallocated";
 * wattpath_model_tokens_total{model,direction="output"};
 * wattpath_tenant_gpu_energy_joules_total{tenant} by the tenants: map (a
 * GPU's namespace label, else its engine's model, else its node).  The
 * GPU boundary only: the outer boundaries' split is a window's
 * (wattpath report, docs/report.md "Per model"), not a counter.  At most
 * EXPO_MODELS_MAX model label values; the rest as "other".
 */
#ifndef WP_EXPO_MODELS_H
#define WP_EXPO_MODELS_H

#include <stdio.h>

#include "expo_fleet.h"

#define EXPO_MODELS_MAX	64

/* The families, from fl's nodes and fl->conf.  0, or -1 out of memory
 * (nothing written). */
int	 expo_models_write(FILE *f, const struct fleet *fl);

#endif
