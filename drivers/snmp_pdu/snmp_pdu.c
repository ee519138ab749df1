/* Placeholder until the snmp_pdu driver lands: refuses every target. */
#include "snmp_pdu.h"

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	(void)svc;
	*state = NULL;
	return err_set(err, WP_E_CONFIG, "%s: driver snmp_pdu not built yet",
	    tc->name);
}

const struct wp_driver snmp_pdu_driver = { .name = "snmp_pdu", .target_new = target_new };
