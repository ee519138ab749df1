/* PDU profiles from YAML (the ynode tree); see pdu_profile.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/datafile.h"
#include "../../collector/lib/diag.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/shared.h"
#include "../../collector/lib/ynode.h"
#include "pdu_profile.h"
#include "pdu_units.h"

#define PROFILE_MAX_BYTES	(256 * 1024)
#define ARENA_MAX		65535
#define PROFILES_MAX		256

struct pctx {
	const char	*file;
	struct wp_err	*err;
	struct pdu_profile *p;
	size_t		 cap;		/* of p->arena */
};

static const char *const role_names[] = { "outlet", "inlet", "device",
	"phase", "circuit" };
static const char *const col_names[] = { "name", "power", "energy",
	"apparent_power", "reactive_power", "apparent_energy", "reset_time" };

const char *
pdu_role_name(int role)
{
	if (role < 0 || role > PDU_ROLE_LAST)
		return "?";
	return role_names[role];
}

const char *
pdu_col_name(int col)
{
	if (col < 0 || col >= PDU_NCOL)
		return "?";
	return col_names[col];
}

int
pdu_col_quantity(int col)
{
	switch (col) {
	case PDU_COL_POWER:	return WP_Q_POWER;
	case PDU_COL_ENERGY:	return WP_Q_ENERGY;
	case PDU_COL_APOWER:	return WP_Q_APPARENT_POWER;
	case PDU_COL_RPOWER:	return WP_Q_REACTIVE_POWER;
	case PDU_COL_AENERGY:	return WP_Q_APPARENT_ENERGY;
	default:		return WP_Q_OTHER;
	}
}

int
pdu_oid_parse(const char *s, struct pdu_oid *o)
{
	char *end;
	unsigned long v;

	o->n = 0;
	if (*s == '.')
		s++;
	while (*s != '\0') {
		if (*s < '0' || *s > '9' || o->n == PDU_OID_MAX)
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno != 0 || v > UINT32_MAX)
			return -1;
		o->v[o->n++] = (uint32_t)v;
		if (*end == '.' && end[1] != '\0')
			end++;
		else if (*end != '\0')
			return -1;
		s = end;
	}
	return o->n >= 2 ? 0 : -1;
}

void
pdu_oid_format(const struct pdu_oid *o, char *buf, size_t len)
{
	size_t i, off = 0;
	int w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < o->n && off < len; i++) {
		w = snprintf(buf + off, len - off, "%s%u", i ? "." : "",
		    o->v[i]);
		if (w < 0)
			return;
		off += (size_t)w;
	}
}

bool
pdu_oid_has_prefix(const struct pdu_oid *o, const struct pdu_oid *prefix)
{
	if (prefix->n > o->n)
		return false;
	return memcmp(o->v, prefix->v, prefix->n * sizeof(o->v[0])) == 0;
}

int
pdu_oid_cmp(const struct pdu_oid *a, const struct pdu_oid *b)
{
	size_t i, n = a->n < b->n ? a->n : b->n;

	for (i = 0; i < n; i++)
		if (a->v[i] != b->v[i])
			return a->v[i] < b->v[i] ? -1 : 1;
	if (a->n == b->n)
		return 0;
	return a->n < b->n ? -1 : 1;
}

void
pdu_ref_oid(const struct pdu_profile *p, struct pdu_ref r,
    struct pdu_oid *out)
{
	memcpy(out->v, p->arena + r.off, r.n * sizeof(out->v[0]));
	out->n = r.n;
}

bool
pdu_ref_under(const struct pdu_profile *p, struct pdu_ref r,
    const struct pdu_oid *o)
{
	return r.n > 0 && o->n > r.n && memcmp(o->v, p->arena + r.off,
	    r.n * sizeof(o->v[0])) == 0;
}

/* --- YAML helpers ------------------------------------------------------ */

static int
perr(struct pctx *c, const struct ynode *n, const char *fmt, const char *arg)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, arg);
	return err_set(c->err, WP_E_CONFIG, "%s:%d: %s", c->file,
	    n ? n->line : 0, msg);
}

static const char *
scalar(const struct ynode *n)
{
	return n != NULL && n->type == YN_SCALAR ? n->value : NULL;
}

static int
check_keys(struct pctx *c, const struct ynode *map, const char *const *ok)
{
	const struct ynode *k;
	char hint[160];

	if (map->type != YN_MAP)
		return perr(c, map, "%s: expected a mapping", "profile");

	for (k = map->child; k != NULL; k = k->next)
		if (!ynode_key_in(k->key, ok)) {
			ynode_key_hint(hint, sizeof(hint), k->key, ok, NULL);
			return perr(c, k, "%s", hint);
		}
	return 0;
}

static int
get_str(struct pctx *c, const struct ynode *map, const char *key, char *out,
    size_t len, bool required)
{
	const struct ynode *n = ynode_get(map, key);
	const char *s = scalar(n);

	if (n == NULL)
		return required ? perr(c, map, "missing \"%s\"", key) : 0;
	if (s == NULL || strlen(s) >= len)
		return perr(c, n, "\"%s\": expected a short string", key);
	snprintf(out, len, "%s", s);
	return 0;
}

static int
get_num(struct pctx *c, const struct ynode *map, const char *key, double *out)
{
	const struct ynode *n = ynode_get(map, key);
	const char *s = scalar(n);

	if (n == NULL)
		return 0;
	if (s == NULL || ynode_parse_double(s, out) < 0)
		return perr(c, n, "\"%s\": expected a number", key);
	return 0;
}

static int
get_int(struct pctx *c, const struct ynode *map, const char *key, long min,
    long max, long *out)
{
	double d = (double)*out;

	if (ynode_get(map, key) == NULL)
		return 0;
	if (get_num(c, map, key, &d) < 0)
		return -1;
	if (d != (double)(long)d || d < (double)min || d > (double)max)
		return perr(c, ynode_get(map, key),
		    "\"%s\": integer out of range", key);
	*out = (long)d;
	return 0;
}

static int
get_bool(struct pctx *c, const struct ynode *map, const char *key, bool *out)
{
	const struct ynode *n = ynode_get(map, key);

	if (n == NULL)
		return 0;
	if (scalar(n) == NULL || ynode_parse_bool(n->value, out) < 0)
		return perr(c, n, "\"%s\": expected true or false", key);
	return 0;
}

/* Copies o into the arena: *r names it. */
static int
arena_put(struct pctx *c, const struct ynode *n, const struct pdu_oid *o,
    struct pdu_ref *r)
{
	struct pdu_profile *p = c->p;
	uint32_t *na;
	size_t cap;

	if (p->narena + o->n > ARENA_MAX)
		return perr(c, n, "%s: too many OIDs", "profile");
	if (p->narena + o->n > c->cap) {
		cap = c->cap ? c->cap * 2 : 256;
		while (cap < p->narena + o->n)
			cap *= 2;
		if ((na = realloc(p->arena, cap * sizeof(*na))) == NULL)
			return err_set(c->err, WP_E_INTERNAL, "out of memory");
		p->arena = na;
		c->cap = cap;
	}
	memcpy(p->arena + p->narena, o->v, o->n * sizeof(o->v[0]));
	r->off = (uint16_t)p->narena;
	r->n = (uint16_t)o->n;
	p->narena += o->n;
	return 0;
}

/* An OID at key into the arena; absent: r untouched (n 0). */
static int
get_oid(struct pctx *c, const struct ynode *map, const char *key,
    struct pdu_ref *r)
{
	const struct ynode *n = ynode_get(map, key);
	const char *s = scalar(n);
	struct pdu_oid o;

	if (n == NULL)
		return 0;
	if (s == NULL || pdu_oid_parse(s, &o) < 0 || o.n + PDU_KEY_MAX +
	    PDU_SUFFIX_MAX > PDU_OID_MAX)
		return perr(c, n, "\"%s\": expected a numeric OID (at most "
		    "28 components)", key);
	return arena_put(c, n, &o, r);
}

/* --- columns and tables ------------------------------------------------ */

static int
parse_suffix(struct pctx *c, const struct ynode *col, struct pdu_col *pc)
{
	const struct ynode *n = ynode_get(col, "suffix"), *it;
	struct pdu_oid o;
	const char *s = scalar(n);
	long v;

	if (n == NULL)
		return 0;
	if (s != NULL) {	/* "5" or "1.5" */
		if (strchr(s, '.') == NULL) {
			if (ynode_parse_long(s, 0, UINT32_MAX, &v) < 0)
				return perr(c, n, "%s: bad suffix", "column");
			pc->suffix[0] = (uint32_t)v;
			pc->nsuffix = 1;
			return 0;
		}
		if (pdu_oid_parse(s, &o) < 0 || o.n > PDU_SUFFIX_MAX)
			return perr(c, n, "%s: bad suffix", "column");
		memcpy(pc->suffix, o.v, o.n * sizeof(o.v[0]));
		pc->nsuffix = (uint8_t)o.n;
		return 0;
	}
	if (n->type != YN_SEQ)
		return perr(c, n, "%s: suffix must be a list", "column");
	for (it = n->child; it != NULL; it = it->next) {
		if (scalar(it) == NULL || pc->nsuffix == PDU_SUFFIX_MAX ||
		    ynode_parse_long(scalar(it), 0, UINT32_MAX, &v) < 0)
			return perr(c, n, "%s: bad suffix", "column");
		pc->suffix[pc->nsuffix++] = (uint32_t)v;
	}
	return 0;
}

/* The column's unit: its factor to the quantity's unit, checked against
 * the column (a power column takes W, kW...; energy Wh, kWh, Ws...). */
static int
col_unit(struct pctx *c, const struct ynode *n, int id, struct pdu_col *pc,
    const char *unit, double scale)
{
	double uf;
	int q = pdu_col_quantity(id);

	if (unit[0] == '\0' && id != PDU_COL_RESET)
		return perr(c, n, "%s: missing \"unit\"", col_names[id]);
	if (id == PDU_COL_RESET)
		return 0;
	if (pdu_unit_factor(unit, q, &uf) < 0)
		return perr(c, n, "unit \"%s\" does not fit the column (see "
		    "docs/pdu-profiles.md, Units)", unit);
	if (!(scale > 0) || pc->max_raw < 0 || pc->wrap < 0)
		return perr(c, n, "%s: scale, max and wrap must be positive",
		    col_names[id]);
	if (strlen(unit) >= sizeof(pc->bunit))
		return perr(c, n, "unit \"%s\": too long", unit);
	snprintf(pc->bunit, sizeof(pc->bunit), "%s", unit);
	pc->factor = scale * uf;
	if (scale == 1)
		snprintf(pc->unit, sizeof(pc->unit), "%s", unit);
	else
		snprintf(pc->unit, sizeof(pc->unit), "%g%s", scale, unit);
	return 0;
}

/* The per-row scale columns and the "not available" value. */
static int
col_extras(struct pctx *c, const struct ynode *n, int id, struct pdu_col *pc)
{
	long miss = 0;

	if (get_oid(c, n, "digits_oid", &pc->digits) < 0 ||
	    get_oid(c, n, "entity_scale_oid", &pc->escale) < 0 ||
	    get_oid(c, n, "exp_oid", &pc->exp) < 0 ||
	    get_oid(c, n, "scale_oid", &pc->mult) < 0 ||
	    get_oid(c, n, "unit_oid", &pc->unit_col) < 0 ||
	    get_int(c, n, "missing", INT_MIN, INT_MAX, &miss) < 0)
		return -1;
	pc->missing = (int)miss;
	pc->has_missing = ynode_get(n, "missing") != NULL;
	if (pc->resettable && id != PDU_COL_ENERGY && id != PDU_COL_AENERGY)
		return perr(c, n, "%s: resettable is for energy columns",
		    col_names[id]);
	if (pc->is_signed && id != PDU_COL_RPOWER)
		return perr(c, n, "%s: only reactive power is signed",
		    col_names[id]);
	return 0;
}

static int
parse_col(struct pctx *c, const struct ynode *n, int id, struct pdu_col *pc)
{
	static const char *const keys[] = { "oid", "suffix", "unit", "scale",
		"string", "max", "wrap", "resettable", "signed",
		"missing", "digits_oid", "entity_scale_oid", "exp_oid",
		"scale_oid", "unit_oid", NULL };
	double scale = 1;
	char unit[WP_UNIT_MAX] = "";

	if (n->type == YN_SCALAR && id == PDU_COL_NAME) {	/* name: OID */
		struct pdu_oid o;

		if (pdu_oid_parse(n->value, &o) < 0 || o.n + PDU_KEY_MAX +
		    PDU_SUFFIX_MAX > PDU_OID_MAX)
			return perr(c, n, "\"%s\": expected a numeric OID",
			    "name");
		pc->present = true;
		return arena_put(c, n, &o, &pc->oid);
	}
	if (check_keys(c, n, keys) < 0)
		return -1;
	if (get_oid(c, n, "oid", &pc->oid) < 0 ||
	    parse_suffix(c, n, pc) < 0 ||
	    get_str(c, n, "unit", unit, sizeof(unit), false) < 0 ||
	    get_num(c, n, "scale", &scale) < 0 ||
	    get_bool(c, n, "string", &pc->string) < 0 ||
	    get_num(c, n, "max", &pc->max_raw) < 0 ||
	    get_num(c, n, "wrap", &pc->wrap) < 0 ||
	    get_bool(c, n, "resettable", &pc->resettable) < 0 ||
	    get_bool(c, n, "signed", &pc->is_signed) < 0 ||
	    col_extras(c, n, id, pc) < 0)
		return -1;
	if (pc->oid.n == 0)
		return perr(c, n, "%s: missing \"oid\"", col_names[id]);
	pc->present = true;
	if (id == PDU_COL_NAME)
		return 0;
	return col_unit(c, n, id, pc, unit, scale);
}

static int
parse_match(struct pctx *c, const struct ynode *n, struct pdu_table *t)
{
	const struct ynode *p;
	long pos, val;

	if (n == NULL)
		return 0;
	if (n->type != YN_MAP)
		return perr(c, n, "%s: expected {position: value}", "match");
	for (p = n->child; p != NULL; p = p->next) {
		if (p->key == NULL || scalar(p) == NULL ||
		    t->nmatch == PDU_MATCH_MAX ||
		    ynode_parse_long(p->key, 1, t->key_len, &pos) < 0 ||
		    ynode_parse_long(p->value, 0, UINT32_MAX, &val) < 0)
			return perr(c, n, "%s: bad entry", "match");
		t->match_pos[t->nmatch] = (int8_t)pos;
		t->match_val[t->nmatch++] = (uint32_t)val;
	}
	return 0;
}

static int
parse_role(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	char role[16] = "";
	int i;

	if (get_str(c, tn, "role", role, sizeof(role), true) < 0)
		return -1;
	for (i = 0; i <= PDU_ROLE_LAST; i++)
		if (strcmp(role, role_names[i]) == 0) {
			t->role = (uint8_t)i;
			return 0;
		}
	return perr(c, ynode_get(tn, "role"), "role \"%s\": expected outlet, "
	    "inlet, device, phase or circuit", role);
}

/* equals (or except): N or [N, M...] */
static int
filter_values(struct pctx *c, const struct ynode *n, const char *key,
    struct pdu_table *t)
{
	const struct ynode *it;

	if (n->type == YN_SCALAR) {
		if (ynode_parse_long(n->value, LONG_MIN, LONG_MAX,
		    &t->filter_value[0]) < 0)
			return perr(c, n, "%s: expected a number", key);
		t->nfilter = 1;
		return 0;
	}
	if (n->type != YN_SEQ || n->child == NULL)
		return perr(c, n, "%s: a number or a list of numbers", key);
	for (it = n->child; it != NULL; it = it->next)
		if (t->nfilter == PDU_MATCH_MAX || scalar(it) == NULL ||
		    ynode_parse_long(it->value, LONG_MIN, LONG_MAX,
		    &t->filter_value[t->nfilter++]) < 0)
			return perr(c, n, "%s: at most 4 numbers", key);
	return 0;
}

static int
parse_filter(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	const struct ynode *f = ynode_get(tn, "filter"), *eq, *ex;
	static const char *const keys[] = { "oid", "equals", "except", "text",
	    NULL };

	if (f == NULL)
		return 0;
	if (check_keys(c, f, keys) < 0 ||
	    get_oid(c, f, "oid", &t->filter) < 0 ||
	    get_str(c, f, "text", t->filter_text, sizeof(t->filter_text),
	    false) < 0)
		return -1;
	eq = ynode_get(f, "equals");
	ex = ynode_get(f, "except");
	t->filter_is_text = ynode_get(f, "text") != NULL;
	t->filter_except = ex != NULL;
	if (t->filter.n == 0 || (eq != NULL) + (ex != NULL) +
	    t->filter_is_text != 1)
		return perr(c, f, "%s: needs oid and one of equals, except, "
		    "text", "filter");
	if (eq != NULL)
		return filter_values(c, eq, "equals", t);
	return ex != NULL ? filter_values(c, ex, "except", t) : 0;
}

/* number: a key position or "ordinal"; unit: a key position. */
static int
parse_positions(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	const char *num = scalar(ynode_get(tn, "number"));
	long v, unit = 0, first = 1;

	if (get_int(c, tn, "unit", 1, t->key_len, &unit) < 0 ||
	    get_int(c, tn, "first", 1, 9999, &first) < 0)
		return -1;
	t->first = (uint16_t)first;
	t->unit_pos = (int8_t)unit;
	if (num == NULL)
		t->number_pos = (int8_t)t->key_len;
	else if (strcmp(num, "ordinal") == 0)
		t->number_pos = 0;
	else if (ynode_parse_long(num, 1, t->key_len, &v) == 0)
		t->number_pos = (int8_t)v;
	else
		return perr(c, ynode_get(tn, "number"),
		    "number: a key position 1..key_len or \"%s\"", "ordinal");
	if (ynode_get(tn, "first") != NULL && t->number_pos != 0)
		return perr(c, tn, "%s: first is for number: ordinal",
		    role_names[t->role]);
	if (t->unit_pos != 0 && t->unit_pos == t->number_pos)
		return perr(c, tn, "%s: unit and number are the same key "
		    "component", role_names[t->role]);
	return 0;
}

static int
parse_table(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	static const char *const keys[] = { "role", "key_len", "number",
		"unit", "first", "index_base", "match", "filter", "max_power",
		"name",
		"power", "energy", "apparent_power", "reactive_power",
		"apparent_energy", "reset_time", NULL };
	long kl = 1, base = 1;
	int i;

	if (check_keys(c, tn, keys) < 0 || parse_role(c, tn, t) < 0 ||
	    get_int(c, tn, "key_len", 1, PDU_KEY_MAX, &kl) < 0 ||
	    get_int(c, tn, "index_base", 0, 1, &base) < 0)
		return -1;
	t->key_len = (uint8_t)kl;
	t->index_base = (int8_t)base;
	t->max_power = t->role == PDU_ROLE_OUTLET ? 30000 : 500000;
	if (get_num(c, tn, "max_power", &t->max_power) < 0 ||
	    parse_match(c, ynode_get(tn, "match"), t) < 0 ||
	    parse_filter(c, tn, t) < 0 || parse_positions(c, tn, t) < 0)
		return -1;
	for (i = 0; i < PDU_NCOL; i++) {
		const struct ynode *cn = ynode_get(tn, col_names[i]);

		if (cn != NULL && parse_col(c, cn, i, &t->col[i]) < 0)
			return -1;
	}
	for (i = PDU_COL_READ_FIRST; i <= PDU_COL_READ_LAST; i++)
		if (t->col[i].present)
			return 0;
	return perr(c, tn, "%s: needs a power or an energy column",
	    role_names[t->role]);
}

static int
parse_sysoids(struct pctx *c, const struct ynode *root, struct pdu_profile *p)
{
	const struct ynode *n = ynode_get(root, "sys_object_ids"), *it;
	struct pdu_oid o;

	if (n == NULL)
		return 0;
	if (n->type != YN_SEQ)
		return perr(c, n, "%s: expected a list", "sys_object_ids");
	for (it = n->child; it != NULL; it = it->next) {
		if (p->nsysoid == PDU_SYSOIDS_MAX || scalar(it) == NULL ||
		    pdu_oid_parse(scalar(it), &o) < 0)
			return perr(c, it, "%s: bad OID", "sys_object_ids");
		if (o.n < PDU_SYSOID_MIN)
			return perr(c, it, "sys_object_ids: %s is shorter than "
			    "an enterprise number", scalar(it));
		if (arena_put(c, it, &o, &p->sysoid[p->nsysoid]) < 0)
			return -1;
		p->nsysoid++;
	}
	return 0;
}

static int
parse_head(struct pctx *c, const struct ynode *root, struct pdu_profile *p)
{
	static const char *const detects[] = { "probe", "fallback", "never",
		NULL };
	char det[16] = "probe";
	long mr = 10, mg = 24;
	int i;

	if (get_str(c, root, "name", p->name, sizeof(p->name), true) < 0 ||
	    get_str(c, root, "vendor", p->vendor, sizeof(p->vendor), true) < 0 ||
	    get_str(c, root, "mib", p->mib, sizeof(p->mib), true) < 0 ||
	    get_str(c, root, "revision", p->revision, sizeof(p->revision),
	    true) < 0 || parse_sysoids(c, root, p) < 0 ||
	    get_int(c, root, "max_repetitions", 1, 100, &mr) < 0 ||
	    get_int(c, root, "max_get", 1, 100, &mg) < 0 ||
	    get_str(c, root, "detect", det, sizeof(det), false) < 0)
		return -1;
	for (i = 0; detects[i] != NULL && strcmp(det, detects[i]) != 0; i++)
		;
	if (detects[i] == NULL)
		return perr(c, ynode_get(root, "detect"), "detect \"%s\": "
		    "expected probe, fallback or never", det);
	p->detect = (uint8_t)i;
	p->max_repetitions = (uint8_t)mr;
	p->max_get = (uint8_t)mg;
	return 0;
}

static int
parse_root(struct pctx *c, const struct ynode *root, struct pdu_profile *p)
{
	static const char *const keys[] = { "name", "vendor", "mib",
		"revision", "sys_object_ids", "detect", "max_repetitions",
		"max_get", "tables", "notes", "recordings", NULL };
	const struct ynode *tabs, *tn;
	size_t n = 0;

	if (root == NULL)
		return perr(c, NULL, "%s: empty document", "profile");
	if (check_keys(c, root, keys) < 0 || parse_head(c, root, p) < 0)
		return -1;
	tabs = ynode_get(root, "tables");
	if (tabs == NULL || tabs->type != YN_SEQ || tabs->child == NULL)
		return perr(c, root, "%s: a non-empty list is required",
		    "tables");
	for (tn = tabs->child; tn != NULL; tn = tn->next)
		n++;
	if (n > PDU_TABLES_MAX)
		return perr(c, tabs, "%s: too many (at most 12)", "tables");
	if ((p->tab = calloc(n, sizeof(*p->tab))) == NULL)
		return err_set(c->err, WP_E_INTERNAL, "out of memory");
	for (tn = tabs->child; tn != NULL; tn = tn->next)
		if (parse_table(c, tn, &p->tab[p->ntab++]) < 0)
			return -1;
	return 0;
}

struct pdu_profile *
pdu_profile_parse(const char *text, size_t len, const char *file,
    struct wp_err *err)
{
	struct diag d = { .main_file = file };
	struct pctx c = { file, err, NULL, 0 };
	struct ynode *root = NULL;
	FILE *f;

	if (len > 0 && (f = fmemopen((void *)(uintptr_t)text, len, "r")) ==
	    NULL) {
		err_set(err, WP_E_INTERNAL, "%s: %s", file, strerror(errno));
		return NULL;
	}
	if (len > 0) {
		root = ynode_parse(f, &d);
		fclose(f);
	}
	if (d.n_err > 0) {
		diag_sort(&d);
		err_set(err, WP_E_CONFIG, "%s:%d: %s", file, d.v[0].line,
		    d.v[0].msg);
	} else if ((c.p = calloc(1, sizeof(*c.p))) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	else if (parse_root(&c, root, c.p) < 0) {
		pdu_profile_free(c.p);
		c.p = NULL;
	} else if (c.p->narena < c.cap) {	/* give back the slack */
		uint32_t *a = realloc(c.p->arena, (c.p->narena + 1) *
		    sizeof(*a));

		if (a != NULL)
			c.p->arena = a;
	}
	diag_fini(&d);
	ynode_free(root);
	return c.p;
}

struct pdu_profile *
pdu_profile_load(const char *path, struct wp_err *err)
{
	FILE *f;
	char *buf;
	size_t n;
	struct pdu_profile *p;

	f = fopen(path, "r");
	if (f == NULL) {
		err_set(err, WP_E_CONFIG, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(PROFILE_MAX_BYTES + 1);
	if (buf == NULL) {
		fclose(f);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, PROFILE_MAX_BYTES + 1, f);
	fclose(f);
	if (n > PROFILE_MAX_BYTES) {
		free(buf);
		err_set(err, WP_E_CONFIG, "%s: larger than %d bytes", path,
		    PROFILE_MAX_BYTES);
		return NULL;
	}
	p = pdu_profile_parse(buf, n, path, err);
	free(buf);
	return p;
}

struct pdu_profile *
pdu_profile_find(const char *maps_dir, const char *conf_dir,
    const char *name, struct wp_err *err)
{
	char path[PATH_MAX];
	const char *s;

	for (s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '_')) {
			err_set(err, WP_E_CONFIG, "profile \"%s\": bad name",
			    name);
			return NULL;
		}
	if (datafile_find(maps_dir, conf_dir, "pdu-profiles", name, ".yaml",
	    path, sizeof(path)) < 0) {
		err_set(err, WP_E_CONFIG, "no PDU profile \"%s\" (no "
		    "pdu-profiles/%s.yaml in %s)", name, name, DATAFILE_SEARCH);
		return NULL;
	}
	return pdu_profile_load(path, err);
}

/* The key of a shared profile: its name. */
#define SHARE_DRIVER	"snmp_pdu/profile"

void
pdu_profile_free(struct pdu_profile *p)
{
	if (p == NULL)
		return;
	if (p->users > 1) {
		p->users--;
		return;
	}
	if (p->sh != NULL)
		shared_del(p->sh, SHARE_DRIVER, p->name, p);
	free(p->tab);
	free(p->arena);
	free(p);
}

/* Whether a and b are the same profile, field by field (both calloc'd
 * and filled by the parser: their padding is zero). */
static bool
profile_same(const struct pdu_profile *a, const struct pdu_profile *b)
{
	return strcmp(a->name, b->name) == 0 &&
	    strcmp(a->vendor, b->vendor) == 0 &&
	    strcmp(a->mib, b->mib) == 0 &&
	    strcmp(a->revision, b->revision) == 0 &&
	    a->detect == b->detect && a->nsysoid == b->nsysoid &&
	    a->ntab == b->ntab && a->max_repetitions == b->max_repetitions &&
	    a->max_get == b->max_get && a->narena == b->narena &&
	    memcmp(a->sysoid, b->sysoid, sizeof(a->sysoid)) == 0 &&
	    memcmp(a->tab, b->tab, a->ntab * sizeof(*a->tab)) == 0 &&
	    (a->narena == 0 || memcmp(a->arena, b->arena, a->narena *
	    sizeof(*a->arena)) == 0);
}

struct pdu_profile *
pdu_profile_share(struct wp_shared *sh, struct pdu_profile *p)
{
	struct pdu_profile *q;

	if (sh == NULL || p == NULL || p->sh != NULL)
		return p;
	q = shared_get(sh, SHARE_DRIVER, p->name);
	if (q != NULL && q != p && profile_same(q, p)) {
		q->users++;
		pdu_profile_free(p);
		return q;
	}
	if (shared_put(sh, SHARE_DRIVER, p->name, p) == 0) {
		p->sh = sh;
		p->users = 1;
	}
	return p;
}

size_t
pdu_profile_sysoid_match(const struct pdu_profile *p,
    const struct pdu_oid *sysoid)
{
	size_t i, best = 0;
	struct pdu_oid o;

	for (i = 0; i < p->nsysoid; i++) {
		pdu_ref_oid(p, p->sysoid[i], &o);
		if (pdu_oid_has_prefix(sysoid, &o) && o.n > best)
			best = o.n;
	}
	return best;
}

/* --- every profile ---------------------------------------------------- */

static bool
listed(const struct pdu_profiles *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i]->name, name) == 0)
			return true;
	return false;
}

/* Adds the profiles of one directory that no earlier one named. */
static int
all_dir(const char *dir, struct pdu_profiles *l, struct wp_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	struct pdu_profile *p;
	struct wp_err perr_;
	size_t len;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && l->n < PROFILES_MAX) {
		len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((p = pdu_profile_load(path, &perr_)) == NULL) {
			log_warnx("pdu profile %s (skipped)", perr_.msg);
			continue;
		}
		if (listed(l, p->name)) {
			pdu_profile_free(p);
			continue;
		}
		l->v[l->n++] = p;
	}
	closedir(d);
	if (l->n == PROFILES_MAX)
		log_warnx("pdu profiles: more than %d, the rest skipped",
		    PROFILES_MAX);
	(void)err;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	const struct pdu_profile *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int
pdu_profile_all(const char *maps_dir, const char *conf_dir,
    struct pdu_profiles *out, struct wp_err *err)
{
	char dir[PATH_MAX];
	size_t i;
	int r;

	out->n = 0;
	if ((out->v = calloc(PROFILES_MAX, sizeof(*out->v))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	for (i = 0; (r = datafile_dir(i, maps_dir, conf_dir, "pdu-profiles",
	    dir, sizeof(dir))) != -1; i++)
		if (r == 0)
			all_dir(dir, out, err);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(out->v[0]), name_cmp);
	return 0;
}

void
pdu_profiles_free(struct pdu_profiles *l)
{
	size_t i;

	for (i = 0; l->v != NULL && i < l->n; i++)
		pdu_profile_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
