/*
 * snmp_pdu.h - the snmp_pdu driver (see collector/driver.h for the contract).
 */
#ifndef WP_SNMP_PDU_H
#define WP_SNMP_PDU_H

#include "../../collector/driver.h"

extern const struct wp_driver snmp_pdu_driver;

#endif
