/*
 * redfish_probe.h - `wattpath probe https://bmc`: what a Redfish service
 * offers.  Walks the whole service (discovery in probe mode) with blocking
 * fetches on svc->http, lists every distinct power/energy reading with its
 * boundary and the one the collector would use marked chosen, logs out the
 * session it opened.  Succeeds when at least one source was found.
 */
#ifndef WP_REDFISH_PROBE_H
#define WP_REDFISH_PROBE_H

#include "../../collector/lib/driver.h"

int	 redfish_probe(const struct wp_probe_req *req,
	    const struct wp_services *svc, struct wp_probe_result *out,
	    struct wp_err *err);

#endif
