/*
 * conf_report.h - the schema of the report: and site: blocks and of the
 * meters' zone: key, read at load into the typed structs the model
 * defines (model/report_input.h), so that check-config reports their
 * errors as FILE:LINE: message like the rest of the config:
 *   report: slo {ttft_ms, tpot_ms}, replicas [{name, nodes: [...]}],
 *           idle {from, to}, pue {value >= 1, category},
 *           curve_tolerance, curve_step, run_gap, attribution,
 *           clock_tolerance
 *   site:   name, zone, grid {intensity_csv, basis, yearly_average_g_per_kwh,
 *           gas, cfe_csv}, market {instruments_csv, instruments [{id, type, market,
 *           mwh, vintage_start, vintage_end, factor, cancelled_for, site,
 *           hour, gas}], holder, supplier_factor, supplier_gas,
 *           residual_mix {factor, source, year, gas},
 *           period_consumption_mwh},
 *           tariff {price, price_csv, currency}
 * Keys and meaning: docs/config.md, docs/report.md.
 */
#ifndef WP_CONF_REPORT_H
#define WP_CONF_REPORT_H

struct diag;
struct wp_conf;
struct ynode;

/*
 * Fills c->report, c->site and each meter's zone from the report and site
 * mappings (either may be NULL: the defaults) and the meters' blocks; every
 * problem goes to d.  Strings are borrowed from the YAML tree; arrays are
 * freed by conf_report_free.
 */
void	 conf_report_load(struct wp_conf *c, const struct ynode *report,
	    const struct ynode *site, struct diag *d);
void	 conf_report_free(struct wp_conf *c);

#endif
