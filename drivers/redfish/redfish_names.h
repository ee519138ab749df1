/*
 * redfish_names.h - what a Redfish reading measures, from its context and
 * its names (pure; no I/O, no state).
 *
 * PhysicalContext and PhysicalSubContext say where a reading sits when the
 * service fills them; the Id and Name say it otherwise ("CPU1Power",
 * "ps1 energy out", "VDD_0V85 Power").  Names are cut into words at every
 * non-alphanumeric character, between a lower and an upper case letter
 * and between letters and digits ("PS1InputPower" -> ps 1 input power),
 * and compared word by word, case-insensitively, never as substrings.
 */
#ifndef WP_REDFISH_NAMES_H
#define WP_REDFISH_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The role (enum rf_role, redfish_parse.h) of a reading from its
 * PhysicalContext ctx, PhysicalSubContext subctx (NULL when absent), Id
 * and Name.  aggregate: the reading is a chassis total by its property
 * (PowerControl), so that a PowerSupply context means "measured at the
 * supplies", not one supply.  In order: an Output sub-context or an output
 * word (out, output, pout, standby, branch, circuit, outlet) is an output;
 * a rail below 12 V in a name (0.85V, 0V9, 3V3, P5V, 1.8V) is a component;
 * a component context
 * (CPU, GPU, Memory, Fan, VoltageRegulator, StorageDevice,
 * NetworkingDevice, Accelerator...) or a component word (cpu, gpu, dimm,
 * memory, fan, bmc, cpld, nic, vr, pump, cooling, drive...) is a
 * component; PowerSupply, PowerSupplyBay and Rectifier contexts (or a
 * psu/rectifier word without a context) are one supply; SystemBoard is the
 * board; Chassis, Rack, ComputeBay, PowerSubsystem, ACInput, no context
 * are an input.  Any other context is a component.
 */
int	 rf_role_of(const char *ctx, const char *subctx, const char *id,
	    const char *name, bool aggregate);
/* Does s name a component (cpu, gpu, cpld...) or a rail below 12 V? */
bool	 rf_names_component(const char *s);
/* Does a chassis Id or Name s stand for a part (a component word, or
 * board, module, card, mezzanine, daughter; and no word of a whole: node,
 * server, system, chassis, enclosure, tray, sled, blade, shelf, rack,
 * host, computer)?  "CPLD_0", "BaseBoard_0", "HGX_Baseboard_0" are parts;
 * "GPU Node Chassis", "System Board" chassis of a whole are not. */
bool	 rf_names_part(const char *s);
/* Does s name a power supply or a rectifier (psu, ps1, rectifier)? */
bool	 rf_names_supply(const char *s);
/* Does s say it is a total (total, sum, all)? */
bool	 rf_names_total(const char *s);
/*
 * The words of s without its numbers and single letters, lower case,
 * joined by ' ' ("Mains Power #1" -> "mains power"); *indexed set when
 * some were left out.  Readings whose stems are equal and indexed are
 * parallel feeds (Mains 1 and 2, inputs A and B).
 */
void	 rf_names_stem(const char *s, char *out, size_t len, bool *indexed);
/* Does s contain word w (case-insensitive, by the rule above)? */
bool	 rf_names_word(const char *s, const char *w);
/*
 * Does s name a quantity that is clearly not power or energy (temp, volt,
 * current, fan, rpm, humidity, frequency...) without any power or energy
 * word (power, pwr, energy, watt, joule, consumption)?  Used to skip
 * fetching such Sensors by their Id.
 */
bool	 rf_names_not_power(const char *s);

#endif
