/* report_csv.c - the key/value and sustainability CSVs (see report_csv.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "../lib/clock.h"
#include "report_csv.h"
#include "report_json.h"

/* One CSV cell (quoted when needed), then sep ('\0': none). */
static void
csv_cell(FILE *f, const char *s, char sep)
{
	if (strpbrk(s, ",\"\n\r") != NULL) {
		fputc('"', f);
		for (; *s; s++)
			fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
		fputc('"', f);
	} else
		fputs(s, f);
	if (sep != '\0')
		fputc(sep, f);
}

/* One "path,value" row per leaf of o under path. */
static void
flatten(json_object *o, const char *path, FILE *f)
{
	char p[512];

	if (o != NULL && json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "",
			    k);
			flatten(v, p, f);
		}
	} else if (o != NULL && json_object_is_type(o, json_type_array)) {
		size_t i, n = json_object_array_length(o);

		for (i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(o, i);
			json_object *nm;

			if (json_object_is_type(e, json_type_object) &&
			    json_object_object_get_ex(e, "name", &nm))
				snprintf(p, sizeof(p), "%s.%s", path,
				    json_object_get_string(nm));
			else
				snprintf(p, sizeof(p), "%s.%zu", path, i);
			flatten(e, p, f);
		}
	} else {
		csv_cell(f, path, ',');
		csv_cell(f, o ? json_object_get_string(o) : "", '\n');
	}
}

/* The document doc as key,value rows (doc taken over). */
static int
doc_csv(FILE *f, json_object *doc)
{
	if (doc == NULL)
		return -1;
	fprintf(f, "key,value\n");
	flatten(doc, "", f);
	json_object_put(doc);
	return ferror(f) ? -1 : 0;
}

int
report_csv_write(FILE *f, const struct report *r)
{
	return doc_csv(f, report_json_doc(r));
}

int
report_curve_csv_write(FILE *f, const struct report_curve_doc *d)
{
	return doc_csv(f, report_curve_json_doc(d));
}

/* --------------------------------------------------- sustainability */

static const char carbon_csv_header[] = "scope,name,boundary,method,kg,gas,"
    "g_per_million_output_tokens,coverage,kwh,output_tokens,"
    "intensity_source,residual_mix_source,residual_mix_year,"
    "remainder_method,remainder_flag,period_start,period_end\n";

/* A number (12 significant digits) as a cell; "" when unknown. */
static void
csv_num(FILE *f, double v, char sep)
{
	char b[64];

	if (isfinite(v)) {
		snprintf(b, sizeof(b), "%.12g", v);
		csv_cell(f, b, sep);
	} else
		csv_cell(f, "", sep);
}

/* One scope's rows: its location- and market-based figures (NULL when
 * absent) at each boundary. */
struct scope {
	const char *scope, *name;
	const struct report_pair *fig[REPORT_C_N][2];	/* [boundary][method] */
	double	 out;
};

static void
scope_rows(FILE *f, const struct report *r, const struct scope *sc)
{
	static const char *const meth[2] = { "location", "market" };
	const struct report_carbon *cb = &r->carbon;
	const char *rem = cb->mk_ok[REPORT_C_WALL] &&
	    cb->mres.remainder_step ? cb->mres.remainder_step : "";
	bool resid = cb->mk_ok[REPORT_C_WALL] && cb->residual_set;
	char start[40], end[40];
	int b, m;

	clock_iso8601(r->from, start, sizeof(start));
	clock_iso8601(r->to, end, sizeof(end));
	for (b = 0; b < REPORT_C_N; b++)
		for (m = 0; m < 2; m++) {
			const struct report_pair *p = sc->fig[b][m];
			bool grid = m == 0 || strcmp(rem, "grid-average") == 0;

			if (p == NULL)
				continue;
			csv_cell(f, sc->scope, ',');
			csv_cell(f, sc->name, ',');
			csv_cell(f, report_carbon_bnd(b), ',');
			csv_cell(f, meth[m], ',');
			csv_num(f, p->kg, ',');
			csv_cell(f, m ? cb->mk_gas : cb->loc_gas, ',');
			csv_num(f, p->g_per_mtok, ',');
			csv_num(f, p->coverage, ',');
			csv_num(f, p->kwh, ',');
			csv_num(f, sc->out >= 0 ? sc->out : NAN, ',');
			csv_cell(f, grid && cb->loc_ok[REPORT_C_WALL] ?
			    cb->intensity_source : "", ',');
			csv_cell(f, m && resid ? cb->residual_source : "", ',');
			csv_cell(f, m && resid && cb->residual_year ?
			    cb->residual_year : "", ',');
			csv_cell(f, m ? rem : "", ',');
			csv_cell(f, m ? cb->remainder_flag : "", ',');
			csv_cell(f, start, ',');
			csv_cell(f, end, '\n');
		}
}

int
report_carbon_csv_write(FILE *f, const struct report *r)
{
	const struct report_carbon *cb = &r->carbon;
	struct scope sc;
	size_t i;
	int b;

	fputs(carbon_csv_header, f);
	if (!r->has_carbon)
		return ferror(f) ? -1 : 0;
	memset(&sc, 0, sizeof(sc));
	sc.scope = "site";
	sc.name = cb->site_name ? cb->site_name : "";
	sc.out = cb->out;
	for (b = 0; b < REPORT_C_N; b++) {
		sc.fig[b][0] = cb->loc_ok[b] ? &cb->loc[b] : NULL;
		sc.fig[b][1] = cb->mk_ok[b] ? &cb->mk[b] : NULL;
	}
	scope_rows(f, r, &sc);
	for (i = 0; i < cb->n_cls; i++) {
		const struct report_carbon_class *k = &cb->cls[i];

		sc.scope = "class";
		sc.name = k->name;
		sc.out = k->out;
		for (b = 0; b < REPORT_C_N; b++) {
			sc.fig[b][0] = k->loc_ok[b] ? &k->loc[b] : NULL;
			sc.fig[b][1] = k->mk_ok[b] ? &k->mk[b] : NULL;
		}
		scope_rows(f, r, &sc);
	}
	return ferror(f) ? -1 : 0;
}
