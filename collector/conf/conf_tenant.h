/*
 * conf_tenant.h - the tenants: block (top level), read at load into
 * c->report.tenants (model/report_input.h) so that check-config reports
 * its errors at their lines:
 *   tenants: [{name, models: [..], namespaces: [..], nodes: [..]}]
 * Each name once; a model, namespace or node in at most one tenant; a node
 * must be in the inventory.  Meaning: docs/config.md, docs/report.md.
 */
#ifndef WP_CONF_TENANT_H
#define WP_CONF_TENANT_H

struct diag;
struct wp_conf;
struct ynode;

/* Fills c->report.tenants from seq (NULL: none); problems to d.  Strings
 * are borrowed from the YAML tree; 0, or -1 out of memory. */
int	 conf_tenants_load(struct wp_conf *c, const struct ynode *seq,
	    struct diag *d);
void	 conf_tenants_free(struct wp_conf *c);

#endif
