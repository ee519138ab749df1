/* report_md.c - the report document as Markdown for people. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_md.h"

static const char *const bnds[] = { "gpu", "wall", "outlet", "facility" };
static const char *const carbon_bnd[] = { "wall", "facility" };

#define NB	(sizeof(bnds) / sizeof(bnds[0]))

/* The member at a.b.c (NULL keys end the path), or NULL. */
static json_object *
jget(json_object *o, const char *a, const char *b, const char *c)
{
	const char *k[3] = { a, b, c };
	int i;

	for (i = 0; i < 3 && k[i] != NULL; i++)
		if (o == NULL || !json_object_object_get_ex(o, k[i], &o))
			return NULL;
	return o;
}

static double
jdbl(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *v = jget(o, a, b, c);

	if (v == NULL || !(json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

static const char *
jtxt(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *v = jget(o, a, b, c);

	return v != NULL ? json_object_get_string(v) : "-";
}

const char *
report_md_sig(double v, char *buf, size_t len)
{
	int mag, dec;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	mag = (int)floor(log10(fabs(v)));
	if (mag < -4) {
		snprintf(buf, len, "%.3e", v);
		return buf;
	}
	dec = 3 - mag;
	/* rounding can carry into the next decade (9.9996 -> 10.00) */
	if (dec > 0 && fabs(v) * pow(10, dec) >= 9999.5)
		dec--;
	snprintf(buf, len, "%.*f", dec > 0 ? dec : 0,
	    dec >= 0 ? v : round(v / pow(10, -dec)) * pow(10, -dec));
	return buf;
}

const char *
report_md_energy(double j, char *buf, size_t len)
{
	static const struct { double f; const char *u; } u[] = {
		{ 1e9, "GJ" }, { 1e6, "MJ" }, { 1e3, "kJ" }, { 1, "J" } };
	char a[32], b[32];
	size_t i;

	if (!isfinite(j)) {
		snprintf(buf, len, "-");
		return buf;
	}
	for (i = 0; i < 3 && fabs(j) < u[i].f; i++)
		;
	report_md_sig(j / u[i].f, a, sizeof(a));
	if (fabs(j) >= 3.6e5)
		snprintf(buf, len, "%s %s (%s kWh)", a, u[i].u,
		    report_md_sig(j / 3.6e6, b, sizeof(b)));
	else
		snprintf(buf, len, "%s %s", a, u[i].u);
	return buf;
}

/* A number at a.b.c, 4 significant digits ("-" when absent). */
static const char *
num(json_object *o, const char *a, const char *b, const char *c, char *buf,
    size_t len)
{
	return report_md_sig(jdbl(o, a, b, c), buf, len);
}

/* A count: 4 significant digits, with k or M when large. */
static const char *
count(json_object *o, const char *a, const char *b, char *buf, size_t len)
{
	double v = jdbl(o, a, b, NULL);
	char s[32];

	if (isfinite(v) && fabs(v) >= 1e6)
		snprintf(buf, len, "%s M", report_md_sig(v / 1e6, s, sizeof(s)));
	else if (isfinite(v) && fabs(v) >= 1e4)
		snprintf(buf, len, "%s k", report_md_sig(v / 1e3, s, sizeof(s)));
	else
		report_md_sig(v, buf, len);
	return buf;
}

/* A share as a percentage ("-" when absent). */
static const char *
pct(double v, char *buf, size_t len)
{
	double p = 100 * v;

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (p == 0)
		snprintf(buf, len, "0 %%");
	else
		snprintf(buf, len, "%.*f %%", fabs(p) >= 10 ? 1 : fabs(p) >= 1 ?
		    2 : fabs(p) >= 0.01 ? 3 : 4, p);
	return buf;
}

static void
md_head(json_object *root, FILE *f)
{
	char a[32], b[32], c[32];

	fprintf(f, "# Energy per token report\n\n");
	fprintf(f, "Window: %s to %s (%s s).\n", jtxt(root, "window", "start",
	    NULL), jtxt(root, "window", "end", NULL), num(root, "window",
	    "seconds", NULL, a, sizeof(a)));
	fprintf(f, "Tokens: %s output, %s input, %s SLO-qualified.\n\n",
	    count(root, "tokens", "output", a, sizeof(a)),
	    count(root, "tokens", "input", b, sizeof(b)),
	    count(root, "tokens", "slo_qualified", c, sizeof(c)));
}

static void
md_boundaries(json_object *root, FILE *f)
{
	json_object *bs = jget(root, "boundaries", NULL, NULL);
	char e[64], t1[32], t2[32], k[32], cov[32], bd[32];
	size_t i;

	fprintf(f, "| boundary | energy | J/output token | J/total token | "
	    "kWh per M output tokens | method | coverage | bound |\n"
	    "|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < NB; i++) {
		json_object *b = jget(bs, bnds[i], NULL, NULL);
		double n = jdbl(b, "nodes", NULL, NULL);
		double nc = jdbl(b, "nodes_counted", NULL, NULL);
		char part[48] = "";

		if (isfinite(n) && isfinite(nc) && nc < n &&
		    isfinite(jdbl(b, "energy_j", NULL, NULL)))
			snprintf(part, sizeof(part), " (%.0f of %.0f nodes)",
			    nc, n);
		fprintf(f, "| %s | %s%s | %s | %s | %s | %s | %s | %s%s |\n",
		    bnds[i], report_md_energy(jdbl(b, "energy_j", NULL, NULL),
		    e, sizeof(e)), part,
		    num(b, "j_per_output_token", NULL, NULL, t1, sizeof(t1)),
		    num(b, "j_per_total_token", NULL, NULL, t2, sizeof(t2)),
		    num(b, "kwh_per_million_output_tokens", NULL, NULL, k,
		    sizeof(k)), jtxt(b, "method", NULL, NULL),
		    pct(jdbl(b, "coverage", NULL, NULL), cov, sizeof(cov)),
		    isfinite(jdbl(b, "instrument_bound_rel", NULL, NULL)) ?
		    "± " : "", pct(jdbl(b, "instrument_bound_rel", NULL, NULL),
		    bd, sizeof(bd)));
	}
	fprintf(f, "\nCoverage is the share of nodes measured at that "
	    "boundary; bound is the instrument bound stated for the figure "
	    "(docs/report.md).\n");
}

static void
md_ratios(json_object *root, FILE *f)
{
	char a[32], b[32], c[32];

	fprintf(f, "\nWall-to-GPU energy ratio: %s.  ", num(root,
	    "wall_to_gpu_ratio", NULL, NULL, a, sizeof(a)));
	fprintf(f, "PUE: %s (%s, period %s, category %s).\n",
	    num(root, "pue", "value", NULL, b, sizeof(b)), jtxt(root, "pue",
	    "source", NULL), jtxt(root, "pue", "period", NULL), jtxt(root,
	    "pue", "category", NULL));
	if (isfinite(jdbl(root, "idle_subtracted", "wall",
	    "j_per_output_token_net")))
		fprintf(f, "Idle-subtracted (secondary): %s J/output token at "
		    "the wall.\n", num(root, "idle_subtracted", "wall",
		    "j_per_output_token_net", c, sizeof(c)));
}

static void
md_curve(const char *cls, json_object *cv, FILE *f)
{
	json_object *bins = jget(cv, "bins", NULL, NULL);
	json_object *lin = jget(cv, "fit", "linear", NULL);
	char a[32], b[32], r2[32], rms[32];
	size_t i, n = bins ? json_object_array_length(bins) : 0;

	fprintf(f, "\n### Wall-to-GPU curve, class %s (%s intervals)\n\n",
	    cls, jtxt(cv, "intervals", NULL, NULL));
	if (json_object_get_boolean(jget(lin, "valid", NULL, NULL)))
		fprintf(f, "Fit: wall W = %s + %s x GPU W (R² %s, RMS residual "
		    "%s W).\n\n", num(lin, "a", NULL, NULL, a, sizeof(a)),
		    num(lin, "b", NULL, NULL, b, sizeof(b)), num(lin, "r2",
		    NULL, NULL, r2, sizeof(r2)), num(lin, "rms_w", NULL, NULL,
		    rms, sizeof(rms)));
	fprintf(f, "| GPU load | intervals | mean GPU W | mean wall W | "
	    "wall/GPU |\n|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(bins, i);
		char g[32], w[32], r[32];

		if (jdbl(x, "count", NULL, NULL) > 0)
			fprintf(f, "| %.1f-%.1f | %.0f | %s | %s | %s |\n",
			    jdbl(x, "load_from", NULL, NULL), jdbl(x, "load_to",
			    NULL, NULL), jdbl(x, "count", NULL, NULL),
			    num(x, "gpu_w", NULL, NULL, g, sizeof(g)),
			    num(x, "wall_w", NULL, NULL, w, sizeof(w)),
			    num(x, "ratio", NULL, NULL, r, sizeof(r)));
	}
}

static void
md_curves(json_object *root, FILE *f)
{
	json_object *cs = jget(root, "curves", NULL, NULL);

	if (cs == NULL || !json_object_is_type(cs, json_type_object))
		return;
	json_object_object_foreach(cs, k, v)
		md_curve(k, v, f);
}

/* One carbon row: scope, name, boundary and the figures under o. */
static void
carbon_row(FILE *f, const char *scope, const char *name, const char *bnd,
    json_object *kwh_o, json_object *o)
{
	char k[32], lk[32], lg[32], mk[32], mg[32], cv[32];

	fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", scope,
	    name, bnd, report_md_sig(json_object_get_double(kwh_o), k,
	    sizeof(k)), num(o, "location", bnd, "kg", lk, sizeof(lk)),
	    num(o, "location", bnd, "g_per_million_output_tokens", lg,
	    sizeof(lg)), num(o, "market", bnd, "kg", mk, sizeof(mk)),
	    num(o, "market", bnd, "g_per_million_output_tokens", mg,
	    sizeof(mg)), pct(jdbl(o, "market", bnd, "coverage"), cv,
	    sizeof(cv)));
}

static void
md_carbon(json_object *root, FILE *f)
{
	json_object *cb = jget(root, "carbon", NULL, NULL), *byc, *cost, *cc;
	char a[32], b[32];
	size_t i;

	if (cb == NULL) {
		fprintf(f, "\nCarbon and cost: not computed (see the "
		    "warnings).\n");
		return;
	}
	fprintf(f, "\n## Carbon and cost\n\n| scope | name | boundary | kWh | "
	    "location kgCO2e | location g/M output tokens | market kgCO2e | "
	    "market g/M output tokens | instrument coverage |\n"
	    "|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < 2; i++)
		if (jget(cb, "location", carbon_bnd[i], NULL) != NULL)
			carbon_row(f, "site", jtxt(cb, "site", "name", NULL),
			    carbon_bnd[i], jget(cb, "location", carbon_bnd[i],
			    "kwh"), cb);
	if ((byc = jget(cb, "by_class", NULL, NULL)) != NULL &&
	    json_object_is_type(byc, json_type_object)) {
		json_object_object_foreach(byc, k, v)
			for (i = 0; i < 2; i++)
				if (jget(v, "kwh", carbon_bnd[i], NULL))
					carbon_row(f, "class", k, carbon_bnd[i],
					    jget(v, "kwh", carbon_bnd[i], NULL),
					    v);
	}
	cost = jget(root, "cost", NULL, NULL);
	if ((cc = jget(cost, "by_class", NULL, NULL)) == NULL)
		return;
	fprintf(f, "\n| cost (%s, %s) | amount | per M output tokens |\n"
	    "|---|---|---|\n| site | %s | %s |\n", jtxt(cost, "currency", NULL,
	    NULL), jtxt(cost, "boundary", NULL, NULL), num(cost, "amount",
	    NULL, NULL, a, sizeof(a)), num(cost, "per_million_output_tokens",
	    NULL, NULL, b, sizeof(b)));
	json_object_object_foreach(cc, k, v)
		fprintf(f, "| class %s | %s | %s |\n", k, num(v, "amount", NULL,
		    NULL, a, sizeof(a)), num(v, "per_million_output_tokens",
		    NULL, NULL, b, sizeof(b)));
}

static void
md_nodes(json_object *root, FILE *f)
{
	json_object *ns = jget(root, "nodes", NULL, NULL);
	size_t i, n = ns ? json_object_array_length(ns) : 0;

	if (n == 0)
		return;
	fprintf(f, "\n## Nodes\n\n| node | class | GPU | wall (method, bound) "
	    "| outlet | J/output token at the wall | wall/GPU |\n"
	    "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(ns, i);
		json_object *b = jget(x, "boundaries", NULL, NULL);
		char g[64], w[64], o[64], j[32], r[32], bd[32];

		fprintf(f, "| %s | %s | %s | %s (%s, ± %s) | %s | %s | %s |\n",
		    jtxt(x, "name", NULL, NULL), jtxt(x, "class", NULL, NULL),
		    report_md_energy(jdbl(b, "gpu", "energy_j", NULL), g,
		    sizeof(g)), report_md_energy(jdbl(b, "wall", "energy_j",
		    NULL), w, sizeof(w)), jtxt(b, "wall", "method", NULL),
		    pct(jdbl(b, "wall", "instrument_bound_rel", NULL), bd,
		    sizeof(bd)), report_md_energy(jdbl(b, "outlet", "energy_j",
		    NULL), o, sizeof(o)), num(b, "wall", "j_per_output_token", NULL, j,
		    sizeof(j)), num(x, "wall_to_gpu_ratio", NULL, NULL, r,
		    sizeof(r)));
	}
}

/* The distinct values of devices.<dev>.<key>, joined. */
static void
dev_list(json_object *d, const char *dev, const char *key, char *buf,
    size_t len)
{
	json_object *a = jget(d, "devices", dev, key);
	size_t i, n = a && json_object_is_type(a, json_type_array) ?
	    json_object_array_length(a) : 0, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		    json_object_get_string(json_object_array_get_idx(a, i)));

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used == 0)
		snprintf(buf, len, "-");
}

/* Counts of counter and gauge series among the listed instruments of b. */
static void
kinds(json_object *d, const char *b, int *ctr, int *gauge)
{
	json_object *a = jget(d, "instruments", b, NULL);
	size_t i, n = a && json_object_is_type(a, json_type_array) ?
	    json_object_array_length(a) : 0;

	*ctr = *gauge = 0;
	for (i = 0; i < n; i++) {
		const char *k = jtxt(json_object_array_get_idx(a, i), "kind",
		    NULL, NULL);

		if (strcmp(k, "counter") == 0)
			(*ctr)++;
		else if (strcmp(k, "gauge") == 0)
			(*gauge)++;
	}
}

static void
md_instruments(json_object *root, json_object *d, FILE *f)
{
	static const struct { const char *b, *dev, *k[3], *what; } s[] = {
		{ "gpu", "gpu", { "model", "driver", "dcgm" },
		    "GPU (model, driver, DCGM)" },
		{ "wall", "bmc", { "vendor", "model", "fw" },
		    "wall (BMC vendor, model, firmware)" },
		{ "outlet", "pdu", { "vendor", "sysdescr", "profile" },
		    "outlet (PDU vendor, sysDescr, profile)" },
		{ "facility", "meter", { "meter", NULL, NULL },
		    "facility (meter)" },
		{ "tokens", "engine", { "engine", "model", NULL },
		    "tokens (engine, model)" },
	};
	char buf[3][256], iv[32];
	size_t i;
	int j, c, g;

	fprintf(f, "\n### Instruments\n\n");
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		for (j = 0; j < 3; j++)
			if (s[i].k[j] != NULL)
				dev_list(d, s[i].dev, s[i].k[j], buf[j],
				    sizeof(buf[j]));
			else
				snprintf(buf[j], sizeof(buf[j]), "-");
		kinds(d, s[i].b, &c, &g);
		fprintf(f, "- **%s**: %s; %s; %s.  Listed series: %d counter, "
		    "%d gauge", s[i].what, buf[0], buf[1], buf[2], c, g);
		if (i < NB)
			fprintf(f, "; figure method: %s",
			    jtxt(root, "boundaries", s[i].b, "method"));
		fprintf(f, ".\n");
	}
	fprintf(f, "- **Sampling**: every %s s (%s).\n", num(d,
	    "sampling_interval_s", NULL, NULL, iv, sizeof(iv)),
	    jtxt(d, "edges", NULL, NULL));
}

static void
md_disclosure(json_object *root, FILE *f)
{
	json_object *d = jget(root, "disclosure", NULL, NULL), *p;
	char a[32], b[32];

	if (d == NULL)
		return;
	fprintf(f, "\n## Disclosure\n");
	md_instruments(root, d, f);
	fprintf(f, "\n### Method\n\n");
	fprintf(f, "- **Window**: %s s, %s run(s).\n", num(d, "window_s", NULL,
	    NULL, a, sizeof(a)), jtxt(d, "run_count", NULL, NULL));
	fprintf(f, "- **Token denominator**: %s.\n", jtxt(d,
	    "token_denominator", NULL, NULL));
	fprintf(f, "- **Idle policy**: %s.\n", jtxt(d, "idle_policy", NULL,
	    NULL));
	fprintf(f, "- **PUE**: %s (%s, period %s, category %s).\n", num(d,
	    "pue", "value", NULL, b, sizeof(b)), jtxt(d, "pue", "source",
	    NULL), jtxt(d, "pue", "period", NULL), jtxt(d, "pue", "category",
	    NULL));
	fprintf(f, "- **Facility boundary**: %s.\n", jtxt(d,
	    "facility_method", NULL, NULL));
	fprintf(f, "- **Wall model**: %s.\n", jtxt(d, "wall_model", NULL,
	    NULL));
	fprintf(f, "- **Bounds**: %s.\n", jtxt(d, "bounds", NULL, NULL));
	if ((p = jget(d, "partial_coverage", NULL, NULL)) != NULL &&
	    json_object_is_type(p, json_type_object)) {
		json_object_object_foreach(p, k, v)
			fprintf(f, "- **Partial %s boundary**: %s.\n", k,
			    json_object_get_string(v));
	}
	if (jget(d, "requests", NULL, NULL) != NULL)
		fprintf(f, "- **Request log**: %s requests; ISL p50 %s, OSL "
		    "p50 %s.\n", jtxt(d, "requests", NULL, NULL), num(d, "isl",
		    "p50", NULL, a, sizeof(a)), num(d, "osl", "p50", NULL, b,
		    sizeof(b)));
}

static void
md_warnings(json_object *root, FILE *f)
{
	json_object *w = jget(root, "warnings", NULL, NULL);
	size_t i, n = w ? json_object_array_length(w) : 0;

	if (n == 0)
		return;
	fprintf(f, "\n## Warnings\n\n");
	for (i = 0; i < n; i++)
		fprintf(f, "- %s\n", json_object_get_string(
		    json_object_array_get_idx(w, i)));
}

void
report_md_print(json_object *root, FILE *f)
{
	md_head(root, f);
	md_boundaries(root, f);
	md_ratios(root, f);
	md_curves(root, f);
	md_carbon(root, f);
	md_nodes(root, f);
	md_disclosure(root, f);
	md_warnings(root, f);
	fprintf(f, "\nFull precision: `--format json` or `--format csv`.\n");
}
