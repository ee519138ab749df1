/*
 * inband.h - the inband driver (see collector/driver.h for the contract).
 */
#ifndef WP_INBAND_H
#define WP_INBAND_H

#include "../../collector/lib/driver.h"

extern const struct wp_driver inband_driver;

#endif
