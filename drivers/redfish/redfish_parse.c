/* redfish_parse.c - pure decode of Redfish power/energy resources. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "../../collector/lib/sample.h"
#include "../../collector/lib/strcopy.h"
#include "redfish_names.h"
#include "redfish_parse.h"

#define RF_ABSURD_W	1e8	/* 100 MW */
#define RF_ABSURD_J	1e18
#define J_PER_KWH	3.6e6

static const char *const src_names[] = {
	"EnvironmentMetrics.EnergyJoules", "Sensor.EnergyJoules",
	"EnvironmentMetrics.EnergykWh", "Sensor.EnergykWh",
	"PowerSupplyMetrics.EnergykWh", "PowerSupplyMetrics.InputPowerWatts",
	"EnvironmentMetrics.PowerWatts", "Sensor.Power",
	"Power.PowerControl.PowerConsumedWatts",
	"Power.PowerControl.PowerMetrics.AverageConsumedWatts",
	"Power.PowerSupplies.PowerInputWatts", "Oem", "PowerDistribution",
	"Other",
};

const char *
rf_src_name(int src)
{
	if (src < 0 || (size_t)src >= sizeof(src_names) / sizeof(src_names[0]))
		return "?";
	return src_names[src];
}

void
rf_readings_init(struct rf_readings *r)
{
	memset(r, 0, sizeof(*r));
}

void
rf_readings_fini(struct rf_readings *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void
rf_readings_clear(struct rf_readings *r)
{
	r->n = 0;
	r->dropped = 0;
	r->dropped_why[0] = '\0';
	r->n_problem = 0;
	r->problem[0] = '\0';
}

/* An absurd value is left out, and counted: the rest of the resource (an
 * energy counter beside a broken power reading) still counts.  0. */
static int
drop(struct rf_readings *out, struct wp_err *err)
{
	if (out->dropped++ == 0)
		snprintf(out->dropped_why, sizeof(out->dropped_why), "%s",
		    err->msg);
	err_clear(err);
	return 0;
}

int
rf_readings_add(struct rf_readings *r, const struct rf_reading *x)
{
	struct rf_reading *nv;
	size_t ncap;

	if (r->n == r->cap) {
		ncap = r->cap ? r->cap * 2 : 2;
		if ((nv = realloc(r->v, ncap * sizeof(*nv))) == NULL)
			return -1;
		r->v = nv;
		r->cap = ncap;
	}
	r->v[r->n++] = *x;
	return 0;
}

const struct rf_reading *
rf_readings_find(const struct rf_readings *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].key, key) == 0)
			return &r->v[i];
	return NULL;
}

void
rf_odata_type(struct json_object *doc, char *buf, size_t len)
{
	struct json_object *t;
	const char *s, *dot;
	size_t n;

	buf[0] = '\0';
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "@odata.type", &t) ||
	    !json_object_is_type(t, json_type_string))
		return;
	s = json_object_get_string(t);
	if (*s == '#')
		s++;
	dot = strchr(s, '.');
	n = dot ? (size_t)(dot - s) : strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

const char *
rf_link(struct json_object *doc, const char *key)
{
	struct json_object *o = doc, *id;

	if (key != NULL && (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, key, &o)))
		return NULL;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "@odata.id", &id) ||
	    !json_object_is_type(id, json_type_string))
		return NULL;
	return json_object_get_string(id);
}

struct json_object *
rf_json_parse(const char *body, size_t len, struct wp_err *err)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error je;
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", body[i]))
		i++;
	if (i == len)
		return err_set(err, WP_E_PROTOCOL, "empty body"), NULL;
	if (body[i] == '<')
		return err_set(err, WP_E_PROTOCOL,
		    "HTML page where JSON was expected"), NULL;
	if ((tok = json_tokener_new_ex(64)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory"), NULL;
	o = json_tokener_parse_ex(tok, body, (int)len);
	je = json_tokener_get_error(tok);
	if (o == NULL && je == json_tokener_continue)
		err_set(err, WP_E_PROTOCOL, "truncated JSON (%zu bytes)", len);
	else if (o == NULL)
		err_set(err, WP_E_PROTOCOL, "malformed JSON at byte %zu: %s",
		    json_tokener_get_parse_end(tok),
		    json_tokener_error_desc(je));
	else if (!json_object_is_type(o, json_type_object)) {
		err_set(err, WP_E_PROTOCOL, "JSON is not an object");
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

static const char *
str_member(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Decimal places in a JSON number as written ("46.15" -> 2). */
static int
decimals(struct json_object *v)
{
	const char *s, *dot, *e;

	if (!json_object_is_type(v, json_type_double))
		return 0;
	s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	if ((dot = strchr(s, '.')) == NULL)
		return 0;
	e = dot + 1;
	while (*e >= '0' && *e <= '9')
		e++;
	return (int)(e - dot - 1);
}

/*
 * Reads member key of o as a number.  Returns 1 found, 0 absent or null,
 * -1 wrong type (err set).
 */
static int
num_member(struct json_object *o, const char *key, double *out, int *dec,
    struct wp_err *err)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return err_set(err, WP_E_PROTOCOL, "%s is not a number", key);
	*out = json_object_get_double(v);
	if (dec)
		*dec = decimals(v);
	return 1;
}

static void
set_time(struct json_object *o, const char *key, wp_time *out)
{
	const char *s = str_member(o, key);

	if (s == NULL || clock_parse_time(s, out) < 0)
		*out = 0;
}

/* Status.State Absent or Disabled: the resource gives no reading. */
static bool
state_absent(struct json_object *o)
{
	struct json_object *st;
	const char *v;

	if (!json_object_object_get_ex(o, "Status", &st) ||
	    !json_object_is_type(st, json_type_object) ||
	    (v = str_member(st, "State")) == NULL)
		return false;
	return strcmp(v, "Absent") == 0 || strcmp(v, "Disabled") == 0;
}

/* Id, Name and the first RelatedItem of o into r. */
static void
set_names(struct rf_reading *r, struct json_object *o, const char *id_key)
{
	struct json_object *ri, *e;
	const char *s;

	if ((s = str_member(o, id_key)) != NULL)
		str_copy(r->id, sizeof(r->id), s);
	if ((s = str_member(o, "Name")) != NULL)
		str_copy(r->name, sizeof(r->name), s);
	if (json_object_object_get_ex(o, "RelatedItem", &ri) &&
	    json_object_is_type(ri, json_type_array) &&
	    json_object_array_length(ri) > 0 &&
	    (e = json_object_array_get_idx(ri, 0)) != NULL &&
	    (s = rf_link(e, NULL)) != NULL)
		str_copy(r->related, sizeof(r->related), s);
}

/* Fills value/raw/resolution; unit_scale converts raw to SI. */
static int
finish(struct rf_reading *r, double raw, int dec, double unit_scale,
    const char *raw_unit, struct wp_err *err)
{
	double lim = r->quantity == WP_Q_ENERGY ? RF_ABSURD_J : RF_ABSURD_W;

	r->raw_value = raw;
	r->value = raw * unit_scale;
	str_copy(r->raw_unit, sizeof(r->raw_unit), raw_unit);
	r->resolution = unit_scale * pow(10, -dec);
	if (!isfinite(r->value) || r->value < 0 || r->value > lim)
		return err_set(err, WP_E_PROTOCOL, "%s: absurd value %g %s",
		    r->key, raw, raw_unit);
	return 0;
}

static void
base(struct rf_reading *r, const char *uri, const char *frag, int src,
    int quantity, int kind)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	str_copy(r->uri, sizeof(r->uri), uri);
	n = str_copy(r->key, sizeof(r->key), uri);
	if (frag) {
		n = str_append(r->key, sizeof(r->key), n, "#/");
		str_append(r->key, sizeof(r->key), n, frag);
	}
	str_copy(r->source, sizeof(r->source), rf_src_name(src));
	r->src = src;
	r->quantity = quantity;
	r->kind = kind;
	r->lifetime = NAN;
}

/*
 * The part an excerpt and a Sensor share: provenance times and lifetime
 * from o, the value scaled into r, r appended to out.  1 added, -1 error.
 */
static int
add_reading(struct json_object *o, struct rf_reading *r, double v, int dec,
    double scale, const char *unit, struct rf_readings *out,
    struct wp_err *err)
{
	double lt;

	set_time(o, "SensorResetTime", &r->reset_time);
	set_time(o, "ReadingTime", &r->device_time);
	if (num_member(o, "LifetimeReading", &lt, NULL, NULL) == 1)
		r->lifetime = lt * scale;
	if (finish(r, v, dec, scale, unit, err) < 0)
		return drop(out, err);
	return rf_readings_add(out, r) < 0 ? err_set(err, WP_E_INTERNAL,
	    "out of memory") : 1;
}

/* Excerpt "prop" of obj: {Reading, DataSourceUri, SensorResetTime...}. */
static int
excerpt(const char *uri, struct json_object *obj, const char *prop,
    const char *source, int src, int quantity, int kind, double scale,
    const char *unit, int role, struct rf_readings *out, struct wp_err *err)
{
	struct json_object *ex;
	struct rf_reading r;
	const char *ds;
	double v;
	int dec = 0, rc;

	if (!json_object_object_get_ex(obj, prop, &ex) || ex == NULL)
		return 0;
	if (!json_object_is_type(ex, json_type_object))
		return err_set(err, WP_E_PROTOCOL, "%s: %s is not an object",
		    uri, prop);
	base(&r, uri, prop, src, quantity, kind);
	str_copy(r.source, sizeof(r.source), source);
	r.role = role;
	if ((rc = num_member(ex, "Reading", &v, &dec, err)) <= 0) {
		if (rc < 0)
			err_prefix(err, "%s: %s", uri, prop);
		return rc;
	}
	if ((ds = str_member(ex, "DataSourceUri")) != NULL)
		str_copy(r.ds_uri, sizeof(r.ds_uri), ds);
	return add_reading(ex, &r, v, dec, scale, unit, out, err);
}

static int
parse_envmetrics(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	int n = 0, rc;

	if ((rc = excerpt(uri, doc, "EnergyJoules", rf_src_name(
	    RF_SRC_ENV_ENERGYJ), RF_SRC_ENV_ENERGYJ, WP_Q_ENERGY, WP_COUNTER,
	    1, "J", RF_ROLE_INPUT, out, err)) < 0)
		return -1;
	n += rc;
	if ((rc = excerpt(uri, doc, "EnergykWh", rf_src_name(
	    RF_SRC_ENV_ENERGYKWH), RF_SRC_ENV_ENERGYKWH, WP_Q_ENERGY,
	    WP_COUNTER, J_PER_KWH, "kWh", RF_ROLE_INPUT, out, err)) < 0)
		return -1;
	n += rc;
	if ((rc = excerpt(uri, doc, "PowerWatts", rf_src_name(
	    RF_SRC_ENV_POWER), RF_SRC_ENV_POWER, WP_Q_POWER, WP_GAUGE, 1,
	    "W", RF_ROLE_INPUT, out, err)) < 0)
		return -1;
	return n + rc;
}

/* Unit scale of a Sensor's ReadingUnits for its ReadingType. */
static int
sensor_unit(const char *type, const char *units, double *scale,
    const char **unit)
{
	if (strcmp(type, "Power") == 0) {
		*unit = units ? units : "W";
		if (units == NULL || strcmp(units, "W") == 0)
			*scale = 1;
		else if (strcmp(units, "kW") == 0)
			*scale = 1e3;
		else if (strcmp(units, "mW") == 0)
			*scale = 1e-3;
		else
			return -1;
		return 0;
	}
	if (strcmp(type, "EnergyJoules") == 0) {
		*unit = units ? units : "J";
		if (units == NULL || strcmp(units, "J") == 0)
			*scale = 1;
		else if (strcmp(units, "kJ") == 0)
			*scale = 1e3;
		else
			return -1;
		return 0;
	}
	/* EnergykWh: Sensor v1_0_0 said "kW"; it is still kWh.  EnergyWh
	 * (Sensor v1_6) is in W.h. */
	*unit = "kWh";
	if (strcmp(type, "EnergykWh") == 0 && (units == NULL ||
	    strcmp(units, "kW.h") == 0 || strcmp(units, "kWh") == 0 ||
	    strcmp(units, "kW") == 0))
		*scale = J_PER_KWH;
	else if ((strcmp(type, "EnergyWh") == 0 && units == NULL) ||
	    (units != NULL && (strcmp(units, "W.h") == 0 ||
	    strcmp(units, "Wh") == 0))) {
		*scale = 3600;
		*unit = "Wh";
	} else
		return -1;
	return 0;
}

/* The ReadingType a Sensor is read as: its own, or, without one, what
 * its ReadingUnits say (W, kW, J, kJ, kW.h, W.h); NULL: not power or
 * energy. */
static const char *
sensor_type(struct json_object *doc)
{
	static const char *const by_unit[][2] = { { "W", "Power" },
	    { "kW", "Power" }, { "mW", "Power" }, { "J", "EnergyJoules" },
	    { "kJ", "EnergyJoules" }, { "kW.h", "EnergykWh" },
	    { "kWh", "EnergykWh" }, { "W.h", "EnergyWh" },
	    { "Wh", "EnergyWh" } };
	const char *type = str_member(doc, "ReadingType"), *u;
	size_t i;

	if (type != NULL)
		return strcmp(type, "Power") == 0 || strcmp(type,
		    "EnergyJoules") == 0 || strcmp(type, "EnergykWh") == 0 ||
		    strcmp(type, "EnergyWh") == 0 ? type : NULL;
	if ((u = str_member(doc, "ReadingUnits")) == NULL)
		return NULL;
	for (i = 0; i < sizeof(by_unit) / sizeof(by_unit[0]); i++)
		if (strcmp(u, by_unit[i][0]) == 0)
			return by_unit[i][1];
	return NULL;
}

static int
parse_sensor(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	const char *type, *units, *unit;
	struct rf_reading r;
	double v, scale;
	int dec = 0, rc, src, q, k;

	if ((type = sensor_type(doc)) == NULL)
		return 0;
	src = RF_SRC_SENSOR_ENERGYKWH, q = WP_Q_ENERGY, k = WP_COUNTER;
	if (strcmp(type, "Power") == 0)
		src = RF_SRC_SENSOR_POWER, q = WP_Q_POWER, k = WP_GAUGE;
	else if (strcmp(type, "EnergyJoules") == 0)
		src = RF_SRC_SENSOR_ENERGYJ;
	units = str_member(doc, "ReadingUnits");
	if (sensor_unit(type, units, &scale, &unit) < 0)
		return err_set(err, WP_E_PROTOCOL,
		    "%s: unknown ReadingUnits \"%s\" for %s", uri, units, type);
	base(&r, uri, NULL, src, q, k);
	if (strcmp(type, "EnergyWh") == 0)
		snprintf(r.source, sizeof(r.source), "Sensor.EnergyWh");
	set_names(&r, doc, "Id");
	r.role = rf_role_of(str_member(doc, "PhysicalContext"),
	    str_member(doc, "PhysicalSubContext"), r.id, r.name, false);
	if (state_absent(doc)) {
		r.absent = true;
		snprintf(r.raw_unit, sizeof(r.raw_unit), "%s", unit);
		return rf_readings_add(out, &r) < 0 ? err_set(err,
		    WP_E_INTERNAL, "out of memory") : 1;
	}
	if ((rc = num_member(doc, "Reading", &v, &dec, err)) <= 0) {
		if (rc < 0)
			err_prefix(err, "%s", uri);
		return rc;
	}
	return add_reading(doc, &r, v, dec, scale, unit, out, err);
}

/* A SensorCollection whose members are inlined (or $expand-ed). */
static int
parse_sensor_coll(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *m, *e, *cnt;
	const char *mu;
	size_t i;
	int n = 0, rc, total;

	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array))
		return 0;
	total = (int)json_object_array_length(m);
	if (json_object_object_get_ex(doc, "Members@odata.count", &cnt) &&
	    json_object_is_type(cnt, json_type_int) &&
	    json_object_get_int(cnt) > total)
		total = json_object_get_int(cnt);
	for (i = 0; i < json_object_array_length(m); i++) {
		e = json_object_array_get_idx(m, i);
		if ((mu = rf_link(e, NULL)) == NULL)
			continue;
		if (sensor_type(e) == NULL)
			continue;
		if ((rc = parse_sensor(mu, e, out, err)) < 0) {
			if (err->class == WP_E_INTERNAL)
				return -1;
			out->n_problem++;	/* this member only */
			snprintf(out->problem, sizeof(out->problem), "%s",
			    err->msg);
			continue;
		}
		if (rc > 0) {	/* polled through the collection */
			snprintf(out->v[out->n - 1].uri, RF_URI_MAX, "%s", uri);
			out->v[out->n - 1].coll_n = total;
		}
		n += rc;
	}
	return n;
}

static int
parse_psu_metrics(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	int n = 0, rc;

	if ((rc = excerpt(uri, doc, "EnergykWh", rf_src_name(
	    RF_SRC_PSU_ENERGYKWH), RF_SRC_PSU_ENERGYKWH, WP_Q_ENERGY,
	    WP_COUNTER, J_PER_KWH, "kWh", RF_ROLE_PSU, out, err)) < 0)
		return -1;
	n += rc;
	if ((rc = excerpt(uri, doc, "InputPowerWatts", rf_src_name(
	    RF_SRC_PSU_POWER), RF_SRC_PSU_POWER, WP_Q_POWER, WP_GAUGE, 1, "W",
	    RF_ROLE_PSU, out, err)) < 0)
		return -1;
	n += rc;
	if ((rc = excerpt(uri, doc, "OutputPowerWatts",
	    "PowerSupplyMetrics.OutputPowerWatts", RF_SRC_OTHER, WP_Q_POWER,
	    WP_GAUGE, 1, "W", RF_ROLE_OUTPUT, out, err)) < 0)
		return -1;
	return n + rc;
}

/* A plain number property of a legacy Power array member e (or of its
 * object sub, e.g. PowerMetrics), keyed "uri#/arr/i/[sub/]prop". */
static int
legacy_value(const char *uri, struct json_object *e, const char *arr,
    size_t i, const char *sub, const char *prop, int src, int role,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *o = e;
	struct rf_reading r;
	char frag[96];
	double v, iv;
	int dec = 0, rc;

	if (sub != NULL && (!json_object_object_get_ex(e, sub, &o) ||
	    !json_object_is_type(o, json_type_object)))
		return 0;
	snprintf(frag, sizeof(frag), "%s/%zu/%s%s%s", arr, i, sub ? sub : "",
	    sub ? "/" : "", prop);
	base(&r, uri, frag, src, WP_Q_POWER, WP_GAUGE);
	snprintf(r.source, sizeof(r.source), "%s", rf_src_name(src));
	if (src == RF_SRC_OTHER)
		snprintf(r.source, sizeof(r.source), "Power.%s.%s", arr, prop);
	set_names(&r, e, "MemberId");
	r.role = role;
	if ((rc = num_member(o, prop, &v, &dec, err)) <= 0) {
		if (rc < 0)
			err_prefix(err, "%s#/%s", uri, frag);
		return rc;
	}
	/* The average's window; PowerConsumedWatts is not averaged. */
	if (src == RF_SRC_PC_AVERAGE && num_member(o, "IntervalInMin", &iv,
	    NULL, NULL) == 1 && iv > 0) {
		r.avg_window = (wp_time)(iv * 60) * WP_SEC;
		r.flags |= WP_F_AVERAGED;
	}
	if (finish(&r, v, dec, 1, "W", err) < 0)
		return drop(out, err);
	return rf_readings_add(out, &r) < 0 ? err_set(err, WP_E_INTERNAL,
	    "out of memory") : 1;
}

/* One PowerControl member: PowerConsumedWatts and the PowerMetrics
 * average, with the role its PhysicalContext and names give. */
static int
power_control(const char *uri, struct json_object *e, size_t i,
    struct rf_readings *out, struct wp_err *err)
{
	int role, n, rc;

	if (state_absent(e))
		return 0;
	role = rf_role_of(str_member(e, "PhysicalContext"), NULL,
	    str_member(e, "MemberId"), str_member(e, "Name"), true);
	if ((n = legacy_value(uri, e, "PowerControl", i, NULL,
	    "PowerConsumedWatts", RF_SRC_POWERCONTROL, role, out, err)) < 0)
		return -1;
	if ((rc = legacy_value(uri, e, "PowerControl", i, "PowerMetrics",
	    "AverageConsumedWatts", RF_SRC_PC_AVERAGE, role, out, err)) < 0)
		return -1;
	return n + rc;
}

/* One legacy PowerSupplies member: input (a supply) and output. */
static int
power_supply(const char *uri, struct json_object *e, size_t i,
    struct rf_readings *out, struct wp_err *err)
{
	int n, rc;

	if (state_absent(e))
		return 0;
	if ((n = legacy_value(uri, e, "PowerSupplies", i, NULL,
	    "PowerInputWatts", RF_SRC_LEGACY_PSU_IN, RF_ROLE_PSU, out,
	    err)) < 0)
		return -1;
	if ((rc = legacy_value(uri, e, "PowerSupplies", i, NULL,
	    "LastPowerOutputWatts", RF_SRC_OTHER, RF_ROLE_OUTPUT, out,
	    err)) < 0)
		return -1;
	return n + rc;
}

static int
legacy_array(const char *uri, struct json_object *doc, const char *arr,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *a, *e;
	size_t i;
	int n = 0, rc;

	if (!json_object_object_get_ex(doc, arr, &a) || a == NULL)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return err_set(err, WP_E_PROTOCOL, "%s: %s is not an array",
		    uri, arr);
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object))
			continue;
		rc = strcmp(arr, "PowerControl") == 0 ? power_control(uri, e, i,
		    out, err) : power_supply(uri, e, i, out, err);
		if (rc < 0)
			return -1;
		n += rc;
	}
	return n;
}

static int
parse_power(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	int n, rc;

	if ((n = legacy_array(uri, doc, "PowerControl", out, err)) < 0 ||
	    (rc = legacy_array(uri, doc, "PowerSupplies", out, err)) < 0)
		return -1;
	return n + rc;
}

/* The newest sample of an HPE PowerDetail array (latest Time, else the
 * last), and the one before it; NULL when there is none. */
static struct json_object *
newest_detail(struct json_object *doc, struct json_object **prev)
{
	struct json_object *a, *e, *best = NULL;
	const char *t, *bt = NULL;
	size_t i;

	*prev = NULL;
	if (!json_object_object_get_ex(doc, "PowerDetail", &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object))
			continue;
		t = str_member(e, "Time");
		if (best == NULL || (t && bt && strcmp(t, bt) >= 0) ||
		    (t == NULL && bt == NULL)) {
			*prev = best;
			best = e;
			bt = t;
		}
	}
	return best;
}

/* One HPE meter reading: value v of key frag, window win. */
static int
oem_add(const char *uri, const char *frag, const char *source, int src,
    struct json_object *o, const char *prop, wp_time win,
    struct rf_readings *out, struct wp_err *err)
{
	struct rf_reading r;
	double v;
	int dec = 0, rc;

	base(&r, uri, frag, src, WP_Q_POWER, WP_GAUGE);
	snprintf(r.source, sizeof(r.source), "%s", source);
	r.flags = WP_F_OEM;
	r.role = RF_ROLE_INPUT;
	if ((rc = num_member(o, prop, &v, &dec, err)) <= 0) {
		if (rc < 0)
			err_prefix(err, "%s#/%s", uri, frag);
		return rc;
	}
	set_time(o, "Time", &r.device_time);
	if (win > 0) {
		r.avg_window = win;
		r.flags |= WP_F_AVERAGED;
	}
	if (finish(&r, v, dec, 1, "W", err) < 0)
		return drop(out, err);
	return rf_readings_add(out, &r) < 0 ? err_set(err, WP_E_INTERNAL,
	    "out of memory") : 1;
}

/*
 * HPE iLO power meters (HpePowerMeter, HpPowerMeter: .../PowerMeter and
 * .../FastPowerMeter): the newest PowerDetail sample's Average is the
 * reading (its window the gap to the sample before, or SampleTime; its
 * Time the reading time); the top-level Average is the 24-hour mean,
 * listed only.
 */
static int
parse_oem_meter(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *d, *prev;
	wp_time win = 0, t1, t0;
	double st;
	bool fast = strcasestr(uri, "FastPowerMeter") != NULL;
	int n = 0, rc;

	if (num_member(doc, "SampleTime", &st, NULL, NULL) == 1 && st > 0)
		win = (wp_time)(st * WP_SEC);
	if ((d = newest_detail(doc, &prev)) != NULL) {
		set_time(d, "Time", &t1);
		if (prev != NULL) {
			set_time(prev, "Time", &t0);
			if (t0 > 0 && t1 > t0)
				win = t1 - t0;
		}
		if ((n = oem_add(uri, "PowerDetail/newest/Average", fast ?
		    "Oem.Hpe.FastPowerMeter" : "Oem.Hpe.PowerMeter",
		    RF_SRC_OEM, d, "Average", win, out, err)) < 0)
			return -1;
	} else if (win > 0) {	/* older iLO: Average over SampleTime */
		return oem_add(uri, "Average", "Oem.Hpe.PowerMeter.Average",
		    RF_SRC_OEM, doc, "Average", win, out, err);
	}
	if ((rc = oem_add(uri, "Average", "Oem.Hpe.PowerMeter.Average24h",
	    RF_SRC_OTHER, doc, "Average", 24 * 3600 * WP_SEC, out, err)) < 0)
		return -1;
	return n + rc;
}

/* Time of a Lenovo history sample: TimestampWithTZ "2026-01-05
 * 10:00:30-05:00" (a space for the T), else 0. */
static wp_time
lenovo_time(struct json_object *e)
{
	const char *s = str_member(e, "TimestampWithTZ");
	char buf[40];
	wp_time t;

	if (s == NULL || strlen(s) >= sizeof(buf))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	if (strlen(buf) > 10 && buf[10] == ' ')
		buf[10] = 'T';
	return clock_parse_time(buf, &t) == 0 ? t : 0;
}

/*
 * Lenovo XClarity Controller history (LenovoHistoryMetricValueContainer,
 * listed by the system's Oem.Lenovo.Metrics): only the SystemInputPower
 * container is the node's input (the others are outputs, sub-systems or
 * temperatures).  The newest Container[] sample whose MetricType is Avg is
 * the reading, its window the gap to the Avg sample before it.
 */
static int
parse_lenovo_history(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	struct json_object *a, *e, *best = NULL;
	const char *id = str_member(doc, "ContainerName");
	wp_time t, bt = 0, pt = 0;
	size_t i;
	int n;

	if (id == NULL)
		id = str_member(doc, "Id");
	if (id == NULL || strcmp(id, "SystemInputPower") != 0 ||
	    !json_object_object_get_ex(doc, "Container", &a) ||
	    !json_object_is_type(a, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object) ||
		    str_member(e, "MetricType") == NULL ||
		    strcmp(str_member(e, "MetricType"), "Avg") != 0)
			continue;
		t = lenovo_time(e);
		if (best == NULL || t > bt) {
			pt = bt;
			best = e;
			bt = t;
		} else if (t > pt) {
			pt = t;
		}
	}
	if (best == NULL)
		return 0;
	if ((n = oem_add(uri, "Container/newest/MetricValue",
	    "Oem.Lenovo.SystemInputPower", RF_SRC_OEM, best, "MetricValue",
	    pt > 0 && bt > pt ? bt - pt : 0, out, err)) == 1)
		out->v[out->n - 1].device_time = bt;
	return n;
}

/* Outlet, Circuit (mains, branches), PowerDistributionMetrics. */
static int
parse_pdu_part(const char *uri, struct json_object *doc, const char *type,
    struct rf_readings *out, struct wp_err *err)
{
	char s1[48], s2[48];
	const char *id = str_member(doc, "Id");
	size_t first = out->n, i;
	int n = 0, rc;

	snprintf(s1, sizeof(s1), "%s.EnergykWh", type);
	snprintf(s2, sizeof(s2), "%s.PowerWatts", type);
	if ((rc = excerpt(uri, doc, "EnergykWh", s1, RF_SRC_PDU, WP_Q_ENERGY,
	    WP_COUNTER, J_PER_KWH, "kWh", RF_ROLE_INPUT, out, err)) < 0)
		return -1;
	n += rc;
	if ((rc = excerpt(uri, doc, "PowerWatts", s2, RF_SRC_PDU, WP_Q_POWER,
	    WP_GAUGE, 1, "W", RF_ROLE_INPUT, out, err)) < 0)
		return -1;
	n += rc;
	for (i = first; i < out->n && id; i++)
		snprintf(out->v[i].id, sizeof(out->v[i].id), "%s", id);
	return n;
}

/* The excerpt properties a MetricReport value is read from (known unit). */
static const struct report_prop {
	const char	*prop;
	int		 q, src;
	double		 scale;
	const char	*unit;
} report_props[] = {
	{ "EnergyJoules", WP_Q_ENERGY, RF_SRC_ENV_ENERGYJ, 1, "J" },
	{ "EnergykWh", WP_Q_ENERGY, RF_SRC_ENV_ENERGYKWH, J_PER_KWH, "kWh" },
	{ "PowerWatts", WP_Q_POWER, RF_SRC_ENV_POWER, 1, "W" },
	{ "InputPowerWatts", WP_Q_POWER, RF_SRC_PSU_POWER, 1, "W" },
};

/*
 * MetricProperty "P#/EnergyJoules[/Reading]" (or EnergykWh, PowerWatts,
 * InputPowerWatts) -> the key of that excerpt ("P#/EnergyJoules") and
 * what it is.  NULL if it is not one we read.
 */
static const struct report_prop *
report_property(const char *mp, char *key, size_t len)
{
	const char *h = strstr(mp, "#/"), *p;
	size_t i, n;

	if (h == NULL || h == mp || strncmp(mp, "/redfish/", 9) != 0)
		return NULL;
	p = h + 2;
	for (i = 0; i < sizeof(report_props) / sizeof(report_props[0]); i++) {
		n = strlen(report_props[i].prop);
		if (strncmp(p, report_props[i].prop, n) != 0 || (p[n] != '\0' &&
		    strcmp(p + n, "/Reading") != 0))
			continue;
		if ((size_t)(h - mp) + 2 + n >= len)
			return NULL;
		snprintf(key, len, "%.*s#/%s", (int)(h - mp), mp,
		    report_props[i].prop);
		return &report_props[i];
	}
	return NULL;
}

/* MetricValue: a string per the schema ("123.4"), a number from some. */
static int
report_value(struct json_object *e, double *v, int *dec)
{
	struct json_object *mv;
	const char *s, *dot;
	char *end;

	if (!json_object_object_get_ex(e, "MetricValue", &mv) || mv == NULL)
		return 0;
	if (json_object_is_type(mv, json_type_double) ||
	    json_object_is_type(mv, json_type_int)) {
		*v = json_object_get_double(mv);
		*dec = decimals(mv);
		return 1;
	}
	if (!json_object_is_type(mv, json_type_string))
		return -1;
	s = json_object_get_string(mv);
	if (*s == '\0')
		return 0;	/* no reading yet */
	*v = strtod(s, &end);
	if (end == s || *end != '\0')
		return -1;
	dot = strchr(s, '.');
	*dec = dot ? (int)strspn(dot + 1, "0123456789") : 0;
	return 1;
}

/*
 * Dell iDRAC telemetry (the PowerMetrics MetricReport): a MetricValues
 * member with MetricId SystemInputPower and an Oem.Dell part names no
 * MetricProperty; it is the server's input meter (WP_F_OEM).  One labelled
 * a Minimum or Maximum (an aggregation, "... Maximum (5m0s)") is not the
 * reading; an Average's window is its label's duration.  The report is a
 * time series: the newest Timestamp counts.  0 when e is not one; 1 added
 * or replaced; -1 on error.
 */
static int
dell_metric(const char *uri, struct json_object *e, struct rf_readings *out,
    struct wp_err *err)
{
	struct json_object *oem, *dell;
	struct rf_reading r, *old;
	const char *id = str_member(e, "MetricId"), *lab = NULL, *p, *q;
	char win[32];
	double v;
	int dec, rc;
	size_t i;

	if (id == NULL || strcmp(id, "SystemInputPower") != 0 ||
	    !json_object_object_get_ex(e, "Oem", &oem) ||
	    !json_object_object_get_ex(oem, "Dell", &dell))
		return 0;
	if ((lab = str_member(dell, "Label")) != NULL &&
	    (strstr(lab, "Minimum") || strstr(lab, "Maximum")))
		return 0;
	if ((rc = report_value(e, &v, &dec)) <= 0)
		return rc < 0 ? err_set(err, WP_E_PROTOCOL, "%s: MetricValue "
		    "of %s is not a number", uri, id) : 0;
	base(&r, uri, "Oem/Dell/SystemInputPower", RF_SRC_OEM, WP_Q_POWER,
	    WP_GAUGE);
	snprintf(r.source, sizeof(r.source), "Oem.Dell.SystemInputPower");
	snprintf(r.id, sizeof(r.id), "%s", id);
	r.flags = WP_F_OEM;
	r.role = RF_ROLE_INPUT;
	set_time(e, "Timestamp", &r.device_time);
	if (lab && strstr(lab, "Average") && (p = strrchr(lab, '(')) != NULL &&
	    (q = strchr(p, ')')) != NULL && (size_t)(q - p) < sizeof(win)) {
		snprintf(win, sizeof(win), "%.*s", (int)(q - p - 1), p + 1);
		if (clock_parse_duration(win, &r.avg_window) == 0 &&
		    r.avg_window > 0)
			r.flags |= WP_F_AVERAGED;
		else
			r.avg_window = 0;
	}
	if (finish(&r, v, dec, 1, "W", err) < 0)
		return drop(out, err);
	for (i = 0; i < out->n; i++) {
		old = &out->v[i];
		if (strcmp(old->key, r.key) != 0)
			continue;
		if (r.device_time > old->device_time)
			*old = r;
		return 0;
	}
	return rf_readings_add(out, &r) < 0 ? err_set(err, WP_E_INTERNAL,
	    "out of memory") : 1;
}

/*
 * A TelemetryService MetricReport: each MetricValues member naming an
 * EnvironmentMetrics EnergyJoules or PowerWatts property becomes a reading
 * keyed as that excerpt would be (so a plan can fetch one report instead
 * of each resource); uri is the report, Timestamp the reading time.
 */
static int
parse_metric_report(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	const struct report_prop *rp;
	struct json_object *mvs, *e;
	struct rf_reading r;
	const char *mp;
	char key[sizeof(r.key)];
	int dec, n = 0, rc;
	size_t i;
	double v;

	if (!json_object_object_get_ex(doc, "MetricValues", &mvs) ||
	    mvs == NULL)
		return 0;
	if (!json_object_is_type(mvs, json_type_array))
		return err_set(err, WP_E_PROTOCOL, "%s: MetricValues is not "
		    "an array", uri);
	for (i = 0; i < json_object_array_length(mvs) && i < 4096; i++) {
		e = json_object_array_get_idx(mvs, i);
		if (!json_object_is_type(e, json_type_object) ||
		    (mp = str_member(e, "MetricProperty")) == NULL ||
		    (rp = report_property(mp, key, sizeof(key))) == NULL) {
			if (json_object_is_type(e, json_type_object) &&
			    (rc = dell_metric(uri, e, out, err)) != 0) {
				if (rc < 0)
					return -1;
				n++;
			}
			continue;
		}
		if ((rc = report_value(e, &v, &dec)) == 0)
			continue;
		if (rc < 0)
			return err_set(err, WP_E_PROTOCOL, "%s: MetricValue of "
			    "%s is not a number", uri, mp);
		base(&r, uri, NULL, rp->src, rp->q, rp->q == WP_Q_ENERGY ?
		    WP_COUNTER : WP_GAUGE);
		snprintf(r.key, sizeof(r.key), "%s", key);
		snprintf(r.source, sizeof(r.source), "MetricReport.%s",
		    rp->prop);
		snprintf(r.id, sizeof(r.id), "%s", str_member(e, "MetricId") ?
		    str_member(e, "MetricId") : "");
		r.role = rp->src == RF_SRC_PSU_POWER ? RF_ROLE_PSU :
		    RF_ROLE_INPUT;
		set_time(e, "Timestamp", &r.device_time);
		if (finish(&r, v, dec, rp->scale, rp->unit, err) < 0) {
			drop(out, err);
			continue;
		}
		if (rf_readings_find(out, r.key) != NULL)
			continue;	/* listed twice: the first counts */
		if (rf_readings_add(out, &r) < 0)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		n++;
	}
	return n;
}

int
rf_parse_resource(const char *uri, struct json_object *doc,
    struct rf_readings *out, struct wp_err *err)
{
	char type[64];

	if (!json_object_is_type(doc, json_type_object))
		return err_set(err, WP_E_PROTOCOL, "%s: not a JSON object", uri);
	rf_odata_type(doc, type, sizeof(type));
	if (strcmp(type, "EnvironmentMetrics") == 0)
		return parse_envmetrics(uri, doc, out, err);
	if (strcmp(type, "Sensor") == 0)
		return parse_sensor(uri, doc, out, err);
	if (strcmp(type, "SensorCollection") == 0)
		return parse_sensor_coll(uri, doc, out, err);
	if (strcmp(type, "PowerSupplyMetrics") == 0)
		return parse_psu_metrics(uri, doc, out, err);
	if (strcmp(type, "Power") == 0)
		return parse_power(uri, doc, out, err);
	if (strcmp(type, "HpePowerMeter") == 0 ||
	    strcmp(type, "HpPowerMeter") == 0)
		return parse_oem_meter(uri, doc, out, err);
	if (strcmp(type, "LenovoHistoryMetricValueContainer") == 0)
		return parse_lenovo_history(uri, doc, out, err);
	if (strcmp(type, "Outlet") == 0 || strcmp(type, "Circuit") == 0 ||
	    strcmp(type, "PowerDistributionMetrics") == 0)
		return parse_pdu_part(uri, doc, type, out, err);
	if (strcmp(type, "MetricReport") == 0)
		return parse_metric_report(uri, doc, out, err);
	return 0;
}

static void
remove_at(struct rf_readings *r, size_t i)
{
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[0]));
	r->n--;
}

/* Do an excerpt's value and its Sensor's differ by more than 10 % (and
 * more than one unit)? */
static bool
disagree(const struct rf_reading *x, const struct rf_reading *y)
{
	double d = fabs(x->value - y->value);

	return d > 1 && d > 0.1 * fmax(fabs(x->value), fabs(y->value));
}

/* Merges excerpt x with its Sensor y (removed by the caller). */
static void
fold(struct rf_reading *x, const struct rf_reading *y)
{
	if (x->reset_time == 0)
		x->reset_time = y->reset_time;
	if (isnan(x->lifetime))
		x->lifetime = y->lifetime;
	if (x->device_time == 0)
		x->device_time = y->device_time;
	if (y->absent)
		x->absent = true;
	x->ds_found = true;
}

/* The Sensor excerpt i cites, or r->n. */
static size_t
cited(const struct rf_readings *r, size_t i)
{
	const struct rf_reading *x = &r->v[i], *y;
	size_t j;

	for (j = 0; j < r->n; j++) {
		y = &r->v[j];
		if (j != i && y->ds_uri[0] == '\0' && !y->ds_disagree &&
		    y->quantity == x->quantity && strcmp(y->key, x->ds_uri) == 0)
			return j;
	}
	return r->n;
}

void
rf_readings_merge(struct rf_readings *r)
{
	struct rf_reading *x, *y;
	size_t i = 0, j;

	while (i < r->n) {
		x = &r->v[i];
		if (x->ds_uri[0] == '\0' || x->ds_found ||
		    (j = cited(r, i)) == r->n) {
			i++;
			continue;
		}
		y = &r->v[j];
		if (!x->absent && !y->absent && disagree(x, y)) {
			/* the Sensor is the data's source: it stays */
			y->ds_disagree = true;
			y->ds_value = x->value;
			remove_at(r, i);
			continue;
		}
		fold(x, y);
		remove_at(r, j);
		if (j < i)
			i--;
		i++;
	}
}
