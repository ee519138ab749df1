/*
 * report_sites_json.h - the document of a report over several sites
 * (docs/report.md, "Several sites"): the window, by_site (per site its
 * name, zone, boundaries' energies and bounds, tokens, PUE with its
 * energies, and the site's whole report document), the fleet total
 * (model/report_sites.h) and the warnings.
 */
#ifndef WP_REPORT_SITES_JSON_H
#define WP_REPORT_SITES_JSON_H

#include <json-c/json.h>

#include "../../model/report_sites.h"

/* zones: each site's site.zone (or NULL), in s's order.  Caller frees
 * with json_object_put; NULL out of memory. */
json_object	*report_sites_json_doc(const struct report_sites *s,
		    const char *const *zones);

#endif
