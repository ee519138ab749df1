/* Placeholder until the redfish driver lands: refuses every target. */
#include "redfish.h"

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	(void)svc;
	*state = NULL;
	return err_set(err, WP_E_CONFIG, "%s: driver redfish not built yet",
	    tc->name);
}

const struct wp_driver redfish_driver = { .name = "redfish", .target_new = target_new };
