/*
 * url.h - an http(s) URL as the config gives one (BMCs, Redfish PDUs,
 * dcgm-exporter and engine endpoints).
 */
#ifndef WP_URL_H
#define WP_URL_H

#include <stdbool.h>

#include "err.h"

/*
 * Checks url: http:// or https://, no white space or control characters,
 * no user or password (credentials come from credentials:), a host and an
 * optional port in 1..65535.  0 with *tls set, or -1 with the reason in
 * err (WP_E_CONFIG; it names the URL, as "URL '...' ...").
 */
int	 url_check(const char *url, bool *tls, struct wp_err *err);

#endif
