#include <string.h>

#include "../drivers/inband/inband.h"
#include "../drivers/modbus/modbus_meter.h"
#include "../drivers/redfish/redfish.h"
#include "../drivers/snmp_pdu/snmp_pdu.h"
#include "registry.h"

static const struct wp_driver *const drivers[] = {
	&redfish_driver, &snmp_pdu_driver, &modbus_driver, &inband_driver,
};

const struct wp_driver *
registry_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}
