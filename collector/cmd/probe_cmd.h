/*
 * probe.h - `wattpath probe URL`: which driver a URL means, and the
 * printing of a struct wp_probe_result as JSON or a table.
 */
#ifndef WP_PROBE_H
#define WP_PROBE_H

#include <stdio.h>

#include "../lib/driver.h"

/*
 * Driver name for url ("redfish", "inband", "snmp_pdu", "modbus"), honouring
 * protocol ("redfish", "prometheus", "snmp", "modbus") when non-NULL.
 * Returns NULL if nothing fits.
 */
const char	*probe_driver_for(const char *url, const char *protocol);
/* Prints r in the documented probe JSON shape. */
void		 probe_print_json(FILE *f, const char *target,
		    const struct wp_probe_result *r);
void		 probe_print_table(FILE *f, const char *target,
		    const struct wp_probe_result *r);

#endif
