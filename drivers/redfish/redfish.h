/*
 * redfish.h - the redfish driver (see collector/driver.h for the contract).
 */
#ifndef WP_REDFISH_H
#define WP_REDFISH_H

#include "../../collector/lib/driver.h"

extern const struct wp_driver redfish_driver;

#endif
