/*
 * modbus_meter.h - the modbus driver (see collector/driver.h for the contract).
 */
#ifndef WP_MODBUS_METER_H
#define WP_MODBUS_METER_H

#include "../../collector/driver.h"

extern const struct wp_driver modbus_driver;

#endif
