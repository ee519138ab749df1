/* dashboard.c - the HTML page; charts in dashboard_svg.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dashboard.h"
#include "dashboard_drift.h"
#include "dashboard_svg.h"
#include "html.h"

#define SCATTER_MAX	600

static const char *const colours[FB_N] = { "#d62728", "#2ca02c", "#1f77b4" };

static void
watts(FILE *f, bool has, double w)
{
	if (!has || !isfinite(w))
		fputs("&ndash;", f);
	else if (fabs(w) >= 1e6)
		fprintf(f, "%.2f MW", w / 1e6);
	else if (fabs(w) >= 1e3)
		fprintf(f, "%.2f kW", w / 1e3);
	else
		fprintf(f, "%.1f W", w);
}

static void
head(FILE *f, const struct fleet *fl)
{
	char ts[64];

	clock_iso8601(fl->now, ts, sizeof(ts));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<link rel=\"icon\" href=\"data:,\"><meta http-equiv=\"refresh\" content=\"30\"><title>wattpath", f);
	if (*fl->site) {
		fputs(" &ndash; ", f);
		html_escape(f, fl->site);
	}
	fputs("</title><style>body{font:14px sans-serif;margin:16px;"
	    "background:#fff;color:#222}h1{font-size:20px}h2{font-size:16px;"
	    "margin-top:24px}.cards{display:flex;flex-wrap:wrap;gap:12px}"
	    ".card{border:1px solid #ccc;border-radius:6px;padding:8px 12px}"
	    ".card b{display:block;font-size:18px}table{border-collapse:"
	    "collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:"
	    "right}td:first-child,th:first-child{text-align:left}.down{color:"
	    "#b00}.charts{display:flex;flex-wrap:wrap;gap:16px}svg{border:1px "
	    "solid #eee;background:#fff}</style></head><body>\n<h1>wattpath", f);
	if (*fl->site) {
		fputs(": ", f);
		html_escape(f, fl->site);
	}
	fprintf(f, "</h1><p>%s &middot; %zu nodes &middot; %zu targets "
	    "(%zu down) &middot; <a href=\"/targets\">targets</a> &middot; "
	    "<a href=\"/history\">history (1 h to 30 d)</a> &middot; "
	    "<a href=\"/sites\">sites</a> &middot; "
	    "<a href=\"/metrics\">metrics</a> &middot; "
	    "<a href=\"/api/v1/nodes\">API</a></p>\n", ts, fl->n_nodes,
	    fl->n_targets, fl->targets_down);
}

static void
cards(FILE *f, const struct fleet *fl, double pue)
{
	int b;

	fputs("<div class=\"cards\">", f);
	for (b = 0; b < FB_N; b++) {
		fprintf(f, "<div class=\"card\">%s power<b>",
		    fleet_boundary_name(b));
		watts(f, fl->total[b].has_power, fl->total[b].power);
		fprintf(f, "</b>%zu nodes &middot; energy %zu/%zu</div>",
		    fl->n_total[b], fl->cov[b].covered, fl->cov[b].nodes);
	}
	fputs("<div class=\"card\">facility power<b>", f);
	watts(f, fl->has_fac_p, fl->fac_power);
	fputs("</b>meters</div><div class=\"card\">PUE<b>", f);
	if (isfinite(pue) && pue >= 1)
		fprintf(f, "%.3f", pue);
	else
		fputs("&ndash;", f);
	fprintf(f, "</b>15 min</div><div class=\"card\">targets up<b>%zu / "
	    "%zu</b>health</div></div>\n", fl->targets_up, fl->n_targets);
}

static void
time_charts(FILE *f, const struct fleet *fl, const struct history *h)
{
	size_t n = history_len(h), i;
	double *t = calloc(n + 1, sizeof(double));
	double *y = calloc((n + 1) * FB_N, sizeof(double));
	const char *names[FB_N];
	int b;

	if (t == NULL || y == NULL) {
		free(t);
		free(y);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct hist_point *p = history_at(h, i);

		/* realtime: the ring's points never run ahead of the
		 * snapshot, so no point is "in the future" */
		t[i] = (double)(p->t < fl->now ? p->t : fl->now) / WP_SEC;
		for (b = 0; b < FB_N; b++)
			y[b * (n + 1) + i] = p->has_power[b] ? p->power[b] : NAN;
	}
	for (b = 0; b < FB_N; b++)
		names[b] = fleet_boundary_name(b);
	fputs("<h2>Fleet</h2><div class=\"charts\">", f);
	svg_lines(f, "Fleet power by boundary (UTC)", t, n, y, n + 1,
	    FB_N, names, colours, SVG_U_TIME, SVG_U_WATTS);
	for (i = 0; i < n; i++)
		y[i] = history_at(h, i)->pue;
	names[0] = "PUE";
	svg_lines(f, "PUE (15 min, UTC)", t, n, y, n + 1, 1, names,
	    &colours[2], SVG_U_TIME, SVG_U_NUM);
	free(t);
	free(y);
}

/* Tokens per joule by boundary over the covered nodes, the coverage
 * beside each (a chart, and the figures as a table: data-* attributes). */
static void
tokens_chart(FILE *f, const struct fleet *fl, const struct history *h)
{
	double v[FB_N];
	char lab[FB_N][48];
	const char *names[FB_N];
	int b;

	for (b = 0; b < FB_N; b++) {
		v[b] = history_tokens_per_joule(h, fl, b, PUE_WINDOW);
		snprintf(lab[b], sizeof(lab[b]), "%s %zu/%zu",
		    fleet_boundary_name(b), fl->cov[b].covered,
		    fl->cov[b].nodes);
		names[b] = lab[b];
	}
	svg_bars(f, "Output tokens per joule by boundary (15 min, covered "
	    "nodes)", v, names, colours, FB_N, SVG_U_NUM);
	fputs("</div>\n<table id=\"tpj\"><tr><th>boundary</th><th>tokens/J "
	    "(15 min)</th><th>coverage</th></tr>", f);
	for (b = 0; b < FB_N; b++) {
		fprintf(f, "<tr data-boundary=\"%s\" data-coverage=\"%.6f\"",
		    fleet_boundary_name(b), isfinite(fleet_coverage(
		    &fl->cov[b])) ? fleet_coverage(&fl->cov[b]) : 0);
		if (isfinite(v[b]))
			fprintf(f, " data-tpj=\"%.9g\"", v[b]);
		fprintf(f, "><td>%s</td><td>", fleet_boundary_name(b));
		if (isfinite(v[b]))
			fprintf(f, "%.4g", v[b]);
		else
			fputs("&ndash;", f);
		fprintf(f, "</td><td>%zu / %zu nodes</td></tr>",
		    fl->cov[b].covered, fl->cov[b].nodes);
	}
	fputs("</table>\n", f);
}

/* Distinct classes, at most max, in node order. */
static size_t
classes(const struct fleet *fl, const char **out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < fl->n_nodes && n < max; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(out[j], fl->nodes[i].class) == 0)
				break;
		if (j == n)
			out[n++] = fl->nodes[i].class;
	}
	return n;
}

static void
curves(FILE *f, const struct fleet *fl, const struct history *h,
    const struct dash_query *q)
{
	double *g = malloc(SCATTER_MAX * sizeof(double));
	double *w = malloc(SCATTER_MAX * sizeof(double));
	double ng[HIST_PAIRS], nw[HIST_PAIRS];
	const struct fleet_node *sel = q->node ? fleet_node(fl, q->node) : NULL;
	const char *cls[DASH_CLASSES];
	size_t nc = classes(fl, cls, DASH_CLASSES), i, n, nn = 0;
	char title[256];

	fputs("<h2>Wall-to-GPU power by class</h2><div class=\"charts\">", f);
	if (g == NULL || w == NULL)
		nc = 0;
	if (sel != NULL)
		nn = history_pairs(h, sel->name, NULL, ng, nw, HIST_PAIRS);
	for (i = 0; i < nc; i++) {
		n = history_pairs(h, NULL, cls[i], g, w, SCATTER_MAX);
		snprintf(title, sizeof(title), "class %s: wall W vs GPU W",
		    *cls[i] ? cls[i] : "(none)");
		svg_scatter(f, title, g, w, n, sel && strcmp(sel->class,
		    cls[i]) == 0 ? ng : NULL, nw, nn);
	}
	fputs("</div>\n", f);
	free(g);
	free(w);
}

static void
class_table(FILE *f, const struct fleet *fl)
{
	size_t i, nc = fl->n_classes < 64 ? fl->n_classes : 64;
	int b;

	fputs("<h2>Classes</h2><table><tr><th>class</th><th>nodes</th>"
	    "<th>wall</th><th>GPU</th><th>wall/GPU</th><th>energy coverage "
	    "(wall, GPU, outlet)</th></tr>", f);
	for (i = 0; i < nc; i++) {
		const struct fleet_class *k = &fl->classes[i];
		bool both = k->n_pair > 0 && k->pair_gpu > 0;

		fputs("<tr><td><a href=\"/?q=", f);
		html_url_escape(f, k->name);
		fputs("\">", f);
		html_escape(f, *k->name ? k->name : "(none)");
		fprintf(f, "</a></td><td>%zu</td><td>", k->nodes);
		watts(f, k->b[FB_WALL].has_power, k->b[FB_WALL].power);
		fputs("</td><td>", f);
		watts(f, k->b[FB_GPU].has_power, k->b[FB_GPU].power);
		if (both)	/* over the nodes with both, not two sets */
			fprintf(f, "</td><td>%.3f</td><td>", k->pair_wall /
			    k->pair_gpu);
		else
			fputs("</td><td>&ndash;</td><td>", f);
		for (b = 0; b < FB_N; b++)
			fprintf(f, "%s%zu/%zu", b ? ", " : "",
			    k->cov[b].covered, k->cov[b].nodes);
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
}

static bool
matches(const struct fleet_node *n, const char *q)
{
	return q == NULL || *q == '\0' || strstr(n->name, q) != NULL ||
	    strstr(n->class, q) != NULL || strstr(n->rack, q) != NULL;
}

static void
node_row(FILE *f, const struct fleet_node *n)
{
	int b;

	fputs("<tr><td><a href=\"/node/", f);
	html_url_escape(f, n->name);
	fputs("\">", f);
	html_escape(f, n->name);
	fputs("</a> <a href=\"/?node=", f);
	html_url_escape(f, n->name);
	fputs("\" title=\"highlight in the scatter\">&bull;</a></td><td>", f);
	html_escape(f, n->class);
	fputs("</td><td>", f);
	if (*n->rack) {
		fputs("<a href=\"/rack/", f);
		html_url_escape(f, n->rack);
		fputs("\">", f);
		html_escape(f, n->rack);
		fputs("</a>", f);
	}
	for (b = 0; b < FB_N; b++) {
		fputs("</td><td>", f);
		watts(f, n->b[b].has_power, n->b[b].power);
	}
	fprintf(f, "</td><td%s>%u/%u</td></tr>", n->down ? " class=\"down\"" :
	    "", n->targets - n->down, n->targets);
}

static void
pager(FILE *f, const struct dash_query *q, long page, long pages)
{
	fprintf(f, "<p>page %ld of %ld ", page, pages);
	if (page > 1) {
		fputs("<a href=\"/?q=", f);
		html_url_escape(f, q->q);
		fprintf(f, "&amp;page=%ld\">previous</a> ", page - 1);
	}
	if (page < pages) {
		fputs("<a href=\"/?q=", f);
		html_url_escape(f, q->q);
		fprintf(f, "&amp;page=%ld\">next</a>", page + 1);
	}
	fputs("</p>\n", f);
}

static void
node_table(FILE *f, const struct fleet *fl, const struct dash_query *q)
{
	size_t i, n = 0, lo, hi;
	long page = q->page > 0 ? q->page : 1, pages;

	for (i = 0; i < fl->n_nodes; i++)
		n += matches(&fl->nodes[i], q->q);
	pages = n == 0 ? 1 : (long)((n + DASH_PAGE - 1) / DASH_PAGE);
	if (page > pages)
		page = pages;
	lo = (size_t)(page - 1) * DASH_PAGE;
	hi = lo + DASH_PAGE;
	fputs("<h2>Nodes</h2><form method=\"get\" action=\"/\"><input "
	    "name=\"q\" placeholder=\"name, class or rack\" value=\"", f);
	html_escape(f, q->q);
	fprintf(f, "\"> <button>search</button></form><p>%zu matching</p>"
	    "<table><tr><th>node</th><th>class</th><th>rack</th><th>wall</th>"
	    "<th>GPU</th><th>outlet</th><th>targets up</th></tr>", n);
	for (i = 0, n = 0; i < fl->n_nodes && n < hi; i++) {
		if (!matches(&fl->nodes[i], q->q))
			continue;
		if (n++ >= lo)
			node_row(f, &fl->nodes[i]);
	}
	fputs("</table>\n", f);
	pager(f, q, page, pages);
}

static void
health(FILE *f, const struct fleet *fl)
{
	size_t i, shown = 0;

	fprintf(f, "<h2>Target health</h2><p>%zu up, %zu down</p>",
	    fl->targets_up, fl->targets_down);
	if (fl->targets_down == 0)
		return;
	fputs("<table><tr><th>target</th><th>protocol</th><th>reason</th>"
	    "<th>error</th><th>failures</th></tr>", f);
	for (i = 0; i < fl->n_targets && shown < 100; i++) {
		const struct fleet_target *t = &fl->targets[i];

		if (t->up)
			continue;
		shown++;
		fputs("<tr class=\"down\"><td>", f);
		html_escape(f, t->name);
		fputs("</td><td>", f);
		html_escape(f, t->protocol);
		fputs("</td><td>", f);
		html_escape(f, *t->reason ? t->reason : "pending");
		fputs("</td><td>", f);
		html_escape(f, t->error);
		fprintf(f, "</td><td>%lu</td></tr>", t->failures);
	}
	fputs("</table>", f);
	if (fl->targets_down > shown)
		fprintf(f, "<p>and %zu more (see /api/v1/targets)</p>",
		    fl->targets_down - shown);
}

int
dashboard_write(FILE *f, const struct fleet *fl, const struct history *h,
    const struct dash_query *q)
{
	head(f, fl);
	cards(f, fl, history_pue(h, fl, PUE_WINDOW));
	time_charts(f, fl, h);
	tokens_chart(f, fl, h);
	curves(f, fl, h, q);
	class_table(f, fl);
	node_table(f, fl, q);
	dashboard_drift(f, q->drift);
	health(f, fl);
	fputs("\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
