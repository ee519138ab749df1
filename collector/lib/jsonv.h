/*
 * jsonv.h - json-c values as wattpath's documents write them: a number
 * that is not finite and a NULL string are JSON null (a NULL value, which
 * json_object_object_add stores as null); a time is ISO-8601 UTC
 * (clock_iso8601).  Each returns a new reference (the caller's, usually
 * handed straight to a container), or NULL.
 */
#ifndef WP_JSONV_H
#define WP_JSONV_H

#include <stddef.h>

#include <json-c/json.h>

#include "clock.h"

json_object	*jnum(double v);
json_object	*jstr(const char *s);
json_object	*jint(size_t v);
json_object	*jtime(wp_time t);
/* o[k] = v (v taken over; NULL: null). */
void		 jset(json_object *o, const char *k, json_object *v);

#endif
