/*
 * registry.h - the static table of drivers, by name, and their module
 * lifecycle.
 */
#ifndef WP_REGISTRY_H
#define WP_REGISTRY_H

#include "lib/driver.h"

/* Runs every driver's module init (once, before any target or probe):
 * 0, or -1 with err (the drivers initialised so far are finished). */
int	 registry_init(const struct wp_services *svc, struct wp_err *err);
/* Runs every driver's module fini, last initialised first. */
void	 registry_fini(void);

/* Returns the driver called name ("redfish", "snmp_pdu", "modbus",
 * "inband"), or NULL. */
const struct wp_driver *registry_find(const char *name);

#endif
