/* redfish_topo.c - which chassis feed which systems (no I/O). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redfish_model.h"
#include "redfish_names.h"
#include "redfish_topo.h"

/* Marks the systems the node stands for: the one bmc: system: names (by
 * Id, Name, or the last segment of its URI), or all of them. */
static void
select_systems(struct rf_disc *d)
{
	struct system *s;
	const char *seg;
	size_t i, hit = 0;

	for (i = 0; i < d->n_sys; i++) {
		s = &d->sys[i];
		seg = strrchr(s->uri, '/');
		s->in_node = d->want_system[0] == '\0' ||
		    strcmp(s->id, d->want_system) == 0 ||
		    strcasecmp(s->name, d->want_system) == 0 ||
		    (seg && strcmp(seg + 1, d->want_system) == 0);
		hit += s->in_node;
	}
	if (d->want_system[0] != '\0' && hit > 1)
		for (i = 0, hit = 0; i < d->n_sys; i++) {
			d->sys[i].in_node = hit == 0 &&
			    strcmp(d->sys[i].id, d->want_system) == 0;
			hit += d->sys[i].in_node;
		}
}

static bool
orphan(const struct rf_disc *d, const struct chassis *c)
{
	size_t i;

	if (c->component || c->parent[0] || c->n_fed_by || c->n_systems)
		return false;
	for (i = 0; i < d->n_sys; i++)
		if (rf_system_has(&d->sys[i], c))
			return false;
	return true;
}

int
rf_topo_new(struct rf_disc *d, struct rf_topo *t)
{
	size_t s, c, k, head, n, pi;
	int *q, dmax, dx;
	struct chassis *x, *p;

	memset(t, 0, sizeof(*t));
	t->n_sys = d->n_sys;
	t->n_ch = d->n_ch;
	if ((t->depth = malloc((t->n_sys * t->n_ch + 1) *
	    sizeof(*t->depth))) == NULL || (q = malloc((t->n_ch + 1) *
	    sizeof(*q))) == NULL) {
		free(t->depth);
		return -1;
	}
	for (k = 0; k < t->n_sys * t->n_ch; k++)
		t->depth[k] = -1;
	for (s = 0; s < t->n_sys; s++) {
		/* the system's own chassis, then outward, breadth first */
		for (c = n = 0; c < t->n_ch; c++)
			if (!d->ch[c].component && rf_system_has(&d->sys[s],
			    &d->ch[c])) {
				t->depth[s * t->n_ch + c] = 0;
				q[n++] = (int)c;
			}
		for (head = 0, dmax = n ? 0 : -1; head < n; head++) {
			x = &d->ch[q[head]];
			dx = t->depth[s * t->n_ch + (size_t)q[head]];
			for (k = 0; dx < CHAIN_MAX && k <= (size_t)x->n_fed_by;
			    k++) {
				p = rf_chassis_by_uri(d, k == 0 ? x->parent :
				    x->fed_by[k - 1]);
				if (p == NULL || p->component)
					continue;
				pi = (size_t)rf_chassis_index(d, p);
				if (t->depth[s * t->n_ch + pi] >= 0)
					continue;	/* loops end here */
				t->depth[s * t->n_ch + pi] = dx + 1;
				q[n++] = (int)pi;
				if (dx + 1 > dmax)
					dmax = dx + 1;
			}
		}
		/* top-level chassis no system links: outermost of all */
		for (c = 0; c < t->n_ch; c++)
			if (orphan(d, &d->ch[c]))
				t->depth[s * t->n_ch + c] = dmax + 1;
	}
	free(q);
	return 0;
}

void
rf_topo_free(struct rf_topo *t)
{
	free(t->depth);
	free(t->r_sys);
	memset(t, 0, sizeof(*t));
}

int
rf_topo_depth(const struct rf_topo *t, size_t sys, size_t ch)
{
	return sys < t->n_sys && ch < t->n_ch ? t->depth[sys * t->n_ch + ch] :
	    -1;
}

size_t
rf_topo_fed(const struct rf_topo *t, size_t ch)
{
	size_t s, n = 0;

	for (s = 0; s < t->n_sys; s++)
		n += rf_topo_depth(t, s, ch) >= 0;
	return n;
}

bool
rf_topo_fed_in_node(const struct rf_disc *d, const struct rf_topo *t,
    size_t ch)
{
	size_t s;

	for (s = 0; s < t->n_sys; s++)
		if (rf_topo_depth(t, s, ch) >= 0 && !d->sys[s].in_node)
			return false;
	return true;
}

/* Is system id a word of s: bounded by non-alphanumerics, or by a change
 * between letters and digits ("Node0" in "Node0InputPower", not in
 * "Node01")?  Ids without both a letter and a digit are not matched
 * ("1" would be every supply's number). */
static bool
names_system(const char *s, const char *id)
{
	size_t n = strlen(id), i;
	const char *p;
	bool alpha = false, digit = false;
	unsigned char last, next;

	for (i = 0; i < n; i++) {
		alpha |= isalpha((unsigned char)id[i]) != 0;
		digit |= isdigit((unsigned char)id[i]) != 0;
	}
	if (!alpha || !digit || n < 2)
		return false;
	last = (unsigned char)id[n - 1];
	for (p = s; (p = strcasestr(p, id)) != NULL; p++) {
		if (p > s && isalnum((unsigned char)p[-1]))
			continue;
		next = (unsigned char)p[n];
		if (next == '\0' || !isalnum(next) || (isdigit(last) &&
		    !isdigit(next)) || (isalpha(last) && !isalpha(next)))
			return true;
	}
	return false;
}

/* The system of fed-by set of chassis ch that reading r names, or -1. */
static int
reading_system(struct rf_disc *d, const struct rf_topo *t, size_t ch,
    const struct rf_reading *r)
{
	struct chassis *rc;
	size_t s;

	for (s = 0; s < t->n_sys; s++) {
		if (rf_topo_depth(t, s, ch) < 0)
			continue;
		if (r->related[0] && (rf_same_uri(r->related, d->sys[s].uri) ||
		    ((rc = rf_chassis_by_uri(d, r->related)) != NULL &&
		    (size_t)rf_chassis_index(d, rc) != ch &&
		    rf_system_has(&d->sys[s], rc))))
			return (int)s;
		if (names_system(r->id, d->sys[s].id) ||
		    names_system(r->name, d->sys[s].id))
			return (int)s;
	}
	return -1;
}

int
rf_topo_attribute(struct rf_disc *d, struct rf_topo *t)
{
	const struct rf_reading *r;
	size_t i;

	free(t->r_sys);
	t->n_r = d->rd.n;
	if ((t->r_sys = malloc((t->n_r + 1) * sizeof(*t->r_sys))) == NULL)
		return -1;
	for (i = 0; i < t->n_r; i++) {
		r = &d->rd.v[i];
		t->r_sys[i] = -1;
		if (r->owner >= 0 && (size_t)r->owner < t->n_ch &&
		    rf_topo_fed(t, (size_t)r->owner) > 1)
			t->r_sys[i] = reading_system(d, t, (size_t)r->owner, r);
	}
	return 0;
}

/* Chassis named as parts are parts unless a system has them as its own
 * top-level chassis ("WFP_Baseboard" can be a node's only chassis). */
static void
settle_parts(struct rf_disc *d)
{
	struct chassis *c;
	size_t i, s;
	bool linked;

	for (i = 0; i < d->n_ch; i++) {
		c = &d->ch[i];
		if (c->pdu[0] != '\0' && d->mode != RF_MODE_PROBE)
			c->component = true;	/* a PDU's: read as a PDU */
		if (!c->part_name || c->component)
			continue;
		for (s = 0, linked = c->n_systems > 0; s < d->n_sys && !linked;
		    s++)
			linked = rf_system_has(&d->sys[s], c);
		c->component = c->parent[0] != '\0' || !linked;
	}
}

void
rf_topo_walk(struct rf_disc *d)
{
	struct rf_topo t;
	size_t s, c;
	bool linked = false, linked_top = false;

	settle_parts(d);
	select_systems(d);
	if (d->mode == RF_MODE_PDU)
		return;
	if (d->mode == RF_MODE_PROBE) {
		for (c = 0; c < d->n_ch; c++)
			d->ch[c].walked = !d->ch[c].gpu;
		return;
	}
	if (rf_topo_new(d, &t) < 0)
		return;
	for (s = 0; s < d->n_sys; s++)
		for (c = 0; c < d->n_ch; c++)
			if (d->sys[s].in_node && rf_topo_depth(&t, s, c) >= 0)
				d->ch[c].walked = linked = true;
	/* no system, or none linked: every top-level chassis that is not a
	 * part (a power shelf, a chassis manager, a lone node chassis); all
	 * of them when ContainedBy links go round in a loop */
	for (c = 0; !linked && c < d->n_ch; c++)
		if (!d->ch[c].component && rf_chassis_by_uri(d,
		    d->ch[c].parent) == NULL)
			d->ch[c].walked = linked_top = true;
	for (c = 0; !linked && !linked_top && c < d->n_ch; c++)
		d->ch[c].walked = !d->ch[c].component;
	rf_topo_free(&t);
}
