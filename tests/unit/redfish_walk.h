/*
 * redfish_walk.h - test helper: walk a fixture tree from disk, answering
 * as a Redfish service would: $expand=.($levels=1) (and $expand=*)
 * inline each member's resource, members of an inlined collection are
 * served at their own @odata.id, and collections can be paged
 * (Members@odata.nextLink "?$skip=N").
 */
#ifndef WP_TEST_REDFISH_WALK_H
#define WP_TEST_REDFISH_WALK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../drivers/redfish/redfish_discover.h"

#define FIXDIR "tests/fixtures/redfish/"

/* How the fixture service answers (tests may change it). */
struct fx_service {
	const char	*dir;		/* FIXDIR, or another root */
	int		 page;		/* members per page, 0: all */
	bool		 no_expand;	/* $expand refused (404) */
	bool		 hollow_expand;	/* $expand answered without bodies */
	int		 gets;		/* answers given */
};

static struct fx_service fx = { FIXDIR, 0, false, false, 0 };

/* Reads <dir><set><path>/index.json; caller frees.  NULL if absent. */
static inline char *
fixture_file(const char *set, const char *path, size_t n, size_t *len)
{
	char file[1024], *buf;
	FILE *f;
	long sz;

	*len = 0;
	while (n > 0 && path[n - 1] == '/')
		n--;
	snprintf(file, sizeof(file), "%s%s%.*s/index.json", fx.dir, set,
	    (int)n, path);
	if ((f = fopen(file, "r")) == NULL)
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

static inline struct json_object *
fixture_json(const char *set, const char *path, size_t n)
{
	size_t len;
	char *b = fixture_file(set, path, n, &len);
	struct json_object *o = b ? json_tokener_parse(b) : NULL;

	free(b);
	return o;
}

/* A member inlined in its parent collection, as its own resource. */
static inline char *
fixture_member(const char *set, const char *path, size_t n, size_t *len)
{
	struct json_object *c, *m, *e, *id;
	const char *slash = NULL, *p;
	char *out = NULL;
	size_t i;

	for (p = path; p < path + n; p++)
		if (*p == '/')
			slash = p;
	if (slash == NULL || (c = fixture_json(set, path,
	    (size_t)(slash - path))) == NULL)
		return NULL;
	if (json_object_object_get_ex(c, "Members", &m))
		for (i = 0; i < json_object_array_length(m) && !out; i++) {
			e = json_object_array_get_idx(m, i);
			if (json_object_object_length(e) > 1 &&
			    json_object_object_get_ex(e, "@odata.id", &id) &&
			    strlen(json_object_get_string(id)) == n &&
			    strncmp(json_object_get_string(id), path, n) == 0)
				out = strdup(json_object_to_json_string(e));
		}
	json_object_put(c);
	*len = out ? strlen(out) : 0;
	return out;
}

/* The collection doc with $expand and paging applied; caller frees. */
static inline char *
fixture_coll(const char *set, const char *path, size_t n, bool expand,
    int skip, const char *query, size_t *len)
{
	struct json_object *c, *m, *e, *id, *full, *page;
	char next[1024], *out;
	size_t i, total;

	if ((c = fixture_json(set, path, n)) == NULL)
		return NULL;
	if (!json_object_object_get_ex(c, "Members", &m) ||
	    !json_object_is_type(m, json_type_array)) {
		out = strdup(json_object_to_json_string(c));
		json_object_put(c);
		*len = strlen(out);
		return out;
	}
	total = json_object_array_length(m);
	page = json_object_new_array();
	for (i = (size_t)skip; i < total && (fx.page == 0 ||
	    i < (size_t)skip + (size_t)fx.page); i++) {
		e = json_object_array_get_idx(m, i);
		full = NULL;
		if (expand && !fx.hollow_expand &&
		    json_object_object_length(e) == 1 &&
		    json_object_object_get_ex(e, "@odata.id", &id))
			full = fixture_json(set, json_object_get_string(id),
			    strlen(json_object_get_string(id)));
		if (full != NULL && !json_object_object_get_ex(full,
		    "@odata.id", NULL))	/* a real service says where */
			json_object_object_add(full, "@odata.id",
			    json_object_get(id));
		json_object_array_add(page, full ? full : json_object_get(e));
	}
	json_object_object_add(c, "Members", page);
	if (fx.page > 0 && i < total) {
		snprintf(next, sizeof(next), "%.*s?$skip=%zu%s%s", (int)n, path,
		    i, query[0] ? "&" : "", query);
		json_object_object_add(c, "Members@odata.nextLink",
		    json_object_new_string(next));
	}
	out = strdup(json_object_to_json_string(c));
	json_object_put(c);
	*len = strlen(out);
	return out;
}

/* The answer to GET uri ("/redfish/v1/...[?query]"); caller frees; NULL
 * for a 404. */
static inline char *
fixture_read(const char *set, const char *uri, size_t *len)
{
	const char *q = strchr(uri, '?'), *sk;
	size_t n = q ? (size_t)(q - uri) : strlen(uri);
	char keep[512] = "";
	bool expand = q && strstr(q, "$expand=") != NULL;
	int skip = 0;
	char *b;

	*len = 0;
	fx.gets++;
	if (expand && fx.no_expand)
		return NULL;
	if (q && (sk = strstr(q, "$skip=")) != NULL)
		skip = atoi(sk + 6);
	if (q && expand)
		snprintf(keep, sizeof(keep), "%.*s", (int)strcspn(strstr(q,
		    "$expand="), "&"), strstr(q, "$expand="));
	if (q != NULL || fx.page > 0)
		b = fixture_coll(set, uri, n, expand, skip, keep, len);
	else
		b = fixture_file(set, uri, n, len);
	if (b == NULL)
		b = fixture_member(set, uri, n, len);
	return b;
}

/* Walks set in mode for system (NULL: all); returns the walker (caller
 * frees) with its plan. */
static inline struct rf_disc *
walk_system(const char *set, int mode, const char *system, int *rc,
    struct wp_err *err)
{
	struct rf_disc *d = rf_disc_new(mode, system);
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

static inline struct rf_disc *
walk(const char *set, int mode, int *rc, struct wp_err *err)
{
	return walk_system(set, mode, NULL, rc, err);
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
