/*
 * registry.h - the static table of drivers, by name.
 */
#ifndef WP_REGISTRY_H
#define WP_REGISTRY_H

#include "lib/driver.h"

/* Returns the driver called name ("redfish", "snmp_pdu", "modbus",
 * "inband"), or NULL. */
const struct wp_driver *registry_find(const char *name);

#endif
