/* redfish_walk.h - test helper: walk a fixture tree from disk. */
#ifndef WP_TEST_REDFISH_WALK_H
#define WP_TEST_REDFISH_WALK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../drivers/redfish/redfish_discover.h"

#define FIXDIR "tests/fixtures/redfish/"

/* Reads FIXDIR/<set><uri>/index.json; caller frees.  NULL if absent. */
static inline char *
fixture_read(const char *set, const char *uri, size_t *len)
{
	char path[1024], *buf;
	size_t n = strlen(uri);
	FILE *f;
	long sz;

	*len = 0;

	while (n > 0 && uri[n - 1] == '/')
		n--;
	snprintf(path, sizeof(path), FIXDIR "%s%.*s/index.json", set, (int)n,
	    uri);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz + 1);
	*len = fread(buf, 1, (size_t)sz, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Walks set in mode; returns the walker (caller frees) with its plan. */
static inline struct rf_disc *
walk(const char *set, int mode, int *rc, struct wp_err *err)
{
	struct rf_disc *d = rf_disc_new(mode);
	const struct rf_plan *plan;
	struct json_object *doc;
	struct wp_err fe;
	const char *uri;
	char *body;
	size_t len;

	*rc = 0;
	while ((uri = rf_disc_next(d)) != NULL) {
		memset(&fe, 0, sizeof(fe));
		doc = NULL;
		if ((body = fixture_read(set, uri, &len)) == NULL)
			err_set(&fe, WP_E_PROTOCOL, "HTTP 404");
		else
			doc = rf_json_parse(body, len, &fe);
		free(body);
		if (rf_disc_feed(d, doc, &fe, err) < 0) {
			json_object_put(doc);
			*rc = -1;
			return d;
		}
		json_object_put(doc);
	}
	*rc = rf_disc_plan(d, &plan, err);
	return d;
}

static inline const struct rf_series *
plan_series(struct rf_disc *d, const char *name)
{
	const struct rf_plan *p;
	struct wp_err e;
	size_t i;

	if (rf_disc_plan(d, &p, &e) < 0)
		return NULL;
	for (i = 0; i < p->n_series; i++)
		if (strcmp(p->series[i].series, name) == 0)
			return &p->series[i];
	return NULL;
}

#endif
