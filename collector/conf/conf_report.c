/*
 * conf_report.c - the report: and site: blocks and the meters' zone:,
 * typed at load (see conf_report.h).  A wrong type or value is an error
 * at its line, and so is a key nothing reads (with the known key it is
 * most likely a typo of): nothing in these blocks is silently ignored.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../lib/diag.h"
#include "../lib/timearg.h"
#include "../lib/ycheck.h"
#include "../lib/ynode.h"
#include "conf.h"
#include "conf_report.h"
#include "../../model/pue.h"

/* Keys of map not in allowed: errors, with the nearest known key. */
static void
unread_keys(struct diag *d, const struct ynode *map, const char *where,
    const char *const *allowed)
{
	ycheck_keys(d, map, where, allowed);
}

/* The mapping at key of m (NULL: absent, left empty, or another type,
 * reported); with keys, its unknown keys are errors. */
static const struct ynode *
get_map(struct diag *d, const struct ynode *m, const char *key,
    const char *where, const char *const *keys)
{
	const struct ynode *n;
	char w[96];

	if (m == NULL || (n = ycheck_typed(d, m, key, YN_MAP, where,
	    false)) == NULL)
		return NULL;
	if (keys != NULL) {
		snprintf(w, sizeof(w), "%s: %s", where, key);
		unread_keys(d, n, w, keys);
	}
	return n;
}

/* The scalar at key of m, or NULL (absent, or reported). */
static const char *
get_str(struct diag *d, const struct ynode *m, const char *key,
    const char *where, bool required)
{
	return m != NULL ? ycheck_scalar(d, m, key, where, required) : NULL;
}

/* A number >= min at key of m into *out (untouched when absent). */
static void
get_num(struct diag *d, const struct ynode *m, const char *key,
    const char *where, double min, bool required, double *out)
{
	const char *s = get_str(d, m, key, where, required);
	double v;

	if (s == NULL)
		return;
	if (ynode_parse_double(s, &v) < 0 || !isfinite(v) || v < min) {
		if (isinf(min))
			diag_at(d, ynode_get(m, key), false, "%s: %s must be a "
			    "number, not '%s'", where, key, s);
		else
			diag_at(d, ynode_get(m, key), false, "%s: %s must be a "
			    "number >= %g, not '%s'", where, key, min, s);
		return;
	}
	*out = v;
}

/* A duration > 0 at key of m into *out (untouched when absent). */
static void
get_dur(struct diag *d, const struct ynode *m, const char *key,
    const char *where, wp_time *out)
{
	ycheck_duration(d, m, key, where, 1, INT64_MAX, "more than 0", out);
}

/* A required time at key of m into *out; 0, or -1 (reported). */
static int
get_time(struct diag *d, const struct ynode *m, const char *key,
    const char *where, wp_time *out)
{
	const char *s = get_str(d, m, key, where, true);

	if (s == NULL)
		return -1;
	if (clock_parse_time(s, out) < 0) {
		diag_at(d, ynode_get(m, key), false, "%s: %s: '%s' is not a "
		    "time (ISO-8601 or epoch seconds)", where, key, s);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- report */

/* One report.replicas entry into rp; 0, or -1 out of memory. */
static int
load_replica(struct diag *d, const struct ynode *m,
    struct report_replica *rp)
{
	static const char *const keys[] = { "name", "nodes", NULL };
	const struct ynode *ns, *n;
	char where[96];
	size_t k = 0;

	rp->name = get_str(d, m, "name", "report: replicas", false);
	snprintf(where, sizeof(where), "report: replica %s", rp->name ?
	    rp->name : "(unnamed)");
	unread_keys(d, m, where, keys);
	if ((ns = ycheck_typed(d, m, "nodes", YN_SEQ, where, false)) == NULL)
		return 0;
	k += ynode_count(ns);
	if ((rp->nodes = calloc(k + 1, sizeof(*rp->nodes))) == NULL)
		return -1;
	for (n = ns->child; n != NULL; n = n->next)
		if (n->type != YN_SCALAR || *n->value == '\0')
			diag_at(d, n, false, "%s: each node must be a node name, "
			    "not %s", where, ynode_type_name(n->type));
		else
			rp->nodes[rp->n_nodes++] = n->value;
	return 0;
}

static int
load_replicas(struct diag *d, const struct ynode *r,
    struct report_settings *s)
{
	const struct ynode *seq, *m;
	size_t k = 0;

	if ((seq = ycheck_typed(d, r, "replicas", YN_SEQ, "report",
	    false)) == NULL)
		return 0;
	k += ynode_count(seq);
	if ((s->replicas = calloc(k + 1, sizeof(*s->replicas))) == NULL)
		return -1;
	for (m = seq->child; m != NULL; m = m->next) {
		if (m->type != YN_MAP) {
			diag_at(d, m, false, "report: replicas: each entry must "
			    "be a mapping {name, nodes: [...]}");
			continue;
		}
		if (load_replica(d, m, &s->replicas[s->n_replicas++]) == -1)
			return -1;
	}
	return 0;
}

/* report.pue.period: the period the declared PUE was measured over. */
static void
load_pue_period(struct diag *d, const struct ynode *m,
    struct report_settings *s)
{
	s->pue_period = get_str(d, m, "period", "report: pue", false);
	if (s->pue_period != NULL && pue_declared_months(s->pue_period) < 0) {
		diag_at(d, ynode_get(m, "period"), false, "report: pue: period "
		    "must be a year (2025), a month (2026-11) or a range of "
		    "months (2025-07..2026-06), not '%s'", s->pue_period);
		s->pue_period = NULL;
	}
}

static void
load_report_maps(struct diag *d, const struct ynode *r,
    struct report_settings *s)
{
	static const char *const slo_keys[] = { "ttft_ms", "tpot_ms", NULL };
	static const char *const idle_keys[] = { "from", "to", NULL };
	static const char *const pue_keys[] = { "value", "category", "period",
	    NULL };
	const struct ynode *m;

	if ((m = get_map(d, r, "slo", "report", slo_keys)) != NULL) {
		s->slo_set = true;
		get_num(d, m, "ttft_ms", "report: slo", 0, false,
		    &s->slo_ttft_ms);
		get_num(d, m, "tpot_ms", "report: slo", 0, false,
		    &s->slo_tpot_ms);
	}
	if ((m = get_map(d, r, "idle", "report", idle_keys)) != NULL) {
		int a = get_time(d, m, "from", "report: idle", &s->idle_from);
		int b = get_time(d, m, "to", "report: idle", &s->idle_to);

		s->idle_set = a == 0 && b == 0;
	}
	if ((m = get_map(d, r, "pue", "report", pue_keys)) != NULL) {
		s->pue_value = NAN;
		get_num(d, m, "value", "report: pue", 1, true, &s->pue_value);
		s->pue_category = get_str(d, m, "category", "report: pue",
		    false);
		if (s->pue_category != NULL &&
		    pue_category_level(s->pue_category) == 0)
			diag_at(d, ynode_get(m, "category"), false, "report: "
			    "pue: category must be ups_output (1), pdu_output "
			    "(2) or it_input (3), not '%s'", s->pue_category);
		load_pue_period(d, m, s);
		s->pue_set = !isnan(s->pue_value);
	}
}

/* report.data_dirs: the data dirs of several collectors (shards, an HA
 * pair, sites) a report merges; each a non-empty path, none twice. */
static int
load_data_dirs(struct diag *d, const struct ynode *r,
    struct report_settings *s)
{
	const struct ynode *seq, *n, *m;
	size_t k = 0;

	if ((seq = ycheck_typed(d, r, "data_dirs", YN_SEQ, "report",
	    false)) == NULL)
		return 0;
	k += ynode_count(seq);
	if ((s->data_dirs = calloc(k + 1, sizeof(*s->data_dirs))) == NULL)
		return -1;
	for (n = seq->child; n != NULL; n = n->next) {
		if (n->type != YN_SCALAR || *n->value == '\0') {
			diag_at(d, n, false, "report: data_dirs: each entry must "
			    "be a directory path, not %s", n->type == YN_SCALAR ?
			    "an empty string" : ynode_type_name(n->type));
			continue;
		}
		for (m = seq->child; m != n; m = m->next)
			if (m->type == YN_SCALAR && strcmp(m->value,
			    n->value) == 0)
				break;
		if (m != n) {
			diag_at(d, n, false, "report: data_dirs: '%s' is listed "
			    "twice", n->value);
			continue;
		}
		s->data_dirs[s->n_data_dirs++] = n->value;
	}
	return 0;
}

static int
load_report(struct diag *d, const struct ynode *r, struct report_settings *s)
{
	static const char *const keys[] = { "slo", "replicas", "idle", "pue",
	    "curve_tolerance", "curve_step", "run_gap", "attribution",
	    "clock_tolerance", "data_dirs", NULL };
	static const char *const rules[] = { "proportional", "per_gpu", NULL };
	const char *a;

	unread_keys(d, r, "report", keys);
	load_report_maps(d, r, s);
	if ((a = ycheck_enum(d, r, "attribution", "report", rules,
	    "proportional, per_gpu")) != NULL)
		s->attribution = strcasecmp(a, "per_gpu") == 0 ? 1 : 0;
	get_num(d, r, "curve_tolerance", "report", 0, false,
	    &s->curve_tolerance);
	get_dur(d, r, "curve_step", "report", &s->curve_step);
	get_dur(d, r, "run_gap", "report", &s->run_gap);
	get_dur(d, r, "clock_tolerance", "report", &s->clock_tolerance);
	if (load_data_dirs(d, r, s) == -1)
		return -1;
	return load_replicas(d, r, s);
}

/* ------------------------------------------------------------- site */

/* Whether key is in m at all (a mapping left empty counts: the report
 * then says what it lacks). */
static bool
given(const struct ynode *m, const char *key)
{
	return m != NULL && ynode_get(m, key) != NULL;
}

/* gas: CO2 or CO2e at key of m (dflt when absent). */
static const char *
get_gas(struct diag *d, const struct ynode *m, const char *key,
    const char *where, const char *dflt)
{
	static const char *const gases[] = { "CO2", "CO2e", "co2", "co2e",
	    NULL };
	const char *g = m != NULL ? ycheck_enum(d, m, key, where, gases,
	    "CO2, CO2e") : NULL;

	return g != NULL ? carbon_gas(g) : dflt;
}

static void
load_grid(struct diag *d, const struct ynode *site, struct report_grid *g)
{
	static const char *const keys[] = { "intensity_csv", "basis",
	    "yearly_average_g_per_kwh", "gas", "cfe_csv", NULL };
	static const char *const bases[] = { "direct", "lifecycle", NULL };
	const struct ynode *m = get_map(d, site, "grid", "site", keys);

	g->set = given(site, "grid");
	g->intensity_csv = get_str(d, m, "intensity_csv", "site: grid", false);
	g->cfe_csv = get_str(d, m, "cfe_csv", "site: grid", false);
	g->basis = m != NULL ? ycheck_enum(d, m, "basis", "site: grid", bases,
	    "direct, lifecycle") : NULL;
	get_num(d, m, "yearly_average_g_per_kwh", "site: grid", 0, false,
	    &g->yearly_g_per_kwh);
	g->gas = get_gas(d, m, "gas", "site: grid", g->gas);
}

/* A date or time at key of m into *out (lib/timearg.h, no relative
 * words): a day, month or year as an end is its end. */
static int
get_day(struct diag *d, const struct ynode *m, const char *key,
    const char *where, bool end, bool required, wp_time *out)
{
	const char *s = get_str(d, m, key, where, required);

	if (s == NULL)
		return -1;
	if (!isalpha((unsigned char)*s) && timearg_parse(s, end ? TA_TO :
	    TA_FROM, 0, out) == 0)
		return 0;
	diag_at(d, ynode_get(m, key), false, "%s: %s: '%s' is not a date or "
	    "time (2026-01-01, 2026-11, 2026, ISO-8601)", where, key, s);
	return -1;
}

/* One site.market.instruments entry into x. */
static void
load_instrument(struct diag *d, const struct ynode *m,
    struct carbon_instrument *x)
{
	static const char *const keys[] = { "id", "type", "market", "mwh",
	    "vintage_start", "vintage_end", "factor", "cancelled_for", "site",
	    "hour", "gas", NULL };
	const char *id = get_str(d, m, "id", "site: market: instruments", true);
	const char *v;
	char w[128];
	int dates;

	snprintf(w, sizeof(w), "site: market: instrument %s", id ? id : "?");
	ycheck_keys(d, m, w, keys);
	memset(x, 0, sizeof(*x));
	x->line = m->line;
	x->mwh = NAN;
	x->factor = NAN;
	snprintf(x->id, sizeof(x->id), "%s", id ? id : "");
	if ((v = get_str(d, m, "type", w, false)) != NULL)
		snprintf(x->type, sizeof(x->type), "%s", v);
	if ((v = get_str(d, m, "market", w, true)) != NULL)
		snprintf(x->market, sizeof(x->market), "%s", v);
	if ((v = get_str(d, m, "cancelled_for", w, false)) != NULL)
		snprintf(x->cancelled_for, sizeof(x->cancelled_for), "%s", v);
	if ((v = get_str(d, m, "site", w, false)) != NULL)
		snprintf(x->site, sizeof(x->site), "%s", v);
	get_num(d, m, "mwh", w, 0, true, &x->mwh);
	get_num(d, m, "factor", w, 0, true, &x->factor);
	dates = get_day(d, m, "vintage_start", w, false, true,
	    &x->vintage_start);
	dates |= get_day(d, m, "vintage_end", w, true, true, &x->vintage_end);
	if (ynode_get(m, "hour") != NULL)
		(void)get_day(d, m, "hour", w, false, false, &x->hour);
	snprintf(x->gas, sizeof(x->gas), "%s", get_gas(d, m, "gas", w,
	    CARBON_GAS_CO2E));
	if (dates == 0 && x->vintage_end <= x->vintage_start)
		diag_at(d, m, false, "%s: vintage_end is not after "
		    "vintage_start", w);
}

/* Entry i of v (at e) against the ones before: an id (and hour) listed
 * twice is an error, as it would count once. */
static void
dup_instrument(struct diag *d, const struct ynode *e,
    const struct carbon_instrument *v, size_t i)
{
	size_t j;

	for (j = 0; j < i && v[i].id[0] != '\0'; j++)
		if (strcmp(v[j].id, v[i].id) == 0 && v[j].hour == v[i].hour) {
			diag_at(d, e, false, "site: market: instrument %s is "
			    "listed twice (first at line %d)", v[i].id,
			    v[j].line);
			return;
		}
}

/* site.market.instruments: the ledger's entries.  0, or -1 out of
 * memory. */
static int
load_instruments(struct diag *d, const struct ynode *m,
    struct report_market *k)
{
	const struct ynode *seq, *e;
	size_t n = 0;

	if ((seq = ycheck_typed(d, m, "instruments", YN_SEQ, "site: market",
	    false)) == NULL)
		return 0;
	n += ynode_count(seq);
	if ((k->instruments = calloc(n + 1, sizeof(*k->instruments))) == NULL)
		return -1;
	for (e = seq->child; e != NULL; e = e->next) {
		if (e->type != YN_MAP) {
			diag_at(d, e, false, "site: market: instruments: each "
			    "entry must be a mapping {id, market, mwh, "
			    "vintage_start, vintage_end, factor, ...}");
			continue;
		}
		load_instrument(d, e, &k->instruments[k->n_instruments]);
		dup_instrument(d, e, k->instruments, k->n_instruments++);
	}
	return 0;
}

static int
load_market(struct diag *d, const struct ynode *site, struct report_market *k)
{
	static const char *const keys[] = { "instruments_csv", "instruments",
	    "holder", "supplier_factor", "supplier_gas", "residual_mix",
	    "period_consumption_mwh", NULL };
	static const char *const rm_keys[] = { "factor", "source", "year",
	    "gas", NULL };
	const struct ynode *m = get_map(d, site, "market", "site", keys), *rm;
	const char *w = "site: market", *rw = "site: market: residual_mix";

	k->set = given(site, "market");
	k->instruments_csv = get_str(d, m, "instruments_csv", w, false);
	k->holder = get_str(d, m, "holder", w, false);
	get_num(d, m, "supplier_factor", w, 0, false, &k->supplier_factor);
	k->supplier_gas = get_gas(d, m, "supplier_gas", w, k->supplier_gas);
	get_num(d, m, "period_consumption_mwh", w, 0, false,
	    &k->period_consumption_mwh);
	k->residual_set = given(m, "residual_mix");
	rm = get_map(d, m, "residual_mix", w, rm_keys);
	get_num(d, rm, "factor", rw, 0, false, &k->residual_factor);
	k->residual_source = get_str(d, rm, "source", rw, false);
	k->residual_year = get_str(d, rm, "year", rw, false);
	k->residual_gas = get_gas(d, rm, "gas", rw, k->residual_gas);
	return m != NULL ? load_instruments(d, m, k) : 0;
}

static void
load_tariff(struct diag *d, const struct ynode *site, struct report_tariff *t)
{
	static const char *const keys[] = { "price", "price_csv", "currency",
	    NULL };
	const struct ynode *m = get_map(d, site, "tariff", "site", keys);
	const char *cur;

	t->set = given(site, "tariff");
	get_num(d, m, "price", "site: tariff", -INFINITY, false, &t->price);
	t->price_csv = get_str(d, m, "price_csv", "site: tariff", false);
	if ((cur = get_str(d, m, "currency", "site: tariff", false)) != NULL)
		t->currency = cur;
}

static int
load_site(struct diag *d, const struct ynode *m, struct report_site *s)
{
	static const char *const keys[] = { "name", "zone", "grid", "market",
	    "tariff", NULL };

	ycheck_keys(d, m, "site", keys);
	s->name = get_str(d, m, "name", "site", false);
	s->zone = get_str(d, m, "zone", "site", false);
	load_grid(d, m, &s->grid);
	load_tariff(d, m, &s->tariff);
	return load_market(d, m, &s->market);
}

/* meters[].zone: the zone of partial PUE; it_measured_at as written (the
 * driver checks its value). */
static void
load_zones(struct diag *d, struct wp_conf *c)
{
	char where[128];
	size_t i;

	for (i = 0; i < c->n_meters; i++) {
		snprintf(where, sizeof(where), "meter %s", c->meters[i].name);
		c->meters[i].zone = get_str(d, c->meters[i].block, "zone",
		    where, false);
		c->meters[i].it_measured_at = ynode_str(c->meters[i].block,
		    "it_measured_at");
	}
}

void
conf_report_load(struct wp_conf *c, const struct ynode *report,
    const struct ynode *site, struct diag *d)
{
	report_settings_init(&c->report);
	report_site_init(&c->site);
	if (report != NULL && load_report(d, report, &c->report) == -1)
		diag_add(d, NULL, 0, false, "out of memory");
	if (site != NULL && load_site(d, site, &c->site) == -1)
		diag_add(d, NULL, 0, false, "out of memory");
	load_zones(d, c);
}

void
conf_report_free(struct wp_conf *c)
{
	size_t i;

	for (i = 0; c->report.replicas != NULL && i < c->report.n_replicas;
	    i++)
		free(c->report.replicas[i].nodes);
	free(c->report.replicas);
	c->report.replicas = NULL;
	free(c->report.data_dirs);
	c->report.data_dirs = NULL;
	c->report.n_data_dirs = 0;
	free(c->site.market.instruments);
	c->site.market.instruments = NULL;
	c->site.market.n_instruments = 0;
	c->report.n_replicas = 0;
}
