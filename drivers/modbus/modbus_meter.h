/*
 * modbus_meter.h - the modbus driver: facility energy meters over Modbus TCP
 * or RTU (libmodbus), described by register maps (regmap.h).
 *
 * Config block (a meters[] entry): {name, role, modbus: {tcp: host:port |
 * rtu: {device, baud, parity: N|E|O, data_bits, stop_bits}, unit: N,
 * timeout: 1s}, map: stem, it_measured_at: ups_output|pdu_output|it_input}.
 *
 * libmodbus blocks, so each poll is one job on the core's worker pool,
 * keyed by the gateway ("tcp:host:port") or the serial device ("rtu:/dev/..")
 * so that meters sharing a line or gateway are serialised.  A TCP
 * connection is kept per meter and reopened with backoff; an RTU line is
 * opened for each poll.  A reply that fails its integrity checks (late
 * reply with a stale transaction id, CRC error) closes the connection and
 * the read is retried once on a fresh one.  A timeout ends the poll at once
 * so that a dead unit does not hold the line for the other meters.
 *
 * Samples (docs/series.md): "energy" (facility counter, J) from the map's
 * total_energy_import, "power" (facility gauge, W) from total_power, and
 * "v/<name>" for every other value; each carries its resolution and the
 * labels role=, meter=<map>, category= (it_measured_at).
 */
#ifndef WP_MODBUS_METER_H
#define WP_MODBUS_METER_H

#include "../../collector/lib/driver.h"

extern const struct wp_driver modbus_driver;

#endif
