/*
 * snmp_lib.h - net-snmp as wattpath sets it up, process-wide: no MIB
 * files, no snmp.conf, no persistent state under ~/.snmp or
 * /var/lib/snmp, quick printing.  The driver and the simulator's agent
 * both call snmp_lib_setup before net-snmp's own init_snmp (or
 * init_agent), on the one thread that uses net-snmp.
 */
#ifndef WP_SNMP_LIB_H
#define WP_SNMP_LIB_H

/* persist_dir: where net-snmp may keep its TLS certificate index (a
 * directory of ours), or NULL. */
void	 snmp_lib_setup(const char *persist_dir);

#endif
