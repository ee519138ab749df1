/*
 * report_json.h - the report and curve documents (docs/report.md, "JSON
 * schema") built from the model's structs with json-c: keys in their
 * documented order, numbers that cannot be computed as null.  The JSON
 * text the commands print and the exposition serves, and the tree the
 * key/value CSV flattens (report_csv.h).
 */
#ifndef WP_REPORT_JSON_H
#define WP_REPORT_JSON_H

#include <stdio.h>

#include <json-c/json.h>

#include "../../model/report.h"

/* The document of r or d; caller frees with json_object_put (NULL out of
 * memory). */
json_object	*report_json_doc(const struct report *r);
json_object	*report_curve_json_doc(const struct report_curve_doc *d);
/* A document as the commands print it: pretty, one trailing newline.
 * 0, or -1 (out of memory, write error). */
int		 report_json_print(FILE *f, json_object *doc);

#endif
