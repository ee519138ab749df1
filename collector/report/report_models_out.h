/*
 * report_models_out.h - the report's per-model and per-tenant tables
 * (model/report_models.h) in its JSON document (`models`, `tenants`,
 * `attribution`; the key/value CSV flattens them) and its Markdown.
 * Fields: docs/report.md, "Per model".
 */
#ifndef WP_REPORT_MODELS_OUT_H
#define WP_REPORT_MODELS_OUT_H

#include <stdio.h>

#include <json-c/json.h>

#include "../../model/report.h"

/* Adds models, tenants and attribution to the document root. */
void	 report_models_json(json_object *root, const struct report *r);
/* The "Per model" (and "Per tenant") sections. */
void	 report_models_md(FILE *f, const struct report *r);
/* The showback CSV: one row per tenant, then per model, and boundary
 * (docs/report.md, "Showback CSV").  0, or -1 on a write error. */
int	 report_models_csv_write(FILE *f, const struct report *r);

#endif
