/*
 * conf_drift.h - the drift: block (issue 23), read into the model's
 * struct drift_settings (model/drift.h) so that check-config reports its
 * errors as FILE:LINE: message:
 *   drift: window (default for every pair, 10 s..1 d; calibrate
 *          takes at least 1 min), learn (windows,
 *          1..64), persist (windows, >= 1),
 *          windows {wall_outlet, pdu_inlet, it_inlets, gpu_bmc: duration},
 *          accuracy {bmc, outlet, inlet, meter, gpu: fraction 0..0.5}
 * Keys and meaning: docs/drift.md.
 */
#ifndef WP_CONF_DRIFT_H
#define WP_CONF_DRIFT_H

struct diag;
struct drift_settings;
struct ynode;

/* Fills s from the drift mapping m (NULL: the defaults); problems to d. */
void	 conf_drift_load(struct drift_settings *s, const struct ynode *m,
	    struct diag *d);

#endif
