/*
 * redfish_push.c - SSE framing, pushed MetricReports and their samples
 * (redfish_push.h).  Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "redfish_push.h"

#define RF_PUSH_VALUES_MAX	4096	/* MetricValues members read */

/* ---- SSE ---- */

int
rf_sse_init(struct rf_sse *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max < 64 ? 64 : max;
	if ((s->line = malloc(s->max + 1)) == NULL ||
	    (s->data = malloc(s->max + 1)) == NULL) {
		free(s->line);
		s->line = NULL;
		return -1;
	}
	return 0;
}

void
rf_sse_fini(struct rf_sse *s)
{
	if (s == NULL)
		return;
	free(s->line);
	free(s->data);
	s->line = s->data = NULL;
}

static void
sse_dispatch(struct rf_sse *s, rf_sse_cb cb, void *arg)
{
	struct rf_sse_event ev = { s->event, s->id, "", 0, s->over };

	if (s->over) {
		s->refused++;
		cb(arg, &ev);
	} else if (s->data_len > 0) {
		s->data_len--;			/* the last LF */
		s->data[s->data_len] = '\0';
		ev.data = s->data;
		ev.len = s->data_len;
		s->events++;
		cb(arg, &ev);
	}
	s->data_len = 0;
	s->event[0] = '\0';
	s->over = false;
}

static void
sse_field(struct rf_sse *s, const char *f, size_t flen, const char *v,
    size_t vlen)
{
	if (flen == 4 && memcmp(f, "data", 4) == 0) {
		if (s->over || vlen + 1 > s->max - s->data_len) {
			s->over = true;
			return;
		}
		memcpy(s->data + s->data_len, v, vlen);
		s->data_len += vlen;
		s->data[s->data_len++] = '\n';
	} else if (flen == 5 && memcmp(f, "event", 5) == 0) {
		if (vlen >= sizeof(s->event))
			vlen = sizeof(s->event) - 1;
		memcpy(s->event, v, vlen);
		s->event[vlen] = '\0';
	} else if (flen == 2 && memcmp(f, "id", 2) == 0 &&
	    memchr(v, '\0', vlen) == NULL && vlen < sizeof(s->id)) {
		memcpy(s->id, v, vlen);
		s->id[vlen] = '\0';
	}
	/* retry: and unknown fields are ignored */
}

static void
sse_line(struct rf_sse *s, rf_sse_cb cb, void *arg)
{
	const char *l = s->line, *c;
	size_t n = s->line_len, flen;

	s->line_len = 0;
	if (s->line_over) {
		s->line_over = false;
		s->over = true;
		return;
	}
	if (n == 0) {
		sse_dispatch(s, cb, arg);
		return;
	}
	if (l[0] == ':')
		return;				/* a comment (keep-alive) */
	c = memchr(l, ':', n);
	flen = c ? (size_t)(c - l) : n;
	if (c == NULL) {
		sse_field(s, l, flen, "", 0);
		return;
	}
	c++;
	if (c < l + n && *c == ' ')
		c++;
	sse_field(s, l, flen, c, (size_t)(l + n - c));
}

/* One byte of the stream past the BOM. */
static void
sse_byte(struct rf_sse *s, char ch, rf_sse_cb cb, void *arg)
{
	if (ch == '\n' && s->last_cr) {
		s->last_cr = false;
		return;
	}
	s->last_cr = ch == '\r';
	if (ch == '\n' || ch == '\r') {
		sse_line(s, cb, arg);
		return;
	}
	if (s->line_len >= s->max) {
		s->line_over = true;
		return;
	}
	s->line[s->line_len++] = ch;
}

void
rf_sse_feed(struct rf_sse *s, const char *p, size_t n, rf_sse_cb cb,
    void *arg)
{
	static const char bom[3] = { '\xef', '\xbb', '\xbf' };
	size_t i, k;

	for (i = 0; i < n; i++) {
		if (!s->started) {	/* a leading BOM, in any split, is skipped */
			if (p[i] == bom[s->bom]) {
				if (++s->bom == 3)
					s->started = true;
				continue;
			}
			s->started = true;
			for (k = 0; k < s->bom; k++)
				sse_byte(s, bom[k], cb, arg);
		}
		sse_byte(s, p[i], cb, arg);
	}
}

/* ---- MetricReport ---- */

static const char *
str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A Timestamp member: 0 absent, 1 parsed into *t, -1 not a date. */
static int
stamp_of(struct json_object *o, wp_time *t)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, "Timestamp", &v) || v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    clock_parse_time(json_object_get_string(v), t) < 0)
		return -1;
	return 1;
}

/* One MetricValues member through rf_parse_resource, as a one-value
 * report; appended to out with its time.  Readings added, or -1. */
static int
one_value(const char *uri, struct json_object *e, wp_time report_t,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *doc = json_object_new_object(), *arr;
	struct rf_readings one;
	wp_time t = report_t;
	int rc, n = 0;
	size_t i;

	if (doc == NULL || (arr = json_object_new_array()) == NULL) {
		json_object_put(doc);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	if (stamp_of(e, &t) < 0) {
		json_object_put(doc);
		json_object_put(arr);
		return err_set(err, WP_E_PROTOCOL, "%s: a Timestamp is not a "
		    "date", uri);
	}
	json_object_object_add(doc, "@odata.type",
	    json_object_new_string("#MetricReport.v1_5_0.MetricReport"));
	json_object_array_add(arr, json_object_get(e));
	json_object_object_add(doc, "MetricValues", arr);
	rf_readings_init(&one);
	rc = rf_parse_resource(uri, doc, &one, err);
	json_object_put(doc);
	for (i = 0; rc >= 0 && i < one.n; i++) {
		if (one.v[i].absent)
			continue;
		one.v[i].device_time = t;
		if (rf_readings_add(out, &one.v[i]) < 0) {
			rc = err_set(err, WP_E_INTERNAL, "out of memory");
			break;
		}
		n++;
	}
	out->dropped += one.dropped;
	if (one.dropped > 0 && out->dropped_why[0] == '\0')
		memcpy(out->dropped_why, one.dropped_why,
		    sizeof(out->dropped_why));
	rf_readings_fini(&one);
	return rc < 0 ? -1 : n;
}

int
rf_push_parse(const char *body, size_t len, struct rf_readings *out,
    char *id, size_t idlen, struct wp_err *err)
{
	struct json_object *doc, *mvs, *e;
	char uri[RF_URI_MAX];
	const char *s;
	wp_time rt = 0;
	int n = 0, rc;
	size_t i;

	if (idlen > 0)
		id[0] = '\0';
	if ((doc = rf_json_parse(body, len, err)) == NULL)
		return -1;
	if (json_object_object_get_ex(doc, "Events", NULL) ||
	    !json_object_object_get_ex(doc, "MetricValues", &mvs)) {
		json_object_put(doc);
		return 0;		/* an event, or no report */
	}
	if (!json_object_is_type(mvs, json_type_array)) {
		json_object_put(doc);
		return err_set(err, WP_E_PROTOCOL, "MetricValues is not an "
		    "array");
	}
	if ((s = str_of(doc, "Id")) != NULL && idlen > 0)
		snprintf(id, idlen, "%s", s);
	s = str_of(doc, "@odata.id");
	snprintf(uri, sizeof(uri), "%s", s != NULL ? s :
	    "/redfish/v1/TelemetryService/MetricReports");
	if (stamp_of(doc, &rt) < 0) {
		json_object_put(doc);
		return err_set(err, WP_E_PROTOCOL, "%s: Timestamp is not a "
		    "date", uri);
	}
	for (i = 0; i < json_object_array_length(mvs) &&
	    i < RF_PUSH_VALUES_MAX; i++) {
		e = json_object_array_get_idx(mvs, i);
		if (!json_object_is_type(e, json_type_object))
			continue;
		if ((rc = one_value(uri, e, rt, out, err)) < 0) {
			json_object_put(doc);
			return -1;
		}
		n += rc;
	}
	json_object_put(doc);
	return n;
}

/* ---- samples ---- */

static bool
pick_is(const struct rf_pick *p, const struct rf_reading *r)
{
	return strcmp(p->key, r->key) == 0;
}

/* The readings of vals at time t into sel (borrowed copy of the array's
 * entries, no allocation beyond sel's). */
static int
readings_at(const struct rf_readings *vals, wp_time t, struct rf_readings *sel)
{
	size_t i;

	rf_readings_clear(sel);
	for (i = 0; i < vals->n; i++)
		if (vals->v[i].device_time == t &&
		    rf_readings_add(sel, &vals->v[i]) < 0)
			return -1;
	return 0;
}

/* Has an earlier value of vals (index < j) the same key and time? */
static bool
seen_before(const struct rf_readings *vals, size_t j)
{
	size_t i;

	for (i = 0; i < j; i++)
		if (vals->v[i].device_time == vals->v[j].device_time &&
		    strcmp(vals->v[i].key, vals->v[j].key) == 0)
			return true;
	return false;
}

size_t
rf_push_samples(const struct rf_plan *plan, const struct rf_readings *vals,
    struct wp_sample *out, size_t max, size_t *unused)
{
	struct rf_readings sel;
	struct wp_err err;
	bool *took;
	size_t i, j, k, n = 0;

	if (unused != NULL)
		*unused = vals->n;
	if (vals->n == 0 || (took = calloc(vals->n, sizeof(*took))) == NULL)
		return 0;
	rf_readings_init(&sel);
	for (i = 0; i < plan->n_series && n < max; i++) {
		const struct rf_series *se = &plan->series[i];

		if (se->n_pick == 0)
			continue;
		for (j = 0; j < vals->n && n < max; j++) {
			if (!pick_is(&se->pick[0], &vals->v[j]) ||
			    seen_before(vals, j) ||
			    readings_at(vals, vals->v[j].device_time, &sel) < 0)
				continue;
			if (rf_series_sample(se, &sel, &out[n], &err) < 0)
				continue;
			out[n].t_real = vals->v[j].device_time;
			rf_identity_labels(plan, &out[n]);
			for (k = 0; k < vals->n; k++)
				for (size_t p = 0; p < se->n_pick; p++)
					if (vals->v[k].device_time ==
					    vals->v[j].device_time &&
					    pick_is(&se->pick[p], &vals->v[k]))
						took[k] = true;
			n++;
		}
	}
	rf_readings_fini(&sel);
	if (unused != NULL)
		for (*unused = 0, k = 0; k < vals->n; k++)
			*unused += !took[k];
	free(took);
	return n;
}

/* ---- subscriptions ---- */

char *
rf_sub_body(const char *dest, const char *context)
{
	struct json_object *o = json_object_new_object();
	char *s;

	if (o == NULL)
		return NULL;
	json_object_object_add(o, "Destination", json_object_new_string(dest));
	json_object_object_add(o, "Protocol", json_object_new_string(
	    "Redfish"));
	json_object_object_add(o, "SubscriptionType", json_object_new_string(
	    "RedfishEvent"));
	json_object_object_add(o, "EventFormatType", json_object_new_string(
	    "MetricReport"));
	json_object_object_add(o, "Context", json_object_new_string(context));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

int
rf_sub_members(const char *body, size_t len, char (*uris)[RF_URI_MAX],
    size_t max, struct wp_err *err)
{
	struct json_object *doc, *m, *e;
	const char *u;
	size_t i, n = 0;

	if ((doc = rf_json_parse(body, len, err)) == NULL)
		return -1;
	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array)) {
		json_object_put(doc);
		return err_set(err, WP_E_PROTOCOL, "Subscriptions: Members is "
		    "not an array");
	}
	for (i = 0; i < json_object_array_length(m) && n < max; i++) {
		e = json_object_array_get_idx(m, i);
		if (!json_object_is_type(e, json_type_object) ||
		    (u = str_of(e, "@odata.id")) == NULL || u[0] != '/' ||
		    strlen(u) >= RF_URI_MAX)
			continue;
		snprintf(uris[n++], RF_URI_MAX, "%s", u);
	}
	json_object_put(doc);
	return (int)n;
}

bool
rf_sub_has_context(const char *body, size_t len, const char *context)
{
	struct json_object *doc;
	struct wp_err err;
	const char *c;
	bool ours;

	if ((doc = rf_json_parse(body, len, &err)) == NULL)
		return false;
	ours = (c = str_of(doc, "Context")) != NULL && strcmp(c, context) == 0;
	json_object_put(doc);
	return ours;
}

/* The path of an absolute URL or a path; NULL if neither. */
static const char *
path_of(const char *u)
{
	const char *p;

	if (u[0] == '/')
		return u;
	if ((p = strstr(u, "://")) == NULL)
		return NULL;
	return strchr(p + 3, '/');
}

int
rf_sub_uri_of(const char *location, const char *body, size_t len,
    char *uri, size_t n)
{
	struct json_object *doc = NULL;
	struct wp_err err;
	const char *p = location ? path_of(location) : NULL;
	int rc = -1;

	if (p == NULL && len > 0 && (doc = rf_json_parse(body, len, &err)) !=
	    NULL)
		p = str_of(doc, "@odata.id");
	if (p != NULL && p[0] == '/' && strlen(p) < n) {
		snprintf(uri, n, "%s", p);
		rc = 0;
	}
	json_object_put(doc);
	return rc;
}
