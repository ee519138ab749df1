/* redfish_choose.c - what the node polls, from what the walk found. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/sample.h"
#include "redfish_choose.h"
#include "redfish_model.h"
#include "redfish_topo.h"
#include "redfish_wall.h"

#define MAX_LEVELS	32

/* Is key a property of the resource at base or below it? */
static bool
under(const char *key, const char *base)
{
	size_t n = strlen(base);

	return n > 0 && strncmp(key, base, n) == 0 && (key[n] == '/' ||
	    key[n] == '#');
}

bool
rf_report_covers(const struct rf_disc *d, const char *base)
{
	size_t i;

	for (i = 0; i < d->rd.n; i++)
		if (d->rd.v[i].owner == OWN_REPORT &&
		    under(d->rd.v[i].key, base))
			return true;
	return false;
}

/* The owner a report reading of key belongs to: a GPU or a chassis whose
 * resource it names; OWN_REPORT when none. */
static int
report_owner(const struct rf_disc *d, const char *key)
{
	size_t i;

	for (i = 0; i < (size_t)d->n_gpu; i++)
		if (under(key, d->gpu[i].base))
			return OWN_GPU + (int)i;
	for (i = 0; i < d->n_ch; i++)
		if (!d->ch[i].gpu && under(key, d->ch[i].uri))
			return (int)i;
	return OWN_REPORT;
}

/* An OEM meter outside any chassis (Dell's telemetry SystemInputPower,
 * Lenovo's system history): the own chassis of the system whose resource
 * it is under, else of the BMC's only system; OWN_REPORT when neither. */
static int
oem_owner(const struct rf_disc *d, const char *key)
{
	const struct system *s = NULL;
	size_t i;

	for (i = 0; i < d->n_sys && s == NULL; i++)
		if (under(key, d->sys[i].uri))
			s = &d->sys[i];
	if (s == NULL && d->n_sys == 1)
		s = &d->sys[0];
	for (i = 0; s != NULL && i < d->n_ch; i++)
		if (!d->ch[i].gpu && rf_system_has(s, &d->ch[i]))
			return (int)i;
	return OWN_REPORT;
}

/*
 * Gives each MetricReport reading to the GPU or chassis whose resource it
 * names: where that resource's own excerpt was read too, the excerpt is
 * polled through the report (one GET for all of them); otherwise the
 * report's reading is the source.  Readings of nothing we know stay the
 * report's (listed only).
 */
static void
adopt_reports(struct rf_disc *d)
{
	struct rf_reading *r, *x;
	size_t i, j, k;
	int own;

	for (i = 0; i < d->rd.n; i++) {
		r = &d->rd.v[i];
		if (r->owner != OWN_REPORT)
			continue;
		if ((own = report_owner(d, r->key)) == OWN_REPORT &&
		    (r->flags & WP_F_OEM))
			own = oem_owner(d, r->key);
		if (own == OWN_REPORT)
			continue;
		for (j = 0, x = NULL; j < d->rd.n; j++)
			if (j != i && d->rd.v[j].owner == own &&
			    strcmp(d->rd.v[j].key, r->key) == 0) {
				x = &d->rd.v[j];
				break;
			}
		if (x == NULL) {
			r->owner = own;
			continue;
		}
		rf_copy(x->uri, sizeof(x->uri), r->uri);
		rf_copy(x->source, sizeof(x->source), r->source);
		x->value = r->value;
		x->raw_value = r->raw_value;
		x->device_time = r->device_time;
		x->coll_n = 0;
		r->owner = OWN_DROP;
	}
	for (i = k = 0; i < d->rd.n; i++)
		if (d->rd.v[i].owner != OWN_DROP)
			d->rd.v[k++] = d->rd.v[i];
	d->rd.n = k;
}

/* Notes each Sensor kept over an excerpt that disagreed with it. */
static void
note_disagreements(struct rf_disc *d)
{
	const struct rf_reading *r;
	size_t i;

	for (i = 0; i < d->rd.n; i++) {
		r = &d->rd.v[i];
		if (r->ds_disagree)
			rf_note(d, "%s reads %g %s, an excerpt citing it %g: "
			    "the Sensor is read", r->key, r->raw_value,
			    r->raw_unit, r->quantity == WP_Q_ENERGY &&
			    strcmp(r->raw_unit, "J") ? r->ds_value /
			    (r->value / (r->raw_value ? r->raw_value : 1)) :
			    r->ds_value);
	}
}

/* ---- the series ---- */

/* A new series with room for n_pick picks; NULL on ENOMEM. */
static struct rf_series *
new_series(struct rf_disc *d, const char *name, int boundary, int quantity,
    size_t n_pick)
{
	struct rf_series *ns;
	struct rf_pick *pk;
	char *nm;

	if (rf_grow((void **)&d->series, d->n_series, &d->cap_series,
	    sizeof(*d->series), 4) < 0 ||
	    (nm = rf_pool_alloc(d, strlen(name) + 1)) == NULL ||
	    (pk = rf_pool_alloc(d, (n_pick + 1) * sizeof(*pk))) == NULL)
		return NULL;
	memcpy(nm, name, strlen(name) + 1);
	ns = &d->series[d->n_series++];
	memset(ns, 0, sizeof(*ns));
	ns->series = nm;
	ns->source = ns->name = ns->labels = "";
	ns->pick = pk;
	ns->boundary = boundary;
	ns->quantity = quantity;
	ns->kind = quantity == WP_Q_ENERGY ? WP_COUNTER : WP_GAUGE;
	return ns;
}

/* Picks of collection uri in all series. */
static size_t
picks_of(const struct rf_disc *d, const char *uri)
{
	size_t i, j, k = 0;

	for (i = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].n_pick; j++)
			k += strcmp(d->series[i].pick[j].uri, uri) == 0;
	return k;
}

/*
 * The URI each pick is polled at: its resource, or, for a member read
 * inlined in a collection, the collection when the plan takes a good
 * share of its members (one GET for all), else the member itself.
 */
static int
settle_uris(struct rf_disc *d)
{
	const struct rf_reading *r;
	const char **to;
	size_t i, j, n = 0;

	for (i = 0; i < d->n_series; i++)
		n += d->series[i].n_pick;
	if ((to = calloc(n + 1, sizeof(*to))) == NULL)
		return -1;
	for (i = 0, n = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].n_pick; j++, n++) {
			r = rf_readings_find(&d->rd, d->series[i].pick[j].key);
			to[n] = d->series[i].pick[j].uri;
			if (r != NULL && r->coll_n > 0 &&
			    (int)picks_of(d, r->uri) * 8 < r->coll_n)
				to[n] = r->key;
		}
	for (i = 0, n = 0; i < d->n_series; i++)
		for (j = 0; j < d->series[i].n_pick; j++)
			d->series[i].pick[j].uri = to[n++];
	free(to);
	return 0;
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


/* ---- the node's levels: which chassis carry its wall ---- */

static bool
level_in(const struct rf_level *lv, size_t n, const struct rf_level *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lv[i].ch == x->ch && lv[i].sys == x->sys)
			return true;
	return false;
}

/* Does every chassis ch Links.Contains belong to the node (a part, or a
 * chassis of one of its systems)?  False when it lists none. */
static bool
contains_only_ours(struct rf_disc *d, const struct rf_topo *t, size_t ch)
{
	const struct chassis *c = &d->ch[ch], *x;
	size_t s;
	int i;
	bool ours;

	if (c->n_contains == 0 || c->contains_more)
		return false;
	for (i = 0; i < c->n_contains; i++) {
		if ((x = rf_chassis_by_uri(d, c->contains[i])) == NULL)
			return false;	/* one we cannot see: not ours */
		for (s = 0, ours = x->component; s < d->n_sys && !ours; s++)
			ours = d->sys[s].in_node && rf_topo_depth(t, s,
			    (size_t)rf_chassis_index(d, x)) >= 0;
		if (!ours)
			return false;
	}
	return true;
}

/* The candidate levels of system s, outermost first (at one depth, the
 * whole chassis before the readings of it naming s). */
static size_t
candidates(struct rf_disc *d, const struct rf_topo *t, size_t s,
    struct rf_level *cand, size_t max)
{
	struct rf_level lv, tmp;
	size_t c, n = 0, i, j;
	int dep, k;

	for (c = 0; c < d->n_ch && n < max; c++) {
		if ((dep = rf_topo_depth(t, s, c)) < 0)
			continue;
		for (k = 0; k < 2 && n < max; k++) {
			lv.ch = (int)c;
			lv.sys = k == 0 ? -1 : (int)s;
			lv.depth = dep * 2 + (k == 0);
			if ((k == 0 && !rf_topo_fed_in_node(d, t, c)) ||
			    !rf_wall_has_data(d, t, &lv))
				continue;
			cand[n++] = lv;
		}
	}
	for (i = 1; i < n; i++)		/* by depth, outer first */
		for (j = i; j > 0 && cand[j].depth > cand[j - 1].depth; j--) {
			tmp = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = tmp;
		}
	return n;
}

/*
 * The levels of system s (docs/redfish.md, rule 5): of the chassis on its
 * chain with an input reading that feed only the node's systems (and the
 * readings of a shared chassis that name s), the outermost whose figure
 * is the node's: one that contains only the node's chassis, or reads a
 * better figure than every level inside it (an S3260 enclosure's
 * PowerConsumedWatts over its server's AverageConsumedWatts), else the
 * innermost.  Adds those not there yet to out (*n of them); how many s
 * has.
 */
static size_t
system_levels(struct rf_disc *d, const struct rf_topo *t, size_t s,
    struct rf_level *out, size_t *n, size_t max)
{
	struct rf_level cand[MAX_LEVELS];
	int rank[MAX_LEVELS], inner, at = -1;
	size_t nc, i, j, got = 0;

	nc = candidates(d, t, s, cand, MAX_LEVELS);
	for (i = 0; i < nc; i++)
		rank[i] = rf_wall_rank(d, t, &cand[i]);
	for (i = 0; i < nc && at < 0; i++) {
		for (j = i + 1, inner = INT_MAX; j < nc; j++)
			if (cand[j].depth < cand[i].depth && rank[j] < inner)
				inner = rank[j];
		if (inner == INT_MAX || rank[i] < inner || (cand[i].sys < 0 &&
		    contains_only_ours(d, t, (size_t)cand[i].ch)))
			at = cand[i].depth;
	}
	for (i = 0; i < nc && *n < max; i++) {
		if (cand[i].depth != at)
			continue;
		got++;
		if (!level_in(out, *n, &cand[i]))
			out[(*n)++] = cand[i];
	}
	return got;
}

/* Says why system s has no level: no input anywhere, or only in a
 * chassis that feeds other systems too. */
static void
why_none(struct rf_disc *d, const struct rf_topo *t, size_t s)
{
	struct rf_level lv = { 0, -1, 0 };
	size_t c, other = 0;

	for (c = 0; c < d->n_ch; c++) {
		lv.ch = (int)c;
		if (rf_topo_depth(t, s, c) < 0 || !rf_wall_has_data(d, t, &lv))
			continue;
		rf_note(d, "System %s: Chassis %s has the input, but it feeds "
		    "%zu systems: its total is the wall of a node configured "
		    "without system: (one node for the enclosure)",
		    d->sys[s].id, d->ch[c].id, rf_topo_fed(t, c));
		other++;
	}
	if (other == 0)
		rf_note(d, "System %s: no chassis that feeds it has an input "
		    "reading (only outputs or components, or none)",
		    d->sys[s].id);
}

/* Top-level chassis with an input (no system, or none linked): those
 * with no ancestor that has one. */
static size_t
top_levels(struct rf_disc *d, const struct rf_topo *t, struct rf_level *out,
    size_t max)
{
	struct rf_level lv = { 0, -1, 0 }, up = { 0, -1, 0 };
	struct chassis *p;
	size_t c, n = 0;
	int hops;
	bool covered;

	for (c = 0; c < d->n_ch && n < max; c++) {
		lv.ch = (int)c;
		if (d->ch[c].component || !rf_wall_has_data(d, t, &lv))
			continue;
		covered = false;
		p = &d->ch[c];
		for (hops = 0; hops < CHAIN_MAX && !covered &&
		    (p = rf_chassis_by_uri(d, p->parent[0] ? p->parent :
		    p->n_fed_by ? p->fed_by[0] : NULL)) != NULL &&
		    p != &d->ch[c]; hops++) {	/* a loop ends at itself */
			up.ch = rf_chassis_index(d, p);
			covered = !p->component && rf_wall_has_data(d, t, &up);
		}
		if (!covered)
			out[n++] = lv;
	}
	return n;
}

/* The levels of the node; why there are none in a note. */
static size_t
node_levels(struct rf_disc *d, const struct rf_topo *t, struct rf_level *out)
{
	size_t s, n = 0, in = 0;

	for (s = 0; s < d->n_sys; s++)
		in += d->sys[s].in_node;
	if (d->want_system[0] != '\0' && in == 0) {
		rf_note(d, "no system '%s' on this BMC (%zu systems%s%s)",
		    d->want_system, d->n_sys, d->n_sys ? ", first: " : "",
		    d->n_sys ? d->sys[0].id : "");
		return 0;
	}
	for (s = 0; s < d->n_sys; s++) {
		if (!d->sys[s].in_node)
			continue;
		if (system_levels(d, t, s, out, &n, MAX_LEVELS) == 0)
			why_none(d, t, s);
	}
	/* No system: a power shelf alone is its own wall; a PDU's chassis
	 * is not (its outlets and inlets are read as a PDU). */
	if (n == 0 && !d->have_pdu && (d->n_sys == 0 || (in == 1 &&
	    d->n_sys == 1)))
		n = top_levels(d, t, out, MAX_LEVELS);
	return n;
}

/* "systems=N;enclosure=Id" for a figure that covers several systems. */
static const char *
wall_labels(struct rf_disc *d, const struct rf_topo *t,
    const struct rf_level *lv, size_t n)
{
	char buf[160] = "";
	size_t s, cover = 0, i, len = 0;
	char *out;

	for (s = 0; s < d->n_sys; s++) {
		for (i = 0; i < n; i++)
			if (lv[i].sys >= 0 ? (size_t)lv[i].sys == s :
			    rf_topo_depth(t, s, (size_t)lv[i].ch) >= 0)
				break;
		cover += i < n;
	}
	if (cover > 1)
		len = (size_t)snprintf(buf, sizeof(buf), "systems=%zu", cover);
	for (i = 0; i < n && len < sizeof(buf); i++)
		if (lv[i].sys < 0 && rf_topo_fed(t, (size_t)lv[i].ch) > 1) {
			snprintf(buf + len, sizeof(buf) - len, "%senclosure=%s",
			    len ? ";" : "", d->ch[lv[i].ch].id);
			break;
		}
	if (buf[0] == '\0' || (out = rf_pool_alloc(d, strlen(buf) + 1)) ==
	    NULL)
		return "";
	memcpy(out, buf, strlen(buf) + 1);
	return out;
}

/* One wall series from the figures of every level; a level without a
 * figure of this quantity leaves the series out (noted). */
static int
wall_series(struct rf_disc *d, const struct rf_topo *t,
    const struct rf_level *lv, const struct rf_figure *f, size_t n, int q)
{
	struct rf_series *se;
	char where[160];
	size_t i, j, total = 0;

	for (i = 0; i < n; i++) {
		if (f[i].n == 0) {
			rf_level_name(d, &lv[i], where, sizeof(where));
			rf_note(d, "%s has no %s figure: no wall/%s", where,
			    q == WP_Q_ENERGY ? "energy" : "power",
			    q == WP_Q_ENERGY ? "energy" : "power");
			return 0;
		}
		total += f[i].n;
	}
	if (n == 0)
		return 0;
	if ((se = new_series(d, q == WP_Q_ENERGY ? "wall/energy" :
	    "wall/power", WP_B_WALL, q, total)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		for (j = 0; j < f[i].n; j++)
			add_pick(d, se, f[i].idx[j]);
	se->labels = wall_labels(d, t, lv, n);
	for (i = 0; i < n; i++) {
		rf_level_name(d, &lv[i], where, sizeof(where));
		rf_note(d, "wall/%s: %s: %s (%zu reading%s)", q == WP_Q_ENERGY ?
		    "energy" : "power", where, f[i].rule, f[i].n,
		    f[i].n == 1 ? "" : "s summed");
	}
	return 0;
}

/* Do two figures read the same readings twice (a chassis repeating
 * another's Sensors: same Ids, same values)? */
static bool
same_figure(const struct rf_disc *d, const struct rf_figure *a,
    const struct rf_figure *b)
{
	const struct rf_reading *x, *y;
	size_t i, j;

	if (a->n == 0 || a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		x = &d->rd.v[a->idx[i]];
		for (j = 0; j < b->n; j++) {
			y = &d->rd.v[b->idx[j]];
			if (x->id[0] && strcmp(x->id, y->id) == 0 &&
			    x->value == y->value && x->src == y->src)
				break;
		}
		if (j == b->n)
			return false;
	}
	return true;
}

/* Drops level i of n when its figures repeat an earlier level's. */
static size_t
drop_repeats(struct rf_disc *d, struct rf_level *lv, struct rf_figure *e,
    struct rf_figure *p, size_t n)
{
	char a[160], b[160];
	size_t i, j, k;

	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++) {
			if (!same_figure(d, &p[i], &p[j]) && !same_figure(d,
			    &e[i], &e[j]))
				continue;
			rf_level_name(d, &lv[i], a, sizeof(a));
			rf_level_name(d, &lv[j], b, sizeof(b));
			rf_note(d, "%s repeats the readings of %s: counted "
			    "once", a, b);
			for (k = i; k + 1 < n; k++) {
				lv[k] = lv[k + 1];
				e[k] = e[k + 1];
				p[k] = p[k + 1];
			}
			n--;
			i--;
			break;
		}
	return n;
}

/* The wall series of the node; its levels in lv (*n of them). */
static int
plan_wall(struct rf_disc *d, const struct rf_topo *t, struct rf_level *lv,
    size_t *n_out)
{
	struct rf_figure e[MAX_LEVELS], p[MAX_LEVELS];
	size_t n, i;

	n = node_levels(d, t, lv);
	for (i = 0; i < n; i++)
		rf_wall_figures(d, t, &lv[i], &e[i], &p[i]);
	n = *n_out = drop_repeats(d, lv, e, p, n);
	if (n == 0)
		rf_note(d, "no wall source: nothing on this BMC measures the "
		    "node's input (the report models the node)");
	if (wall_series(d, t, lv, e, n, WP_Q_ENERGY) < 0 ||
	    wall_series(d, t, lv, p, n, WP_Q_POWER) < 0)
		return -1;
	return 0;
}

/* ---- GPUs and PDUs ---- */

/* The first reading of owner with quantity q from srcs (input role). */
static int
first_of(const struct rf_disc *d, int owner, const int *srcs)
{
	size_t i;
	int k;

	for (k = 0; srcs[k] >= 0; k++)
		for (i = 0; i < d->rd.n; i++)
			if (d->rd.v[i].owner == owner && !d->rd.v[i].absent &&
			    d->rd.v[i].role == RF_ROLE_INPUT &&
			    d->rd.v[i].src == srcs[k])
				return (int)i;
	return -1;
}

static int
plan_gpus(struct rf_disc *d)
{
	static const int energy[] = { RF_SRC_ENV_ENERGYJ,
	    RF_SRC_SENSOR_ENERGYJ, RF_SRC_ENV_ENERGYKWH,
	    RF_SRC_SENSOR_ENERGYKWH, -1 };
	static const int power[] = { RF_SRC_ENV_POWER, RF_SRC_SENSOR_POWER,
	    -1 };
	struct rf_series *se;
	char name[WP_SERIES_MAX];
	int g, q, ri;

	for (g = 0; g < d->n_gpu; g++)
		for (q = WP_Q_POWER; q <= WP_Q_ENERGY; q++) {
			ri = first_of(d, OWN_GPU + g, q == WP_Q_ENERGY ?
			    energy : power);
			if (ri < 0)
				continue;
			snprintf(name, sizeof(name), "gpu/%d/%s", g,
			    q == WP_Q_ENERGY ? "energy" : "power");
			if ((se = new_series(d, name, WP_B_GPU, q, 1)) == NULL)
				return -1;
			add_pick(d, se, (size_t)ri);
			se->name = d->gpu[g].id;
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
	struct rf_series *se;
	char name[WP_SERIES_MAX];
	size_t i;
	int q;

	for (q = WP_Q_POWER; q <= WP_Q_ENERGY; q++)
		for (i = 0; i < d->rd.n; i++) {
			if (d->rd.v[i].owner != owner ||
			    d->rd.v[i].quantity != q || d->rd.v[i].absent)
				continue;
			snprintf(name, sizeof(name), "%s/%s/%s", prefix, num,
			    q == WP_Q_ENERGY ? "energy" : "power");
			if ((se = new_series(d, name, boundary, q, 1)) == NULL)
				return -1;
			add_pick(d, se, i);
			se->name = d->rd.v[i].id;
			break;
		}
	return 0;
}

static bool
has_owner(const struct rf_disc *d, int owner, size_t *at)
{
	size_t i;

	for (i = 0; i < d->rd.n; i++)
		if (d->rd.v[i].owner == owner) {
			*at = i;
			return true;
		}
	return false;
}

static int
plan_pdu(struct rf_disc *d)
{
	char num[16];
	int k, mains = 0;
	size_t i;

	for (k = 1; k <= 512; k++) {
		if (!has_owner(d, OWN_OUTLET + k, &i))
			continue;
		outlet_label(d->rd.v[i].id, k, num, sizeof(num));
		if (plan_pdu_one(d, OWN_OUTLET + k, "outlet", WP_B_OUTLET,
		    num) < 0)
			return -1;
	}
	for (k = 1; k <= 64; k++) {
		if (!has_owner(d, OWN_MAIN + k, &i))
			continue;
		snprintf(num, sizeof(num), "%d", ++mains);
		if (plan_pdu_one(d, OWN_MAIN + k, "inlet", WP_B_PDU, num) < 0)
			return -1;
	}
	if (mains == 0 && plan_pdu_one(d, OWN_PDM, "inlet", WP_B_PDU, "1") < 0)
		return -1;
	return 0;
}

/* ---- what probe lists ---- */

/* Does a reading of chassis c belong to this node (its own, or of a
 * chassis feeding it)? */
static bool
for_node(const struct rf_disc *d, const struct rf_topo *t, size_t ri)
{
	int c = d->rd.v[ri].owner, sys = t->r_sys ? t->r_sys[ri] : -1;
	size_t s, in = 0;

	if (sys >= 0)
		return d->sys[sys].in_node;
	for (s = 0; s < d->n_sys; s++) {
		in += d->sys[s].in_node;
		if (d->sys[s].in_node && rf_topo_depth(t, s, (size_t)c) >= 0)
			return true;
	}
	return in == 0 && d->want_system[0] == '\0';
}

static int
boundary_of(const struct rf_disc *d, const struct rf_topo *t, size_t ri,
    const char **why)
{
	const struct rf_reading *r = &d->rd.v[ri];

	*why = "";
	if (r->owner == OWN_REPORT || r->owner == OWN_PROC || r->owner < 0)
		return *why = "not a chassis' or GPU's", WP_B_COMPONENT;
	if (r->owner >= OWN_MAIN)
		return WP_B_PDU;
	if (r->owner >= OWN_OUTLET)
		return WP_B_OUTLET;
	if (r->owner >= OWN_GPU)
		return r->role == RF_ROLE_INPUT ? WP_B_GPU : WP_B_COMPONENT;
	if (r->role == RF_ROLE_OUTPUT)
		return *why = "an output", WP_B_COMPONENT;
	if (r->role == RF_ROLE_COMPONENT)
		return *why = "a component", WP_B_COMPONENT;
	if (d->ch[r->owner].pdu[0] != '\0')
		return *why = "a PDU's chassis (read as a PDU)", WP_B_PDU;
	if (d->ch[r->owner].component)
		return *why = "in a part (component chassis)", WP_B_COMPONENT;
	if (!for_node(d, t, ri))
		return *why = "another node's", WP_B_COMPONENT;
	return *why = "cross-check", WP_B_WALL;
}

/* A series is primary when it is the energy one, or power without one. */
static bool
primary(const struct rf_disc *d, const struct rf_series *se)
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

static void
mark_chosen(struct rf_disc *d)
{
	size_t i, j, k;

	for (j = 0; j < d->n_series; j++) {
		if (!primary(d, &d->series[j]))
			continue;
		for (k = 0; k < d->series[j].n_pick; k++)
			for (i = 0; i < d->n_found; i++)
				if (strcmp(d->found[i].r->key,
				    d->series[j].pick[k].key) == 0) {
					d->found[i].chosen = true;
					d->found[i].why = "chosen";
				}
	}
}

static int
build_found(struct rf_disc *d, const struct rf_topo *t)
{
	const struct rf_reading *r;
	struct rf_found *f;
	size_t i;
	int sys;

	if ((d->found = calloc(d->rd.n + 1, sizeof(*d->found))) == NULL)
		return -1;
	for (i = 0; i < d->rd.n; i++) {
		r = &d->rd.v[i];
		if (r->absent)
			continue;	/* a marker, not a reading */
		f = &d->found[d->n_found++];
		f->r = r;
		f->boundary = boundary_of(d, t, i, &f->why);
		sys = t->r_sys && i < t->n_r ? t->r_sys[i] : -1;
		f->where = sys >= 0 ? d->sys[sys].id : r->owner >= 0 &&
		    (size_t)r->owner < d->n_ch ? d->ch[r->owner].id : "";
	}
	mark_chosen(d);
	return 0;
}

/* ---- identity: the system's and its manager's, not the first chassis' */

static const struct manager *
node_manager(const struct rf_disc *d, const struct system *s,
    const struct chassis *c)
{
	const struct manager *m;
	size_t i;

	if ((s && (m = rf_manager_by_uri(d, s->manager)) != NULL) ||
	    (c && (m = rf_manager_by_uri(d, c->manager)) != NULL))
		return m;
	for (i = 0; i < d->n_mgr; i++)
		if (strcmp(d->mgr[i].type, "BMC") == 0)
			return &d->mgr[i];
	return d->n_mgr ? &d->mgr[0] : NULL;
}

static void
identity(struct rf_disc *d, const struct rf_level *lv, size_t n)
{
	struct rf_plan *p = &d->plan;
	const struct system *s = NULL;
	const struct chassis *c = n > 0 ? &d->ch[lv[0].ch] : NULL;
	const struct manager *m;
	size_t i, in = 0;

	for (i = 0; i < d->n_sys; i++)
		if (d->sys[i].in_node && in++ == 0)
			s = &d->sys[i];
	if (in != 1)
		s = NULL;
	for (i = 0; c == NULL && i < d->n_ch; i++)
		if (!d->ch[i].component && d->ch[i].parent[0] == '\0' &&
		    (s == NULL || rf_system_has(s, &d->ch[i])))
			c = &d->ch[i];
	m = node_manager(d, s, c);
	if (s && s->vendor[0])
		rf_copy(p->vendor, sizeof(p->vendor), s->vendor);
	else if (c && c->vendor[0])
		rf_copy(p->vendor, sizeof(p->vendor), c->vendor);
	else if (m)
		rf_copy(p->vendor, sizeof(p->vendor), m->vendor);
	if (s && s->model[0])
		rf_copy(p->model, sizeof(p->model), s->model);
	else if (c && c->model[0])
		rf_copy(p->model, sizeof(p->model), c->model);
	else if (m)
		rf_copy(p->model, sizeof(p->model), m->model);
	if (m)
		rf_copy(p->firmware, sizeof(p->firmware), m->firmware);
	if (d->have_pdu && (d->mode == RF_MODE_PDU || n == 0)) {
		rf_copy(p->vendor, sizeof(p->vendor), d->pdu_vendor);
		rf_copy(p->model, sizeof(p->model), d->pdu_model);
		rf_copy(p->firmware, sizeof(p->firmware), d->pdu_firmware);
	}
}

/* The note that says why the node has no wall source, or "". */
static const char *
no_wall_reason(const struct rf_disc *d)
{
	size_t i;

	for (i = 0; i < d->n_notes; i++)
		if (strncmp(d->notes[i], "System ", 7) == 0 ||
		    strncmp(d->notes[i], "no system", 9) == 0 ||
		    strstr(d->notes[i], "not a node's wall") != NULL)
			return d->notes[i];
	return "";
}

int
rf_choose(struct rf_disc *d, struct wp_err *err)
{
	struct rf_level lv[MAX_LEVELS];
	struct rf_topo t;
	size_t n = 0;
	int rc = -1;

	rf_readings_merge(&d->rd);
	note_disagreements(d);
	adopt_reports(d);
	if (rf_topo_new(d, &t) < 0 || rf_topo_attribute(d, &t) < 0 ||
	    (d->mode != RF_MODE_PDU && (plan_wall(d, &t, lv, &n) < 0 ||
	    plan_gpus(d) < 0)) || (d->mode != RF_MODE_NODE &&
	    plan_pdu(d) < 0) || settle_uris(d) < 0 || build_found(d, &t) < 0) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto out;
	}
	identity(d, lv, n);
	rc = 0;
	if (strncmp(no_wall_reason(d), "no system", 9) == 0)
		rc = err_set(err, WP_E_PROTOCOL, "%s", no_wall_reason(d));
	else if (d->n_series == 0 && (d->mode != RF_MODE_PROBE ||
	    d->n_found == 0))
		rc = err_set(err, WP_E_PROTOCOL, "no power or energy source "
		    "found (%zu chassis, %d unreadable links%s%s)%s%s", d->n_ch,
		    d->plan.dangling, d->problem[0] ? "; last: " : "",
		    d->problem, no_wall_reason(d)[0] ? ": " : "",
		    no_wall_reason(d));
out:
	rf_topo_free(&t);
	return rc;
}
