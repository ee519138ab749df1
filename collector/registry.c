#include <string.h>

#include "../drivers/inband/inband.h"
#include "../drivers/modbus/modbus_meter.h"
#include "../drivers/redfish/redfish.h"
#include "../drivers/snmp_pdu/snmp_pdu.h"
#include "registry.h"

static const struct wp_driver *const drivers[] = {
	&redfish_driver, &snmp_pdu_driver, &modbus_driver, &inband_driver,
};

#define N_DRIVERS	(sizeof(drivers) / sizeof(drivers[0]))

int
registry_init(const struct wp_services *svc, struct wp_err *err)
{
	size_t i, j;

	for (i = 0; i < N_DRIVERS; i++) {
		if (drivers[i]->init == NULL || drivers[i]->init(svc, err) == 0)
			continue;
		err_prefix(err, "driver %s", drivers[i]->name);
		for (j = i; j-- > 0;)
			if (drivers[j]->fini != NULL)
				drivers[j]->fini();
		return -1;
	}
	return 0;
}

void
registry_fini(void)
{
	size_t i;

	for (i = N_DRIVERS; i-- > 0;)
		if (drivers[i]->fini != NULL)
			drivers[i]->fini();
}

const struct wp_driver *
registry_find(const char *name)
{
	size_t i;

	for (i = 0; i < N_DRIVERS; i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}
