/* redfish_wall.c - the ranked wall figure of one chassis (no I/O). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/sample.h"
#include "redfish_model.h"
#include "redfish_names.h"
#include "redfish_topo.h"
#include "redfish_wall.h"

#define CHECK_RATIO	0.9	/* chassis / supplies below this: not input */

enum how { ONE, SUM };

struct tier {
	int		 src, role, how;
	const char	*rule;
};

/* Ranks above the first SUM are chassis figures (checked against the
 * supplies' sum). */
static const struct tier energy_tiers[] = {
	{ RF_SRC_ENV_ENERGYJ, RF_ROLE_INPUT, ONE, "EnvironmentMetrics."
	    "EnergyJoules" },
	{ RF_SRC_SENSOR_ENERGYJ, RF_ROLE_INPUT, ONE, "an input Sensor in J" },
	{ RF_SRC_ENV_ENERGYKWH, RF_ROLE_INPUT, ONE, "EnvironmentMetrics."
	    "EnergykWh" },
	{ RF_SRC_SENSOR_ENERGYKWH, RF_ROLE_INPUT, ONE, "an input Sensor in "
	    "kWh" },
	{ RF_SRC_SENSOR_ENERGYJ, RF_ROLE_BOARD, ONE, "a system board Sensor "
	    "in J" },
	{ RF_SRC_SENSOR_ENERGYKWH, RF_ROLE_BOARD, ONE, "a system board Sensor "
	    "in kWh" },
	{ RF_SRC_SENSOR_ENERGYJ, RF_ROLE_PSU, SUM, "the supplies' input "
	    "Sensors in J" },
	{ RF_SRC_SENSOR_ENERGYKWH, RF_ROLE_PSU, SUM, "the supplies' input "
	    "Sensors in kWh" },
	{ RF_SRC_PSU_ENERGYKWH, RF_ROLE_PSU, SUM, "the supplies' "
	    "PowerSupplyMetrics.EnergykWh" },
	{ -1, 0, 0, NULL }
};

static const struct tier power_tiers[] = {
	{ RF_SRC_ENV_POWER, RF_ROLE_INPUT, ONE, "EnvironmentMetrics."
	    "PowerWatts" },
	{ RF_SRC_SENSOR_POWER, RF_ROLE_INPUT, ONE, "an input Sensor" },
	{ RF_SRC_POWERCONTROL, RF_ROLE_INPUT, ONE, "Power.PowerControl."
	    "PowerConsumedWatts" },
	{ RF_SRC_SENSOR_POWER, RF_ROLE_BOARD, ONE, "a system board Sensor" },
	{ RF_SRC_POWERCONTROL, RF_ROLE_BOARD, ONE, "a system board "
	    "PowerControl" },
	{ RF_SRC_PSU_POWER, RF_ROLE_PSU, SUM, "the supplies' "
	    "PowerSupplyMetrics.InputPowerWatts" },
	{ RF_SRC_SENSOR_POWER, RF_ROLE_PSU, SUM, "the supplies' input "
	    "Sensors" },
	{ RF_SRC_LEGACY_PSU_IN, RF_ROLE_PSU, SUM, "the supplies' "
	    "Power.PowerSupplies.PowerInputWatts" },
	{ RF_SRC_PC_AVERAGE, RF_ROLE_INPUT, ONE, "PowerMetrics."
	    "AverageConsumedWatts" },
	{ RF_SRC_PC_AVERAGE, RF_ROLE_BOARD, ONE, "a system board "
	    "PowerMetrics.AverageConsumedWatts" },
	{ RF_SRC_OEM, RF_ROLE_INPUT, ONE, "the OEM meter" },
	{ -1, 0, 0, NULL }
};

bool
rf_wall_candidate(const struct rf_disc *d, const struct rf_topo *t,
    const struct rf_level *lv, size_t ri)
{
	const struct rf_reading *r = &d->rd.v[ri];

	if (r->owner != lv->ch || r->absent || (r->role != RF_ROLE_INPUT &&
	    r->role != RF_ROLE_BOARD && r->role != RF_ROLE_PSU))
		return false;
	if (d->ch[lv->ch].component)
		return false;
	return (t->r_sys != NULL && ri < t->n_r ? t->r_sys[ri] : -1) ==
	    lv->sys;
}

bool
rf_wall_has_data(const struct rf_disc *d, const struct rf_topo *t,
    const struct rf_level *lv)
{
	size_t i;

	for (i = 0; i < d->rd.n; i++)
		if (rf_wall_candidate(d, t, lv, i))
			return true;
	return false;
}

void
rf_level_name(const struct rf_disc *d, const struct rf_level *lv, char *buf,
    size_t len)
{
	const struct chassis *c = &d->ch[lv->ch];

	if (lv->sys >= 0)
		snprintf(buf, len, "System %s in Chassis %s",
		    d->sys[lv->sys].id, c->id[0] ? c->id : c->uri);
	else
		snprintf(buf, len, "Chassis %s", c->id[0] ? c->id : c->uri);
}

static const char *
label_of(const struct rf_reading *r)
{
	return r->name[0] ? r->name : r->id[0] ? r->id : r->key;
}

/* Candidates of lv for tier t into idx (at most max); how many. */
static size_t
select_tier(const struct rf_disc *d, const struct rf_topo *tp,
    const struct rf_level *lv, const struct tier *t, size_t *idx,
    size_t max)
{
	size_t i, j, n = 0;
	const struct rf_reading *r, *o;

	for (i = 0; i < d->rd.n && n < max; i++) {
		r = &d->rd.v[i];
		if (r->src != t->src || r->role != t->role ||
		    !rf_wall_candidate(d, tp, lv, i))
			continue;
		for (j = 0; t->how == SUM && j < n; j++) {
			o = &d->rd.v[idx[j]];
			if (r->id[0] && strcmp(o->id, r->id) == 0)
				break;	/* the same supply listed twice */
		}
		if (j == n || t->how != SUM)
			idx[n++] = i;
	}
	return n;
}

/* Are all of idx numbered feeds of one name ("Mains Power #1", "#2")? */
static bool
feeds(const struct rf_disc *d, const size_t *idx, size_t n)
{
	char s0[96], s[96];
	bool ix;
	size_t i;

	if (n < 2)
		return false;
	for (i = 0; i < n; i++) {
		rf_names_stem(label_of(&d->rd.v[idx[i]]), i ? s : s0,
		    sizeof(s), &ix);
		if (!ix || (i > 0 && strcmp(s, s0) != 0) || s0[0] == '\0')
			return false;
	}
	return true;
}

static bool
named_total(const struct rf_reading *r)
{
	return rf_names_total(r->id) || rf_names_total(r->name);
}

static bool
indexed(const struct rf_reading *r)
{
	char s[96];
	bool ix;

	rf_names_stem(label_of(r), s, sizeof(s), &ix);
	return ix;
}

/* Of several readings of one rank, the figure: one named total (an
 * un-numbered one first; several numbered totals are feeds), numbered
 * feeds summed, the OEM fast meter, else the largest power or the first
 * energy.  Fills f from idx (n > 0). */
static void
best_one(const struct rf_disc *d, const size_t *idx, size_t n, int q,
    struct rf_figure *f)
{
	size_t tot[RF_MAX_PICKS], nt = 0, i, best = idx[0];
	const struct rf_reading *r;

	f->n = 0;
	for (i = 0; i < n && nt < RF_MAX_PICKS; i++)
		if (named_total(&d->rd.v[idx[i]]))
			tot[nt++] = idx[i];
	if (nt > 0) {
		for (i = 0; i < nt; i++)
			if (!indexed(&d->rd.v[tot[i]])) {
				f->idx[f->n++] = tot[i];
				return;
			}
		idx = tot;
		n = nt;
	}
	if (feeds(d, idx, n)) {
		memcpy(f->idx, idx, n * sizeof(*idx));
		f->n = n;
		return;
	}
	for (i = 0; i < n; i++) {
		r = &d->rd.v[idx[i]];
		if (r->src == RF_SRC_OEM && strstr(r->source, "Fast")) {
			best = idx[i];
			break;
		}
		if (q == WP_Q_POWER && r->value > d->rd.v[best].value)
			best = idx[i];
	}
	f->idx[f->n++] = best;
}

/* Supplies present in chassis c for a sum from src: -1 when no list says
 * how many there are. */
static int
supplies_present(const struct chassis *c, int src)
{
	int sub = c->psu_listed - c->psu_absent;
	int leg = c->legacy_listed - c->legacy_absent;

	if (src == RF_SRC_LEGACY_PSU_IN)
		return c->legacy_listed > 0 ? leg : -1;
	if (src == RF_SRC_PSU_POWER || src == RF_SRC_PSU_ENERGYKWH)
		return c->psu_listed > 0 ? sub : -1;
	return c->psu_listed > 0 ? sub : c->legacy_listed > 0 ? leg : -1;
}

/* The first tier of list from first on with a figure; its index, or -1.
 * stop: index of the tier not to reach (-1: all). */
static int
rank(struct rf_disc *d, const struct rf_topo *tp, const struct rf_level *lv,
    const struct tier *list, int first, int stop, int q, struct rf_figure *f)
{
	size_t idx[RF_MAX_PICKS], n;
	char where[160];
	int i, want;

	f->n = 0;
	f->tier = -1;
	for (i = first; list[i].src >= 0 && i != stop; i++) {
		if ((n = select_tier(d, tp, lv, &list[i], idx,
		    RF_MAX_PICKS)) == 0)
			continue;
		if (list[i].how == ONE) {
			best_one(d, idx, n, q, f);
			f->rule = list[i].rule;
			f->tier = i;
			return i;
		}
		want = supplies_present(&d->ch[lv->ch], list[i].src);
		if (want >= 0 && (int)n != want) {
			rf_level_name(d, lv, where, sizeof(where));
			rf_note(d, "%s: %s cover %zu of %d supplies present: "
			    "not summed", where, list[i].rule, n, want);
			continue;
		}
		memcpy(f->idx, idx, n * sizeof(*idx));
		f->n = n;
		f->rule = list[i].rule;
		f->tier = i;
		return i;
	}
	return -1;
}

static int
first_sum(const struct tier *list)
{
	int i;

	for (i = 0; list[i].src >= 0 && list[i].how != SUM; i++)
		;
	return i;
}

static double
total(const struct rf_disc *d, const struct rf_figure *f)
{
	double v = 0;
	size_t i;

	for (i = 0; i < f->n; i++)
		v += d->rd.v[f->idx[i]].value;
	return v;
}

/* Is the host of lv off (every system it feeds, or its chassis)? */
static bool
host_off(const struct rf_disc *d, const struct rf_topo *tp,
    const struct rf_level *lv)
{
	size_t s, n = 0, off = 0;

	if (strcmp(d->ch[lv->ch].power_state, "Off") == 0)
		return true;
	for (s = 0; s < d->n_sys; s++) {
		if (lv->sys >= 0 ? (int)s != lv->sys :
		    rf_topo_depth(tp, s, (size_t)lv->ch) < 0)
			continue;
		n++;
		off += strcmp(d->sys[s].power_state, "Off") == 0;
	}
	return n > 0 && off == n;
}

void
rf_wall_figures(struct rf_disc *d, const struct rf_topo *tp,
    const struct rf_level *lv, struct rf_figure *energy,
    struct rf_figure *power)
{
	struct rf_figure psu;
	char where[160];
	double c, s;
	int pt, et, ps = first_sum(power_tiers), es = first_sum(energy_tiers);

	pt = rank(d, tp, lv, power_tiers, 0, -1, WP_Q_POWER, power);
	et = rank(d, tp, lv, energy_tiers, 0, -1, WP_Q_ENERGY, energy);
	if (pt < 0 || pt >= ps)
		return;
	/* a chassis figure: is it the input of its own supplies? */
	if (rank(d, tp, lv, power_tiers, ps, ps + 3, WP_Q_POWER, &psu) < 0)
		return;
	c = total(d, power);
	s = total(d, &psu);
	rf_level_name(d, lv, where, sizeof(where));
	if (s <= 0 || c >= CHECK_RATIO * s || host_off(d, tp, lv)) {
		if (c > s / CHECK_RATIO && s > 0)
			rf_note(d, "%s: %s (%.1f W) is more than 10 %% above "
			    "%s (%.1f W); the chassis figure is kept", where,
			    power->rule, c, psu.rule, s);
		return;
	}
	rf_note(d, "%s: %s (%.1f W) is more than 10 %% below %s (%.1f W): "
	    "not the input; the supplies' sum is", where, power->rule, c,
	    psu.rule, s);
	*power = psu;
	if (et >= 0 && et < es)		/* the same meter as the power */
		rank(d, tp, lv, energy_tiers, es, -1, WP_Q_ENERGY, energy);
}

int
rf_wall_rank(struct rf_disc *d, const struct rf_topo *t,
    const struct rf_level *lv)
{
	struct rf_figure e, p;

	d->quiet++;
	rf_wall_figures(d, t, lv, &e, &p);
	d->quiet--;
	if (e.n == 0 && p.n == 0)
		return INT_MAX;
	return (e.n > 0 ? 0 : 1000) + (p.n > 0 ? p.tier : 999);
}
