/* report_md.c - the report as Markdown for people (see report_md.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/clock.h"
#include "report_md.h"
#include "report_models_out.h"

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

/* A count: 4 significant digits, with k or M when large. */
static const char *
count(double v, char *buf, size_t len)
{
	char s[32];

	if (isfinite(v) && fabs(v) >= 1e6)
		snprintf(buf, len, "%s M", report_md_sig(v / 1e6, s, sizeof(s)));
	else if (isfinite(v) && fabs(v) >= 1e4)
		snprintf(buf, len, "%s k", report_md_sig(v / 1e3, s, sizeof(s)));
	else
		report_md_sig(v, buf, len);
	return buf;
}

/* A share as a percentage ("-" when unknown). */
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

static const char *
txt(const char *s)
{
	return s != NULL ? s : "-";
}

/* A count that may be unknown (< 0). */
static double
known(double v)
{
	return v >= 0 ? v : NAN;
}

/* ------------------------------------------------- figure accessors */

static double
fig_energy(const struct report_fig *f)
{
	return f->v.valid ? f->v.energy_j : NAN;
}

/* A per-token figure v of f (NAN when f has none). */
static double
fig_tok(const struct report_fig *f, double v)
{
	return f->v.valid && f->per_token ? v : NAN;
}

static double
fig_rel(const struct report_fig *f)
{
	return f->v.valid ? f->bound_rel : NAN;
}

static const char *
fig_method(const struct report_fig *f, char *buf, size_t len)
{
	if (!f->v.valid)
		return "none";
	return f->v.mix ? boundary_mix_name(f->v.mix, buf, len) :
	    boundary_method_name(f->v.method);
}

/* ------------------------------------------------------------ head */

static void
md_head(const struct report *r, FILE *f)
{
	char a[40], b[40], c[32];

	fprintf(f, "# Energy per token report\n\n");
	clock_iso8601(r->from, a, sizeof(a));
	clock_iso8601(r->to, b, sizeof(b));
	fprintf(f, "Window: %s to %s (%s s).\n", a, b, report_md_sig(r->secs,
	    c, sizeof(c)));
	fprintf(f, "Tokens: %s output, %s input, %s SLO-qualified.\n\n",
	    count(known(r->out), a, sizeof(a)), count(known(r->in), b,
	    sizeof(b)), count(known(r->slo), c, sizeof(c)));
}

static void
md_boundaries(const struct report *r, FILE *f)
{
	char e[64], t1[32], t2[32], k[32], cov[32], bd[32], mix[64];
	int i;

	fprintf(f, "| boundary | energy | J/output token | J/total token | "
	    "kWh per M output tokens | method | coverage | bound |\n"
	    "|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < BND_N; i++) {
		const struct report_bnd *b = &r->bnd[i];
		const struct report_fig *g = &b->fig;
		char part[48] = "";

		if (b->counted < b->nodes && isfinite(fig_energy(g)))
			snprintf(part, sizeof(part), " (%zu of %zu nodes)",
			    b->counted, b->nodes);
		fprintf(f, "| %s | %s%s | %s | %s | %s | %s | %s | %s%s |\n",
		    bnd_name(i), report_md_energy(fig_energy(g), e, sizeof(e)),
		    part, report_md_sig(fig_tok(g, g->jt.j_per_output_token),
		    t1, sizeof(t1)), report_md_sig(fig_tok(g,
		    g->jt.j_per_total_token), t2, sizeof(t2)),
		    report_md_sig(fig_tok(g,
		    g->jt.kwh_per_million_output_tokens), k, sizeof(k)),
		    fig_method(g, mix, sizeof(mix)), pct(g->coverage, cov,
		    sizeof(cov)), isfinite(fig_rel(g)) ? "± " : "",
		    pct(fig_rel(g), bd, sizeof(bd)));
	}
	fprintf(f, "\nCoverage is the share of nodes measured at that "
	    "boundary; bound is the instrument bound stated for the figure "
	    "(docs/report.md).\n");
}

static void
md_ratios(const struct report *r, FILE *f)
{
	const struct report_fig *iw = &r->idle_wall.fig;
	char a[32], b[32], c[32];

	fprintf(f, "\nWall-to-GPU energy ratio: %s.  ", report_md_sig(
	    r->wall_to_gpu, a, sizeof(a)));
	fprintf(f, "PUE: %s (%s, period %s, category %s).\n",
	    report_md_sig(r->pue.value, b, sizeof(b)), r->pue.source,
	    r->pue.period_text, r->pue.category);
	if (r->idle_wall.set && iw->v.valid && iw->net &&
	    isfinite(iw->jt.net_j_per_output_token))
		fprintf(f, "Idle-subtracted (secondary): %s J/output token at "
		    "the wall.\n", report_md_sig(iw->jt.net_j_per_output_token,
		    c, sizeof(c)));
}

static void
md_curve(const char *cls, const struct report_curve *rc, FILE *f)
{
	const struct curve *c = &rc->c;
	const struct curve_fit *lin = &rc->fit[0];
	char a[32], b[32], r2[32], rms[32], g[32], w[32], x[32];
	int i;

	fprintf(f, "\n### Wall-to-GPU curve, class %s (%zu intervals)\n\n",
	    cls, c->n);
	if (lin->valid)
		fprintf(f, "Fit: wall W = %s + %s x GPU W (R² %s, RMS residual "
		    "%s W).\n\n", report_md_sig(lin->a, a, sizeof(a)),
		    report_md_sig(lin->b, b, sizeof(b)), report_md_sig(lin->r2,
		    r2, sizeof(r2)), report_md_sig(lin->rms, rms, sizeof(rms)));
	fprintf(f, "| GPU load | intervals | mean GPU W | mean wall W | "
	    "wall/GPU |\n|---|---|---|---|---|\n");
	for (i = 0; i < CURVE_BINS; i++)
		if (c->bin[i].count > 0)
			fprintf(f, "| %.1f-%.1f | %zu | %s | %s | %s |\n",
			    curve_bin_load_lo(i), curve_bin_load_lo(i + 1),
			    c->bin[i].count, report_md_sig(curve_bin_mean_gpu(c,
			    i), g, sizeof(g)), report_md_sig(curve_bin_mean_wall(
			    c, i), w, sizeof(w)), report_md_sig(curve_bin_ratio(c,
			    i), x, sizeof(x)));
}

/* ---------------------------------------------------------- carbon */

/* One carbon row: kWh, then location and market figures (NULL absent). */
static void
carbon_row(FILE *f, const char *scope, const char *name, int b, double kwh,
    const struct report_pair *loc, const struct report_pair *mk)
{
	char k[32], lk[32], lg[32], mkg[32], mg[32], cv[32];

	fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", scope,
	    name, report_carbon_bnd(b), report_md_sig(isfinite(kwh) ? kwh : 0,
	    k, sizeof(k)), report_md_sig(loc ? loc->kg : NAN, lk, sizeof(lk)),
	    report_md_sig(loc ? loc->g_per_mtok : NAN, lg, sizeof(lg)),
	    report_md_sig(mk ? mk->kg : NAN, mkg, sizeof(mkg)),
	    report_md_sig(mk ? mk->g_per_mtok : NAN, mg, sizeof(mg)),
	    pct(mk ? mk->coverage : NAN, cv, sizeof(cv)));
}

static void
md_cost(const struct report_cost *co, FILE *f)
{
	char a[32], b[32];
	size_t i;

	fprintf(f, "\n| cost (%s, %s) | amount | per M output tokens |\n"
	    "|---|---|---|\n| site | %s | %s |\n", txt(co->currency),
	    report_carbon_bnd(co->boundary), report_md_sig(co->amount, a,
	    sizeof(a)), report_md_sig(co->per_mtok, b, sizeof(b)));
	for (i = 0; i < co->n_cls; i++)
		fprintf(f, "| class %s | %s | %s |\n", co->cls[i].name,
		    report_md_sig(co->cls[i].amount, a, sizeof(a)),
		    report_md_sig(co->cls[i].per_mtok, b, sizeof(b)));
}

/* The market-based method, named: the instruments, then the step the
 * remainder took, flagged when it is the grid average. */
static void
md_market_method(const struct report_carbon *cb, FILE *f)
{
	const struct market_result *m = &cb->mres;
	char a[32], b[32], c[32];

	if (!cb->mk_ok[REPORT_C_WALL])
		return;
	fprintf(f, "\nMarket-based method (GHG Protocol Scope 2 hierarchy, "
	    "%s): contractual instruments first: %zu accepted, %zu rejected, "
	    "%s MWh; coverage %s (period consumption %s); remainder (%s kWh) "
	    "at ", txt(cb->mk_gas), m->accepted, m->rejected,
	    report_md_sig(cb->instruments_mwh, a, sizeof(a)),
	    pct(m->coverage, b, sizeof(b)), m->period_source ?
	    m->period_source : "n/a: no instrument counted",
	    report_md_sig(m->remainder_kwh, c,
	    sizeof(c)));
	if (strcmp(m->remainder_step, "none") == 0)
		fprintf(f, "none: fully covered.\n");
	else if (strcmp(m->remainder_step, "residual-mix") == 0)
		fprintf(f, "the residual mix %s, %s g/kWh.\n", cb->residual_mix,
		    report_md_sig(m->remainder_factor, a, sizeof(a)));
	else if (strcmp(m->remainder_step, "supplier-specific") == 0)
		fprintf(f, "the supplier-specific factor, %s g/kWh.\n",
		    report_md_sig(m->remainder_factor, a, sizeof(a)));
	else
		fprintf(f, "the grid average, %s g/kWh. **Flagged: %s.**\n",
		    report_md_sig(m->remainder_factor, a, sizeof(a)),
		    cb->remainder_flag);
	if (isfinite(m->cfe_score))
		fprintf(f, "24/7 carbon-free energy score: %s (hourly matching "
		    "plus the grid's carbon-free share; %zu hour(s) without a "
		    "grid share counted as 0).\n", pct(m->cfe_score, a,
		    sizeof(a)), m->cfe_gap_hours);
	if (cb->n_claims > 0)
		fprintf(f, "Claims on the instruments (%s boundary): %zu, %s.\n",
		    report_carbon_bnd(cb->claims_bnd), cb->n_claims,
		    cb->finalised ? "recorded in the ledger" : "a draft, not in "
		    "the ledger (--finalise records them)");
}

static void
md_carbon(const struct report *r, FILE *f)
{
	const struct report_carbon *cb = &r->carbon;
	size_t i;
	int b;

	if (!r->has_carbon) {
		fprintf(f, "\nCarbon and cost: not computed (see the "
		    "warnings).\n");
		return;
	}
	fprintf(f, "\n## Carbon and cost\n\n| scope | name | boundary | kWh | "
	    "location kg%s | location g/M output tokens | market kg%s | "
	    "market g/M output tokens | instrument coverage |\n"
	    "|---|---|---|---|---|---|---|---|---|\n", txt(cb->loc_gas),
	    txt(cb->mk_gas));
	for (b = 0; b < REPORT_C_N; b++)
		if (cb->loc_ok[b])
			carbon_row(f, "site", txt(cb->site_name), b,
			    cb->loc[b].kwh, &cb->loc[b], cb->mk_ok[b] ?
			    &cb->mk[b] : NULL);
	for (i = 0; i < cb->n_cls; i++) {
		const struct report_carbon_class *k = &cb->cls[i];

		for (b = 0; b < REPORT_C_N; b++)
			if (k->has_kwh[b] && isfinite(k->kwh[b]))
				carbon_row(f, "class", k->name, b, k->kwh[b],
				    k->loc_ok[b] ? &k->loc[b] : NULL,
				    k->mk_ok[b] ? &k->mk[b] : NULL);
	}
	md_market_method(cb, f);
	if (r->has_cost && r->cost.ok)
		md_cost(&r->cost, f);
}

static void
md_nodes(const struct report *r, FILE *f)
{
	size_t i;

	if (r->n_nodes == 0)
		return;
	fprintf(f, "\n## Nodes\n\n| node | class | GPU | wall (method, bound) "
	    "| outlet | J/output token at the wall | wall/GPU |\n"
	    "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < r->n_nodes; i++) {
		const struct report_node_fig *x = &r->nodes[i];
		const struct report_fig *w = &x->b[BND_WALL];
		char g[64], e[64], o[64], j[32], q[32], bd[32], mix[64];

		fprintf(f, "| %s | %s | %s | %s (%s, ± %s) | %s | %s | %s |\n",
		    x->name, txt(x->cls), report_md_energy(fig_energy(
		    &x->b[BND_GPU]), g, sizeof(g)), report_md_energy(
		    fig_energy(w), e, sizeof(e)), fig_method(w, mix,
		    sizeof(mix)), pct(fig_rel(w), bd, sizeof(bd)),
		    report_md_energy(fig_energy(&x->b[BND_OUTLET]), o,
		    sizeof(o)), report_md_sig(fig_tok(w,
		    w->jt.j_per_output_token), j, sizeof(j)),
		    report_md_sig(x->wall_to_gpu, q, sizeof(q)));
	}
}

/* ------------------------------------------------------ disclosure */

/* The distinct values of key among group g's devices, joined. */
static void
dev_list(const struct report_devices *d, const char *key, char *buf,
    size_t len)
{
	const struct report_devkey *k = NULL;
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < d->n && k == NULL; i++)
		if (strcmp(d->keys[i].key, key) == 0)
			k = &d->keys[i];
	for (i = 0; k != NULL && i < k->n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		    k->vals[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used == 0)
		snprintf(buf, len, "-");
}

/* The device clocks that stamp their readings, against the collector's. */
static void
md_clocks(const struct report_disclosure *d, FILE *f)
{
	const char *sep = ":";
	size_t i, beyond = 0;

	for (i = 0; i < d->n_clocks; i++)
		beyond += d->clocks[i].beyond;
	fprintf(f, "- **Device clocks**: %zu target(s) stamp their readings; "
	    "%zu beyond the %.0f s tolerance", d->n_clocks + d->more_clocks,
	    beyond, d->clock_tolerance_s);
	for (i = 0; i < d->n_clocks; i++)
		if (d->clocks[i].beyond)
			fprintf(f, "%s %s %+.1f .. %+.1f s", sep,
			    d->clocks[i].target, d->clocks[i].min_s,
			    d->clocks[i].max_s), sep = ";";
	fprintf(f, " (readings placed at the collector's poll time).\n");
}

/* Counts of counter and gauge series among the listed instruments. */
static void
kinds(const struct report_instruments *ins, int *ctr, int *gauge)
{
	size_t i;

	*ctr = *gauge = 0;
	for (i = 0; i < ins->n; i++)
		(*(ins->v[i].kind == WP_COUNTER ? ctr : gauge))++;
}

static void
md_instruments(const struct report *r, FILE *f)
{
	static const struct { const char *k[3], *what; } s[REPORT_I_N] = {
		{ { "model", "driver", "nvml" }, "GPU (model, driver, NVML)" },
		{ { "vendor", "model", "fw" },
		    "wall (BMC vendor, model, firmware)" },
		{ { "vendor", "sysdescr", "profile" },
		    "outlet (PDU vendor, sysDescr, profile)" },
		{ { "meter", NULL, NULL }, "facility (meter)" },
		{ { "engine", "model", NULL }, "tokens (engine, model)" },
	};
	const struct report_disclosure *d = &r->disc;
	char buf[3][256], iv[32], mix[64];
	int i, j, c, g;

	fprintf(f, "\n### Instruments\n\n");
	for (i = 0; i < REPORT_I_N; i++) {
		for (j = 0; j < 3; j++)
			if (s[i].k[j] != NULL)
				dev_list(&d->dev[i], s[i].k[j], buf[j],
				    sizeof(buf[j]));
			else
				snprintf(buf[j], sizeof(buf[j]), "-");
		kinds(&d->ins[i], &c, &g);
		fprintf(f, "- **%s**: %s; %s; %s.  Listed series: %d counter, "
		    "%d gauge", s[i].what, buf[0], buf[1], buf[2], c, g);
		if (i < BND_N)
			fprintf(f, "; figure method: %s", fig_method(
			    &r->bnd[i].fig, mix, sizeof(mix)));
		fprintf(f, ".\n");
	}
	dev_list(&d->dev[REPORT_I_GPU], "cuda", buf[0], sizeof(buf[0]));
	dev_list(&d->dev[REPORT_I_GPU], "dcgm_field", buf[1], sizeof(buf[1]));
	dev_list(&d->dev[REPORT_I_GPU], "collect_interval_s", buf[2],
	    sizeof(buf[2]));
	fprintf(f, "- **GPU software**: CUDA driver %s; DCGM fields read %s "
	    "(dcgm-exporter gives no DCGM version); exporter collection "
	    "interval %s%s.\n", buf[0], buf[1], strcmp(buf[2], "-") == 0 ?
	    "none stated" : buf[2], strcmp(buf[2], "-") == 0 ? "" : " s");
	fprintf(f, "- **Sampling**: every %s s (%s).\n", report_md_sig(
	    d->sampling_interval_s, iv, sizeof(iv)), d->edges);
	md_clocks(d, f);
}

/* The SLO thresholds and the achieved TTFT and TPOT percentiles. */
#ifndef WP_COMMIT
#define WP_COMMIT	"unknown"
#endif

static void
md_slo(const struct report_disclosure *d, FILE *f)
{
	const struct report_dist *x[2] = { &d->ttft_ms, &d->tpot_ms };
	const double lim[2] = { d->slo_ttft_ms, d->slo_tpot_ms };
	static const char *const nm[2] = { "TTFT", "TPOT" };
	char a[32], b[32], c[32], e[32];
	int k;

	for (k = 0; k < 2; k++) {
		if (!d->slo_set && x[k]->n == 0)
			continue;
		snprintf(e, sizeof(e), "%s", "none");
		if (d->slo_set && lim[k] > 0)
			snprintf(e, sizeof(e), "%.6g ms", lim[k]);
		fprintf(f, "- **%s**: SLO %s; achieved p50 %s, p90 %s, p99 %s "
		    "ms over %zu requests.\n", nm[k], e, report_md_sig(
		    x[k]->n ? x[k]->p50 : NAN, a, sizeof(a)), report_md_sig(
		    x[k]->n ? x[k]->p90 : NAN, b, sizeof(b)), report_md_sig(
		    x[k]->n ? x[k]->p99 : NAN, c, sizeof(c)), x[k]->n);
	}
}

static void
md_disclosure(const struct report *r, FILE *f)
{
	const struct report_disclosure *d = &r->disc;
	char a[32], b[32];
	size_t i;
	int k;

	fprintf(f, "\n## Disclosure\n\nwattpath %s (commit %s).\n", WP_VERSION,
	    WP_COMMIT);
	md_instruments(r, f);
	fprintf(f, "\n### Method\n\n");
	fprintf(f, "- **Window**: %s s, %d run(s).\n", report_md_sig(
	    d->window_s, a, sizeof(a)), d->run_count);
	fprintf(f, "- **Token denominator**: %s.\n", d->token_denominator);
	fprintf(f, "- **Idle policy**: %s.\n", d->idle_policy);
	fprintf(f, "- **PUE**: %s (%s, period %s, category %s).\n",
	    report_md_sig(d->pue_value, b, sizeof(b)), d->pue_source,
	    d->pue_period, d->pue_category);
	fprintf(f, "- **Facility boundary**: %s.\n", d->facility_method);
	fprintf(f, "- **Wall model**: %s.\n", d->wall_model);
	fprintf(f, "- **Bounds**: %s.\n", d->bounds);
	for (k = 0; k < BND_N; k++)
		if (d->partial[k] != NULL)
			fprintf(f, "- **Partial %s boundary**: %s.\n",
			    bnd_name(k), d->partial[k]);
	for (i = 0; i < r->checks.n; i++)
		fprintf(f, "- **Plausibility**: %s.\n", r->checks.v[i]);
	md_slo(d, f);
	if (d->has_requests)
		fprintf(f, "- **Request log**: %zu requests; ISL p50 %s, OSL "
		    "p50 %s.\n", d->requests, report_md_sig(d->isl.n ?
		    d->isl.p50 : NAN, a, sizeof(a)), report_md_sig(d->osl.n ?
		    d->osl.p50 : NAN, b, sizeof(b)));
}

static void
md_warnings(const struct report *r, FILE *f)
{
	size_t i;

	if (r->warnings.n == 0)
		return;
	fprintf(f, "\n## Warnings\n\n");
	for (i = 0; i < r->warnings.n; i++)
		fprintf(f, "- %s\n", r->warnings.v[i]);
}

int
report_md_write(FILE *f, const struct report *r)
{
	size_t i;

	md_head(r, f);
	md_boundaries(r, f);
	md_ratios(r, f);
	for (i = 0; i < r->cls.ncls; i++)
		md_curve(r->cls.name[i], &r->cls.curve[i], f);
	md_carbon(r, f);
	md_nodes(r, f);
	report_models_md(f, r);
	md_disclosure(r, f);
	md_warnings(r, f);
	fprintf(f, "\nFull precision: `--format json` or `--format csv`.\n");
	return ferror(f) ? -1 : 0;
}
