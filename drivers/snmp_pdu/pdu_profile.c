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
#include "../../collector/lib/ynode.h"
#include "pdu_profile.h"

#define PROFILE_MAX_BYTES	(256 * 1024)

struct pctx {
	const char	*file;
	struct wp_err	*err;
};

static const char *const role_names[] = { "outlet", "inlet", "device",
	"phase" };
static const char *const col_names[] = { "name", "power", "energy",
	"reset_time" };

const char *
pdu_role_name(int role)
{
	if (role < 0 || role > PDU_ROLE_PHASE)
		return "?";
	return role_names[role];
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

	if (map->type != YN_MAP)
		return perr(c, map, "%s: expected a mapping", "profile");
	for (k = map->child; k != NULL; k = k->next)
		if (!ynode_key_in(k->key, ok))
			return perr(c, k, "unknown key \"%s\"", k->key);
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

static int
get_oid(struct pctx *c, const struct ynode *map, const char *key,
    struct pdu_oid *o, bool *present)
{
	const struct ynode *n = ynode_get(map, key);
	const char *s = scalar(n);

	if (n == NULL)
		return 0;
	if (s == NULL || pdu_oid_parse(s, o) < 0)
		return perr(c, n, "\"%s\": expected a numeric OID", key);
	if (present)
		*present = true;
	return 0;
}

/* --- columns and tables ------------------------------------------------ */

static int
unit_factor(const char *unit, double *f)
{
	static const struct { const char *u; double f; } units[] = {
		{ "W", 1 }, { "kW", 1e3 }, { "mW", 1e-3 },
		{ "J", 1 }, { "Wh", 3600 }, { "kWh", 3.6e6 }, { "MWh", 3.6e9 },
		{ "Ws", 1 }, { "", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].u, unit) == 0) {
			*f = units[i].f;
			return 0;
		}
	return -1;
}

static int
parse_suffix(struct pctx *c, const struct ynode *col, struct pdu_col *pc)
{
	const struct ynode *n = ynode_get(col, "suffix"), *it;
	struct pdu_oid o;
	const char *s = scalar(n);

	if (n == NULL)
		return 0;
	if (s != NULL) {	/* "5" or "1.5" */
		if (strchr(s, '.') == NULL) {
			pc->suffix[0] = (uint32_t)strtoul(s, NULL, 10);
			pc->nsuffix = 1;
			return 0;
		}
		if (pdu_oid_parse(s, &o) < 0 || o.n > PDU_SUFFIX_MAX)
			return perr(c, n, "%s: bad suffix", "column");
		memcpy(pc->suffix, o.v, o.n * sizeof(o.v[0]));
		pc->nsuffix = o.n;
		return 0;
	}
	if (n->type != YN_SEQ)
		return perr(c, n, "%s: suffix must be a list", "column");
	for (it = n->child; it != NULL; it = it->next) {
		if (scalar(it) == NULL || pc->nsuffix == PDU_SUFFIX_MAX)
			return perr(c, n, "%s: bad suffix", "column");
		pc->suffix[pc->nsuffix++] =
		    (uint32_t)strtoul(scalar(it), NULL, 10);
	}
	return 0;
}

static int
parse_col(struct pctx *c, const struct ynode *n, int id, struct pdu_col *pc)
{
	static const char *const keys[] = { "oid", "suffix", "unit", "scale",
		"string", "max", "wrap", "cumulative", "digits_oid",
		"entity_scale_oid", NULL };
	double scale = 1, uf;
	char unit[WP_UNIT_MAX] = "";

	if (check_keys(c, n, keys) < 0)
		return -1;
	pc->cumulative = true;
	if (get_oid(c, n, "oid", &pc->oid, &pc->present) < 0 ||
	    parse_suffix(c, n, pc) < 0 ||
	    get_str(c, n, "unit", unit, sizeof(unit), false) < 0 ||
	    get_num(c, n, "scale", &scale) < 0 ||
	    get_bool(c, n, "string", &pc->string) < 0 ||
	    get_num(c, n, "max", &pc->max_raw) < 0 ||
	    get_num(c, n, "wrap", &pc->wrap) < 0 ||
	    get_bool(c, n, "cumulative", &pc->cumulative) < 0 ||
	    get_oid(c, n, "digits_oid", &pc->digits, &pc->has_digits) < 0 ||
	    get_oid(c, n, "entity_scale_oid", &pc->escale,
	    &pc->has_escale) < 0)
		return -1;
	if (!pc->present)
		return perr(c, n, "%s: missing \"oid\"", col_names[id]);
	if (id == PDU_COL_POWER && unit[0] == '\0')
		snprintf(unit, sizeof(unit), "W");
	if (id == PDU_COL_ENERGY && unit[0] == '\0')
		return perr(c, n, "%s: missing \"unit\"", col_names[id]);
	if (unit_factor(unit, &uf) < 0)
		return perr(c, n, "unknown unit \"%s\"", unit);
	if ((id == PDU_COL_POWER && strchr(unit, 'h') != NULL) ||
	    (id == PDU_COL_ENERGY && strcmp(unit, "J") != 0 &&
	    strcmp(unit, "Ws") != 0 && strchr(unit, 'h') == NULL))
		return perr(c, n, "unit \"%s\" does not fit the column", unit);
	if (!(scale > 0) || pc->max_raw < 0 || pc->wrap < 0)
		return perr(c, n, "%s: scale, max and wrap must be positive",
		    col_names[id]);
	pc->factor = scale * uf;
	if (scale == 1)
		snprintf(pc->unit, sizeof(pc->unit), "%s", unit);
	else
		snprintf(pc->unit, sizeof(pc->unit), "%g%s", scale, unit);
	return 0;
}

static int
parse_match(struct pctx *c, const struct ynode *n, struct pdu_table *t)
{
	const struct ynode *p;
	const char *k, *v;

	if (n == NULL)
		return 0;
	if (n->type != YN_MAP)
		return perr(c, n, "%s: expected {position: value}", "match");
	for (p = n->child; p != NULL; p = p->next) {
		k = p->key;
		v = scalar(p);
		if (k == NULL || v == NULL || t->nmatch == PDU_MATCH_MAX ||
		    atoi(k) < 1 || (size_t)atoi(k) > t->key_len)
			return perr(c, n, "%s: bad entry", "match");
		t->match_pos[t->nmatch] = atoi(k);
		t->match_val[t->nmatch++] = (uint32_t)strtoul(v, NULL, 10);
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
	for (i = 0; i <= PDU_ROLE_PHASE; i++)
		if (strcmp(role, role_names[i]) == 0) {
			t->role = i;
			return 0;
		}
	return perr(c, ynode_get(tn, "role"),
	    "role \"%s\": expected outlet, inlet, device or phase", role);
}

static int
parse_filter(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	const struct ynode *f = ynode_get(tn, "filter");
	static const char *const keys[] = { "oid", "equals", NULL };

	if (f == NULL)
		return 0;
	if (check_keys(c, f, keys) < 0 ||
	    get_oid(c, f, "oid", &t->filter, &t->has_filter) < 0 ||
	    get_int(c, f, "equals", LONG_MIN, LONG_MAX, &t->filter_value) < 0)
		return -1;
	if (!t->has_filter || ynode_get(f, "equals") == NULL)
		return perr(c, f, "%s: needs oid and equals", "filter");
	return 0;
}

static int
parse_table(struct pctx *c, const struct ynode *tn, struct pdu_table *t)
{
	static const char *const keys[] = { "role", "key_len", "number",
		"index_base", "match", "filter", "max_power", "name", "power",
		"energy", "reset_time", NULL };
	const char *num;
	long kl = 1, base = 1;
	int i;

	if (check_keys(c, tn, keys) < 0 || parse_role(c, tn, t) < 0 ||
	    get_int(c, tn, "key_len", 1, PDU_KEY_MAX, &kl) < 0 ||
	    get_int(c, tn, "index_base", 0, 1, &base) < 0)
		return -1;
	t->key_len = (size_t)kl;
	t->index_base = (int)base;
	t->max_power = t->role == PDU_ROLE_OUTLET ? 30000 : 500000;
	if (get_num(c, tn, "max_power", &t->max_power) < 0 ||
	    parse_match(c, ynode_get(tn, "match"), t) < 0 ||
	    parse_filter(c, tn, t) < 0)
		return -1;
	num = scalar(ynode_get(tn, "number"));
	if (num == NULL || strcmp(num, "ordinal") == 0)
		t->number_pos = num == NULL ? (int)t->key_len : 0;
	else if (atoi(num) >= 1 && (size_t)atoi(num) <= t->key_len)
		t->number_pos = atoi(num);
	else
		return perr(c, ynode_get(tn, "number"),
		    "number: a key position 1..key_len or \"%s\"", "ordinal");
	for (i = 0; i < PDU_NCOL; i++) {
		const struct ynode *cn = ynode_get(tn, col_names[i]);

		if (cn != NULL && parse_col(c, cn, i, &t->col[i]) < 0)
			return -1;
	}
	if (!t->col[PDU_COL_POWER].present && !t->col[PDU_COL_ENERGY].present)
		return perr(c, tn, "%s: needs a power or an energy column",
		    role_names[t->role]);
	return 0;
}

static int
parse_sysoids(struct pctx *c, const struct ynode *root, struct pdu_profile *p)
{
	const struct ynode *n = ynode_get(root, "sys_object_ids"), *it;

	if (n == NULL)
		return 0;
	if (n->type != YN_SEQ)
		return perr(c, n, "%s: expected a list", "sys_object_ids");
	for (it = n->child; it != NULL; it = it->next) {
		if (p->nsysoid == PDU_SYSOIDS_MAX || scalar(it) == NULL ||
		    pdu_oid_parse(scalar(it), &p->sysoid[p->nsysoid]) < 0)
			return perr(c, it, "%s: bad OID", "sys_object_ids");
		p->nsysoid++;
	}
	return 0;
}

static int
parse_root(struct pctx *c, const struct ynode *root, struct pdu_profile *p)
{
	static const char *const keys[] = { "name", "vendor", "mib",
		"revision", "sys_object_ids", "max_repetitions", "max_get",
		"tables", "notes", "recordings", NULL };
	const struct ynode *tabs, *tn;
	long mr = 10, mg = 24;

	if (root == NULL)
		return perr(c, NULL, "%s: empty document", "profile");
	if (check_keys(c, root, keys) < 0 ||
	    get_str(c, root, "name", p->name, sizeof(p->name), true) < 0 ||
	    get_str(c, root, "vendor", p->vendor, sizeof(p->vendor), true) < 0 ||
	    get_str(c, root, "mib", p->mib, sizeof(p->mib), true) < 0 ||
	    get_str(c, root, "revision", p->revision, sizeof(p->revision),
	    true) < 0 || parse_sysoids(c, root, p) < 0 ||
	    get_int(c, root, "max_repetitions", 1, 100, &mr) < 0 ||
	    get_int(c, root, "max_get", 1, 100, &mg) < 0)
		return -1;
	p->max_repetitions = (int)mr;
	p->max_get = (int)mg;
	tabs = ynode_get(root, "tables");
	if (tabs == NULL || tabs->type != YN_SEQ || tabs->child == NULL)
		return perr(c, root, "%s: a non-empty list is required",
		    "tables");
	for (tn = tabs->child; tn != NULL; tn = tn->next) {
		if (p->ntab == PDU_TABLES_MAX)
			return perr(c, tabs, "%s: too many", "tables");
		if (parse_table(c, tn, &p->tab[p->ntab++]) < 0)
			return -1;
	}
	return 0;
}

struct pdu_profile *
pdu_profile_parse(const char *text, size_t len, const char *file,
    struct wp_err *err)
{
	struct diag d = { .main_file = file };
	struct pctx c = { file, err };
	struct pdu_profile *p = NULL;
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
	} else if ((p = calloc(1, sizeof(*p))) == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	else if (parse_root(&c, root, p) < 0) {
		free(p);
		p = NULL;
	}
	diag_fini(&d);
	ynode_free(root);
	return p;
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
pdu_profile_find(const char *maps_dir, const char *name, struct wp_err *err)
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
	if (datafile_find(maps_dir, "pdu-profiles", name, ".yaml", path,
	    sizeof(path)) < 0) {
		err_set(err, WP_E_CONFIG, "no PDU profile \"%s\" (looked in "
		    "maps_dir, ./etc/pdu-profiles, %s/share/wattpath/"
		    "pdu-profiles)", name, WP_PREFIX);
		return NULL;
	}
	return pdu_profile_load(path, err);
}

/* Best match in one directory; keeps *best if nothing there is longer. */
static void
auto_dir(const char *dir, const struct pdu_oid *sysoid,
    struct pdu_profile **best, size_t *best_len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	struct pdu_profile *p;
	struct wp_err err;
	size_t i, l;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((p = pdu_profile_load(path, &err)) == NULL) {
			log_warnx("pdu profile %s", err.msg);
			continue;
		}
		for (i = 0; i < p->nsysoid; i++)
			if (pdu_oid_has_prefix(sysoid, &p->sysoid[i]) &&
			    p->sysoid[i].n > *best_len) {
				pdu_profile_free(*best);
				*best = p;
				*best_len = p->sysoid[i].n;
				p = NULL;
				break;
			}
		pdu_profile_free(p);
	}
	closedir(d);
}

struct pdu_profile *
pdu_profile_auto(const char *maps_dir, const struct pdu_oid *sysoid,
    struct wp_err *err)
{
	struct pdu_profile *best = NULL;
	size_t best_len = 0;
	char dir[PATH_MAX], s[256];

	if (maps_dir != NULL) {
		snprintf(dir, sizeof(dir), "%s/pdu-profiles", maps_dir);
		auto_dir(dir, sysoid, &best, &best_len);
	}
	auto_dir("etc/pdu-profiles", sysoid, &best, &best_len);
	auto_dir(WP_PREFIX "/share/wattpath/pdu-profiles", sysoid, &best,
	    &best_len);
	if (best == NULL) {
		pdu_oid_format(sysoid, s, sizeof(s));
		err_set(err, WP_E_CONFIG, "profile auto: no PDU profile "
		    "matches sysObjectID %s; set profile: explicitly", s);
	}
	return best;
}

void
pdu_profile_free(struct pdu_profile *p)
{
	free(p);
}
