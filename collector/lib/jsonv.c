/* jsonv.c - json-c values (see jsonv.h). */
#include <math.h>
#include <stdint.h>

#include "jsonv.h"

json_object *
jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *
jstr(const char *s)
{
	return s != NULL ? json_object_new_string(s) : NULL;
}

json_object *
jint(size_t v)
{
	return json_object_new_int64((int64_t)v);
}

json_object *
jtime(wp_time t)
{
	char buf[40];

	clock_iso8601(t, buf, sizeof(buf));
	return json_object_new_string(buf);
}

void
jset(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}
