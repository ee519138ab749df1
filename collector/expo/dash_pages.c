/* dash_pages.c - the node, rack, PDU and targets pages (see
 * dash_pages.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/conf.h"
#include "../conf/conf_rack.h"
#include "dash_pages.h"
#include "dashboard_svg.h"
#include "expo_rrdhist.h"
#include "expo_sites.h"
#include "html.h"

#define PAIRS_MAX	600	/* class points drawn */
#define PDUS_MAX	64

/* The page's script: the history chart and the range picker (the source,
 * readable, is this string). */
static const char page_js[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var el = document.getElementById('hist');\n"
	"  if (!el) return;\n"
	"  var scope = el.getAttribute('data-scope'), name = el.getAttribute('data-name');\n"
	"  var cap = parseFloat(el.getAttribute('data-capacity') || 'NaN');\n"
	"  var RANGES = { '1h': 3600, '6h': 21600, '24h': 86400, '7d': 604800, '30d': 2592000 };\n"
	"  var COLOURS = { wall: '#d62728', gpu: '#2ca02c', outlet: '#1f77b4' };\n"
	"  var MORE = ['#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];\n"
	"  var MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];\n"
	"  var NS = 'http://www.w3.org/2000/svg', W = 900, H = 340, ML = 80, MR = 20, MT = 24, MB = 40;\n"
	"  function fmtW(v) {\n"
	"    if (v === null || !isFinite(v)) return '-';\n"
	"    var u = ['W', 'kW', 'MW', 'GW'], k = 0, a = Math.abs(v);\n"
	"    while (a >= 1000 && k < 3) { a /= 1000; v /= 1000; k++; }\n"
	"    return v.toFixed(a === 0 || a >= 100 ? 0 : a >= 10 ? 1 : 2) + ' ' + u[k];\n"
	"  }\n"
	"  function fmtTick(v) { return fmtW(v).replace(/\\.0+ /, ' ').replace(/(\\.\\d*?)0+ /, '$1 '); }\n"
	"  function pad(n) { return (n < 10 ? '0' : '') + n; }\n"
	"  function fmtT(t, span) {\n"
	"    var d = new Date(t * 1000), s = pad(d.getHours()) + ':' + pad(d.getMinutes());\n"
	"    if (span <= 600) s += ':' + pad(d.getSeconds());\n"
	"    if (span > 2 * 86400) s = MON[d.getMonth()] + ' ' + pad(d.getDate()) + ' ' + s;\n"
	"    return s;\n"
	"  }\n"
	"  function niceStep(span) {\n"
	"    var raw = span / 5, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;\n"
	"    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;\n"
	"  }\n"
	"  function timeStep(span) {\n"
	"    var st = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800];\n"
	"    for (var i = 0; i < st.length - 1; i++) if (span / st[i] <= 7) return st[i];\n"
	"    return st[st.length - 1];\n"
	"  }\n"
	"  function node(tag, attrs, text) {\n"
	"    var e = document.createElementNS(NS, tag);\n"
	"    for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
	"    if (text !== undefined) e.textContent = text;\n"
	"    return e;\n"
	"  }\n"
	"  function parseHash() {\n"
	"    var h = {}, parts = location.hash.replace(/^#/, '').split('&');\n"
	"    for (var i = 0; i < parts.length; i++) {\n"
	"      var kv = parts[i].split('=');\n"
	"      if (kv[0]) h[kv[0]] = decodeURIComponent(kv[1] || '');\n"
	"    }\n"
	"    return h;\n"
	"  }\n"
	"  function win() {\n"
	"    var h = parseHash(), now = Math.floor(Date.now() / 1000);\n"
	"    if (h.from && h.to && +h.from < +h.to) return { from: +h.from, to: +h.to, label: 'custom' };\n"
	"    var r = RANGES[h.range] ? h.range : '1h';\n"
	"    return { from: now - RANGES[r], to: now, label: r };\n"
	"  }\n"
	"  function mean(v) {\n"
	"    var s = 0, n = 0;\n"
	"    for (var i = 0; i < v.length; i++) if (v[i] !== null) { s += v[i]; n++; }\n"
	"    return n ? s / n : null;\n"
	"  }\n"
	"  function max(v) {\n"
	"    var m = null;\n"
	"    for (var i = 0; i < v.length; i++) if (v[i] !== null && (m === null || v[i] > m)) m = v[i];\n"
	"    return m;\n"
	"  }\n"
	"  function last(v) {\n"
	"    for (var i = v.length - 1; i >= 0; i--) if (v[i] !== null) return v[i];\n"
	"    return null;\n"
	"  }\n"
	"  function status(s) { document.getElementById('hist-status').textContent = s; }\n"
	"  function draw(d) {\n"
	"    var box = document.getElementById('hist-chart');\n"
	"    while (box.firstChild) box.removeChild(box.firstChild);\n"
	"    var svg = node('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });\n"
	"    MT = 16 + 14 * Math.max(1, Math.ceil(d.series.length / 3));	/* legend rows above */\n"
	"    var t = d.t, n = t.length, lo = 0, hi = isFinite(cap) ? cap : 0, k, i;\n"
	"    for (k = 0; k < d.series.length; k++) {\n"
	"      var m = max(d.series[k].power_w);\n"
	"      if (m !== null && m > hi) hi = m;\n"
	"    }\n"
	"    if (hi <= lo) hi = 1;\n"
	"    var ys = niceStep(hi - lo); hi = Math.ceil(hi * 1.05 / ys) * ys;\n"
	"    var t0 = n ? t[0] - d.step_s : d.from, t1 = n ? t[n - 1] : d.to, span = t1 - t0;\n"
	"    function px(x) { return ML + (W - ML - MR) * (x - t0) / (span || 1); }\n"
	"    function py(y) { return H - MB - (H - MT - MB) * (y - lo) / (hi - lo); }\n"
	"    svg.appendChild(node('path', { d: 'M' + ML + ' ' + MT + ' V' + (H - MB) + ' H' + (W - MR), stroke: '#444', fill: 'none' }));\n"
	"    for (var y = 0; y <= hi + ys * 1e-9; y += ys) {\n"
	"      svg.appendChild(node('path', { d: 'M' + ML + ' ' + py(y).toFixed(1) + ' H' + (W - MR), stroke: '#eee' }));\n"
	"      svg.appendChild(node('text', { 'class': 'tick y', x: ML - 4, y: (py(y) + 4).toFixed(1), 'font-size': 11, 'text-anchor': 'end' }, fmtTick(y)));\n"
	"    }\n"
	"    var xs = timeStep(span);\n"
	"    for (var x = Math.ceil(t0 / xs) * xs; x <= t1; x += xs)\n"
	"      svg.appendChild(node('text', { 'class': 'tick x', x: px(x).toFixed(1), y: H - MB + 16, 'font-size': 11, 'text-anchor': 'middle' }, fmtT(x, span)));\n"
	"    if (isFinite(cap)) {\n"
	"      svg.appendChild(node('path', { 'class': 'capacity', d: 'M' + ML + ' ' + py(cap).toFixed(1) + ' H' + (W - MR), stroke: '#000', 'stroke-dasharray': '6 4', fill: 'none' }));\n"
	"      svg.appendChild(node('text', { x: W - MR - 4, y: (py(cap) - 4).toFixed(1), 'font-size': 11, 'text-anchor': 'end' }, 'capacity ' + fmtW(cap)));\n"
	"    }\n"
	"    var tb = document.getElementById('hist-summary'), more = 0, lines = [];\n"
	"    while (tb.rows.length > 1) tb.deleteRow(1);\n"
	"    for (k = 0; k < d.series.length; k++) {\n"
	"      var s = d.series[k], v = s.power_w, col = COLOURS[s.kind] || MORE[more++ % MORE.length], p = '', pen = false;\n"
	"      for (i = 0; i < n; i++) {\n"
	"        if (v[i] === null) { pen = false; continue; }\n"
	"        p += (pen ? 'L' : 'M') + px(t[i]).toFixed(1) + ' ' + py(v[i]).toFixed(1) + ' ';\n"
	"        pen = true;\n"
	"      }\n"
	"      lines.unshift(node('path', { 'class': 'data', 'data-series': s.name, d: p || 'M0 0', fill: 'none', stroke: col, 'stroke-width': 2 }));\n"
	"      svg.appendChild(node('text', { x: ML + 8 + 260 * (k % 3), y: 14 + 14 * Math.floor(k / 3), 'font-size': 11, fill: col }, s.name));\n"
	"      var r = tb.insertRow(-1), mv = mean(v);\n"
	"      r.setAttribute('data-series', s.name);\n"
	"      r.setAttribute('data-mean', mv === null ? '' : String(mv));\n"
	"      r.setAttribute('data-max', max(v) === null ? '' : String(max(v)));\n"
	"      var cells = [s.name, fmtW(mv), fmtW(max(v)), fmtW(last(v))];\n"
	"      if (isFinite(cap)) cells.push(mv === null ? '-' : (100 * max(v) / cap).toFixed(1) + ' %');\n"
	"      for (i = 0; i < cells.length; i++) r.insertCell(-1).textContent = cells[i];\n"
	"    }\n"
	"    for (k = 0; k < lines.length; k++) svg.appendChild(lines[k]);	/* the first series on top */\n"
	"    box.appendChild(svg);\n"
	"    var msg = d.series.length ? 'step ' + d.step_s + ' s from the RRD files' : 'no RRD series stored for this ' + d.scope;\n"
	"    if (d.written_to !== null && d.written_to < d.to - d.step_s) {\n"
	"      if (d.journal_points > 0)\n"
	"        msg += '; the files end at ' + fmtT(d.written_to, 0) + ', the later points are read from the journal (the collector holds them, collector.rrd_write_delay)';\n"
	"      else\n"
	"        msg += '; written up to ' + fmtT(d.written_to, 0) + ' (later values are held by the collector, collector.rrd_write_delay, and not drawn)';\n"
	"    }\n"
	"    status(msg);\n"
	"  }\n"
	"  function load() {\n"
	"    var w = win(), b = document.querySelectorAll('#range button[data-range]');\n"
	"    for (var i = 0; i < b.length; i++) b[i].className = b[i].getAttribute('data-range') === w.label ? 'on' : '';\n"
	"    document.getElementById('hist-window').textContent = fmtT(w.from, 3 * 86400) + ' \\u2013 ' + fmtT(w.to, 3 * 86400);\n"
	"    var url = '/api/v1/history?' + scope + '=' + encodeURIComponent(name) + '&from=' + w.from + '&to=' + w.to;\n"
	"    el.setAttribute('data-url', url);\n"
	"    el.setAttribute('data-state', 'loading');\n"
	"    fetch(url).then(function (r) {\n"
	"      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.status); return j; });\n"
	"    }).then(function (d) { draw(d); el.setAttribute('data-state', 'ready'); })\n"
	"      .catch(function (e) { status('history: ' + e.message); el.setAttribute('data-state', 'error'); });\n"
	"  }\n"
	"  function local(s) { var t = Date.parse(s); return isNaN(t) ? null : Math.floor(t / 1000); }\n"
	"  document.getElementById('range').addEventListener('click', function (ev) {\n"
	"    var r = ev.target.getAttribute && ev.target.getAttribute('data-range');\n"
	"    if (r) location.hash = 'range=' + r;\n"
	"    if (ev.target.id === 'apply') {\n"
	"      var a = local(document.getElementById('from').value), z = local(document.getElementById('to').value);\n"
	"      if (a !== null && z !== null && a < z) location.hash = 'from=' + a + '&to=' + z;\n"
	"      else status('custom range: pick a start before the end');\n"
	"    }\n"
	"  });\n"
	"  window.addEventListener('hashchange', load);\n"
	"  load();\n"
	"})();\n";

static void
watts(FILE *f, bool has, double w)
{
	char buf[40];

	if (!has || !isfinite(w)) {
		fputs("&ndash;", f);
		return;
	}
	svg_fmt(buf, sizeof(buf), w, SVG_U_WATTS, 0);
	fputs(buf, f);
}

/* Energy in kWh / MWh, plain decimals. */
static void
energy(FILE *f, bool has, double j)
{
	double kwh = j / 3.6e6;

	if (!has || !isfinite(j))
		fputs("&ndash;", f);
	else if (fabs(kwh) >= 1000)
		fprintf(f, "%.2f MWh", kwh / 1000);
	else
		fprintf(f, "%.3f kWh", kwh);
}

static void
head(FILE *f, const struct fleet *fl, const char *what, const char *name)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<link rel=\"icon\" href=\"data:,\"><title>wattpath: ", f);
	html_escape(f, what);
	fputc(' ', f);
	html_escape(f, name);
	fputs("</title><style>body{font:14px sans-serif;margin:16px;color:#222}"
	    "h1{font-size:20px}h2{font-size:16px;margin-top:24px}table{border-"
	    "collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;"
	    "text-align:right}td:first-child,th:first-child{text-align:left}"
	    ".down{color:#b00}svg{border:1px solid #eee;background:#fff}"
	    "#range button.on{font-weight:bold;background:#dde}"
	    "#hist-status{color:#555}</style></head><body>\n<p><a href=\"/\">"
	    "fleet</a> &middot; <a href=\"/history\">history</a> &middot; "
	    "<a href=\"/targets\">targets</a> &middot; <a href=\"/sites\">"
	    "sites</a>", f);
	if (*fl->site) {
		fputs(" &middot; site ", f);
		html_escape(f, fl->site);
	}
	fputs("</p><h1>", f);
	html_escape(f, what);
	fputc(' ', f);
	html_escape(f, name);
	fputs("</h1>\n", f);
}

static void
link(FILE *f, const char *kind, const char *name)
{
	fprintf(f, "<a href=\"/%s/", kind);
	html_url_escape(f, name);
	fputs("\">", f);
	html_escape(f, name);
	fputs("</a>", f);
}

/* The history chart's frame, drawn by page_js; capacity_w NAN: none. */
static void
history_box(FILE *f, const char *scope, const char *name, double capacity_w)
{
	fprintf(f, "<h2>Power over time</h2><div id=\"hist\" data-scope=\"%s\" "
	    "data-name=\"", scope);
	html_escape(f, name);
	fputc('"', f);
	if (isfinite(capacity_w))
		fprintf(f, " data-capacity=\"%.3f\"", capacity_w);
	fputs("><div id=\"range\">range: <button data-range=\"1h\">1 h</button>"
	    "<button data-range=\"6h\">6 h</button><button data-range=\"24h\">"
	    "24 h</button><button data-range=\"7d\">7 d</button><button "
	    "data-range=\"30d\">30 d</button> custom: <input id=\"from\" type="
	    "\"datetime-local\"> to <input id=\"to\" type=\"datetime-local\">"
	    "<button id=\"apply\">show</button> <span id=\"hist-window\">"
	    "</span></div><div id=\"hist-chart\"></div><p id=\"hist-status\">"
	    "loading&hellip;</p><table id=\"hist-summary\"><tr><th>series</th>"
	    "<th>mean</th><th>max</th><th>last</th>", f);
	if (isfinite(capacity_w))
		fputs("<th>max / capacity</th>", f);
	fputs("</tr></table></div>\n", f);
}

static void
foot(FILE *f)
{
	fprintf(f, "<script>\n%s</script>\n</body></html>\n", page_js);
}

static void
target_rows(FILE *f, const struct fleet *fl, const char *node, bool down_only)
{
	char ts[64];
	size_t i;

	fputs("<table id=\"targets\"><tr><th>target</th><th>protocol</th>"
	    "<th>node</th><th>state</th><th>reason</th><th>last error</th>"
	    "<th>last success</th><th>polls</th><th>failures</th></tr>", f);
	for (i = 0; i < fl->n_targets; i++) {
		const struct fleet_target *t = &fl->targets[i];

		if ((node != NULL && strcmp(t->node, node) != 0) ||
		    (down_only && t->up) || (!down_only && node == NULL &&
		    !t->up))
			continue;
		fputs("<tr data-target=\"", f);
		html_escape(f, t->name);
		fprintf(f, "\" data-up=\"%d\" data-reason=\"", t->up);
		html_escape(f, t->up ? "" : *t->reason ? t->reason : "pending");
		fprintf(f, "\"%s><td>", t->up ? "" : " class=\"down\"");
		html_escape(f, t->name);
		fputs("</td><td>", f);
		html_escape(f, t->protocol);
		fputs("</td><td>", f);
		if (*t->node)
			link(f, "node", t->node);
		fprintf(f, "</td><td>%s</td><td>", t->up ? "up" : "down");
		html_escape(f, t->up ? "" : *t->reason ? t->reason : "pending");
		fputs("</td><td>", f);
		html_escape(f, t->error);
		if (t->last_ok != 0)
			clock_iso8601(t->last_ok, ts, sizeof(ts));
		fprintf(f, "</td><td>%s</td><td>%lu</td><td>%lu</td></tr>",
		    t->last_ok != 0 ? ts : "never", t->polls, t->failures);
	}
	fputs("</table>\n", f);
}

static void
live_table(FILE *f, const struct fleet_fig *b)
{
	int k;

	fputs("<table id=\"live\"><tr><th>boundary</th><th>power now</th>"
	    "<th>energy</th><th>method</th></tr>", f);
	for (k = 0; k < FB_N; k++) {
		fprintf(f, "<tr data-boundary=\"%s\" data-power=\"",
		    fleet_boundary_name(k));
		if (b[k].has_power && isfinite(b[k].power))
			fprintf(f, "%.3f", b[k].power);
		fprintf(f, "\"><td>%s</td><td>", fleet_boundary_name(k));
		watts(f, b[k].has_power, b[k].power);
		fputs("</td><td>", f);
		energy(f, b[k].has_energy, b[k].energy);
		fprintf(f, "</td><td>%s</td></tr>", !b[k].has_energy ? "" :
		    b[k].has_m[FM_COUNTER] ? "counter" : "gauge-estimated");
	}
	fputs("</table>\n", f);
}

/* J per output token at each boundary: the node's energy over its output
 * tokens, both since the collector first saw them. */
static void
joules_per_token(FILE *f, const struct fleet_node *n)
{
	int k;

	fputs("<h2>Joules per output token</h2><table id=\"jpt\"><tr><th>"
	    "boundary</th><th>J/token</th></tr>", f);
	for (k = 0; k < FB_N; k++) {
		bool ok = n->has_tok_out && n->tokens_out > 0 &&
		    n->b[k].has_energy;
		double v = ok ? n->b[k].energy / n->tokens_out : NAN;

		fprintf(f, "<tr data-boundary=\"%s\" data-jpt=\"",
		    fleet_boundary_name(k));
		if (ok)
			fprintf(f, "%.6f", v);
		fprintf(f, "\"><td>%s</td><td>", fleet_boundary_name(k));
		if (ok)
			fprintf(f, "%.3f", v);
		else
			fputs("&ndash;", f);
		fputs("</td></tr>", f);
	}
	fputs("</table><p>The node's energy over its output tokens, both "
	    "since the collector first saw the counters; a window's figure: "
	    "<code>wattpath report</code>.</p>\n", f);
}

/* The node's recent (GPU, wall) points against its class's. */
static void
node_scatter(FILE *f, const struct fleet_node *n, const struct history *h)
{
	double *g = calloc(PAIRS_MAX, sizeof(double)), *w = calloc(PAIRS_MAX,
	    sizeof(double)), ng[HIST_PAIRS], nw[HIST_PAIRS];
	size_t cn = 0, nn;
	char title[256];

	if (g != NULL && w != NULL)
		cn = history_pairs(h, NULL, n->class, g, w, PAIRS_MAX);
	nn = history_pairs(h, n->name, NULL, ng, nw, HIST_PAIRS);
	snprintf(title, sizeof(title), "wall vs GPU power: %s (red) against "
	    "class %s (blue)", n->name, *n->class ? n->class : "(none)");
	fprintf(f, "<h2>Wall-to-GPU</h2><div id=\"scatter\" data-points=\"%zu\" "
	    "data-class-points=\"%zu\">", nn, cn);
	svg_scatter(f, title, g != NULL ? g : ng, w != NULL ? w : nw, cn, ng,
	    nw, nn);
	fputs("</div>\n", f);
	free(g);
	free(w);
}

static int
node_page(FILE *f, const struct fleet *fl, const struct history *h,
    const char *name)
{
	const struct fleet_node *n = fleet_node(fl, name);

	if (n == NULL)
		return 1;
	head(f, fl, "node", n->name);
	fputs("<p>class ", f);
	html_escape(f, *n->class ? n->class : "(none)");
	fputs(" &middot; rack ", f);
	if (*n->rack)
		link(f, "rack", n->rack);
	else
		fputs("(none)", f);
	fprintf(f, " &middot; targets %u up of %u</p>\n", n->targets - n->down,
	    n->targets);
	history_box(f, "node", n->name, NAN);
	fputs("<h2>Now</h2>", f);
	live_table(f, n->b);
	joules_per_token(f, n);
	node_scatter(f, n, h);
	fputs("<h2>Targets</h2>", f);
	target_rows(f, fl, n->name, false);
	foot(f);
	return 0;
}

/* The distinct PDUs the outlets of rack's nodes are on. */
static size_t
rack_pdus(const struct fleet *fl, const char *rack, const char **out)
{
	size_t i, j, k, n = 0;

	for (i = 0; i < fl->n_nodes; i++) {
		const struct wp_node *nd = fl->nodes[i].conf;

		if (strcmp(fl->nodes[i].rack, rack) != 0 || nd == NULL)
			continue;
		for (j = 0; j < nd->n_outlets && n < PDUS_MAX; j++) {
			for (k = 0; k < n && strcmp(out[k], nd->outlets[j].pdu);
			    k++)
				;
			if (k == n)
				out[n++] = nd->outlets[j].pdu;
		}
	}
	return n;
}

static void
rack_nodes(FILE *f, const struct fleet *fl, const char *rack,
    struct fleet_fig *sum)
{
	size_t i;
	int k;

	fputs("<h2>Nodes</h2><table id=\"nodes\"><tr><th>node</th><th>wall</th>"
	    "<th>GPU</th><th>outlet</th></tr>", f);
	for (i = 0; i < fl->n_nodes; i++) {
		const struct fleet_node *n = &fl->nodes[i];

		if (strcmp(n->rack, rack) != 0)
			continue;
		fputs("<tr><td>", f);
		link(f, "node", n->name);
		for (k = 0; k < FB_N; k++) {
			fputs("</td><td>", f);
			watts(f, n->b[k].has_power, n->b[k].power);
			if (n->b[k].has_power) {
				sum[k].power += n->b[k].power;
				sum[k].has_power = true;
			}
		}
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
}

static int
rack_page(FILE *f, const struct fleet *fl, const char *name)
{
	const struct wp_rack *r = conf_rack(fl->conf, name);
	struct fleet_fig sum[FB_N] = { { 0 } };
	const char *pdus[PDUS_MAX];
	size_t i, n;
	bool any = false;
	FILE *tmp;
	char *buf = NULL;
	size_t len = 0;

	for (i = 0; i < fl->n_nodes && !any; i++)
		any = strcmp(fl->nodes[i].rack, name) == 0;
	if (!any || (tmp = open_memstream(&buf, &len)) == NULL)
		return any ? -1 : 1;
	rack_nodes(tmp, fl, name, sum);	/* the sums come first, the table after */
	fclose(tmp);
	head(f, fl, "rack", name);
	fputs("<p id=\"capacity\" data-capacity=\"", f);
	if (r != NULL)
		fprintf(f, "%.3f\">capacity ", r->capacity_w);
	else
		fputs("\">capacity unknown (racks: in the configuration)", f);
	if (r != NULL)
		watts(f, true, r->capacity_w);
	fputs(" &middot; PDUs ", f);
	n = rack_pdus(fl, name, pdus);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		link(f, "pdu", pdus[i]);
	}
	fputs("</p>\n", f);
	history_box(f, "rack", name, r != NULL ? r->capacity_w : NAN);
	fputs("<h2>Now</h2>", f);
	live_table(f, sum);
	if (r != NULL && sum[FB_OUTLET].has_power)
		fprintf(f, "<p id=\"use\">outlets now %.1f %% of capacity</p>",
		    100 * sum[FB_OUTLET].power / r->capacity_w);
	fwrite(buf, 1, len, f);
	free(buf);
	foot(f);
	return 0;
}

static int
pdu_page(FILE *f, const struct fleet *fl, const char *name)
{
	char pname[FLEET_PDU_NAME_LEN];
	bool known = false;
	size_t i;

	for (i = 0; i < fl->conf->n_pdus && !known; i++)
		known = strcmp(fl->conf->pdus[i].name, name) == 0;
	if (!known)
		return 1;
	head(f, fl, "PDU", name);
	history_box(f, "pdu", name, NAN);
	fputs("<h2>Readings now</h2><table id=\"readings\"><tr><th>unit</th>"
	    "<th>role</th><th>index</th><th>power</th></tr>", f);
	for (i = 0; i < fl->n_pdu; i++) {
		const struct fleet_pdu_reading *p = &fl->pdu[i];

		if (p->quantity != WP_Q_POWER || strcmp(p->target, name) != 0)
			continue;
		fprintf(f, "<tr data-role=\"%s\" data-index=\"%s\" data-power="
		    "\"%.3f\"><td>", p->role, p->index, p->value);
		html_escape(f, fleet_pdu_name(p, pname, sizeof(pname)));
		fprintf(f, "</td><td>%s</td><td>%s</td><td>", p->role, p->index);
		watts(f, true, p->value);
		fputs("</td></tr>", f);
	}
	fputs("</table>\n", f);
	foot(f);
	return 0;
}

static void
targets_page(FILE *f, const struct fleet *fl)
{
	head(f, fl, "targets", "");
	fprintf(f, "<p id=\"counts\" data-up=\"%zu\" data-down=\"%zu\">%zu up, "
	    "%zu down</p><h2>Failing</h2>", fl->targets_up, fl->targets_down,
	    fl->targets_up, fl->targets_down);
	if (fl->targets_down == 0)
		fputs("<p>none</p>", f);
	else
		target_rows(f, fl, NULL, true);
	fputs("<h2>Up</h2>", f);
	target_rows(f, fl, NULL, false);
	fputs("</body></html>\n", f);
}

/* The fleet's history: its meters, and its nodes' boundaries summed. */
static void
fleet_page(FILE *f, const struct fleet *fl)
{
	head(f, fl, "fleet history", *fl->site ? fl->site : "");
	history_box(f, "fleet", "all", NAN);
	fprintf(f, "<p>%zu nodes; the boundaries are summed over every node "
	    "for fleets of up to %d nodes (beyond, the site meters alone: each "
	    "rack's page sums its own).</p>\n", fl->n_nodes,
	    RRDHIST_FLEET_NODES);
	foot(f);
}

bool
dash_page_is(const char *url)
{
	return strncmp(url, "/node/", 6) == 0 || strncmp(url, "/rack/", 6) ==
	    0 || strncmp(url, "/pdu/", 5) == 0 || strcmp(url, "/targets") == 0 ||
	    strcmp(url, "/history") == 0;
}

int
dash_page_write(FILE *f, const char *url, const struct fleet *fl,
    const struct history *h)
{
	if (strcmp(url, "/targets") == 0 || strcmp(url, "/history") == 0) {
		if (url[1] == 't')
			targets_page(f, fl);
		else
			fleet_page(f, fl);
		return ferror(f) ? -1 : 0;
	}
	if (strncmp(url, "/node/", 6) == 0 && url[6] != '\0')
		return node_page(f, fl, h, url + 6);
	if (strncmp(url, "/rack/", 6) == 0 && url[6] != '\0')
		return rack_page(f, fl, url + 6);
	if (strncmp(url, "/pdu/", 5) == 0 && url[5] != '\0')
		return pdu_page(f, fl, url + 5);
	return 1;
}

/* --- /sites --- */

static const char *const sq_titles[SQ_N] = { "wall", "GPU", "outlet",
	"facility", "IT" };

static void
site_time(FILE *f, wp_time t)
{
	char buf[64];

	if (t == 0) {
		fputs("&ndash;", f);
		return;
	}
	clock_iso8601(t, buf, sizeof(buf));
	html_escape(f, buf);
}

static void
jpt_cell(FILE *f, bool has, double e, double t)
{
	if (has && t > 0 && isfinite(e / t))
		fprintf(f, "<td class=\"jpt\">%.4g J</td>", e / t);
	else
		fputs("<td class=\"jpt\">&ndash;</td>", f);
}

/* One quantity's power and energy cells; a combined one lacking some
 * site's names them (missing, NULL for a site's own row). */
static void
q_cells(FILE *f, const struct site_q *q, int k, const char *miss_p,
    const char *miss_e)
{
	fprintf(f, "<td class=\"p-%d\">", k);
	watts(f, q->has_power, q->power);
	if (miss_p != NULL && *miss_p) {
		fputs(" <span class=\"partial\">partial: none at ", f);
		html_escape(f, miss_p);
		fputs("</span>", f);
	}
	fprintf(f, "</td><td class=\"e-%d\">", k);
	energy(f, q->has_energy, q->energy);
	if (miss_e != NULL && *miss_e) {
		fputs(" <span class=\"partial\">partial: none at ", f);
		html_escape(f, miss_e);
		fputs("</span>", f);
	}
	fputs("</td>", f);
}

static void
site_tr(FILE *f, const struct site_row *r)
{
	int k;

	fputs("<tr class=\"site\" data-site=\"", f);
	html_escape(f, r->name);
	fprintf(f, "\" data-reachable=\"%d\"><td>", r->reachable);
	html_escape(f, r->name);
	if (r->self)
		fputs(" (this collector)", f);
	fputs("</td><td class=\"state\">", f);
	if (r->incomplete) {
		fputs("<span class=\"down\">incomplete: ", f);
		html_escape(f, r->error);
		fputs("</span>", f);
	} else if (r->reachable)
		fputs("up", f);
	else {
		fputs("<span class=\"down\">unreachable: ", f);
		html_escape(f, r->error);
		fputs("</span>; last answer ", f);
		site_time(f, r->last_ok);
	}
	fputs("</td><td>", f);
	site_time(f, r->time);
	fputs("</td>", f);
	if (r->reachable && !r->incomplete)
		fprintf(f, "<td>%ld</td>", r->nodes);
	else
		fputs("<td>&ndash;</td>", f);
	for (k = 0; k < SQ_N; k++)
		q_cells(f, &r->q[k], k, NULL, NULL);
	if (r->has_pue15)
		fprintf(f, "<td>%.3f</td>", r->pue15);
	else
		fputs("<td>&ndash;</td>", f);
	jpt_cell(f, r->has15[FB_WALL], r->e15[FB_WALL], r->t15[FB_WALL]);
	if (r->reachable && !r->incomplete)
		fprintf(f, "<td>%ld / %ld</td></tr>\n", r->up, r->down);
	else
		fputs("<td>&ndash;</td></tr>\n", f);
}

static void
sum_tr(FILE *f, const struct sites_sum *s, size_t n)
{
	int k;

	fprintf(f, "<tr class=\"combined\" data-unreachable=\"%zu\"><th>"
	    "combined (%zu sites)</th><td>", s->unreachable, n);
	if (s->unreachable > 0)
		fprintf(f, "<span class=\"down\">%zu unreachable</span>",
		    s->unreachable);
	else
		fputs("all up", f);
	fputs("</td><td></td><td></td>", f);
	for (k = 0; k < SQ_N; k++)
		q_cells(f, &s->q[k], k, s->miss_p[k], s->miss_e[k]);
	if (isfinite(s->pue))
		fprintf(f, "<td>%.3f (power)</td>", s->pue);
	else
		fputs("<td>&ndash;</td>", f);
	jpt_cell(f, s->jpt_sites[FB_WALL] > 0, s->e15[FB_WALL],
	    s->t15[FB_WALL]);
	fprintf(f, "<td>%ld / %ld</td></tr>\n", s->up, s->down);
}

int
dash_sites_write(FILE *f, const struct fleet *fl, const struct site_row *rows,
    size_t n)
{
	struct sites_sum *s;
	size_t i;
	int k;

	if ((s = malloc(sizeof(*s))) == NULL)
		return -1;
	sites_combine(rows, n, s);
	head(f, fl, "sites", "");
	fputs("<table id=\"sites\"><tr><th>site</th><th>state</th>"
	    "<th>snapshot</th><th>nodes</th>", f);
	for (k = 0; k < SQ_N; k++)
		fprintf(f, "<th>%s power</th><th>%s energy</th>", sq_titles[k],
		    sq_titles[k]);
	fputs("<th>PUE</th><th>J / output token (wall, 15 min)</th>"
	    "<th>targets up / down</th></tr>\n", f);
	for (i = 0; i < n; i++)
		site_tr(f, &rows[i]);
	sum_tr(f, s, n);
	free(s);
	fputs("</table>\n<p>Each row is that site's own collector's figures "
	    "(its <code>/api/v1/fleet</code>), fetched once per interval; "
	    "energy is each collector's cumulative counter.  The combined row "
	    "sums a quantity only where every site has it (else partial, "
	    "naming the sites without it) and never mixes boundaries; its "
	    "J per token is the summed energy over the summed output tokens "
	    "of the sites that have both, its PUE the summed facility power "
	    "over the summed IT power.  JSON: <a href=\"/api/v1/sites\">"
	    "/api/v1/sites</a>.</p>\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
