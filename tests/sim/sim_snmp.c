/*
 * sim_snmp.c - the rack PDUs over SNMP (in progress).
 */
#include <stdio.h>

#include "sim_snmp.h"

struct sim_snmp *
sim_snmp_start(struct sim_srv *s, char *err, unsigned long errlen)
{
	(void)s;
	snprintf(err, errlen, "SNMP PDUs are not served yet; use --no-snmp");
	return NULL;
}

void
sim_snmp_stop(struct sim_snmp *p)
{
	(void)p;
}
