/*
 * snmp_pdu.h - the snmp_pdu driver (see collector/driver.h for the contract).
 *
 * Per-outlet and inlet power and energy from rack PDUs over SNMP v2c/v3 with
 * net-snmp's single-session asynchronous API on the core loop: one session
 * per PDU, its socket on loop_add_fd, net-snmp's retransmissions on a loop
 * timer (no thread per PDU, no CLI tools).  First poll: sysObjectID (for
 * `profile: auto`), GETBULK walks of the profile's columns (rows, names,
 * decimal digits), then each poll GETs only the power/energy columns of the
 * rows found (chunks of the profile's max_get).  Tables are walked again
 * every REDISCOVER_POLLS polls, or at once when a row vanishes.
 * Vendor knowledge lives in etc/pdu-profiles (pdu_profile.h); decoding in
 * pdu_decode.h.  Series: outlet/<n>/{power,energy} (boundary outlet) and
 * inlet/<i>/{power,energy} (boundary pdu) per docs/series.md.
 */
#ifndef WP_SNMP_PDU_H
#define WP_SNMP_PDU_H

#include "../../collector/lib/driver.h"

extern const struct wp_driver snmp_pdu_driver;

#endif
