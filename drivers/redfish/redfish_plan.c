/* redfish_plan.c - the compact poll plan, series values, identity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redfish_plan.h"

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
		    intern(in, se->name) < 0 || intern(in, se->labels) < 0)
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
		p->series[i].labels = interned(in, plan->series[i].labels);
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
	const struct rf_reading *r;
	size_t i;

	for (i = 0; i < polled->n; i++)
		if (strcmp(polled->v[i].key, p->key) == 0 &&
		    strcmp(polled->v[i].uri, p->uri) == 0)
			return polled->v[i].absent ? NULL : &polled->v[i];
	r = rf_readings_find(polled, p->key);
	return r == NULL || r->absent ? NULL : r;
}

/* Adds each "k=v" of "k=v;k=v" to s's labels. */
static void
add_labels(struct wp_sample *s, const char *kv)
{
	char buf[WP_LABEL_MAX], *save = NULL, *tok, *eq;

	snprintf(buf, sizeof(buf), "%s", kv);
	for (tok = strtok_r(buf, ";", &save); tok != NULL;
	    tok = strtok_r(NULL, ";", &save))
		if ((eq = strchr(tok, '=')) != NULL) {
			*eq = '\0';
			(void)sample_add_label(s, tok, eq + 1);
		}
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
	if (se->labels[0])
		add_labels(s, se->labels);
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
