/*
 * sim_snmp.h - the rack PDUs as SNMP v2c agents (net-snmp agent library).
 */
#ifndef SIM_SNMP_H
#define SIM_SNMP_H

#include "sim_srv.h"

struct sim_snmp;

/* Process set-up before any thread starts (environment for net-snmp). */
void		 sim_snmp_preinit(void);
/* Starts serving every PDU; NULL with a message in err. */
struct sim_snmp	*sim_snmp_start(struct sim_srv *s, char *err,
		    unsigned long errlen);	/* caller stops: sim_snmp_stop */
void		 sim_snmp_stop(struct sim_snmp *p);	/* NULL-safe */

#endif
