/* redfish_discover.c - the pure link walker (no I/O). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "redfish_choose.h"
#include "redfish_discover.h"
#include "redfish_model.h"
#include "redfish_names.h"
#include "redfish_topo.h"

static int push(struct rf_disc *, const char *, int, int);
static int dispatch(struct rf_disc *, const struct item *,
    struct json_object *, struct wp_err *);

struct rf_disc *
rf_disc_new(int mode, const char *system)
{
	struct rf_disc *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->mode = mode;
	d->phase = 1;
	rf_copy(d->want_system, sizeof(d->want_system), system);
	rf_readings_init(&d->rd);
	if (push(d, "/redfish/v1/", R_ROOT, OWN_NONE) < 0) {
		rf_disc_free(d);
		return NULL;
	}
	return d;
}

void
rf_disc_free(struct rf_disc *d)
{
	struct blk *b;
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n; i++) {
		free(d->q[i].uri);
		free(d->q[i].alt);
	}
	while ((b = d->pool) != NULL) {
		d->pool = b->next;
		free(b);
	}
	free(d->q);
	free(d->ch);
	free(d->sys);
	free(d->gpu);
	free(d->series);
	free(d->found);
	rf_readings_fini(&d->rd);
	free(d);
}

size_t
rf_disc_dropped(const struct rf_disc *d, const char **why)
{
	*why = d->rd.dropped_why;
	return d->rd.dropped;
}

const char *
rf_disc_last_problem(const struct rf_disc *d)
{
	return d->problem;
}

int
rf_disc_requests(const struct rf_disc *d)
{
	return d->requests;
}

size_t
rf_disc_notes(const struct rf_disc *d, const char *const **out)
{
	*out = d->notes;
	return d->n_notes;
}

/* Queues uri for role; its answer goes to owner.  Fragments and foreign
 * hosts are not fetched; a URI already queued for the role is not
 * queued twice (so that link loops end).  0, or -1 on ENOMEM. */
static int
push_item(struct rf_disc *d, const char *uri, int role, int owner,
    bool expanded)
{
	struct item *it;
	size_t i;

	if (uri == NULL || *uri == '\0' || strlen(uri) >= RF_URI_MAX)
		return 0;
	if (strchr(uri, '#') != NULL || strncmp(uri, "/redfish/", 9) != 0)
		return 0;
	for (i = 0; i < d->n; i++)
		if (d->q[i].role == role && strcmp(d->q[i].uri, uri) == 0)
			return 0;
	if (d->n >= MAX_FETCH) {
		if (d->dropped++ == 0)
			rf_note(d, "the walk stopped at %d requests: links "
			    "after %s not fetched", MAX_FETCH, uri);
		return 0;
	}
	if (rf_grow((void **)&d->q, d->n, &d->cap, sizeof(*d->q), 16) < 0)
		return -1;
	it = &d->q[d->n];
	memset(it, 0, sizeof(*it));
	if ((it->uri = strdup(uri)) == NULL)
		return -1;
	it->role = role;
	it->owner = owner;
	it->expanded = expanded;
	d->n++;
	return 0;
}

static int
push(struct rf_disc *d, const char *uri, int role, int owner)
{
	return push_item(d, uri, role, owner, false);
}

/* A member collection: with $expand where the service takes it (the plain
 * URI is the fallback when that answer is refused). */
static int
push_coll(struct rf_disc *d, const char *uri, int role, int owner)
{
	char q[RF_URI_MAX];
	struct item *it;

	if (uri == NULL || d->expand[0] == '\0' || strchr(uri, '?') ||
	    snprintf(q, sizeof(q), "%s?%s", uri, d->expand) >= (int)sizeof(q))
		return push(d, uri, role, owner);
	if (push_item(d, q, role, owner, true) < 0)
		return -1;
	it = &d->q[d->n - 1];
	if (strcmp(it->uri, q) == 0 && it->alt == NULL &&
	    (it->alt = strdup(uri)) == NULL)
		return -1;
	return 0;
}

bool
rf_is_gpu_name(const char *s)
{
	const char *p;

	if (s == NULL || (p = strcasestr(s, "GPU")) == NULL)
		return false;
	p += 3;
	while (*p == '_' || *p == '-' || *p == ' ' || (*p >= 'A' &&
	    *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
		p++;
	return *p >= '0' && *p <= '9';
}

static bool
json_true(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_boolean) &&
	    json_object_get_boolean(v);
}

/* ProtocolFeaturesSupported: $select, and the $expand form to use. */
static void
on_features(struct rf_disc *d, struct json_object *doc)
{
	struct json_object *pf, *ex;

	if (!json_object_object_get_ex(doc, "ProtocolFeaturesSupported", &pf))
		return;
	d->plan.select_ok = json_true(pf, "SelectQuery");
	if (!json_object_object_get_ex(pf, "ExpandQuery", &ex) ||
	    !json_object_is_type(ex, json_type_object))
		return;
	if (json_true(ex, "NoLinks"))
		snprintf(d->expand, sizeof(d->expand), "$expand=.%s",
		    json_true(ex, "Levels") ? "($levels=1)" : "");
	else if (json_true(ex, "ExpandAll"))
		snprintf(d->expand, sizeof(d->expand), "$expand=*%s",
		    json_true(ex, "Levels") ? "($levels=1)" : "");
}

static void
on_root(struct rf_disc *d, struct json_object *doc)
{
	const char *s;

	on_features(d, doc);
	s = rf_link_in(doc, "Sessions", 0);
	rf_copy(d->plan.session_uri, sizeof(d->plan.session_uri),
	    s ? s : "/redfish/v1/SessionService/Sessions");
	if (d->mode != RF_MODE_PDU) {
		push_coll(d, rf_link(doc, "Chassis"), R_CHASSIS_COLL, OWN_NONE);
		push_coll(d, rf_link(doc, "Systems"), R_SYS_COLL, OWN_NONE);
		push(d, rf_link(doc, "TelemetryService"), R_TELEMETRY,
		    OWN_NONE);
	}
	push_coll(d, rf_link(doc, "Managers"), R_MGR_COLL, OWN_NONE);
	if (d->mode != RF_MODE_NODE)
		push(d, rf_link(doc, "PowerEquipment"), R_PEQ, OWN_NONE);
}

/* Does a collection member carry its resource (inlined or expanded)? */
static bool
has_body(struct json_object *e)
{
	struct json_object *v;

	return json_object_is_type(e, json_type_object) &&
	    (json_object_object_get_ex(e, "@odata.type", &v) ||
	    json_object_object_get_ex(e, "Id", &v) ||
	    json_object_object_get_ex(e, "ReadingType", &v));
}

/* The last path segment of uri (a member's Id as the URI says it). */
static const char *
last_segment(const char *uri)
{
	const char *s = strrchr(uri, '/');

	return s ? s + 1 : uri;
}

/* A member to GET: Sensors whose Id names another quantity are not, nor
 * (for a node) those whose Id names a component, never its wall. */
static int
member_push(struct rf_disc *d, int role, const char *uri, int owner)
{
	if (role == R_SENSOR && rf_names_not_power(last_segment(uri))) {
		d->skipped_names++;
		return 0;
	}
	if (role == R_SENSOR && d->mode == RF_MODE_NODE &&
	    rf_names_component(last_segment(uri))) {
		d->skipped_parts++;
		return 0;
	}
	return push(d, uri, role, owner);
}

static void
note_link(struct rf_disc *d, const char *uri, const struct wp_err *e)
{
	d->plan.dangling++;
	snprintf(d->problem, sizeof(d->problem), "%s: %s", uri,
	    e && e->msg[0] ? e->msg : "unreadable");
}

/* Pages and counts: follows Members@odata.nextLink, notes a collection
 * that says it has more members than it gives. */
static void
more_members(struct rf_disc *d, const struct item *it, struct json_object *doc,
    size_t given)
{
	struct json_object *cnt;
	const char *next = rf_str(doc, "Members@odata.nextLink");

	if (next != NULL) {
		push_item(d, next, it->role, it->owner, it->expanded);
		return;
	}
	if (json_object_object_get_ex(doc, "Members@odata.count", &cnt) &&
	    json_object_is_type(cnt, json_type_int) &&
	    (size_t)json_object_get_int(cnt) > given && it->role != R_REPORTS)
		rf_note(d, "%s: Members@odata.count is %d but %zu members "
		    "are given and no nextLink", it->uri,
		    json_object_get_int(cnt), given);
}

/*
 * The members of a collection for child role: those with a body are read
 * at once (inlined by the service or by $expand), the others fetched; at
 * most max, the rest noted.
 */
static int
each_member(struct rf_disc *d, const struct item *it, struct json_object *doc,
    int role, int owner, size_t max, struct wp_err *err)
{
	struct json_object *m, *e;
	struct item sub;
	size_t i, n;
	const char *uri;

	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array))
		return err_set(err, WP_E_PROTOCOL, "%s: not a collection "
		    "(no Members array)", it->uri);
	n = json_object_array_length(m);
	for (i = 0; i < n && i < max; i++) {
		e = json_object_array_get_idx(m, i);
		if ((uri = rf_link(e, NULL)) == NULL)
			continue;
		if (!has_body(e)) {
			if (member_push(d, role, uri, owner) < 0)
				return err_set(err, WP_E_INTERNAL,
				    "out of memory");
			continue;
		}
		if (role == R_SENSOR)
			continue;	/* read with the collection */
		memset(&sub, 0, sizeof(sub));
		sub.uri = (char *)uri;
		sub.role = role;
		sub.owner = owner;
		sub.expanded = true;
		if (dispatch(d, &sub, e, err) < 0) {
			if (err->class == WP_E_INTERNAL)
				return -1;
			note_link(d, uri, err);
		}
	}
	if (n > max)
		rf_note(d, "%s: %zu members, only the first %zu read",
		    it->uri, n, max);
	more_members(d, it, doc, n);
	return 0;
}

/* The chassis part of a PoweredBy link "/redfish/v1/Chassis/X/Power#/..". */
static void
chassis_of(const char *uri, char *out, size_t len)
{
	const char *p;
	size_t n;

	out[0] = '\0';
	if (uri == NULL || strncmp(uri, "/redfish/v1/Chassis/", 20) != 0)
		return;
	p = uri + 20;
	n = strcspn(p, "/#?");
	if (20 + n >= len)
		return;
	memcpy(out, uri, 20 + n);
	out[20 + n] = '\0';
}

static bool
component_type(const char *t)
{
	static const char *const parts[] = { "Module", "Component", "Card",
	    "Expansion", "Sidecar", "StorageEnclosure", "IPBasedDrive",
	    "HeatExchanger", "ImmersionTank", NULL };
	size_t i;

	for (i = 0; parts[i]; i++)
		if (strcmp(t, parts[i]) == 0)
			return true;
	return false;
}

/* Links of a chassis: systems, ContainedBy, PoweredBy (as chassis),
 * Contains, ManagedBy, PowerDistribution. */
static void
chassis_links(struct chassis *c, struct json_object *doc)
{
	char fed[RF_URI_MAX];
	const char *s;
	size_t i;
	int j;

	for (i = 0; i < 64 && c->n_systems < RF_LINKS &&
	    (s = rf_link_in(doc, "ComputerSystems", i)) != NULL; i++)
		rf_copy_uri(c->systems[c->n_systems++], RF_URI_MAX, s);
	rf_copy_uri(c->parent, sizeof(c->parent), rf_link_in(doc,
	    "ContainedBy", 0));
	for (i = 0; i < 64 && c->n_fed_by < RF_LINKS &&
	    (s = rf_link_in(doc, "PoweredBy", i)) != NULL; i++) {
		chassis_of(s, fed, sizeof(fed));
		if (fed[0] == '\0' || rf_same_uri(fed, c->uri))
			continue;	/* its own supplies */
		for (j = 0; j < c->n_fed_by; j++)
			if (rf_same_uri(c->fed_by[j], fed))
				break;
		if (j == c->n_fed_by)
			rf_copy_uri(c->fed_by[c->n_fed_by++], RF_URI_MAX, fed);
	}
	for (i = 0; (s = rf_link_in(doc, "Contains", i)) != NULL; i++) {
		if (c->n_contains == 2 * RF_LINKS) {
			c->contains_more = true;
			break;
		}
		rf_copy_uri(c->contains[c->n_contains++], RF_URI_MAX, s);
	}
	rf_copy_uri(c->manager, sizeof(c->manager), rf_link_in(doc,
	    "ManagedBy", 0));
	rf_copy_uri(c->pdu, sizeof(c->pdu), rf_link_in(doc,
	    "PowerDistribution", 0));
}

static void
on_chassis(struct rf_disc *d, const char *uri, struct json_object *doc)
{
	struct chassis *c;

	if (d->n_ch >= MAX_CHASSIS) {
		rf_note(d, "more than %d chassis: %s and later not read",
		    MAX_CHASSIS, uri);
		return;
	}
	if (rf_grow((void **)&d->ch, d->n_ch, &d->cap_ch, sizeof(*d->ch),
	    4) < 0)
		return;
	c = &d->ch[d->n_ch++];
	memset(c, 0, sizeof(*c));
	rf_copy_uri(c->uri, sizeof(c->uri), rf_link(doc, NULL) ?
	    rf_link(doc, NULL) : uri);
	rf_copy(c->id, sizeof(c->id), rf_str(doc, "Id") ? rf_str(doc, "Id") :
	    last_segment(c->uri));
	rf_copy(c->name, sizeof(c->name), rf_str(doc, "Name"));
	rf_copy(c->type, sizeof(c->type), rf_str(doc, "ChassisType"));
	rf_copy(c->power_state, sizeof(c->power_state),
	    rf_str(doc, "PowerState"));
	rf_copy(c->vendor, sizeof(c->vendor), rf_str(doc, "Manufacturer"));
	rf_copy(c->model, sizeof(c->model), rf_str(doc, "Model"));
	rf_copy(c->env, sizeof(c->env), rf_link(doc, "EnvironmentMetrics"));
	rf_copy(c->sensors, sizeof(c->sensors), rf_link(doc, "Sensors"));
	rf_copy(c->psub, sizeof(c->psub), rf_link(doc, "PowerSubsystem"));
	rf_copy(c->power, sizeof(c->power), rf_link(doc, "Power"));
	chassis_links(c, doc);
	c->gpu = rf_is_gpu_name(c->id) || rf_is_gpu_name(c->name);
	/* A part: a GPU, a part's type inside another chassis, cooling
	 * equipment; named as a part (CPLD, BMC, baseboard...) decides once
	 * the systems are known (rf_topo_walk: a system's own top-level
	 * chassis is never a part by its name). */
	c->part_name = rf_names_part(c->id) || rf_names_part(c->name);
	c->component = c->gpu || (component_type(c->type) &&
	    c->parent[0] != '\0') || strcmp(c->type, "HeatExchanger") == 0 ||
	    strcmp(c->type, "ImmersionTank") == 0;
	if (c->pdu[0] != '\0' && d->mode == RF_MODE_NODE)
		rf_note(d, "Chassis %s is power distribution equipment (%s): "
		    "not a node's wall; read it as a PDU (pdus: with url:)",
		    c->id, c->pdu);
}

/* A Lenovo XClarity system's history containers (Oem.Lenovo.Metrics): the
 * collection is read for its SystemInputPower member (the OEM meter). */
static void
on_system_oem(struct rf_disc *d, struct json_object *doc)
{
	struct json_object *oem, *v, *l;

	if (json_object_object_get_ex(doc, "Oem", &oem) &&
	    json_object_object_get_ex(oem, "Lenovo", &v) &&
	    json_object_object_get_ex(v, "Metrics", &l))
		push(d, rf_link(l, NULL), R_OEM_COLL, OWN_REPORT);
}

/* The members of an OEM history collection that are a node's input. */
static void
on_oem_coll(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	struct json_object *m;
	const char *uri;
	size_t i;

	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(m) && i < 256; i++) {
		uri = rf_link(json_object_array_get_idx(m, i), NULL);
		if (uri && strcmp(last_segment(uri), "SystemInputPower") == 0)
			push(d, uri, R_OEM_METER, it->owner);
	}
}

static void
on_system(struct rf_disc *d, const char *uri, struct json_object *doc)
{
	struct system *s;
	const char *c;
	size_t i;

	if (d->n_sys >= MAX_SYSTEMS) {
		rf_note(d, "more than %d systems: %s and later not read",
		    MAX_SYSTEMS, uri);
		return;
	}
	if (rf_grow((void **)&d->sys, d->n_sys, &d->cap_sys, sizeof(*d->sys),
	    2) < 0)
		return;
	s = &d->sys[d->n_sys++];
	memset(s, 0, sizeof(*s));
	rf_copy_uri(s->uri, sizeof(s->uri), rf_link(doc, NULL) ?
	    rf_link(doc, NULL) : uri);
	rf_copy(s->id, sizeof(s->id), rf_str(doc, "Id") ? rf_str(doc, "Id") :
	    last_segment(s->uri));
	rf_copy(s->name, sizeof(s->name), rf_str(doc, "Name"));
	rf_copy(s->power_state, sizeof(s->power_state),
	    rf_str(doc, "PowerState"));
	rf_copy(s->vendor, sizeof(s->vendor), rf_str(doc, "Manufacturer"));
	rf_copy(s->model, sizeof(s->model), rf_str(doc, "Model"));
	for (i = 0; i < 64 && s->n_chassis < RF_LINKS &&
	    (c = rf_link_in(doc, "Chassis", i)) != NULL; i++)
		rf_copy_uri(s->chassis[s->n_chassis++], RF_URI_MAX, c);
	rf_copy_uri(s->manager, sizeof(s->manager), rf_link_in(doc,
	    "ManagedBy", 0));
	rf_copy(s->processors, sizeof(s->processors),
	    rf_link(doc, "Processors"));
	on_system_oem(d, doc);
}

static void
on_manager(struct rf_disc *d, const char *uri, struct json_object *doc)
{
	struct manager *m;

	if (d->n_mgr >= MAX_MANAGERS)
		return;		/* identity needs only the first ones */
	m = &d->mgr[d->n_mgr++];
	rf_copy_uri(m->uri, sizeof(m->uri), rf_link(doc, NULL) ?
	    rf_link(doc, NULL) : uri);
	rf_copy(m->type, sizeof(m->type), rf_str(doc, "ManagerType"));
	rf_copy(m->vendor, sizeof(m->vendor), rf_str(doc, "Manufacturer"));
	rf_copy(m->model, sizeof(m->model), rf_str(doc, "Model"));
	rf_copy(m->firmware, sizeof(m->firmware),
	    rf_str(doc, "FirmwareVersion"));
}

static int
add_readings(struct rf_disc *d, const char *uri, struct json_object *doc,
    int owner, struct wp_err *err)
{
	size_t first = d->rd.n, i;

	d->rd.n_problem = 0;
	if (rf_parse_resource(uri, doc, &d->rd, err) < 0)
		return -1;
	for (i = first; i < d->rd.n; i++)
		d->rd.v[i].owner = owner;
	if (d->rd.n_problem > 0)
		rf_note(d, "%s: %d member(s) could not be read (last: %s)",
		    uri, d->rd.n_problem, d->rd.problem);
	return 0;
}

static bool
absent(struct json_object *doc)
{
	struct json_object *st;
	const char *v;

	if (!json_object_object_get_ex(doc, "Status", &st) ||
	    (v = rf_str(st, "State")) == NULL)
		return false;
	return strcmp(v, "Absent") == 0 || strcmp(v, "Disabled") == 0;
}

/* A PowerSupply: counted on its chassis, its Metrics fetched unless it is
 * absent.  Some services list a supply at one Id and serve it at another:
 * the Metrics under the Id it gives are the fallback. */
static void
on_psu(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	const char *m = rf_link(doc, "Metrics"), *id = rf_str(doc, "Id");
	const char *slash;
	char alt[RF_URI_MAX];
	struct chassis *c = it->owner >= 0 && it->owner < (int)d->n_ch ?
	    &d->ch[it->owner] : NULL;

	if (c != NULL) {
		c->psu_listed++;
		if (absent(doc))
			c->psu_absent++;
	}
	if (m == NULL || absent(doc))
		return;
	push(d, m, R_PSU_METRICS, it->owner);
	slash = strrchr(it->uri, '/');
	if (id && slash && strcmp(slash + 1, id) != 0 && d->n > 0 &&
	    strcmp(d->q[d->n - 1].uri, m) == 0) {
		snprintf(alt, sizeof(alt), "%.*s/%s/Metrics",
		    (int)(slash - it->uri), it->uri, id);
		free(d->q[d->n - 1].alt);
		d->q[d->n - 1].alt = strdup(alt);	/* NULL: no retry */
	}
}

/* Legacy Power: the supplies it lists (for a complete PSU sum), the HPE
 * meters its Oem links name. */
static void
on_power(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	static const char *const meters[] = { "FastPowerMeter", "PowerMeter" };
	struct json_object *a, *e, *oem, *v, *links, *l;
	struct chassis *c = it->owner >= 0 && it->owner < (int)d->n_ch ?
	    &d->ch[it->owner] : NULL;
	size_t i, k;

	if (c != NULL && json_object_object_get_ex(doc, "PowerSupplies", &a) &&
	    json_object_is_type(a, json_type_array))
		for (i = 0; i < json_object_array_length(a); i++) {
			e = json_object_array_get_idx(a, i);
			c->legacy_listed++;
			if (absent(e))
				c->legacy_absent++;
		}
	if (!json_object_object_get_ex(doc, "Oem", &oem))
		return;
	for (k = 0; k < 2; k++) {
		if (!json_object_object_get_ex(oem, k ? "Hp" : "Hpe", &v) ||
		    (!json_object_object_get_ex(v, "Links", &links) &&
		    !json_object_object_get_ex(v, "links", &links)))
			continue;
		for (i = 0; i < 2; i++) {
			if (!json_object_object_get_ex(links, meters[i], &l))
				continue;
			push(d, rf_link(l, NULL) ? rf_link(l, NULL) :
			    rf_str(l, "href"), R_OEM_METER, it->owner);
		}
	}
}

/* Adds GPU n_gpu (its Id and resource); 0 or -1 on ENOMEM. */
static int
new_gpu(struct rf_disc *d, const char *id, const char *base)
{
	size_t cap = (size_t)d->cap_gpu;
	struct gpu *g;

	if (rf_grow((void **)&d->gpu, (size_t)d->n_gpu, &cap, sizeof(*d->gpu),
	    1) < 0)
		return -1;
	d->cap_gpu = (int)cap;
	g = &d->gpu[d->n_gpu++];
	rf_copy(g->id, sizeof(g->id), id);
	rf_copy_uri(g->base, sizeof(g->base), base);
	return 0;
}

static void
on_proc(struct rf_disc *d, const char *uri, struct json_object *doc)
{
	const char *t = rf_str(doc, "ProcessorType");

	if (t == NULL || strcmp(t, "GPU") != 0 || d->n_gpu >= MAX_GPUS)
		return;
	if (new_gpu(d, rf_str(doc, "Id"), rf_link(doc, NULL) ?
	    rf_link(doc, NULL) : uri) < 0)
		return;
	d->n_gpu_proc++;
	push(d, rf_link(doc, "EnvironmentMetrics"), R_ENV,
	    OWN_GPU + d->n_gpu - 1);
}

static void
on_pdu(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	struct json_object *m;
	size_t i;

	switch (it->role) {
	case R_PEQ:
		push(d, rf_link(doc, "RackPDUs"), R_RACKPDUS, OWN_NONE);
		push(d, rf_link(doc, "PowerShelves"), R_RACKPDUS, OWN_NONE);
		break;
	case R_RACKPDUS:	/* one PDU per target: the first */
		if (d->have_pdu_coll)
			break;
		if (json_object_object_get_ex(doc, "Members", &m) &&
		    json_object_is_type(m, json_type_array) &&
		    json_object_array_length(m) > 0 && (d->have_pdu_coll = true))
			push(d, rf_link(json_object_array_get_idx(m, 0), NULL),
			    R_RACKPDU, OWN_NONE);
		break;
	case R_RACKPDU:
		d->have_pdu = true;
		rf_copy(d->pdu_vendor, sizeof(d->pdu_vendor),
		    rf_str(doc, "Manufacturer"));
		rf_copy(d->pdu_model, sizeof(d->pdu_model), rf_str(doc, "Model"));
		rf_copy(d->pdu_firmware, sizeof(d->pdu_firmware),
		    rf_str(doc, "FirmwareVersion"));
		push(d, rf_link(doc, "Outlets"), R_OUTLETS, OWN_NONE);
		push(d, rf_link(doc, "Mains"), R_MAINS, OWN_NONE);
		push(d, rf_link(doc, "Metrics"), R_PDM, OWN_PDM);
		break;
	case R_OUTLETS:
	case R_MAINS:
		if (!json_object_object_get_ex(doc, "Members", &m) ||
		    !json_object_is_type(m, json_type_array))
			break;
		for (i = 0; i < json_object_array_length(m) && i < 512; i++)
			push(d, rf_link(json_object_array_get_idx(m, i), NULL),
			    it->role == R_OUTLETS ? R_OUTLET : R_MAIN,
			    (it->role == R_OUTLETS ? OWN_OUTLET : OWN_MAIN) +
			    (int)i + 1);
		if (json_object_array_length(m) > 512)
			rf_note(d, "%s: only the first 512 members read",
			    it->uri);
		break;
	}
}

/* MetricReports worth reading: their Id names power, energy or the
 * environment (HGX_PlatformEnvironmentMetrics_0, PowerMetrics). */
static void
on_reports(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	static const char *const words[] = { "power", "pwr", "energy",
	    "environment", "environmental", NULL };
	struct json_object *m;
	const char *uri;
	size_t i, j, n, k = 0, skipped = 0;

	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array))
		return;
	n = json_object_array_length(m);
	for (i = 0; i < n; i++) {
		if ((uri = rf_link(json_object_array_get_idx(m, i), NULL)) ==
		    NULL)
			continue;
		for (j = 0; words[j] && !rf_names_word(last_segment(uri),
		    words[j]); j++)
			;
		if (words[j] == NULL || k >= MAX_REPORTS) {
			skipped++;
			continue;
		}
		push(d, uri, R_REPORT, OWN_REPORT);
		k++;
	}
	if (skipped > 0 && d->mode == RF_MODE_PROBE)
		rf_note(d, "%s: %zu reports not read (their Id names no power "
		    "or energy, or over %d)", it->uri, skipped, MAX_REPORTS);
	more_members(d, it, doc, n);
}

static int
on_sensors(struct rf_disc *d, const struct item *it, struct json_object *doc,
    const char *type, struct wp_err *err)
{
	if (strcmp(type, "SensorCollection") != 0)
		return err_set(err, WP_E_PROTOCOL, "%s: expected a "
		    "SensorCollection, got %s", it->uri, type[0] ? type :
		    "no @odata.type");
	if (add_readings(d, it->uri, doc, it->owner, err) < 0)
		return -1;
	return each_member(d, it, doc, R_SENSOR, it->owner, MAX_FETCH, err);
}

static int
dispatch_coll(struct rf_disc *d, const struct item *it, struct json_object *doc,
    struct wp_err *err)
{
	switch (it->role) {
	case R_CHASSIS_COLL:
		return each_member(d, it, doc, R_CHASSIS, OWN_NONE,
		    MAX_CHASSIS, err);
	case R_SYS_COLL:
		return each_member(d, it, doc, R_SYSTEM, OWN_NONE,
		    MAX_SYSTEMS, err);
	case R_MGR_COLL:
		return each_member(d, it, doc, R_MGR, OWN_NONE, MAX_MANAGERS,
		    err);
	case R_PSU_COLL:
		return each_member(d, it, doc, R_PSU, it->owner, 64, err);
	case R_PROC_COLL:
		return each_member(d, it, doc, R_PROC, it->owner, 256, err);
	}
	return 0;
}

static int
dispatch(struct rf_disc *d, const struct item *it, struct json_object *doc,
    struct wp_err *err)
{
	struct item as;
	char type[64];

	rf_odata_type(doc, type, sizeof(type));
	if (strcmp(type, "SensorCollection") == 0 && it->role != R_SENSORS &&
	    it->owner >= 0 && it->owner < (int)d->n_ch &&
	    !rf_same_uri(d->ch[it->owner].sensors, it->uri)) {
		/* a link that names the Sensors (PowerSubsystem -> Sensors) */
		rf_note(d, "%s: a SensorCollection where another resource was "
		    "linked: read as the chassis' Sensors", it->uri);
		as = *it;
		as.role = R_SENSORS;
		return on_sensors(d, &as, doc, type, err);
	}
	switch (it->role) {
	case R_ROOT:
		on_root(d, doc);
		return 0;
	case R_CHASSIS_COLL: case R_SYS_COLL: case R_MGR_COLL:
	case R_PSU_COLL: case R_PROC_COLL:
		return dispatch_coll(d, it, doc, err);
	case R_CHASSIS:
		on_chassis(d, it->uri, doc);
		return 0;
	case R_SYSTEM:
		on_system(d, it->uri, doc);
		return 0;
	case R_MGR:
		on_manager(d, it->uri, doc);
		return 0;
	case R_SENSORS:
		return on_sensors(d, it, doc, type, err);
	case R_PSUBSYS:
		push_coll(d, rf_link(doc, "PowerSupplies"), R_PSU_COLL,
		    it->owner);
		return 0;
	case R_PSU:
		on_psu(d, it, doc);
		return 0;
	case R_PROC:
		on_proc(d, it->uri, doc);
		return 0;
	case R_POWER:
		on_power(d, it, doc);
		break;
	case R_TELEMETRY:
		push(d, rf_link(doc, "MetricReports"), R_REPORTS, OWN_NONE);
		return 0;
	case R_REPORTS:
		on_reports(d, it, doc);
		return 0;
	case R_OEM_COLL:
		on_oem_coll(d, it, doc);
		return 0;
	case R_PEQ: case R_RACKPDUS: case R_RACKPDU: case R_OUTLETS:
	case R_MAINS:
		on_pdu(d, it, doc);
		return 0;
	}
	return add_readings(d, it->uri, doc, it->owner, err);
}

int
rf_disc_feed(struct rf_disc *d, struct json_object *doc,
    const struct wp_err *fetch_err, struct wp_err *err)
{
	struct item it;
	struct wp_err e = { 0 };

	if (d->head >= d->n)
		return err_set(err, WP_E_INTERNAL, "feed without a request");
	it = d->q[d->head++];
	d->requests++;
	if (doc == NULL) {
		if (it.role == R_ROOT) {
			err_set(err, fetch_err ? fetch_err->class :
			    WP_E_PROTOCOL, "service root: %s", fetch_err ?
			    fetch_err->msg : "unreadable");
			return -1;
		}
		if (it.alt != NULL)	/* the plain URI, or the PSU's Id */
			push_item(d, it.alt, it.role, it.owner, false);
		if (it.alt != NULL && it.expanded)
			rf_note(d, "%s: refused (%s): read without $expand",
			    it.uri, fetch_err && fetch_err->msg[0] ?
			    fetch_err->msg : "unreadable");
		else
			note_link(d, it.uri, fetch_err);
		return 0;
	}
	if (dispatch(d, &it, doc, &e) < 0) {
		if (it.role == R_ROOT || e.class == WP_E_INTERNAL) {
			*err = e;
			return -1;
		}
		note_link(d, it.uri, &e);
	}
	return 0;
}

/* Phase 2: the power resources of the chassis the node needs, the
 * processors of its systems. */
static void
phase2(struct rf_disc *d)
{
	struct chassis *c;
	size_t i;

	rf_topo_walk(d);
	for (i = 0; i < d->n_ch; i++) {
		c = &d->ch[i];
		if (!c->walked)
			continue;
		push(d, c->env, R_ENV, (int)i);
		push_coll(d, c->sensors, R_SENSORS, (int)i);
		push(d, c->psub, R_PSUBSYS, (int)i);
		push(d, c->power, R_POWER, (int)i);
	}
	for (i = 0; i < d->n_sys; i++)
		if (d->sys[i].in_node || d->mode == RF_MODE_PROBE)
			push_coll(d, d->sys[i].processors, R_PROC_COLL, OWN_NONE);
}

/* Phase 3: chassis that stand for a GPU, where no GPU processor exists. */
static void
phase3(struct rf_disc *d)
{
	size_t i;

	if (d->n_gpu_proc > 0 || d->mode == RF_MODE_PDU)
		return;
	for (i = 0; i < d->n_ch && d->n_gpu < MAX_GPUS; i++)
		if (d->ch[i].gpu && (d->ch[i].env[0] ||
		    rf_report_covers(d, d->ch[i].uri))) {
			if (new_gpu(d, d->ch[i].id, d->ch[i].uri) < 0)
				return;
			push(d, d->ch[i].env, R_GPU_CHASSIS_ENV,
			    OWN_GPU + d->n_gpu - 1);
		}
}

const char *
rf_disc_next(struct rf_disc *d)
{
	while (d->head >= d->n) {
		if (d->phase == 1)
			phase2(d);
		else if (d->phase == 2)
			phase3(d);
		else
			return NULL;
		d->phase++;
	}
	return d->q[d->head].uri;
}

int
rf_disc_plan(struct rf_disc *d, const struct rf_plan **plan,
    struct wp_err *err)
{
	if (!d->planned) {
		d->planned = true;
		if (d->skipped_names > 0)
			rf_note(d, "%d Sensors not fetched: their Id names a "
			    "quantity that is not power or energy (temperature, "
			    "voltage, current, fan...)", d->skipped_names);
		if (d->skipped_parts > 0)
			rf_note(d, "%d Sensors not fetched: their Id names a "
			    "component (CPU, GPU, memory, rail...), never the "
			    "wall (probe reads them)", d->skipped_parts);
		d->plan_rc = rf_choose(d, &d->plan_err);
		d->plan.series = d->series;
		d->plan.n_series = d->n_series;
	}
	*plan = &d->plan;
	if (d->plan_rc < 0)
		*err = d->plan_err;
	return d->plan_rc;
}

size_t
rf_disc_found(struct rf_disc *d, const struct rf_found **out)
{
	*out = d->found;
	return d->n_found;
}
