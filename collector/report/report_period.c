/* report_period.c - the annual table by month (see report_period.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/report.h"
#include "../conf/conf.h"
#include "../lib/jsonv.h"
#include "../store/ledger.h"
#include "report_api.h"
#include "report_json.h"
#include "report_period.h"

static const char *const bnds[] = { "gpu", "wall", "outlet", "facility" };
#define NB	(sizeof(bnds) / sizeof(bnds[0]))
#define J_PER_KWH	3.6e6

/* ---- reading a month's report document ---- */

/* The number at doc/k1/k2/k3 (NULL ends the path), NAN when absent. */
static double
gnum(json_object *o, const char *k1, const char *k2, const char *k3)
{
	const char *k[3] = { k1, k2, k3 };
	int i;

	for (i = 0; i < 3 && k[i] != NULL && o != NULL; i++)
		if (!json_object_object_get_ex(o, k[i], &o))
			o = NULL;
	if (o == NULL || (!json_object_is_type(o, json_type_double) &&
	    !json_object_is_type(o, json_type_int)))
		return NAN;
	return json_object_get_double(o);
}

static const char *
gstr(json_object *o, const char *k1, const char *k2)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k1, &v))
		return NULL;
	if (k2 != NULL && !json_object_object_get_ex(v, k2, &v))
		return NULL;
	return json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

/* Per class: wall kWh and output tokens of its nodes. */
static json_object *
month_classes(json_object *doc)
{
	json_object *nodes, *out = json_object_new_object(), *c, *n;
	size_t i;

	if (!json_object_object_get_ex(doc, "nodes", &nodes))
		return out;
	for (i = 0; i < json_object_array_length(nodes); i++) {
		const char *cls;
		double kwh, tok;

		n = json_object_array_get_idx(nodes, i);
		cls = gstr(n, "class", NULL);
		kwh = gnum(n, "boundaries", "wall", "energy_j") / J_PER_KWH;
		tok = gnum(n, "tokens", NULL, NULL);
		if (!json_object_object_get_ex(out, cls ? cls : "(none)", &c)) {
			c = json_object_new_object();
			json_object_object_add(c, "wall_kwh", jnum(0));
			json_object_object_add(c, "tokens_output", jnum(0));
			json_object_object_add(out, cls ? cls : "(none)", c);
		}
		json_object_object_add(c, "wall_kwh", jnum(gnum(c, "wall_kwh",
		    NULL, NULL) + kwh));
		json_object_object_add(c, "tokens_output", jnum(gnum(c,
		    "tokens_output", NULL, NULL) + (tok >= 0 ? tok : NAN)));
	}
	return out;
}

/* kWh, method, coverage and J/output token per boundary. */
static json_object *
month_boundaries(json_object *doc)
{
	json_object *o = json_object_new_object(), *b;
	size_t i;

	for (i = 0; i < NB; i++) {
		b = json_object_new_object();
		json_object_object_add(b, "kwh", jnum(gnum(doc, "boundaries",
		    bnds[i], "energy_j") / J_PER_KWH));
		json_object_object_add(b, "method", jstr(gstr(
		    json_object_object_get(doc, "boundaries"), bnds[i],
		    "method")));
		json_object_object_add(b, "coverage", jnum(gnum(doc,
		    "boundaries", bnds[i], "coverage")));
		json_object_object_add(b, "j_per_output_token", jnum(gnum(doc,
		    "boundaries", bnds[i], "j_per_output_token")));
		json_object_object_add(o, bnds[i], b);
	}
	return o;
}

/* kgCO2e per method and boundary (wall, facility). */
static json_object *
month_carbon(json_object *doc)
{
	static const char *const meth[] = { "location", "market" };
	json_object *o = json_object_new_object(), *m, *carbon = NULL;
	size_t i, k;

	json_object_object_get_ex(doc, "carbon", &carbon);
	for (i = 0; i < 2; i++) {
		m = json_object_new_object();
		for (k = 1; k < NB; k += 2)
			json_object_object_add(m, bnds[k], jnum(gnum(carbon,
			    meth[i], bnds[k], "kg")));
		json_object_object_add(o, meth[i], m);
	}
	return o;
}

/* One month's row: its figures from the month's report document. */
static json_object *
month_row(json_object *doc, wp_time from, wp_time to, bool partial)
{
	json_object *m = json_object_new_object(), *x;

	json_object_object_add(m, "start", jtime(from));
	json_object_object_add(m, "end", jtime(to));
	json_object_object_add(m, "partial", json_object_new_boolean(partial));
	json_object_object_add(m, "boundaries", month_boundaries(doc));
	x = json_object_new_object();
	json_object_object_add(x, "output", jnum(gnum(doc, "tokens", "output",
	    NULL)));
	json_object_object_add(x, "input", jnum(gnum(doc, "tokens", "input",
	    NULL)));
	json_object_object_add(m, "tokens", x);
	x = json_object_new_object();
	json_object_object_add(x, "value", jnum(gnum(doc, "pue", "value",
	    NULL)));
	json_object_object_add(x, "category", jstr(gstr(doc, "pue",
	    "category")));
	json_object_object_add(x, "facility_kwh", jnum(gnum(doc, "pue",
	    "facility_energy_j", NULL) / J_PER_KWH));
	json_object_object_add(x, "it_kwh", jnum(gnum(doc, "pue", "it_energy_j",
	    NULL) / J_PER_KWH));
	json_object_object_add(m, "pue", x);
	json_object_object_add(m, "kgco2e", month_carbon(doc));
	x = json_object_new_object();
	json_object_object_add(x, "amount", jnum(gnum(doc, "cost", "amount",
	    NULL)));
	json_object_object_add(x, "currency", jstr(gstr(doc, "cost",
	    "currency")));
	json_object_object_add(x, "boundary", jstr(gstr(doc, "cost",
	    "boundary")));
	json_object_object_add(m, "cost", x);
	json_object_object_add(m, "classes", month_classes(doc));
	if (json_object_object_get_ex(doc, "warnings", &x))
		json_object_object_add(m, "warnings", json_object_get(x));
	/* where the month's figures came from: disclosure.journal */
	if (json_object_object_get_ex(doc, "disclosure", &x) &&
	    json_object_object_get_ex(x, "journal", &x))
		json_object_object_add(m, "journal", json_object_get(x));
	json_object_object_add(m, "error", NULL);
	return m;
}

/* ---- the period: months and the total ---- */

/* A month before or after the data: left out of the total. */
static bool
no_data(json_object *m)
{
	json_object *v;

	return json_object_object_get_ex(m, "no_data", &v) &&
	    json_object_get_boolean(v);
}

/* The sum of key over the months with data (path k1/k2/k3), NAN when one
 * lacks it (the total would be incomplete). */
static double
msum(json_object *months, const char *k1, const char *k2, const char *k3)
{
	double s = 0;
	size_t i;

	for (i = 0; i < json_object_array_length(months); i++)
		if (!no_data(json_object_array_get_idx(months, i)))
			s += gnum(json_object_array_get_idx(months, i), k1, k2,
			    k3);
	return s;
}

/* The category shared by every month, "mixed" or NULL. */
static const char *
mcategory(json_object *months)
{
	const char *c = NULL, *x;
	size_t i;

	for (i = 0; i < json_object_array_length(months); i++) {
		if (no_data(json_object_array_get_idx(months, i)))
			continue;
		x = gstr(json_object_array_get_idx(months, i), "pue",
		    "category");
		if (x == NULL)
			return NULL;
		if (c != NULL && strcmp(c, x) != 0)
			return "mixed";
		c = x;
	}
	return c;
}

static json_object *
total_row(json_object *months, wp_time from, wp_time to)
{
	json_object *t = json_object_new_object(), *b = json_object_new_object();
	json_object *x, *c;
	double out = msum(months, "tokens", "output", NULL), fac, it;
	size_t i;

	json_object_object_add(t, "start", jtime(from));
	json_object_object_add(t, "end", jtime(to));
	for (i = 0; i < NB; i++) {
		double kwh = msum(months, "boundaries", bnds[i], "kwh");

		x = json_object_new_object();
		json_object_object_add(x, "kwh", jnum(kwh));
		json_object_object_add(x, "j_per_output_token", jnum(out > 0 ?
		    kwh * J_PER_KWH / out : NAN));
		json_object_object_add(b, bnds[i], x);
	}
	json_object_object_add(t, "boundaries", b);
	x = json_object_new_object();
	json_object_object_add(x, "output", jnum(out));
	json_object_object_add(x, "input", jnum(msum(months, "tokens", "input",
	    NULL)));
	json_object_object_add(t, "tokens", x);
	fac = msum(months, "pue", "facility_kwh", NULL);
	it = msum(months, "pue", "it_kwh", NULL);
	x = json_object_new_object();
	json_object_object_add(x, "value", jnum(it > 0 ? fac / it : NAN));
	json_object_object_add(x, "category", jstr(mcategory(months)));
	json_object_object_add(x, "facility_kwh", jnum(fac));
	json_object_object_add(x, "it_kwh", jnum(it));
	json_object_object_add(t, "pue", x);
	x = json_object_new_object();
	for (i = 0; i < 2; i++) {
		const char *m = i ? "market" : "location";

		c = json_object_new_object();
		json_object_object_add(c, "wall", jnum(msum(months, "kgco2e", m,
		    "wall")));
		json_object_object_add(c, "facility", jnum(msum(months,
		    "kgco2e", m, "facility")));
		json_object_object_add(x, m, c);
	}
	json_object_object_add(t, "kgco2e", x);
	x = json_object_new_object();
	json_object_object_add(x, "amount", jnum(msum(months, "cost", "amount",
	    NULL)));
	json_object_object_add(t, "cost", x);
	return t;
}

/* The curve step of a month's report: whole ledger slots, so the
 * ledger's blocks fit the curve bins (the table shows no curve). */
static wp_time
month_step(const struct wp_conf *c, wp_time from, wp_time to)
{
	wp_time slot = c->ledger_slot > 0 ? c->ledger_slot : 3600 * WP_SEC;
	wp_time step = (to - from) / 512;

	return step <= slot ? slot : (step + slot - 1) / slot * slot;
}

/* Month [a, b) of the window: its row, or its error. */
static json_object *
month_run(const struct wp_conf *c, const struct report_query *q, wp_time a,
    wp_time b, bool partial, struct wp_err *err)
{
	struct report_query mq = *q;
	struct wp_err e = { 0 };
	json_object *doc, *row;
	struct report *r;

	mq.req.from = a;
	mq.req.to = b;
	mq.req.have_window = true;
	mq.req.step = month_step(c, a, b);
	if ((r = report_run(c, &mq, &e)) == NULL) {
		if (e.class == WP_E_INTERNAL || e.class == WP_E_TRANSIENT) {
			*err = e;
			return NULL;
		}
		row = month_row(NULL, a, b, partial);
		json_object_object_add(row, "error", jstr(e.msg));
		return row;
	}
	doc = report_json_doc(r);
	report_free(r);
	if (doc == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	row = month_row(doc, a, b, partial);
	json_object_put(doc);
	return row;
}

/*
 * The window clipped to the data the ledger covers: from the end of its
 * first block's hour (the first slot whose start has a reading before
 * it) to the end of its last block's (the open segment's first reading
 * follows).  Without a ledger the window as asked.
 */
static void
data_window(const struct wp_conf *c, wp_time *from, wp_time *to)
{
	struct ledger_index ix;
	struct wp_err err = { 0 };
	char ldir[4200];
	wp_time a, z;

	snprintf(ldir, sizeof(ldir), "%s/ledger", c->data_dir);
	if (ledger_index_read(ldir, &ix, &err) != 0 || ix.n == 0) {
		ledger_index_fini(&ix);
		return;
	}
	a = ix.e[0].start + 3600 * WP_SEC;
	z = ix.e[ix.n - 1].start + 3600 * WP_SEC;
	ledger_index_fini(&ix);
	if (*from < a)
		*from = a;
	if (*to > z)
		*to = z;
}

json_object *
report_period_doc(const struct wp_conf *c, const struct report_query *q,
    const char *period, struct wp_err *err)
{
	wp_time from = q->req.from, to = q->req.to, a, b, df, dt;
	json_object *doc, *months, *w;

	if (!q->req.have_window || to <= from) {
		err_set(err, WP_E_CONFIG, "the period table needs --from before "
		    "--to");
		return NULL;
	}
	df = from;
	dt = to;
	data_window(c, &df, &dt);
	doc = json_object_new_object();
	months = json_object_new_array();
	w = json_object_new_object();
	json_object_object_add(w, "start", jtime(from));
	json_object_object_add(w, "end", jtime(to));
	json_object_object_add(doc, "period", jstr(period));
	json_object_object_add(w, "data_start", df < dt ? jtime(df) : NULL);
	json_object_object_add(w, "data_end", df < dt ? jtime(dt) : NULL);
	json_object_object_add(doc, "window", w);
	for (a = from; a < to; a = b) {
		json_object *row;
		wp_time ma, mz;

		b = clock_next_month(a);
		ma = a > df ? a : df;
		mz = (b < to ? b : to) < dt ? (b < to ? b : to) : dt;
		if (mz - ma < 60 * WP_SEC) {	/* no data in the month */
			row = month_row(NULL, a, b < to ? b : to, true);
			json_object_object_add(row, "error", jstr("no data in "
			    "the ledger for this month"));
			json_object_object_add(row, "no_data",
			    json_object_new_boolean(true));
		} else
			row = month_run(c, q, ma, mz, ma != clock_next_month(
			    ma - 1) || b > mz, err);
		if (row == NULL) {
			json_object_put(months);
			json_object_put(doc);
			return NULL;
		}
		json_object_array_add(months, row);
		b = b < to ? b : to;
	}
	json_object_object_add(doc, "total", total_row(months, from, to));
	json_object_object_add(doc, "months", months);
	return doc;
}

/* ---- Markdown and CSV ---- */

static void
num(FILE *f, double d, const char *fmt)
{
	if (isfinite(d))
		fprintf(f, fmt, d);
}

/* "2026-11" of an ISO-8601 start. */
static void
month_name(json_object *m, char out[8])
{
	const char *s = gstr(m, "start", NULL);

	snprintf(out, 8, "%.7s", s != NULL ? s : "");
}

static void
md_row(FILE *f, json_object *m, const char *name)
{
	size_t i;

	fprintf(f, "| %s | %s |", name, json_object_get_boolean(
	    json_object_object_get(m, "partial")) ? "partial" : "");
	for (i = 0; i < NB; i++) {
		fputc(' ', f);
		num(f, gnum(m, "boundaries", bnds[i], "kwh"), "%.3f");
		fputs(" |", f);
	}
	fputc(' ', f);
	num(f, gnum(m, "pue", "value", NULL), "%.3f");
	fprintf(f, " | %s | ", gstr(m, "pue", "category") ?
	    gstr(m, "pue", "category") : "");
	num(f, gnum(m, "tokens", "output", NULL), "%.0f");
	fputs(" | ", f);
	num(f, gnum(m, "boundaries", "wall", "j_per_output_token"), "%.4g");
	fputs(" | ", f);
	num(f, gnum(m, "kgco2e", "location", "wall"), "%.2f");
	fputs(" | ", f);
	num(f, gnum(m, "kgco2e", "market", "wall"), "%.2f");
	fputs(" | ", f);
	num(f, gnum(m, "cost", "amount", NULL), "%.2f");
	fputs(" |\n", f);
}

static void
md_classes(FILE *f, json_object *months)
{
	json_object *cls;
	char mn[8];
	size_t i;

	fputs("\n## By class\n\n| Month | Class | Wall kWh | Output tokens "
	    "| Wall J/output token |\n|---|---|---:|---:|---:|\n", f);
	for (i = 0; i < json_object_array_length(months); i++) {
		json_object *m = json_object_array_get_idx(months, i);

		month_name(m, mn);
		if (!json_object_object_get_ex(m, "classes", &cls))
			continue;
		json_object_object_foreach(cls, name, c) {
			double kwh = gnum(c, "wall_kwh", NULL, NULL);
			double tok = gnum(c, "tokens_output", NULL, NULL);

			fprintf(f, "| %s | %s | ", mn, name);
			num(f, kwh, "%.3f");
			fputs(" | ", f);
			num(f, tok, "%.0f");
			fputs(" | ", f);
			num(f, tok > 0 ? kwh * J_PER_KWH / tok : NAN, "%.4g");
			fputs(" |\n", f);
		}
	}
}

void
report_period_md_write(FILE *f, json_object *doc)
{
	json_object *months = json_object_object_get(doc, "months");
	const char *err;
	char mn[8];
	size_t i;

	fprintf(f, "# Energy by month (%s), %s to %s\n\n| Month | Partial | GPU kWh | "
	    "Wall kWh | Outlet kWh | Facility kWh | PUE | PUE category | "
	    "Output tokens | Wall J/output token | Location kgCO2e (wall) | "
	    "Market kgCO2e (wall) | Cost |\n|---|---|---:|---:|---:|---:|---:"
	    "|---|---:|---:|---:|---:|---:|\n", gstr(doc, "period", NULL),
	    gstr(doc, "window", "start"), gstr(doc, "window", "end"));
	for (i = 0; i < json_object_array_length(months); i++) {
		month_name(json_object_array_get_idx(months, i), mn);
		md_row(f, json_object_array_get_idx(months, i), mn);
	}
	md_row(f, json_object_object_get(doc, "total"), "**Total**");
	for (i = 0; i < json_object_array_length(months); i++)
		if ((err = gstr(json_object_array_get_idx(months, i), "error",
		    NULL)) != NULL) {
			month_name(json_object_array_get_idx(months, i), mn);
			fprintf(f, "\n%s: no figures: %s\n", mn, err);
		}
	md_classes(f, months);
}

static void
csv_cell(FILE *f, double d)
{
	fputc(',', f);
	num(f, d, "%.17g");
}

static void
csv_str(FILE *f, const char *s)
{
	fputc(',', f);
	if (s != NULL)
		fputs(s, f);
}

/* One row: month columns, then scope and boundary figures. */
static void
csv_row(FILE *f, json_object *m, const char *mn, const char *scope,
    const char *bnd, json_object *fig, double tok)
{
	bool site = strcmp(scope, "site") == 0, carbon = site &&
	    (strcmp(bnd, "wall") == 0 || strcmp(bnd, "facility") == 0);
	const char *cb = gstr(m, "cost", "boundary");
	bool cost = site && cb != NULL && strcmp(cb, bnd) == 0;
	double kwh = gnum(fig, site ? "kwh" : "wall_kwh", NULL, NULL);

	fprintf(f, "%s,%s,%s,%s,%s,%s", mn, gstr(m, "start", NULL),
	    gstr(m, "end", NULL), json_object_get_boolean(
	    json_object_object_get(m, "partial")) ? "true" : "false", scope,
	    bnd);
	csv_cell(f, kwh);
	csv_str(f, site ? gstr(fig, "method", NULL) : NULL);
	csv_cell(f, site ? gnum(fig, "coverage", NULL, NULL) : NAN);
	csv_cell(f, tok);
	csv_cell(f, tok > 0 ? kwh * J_PER_KWH / tok : NAN);
	csv_cell(f, site ? gnum(m, "pue", "value", NULL) : NAN);
	csv_str(f, site ? gstr(m, "pue", "category") : NULL);
	csv_cell(f, carbon ? gnum(m, "kgco2e", "location", bnd) : NAN);
	csv_cell(f, carbon ? gnum(m, "kgco2e", "market", bnd) : NAN);
	csv_cell(f, cost ? gnum(m, "cost", "amount", NULL) : NAN);
	csv_str(f, cost ? gstr(m, "cost", "currency") : NULL);
	fputc('\n', f);
}

static void
csv_month(FILE *f, json_object *m, const char *mn)
{
	json_object *b = json_object_object_get(m, "boundaries"), *cls;
	double tok = gnum(m, "tokens", "output", NULL);
	char scope[300];
	size_t i;

	for (i = 0; i < NB; i++)
		csv_row(f, m, mn, "site", bnds[i], json_object_object_get(b,
		    bnds[i]), tok);
	if (!json_object_object_get_ex(m, "classes", &cls))
		return;
	json_object_object_foreach(cls, name, c) {
		snprintf(scope, sizeof(scope), "class:%s", name);
		csv_row(f, m, mn, scope, "wall", c, gnum(c, "tokens_output",
		    NULL, NULL));
	}
}

void
report_period_csv_write(FILE *f, json_object *doc)
{
	json_object *months = json_object_object_get(doc, "months");
	char mn[8];
	size_t i;

	fputs("month,start,end,partial,scope,boundary,kwh,method,coverage,"
	    "tokens_output,j_per_output_token,pue,pue_category,"
	    "location_kgco2e,market_kgco2e,cost,currency\n", f);
	for (i = 0; i < json_object_array_length(months); i++) {
		month_name(json_object_array_get_idx(months, i), mn);
		csv_month(f, json_object_array_get_idx(months, i), mn);
	}
	csv_month(f, json_object_object_get(doc, "total"), "total");
}
