/* report_models_out.c - per-model tables (see report_models_out.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../model/attr.h"
#include "../lib/jsonv.h"
#include "report_md.h"
#include "report_models_out.h"

static json_object *
count(double v)
{
	return v >= 0 ? jnum(v) : NULL;
}

static const char *
rule_name(int rule)
{
	return rule >= 0 ? attr_rule_name(rule) : rule == -1 ? "mixed" : "none";
}

static json_object *
bnd_json(const struct report_model *m, int b)
{
	json_object *o = json_object_new_object();

	jset(o, "energy_j", m->ok[b] ? jnum(m->energy_j[b]) : NULL);
	jset(o, "kwh", m->ok[b] ? jnum(m->energy_j[b] / 3.6e6) : NULL);
	jset(o, "j_per_output_token", jnum(m->j_per_token[b]));
	jset(o, "tokens_per_joule", jnum(m->tokens_per_j[b]));
	jset(o, "rule", json_object_new_string(rule_name(m->rule[b])));
	return o;
}

static json_object *
carbon_json(const struct report_model *m)
{
	json_object *o = json_object_new_object();
	json_object *loc = json_object_new_object();
	json_object *mk = json_object_new_object();
	int c;

	for (c = 0; c < REPORT_C_N; c++) {
		jset(loc, report_carbon_bnd(c), m->loc_ok[c] ?
		    jnum(m->loc_kg[c]) : NULL);
		jset(mk, report_carbon_bnd(c), m->mk_ok[c] ? jnum(m->mk_kg[c]) :
		    NULL);
	}
	jset(o, "location_kg", loc);
	jset(o, "market_kg", mk);
	return o;
}

/* The entry per node class it ran in: kWh per boundary, tokens, J per
 * output token at the wall. */
static json_object *
class_json(const struct report *r, const struct report_model *m)
{
	json_object *o = json_object_new_object(), *x, *k;
	size_t c;
	int b;

	for (c = 0; m->cls != NULL && c < r->models.n_cls; c++) {
		const struct report_model_cls *q = &m->cls[c];

		if (q->nodes == 0)
			continue;
		x = json_object_new_object();
		jset(x, "nodes", json_object_new_int64((int64_t)q->nodes));
		jset(x, "output_tokens", m->unallocated ? NULL : jnum(q->out));
		k = json_object_new_object();
		for (b = 0; b < BND_N; b++)
			jset(k, bnd_name(b), m->ok[b] ? jnum(q->energy_j[b] / 3.6e6) :
			    NULL);
		jset(x, "kwh", k);
		jset(x, "j_per_output_token_wall", m->ok[BND_WALL] && q->out > 0 ?
		    jnum(q->energy_j[BND_WALL] / q->out) : NULL);
		jset(o, report_class_label(r, c), x);
	}
	return o;
}

static json_object *
model_json(const struct report *r, const struct report_model *m)
{
	json_object *o = json_object_new_object(), *t, *bs, *co;
	int b;

	jset(o, "name", json_object_new_string(m->name));
	jset(o, "unallocated", json_object_new_boolean(m->unallocated));
	jset(o, "nodes", json_object_new_int64((int64_t)m->nodes));
	jset(o, "engines", json_object_new_int64((int64_t)m->engines));
	jset(o, "gpus", json_object_new_int64((int64_t)m->gpus));
	t = json_object_new_object();
	jset(t, "output", count(m->out));
	jset(t, "input", count(m->in));
	jset(t, "engines_without_tokens", json_object_new_int64(
	    (int64_t)m->engines_no_tokens));
	jset(o, "tokens", t);
	bs = json_object_new_object();
	for (b = 0; b < BND_N; b++)
		jset(bs, bnd_name(b), bnd_json(m, b));
	jset(o, "boundaries", bs);
	jset(o, "by_class", class_json(r, m));
	if (r->has_carbon)
		jset(o, "carbon", carbon_json(m));
	if (r->has_cost) {
		co = json_object_new_object();
		jset(co, "amount", m->cost_ok ? jnum(m->cost) : NULL);
		jset(co, "currency", json_object_new_string(r->cost.currency));
		jset(co, "boundary", json_object_new_string(
		    report_carbon_bnd(r->cost.boundary)));
		jset(o, "cost", co);
	}
	return o;
}

void
report_models_json(json_object *root, const struct report *r)
{
	json_object *a = json_object_new_array(), *at;
	size_t i;

	at = json_object_new_object();
	jset(at, "rule", json_object_new_string(r->models.rule == ATTR_PER_GPU ?
	    "per_gpu" : "proportional"));
	jset(at, "text", json_object_new_string(report_models_rule_text(
	    r->models.rule)));
	jset(at, "carbon_and_cost", json_object_new_string("the site's figure "
	    "at the boundary x the model's share of the fleet's energy there"));
	jset(root, "attribution", at);
	for (i = 0; i < r->models.n; i++)
		json_object_array_add(a, model_json(r, &r->models.v[i]));
	jset(root, "models", a);
	a = json_object_new_array();
	for (i = 0; i < r->tenants.n; i++)
		json_object_array_add(a, model_json(r, &r->tenants.v[i]));
	jset(root, "tenants", a);
}

static const char *
kwh(const struct report_model *m, int b, char *buf, size_t len)
{
	return report_md_sig(m->ok[b] ? m->energy_j[b] / 3.6e6 : NAN, buf,
	    len);
}

/* One table of entries (models or tenants) under its heading. */
static void
md_table(FILE *f, const char *col, const struct report_models *mm)
{
	char t[32], g[32], w[32], o[32], fa[32], jg[32], jw[32], jf[32];
	char tw[32], c[32], k[32];
	size_t i;

	fprintf(f, "| %s | nodes | GPUs | output tokens | GPU kWh | wall kWh | "
	    "outlet kWh | facility kWh | J/token GPU | J/token wall | J/token "
	    "facility | tokens/J wall | kgCO2e (location, wall) | cost |\n"
	    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", col);
	for (i = 0; i < mm->n; i++) {
		const struct report_model *m = &mm->v[i];

		fprintf(f, "| %s | %zu | %zu | %s | %s | %s | %s | %s | %s | %s "
		    "| %s | %s | %s | %s |\n", m->name, m->nodes, m->gpus,
		    report_md_sig(m->out >= 0 ? m->out : NAN, t, sizeof(t)),
		    kwh(m, BND_GPU, g, sizeof(g)), kwh(m, BND_WALL, w,
		    sizeof(w)), kwh(m, BND_OUTLET, o, sizeof(o)), kwh(m,
		    BND_FACILITY, fa, sizeof(fa)), report_md_sig(
		    m->j_per_token[BND_GPU], jg, sizeof(jg)), report_md_sig(
		    m->j_per_token[BND_WALL], jw, sizeof(jw)), report_md_sig(
		    m->j_per_token[BND_FACILITY], jf, sizeof(jf)),
		    report_md_sig(m->tokens_per_j[BND_WALL], tw, sizeof(tw)),
		    report_md_sig(m->loc_ok[REPORT_C_WALL] ?
		    m->loc_kg[REPORT_C_WALL] : NAN, k, sizeof(k)),
		    report_md_sig(m->cost_ok ? m->cost : NAN, c, sizeof(c)));
	}
}

void
report_models_md(FILE *f, const struct report *r)
{
	if (r->models.n == 0)
		return;
	fprintf(f, "\n## Per model\n\nAttribution (%s): %s.\n\n",
	    r->models.rule == ATTR_PER_GPU ? "per_gpu" : "proportional",
	    report_models_rule_text(r->models.rule));
	md_table(f, "model", &r->models);
	if (r->tenants.n == 0)
		return;
	fprintf(f, "\n## Per tenant\n\nBy the tenants: map, per GPU: the "
	    "GPU's namespace (dcgm-exporter pod mapping), else the model of "
	    "the engine holding it, else the node; the same split.\n\n");
	md_table(f, "tenant", &r->tenants);
}

static void
cell_num(FILE *f, double v, bool ok, char sep)
{
	if (ok && isfinite(v))
		fprintf(f, "%.12g%c", v, sep);
	else
		fprintf(f, "%c", sep);
}

/* A name as a CSV cell (quoted when it needs it). */
static void
cell_str(FILE *f, const char *s)
{
	const char *p;

	if (strpbrk(s, ",\"\n\r") == NULL) {
		fprintf(f, "%s,", s);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputs("\",", f);
}

static void
csv_rows(FILE *f, const struct report *r, const char *scope,
    const struct report_models *mm)
{
	size_t i;
	int b, c;

	for (i = 0; i < mm->n; i++)
		for (b = 0; b < BND_N; b++) {
			const struct report_model *m = &mm->v[i];

			c = b == BND_WALL ? REPORT_C_WALL : b == BND_FACILITY ?
			    REPORT_C_FACILITY : -1;
			fprintf(f, "%s,", scope);
			cell_str(f, m->name);
			fprintf(f, "%s,", bnd_name(b));
			cell_num(f, m->energy_j[b] / 3.6e6, m->ok[b], ',');
			cell_num(f, m->out, m->out >= 0, ',');
			cell_num(f, m->j_per_token[b], true, ',');
			cell_num(f, m->tokens_per_j[b], true, ',');
			cell_num(f, c >= 0 ? m->loc_kg[c] : NAN, c >= 0 &&
			    m->loc_ok[c], ',');
			cell_num(f, c >= 0 ? m->mk_kg[c] : NAN, c >= 0 &&
			    m->mk_ok[c], ',');
			cell_num(f, m->cost, m->cost_ok && c == r->cost.boundary,
			    ',');
			fprintf(f, "%s\n", r->has_cost && c == r->cost.boundary ?
			    r->cost.currency : "");
		}
}

int
report_models_csv_write(FILE *f, const struct report *r)
{
	fprintf(f, "scope,name,boundary,kwh,output_tokens,"
	    "j_per_output_token,tokens_per_joule,location_kgco2e,"
	    "market_kgco2e,cost,currency\n");
	csv_rows(f, r, "tenant", &r->tenants);
	csv_rows(f, r, "model", &r->models);
	return ferror(f) ? -1 : 0;
}
