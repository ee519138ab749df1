/* report_sites_json.c - several sites' document (see report_sites_json.h). */
#include <math.h>

#include "../lib/clock.h"
#include "../lib/jsonv.h"
#include "report_json.h"
#include "report_sites_json.h"

/* One site's boundaries, PUE and tokens, and its report. */
static json_object *
site_json(const struct report_site_row *row, const char *zone)
{
	const struct report *r = row->r;
	json_object *o = json_object_new_object(), *b, *x;
	int k;

	jset(o, "site", jstr(row->name));
	jset(o, "zone", jstr(zone));
	b = json_object_new_object();
	for (k = 0; k < BND_N; k++) {
		const struct bnd_value *v = &r->bnd[k].fig.v;

		x = json_object_new_object();
		jset(x, "energy_j", v->valid ? jnum(v->energy_j) : NULL);
		jset(x, "instrument_bound_j", v->valid ? jnum(v->bound_j) :
		    NULL);
		jset(b, bnd_name(k), x);
	}
	jset(o, "boundaries", b);
	jset(o, "output_tokens", r->out >= 0 ? jnum(r->out) : NULL);
	x = json_object_new_object();
	jset(x, "value", jnum(r->pue.value));
	jset(x, "source", jstr(r->pue.source));
	jset(x, "facility_energy_j", jnum(r->pue.facility_j));
	jset(x, "it_energy_j", jnum(r->pue.it_j));
	jset(o, "pue", x);
	jset(o, "report", report_json_doc(r));
	return o;
}

static json_object *
fleet_json(const struct report_sites *s)
{
	json_object *o = json_object_new_object(), *b, *x;
	int k;

	jset(o, "sites", json_object_new_int64((int64_t)s->n));
	jset(o, "output_tokens", s->out >= 0 ? jnum(s->out) : NULL);
	b = json_object_new_object();
	for (k = 0; k < BND_N; k++) {
		const struct report_sites_bnd *f = &s->b[k];

		x = json_object_new_object();
		jset(x, "energy_j", f->valid ? jnum(f->energy_j) : NULL);
		jset(x, "instrument_bound_j", f->valid ? jnum(f->bound_j) :
		    NULL);
		jset(x, "j_per_output_token", jnum(f->j_per_output_token));
		jset(x, "sites_measured", json_object_new_int64(
		    (int64_t)f->sites));
		jset(b, bnd_name(k), x);
	}
	jset(o, "boundaries", b);
	x = json_object_new_object();
	jset(x, "value", jnum(s->pue));
	jset(x, "facility_energy_j", jnum(s->facility_j));
	jset(x, "it_energy_j", jnum(s->it_j));
	jset(x, "method", json_object_new_string("the sites' metered facility "
	    "energies summed over their metered IT energies summed; the "
	    "facility boundary is each site's own, summed"));
	jset(o, "pue", x);
	return o;
}

json_object *
report_sites_json_doc(const struct report_sites *s, const char *const *zones)
{
	json_object *root = json_object_new_object(), *w, *a;
	size_t i;

	if (root == NULL || s->n == 0)
		return root;
	w = json_object_new_object();
	jset(w, "start", jtime(s->rows[0].r->from));
	jset(w, "end", jtime(s->rows[0].r->to));
	jset(w, "seconds", jnum(s->rows[0].r->secs));
	jset(root, "window", w);
	a = json_object_new_array();
	for (i = 0; i < s->n; i++)
		json_object_array_add(a, site_json(&s->rows[i], zones[i]));
	jset(root, "by_site", a);
	jset(root, "fleet", fleet_json(s));
	a = json_object_new_array();
	for (i = 0; i < s->w.n; i++)
		json_object_array_add(a, json_object_new_string(s->w.v[i]));
	jset(root, "warnings", a);
	return root;
}
