/* regmap.c - meter register maps: YAML loading, read plans, exact decode. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/diag.h"
#include "../../collector/lib/sample.h"
#include "../../collector/lib/ynode.h"
#include "regmap.h"

static const char *const type_names[] = {
	"u16", "s16", "u32", "s32", "u64", "s64", "f32", "f64",
};
static const uint8_t type_regs[] = { 1, 1, 2, 2, 4, 4, 2, 4 };
static const char *const order_names[] = { "ABCD", "CDAB", "BADC", "DCBA" };

static const struct {
	const char	*unit;
	int		 quantity;
	double		 si;
} units[] = {
	{ "Wh", WP_Q_ENERGY, 3600.0 },
	{ "kWh", WP_Q_ENERGY, 3.6e6 },
	{ "MWh", WP_Q_ENERGY, 3.6e9 },
	{ "W", WP_Q_POWER, 1.0 },
	{ "kW", WP_Q_POWER, 1e3 },
	{ "MW", WP_Q_POWER, 1e6 },
	{ "var", WP_Q_OTHER, 1.0 }, { "kvar", WP_Q_OTHER, 1.0 },
	{ "VA", WP_Q_OTHER, 1.0 }, { "kVA", WP_Q_OTHER, 1.0 },
	{ "varh", WP_Q_OTHER, 1.0 }, { "kvarh", WP_Q_OTHER, 1.0 },
	{ "VAh", WP_Q_OTHER, 1.0 }, { "kVAh", WP_Q_OTHER, 1.0 },
	{ "V", WP_Q_OTHER, 1.0 }, { "A", WP_Q_OTHER, 1.0 },
	{ "Hz", WP_Q_OTHER, 1.0 }, { "%", WP_Q_OTHER, 1.0 },
	{ "PF", WP_Q_OTHER, 1.0 }, { "deg", WP_Q_OTHER, 1.0 },
	{ "s", WP_Q_OTHER, 1.0 },
};

int
regmap_type_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strcmp(s, type_names[i]) == 0)
			return (int)i;
	return -1;
}

int
regmap_order_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++)
		if (strcmp(s, order_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
regmap_type_name(int type)
{
	return type >= 0 && type <= RM_F64 ? type_names[type] : "?";
}

const char *
regmap_order_name(int order)
{
	return order >= 0 && order <= RM_DCBA ? order_names[order] : "?";
}

int
regmap_unit_parse(const char *unit, int *quantity, double *si)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].unit) == 0) {
			*quantity = units[i].quantity;
			*si = units[i].si;
			return 0;
		}
	}
	return -1;
}

/* ---- decode ---------------------------------------------------------- */

static uint16_t
swap16(uint16_t r)
{
	return (uint16_t)((r >> 8) | (r << 8));
}

uint64_t
regmap_assemble(const uint16_t *regs, int nregs, int order)
{
	bool reverse = order == RM_CDAB || order == RM_DCBA;
	bool bswap = order == RM_BADC || order == RM_DCBA;
	uint64_t u = 0;
	uint16_t r;
	int i;

	if (nregs == 1)		/* word order is meaningless for one word */
		return regs[0];
	for (i = 0; i < nregs; i++) {
		r = reverse ? regs[nregs - 1 - i] : regs[i];
		if (bswap)
			r = swap16(r);
		u = (u << 16) | r;
	}
	return u;
}

/* Value of the pattern u as type; sets *ulp to one step at that value. */
static double
typed_value(uint64_t u, int type, double *ulp)
{
	uint32_t u32 = (uint32_t)u;
	float f;
	double d;

	*ulp = 1.0;
	switch (type) {
	case RM_U16: case RM_U32: case RM_U64:
		return (double)u;
	case RM_S16:
		return (double)(int16_t)(uint16_t)u;
	case RM_S32:
		return (double)(int32_t)u32;
	case RM_S64:
		return (double)(int64_t)u;
	case RM_F32:
		memcpy(&f, &u32, sizeof(f));
		if (isfinite(f))
			*ulp = (double)(nextafterf(fabsf(f), INFINITY) - fabsf(f));
		return (double)f;
	default:
		memcpy(&d, &u, sizeof(d));
		if (isfinite(d))
			*ulp = nextafter(fabs(d), INFINITY) - fabs(d);
		return d;
	}
}

int
regmap_decode(const struct rm_value *v, const uint16_t *regs,
    struct rm_reading *out, struct wp_err *err)
{
	uint64_t u;
	double raw, ulp, val;
	int i;

	u = regmap_assemble(regs, v->nregs, v->order);
	for (i = 0; i < v->n_na; i++)
		if (u == v->na[i])
			return 1;
	raw = typed_value(u, v->type, &ulp);
	if (!isfinite(raw))
		return err_set(err, WP_E_PROTOCOL, "%s: %s (%s %s reads %s)",
		    v->name, isnan(raw) ? "NaN" : "infinite value",
		    regmap_type_name(v->type), regmap_order_name(v->order),
		    isnan(raw) ? "NaN" : "Inf");
	val = raw * v->scale;
	if ((v->has_min && val < v->min) || (v->has_max && val > v->max))
		return err_set(err, WP_E_PROTOCOL,
		    "%s: %.6g %s outside sanity bounds [%.6g, %.6g] (wrong "
		    "word order or register map?)", v->name, val, v->unit,
		    v->has_min ? v->min : -INFINITY,
		    v->has_max ? v->max : INFINITY);
	out->raw = raw;
	out->value = val;
	out->resolution = ulp * fabs(v->scale);
	return 0;
}

/* ---- plan ------------------------------------------------------------ */

static int
cmp_value(const void *a, const void *b)
{
	const struct rm_value *x = *(const struct rm_value *const *)a;
	const struct rm_value *y = *(const struct rm_value *const *)b;

	if (x->fc != y->fc)
		return x->fc - y->fc;
	return (int)x->addr - (int)y->addr;
}

int
regmap_plan(const struct regmap *m, struct rm_plan *plan,
    struct wp_err *err)
{
	const struct rm_value **sorted;
	struct rm_read *cur = NULL;
	unsigned end, vend;
	int max = m->max_read > 0 && m->max_read <= RM_MAX_READ ?
	    m->max_read : RM_MAX_READ;
	size_t i;

	plan->r = NULL;
	plan->n = 0;
	if (m->n == 0)
		return 0;
	sorted = calloc(m->n, sizeof(*sorted));
	plan->r = calloc(m->n, sizeof(*plan->r));
	if (sorted == NULL || plan->r == NULL) {
		free(sorted);
		regmap_plan_fini(plan);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	for (i = 0; i < m->n; i++)
		sorted[i] = &m->v[i];
	qsort(sorted, m->n, sizeof(*sorted), cmp_value);
	for (i = 0; i < m->n; i++) {
		vend = (unsigned)sorted[i]->addr + sorted[i]->nregs;
		if (cur != NULL && cur->fc == sorted[i]->fc) {
			end = (unsigned)cur->addr + cur->count;
			/* contiguous (or within max_gap), still fits */
			if (sorted[i]->addr <= end + (unsigned)m->max_gap &&
			    (vend > end ? vend : end) - cur->addr <=
			    (unsigned)max) {
				if (vend > end)
					cur->count = (uint16_t)(vend -
					    cur->addr);
				continue;
			}
		}
		cur = &plan->r[plan->n++];
		cur->fc = sorted[i]->fc;
		cur->addr = sorted[i]->addr;
		cur->count = sorted[i]->nregs;
	}
	free(sorted);
	return 0;
}

void
regmap_plan_fini(struct rm_plan *plan)
{
	free(plan->r);
	plan->r = NULL;
	plan->n = 0;
}

/* ---- YAML loading ---------------------------------------------------- */

struct ydoc {
	const char	*path;
	struct wp_err	*err;
};

static int
yerr(struct ydoc *y, const struct ynode *n, const char *fmt, const char *a,
    const char *b)
{
	char msg[200];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return err_set(y->err, WP_E_CONFIG, "%s:%d: %s", y->path,
	    n != NULL ? n->line : 0, msg);
}

/* Scalar text of map[key], or NULL if absent; -1 via *bad if not scalar. */
static const char *
ystr(struct ydoc *y, const struct ynode *map, const char *key, int *bad)
{
	const struct ynode *n = ynode_get(map, key);

	if (n == NULL)
		return NULL;
	if (n->type != YN_SCALAR) {
		*bad = yerr(y, n, "%s: expected a scalar%s", key, "");
		return NULL;
	}
	return n->value;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

static int
parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno != 0 || end == s || *end != '\0' || !isfinite(*out) ?
	    -1 : 0;
}

static int
check_keys(struct ydoc *y, const struct ynode *map, const char *const *allowed)
{
	const struct ynode *k;
	char hint[160];

	for (k = map->child; k != NULL; k = k->next)
		if (!ynode_key_in(k->key, allowed)) {
			ynode_key_hint(hint, sizeof(hint), k->key, allowed,
			    NULL);
			return yerr(y, k, "%s%s", hint, "");
		}
	return 0;
}

static int
copy_str(struct ydoc *y, const struct ynode *map, const char *key, char *dst,
    size_t len, bool required)
{
	int bad = 0;
	const char *s = ystr(y, map, key, &bad);

	if (bad)
		return -1;
	if (s == NULL)
		return required ? yerr(y, map, "missing \"%s\"%s", key, "") :
		    0;
	if (strlen(s) >= len)
		return yerr(y, ynode_get(map, key), "%s: too long%s", key, "");
	strcpy(dst, s);
	return 0;
}

static int
get_num(struct ydoc *y, const struct ynode *map, const char *key, double *out,
    bool *found)
{
	int bad = 0;
	const char *s = ystr(y, map, key, &bad);

	*found = false;
	if (bad)
		return -1;
	if (s == NULL)
		return 0;
	if (parse_double(s, out) < 0)
		return yerr(y, ynode_get(map, key), "%s: not a number: \"%s\"",
		    key, s);
	*found = true;
	return 0;
}

static int
na_one(struct ydoc *y, const struct ynode *e, struct rm_value *v)
{
	uint64_t u, lim;

	lim = v->nregs == 4 ? UINT64_MAX :
	    (((uint64_t)1 << (16 * v->nregs)) - 1);
	if (e == NULL || e->type != YN_SCALAR ||
	    parse_u64(e->value, &u) < 0 || u > lim ||
	    v->n_na == RM_MAX_NA)
		return yerr(y, e, "not_available: bad pattern for %s (hex, "
		    "at most 4, width of the type)%s", v->name, "");
	v->na[v->n_na++] = u;
	return 0;
}

static int
value_na(struct ydoc *y, const struct ynode *vn, struct rm_value *v)
{
	const struct ynode *n = ynode_get(vn, "not_available"), *it;

	if (n == NULL)
		return 0;
	if (n->type == YN_SCALAR)
		return na_one(y, n, v);
	if (n->type != YN_SEQ)
		return yerr(y, n, "not_available: a pattern or a list%s%s",
		    "", "");
	for (it = n->child; it != NULL; it = it->next)
		if (na_one(y, it, v) < 0)
			return -1;
	return 0;
}

static int
value_name(struct ydoc *y, const struct ynode *vn, struct rm_value *v)
{
	const char *p;

	if (copy_str(y, vn, "name", v->name, sizeof(v->name), true) < 0)
		return -1;
	for (p = v->name; *p != '\0'; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p)
		    && *p != '_')
			return yerr(y, vn, "name \"%s\": use [a-z0-9_]%s",
			    v->name, "");
	return copy_str(y, vn, "meaning", v->meaning, sizeof(v->meaning),
	    true);
}

static int
value_where(struct ydoc *y, const struct ynode *vn, struct rm_value *v, int base)
{
	const char *s;
	uint64_t u;
	int bad = 0, t;

	s = ystr(y, vn, "fc", &bad);
	if (bad || s == NULL || (strcmp(s, "3") != 0 && strcmp(s, "4") != 0))
		return yerr(y, vn, "%s: fc must be 3 (holding) or 4 (input)%s",
		    v->name, "");
	v->fc = s[0] - '0';
	s = ystr(y, vn, "type", &bad);
	if (bad || s == NULL || (t = regmap_type_parse(s)) < 0)
		return yerr(y, vn, "%s: type must be one of u16 s16 u32 s32 "
		    "u64 s64 f32 f64%s", v->name, "");
	v->type = (uint8_t)t;
	v->nregs = type_regs[t];
	s = ystr(y, vn, "order", &bad);
	if (bad)
		return -1;
	t = s == NULL ? RM_ABCD : regmap_order_parse(s);
	if (t < 0)
		return yerr(y, vn, "%s: order must be ABCD CDAB BADC or "
		    "DCBA%s", v->name, "");
	v->order = (uint8_t)t;
	s = ystr(y, vn, "address", &bad);
	if (bad || s == NULL || parse_u64(s, &u) < 0 || u < (uint64_t)base ||
	    u - (uint64_t)base + v->nregs > 65536)
		return yerr(y, vn, "%s: address missing or out of range "
		    "(register_base %s)", v->name, base ? "1" : "0");
	v->addr = (uint16_t)(u - (uint64_t)base);
	return 0;
}

static int
value_unit(struct ydoc *y, const struct ynode *vn, struct rm_value *v)
{
	const char *s;
	double d;
	bool found;
	int bad = 0;

	if (copy_str(y, vn, "unit", v->unit, sizeof(v->unit), true) < 0)
		return -1;
	if (regmap_unit_parse(v->unit, &v->quantity, &v->si) < 0)
		return yerr(y, vn, "%s: unknown unit \"%s\"", v->name,
		    v->unit);
	v->scale = 1.0;
	if (get_num(y, vn, "scale", &d, &found) < 0)
		return -1;
	if (found) {
		if (d == 0)
			return yerr(y, vn, "%s: scale 0%s", v->name, "");
		v->scale = d;
	}
	s = ystr(y, vn, "kind", &bad);
	if (bad || s == NULL ||
	    (strcmp(s, "counter") != 0 && strcmp(s, "gauge") != 0))
		return yerr(y, vn, "%s: kind must be counter or gauge%s",
		    v->name, "");
	v->kind = strcmp(s, "counter") == 0 ? WP_COUNTER : WP_GAUGE;
	if (get_num(y, vn, "min", &v->min, &v->has_min) < 0 ||
	    get_num(y, vn, "max", &v->max, &v->has_max) < 0)
		return -1;
	return 0;
}

static int
value_role(struct ydoc *y, const struct ynode *vn, struct rm_value *v)
{
	const char *s;
	int bad = 0;

	s = ystr(y, vn, "role", &bad);
	if (bad)
		return -1;
	v->role = RM_ROLE_NONE;
	if (s == NULL)
		return 0;
	if (strcmp(s, "total_energy_import") == 0) {
		if (v->quantity != WP_Q_ENERGY || v->kind != WP_COUNTER)
			return yerr(y, vn, "%s: total_energy_import must be "
			    "an energy counter (Wh/kWh/MWh)%s", v->name, "");
		v->role = RM_ROLE_ENERGY;
	} else if (strcmp(s, "total_power") == 0) {
		if (v->quantity != WP_Q_POWER || v->kind != WP_GAUGE)
			return yerr(y, vn, "%s: total_power must be a power "
			    "gauge (W/kW/MW)%s", v->name, "");
		v->role = RM_ROLE_POWER;
	} else
		return yerr(y, vn, "%s: role must be total_energy_import or "
		    "total_power, not \"%s\"", v->name, s);
	return 0;
}

static int
load_value(struct ydoc *y, const struct ynode *vn, struct rm_value *v, int base)
{
	static const char *const keys[] = { "name", "meaning", "fc",
	    "address", "type", "order", "scale", "unit", "kind", "role",
	    "not_available", "min", "max", "page", NULL };

	if (vn == NULL || vn->type != YN_MAP)
		return yerr(y, vn, "values: each entry is a mapping%s%s", "",
		    "");
	if (check_keys(y, vn, keys) < 0 || value_name(y, vn, v) < 0 ||
	    value_where(y, vn, v, base) < 0 || value_unit(y, vn, v) < 0 ||
	    value_role(y, vn, v) < 0 || value_na(y, vn, v) < 0)
		return -1;
	return 0;
}

static int
check_roles(struct ydoc *y, const struct ynode *root, struct regmap *m)
{
	size_t i, j;

	m->energy = m->power = -1;
	for (i = 0; i < m->n; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(m->v[i].name, m->v[j].name) == 0)
				return yerr(y, root, "duplicate value name "
				    "\"%s\"%s", m->v[i].name, "");
		if (m->v[i].role == RM_ROLE_ENERGY) {
			if (m->energy >= 0)
				return yerr(y, root, "more than one "
				    "total_energy_import%s%s", "", "");
			m->energy = (int)i;
		} else if (m->v[i].role == RM_ROLE_POWER) {
			if (m->power >= 0)
				return yerr(y, root, "more than one "
				    "total_power%s%s", "", "");
			m->power = (int)i;
		}
	}
	if (m->energy < 0 || m->power < 0)
		return yerr(y, root, "a map needs one value with role "
		    "total_energy_import and one with total_power%s%s", "",
		    "");
	return 0;
}

static int
load_header(struct ydoc *y, const struct ynode *root, struct regmap *m)
{
	static const char *const keys[] = { "vendor", "model", "document",
	    "register_base", "max_read", "max_gap", "values", "notes", NULL };
	double d;
	bool found;

	if (root == NULL || root->type != YN_MAP)
		return yerr(y, root, "a map is a YAML mapping%s%s", "", "");
	if (check_keys(y, root, keys) < 0 ||
	    copy_str(y, root, "vendor", m->vendor, sizeof(m->vendor),
	    true) < 0 ||
	    copy_str(y, root, "model", m->model, sizeof(m->model), true) < 0 ||
	    copy_str(y, root, "document", m->document, sizeof(m->document),
	    true) < 0)
		return -1;
	if (get_num(y, root, "register_base", &d, &found) < 0)
		return -1;
	if (found && d != 0 && d != 1)
		return yerr(y, root, "register_base must be 0 or 1%s%s", "",
		    "");
	m->register_base = found ? (int)d : 0;
	if (get_num(y, root, "max_read", &d, &found) < 0)
		return -1;
	if (found && (d < 4 || d > RM_MAX_READ || d != floor(d)))
		return yerr(y, root, "max_read must be 4..125%s%s", "", "");
	m->max_read = found ? (int)d : RM_MAX_READ;
	if (get_num(y, root, "max_gap", &d, &found) < 0)
		return -1;
	if (found && (d < 0 || d > 32 || d != floor(d)))
		return yerr(y, root, "max_gap must be 0..32%s%s", "", "");
	m->max_gap = found ? (int)d : 0;
	return 0;
}

static int
load_doc(struct ydoc *y, const struct ynode *root, struct regmap *m)
{
	const struct ynode *vals, *it;
	size_t n = 0;

	if (load_header(y, root, m) < 0)
		return -1;
	vals = ynode_get(root, "values");
	if (vals == NULL || vals->type != YN_SEQ || vals->child == NULL)
		return yerr(y, root, "values: a non-empty list%s%s", "", "");
	for (it = vals->child; it != NULL; it = it->next)
		n++;
	if ((m->v = calloc(n, sizeof(*m->v))) == NULL)
		return err_set(y->err, WP_E_INTERNAL, "out of memory");
	for (it = vals->child; it != NULL; it = it->next)
		if (load_value(y, it, &m->v[m->n++], m->register_base) < 0)
			return -1;
	return check_roles(y, root, m);
}

struct regmap *
regmap_load_file(const char *path, const char *stem, struct wp_err *err)
{
	struct ydoc y = { .path = path, .err = err };
	struct diag d = { .main_file = path };
	struct ynode *root;
	struct regmap *m;
	FILE *f;
	int rc = -1;

	if ((f = fopen(path, "r")) == NULL) {
		err_set(err, WP_E_CONFIG, "%s: %s", path, strerror(errno));
		return NULL;
	}
	root = ynode_parse(f, &d);
	fclose(f);
	if ((m = calloc(1, sizeof(*m))) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	else if (d.n_err > 0) {
		diag_sort(&d);
		err_set(err, WP_E_CONFIG, "%s:%d: YAML: %s", path, d.v[0].line,
		    d.v[0].msg);
	} else {
		snprintf(m->stem, sizeof(m->stem), "%s", stem);
		rc = load_doc(&y, root, m);
	}
	diag_fini(&d);
	ynode_free(root);
	if (rc < 0) {
		regmap_free(m);
		return NULL;
	}
	return m;
}

void
regmap_free(struct regmap *m)
{
	if (m == NULL)
		return;
	free(m->v);
	free(m);
}
