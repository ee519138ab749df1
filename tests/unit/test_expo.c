/* Unit tests: expo_metrics.c (names, escaping, plain decimals, site) and
 * dashboard.c (escaping, charts, paging) on a hand-built fleet; html.c's
 * URL decoding; expo_fleet.c's energy methods and coverage, its PDU
 * readings (asked for or not, units, the PDU page), and the
 * history's tokens per joule over the covered nodes; the charts' human
 * axis labels and the history API's grid. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "../../collector/expo/dash_pages.h"
#include "../../collector/expo/dashboard.h"
#include "../../collector/expo/dashboard_svg.h"
#include "../../collector/store/rrdread.h"
#include "../../collector/expo/expo_history.h"
#include "../../collector/expo/expo_gzip.h"
#include "../../collector/expo/expo_metrics.h"
#include "../../collector/expo/expo_out.h"
#include "../../collector/expo/html.h"
#include "../../collector/conf/conf.h"
#include "../../collector/conf/conf_rack.h"
#include "../../collector/lib/sample.h"

static char *
render(const struct fleet *fl, double pue, const struct history *h,
    const struct dash_query *q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (q == NULL)
		assert_int_equal(expo_metrics_write(f, fl, pue), 0);
	else
		assert_int_equal(dashboard_write(f, fl, h, q), 0);
	fclose(f);
	return buf;
}

static void
fleet_one(struct fleet *fl, struct fleet_node *n, struct fleet_target *t)
{
	memset(fl, 0, sizeof(*fl));
	memset(n, 0, sizeof(*n));
	memset(t, 0, sizeof(*t));
	n->name = "gpu \"7\"\\x\ny";
	n->class = "hgx";
	n->rack = "r1";
	n->b[FB_WALL] = (struct fleet_fig){ 12345678901.5, 1234.5, true, true,
	    { 12345678901.5, 0 }, { true, false } };
	n->b[FB_GPU] = (struct fleet_fig){ .power = 0.000123, .has_power = true };
	*t = (struct fleet_target){ .name = "gpu-7/bmc", .protocol = "redfish",
	    .node = "", .reason = "auth", .error = "401", .up = false,
	    .polls = 3, .failures = 3 };
	fl->nodes = n;
	fl->n_nodes = 1;
	fl->targets = t;
	fl->n_targets = 1;
	fl->targets_down = 1;
	fl->now = 1000 * WP_SEC;
	fl->site = "s<1>";
}

static void
test_fmt_plain_decimal(void **st)
{
	char b[64];

	(void)st;
	expo_fmt_value(b, sizeof(b), 12345.6);
	assert_string_equal(b, "12345.6");
	expo_fmt_value(b, sizeof(b), 1e15);
	assert_string_equal(b, "1000000000000000");
	expo_fmt_value(b, sizeof(b), 0.000123);
	assert_string_equal(b, "0.000123");
	expo_fmt_value(b, sizeof(b), -3);
	assert_string_equal(b, "-3");
	expo_fmt_value(b, sizeof(b), 1e-30);
	assert_string_equal(b, "0");
	expo_fmt_value(b, sizeof(b), NAN);
	assert_string_equal(b, "0");
}

static void
test_metrics_text(void **st)
{
	struct fleet fl;
	struct fleet_node n;
	struct fleet_target t;
	char *s;

	(void)st;
	fleet_one(&fl, &n, &t);
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "# TYPE wattpath_node_energy_joules_total "
	    "counter\n"));
	assert_non_null(strstr(s, "wattpath_node_energy_joules_total{site=\"s<1>\",node="
	    "\"gpu \\\"7\\\"\\\\x\\ny\",class=\"hgx\",rack=\"r1\",boundary="
	    "\"wall\",method=\"counter\"} 12345678901.5\n"));
	assert_non_null(strstr(s, "boundary=\"gpu\"} 0.000123\n"));
	/* the GPU has no energy counter: no energy series for it */
	assert_null(strstr(s, "wattpath_node_energy_joules_total{site=\"s<1>\",node=\"gpu "
	    "\\\"7\\\"\\\\x\\ny\",class=\"hgx\",rack=\"r1\",boundary=\"gpu\""));
	assert_non_null(strstr(s, "wattpath_target_up{site=\"s<1>\",target=\"gpu-7/bmc\","
	    "protocol=\"redfish\"} 0\n"));
	assert_non_null(strstr(s, "wattpath_target_down_reason{site=\"s<1>\",target="
	    "\"gpu-7/bmc\",protocol=\"redfish\",reason=\"auth\"} 1\n"));
	/* unknown PUE: family described, no sample */
	assert_non_null(strstr(s, "# HELP wattpath_facility_pue "));
	assert_null(strstr(s, "\nwattpath_facility_pue{"));
	assert_null(strstr(s, "e+"));
	/* every series carries the site; no site: no label */
	assert_null(strstr(s, "\nwattpath_build_info{version"));
	assert_non_null(strstr(s, "\nwattpath_build_info{site=\"s<1>\","
	    "version=\""));
	free(s);
	fl.site = "";
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_build_info{version=\""));
	assert_null(strstr(s, "site="));
	free(s);
	fl.site = "s<1>";
	s = render(&fl, 1.25, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_facility_pue{site=\"s<1>\"} 1.25\n"));
	free(s);
	s = render(&fl, 0.9, NULL, NULL);	/* below 1: left out */
	assert_null(strstr(s, "\nwattpath_facility_pue{"));
	free(s);
	/* the last error, kept after recovery; the site-less prefix */
	t.up = true;
	t.last_error_reason = "auth";
	t.last_error = 999 * WP_SEC;
	fl.site = "";
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_target_last_error_info{target="
	    "\"gpu-7/bmc\",protocol=\"redfish\",reason=\"auth\"} 1\n"));
	assert_non_null(strstr(s, "\nwattpath_target_last_error_timestamp_seconds"
	    "{target=\"gpu-7/bmc\",protocol=\"redfish\"} 999\n"));
	assert_null(strstr(s, "\nwattpath_target_down_reason{"));
	assert_null(strstr(s, "\nprocess_"));	/* no process: none */
	free(s);
	fl.has_proc = fl.has_reloads = fl.has_expo = true;
	fl.proc = (struct proc_stats){ .cpu_s = 1.5, .start_s = 1e9, .rss = 2e6,
	    .vsize = 3e6, .open_fds = 9, .max_fds = 1024, .ok = true,
	    .has_fds = true, .has_max = true };
	fl.reloads = (struct collector_reloads){ false, 5 * WP_SEC, 2, 1 };
	fl.expo = (struct expo_stats){ 0.5, 0.25, 2, 0 };
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "\nprocess_cpu_seconds_total 1.5\n"));
	assert_non_null(strstr(s, "\nprocess_max_fds 1024\n"));
	assert_non_null(strstr(s, "\nprocess_start_time_seconds 1000000000\n"));
	assert_non_null(strstr(s, "\nwattpath_config_last_reload_successful 0\n"));
	assert_non_null(strstr(s, "\nwattpath_config_last_reload_success_"
	    "timestamp_seconds 5\n"));
	assert_non_null(strstr(s, "# TYPE wattpath_exposition_duration_seconds "
	    "summary\nwattpath_exposition_duration_seconds_sum 0.5\n"
	    "wattpath_exposition_duration_seconds_count 2\n"));
	assert_non_null(strstr(s, "\nwattpath_exposition_last_duration_seconds "
	    "0.25\n"));
	free(s);
}

/* Each rack of racks: with its capacity, the site first; no racks (or no
 * configuration): the family described, no sample. */
static void
test_rack_capacity(void **st)
{
	struct wp_rack racks[2] = { { .name = "r1", .capacity_w = 17500 },
	    { .name = "r\"2\"", .capacity_w = 40000.5 } };
	struct wp_conf c;
	struct fleet fl;
	struct fleet_node n;
	struct fleet_target t;
	char *s;

	(void)st;
	fleet_one(&fl, &n, &t);
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "# HELP wattpath_rack_capacity_watts "));
	assert_non_null(strstr(s, "# TYPE wattpath_rack_capacity_watts "
	    "gauge\n"));
	assert_null(strstr(s, "\nwattpath_rack_capacity_watts{"));
	free(s);
	memset(&c, 0, sizeof(c));
	fl.conf = &c;
	s = render(&fl, NAN, NULL, NULL);
	assert_null(strstr(s, "\nwattpath_rack_capacity_watts{"));
	free(s);
	c.racks = racks;
	c.n_racks = 2;
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_rack_capacity_watts{site="
	    "\"s<1>\",rack=\"r1\"} 17500\n"));
	assert_non_null(strstr(s, "\nwattpath_rack_capacity_watts{site="
	    "\"s<1>\",rack=\"r\\\"2\\\"\"} 40000.5\n"));
	free(s);
	fl.site = "";
	s = render(&fl, NAN, NULL, NULL);
	assert_non_null(strstr(s, "\nwattpath_rack_capacity_watts{rack="
	    "\"r1\"} 17500\n"));
	free(s);
}

/* The fast path of the number format is byte for byte the slow one
 * (snprintf "%.6f", trimmed), ties to even and carries included. */
static void
test_fmt_fast_exact(void **st)
{
	static const double v[] = { 1, 1.5, 1.0078125, 2.0078125, 1.0000005,
	    1.9999995, 1.99999949999, 9.9999999, 12345678901.5, 1e15 + 0.5,
	    9007199254740991.0, 123.000001, 4503599627370495.5, -7.25,
	    -1.0000015, 1796198055.512183, 2600, 1e9 + 1e-6 };
	char a[400], b[400];
	uint64_t x = 88172645463325252ull;
	double r;
	size_t i;
	int k;

	(void)st;
	for (i = 0; i < sizeof(v) / sizeof(v[0]) + 200000; i++) {
		if (i < sizeof(v) / sizeof(v[0]))
			r = v[i];
		else {		/* xorshift: mantissas and scales at random */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			k = (int)(x % 60) - 4;
			r = ldexp((double)(x >> 11) / 9007199254740992.0, k);
			if (x & 1)
				r = -r;
			if (x & 2)
				r = round(r * 1024) / 1024;	/* binary ties */
		}
		eo_fmt(a, sizeof(a), r);
		k = 6;
		snprintf(b, sizeof(b), "%.*f", k, r);
		if (fabs(r) >= 1 && fabs(r) < 9007199254740992.0) {
			char *p = b + strlen(b) - 1;

			while (*p == '0')
				*p-- = '\0';
			if (*p == '.')
				*p = '\0';
			if (strcmp(a, b) != 0)
				fail_msg("%.17g: fast %s, snprintf %s", r, a, b);
		}
	}
}

static void
test_gzip(void **st)
{
	static const char text[] = "wattpath_target_up{target=\"a\"} 1\n"
	    "wattpath_target_up{target=\"b\"} 1\n";
	char out[256];
	uLongf n = sizeof(out);
	size_t zn;
	char *z;
	z_stream zs = { 0 };

	(void)st;
	assert_true(expo_accepts_gzip("gzip"));
	assert_true(expo_accepts_gzip("deflate, gzip;q=0.8"));
	assert_true(expo_accepts_gzip("GZIP"));
	assert_true(expo_accepts_gzip("*"));
	assert_true(expo_accepts_gzip("x-gzip"));
	assert_false(expo_accepts_gzip(NULL));
	assert_false(expo_accepts_gzip(""));
	assert_false(expo_accepts_gzip("identity"));
	assert_false(expo_accepts_gzip("gzip;q=0"));
	assert_false(expo_accepts_gzip("gzip; q=0.0, deflate"));
	assert_false(expo_accepts_gzip("gzipx, br"));
	assert_false(expo_accepts_gzip("*;q=0"));
	z = expo_gzip(text, sizeof(text) - 1, EXPO_GZIP_LEVEL, &zn);
	assert_non_null(z);
	assert_true((unsigned char)z[0] == 0x1f && (unsigned char)z[1] == 0x8b);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)z;
	zs.avail_in = (uInt)zn;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)n;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, sizeof(text) - 1);
	assert_memory_equal(out, text, sizeof(text) - 1);
	inflateEnd(&zs);
	free(z);
}

/* The writer into memory grows, and hands its text over. */
static void
test_out_mem(void **st)
{
	struct expo_out o;
	size_t i, n;
	char *b;

	(void)st;
	assert_int_equal(eo_init_mem(&o, 0), 0);
	for (i = 0; i < 100000; i++)
		eo_esc(&o, "a\"b\\c\n");
	b = eo_take(&o, &n);
	assert_non_null(b);
	assert_int_equal(n, 100000 * 9);
	assert_memory_equal(b, "a\\\"b\\\\c\\n", 9);
	assert_int_equal(b[n], '\0');
	free(b);
}

static void
test_dashboard(void **st)
{
	struct fleet fl;
	struct fleet_node n;
	struct fleet_target t;
	struct history *h = history_new(8);
	struct dash_query q = { "<b>", NULL, 1, NULL };
	char *s;
	int i;

	(void)st;
	fleet_one(&fl, &n, &t);
	for (i = 0; i < 5; i++) {
		fl.now = (1796197200 + 60 * i) * WP_SEC;
		fl.total[FB_WALL] = (struct fleet_fig){ .energy = 10.0 * i,
		    .power = 88270 + 1000 * i, .has_energy = true,
		    .has_power = true };
		assert_int_equal(history_add(h, &fl), 0);
	}
	s = render(&fl, NAN, h, &q);
	assert_null(strstr(s, "value=\"<b>"));	/* search text escaped */
	assert_non_null(strstr(s, "&lt;b&gt;"));
	assert_non_null(strstr(s, "s&lt;1&gt;"));	/* site escaped */
	assert_non_null(strstr(s, "0 matching"));
	assert_non_null(strstr(s, "<path class=\"data\""));
	assert_non_null(strstr(s, " L"));	/* a line of several points */
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "e+0"));		/* no exponent notation */
	assert_non_null(strstr(s, "kW</text>"));	/* power ticks in kW */
	assert_non_null(strstr(s, ">07:41:00</text>"));	/* clock times, UTC */
	assert_null(strstr(s, ">-"));		/* no negative minutes */
	free(s);
	q.q = "hgx";
	q.page = 7;
	s = render(&fl, NAN, h, &q);
	assert_non_null(strstr(s, "1 matching"));
	assert_non_null(strstr(s, "page 1 of 1"));
	assert_non_null(strstr(s, "gpu &quot;7&quot;"));
	free(s);
	history_free(h);
}

static void
test_url_unescape(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "gpu-001%2Fx", "gpu-001/x" },
		{ "gpu-001%00.json", "gpu-001%00.json" },	/* no NUL */
		{ "a%2", "a%2" }, { "a%zz%41", "a%zzA" }, { "%", "%" },
		{ "%e2%9c%93", "\xe2\x9c\x93" }, { "", "" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(buf, cases[i].in);
		assert_int_equal(html_url_unescape(buf), strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
	}
}

/* Three nodes seen through hand-made target views: n1's BMC has a wall
 * counter (and a gauge), n2's only a gauge (its integral), n3 no wall. */
struct views {
	struct wp_sample s[3][3];
	struct ingest_ctr k[3][3];
	size_t n[3];
	double scale;		/* cumulative figures multiplied by it */
};

static void
put(struct views *v, int t, const char *series, int b, int q, int kind,
    double cum, bool integrated)
{
	size_t i = v->n[t]++;

	sample_init(&v->s[t][i], series, b, q, kind);
	v->s[t][i].value = kind == WP_GAUGE ? 1000 : cum;
	v->k[t][i] = (struct ingest_ctr){ .valid = kind == WP_COUNTER,
	    .cum = cum * v->scale, .integrated = integrated };
}

static int
each_view(const void *src, int (*fn)(const struct target_view *, void *),
    void *arg)
{
	static const char *const node[3] = { "n1", "n2", "n3" };
	static const char *const name[3] = { "n1/bmc", "n2/bmc", "n3/bmc" };
	const struct views *v = src;
	int t;

	for (t = 0; t < 3; t++) {
		struct target_view tv = { .name = name[t], .driver = "redfish",
		    .node = node[t], .up = true, .polls = 1, .last = v->s[t],
		    .n_last = v->n[t], .ctr = v->k[t] };

		if (fn(&tv, arg) != 0)
			return 1;
	}
	return 0;
}

static void
views_fill(struct views *v, double scale)
{
	memset(v, 0, sizeof(*v));
	v->scale = scale;
	put(v, 0, "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER, 1000,
	    false);
	put(v, 0, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE, 900, true);
	put(v, 0, "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER, 500,
	    false);
	put(v, 1, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE, 2000, true);
	put(v, 1, "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER, 300,
	    false);
	put(v, 2, "gpu/0/power", WP_B_GPU, WP_Q_POWER, WP_GAUGE, 50, true);
	put(v, 2, "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER, 100,
	    false);
}

static void
test_fleet_cover(void **st)
{
	struct wp_node nodes[3] = { { .name = "n1", .class = "a" },
	    { .name = "n2", .class = "a" }, { .name = "n3", .class = "b" } };
	struct wp_conf c;
	struct views v;
	struct fleet *f, *g;
	struct history *h = history_new(8);
	char *s;

	(void)st;
	memset(&c, 0, sizeof(c));
	c.nodes = nodes;
	c.n_nodes = 3;
	c.site.name = "s1";
	views_fill(&v, 1);
	f = fleet_build(&c, each_view, &v, 1000 * WP_SEC, FLEET_PDU_READINGS);
	assert_non_null(f);
	/* the counter where the target has one, else the gauge's integral */
	assert_true(f->nodes[0].b[FB_WALL].has_m[FM_COUNTER]);
	assert_false(f->nodes[0].b[FB_WALL].has_m[FM_GAUGE]);
	assert_true(f->nodes[0].b[FB_WALL].energy == 1000);
	assert_true(f->nodes[1].b[FB_WALL].has_m[FM_GAUGE]);
	assert_true(f->nodes[1].b[FB_WALL].energy == 2000);
	assert_false(f->nodes[2].b[FB_WALL].has_energy);
	assert_true(f->nodes[2].b[FB_GPU].energy_m[FM_GAUGE] == 50);
	/* coverage: the fleet, each class; tokens of the covered nodes */
	assert_int_equal(f->cov[FB_WALL].covered, 2);
	assert_int_equal(f->cov[FB_WALL].nodes, 3);
	assert_true(f->cov[FB_WALL].tokens == 800);
	assert_int_equal(f->n_classes, 2);
	assert_int_equal(f->classes[0].cov[FB_WALL].covered, 2);
	assert_int_equal(f->classes[1].cov[FB_WALL].covered, 0);
	assert_int_equal(f->classes[1].cov[FB_GPU].covered, 1);
	s = render(f, NAN, NULL, NULL);
	assert_non_null(strstr(s, "{site=\"s1\",node=\"n2\",class=\"a\",rack="
	    "\"\",boundary=\"wall\",method=\"gauge-estimated\"} 2000\n"));
	assert_non_null(strstr(s, "{site=\"s1\",node=\"n1\",class=\"a\",rack="
	    "\"\",boundary=\"wall\",method=\"counter\"} 1000\n"));
	assert_null(strstr(s, "node=\"n1\",class=\"a\",rack=\"\",boundary="
	    "\"wall\",method=\"gauge-estimated\""));
	assert_non_null(strstr(s, "wattpath_boundary_coverage_ratio{site="
	    "\"s1\",scope=\"fleet\",boundary=\"wall\"} 0.6666667\n"));
	assert_non_null(strstr(s, "wattpath_boundary_coverage_ratio{site="
	    "\"s1\",scope=\"class\",class=\"b\",boundary=\"wall\"} 0\n"));
	free(s);
	/* tokens per joule at the wall: n1 and n2's tokens (800 -> 1600)
	 * over their energy (3000 -> 6000), not n3's tokens too */
	assert_int_equal(history_add(h, f), 0);
	views_fill(&v, 2);
	g = fleet_build(&c, each_view, &v, 1010 * WP_SEC, FLEET_PDU_READINGS);
	assert_non_null(g);
	assert_true(fabs(history_tokens_per_joule(h, g, FB_WALL, PUE_WINDOW) -
	    800.0 / 3000) < 1e-12);
	/* another set of covered nodes: no window over the two sets */
	g->cov[FB_WALL].sig++;
	assert_true(isnan(history_tokens_per_joule(h, g, FB_WALL,
	    PUE_WINDOW)));
	fleet_free(f);
	fleet_free(g);
	history_free(h);
}

/* Two PDU targets, "pdu-a" (a databus unit 2 behind it) and "pdu-a-b",
 * a name that begins with the other's. */
struct pdu_views {
	struct wp_sample s[2][12];
	struct ingest_ctr k[2][12];
	size_t n[2];
};

static void
pdu_put(struct pdu_views *v, int t, const char *series, int b, int q,
    int kind, double x)
{
	size_t i = v->n[t]++;

	sample_init(&v->s[t][i], series, b, q, kind);
	v->s[t][i].value = x;
	v->k[t][i] = (struct ingest_ctr){ .valid = kind == WP_COUNTER,
	    .cum = x * 3600 };
}

static int
each_pdu(const void *src, int (*fn)(const struct target_view *, void *),
    void *arg)
{
	static const char *const name[2] = { "pdu-a", "pdu-a-b" };
	const struct pdu_views *v = src;
	int t;

	for (t = 0; t < 2; t++) {
		struct target_view tv = { .name = name[t], .driver = "snmp_pdu",
		    .up = true, .polls = 1, .last = v->s[t], .n_last = v->n[t],
		    .ctr = v->k[t] };

		if (fn(&tv, arg) != 0)
			return 1;
	}
	return 0;
}

/* A snapshot holds the PDU readings only when asked; a unit's readings
 * are named "<pdu>-u<unit>"; a PDU's page lists its own readings, not
 * those of a PDU whose name begins with its name. */
static void
test_fleet_pdu_readings(void **st)
{
	struct wp_pdu pdus[2] = { { .name = "pdu-a" }, { .name = "pdu-a-b" } };
	struct pdu_views v;
	struct wp_conf c;
	struct fleet *f;
	static const struct {
		int		 t;
		const char	*series;
		int		 b, q, kind;
		double		 x;
	} rd[] = {
		{ 0, "outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE, 110 },
		{ 0, "u2/outlet/3/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    230 },
		{ 0, "u2/inlet/1/energy", WP_B_PDU, WP_Q_ENERGY, WP_COUNTER, 5 },
		{ 0, "u0/phase/1/power", WP_B_PDU, WP_Q_POWER, WP_GAUGE, 40 },
		{ 0, "u4294967295/outlet/5/power", WP_B_OUTLET, WP_Q_POWER,
		    WP_GAUGE, 50 },
		/* left out: a unit not as the driver writes it (%u of a
		 * uint32_t), an index longer than any int, a role not known */
		{ 0, "u07/outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    1 },
		{ 0, "u4294967296/outlet/1/power", WP_B_OUTLET, WP_Q_POWER,
		    WP_GAUGE, 1 },
		{ 0, "u/outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE, 1 },
		{ 0, "u12", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE, 1 },
		{ 0, "circuit/123456789012/power", WP_B_PDU, WP_Q_POWER,
		    WP_GAUGE, 1 },
		{ 0, "bank/1/power", WP_B_PDU, WP_Q_POWER, WP_GAUGE, 1 },
		{ 1, "outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE, 777 },
	};
	static const char *const want[] = {
		"wattpath_pdu_power_watts{pdu=\"pdu-a\",role=\"outlet\","
		    "index=\"1\"} 110\n",
		"wattpath_pdu_power_watts{pdu=\"pdu-a-u2\",role=\"outlet\","
		    "index=\"3\"} 230\n",
		"wattpath_pdu_energy_joules_total{pdu=\"pdu-a-u2\",role="
		    "\"inlet\",index=\"1\"} 18000\n",
		"wattpath_pdu_power_watts{pdu=\"pdu-a-u0\",role=\"phase\","
		    "index=\"1\"} 40\n",
		"wattpath_pdu_power_watts{pdu=\"pdu-a-u4294967295\",role="
		    "\"outlet\",index=\"5\"} 50\n",
		"wattpath_pdu_power_watts{pdu=\"pdu-a-b\",role=\"outlet\","
		    "index=\"1\"} 777\n",
	};
	char *s = NULL, *m, tiny[9];
	size_t i, len = 0;
	FILE *o;

	(void)st;
	memset(&c, 0, sizeof(c));
	memset(&v, 0, sizeof(v));
	c.pdus = pdus;
	c.n_pdus = 2;
	for (i = 0; i < sizeof(rd) / sizeof(rd[0]); i++)
		pdu_put(&v, rd[i].t, rd[i].series, rd[i].b, rd[i].q,
		    rd[i].kind, rd[i].x);

	f = fleet_build(&c, each_pdu, &v, 1000 * WP_SEC, 0);
	assert_non_null(f);
	assert_int_equal(f->n_pdu, 0);
	fleet_free(f);

	f = fleet_build(&c, each_pdu, &v, 1000 * WP_SEC, FLEET_PDU_READINGS);
	assert_non_null(f);
	assert_int_equal(f->n_pdu, 6);
	m = render(f, NAN, NULL, NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (strstr(m, want[i]) == NULL)
			fail_msg("not in /metrics: %s", want[i]);
	assert_null(strstr(m, "u07"));
	assert_null(strstr(m, "u4294967296"));
	assert_null(strstr(m, "123456789012"));
	free(m);
	/* a name too long for the room is cut, the unit kept */
	assert_true(f->pdu[1].has_unit && f->pdu[1].unit == 2);
	f->pdu[1].unit = 12;
	assert_string_equal(fleet_pdu_name(&f->pdu[1], tiny, sizeof(tiny)),
	    "pdu--u12");
	assert_string_equal(fleet_pdu_name(&f->pdu[0], tiny, sizeof(tiny)),
	    "pdu-a");
	f->pdu[1].unit = 2;

	assert_non_null(o = open_memstream(&s, &len));
	assert_int_equal(dash_page_write(o, "/pdu/pdu-a", f, NULL), 0);
	fclose(o);
	assert_non_null(strstr(s, "<td>pdu-a-u2</td>"));
	assert_non_null(strstr(s, "data-power=\"110.000\""));
	assert_null(strstr(s, "data-power=\"777.000\""));
	free(s);
	fleet_free(f);
}

static void
test_svg_fmt(void **st)
{
	char b[40];

	(void)st;
	svg_fmt(b, sizeof(b), 88270, SVG_U_WATTS, 0);
	assert_string_equal(b, "88.3 kW");
	svg_fmt(b, sizeof(b), 1.5e6, SVG_U_WATTS, 0);
	assert_string_equal(b, "1.50 MW");
	svg_fmt(b, sizeof(b), 950, SVG_U_WATTS, 0);
	assert_string_equal(b, "950 W");
	svg_fmt(b, sizeof(b), 0, SVG_U_WATTS, 0);
	assert_string_equal(b, "0 W");
	svg_fmt(b, sizeof(b), 0.001234, SVG_U_NUM, 0);
	assert_string_equal(b, "0.00123");
	svg_fmt(b, sizeof(b), 123456789, SVG_U_NUM, 0);
	assert_string_equal(b, "123456789");
	svg_fmt(b, sizeof(b), 1796197200, SVG_U_TIME, 3600);
	assert_string_equal(b, "07:40");
	svg_fmt(b, sizeof(b), 1796197200, SVG_U_TIME, 300);
	assert_string_equal(b, "07:40:00");
	svg_fmt(b, sizeof(b), 1796197200, SVG_U_TIME, 7 * 86400);
	assert_string_equal(b, "Dec 02 07:40");
	svg_fmt(b, sizeof(b), NAN, SVG_U_WATTS, 0);
	assert_string_equal(b, "-");
}

static void
test_rrdgrid(void **st)
{
	struct rrdgrid g;
	struct wp_err err;
	wp_time to = 1796197230 * WP_SEC;

	(void)st;
	assert_int_equal(rrdgrid_make(to - 3600 * WP_SEC, to, 0, &g, &err), 0);
	assert_int_equal(g.step, 12 * WP_SEC);
	/* points end on the step's grid, the last at or before to */
	assert_int_equal(g.t0 % g.step, 0);
	assert_true(g.t0 + (wp_time)(g.n - 1) * g.step <= to);
	assert_true(g.t0 + (wp_time)g.n * g.step > to);
	assert_true(g.t0 - g.step <= to - 3600 * WP_SEC);
	assert_int_equal(rrdgrid_make(to - 3600 * WP_SEC, to, 60 * WP_SEC, &g,
	    &err), 0);
	assert_int_equal(g.n, 60);
	assert_int_equal(rrdgrid_make(to, to, 0, &g, &err), -1);
	assert_int_equal(rrdgrid_make(to - 86400 * WP_SEC, to, WP_SEC, &g,
	    &err), -1);
	assert_non_null(strstr(err.msg, "over 2000"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_plain_decimal),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_rack_capacity),
		cmocka_unit_test(test_fmt_fast_exact),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_out_mem),
		cmocka_unit_test(test_dashboard),
		cmocka_unit_test(test_url_unescape),
		cmocka_unit_test(test_fleet_cover),
		cmocka_unit_test(test_fleet_pdu_readings),
		cmocka_unit_test(test_svg_fmt),
		cmocka_unit_test(test_rrdgrid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
