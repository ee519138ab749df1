/* redfish_discover.c - pure link-walking and source choice (no I/O). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "redfish_discover.h"

#define MAX_FETCH	4096	/* bound on one walk */
#define MAX_CHASSIS	128
#define MAX_GPUS	64
#define OWN_GPU		10000	/* owner tags beyond chassis indices */
#define OWN_OUTLET	20000
#define OWN_MAIN	30000
#define OWN_PDM		40000
#define OWN_REPORT	50000	/* a MetricReport's reading, not yet a GPU's */
#define OWN_NONE	-1
#define OWN_DROP	-2	/* a report reading folded into an excerpt */
#define MAX_REPORTS	16

enum role {
	R_ROOT, R_CHASSIS_COLL, R_CHASSIS, R_MGR_COLL, R_MGR, R_ENV,
	R_SENSORS, R_SENSOR, R_PSUBSYS, R_PSU_COLL, R_PSU, R_PSU_METRICS,
	R_POWER, R_OEM_METER, R_SYSTEM, R_PROC_COLL, R_PROC, R_PEQ,
	R_RACKPDUS, R_RACKPDU, R_OUTLETS, R_OUTLET, R_MAINS, R_MAIN, R_PDM,
	R_GPU_CHASSIS_ENV, R_TELEMETRY, R_REPORTS, R_REPORT
};

struct item {
	char	*uri;		/* owned by the queue */
	char	*alt;		/* retried when uri is dangling, or NULL */
	int	 role;
	int	 owner;
};

struct gpu {
	char	 id[64];		/* label name= of gpu/<i> */
	char	 base[RF_URI_MAX];	/* its resource */
};

/* Memory that lives as long as the walker (series names, pick arrays). */
struct blk {
	struct blk *next;
	max_align_t data[];
};

struct chassis {
	char	 uri[RF_URI_MAX];
	char	 id[64], name[64], type[32];
	char	 parent[RF_URI_MAX];	/* ContainedBy, or PoweredBy's chassis */
	char	 system[RF_URI_MAX];	/* first Links.ComputerSystems */
	char	 env[RF_URI_MAX], sensors[RF_URI_MAX], psub[RF_URI_MAX];
	char	 power[RF_URI_MAX];
	char	 vendor[64], model[128];
	bool	 top, gpu, links_proc;
	int	 psu_expected;
};

struct rf_disc {
	int		 mode;
	int		 phase;
	struct item	*q;
	size_t		 head, n, cap;
	struct chassis	*ch;		/* grown as found, up to MAX_CHASSIS */
	size_t		 n_ch, cap_ch;
	int		 n_gpu_proc, n_gpu, cap_gpu;
	struct gpu	*gpu;
	struct blk	*pool;
	int		 n_outlet, n_main;
	bool		 have_pdu, have_pdu_coll;
	struct rf_readings rd;
	struct rf_plan	 plan;
	struct rf_series *series;
	size_t		 n_series, cap_series;
	struct rf_found	*found;
	size_t		 n_found;
	char		 problem[WP_ERR_MSG];
	char		 mgr_firmware[64], mgr_model[128], mgr_vendor[64];
	char		 pdu_vendor[64], pdu_model[128], pdu_firmware[64];
	bool		 planned;
};

static int push(struct rf_disc *, const char *, int, int);

/* Zeroed memory freed with the walker; NULL on ENOMEM. */
static void *
pool_alloc(struct rf_disc *d, size_t size)
{
	struct blk *b;

	if ((b = calloc(1, sizeof(*b) + size)) == NULL)
		return NULL;
	b->next = d->pool;
	d->pool = b;
	return b->data;
}

/* Grows *v (n used, *cap slots of size each) by doubling from first;
 * 0 or -1 on ENOMEM. */
static int
grow(void **v, size_t n, size_t *cap, size_t size, size_t first)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if ((nv = realloc(*v, ncap * size)) == NULL)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

struct rf_disc *
rf_disc_new(int mode)
{
	struct rf_disc *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->mode = mode;
	d->phase = 1;
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

static int
push(struct rf_disc *d, const char *uri, int role, int owner)
{
	struct item *nq;
	size_t i, ncap;

	if (uri == NULL || *uri == '\0' || strlen(uri) >= RF_URI_MAX)
		return 0;
	if (strchr(uri, '#') != NULL || strncmp(uri, "/redfish/", 9) != 0)
		return 0;	/* fragments and foreign hosts are not fetched */
	for (i = 0; i < d->n; i++)
		if (d->q[i].role == role && strcmp(d->q[i].uri, uri) == 0)
			return 0;
	if (d->n >= MAX_FETCH)
		return 0;
	if (d->n == d->cap) {
		ncap = d->cap ? d->cap * 2 : 16;
		if ((nq = realloc(d->q, ncap * sizeof(*nq))) == NULL)
			return -1;
		d->q = nq;
		d->cap = ncap;
	}
	memset(&d->q[d->n], 0, sizeof(d->q[0]));
	if ((d->q[d->n].uri = strdup(uri)) == NULL)
		return -1;
	d->q[d->n].role = role;
	d->q[d->n].owner = owner;
	d->n++;
	return 0;
}

static const char *
str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void
copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Members of a collection: calls fn on each member object. */
static struct json_object *
members(struct json_object *doc)
{
	struct json_object *m;

	if (!json_object_object_get_ex(doc, "Members", &m) ||
	    !json_object_is_type(m, json_type_array))
		return NULL;
	return m;
}

/* First "@odata.id" of Links.<key> (array or object). */
static const char *
link_in(struct json_object *doc, const char *key)
{
	struct json_object *l, *v;

	if (!json_object_object_get_ex(doc, "Links", &l) ||
	    !json_object_object_get_ex(l, key, &v))
		return NULL;
	if (json_object_is_type(v, json_type_array))
		v = json_object_array_length(v) ?
		    json_object_array_get_idx(v, 0) : NULL;
	return v ? rf_link(v, NULL) : NULL;
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

static void
on_root(struct rf_disc *d, struct json_object *doc)
{
	struct json_object *pf, *sel;
	const char *s;

	if (json_object_object_get_ex(doc, "ProtocolFeaturesSupported", &pf) &&
	    json_object_object_get_ex(pf, "SelectQuery", &sel) &&
	    json_object_is_type(sel, json_type_boolean))
		d->plan.select_ok = json_object_get_boolean(sel);
	s = link_in(doc, "Sessions");
	copy(d->plan.session_uri, sizeof(d->plan.session_uri),
	    s ? s : "/redfish/v1/SessionService/Sessions");
	if (d->mode != RF_MODE_PDU) {
		push(d, rf_link(doc, "Chassis"), R_CHASSIS_COLL, OWN_NONE);
		push(d, rf_link(doc, "Managers"), R_MGR_COLL, OWN_NONE);
		push(d, rf_link(doc, "TelemetryService"), R_TELEMETRY,
		    OWN_NONE);
	}
	if (d->mode != RF_MODE_NODE)
		push(d, rf_link(doc, "PowerEquipment"), R_PEQ, OWN_NONE);
}

static void
each_member(struct rf_disc *d, struct json_object *doc, int role, int owner,
    size_t max)
{
	struct json_object *m = members(doc);
	size_t i;

	struct json_object *e;

	for (i = 0; m && i < json_object_array_length(m) && i < max; i++) {
		e = json_object_array_get_idx(m, i);
		if (role == R_SENSOR && str_of(e, "ReadingType") != NULL)
			continue;	/* inlined: already read */
		push(d, rf_link(e, NULL), role, owner);
	}
}

/* The chassis part of a PoweredBy fragment "/redfish/v1/Chassis/X/Power#/..". */
static void
chassis_of(const char *uri, char *out, size_t len)
{
	const char *p;
	size_t n;

	out[0] = '\0';
	if (uri == NULL || strncmp(uri, "/redfish/v1/Chassis/", 20) != 0)
		return;
	p = uri + 20;
	n = strcspn(p, "/#");
	if (20 + n >= len)
		return;
	memcpy(out, uri, 20 + n);
	out[20 + n] = '\0';
}

static void
on_chassis(struct rf_disc *d, const char *uri, struct json_object *doc)
{
	struct chassis *c;
	const char *s;

	if (d->n_ch >= MAX_CHASSIS || grow((void **)&d->ch, d->n_ch,
	    &d->cap_ch, sizeof(*d->ch), 2) < 0)
		return;
	c = &d->ch[d->n_ch++];
	memset(c, 0, sizeof(*c));
	copy(c->uri, sizeof(c->uri), rf_link(doc, NULL) ? rf_link(doc, NULL) :
	    uri);
	copy(c->id, sizeof(c->id), str_of(doc, "Id"));
	copy(c->name, sizeof(c->name), str_of(doc, "Name"));
	copy(c->type, sizeof(c->type), str_of(doc, "ChassisType"));
	copy(c->vendor, sizeof(c->vendor), str_of(doc, "Manufacturer"));
	copy(c->model, sizeof(c->model), str_of(doc, "Model"));
	copy(c->env, sizeof(c->env), rf_link(doc, "EnvironmentMetrics"));
	copy(c->sensors, sizeof(c->sensors), rf_link(doc, "Sensors"));
	copy(c->psub, sizeof(c->psub), rf_link(doc, "PowerSubsystem"));
	copy(c->power, sizeof(c->power), rf_link(doc, "Power"));
	copy(c->system, sizeof(c->system), link_in(doc, "ComputerSystems"));
	if ((s = link_in(doc, "ContainedBy")) != NULL)
		copy(c->parent, sizeof(c->parent), s);
	else
		chassis_of(link_in(doc, "PoweredBy"), c->parent,
		    sizeof(c->parent));
	c->links_proc = link_in(doc, "Processors") != NULL;
	c->gpu = rf_is_gpu_name(c->id) || rf_is_gpu_name(c->name);
}

static struct chassis *
chassis_by_uri(struct rf_disc *d, const char *uri)
{
	size_t i;

	for (i = 0; i < d->n_ch; i++)
		if (strcmp(d->ch[i].uri, uri) == 0)
			return &d->ch[i];
	return NULL;
}

static bool
has_power(const struct chassis *c)
{
	return c->env[0] || c->sensors[0] || c->psub[0] || c->power[0];
}

static bool
ancestor_of(struct rf_disc *d, const struct chassis *a,
    const struct chassis *c)
{
	int hops;

	for (hops = 0; hops < 8 && c && c->parent[0]; hops++) {
		if (strcmp(c->parent, a->uri) == 0)
			return true;
		c = chassis_by_uri(d, c->parent);
	}
	return false;
}

static bool
child_type(const char *t)
{
	static const char *const kids[] = { "Module", "Component", "Card",
	    "Blade", "Sled", "Drawer", "Cartridge", "Expansion", "Sidecar",
	    "StorageEnclosure", "Zone", "IPBasedDrive", "RackGroup", NULL };
	size_t i;

	for (i = 0; kids[i]; i++)
		if (strcmp(t, kids[i]) == 0)
			return true;
	return false;
}

/* Marks the chassis that carry the node's input power. */
static void
choose_tops(struct rf_disc *d)
{
	struct chassis *c, *p;
	size_t i, j;
	int hops, n = 0;

	for (i = 0; i < d->n_ch; i++) {
		c = &d->ch[i];
		if (c->system[0] == '\0' || c->gpu)
			continue;
		for (hops = 0, p = c; p && !has_power(p) && hops < 8; hops++)
			p = p->parent[0] ? chassis_by_uri(d, p->parent) : NULL;
		if (p && has_power(p)) {
			p->top = true;
			n++;
		}
	}
	/* No system: a power shelf alone is its own wall; a PDU's chassis
	 * is not (its outlets and inlets are read as a PDU). */
	for (i = 0; n == 0 && !d->have_pdu && i < d->n_ch; i++) {
		c = &d->ch[i];
		if (has_power(c) && !c->gpu && !child_type(c->type) &&
		    c->parent[0] == '\0')
			c->top = true;
	}
	for (i = 0; i < d->n_ch; i++)	/* never a child and its parent */
		for (j = 0; j < d->n_ch; j++)
			if (i != j && d->ch[i].top && d->ch[j].top &&
			    ancestor_of(d, &d->ch[i], &d->ch[j]))
				d->ch[j].top = false;
}

static void
phase2(struct rf_disc *d)
{
	struct chassis *c;
	size_t i;

	choose_tops(d);
	for (i = 0; i < d->n_ch; i++) {
		c = &d->ch[i];
		if (!c->top && !(d->mode == RF_MODE_PROBE && !c->gpu))
			continue;
		push(d, c->env, R_ENV, (int)i);
		push(d, c->sensors, R_SENSORS, (int)i);
		push(d, c->psub, R_PSUBSYS, (int)i);
		push(d, c->power, R_POWER, (int)i);
		if (c->top)
			push(d, c->system, R_SYSTEM, (int)i);
	}
}

/* Is key a property of the resource at base or below it? */
static bool
under(const char *key, const char *base)
{
	size_t n = strlen(base);

	return n > 0 && strncmp(key, base, n) == 0 && (key[n] == '/' ||
	    key[n] == '#');
}

/* Does a MetricReport carry a reading of base or below it? */
static bool
in_report(struct rf_disc *d, const char *base)
{
	size_t i;

	for (i = 0; i < d->rd.n; i++)
		if (d->rd.v[i].owner == OWN_REPORT &&
		    under(d->rd.v[i].key, base))
			return true;
	return false;
}

/* Adds GPU n_gpu (its Id and resource); 0 or -1 on ENOMEM. */
static int
new_gpu(struct rf_disc *d, const char *id, const char *base)
{
	size_t cap = (size_t)d->cap_gpu;
	struct gpu *g;

	if (grow((void **)&d->gpu, (size_t)d->n_gpu, &cap, sizeof(*d->gpu),
	    1) < 0)
		return -1;
	d->cap_gpu = (int)cap;
	g = &d->gpu[d->n_gpu++];
	copy(g->id, sizeof(g->id), id);
	copy(g->base, sizeof(g->base), base);
	return 0;
}

static void
phase3(struct rf_disc *d)
{
	size_t i;

	if (d->n_gpu_proc > 0)
		return;
	for (i = 0; i < d->n_ch && d->n_gpu < MAX_GPUS; i++)
		if (d->ch[i].gpu && (d->ch[i].env[0] ||
		    in_report(d, d->ch[i].uri))) {
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

static int
add_readings(struct rf_disc *d, const char *uri, struct json_object *doc,
    int owner, struct wp_err *err)
{
	size_t first = d->rd.n, i;

	if (rf_parse_resource(uri, doc, &d->rd, err) < 0)
		return -1;
	for (i = first; i < d->rd.n; i++)
		d->rd.v[i].owner = owner;
	return 0;
}

static void
on_psu(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	const char *m = rf_link(doc, "Metrics"), *id = str_of(doc, "Id");
	const char *slash;
	char alt[RF_URI_MAX];

	if (m == NULL)
		return;
	push(d, m, R_PSU_METRICS, it->owner);
	/* Some services list a supply at one Id and serve it at another. */
	slash = strrchr(it->uri, '/');
	if (id && slash && strcmp(slash + 1, id) != 0 && d->n > 0 &&
	    strcmp(d->q[d->n - 1].uri, m) == 0) {
		snprintf(alt, sizeof(alt), "%.*s/%s/Metrics",
		    (int)(slash - it->uri), it->uri, id);
		free(d->q[d->n - 1].alt);
		d->q[d->n - 1].alt = strdup(alt);	/* NULL: no retry */
	}
}

static void
on_psu_coll(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	struct json_object *m = members(doc), *e;
	struct item sub;
	char uri[RF_URI_MAX];
	size_t i;

	if (m == NULL)
		return;
	if (it->owner >= 0 && it->owner < (int)d->n_ch)
		d->ch[it->owner].psu_expected = (int)json_object_array_length(m);
	for (i = 0; i < json_object_array_length(m) && i < 64; i++) {
		e = json_object_array_get_idx(m, i);
		if (rf_link(e, "Metrics") != NULL || str_of(e, "Id") != NULL) {
			sub = *it;	/* member inlined */
			copy(uri, sizeof(uri), rf_link(e, NULL));
			sub.uri = uri;
			on_psu(d, &sub, e);
		} else
			push(d, rf_link(e, NULL), R_PSU, it->owner);
	}
}

static void
on_proc(struct rf_disc *d, struct json_object *doc)
{
	const char *t = str_of(doc, "ProcessorType");

	if (t == NULL || strcmp(t, "GPU") != 0 || d->n_gpu >= MAX_GPUS)
		return;
	if (new_gpu(d, str_of(doc, "Id"), rf_link(doc, NULL)) < 0)
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
		if ((m = members(doc)) && json_object_array_length(m) > 0 &&
		    (d->have_pdu_coll = true))
			push(d, rf_link(json_object_array_get_idx(m, 0), NULL),
			    R_RACKPDU, OWN_NONE);
		break;
	case R_RACKPDU:
		d->have_pdu = true;
		copy(d->pdu_vendor, sizeof(d->pdu_vendor),
		    str_of(doc, "Manufacturer"));
		copy(d->pdu_model, sizeof(d->pdu_model), str_of(doc, "Model"));
		copy(d->pdu_firmware, sizeof(d->pdu_firmware),
		    str_of(doc, "FirmwareVersion"));
		push(d, rf_link(doc, "Outlets"), R_OUTLETS, OWN_NONE);
		push(d, rf_link(doc, "Mains"), R_MAINS, OWN_NONE);
		push(d, rf_link(doc, "Metrics"), R_PDM, OWN_PDM);
		break;
	case R_OUTLETS:
	case R_MAINS:
		m = members(doc);
		for (i = 0; m && i < json_object_array_length(m) && i < 512;
		    i++)
			push(d, rf_link(json_object_array_get_idx(m, i), NULL),
			    it->role == R_OUTLETS ? R_OUTLET : R_MAIN,
			    (it->role == R_OUTLETS ? OWN_OUTLET : OWN_MAIN) +
			    (int)i + 1);
		break;
	}
}

static void
on_oem_links(struct rf_disc *d, const struct item *it, struct json_object *doc)
{
	static const char *const vendors[] = { "Hpe", "Hp" };
	struct json_object *oem, *v, *links;
	size_t i;

	if (!json_object_object_get_ex(doc, "Oem", &oem))
		return;
	for (i = 0; i < 2; i++)
		if (json_object_object_get_ex(oem, vendors[i], &v) &&
		    json_object_object_get_ex(v, "Links", &links))
			push(d, rf_link(links, "PowerMeter"), R_OEM_METER,
			    it->owner);
}

static int
dispatch(struct rf_disc *d, const struct item *it, struct json_object *doc,
    struct wp_err *err)
{
	char type[64];

	rf_odata_type(doc, type, sizeof(type));
	switch (it->role) {
	case R_ROOT:
		on_root(d, doc);
		return 0;
	case R_CHASSIS_COLL:
		each_member(d, doc, R_CHASSIS, OWN_NONE, MAX_CHASSIS);
		return 0;
	case R_CHASSIS:
		on_chassis(d, it->uri, doc);
		return 0;
	case R_MGR_COLL:
		each_member(d, doc, R_MGR, OWN_NONE, 1);
		return 0;
	case R_MGR:
		copy(d->mgr_firmware, sizeof(d->mgr_firmware),
		    str_of(doc, "FirmwareVersion"));
		copy(d->mgr_model, sizeof(d->mgr_model), str_of(doc, "Model"));
		copy(d->mgr_vendor, sizeof(d->mgr_vendor),
		    str_of(doc, "Manufacturer"));
		return 0;
	case R_SENSORS:
		if (strcmp(type, "SensorCollection") != 0)
			return err_set(err, WP_E_PROTOCOL,
			    "%s: expected a SensorCollection, got %s", it->uri,
			    type[0] ? type : "no @odata.type");
		if (add_readings(d, it->uri, doc, it->owner, err) < 0)
			return -1;
		each_member(d, doc, R_SENSOR, it->owner, 512);
		return 0;
	case R_PSUBSYS:
		push(d, rf_link(doc, "PowerSupplies"), R_PSU_COLL, it->owner);
		return 0;
	case R_PSU_COLL:
		on_psu_coll(d, it, doc);
		return 0;
	case R_PSU:
		on_psu(d, it, doc);
		return 0;
	case R_SYSTEM:
		push(d, rf_link(doc, "Processors"), R_PROC_COLL, it->owner);
		return 0;
	case R_PROC_COLL:
		each_member(d, doc, R_PROC, it->owner, 256);
		return 0;
	case R_PROC:
		on_proc(d, doc);
		return 0;
	case R_POWER:
		on_oem_links(d, it, doc);
		break;
	case R_TELEMETRY:
		push(d, rf_link(doc, "MetricReports"), R_REPORTS, OWN_NONE);
		return 0;
	case R_REPORTS:
		each_member(d, doc, R_REPORT, OWN_REPORT, MAX_REPORTS);
		return 0;
	case R_REPORT:
		break;
	case R_PEQ: case R_RACKPDUS: case R_RACKPDU: case R_OUTLETS:
	case R_MAINS:
		on_pdu(d, it, doc);
		return 0;
	}
	return add_readings(d, it->uri, doc, it->owner, err);
}

static void
note(struct rf_disc *d, const char *uri, const struct wp_err *e)
{
	d->plan.dangling++;
	snprintf(d->problem, sizeof(d->problem), "%s: %s", uri,
	    e && e->msg[0] ? e->msg : "unreadable");
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
	if (doc == NULL) {
		if (it.role == R_ROOT) {
			err_set(err, fetch_err ? fetch_err->class :
			    WP_E_PROTOCOL, "service root: %s", fetch_err ?
			    fetch_err->msg : "unreadable");
			return -1;
		}
		note(d, it.uri, fetch_err);
		if (it.alt != NULL)
			push(d, it.alt, it.role, it.owner);
		return 0;
	}
	if (dispatch(d, &it, doc, &e) < 0) {
		if (it.role == R_ROOT) {
			*err = e;
			return -1;
		}
		note(d, it.uri, &e);
	}
	return 0;
}

/* ---- choosing the sources ---- */

static size_t
select_src(struct rf_disc *d, int owner, int src, int scope, size_t *idx,
    size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < d->rd.n && n < max; i++)
		if (d->rd.v[i].owner == owner && d->rd.v[i].src == src &&
		    (scope < 0 || d->rd.v[i].scope == scope))
			idx[n++] = i;
	return n;
}

/* Among several chassis-wide sensors prefer a "total" input one. */
static size_t
best_named(struct rf_disc *d, size_t *idx, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasestr(d->rd.v[idx[i]].id, "total") != NULL)
			return idx[i];
	return idx[0];
}

struct tier {
	int	 src, scope;
	bool	 all;		/* sum every match (per-supply readings) */
	bool	 complete;	/* ...and only if every supply has one */
};

static const struct tier energy_tiers[] = {
	{ RF_SRC_ENV_ENERGYJ, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_ENERGYJ, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_ENERGYJ, RF_SCOPE_PSU, true, false },
	{ RF_SRC_ENV_ENERGYKWH, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_ENERGYKWH, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_ENERGYKWH, RF_SCOPE_PSU, true, false },
	{ RF_SRC_PSU_ENERGYKWH, RF_SCOPE_PSU, true, true },
	{ -1, 0, false, false }
};

static const struct tier power_tiers[] = {
	{ RF_SRC_PSU_POWER, RF_SCOPE_PSU, true, true },
	{ RF_SRC_ENV_POWER, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_POWER, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_SENSOR_POWER, RF_SCOPE_PSU, true, false },
	{ RF_SRC_POWERCONTROL, RF_SCOPE_CHASSIS, false, false },
	{ RF_SRC_LEGACY_PSU_IN, RF_SCOPE_PSU, true, false },
	{ RF_SRC_OEM, -1, false, false },
	{ -1, 0, false, false }
};

/* Picks the readings of owner for one quantity; returns how many. */
static size_t
choose(struct rf_disc *d, int owner, const struct tier *t, int expected,
    size_t *out, size_t max)
{
	size_t idx[RF_MAX_PICKS], n;

	for (; t->src >= 0; t++) {
		n = select_src(d, owner, t->src, t->scope, idx, RF_MAX_PICKS);
		if (n == 0 || (t->complete && (int)n != expected))
			continue;
		if (!t->all) {
			out[0] = n > 1 ? best_named(d, idx, n) : idx[0];
			return 1;
		}
		if (n > max)
			n = max;
		memcpy(out, idx, n * sizeof(idx[0]));
		return n;
	}
	return 0;
}

/* A new series with room for n_pick picks; NULL on ENOMEM. */
static struct rf_series *
new_series(struct rf_disc *d, const char *name, int boundary, int quantity,
    int kind, size_t n_pick)
{
	struct rf_series *ns;
	struct rf_pick *pk;
	char *nm;

	if (grow((void **)&d->series, d->n_series, &d->cap_series,
	    sizeof(*d->series), 4) < 0 ||
	    (nm = pool_alloc(d, strlen(name) + 1)) == NULL ||
	    (pk = pool_alloc(d, n_pick * sizeof(*pk))) == NULL)
		return NULL;
	memcpy(nm, name, strlen(name) + 1);
	ns = &d->series[d->n_series++];
	memset(ns, 0, sizeof(*ns));
	ns->series = nm;
	ns->source = ns->name = "";
	ns->pick = pk;
	ns->boundary = boundary;
	ns->quantity = quantity;
	ns->kind = kind;
	return ns;
}

static void
add_pick(struct rf_disc *d, struct rf_series *se, size_t ri)
{
	const struct rf_reading *r = &d->rd.v[ri];
	struct rf_pick *p;

	if (se->n_pick >= RF_MAX_PICKS)
		return;
	p = &se->pick[se->n_pick++];	/* room made by new_series */
	p->uri = r->uri;
	p->key = r->key;
	p->reset_uri = "";
	if (r->quantity == WP_Q_ENERGY && r->ds_found && r->reset_time == 0)
		p->reset_uri = r->ds_uri;
	if (se->n_pick == 1) {
		se->source = r->source;
		se->flags = r->flags;
		se->avg_window = r->avg_window;
	}
	if (r->resolution > se->resolution)
		se->resolution = r->resolution;
}

/* One series summed over owners [o0, o1) (skipping non-selected). */
static int
plan_sum(struct rf_disc *d, const char *name, int boundary, int quantity,
    const int *owners, size_t n_own)
{
	const struct tier *t = quantity == WP_Q_ENERGY ? energy_tiers :
	    power_tiers;
	size_t idx[RF_MAX_PICKS], n, i, j, total = 0;
	size_t all[RF_MAX_PICKS];
	struct rf_series *se;
	int exp;

	for (i = 0; i < n_own; i++) {
		exp = owners[i] < (int)d->n_ch ? d->ch[owners[i]].psu_expected :
		    0;
		n = choose(d, owners[i], t, exp, idx, RF_MAX_PICKS - total);
		if (n == 0)
			return 0;	/* every chassis needs one, or none */
		for (j = 0; j < n; j++)
			all[total++] = idx[j];
	}
	if (total == 0)
		return 0;
	if ((se = new_series(d, name, boundary, quantity, quantity ==
	    WP_Q_ENERGY ? WP_COUNTER : WP_GAUGE, total)) == NULL)
		return -1;
	for (i = 0; i < total; i++)
		add_pick(d, se, all[i]);
	return 1;
}

static int
plan_node(struct rf_disc *d)
{
	int owners[MAX_CHASSIS], one, rc;
	size_t i, n = 0;
	char name[WP_SERIES_MAX];

	for (i = 0; i < d->n_ch; i++)
		if (d->ch[i].top)
			owners[n++] = (int)i;
	if (n > 0 && (plan_sum(d, "wall/energy", WP_B_WALL, WP_Q_ENERGY,
	    owners, n) < 0 || plan_sum(d, "wall/power", WP_B_WALL,
	    WP_Q_POWER, owners, n) < 0))
		return -1;
	for (i = 0; i < (size_t)d->n_gpu; i++) {
		one = OWN_GPU + (int)i;
		snprintf(name, sizeof(name), "gpu/%zu/energy", i);
		if ((rc = plan_sum(d, name, WP_B_GPU, WP_Q_ENERGY, &one, 1)) < 0)
			return -1;
		if (rc > 0)
			d->series[d->n_series - 1].name = d->gpu[i].id;
		snprintf(name, sizeof(name), "gpu/%zu/power", i);
		if ((rc = plan_sum(d, name, WP_B_GPU, WP_Q_POWER, &one, 1)) < 0)
			return -1;
		if (rc > 0)
			d->series[d->n_series - 1].name = d->gpu[i].id;
	}
	return 0;
}

/* Outlet n: its Id when numeric, else its 1-based place. */
static void
outlet_label(const char *id, int pos, char *buf, size_t len)
{
	size_t k = strspn(id, "0123456789");

	if (id[0] && id[k] == '\0' && k < 6)
		snprintf(buf, len, "%d", atoi(id));
	else
		snprintf(buf, len, "%d", pos);
}

static int
plan_pdu_one(struct rf_disc *d, int owner, const char *prefix, int boundary,
    const char *num)
{
	size_t i;
	struct rf_series *se;
	char name[WP_SERIES_MAX];
	int q;

	for (q = WP_Q_POWER; q <= WP_Q_ENERGY; q++)
		for (i = 0; i < d->rd.n; i++) {
			if (d->rd.v[i].owner != owner ||
			    d->rd.v[i].quantity != q)
				continue;
			snprintf(name, sizeof(name), "%s/%s/%s", prefix, num,
			    q == WP_Q_ENERGY ? "energy" : "power");
			if ((se = new_series(d, name, boundary, q, q ==
			    WP_Q_ENERGY ? WP_COUNTER : WP_GAUGE, 1)) == NULL)
				return -1;
			add_pick(d, se, i);
			se->name = d->rd.v[i].id;
			break;
		}
	return 0;
}

static int
plan_pdu(struct rf_disc *d)
{
	char num[16];
	int k, mains = 0;
	size_t i;

	for (k = 1; k <= 512; k++) {
		for (i = 0; i < d->rd.n; i++)
			if (d->rd.v[i].owner == OWN_OUTLET + k)
				break;
		if (i == d->rd.n)
			continue;
		outlet_label(d->rd.v[i].id, k, num, sizeof(num));
		if (plan_pdu_one(d, OWN_OUTLET + k, "outlet", WP_B_OUTLET,
		    num) < 0)
			return -1;
	}
	for (k = 1; k <= 64; k++) {
		for (i = 0; i < d->rd.n; i++)
			if (d->rd.v[i].owner == OWN_MAIN + k)
				break;
		if (i == d->rd.n)
			continue;
		snprintf(num, sizeof(num), "%d", ++mains);
		if (plan_pdu_one(d, OWN_MAIN + k, "inlet", WP_B_PDU, num) < 0)
			return -1;
	}
	if (mains == 0 && plan_pdu_one(d, OWN_PDM, "inlet", WP_B_PDU, "1") < 0)
		return -1;
	return 0;
}

static int
boundary_of(struct rf_disc *d, const struct rf_reading *r)
{
	if (r->owner == OWN_REPORT)
		return WP_B_COMPONENT;	/* not a GPU's: listed only */
	if (r->owner >= OWN_PDM)
		return WP_B_PDU;
	if (r->owner >= OWN_MAIN)
		return WP_B_PDU;
	if (r->owner >= OWN_OUTLET)
		return WP_B_OUTLET;
	if (r->owner >= OWN_GPU)
		return r->scope == RF_SCOPE_CHASSIS ? WP_B_GPU : WP_B_COMPONENT;
	if (r->owner < 0 || r->owner >= (int)d->n_ch || !d->ch[r->owner].top)
		return WP_B_COMPONENT;
	if (r->scope == RF_SCOPE_CHASSIS || r->scope == RF_SCOPE_PSU)
		return WP_B_WALL;
	return WP_B_COMPONENT;
}

/* A series is primary when it is the energy one, or power without one. */
static bool
primary(struct rf_disc *d, const struct rf_series *se)
{
	char twin[WP_SERIES_MAX];
	size_t i, n;

	if (se->quantity == WP_Q_ENERGY)
		return true;
	n = strlen(se->series) - strlen("power");
	snprintf(twin, sizeof(twin), "%.*senergy", (int)n, se->series);
	for (i = 0; i < d->n_series; i++)
		if (strcmp(d->series[i].series, twin) == 0)
			return false;
	return true;
}

static int
build_found(struct rf_disc *d)
{
	size_t i, j, k;

	if ((d->found = calloc(d->rd.n + 1, sizeof(*d->found))) == NULL)
		return -1;
	for (i = 0; i < d->rd.n; i++) {
		d->found[i].r = &d->rd.v[i];
		d->found[i].boundary = boundary_of(d, &d->rd.v[i]);
	}
	d->n_found = d->rd.n;
	for (j = 0; j < d->n_series; j++) {
		if (!primary(d, &d->series[j]))
			continue;
		for (k = 0; k < d->series[j].n_pick; k++)
			for (i = 0; i < d->rd.n; i++)
				if (strcmp(d->rd.v[i].key,
				    d->series[j].pick[k].key) == 0)
					d->found[i].chosen = true;
	}
	return 0;
}

static bool
any_top(const struct rf_disc *d)
{
	size_t i;

	for (i = 0; i < d->n_ch; i++)
		if (d->ch[i].top)
			return true;
	return false;
}

static void
device(struct rf_disc *d)
{
	struct rf_plan *p = &d->plan;
	size_t i;

	for (i = 0; i < d->n_ch; i++)
		if (d->ch[i].top) {
			copy(p->vendor, sizeof(p->vendor), d->ch[i].vendor);
			copy(p->model, sizeof(p->model), d->ch[i].model);
			break;
		}
	if (p->vendor[0] == '\0')
		copy(p->vendor, sizeof(p->vendor), d->have_pdu ? d->pdu_vendor :
		    d->mgr_vendor);
	if (p->model[0] == '\0')
		copy(p->model, sizeof(p->model), d->have_pdu ? d->pdu_model :
		    d->mgr_model);
	copy(p->firmware, sizeof(p->firmware), d->mgr_firmware[0] ?
	    d->mgr_firmware : d->pdu_firmware);
	if (d->have_pdu && (d->mode == RF_MODE_PDU || p->vendor[0] == '\0' ||
	    !any_top(d)))
		copy(p->firmware, sizeof(p->firmware), d->pdu_firmware);
}

/*
 * Gives each MetricReport reading of a GPU to that GPU: where the GPU's own
 * resource has the same excerpt, the excerpt is polled through the report
 * (one GET for every GPU instead of one each); otherwise the report's
 * reading is the GPU's source.
 */
static void
adopt_reports(struct rf_disc *d)
{
	struct rf_reading *r, *x = NULL;
	size_t i, j, k;
	int g;

	for (i = 0; i < d->rd.n; i++) {
		r = &d->rd.v[i];
		if (r->owner != OWN_REPORT)
			continue;
		for (j = 0; j < d->rd.n; j++)
			if (j != i && d->rd.v[j].owner != OWN_REPORT &&
			    d->rd.v[j].owner < OWN_GPU &&
			    strcmp(d->rd.v[j].key, r->key) == 0)
				break;
		if (j < d->rd.n) {	/* a chassis' own, read anyway */
			r->owner = OWN_DROP;
			continue;
		}
		for (g = 0; g < d->n_gpu && !under(r->key, d->gpu[g].base);
		    g++)
			;
		if (g == d->n_gpu)
			continue;
		for (j = 0; j < d->rd.n; j++) {
			x = &d->rd.v[j];
			if (j != i && x->owner == OWN_GPU + g &&
			    strcmp(x->key, r->key) == 0)
				break;
		}
		if (j == d->rd.n) {
			r->owner = OWN_GPU + g;
			continue;
		}
		copy(x->uri, sizeof(x->uri), r->uri);
		copy(x->source, sizeof(x->source), r->source);
		x->value = r->value;
		x->raw_value = r->raw_value;
		x->device_time = r->device_time;
		r->owner = OWN_DROP;
	}
	for (i = k = 0; i < d->rd.n; i++)
		if (d->rd.v[i].owner != OWN_DROP)
			d->rd.v[k++] = d->rd.v[i];
	d->rd.n = k;
}

int
rf_disc_plan(struct rf_disc *d, const struct rf_plan **plan,
    struct wp_err *err)
{
	if (!d->planned) {
		rf_readings_merge(&d->rd);
		adopt_reports(d);
		if ((d->mode != RF_MODE_PDU && plan_node(d) < 0) ||
		    (d->mode != RF_MODE_NODE && plan_pdu(d) < 0) ||
		    build_found(d) < 0)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		d->plan.series = d->series;
		d->plan.n_series = d->n_series;
		device(d);
		d->planned = true;
	}
	*plan = &d->plan;
	if (d->n_series == 0 && (d->mode != RF_MODE_PROBE || d->rd.n == 0))
		return err_set(err, WP_E_PROTOCOL,
		    "no power or energy source found (%zu chassis, %d "
		    "unreadable links%s%s)", d->n_ch, d->plan.dangling,
		    d->problem[0] ? "; last: " : "", d->problem);
	return 0;
}

size_t
rf_disc_found(struct rf_disc *d, const struct rf_found **out)
{
	*out = d->found;
	return d->n_found;
}

/* ---- the compact poll plan ---- */

/* Distinct strings of a plan, each copied once into the block. */
struct intern {
	const char	**src;		/* borrowed from the walker */
	char		**dst;		/* in the block, after layout */
	size_t		 n, cap, bytes;
};

/* Index of s in in (added when new); -1 on ENOMEM. */
static long
intern(struct intern *in, const char *s)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (strcmp(in->src[i], s) == 0)
			return (long)i;
	if (in->n == in->cap) {
		if (grow((void **)&in->src, in->n, &in->cap, sizeof(*in->src),
		    16) < 0)
			return -1;
	}
	in->src[in->n] = s;
	in->bytes += strlen(s) + 1;
	return (long)in->n++;
}

/* The copy of s, a string interned before the layout. */
static const char *
interned(struct intern *in, const char *s)
{
	return in->dst[intern(in, s)];
}

/* Index of uri among the n first URIs, or n. */
static size_t
uri_index(const char **uris, size_t n, const char *uri)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(uris[i], uri) == 0)
			break;
	return i;
}

/* Collects the distinct URIs of plan into uris (room for 2 per pick). */
static size_t
collect_uris(const struct rf_plan *plan, const char **uris)
{
	const struct rf_series *se;
	const char *u;
	size_t i, j, m, n = 0;

	for (i = 0; i < plan->n_series; i++) {
		se = &plan->series[i];
		for (j = 0; j < se->n_pick; j++)
			for (m = 0; m < 2; m++) {
				u = m == 0 ? se->pick[j].uri :
				    se->pick[j].reset_uri;
				if (u[0] != '\0' && uri_index(uris, n, u) == n)
					uris[n++] = u;
			}
	}
	return n;
}

/* The properties of uri the plan needs, for $select ("" when a whole
 * Sensor is read, or when unsure). */
static void
select_for(const struct rf_plan *plan, const char *uri, char *buf,
    size_t len)
{
	const struct rf_series *se;
	const char *k, *frag;
	size_t i, j, n, ul = strlen(uri);
	char prop[64];

	buf[0] = '\0';
	for (i = 0; i < plan->n_series; i++) {
		se = &plan->series[i];
		for (j = 0; j < se->n_pick; j++) {
			k = se->pick[j].key;
			if (strncmp(k, uri, ul) != 0)
				continue;
			if (k[ul] != '#' || k[ul + 1] != '/') {
				buf[0] = '\0';	/* a whole Sensor */
				return;
			}
			frag = k + ul + 2;
			n = strcspn(frag, "/");
			snprintf(prop, sizeof(prop), "%.*s", (int)n, frag);
			if (strstr(buf, prop) == NULL && strlen(buf) + n + 2 <
			    len)
				snprintf(buf + strlen(buf), len - strlen(buf),
				    "%s%s", buf[0] ? "," : "", prop);
			else if (strstr(buf, prop) == NULL) {
				buf[0] = '\0';	/* too long: all of it */
				return;
			}
		}
	}
}

/* Interns every string of plan and the $select values (sel, per URI). */
static int
intern_all(struct intern *in, const struct rf_plan *plan, const char **uris,
    size_t n_uris, char (*sel)[160])
{
	const struct rf_series *se;
	size_t i, j;

	for (i = 0; i < n_uris; i++) {
		sel[i][0] = '\0';
		if (plan->select_ok)
			select_for(plan, uris[i], sel[i], sizeof(sel[i]));
		if (intern(in, uris[i]) < 0 || intern(in, sel[i]) < 0)
			return -1;
	}
	for (i = 0; i < plan->n_series; i++) {
		se = &plan->series[i];
		if (intern(in, se->series) < 0 || intern(in, se->source) < 0 ||
		    intern(in, se->name) < 0)
			return -1;
		for (j = 0; j < se->n_pick; j++)
			if (intern(in, se->pick[j].uri) < 0 ||
			    intern(in, se->pick[j].key) < 0 ||
			    intern(in, se->pick[j].reset_uri) < 0)
				return -1;
	}
	return 0;
}

/* Lays out the block: plan, series, picks, URI and select pointers, then
 * the strings; fills everything from plan. */
static struct rf_plan *
compact_fill(const struct rf_plan *plan, struct intern *in, const char **uris,
    char (*sel)[160], size_t n_uris, size_t n_picks)
{
	struct rf_plan *p;
	struct rf_pick *pk;
	char *str;
	size_t i, j, size;

	size = sizeof(*p) + plan->n_series * sizeof(*p->series) +
	    n_picks * sizeof(*pk) + 2 * n_uris * sizeof(char *);
	if ((p = malloc(size + in->bytes)) == NULL ||
	    (in->dst = calloc(in->n + 1, sizeof(*in->dst))) == NULL) {
		free(p);
		return NULL;
	}
	*p = *plan;
	p->series = (struct rf_series *)(p + 1);
	pk = (struct rf_pick *)(p->series + plan->n_series);
	p->uris = (const char **)(pk + n_picks);
	p->select = p->uris + n_uris;
	p->n_uris = n_uris;
	str = (char *)(p->select + n_uris);
	for (i = 0; i < in->n; i++) {
		in->dst[i] = str;
		str += strlen(in->src[i]) + 1;
		memcpy(in->dst[i], in->src[i], strlen(in->src[i]) + 1);
	}
	for (i = 0; i < n_uris; i++) {
		p->uris[i] = interned(in, uris[i]);
		p->select[i] = interned(in, sel[i]);
	}
	for (i = 0; i < plan->n_series; i++) {
		p->series[i] = plan->series[i];
		p->series[i].series = interned(in, plan->series[i].series);
		p->series[i].source = interned(in, plan->series[i].source);
		p->series[i].name = interned(in, plan->series[i].name);
		p->series[i].pick = pk;
		for (j = 0; j < plan->series[i].n_pick; j++, pk++) {
			pk->uri = interned(in, plan->series[i].pick[j].uri);
			pk->key = interned(in, plan->series[i].pick[j].key);
			pk->reset_uri = interned(in,
			    plan->series[i].pick[j].reset_uri);
		}
	}
	return p;
}

struct rf_plan *
rf_plan_compact(const struct rf_plan *plan)
{
	struct intern in = { 0 };
	struct rf_plan *p = NULL;
	const char **uris;
	char (*sel)[160] = NULL;
	size_t i, n_picks = 0, n_uris;

	for (i = 0; i < plan->n_series; i++)
		n_picks += plan->series[i].n_pick;
	if ((uris = calloc(2 * n_picks + 1, sizeof(*uris))) == NULL)
		return NULL;
	n_uris = collect_uris(plan, uris);
	if ((sel = calloc(n_uris + 1, sizeof(*sel))) != NULL &&
	    intern_all(&in, plan, uris, n_uris, sel) == 0)
		p = compact_fill(plan, &in, uris, sel, n_uris, n_picks);
	free(in.src);
	free(in.dst);
	free(sel);
	free(uris);
	return p;
}

void
rf_plan_free(struct rf_plan *p)
{
	free(p);
}

/* The reading of a pick in this poll: its key, from its resource. */
static const struct rf_reading *
find_pick(const struct rf_readings *polled, const struct rf_pick *p)
{
	size_t i;

	for (i = 0; i < polled->n; i++)
		if (strcmp(polled->v[i].key, p->key) == 0 &&
		    strcmp(polled->v[i].uri, p->uri) == 0)
			return &polled->v[i];
	return rf_readings_find(polled, p->key);
}

int
rf_series_sample(const struct rf_series *se, const struct rf_readings *polled,
    struct wp_sample *s, struct wp_err *err)
{
	const struct rf_reading *r, *rs;
	size_t i;

	if (sample_init(s, se->series, se->boundary, se->quantity,
	    se->kind) < 0)
		return err_set(err, WP_E_INTERNAL, "series name too long");
	s->value = s->raw_value = 0;
	for (i = 0; i < se->n_pick; i++) {
		if ((r = find_pick(polled, &se->pick[i])) == NULL)
			return err_set(err, WP_E_PROTOCOL, "%s: no reading in %s",
			    se->series, se->pick[i].key);
		s->value += r->value;
		s->raw_value += r->raw_value;
		if (i == 0) {
			sample_set_unit(s, r->raw_unit);
			s->device_time = r->device_time;
			s->reset_time = r->reset_time;
		}
		if (se->pick[i].reset_uri[0] && (rs = rf_readings_find(polled,
		    se->pick[i].reset_uri)) != NULL && se->n_pick == 1)
			s->reset_time = rs->reset_time;
	}
	if (se->n_pick > 1)
		s->reset_time = 0;	/* a sum has no single reset epoch */
	s->resolution = se->resolution;
	s->avg_window = se->avg_window;
	s->flags = se->flags;
	sample_add_label(s, "source", se->source);
	if (se->name[0])
		sample_add_label(s, "name", se->name);
	return 0;
}

/* Copies src into dst (len bytes) trimmed, with ';' '=' and controls as
 * '_'; returns its length. */
static size_t
label_value(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	while (*src == ' ' || *src == '\t')
		src++;
	for (; *src && n + 1 < len; src++)
		dst[n++] = (*src == ';' || *src == '=' ||
		    (unsigned char)*src < 0x20 || *src == 0x7f) ? '_' : *src;
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
	return n;
}

void
rf_identity_labels(const struct rf_plan *plan, struct wp_sample *s)
{
	static const char *const keys[3] = { "vendor", "model", "fw" };
	char v[3][WP_LABEL_MAX];
	size_t len[3], room, need = 0, left, n = 0, i;
	bool done[3], more = true;

	len[0] = label_value(v[0], sizeof(v[0]), plan->vendor);
	len[1] = label_value(v[1], sizeof(v[1]), plan->model);
	len[2] = label_value(v[2], sizeof(v[2]), plan->firmware);
	room = sizeof(s->labels) - 1 - strlen(s->labels);
	for (i = 0; i < 3; i++) {
		done[i] = len[i] == 0;
		if (!done[i]) {
			need += strlen(keys[i]) + 2;	/* ";key=" */
			n++;
		}
	}
	if (n == 0 || need + n > room)
		return;		/* not even one character each */
	left = room - need;
	/* Short values keep their length; long ones share what is left. */
	while (more && n > 0) {
		more = false;
		for (i = 0; i < 3; i++)
			if (!done[i] && len[i] <= left / n) {
				done[i] = more = true;
				left -= len[i];
				n--;
				break;
			}
	}
	for (i = 0; i < 3; i++) {
		if (!done[i]) {
			len[i] = left / n;
			v[i][len[i]] = '\0';
			while (len[i] > 1 && v[i][len[i] - 1] == ' ')
				v[i][--len[i]] = '\0';
		}
		if (len[i] > 0)
			(void)sample_add_label(s, keys[i], v[i]);
	}
}
