/*
 * Unit tests: journal summaries (collector/jsum.c) and the report's
 * summary path.  A 14-hour journal of three nodes and two meters, with a
 * reset, a step refused as implausible, a counter wrap, held readings, short gaps and a refusing gap
 * inside interior segments, is reported over a long window twice: with
 * summaries (interior segments from NAME.wps) and without (every record
 * read); the two documents must agree to floating-point tolerance,
 * refusals included.  Also: verify checks summaries against their
 * segments (an edited summary fails, a deleted one is tolerated), and a
 * span is added by the integrator exactly as its readings would be.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "../../collector/conf/conf.h"
#include "../../collector/store/journal.h"
#include "../../collector/store/jseg.h"
#include "../../collector/store/jspill.h"
#include "../../collector/store/jsum.h"
#include "../../collector/store/ledger.h"
#include "../../collector/report/report_api.h"
#include "../../model/counter.h"
#include "../../model/integrate.h"

#define T0	(1795939200LL * WP_SEC)	/* 2026-11-29T08:00:00Z */
#define S	WP_SEC
#define STEP	(10 * S)
#define HOURS	14
#define NODES	3

#define FNV_SEED	14695981039346656037ULL
static uint64_t fnv64(const uint8_t *p, size_t n);
static uint64_t fnv64_add(uint64_t h, const uint8_t *p, size_t n);

struct fx {
	bool	 ledger;	/* the journal writes the ledger too */
	char	 dir[64], jdir[128], cfg[160], ldir[128];
	double	 wall[NODES], gpu[NODES][2], tok[NODES], fac, it;
};

static void
val(struct journal_value *v, const char *series, int b, int q, int kind,
    double x, double cum, uint32_t cf)
{
	memset(v, 0, sizeof(*v));
	sample_init(&v->s, series, b, q, kind);
	v->s.value = x;
	v->cum = cum;
	v->s.resolution = kind == WP_COUNTER ? 0.001 : 0;
	v->ctr_flags = cf;
}

static void
put(struct journal *j, wp_time t, const char *target, struct journal_value *v,
    size_t n, int status)
{
	struct journal_record r = { .t_real = t, .t_mono = t, .target = target,
	    .error = status ? "timeout" : "", .status = status,
	    .n = status ? 0 : n, .v = v };
	struct wp_err err = { 0 };

	assert_int_equal(journal_append(j, &r, &err), 0);
}

/* One poll of node n at t (p: poll index); the anomalies are placed in
 * interior hours. */
static void
poll_node(struct fx *f, struct journal *j, int n, long p, wp_time t)
{
	struct journal_value v[4];
	double load = 0.3 + 0.6 * ((n * 7 + p) % 10) / 10.0, wv;
	uint32_t cf = p == 0 ? CTR_DISCONT : 0;
	char tg[32], nm[32];
	int i;

	/* n1: a counter reset at 06:00:30; n2: a wrap at 07:10 (cum goes
	 * on); n0: held readings 08:20..08:21; n2's BMC misses 09:30..09:31 */
	if (n == 1 && p == 6 * 360 + 3)
		cf |= CTR_RESET;
	if (n == 2 && p == 7 * 360 + 60)
		cf |= CTR_WRAPPED;
	if (n == 0 && p >= 8 * 360 + 120 && p < 8 * 360 + 126)
		cf |= CTR_HELD;
	wv = f->wall[n];
	val(&v[0], "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER,
	    n == 2 && p >= 7 * 360 + 60 ? wv - 4e9 : wv, wv, cf);
	sample_add_label(&v[0].s, "vendor", "Contoso");
	val(&v[1], "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE,
	    1500 + 2400 * load, 0, 0);
	snprintf(tg, sizeof(tg), "n%d/bmc", n);
	if (!(n == 2 && p >= 9 * 360 + 180 && p < 9 * 360 + 186))
		put(j, t, tg, v, 2, 0);
	else
		put(j, t, tg, v, 0, 2);
	for (i = 0; i < 2; i++) {
		snprintf(nm, sizeof(nm), "gpu/%d/energy", i);
		/* n0's GPU 1: a step refused as implausible at 10:00:30 */
		val(&v[2 * i], nm, WP_B_GPU, WP_Q_ENERGY, WP_COUNTER,
		    f->gpu[n][i], f->gpu[n][i], p == 0 ? CTR_DISCONT :
		    n == 0 && i == 1 && p == 10 * 360 + 3 ? CTR_IMPLAUSIBLE :
		    0);
		snprintf(nm, sizeof(nm), "gpu/%d/power_limit", i);
		val(&v[2 * i + 1], nm, WP_B_NONE, WP_Q_OTHER, WP_GAUGE, 700, 0,
		    0);
		f->gpu[n][i] += 700 * load * 10;
	}
	snprintf(tg, sizeof(tg), "n%d/gpu", n);
	/* n0's GPUs: a 20 s gap (allowed) at 04:10 */
	if (!(n == 0 && p == 4 * 360 + 60))
		put(j, t + 3 * WP_MS, tg, v, 4, 0);
	val(&v[0], "tokens/output", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    f->tok[n], f->tok[n], cf & CTR_DISCONT);
	val(&v[1], "tokens/input", WP_B_NONE, WP_Q_TOKENS, WP_COUNTER,
	    3 * f->tok[n], 3 * f->tok[n], cf & CTR_DISCONT);
	snprintf(tg, sizeof(tg), "n%d/engine0", n);
	put(j, t + 5 * WP_MS, tg, v, 2, 0);
	f->wall[n] += (1500 + 2400 * load) * 10;
	f->tok[n] += 10000 * load * 10;
}

static void
make_journal(struct fx *f)
{
	struct journal_opts jo = { .fsync = JOURNAL_FSYNC_NONE,
	    .retention = 400 * 86400 * WP_SEC };
	struct journal_value v[1];
	struct wp_err err = { 0 };
	struct journal *j;
	FILE *c;
	long p;
	int n;

	snprintf(f->dir, sizeof(f->dir), "/tmp/wp-test-jsum.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->jdir, sizeof(f->jdir), "%s/journal", f->dir);
	snprintf(f->cfg, sizeof(f->cfg), "%s/wattpath.yaml", f->dir);
	snprintf(f->ldir, sizeof(f->ldir), "%s/ledger", f->dir);
	if (f->ledger)
		jo.ledger_dir = f->ldir;
	assert_non_null(j = journal_open(f->jdir, &jo, &err));
	for (p = 0; p < HOURS * 360; p++) {
		wp_time t = T0 + p * STEP;

		for (n = 0; n < NODES; n++)
			poll_node(f, j, n, p, t);
		val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
		    f->fac, f->fac, p == 0 ? CTR_DISCONT : 0);
		put(j, t, "incomer", v, 1, 0);
		val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
		    f->it, f->it, p == 0 ? CTR_DISCONT : 0);
		put(j, t, "ups", v, 1, 0);
		f->fac += 1.3 * 3000.0 * NODES * 10;
		f->it += 3000.0 * NODES * 10;
	}
	journal_close(j);
	assert_non_null(c = fopen(f->cfg, "w"));
	fprintf(c, "collector: {interval: 10s, data_dir: %s}\nnodes:\n",
	    f->dir);
	for (n = 0; n < NODES; n++)
		fprintf(c, "  - name: n%d\n    class: h100-2\n"
		    "    bmc: {url: https://10.0.%d.1, auth: none}\n"
		    "    gpu: {dcgm_exporter: http://10.0.%d.2:9400/metrics}\n"
		    "    engines: [{url: http://10.0.%d.2:8000/metrics, kind: "
		    "vllm}]\n", n, n, n, n);
	fprintf(c, "meters:\n  - {name: incomer, role: facility_total, "
	    "modbus: {tcp: 127.0.0.1:502, unit: 1}, map: eastron-sdm630}\n"
	    "  - {name: ups, role: it_total, modbus: {tcp: 127.0.0.1:502, "
	    "unit: 2}, map: eastron-sdm630}\nsite: {name: t, zone: FR}\n");
	if (f->ledger)	/* curve bins of whole ledger slots */
		fprintf(c, "report: {curve_step: 1h}\n");
	assert_int_equal(fclose(c), 0);
}

static void
rm_fx(struct fx *f)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
}

/* Whether strings a and b are the same warning: exactly, or (loose:
 * a window refused from the ledger knows the reason, not its time) the
 * same text up to the refusal's reason. */
static bool
same_text(const char *a, const char *b, bool loose)
{
	const char *ea = strstr(a, "): "), *eb = strstr(b, "): ");

	if (strcmp(a, b) == 0)
		return true;
	return loose && ea != NULL && eb != NULL && ea - a == eb - b &&
	    strncmp(a, b, (size_t)(ea - a)) == 0 &&
	    strstr(a, "window refused (") != NULL;
}

/* Compares two documents: numbers to 1e-9 relative, the rest exactly
 * (loose: refusal texts by their reason); disclosure.journal (which path
 * was taken) is skipped. */
static void
same(json_object *a, json_object *b, const char *path, bool loose)
{
	enum json_type ta = json_object_get_type(a);
	enum json_type tb = json_object_get_type(b);
	char sub[512];

	if ((ta == json_type_double || ta == json_type_int) &&
	    (tb == json_type_double || tb == json_type_int)) {
		double x = json_object_get_double(a);
		double y = json_object_get_double(b);

		if (!(x == y || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)) ||
		    (isnan(x) && isnan(y))))
			fail_msg("%s: %.17g != %.17g", path, x, y);
		return;
	}
	if (ta != tb)
		fail_msg("%s: types differ", path);
	if (ta == json_type_object) {
		json_object_object_foreach(a, k, va) {
			json_object *vb;

			if (strcmp(k, "journal") == 0)
				continue;
			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if (!json_object_object_get_ex(b, k, &vb))
				fail_msg("%s: missing", sub);
			same(va, vb, sub, loose);
		}
		assert_int_equal(json_object_object_length(a),
		    json_object_object_length(b));
	} else if (ta == json_type_array) {
		size_t i, n = json_object_array_length(a);

		assert_int_equal(n, json_object_array_length(b));
		for (i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			same(json_object_array_get_idx(a, i),
			    json_object_array_get_idx(b, i), sub, loose);
		}
	} else if (ta == json_type_string) {
		if (!same_text(json_object_get_string(a),
		    json_object_get_string(b), loose))
			fail_msg("%s: \"%s\" != \"%s\"", path,
			    json_object_get_string(a),
			    json_object_get_string(b));
	} else if (ta == json_type_boolean)
		assert_int_equal(json_object_get_boolean(a),
		    json_object_get_boolean(b));
}

static int64_t
jint(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *x, *y, *z;

	assert_true(json_object_object_get_ex(o, a, &x));
	assert_true(json_object_object_get_ex(x, b, &y));
	assert_true(json_object_object_get_ex(y, c, &z));
	return json_object_get_int64(z);
}

static json_object *
report(const struct wp_conf *c, wp_time from, wp_time to, bool summaries)
{
	struct wp_err err = { 0 };
	json_object *o;

	if (summaries)
		unsetenv("WATTPATH_NO_SUMMARIES");
	else
		setenv("WATTPATH_NO_SUMMARIES", "1", 1);
	o = report_json(c, from, to, &err);
	unsetenv("WATTPATH_NO_SUMMARIES");
	if (o == NULL)
		fail_msg("report: %s", err.msg);
	return o;
}

static void
compare_window(const struct wp_conf *c, wp_time from, wp_time to,
    int64_t min_used)
{
	json_object *a = report(c, from, to, true);
	json_object *b = report(c, from, to, false);

	int64_t used = jint(a, "disclosure", "journal", "summaries_used");

	if (used < min_used)
		fail_msg("%lld summaries used, expected at least %lld",
		    (long long)used, (long long)min_used);
	assert_int_equal(jint(b, "disclosure", "journal", "summaries_used"),
	    0);
	same(a, b, "$", false);
	json_object_put(a);
	json_object_put(b);
}

static void
test_report_summaries_equal_full_scan(void **st)
{
	struct fx f = { 0 };
	struct conf_errs errs = { 0 };
	struct wp_conf *c;

	(void)st;
	make_journal(&f);
	assert_non_null(c = conf_load(f.cfg, NULL, &errs));
	/* the long window: edges mid-hour, anomalies inside */
	compare_window(c, T0 + 1234 * S, T0 + 13 * 3600 * S + 77 * S, 8);
	/* a window whose edges fall on segment boundaries */
	compare_window(c, T0 + 3600 * S, T0 + 12 * 3600 * S, 8);
	/* a window after the reset and wrap, 6 h 3 min */
	compare_window(c, T0 + 7 * 3600 * S + 1800 * S, T0 + 13 * 3600 * S +
	    2000 * S, 4);
	/* under 6 h the default curve step is 60 s: every segment is read */
	compare_window(c, T0 + 9 * 3600 * S + 3000 * S, T0 + 13 * 3600 * S,
	    0);
	conf_free(c);
	rm_fx(&f);
}

/* The raw segments of hours first..last (and their summaries) expire:
 * deleted, as the writer's expiry deletes them. */
static void
expire_hours(const struct fx *f, int first, int last)
{
	char path[256];
	int h;

	for (h = first; h <= last; h++) {
		snprintf(path, sizeof(path), "%s/20261129T%02d.wpj", f->jdir,
		    8 + h);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/20261129T%02d.wps", f->jdir,
		    8 + h);
		assert_int_equal(unlink(path), 0);
	}
}

/* The hours of the blocks a scan hands on (scb and fcb). */
struct hours_seen {
	int	 hour[HOURS];
	int	 n;
};

static int
note_hour(const struct jsum *sm, void *arg)
{
	struct hours_seen *h = arg;

	if (h->n < HOURS)
		h->hour[h->n++] = (int)((sm->seg_start - T0) / (3600 * S));
	return 0;	/* not taken: the scan goes on to fcb or the raw */
}

static int
take_forced(const struct jsum *sm, void *arg)
{
	return note_hour(sm, arg), 1;
}

static int
no_record(const struct journal_record *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

/*
 * Edited ledger blocks whose raw segments have expired never reach a
 * report, whether read first (synchronously) or ahead on the reader's
 * thread: each is checked against its LEDGER line and left out (logged),
 * and the blocks around them are still handed on.
 */
static void
test_scan_refuses_edited_blocks(void **st)
{
	static const int edited[] = { 1, 3, 4 };	/* 1: the first read */
	struct fx f = { .ledger = true };
	struct hours_seen seen = { { 0 }, 0 };
	struct wp_err err = { 0 };
	char path[256];
	size_t i;
	FILE *fp;
	int k;

	(void)st;
	make_journal(&f);
	expire_hours(&f, 1, 12);
	for (i = 0; i < sizeof(edited) / sizeof(edited[0]); i++) {
		snprintf(path, sizeof(path), "%s/20261129T%02d.wpl", f.ldir,
		    8 + edited[i]);
		assert_non_null(fp = fopen(path, "r+b"));
		assert_int_equal(fseek(fp, 300, SEEK_SET), 0);
		assert_int_not_equal(fputc(0x5a, fp), EOF);
		assert_int_equal(fclose(fp), 0);
	}
	assert_int_equal(journal_scan_ledger(f.jdir, f.ldir, true,
	    T0 + 3600 * S, T0 + 13 * 3600 * S, no_record, note_hour,
	    take_forced, &seen, NULL, &err), 0);
	assert_true(seen.n >= 6);
	for (k = 0; k < seen.n; k++)
		for (i = 0; i < sizeof(edited) / sizeof(edited[0]); i++)
			if (seen.hour[k] == edited[i])
				fail_msg("edited block of hour %d handed on",
				    edited[i]);
	rm_fx(&f);
}

/*
 * The ledger: a report over whole hours from its blocks alone (the raw
 * segments expired), with the reset, the wrap, the held readings, the
 * failed polls and the gaps inside, equals the raw-only report (refusals
 * by their reason); windows whose edges lie in expired hours snap and
 * say so.
 */
static void
test_report_ledger_after_expiry(void **st)
{
	struct fx f = { .ledger = true };
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	json_object *raw[2], *led;
	const wp_time w[2][2] = {
		{ T0 + 3600 * S, T0 + 12 * 3600 * S },
		{ T0 + 2 * 3600 * S, T0 + 13 * 3600 * S } };
	int k;

	(void)st;
	make_journal(&f);
	assert_non_null(c = conf_load(f.cfg, NULL, &errs));
	for (k = 0; k < 2; k++)
		raw[k] = report(c, w[k][0], w[k][1], false);
	expire_hours(&f, 1, 12);
	for (k = 0; k < 2; k++) {
		led = report(c, w[k][0], w[k][1], true);
		/* the hours with the anomalies cannot be taken whole */
		if (jint(led, "disclosure", "journal", "ledger_blocks_used") <
		    6)
			fail_msg("window %d: too few ledger blocks", k);
		assert_true(jint(led, "disclosure", "journal",
		    "segments_read") <= 2);
		same(raw[k], led, "$", true);
		json_object_put(raw[k]);
		json_object_put(led);
	}
	/* an edge inside an expired hour snaps, and the report says so */
	led = report(c, T0 + 3600 * S + 1800 * S, T0 + 12 * 3600 * S, true);
	assert_non_null(strstr(json_object_to_json_string(led),
	    "the edge snaps to the ledger slot"));
	json_object_put(led);
	conf_free(c);
	rm_fx(&f);
}

static void
test_verify_checks_summaries(void **st)
{
	struct fx f = { 0 };
	struct journal_verify_stats vs;
	struct wp_err err = { 0 };
	char path[256];
	FILE *fp;
	long sz;

	(void)st;
	make_journal(&f);
	assert_int_equal(journal_verify(f.jdir, &vs, &err), 0);
	assert_int_equal(vs.summaries, HOURS - 1);
	/* an edited summary (a value changed, trailer recomputed or not)
	 * is caught; a deleted one is tolerated */
	snprintf(path, sizeof(path), "%s/20261129T13.wps", f.jdir);
	assert_non_null(fp = fopen(path, "r+b"));
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	sz = ftell(fp);
	assert_int_equal(fseek(fp, sz / 2, SEEK_SET), 0);
	fputc(0x5a, fp);
	fclose(fp);
	assert_int_equal(journal_verify(f.jdir, &vs, &err), -1);
	assert_non_null(strstr(err.msg, "summary"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(journal_verify(f.jdir, &vs, &err), 0);
	assert_int_equal(vs.summaries, HOURS - 2);
	/* a truncated summary is malformed */
	snprintf(path, sizeof(path), "%s/20261129T14.wps", f.jdir);
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(journal_verify(f.jdir, &vs, &err), -1);
	rm_fx(&f);
}

/*
 * A summary written before version 2 (no JSUM_F_IMPLAUSIBLE) still
 * verifies against its segment: it is rebuilt as the version it was
 * written in.  The hour with the implausible step, rewritten as version 1.
 */
static void
test_verify_version1_summary(void **st)
{
	struct fx f = { 0 };
	struct journal_verify_stats vs;
	struct wp_err err = { 0 };
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t *file, *body, h[JSUM_HASH_LEN];
	size_t flen, blen;
	struct jsum *js;
	char path[256];
	FILE *fp;

	(void)st;
	make_journal(&f);
	snprintf(path, sizeof(path), "%s/20261129T18.wps", f.jdir);
	assert_int_equal(jsum_slurp(path, &file, &flen, &err), 0);
	assert_non_null(js = jsum_decode(file, flen - JSUM_HASH_LEN, &err));
	assert_int_equal(js->version, JSUM_VERSION);
	js->version = 1;
	assert_int_equal(jsum_encode(js, js->fin, js->count, &body, &blen), 0);
	assert_int_equal(body[4], 1);
	assert_non_null(md);
	assert_int_equal(jseg_chain_hash(md, js->fin, body, blen, h), 0);
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(body, 1, blen, fp), blen);
	assert_int_equal(fwrite(h, 1, sizeof(h), fp), sizeof(h));
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(journal_verify(f.jdir, &vs, &err), 0);
	assert_int_equal(vs.summaries, HOURS - 1);
	EVP_MD_CTX_free(md);
	jsum_free(js);
	free(body);
	free(file);
	rm_fx(&f);
}

static void
test_scan_skips_bad_summary(void **st)
{
	struct fx f = { 0 };
	struct conf_errs errs = { 0 };
	struct wp_conf *c;
	char path[256];
	FILE *fp;

	(void)st;
	make_journal(&f);
	/* garbage in a summary: the report reads that segment instead */
	snprintf(path, sizeof(path), "%s/20261129T11.wps", f.jdir);
	assert_non_null(fp = fopen(path, "wb"));
	fputs("not a summary", fp);
	fclose(fp);
	assert_non_null(c = conf_load(f.cfg, NULL, &errs));
	compare_window(c, T0 + 1234 * S, T0 + 13 * 3600 * S + 77 * S, 7);
	conf_free(c);
	rm_fx(&f);
}

/* integ_add_span gives what the readings give; straddling spans don't fit */
static void
test_integ_span_exact(void **st)
{
	struct integ_opts o = { .from = 100 * S, .to = 1000 * S, .interval =
	    10 * S, .kind = WP_GAUGE, .bin_len = { 300 * S, 0 } };
	struct integ a, b;
	struct integ_result ra, rb;
	struct integ_span sp = { 0 };
	wp_time t;
	double x;
	size_t i;

	(void)st;
	assert_int_equal(integ_init(&a, &o, NULL), 0);
	assert_int_equal(integ_init(&b, &o, NULL), 0);
	for (t = 0; t <= 1100 * S; t += 10 * S) {
		x = 100 + (double)(t / S % 70);
		integ_add(&a, t, x, 0);
		if (t < 300 * S || t >= 600 * S) {
			integ_add(&b, t, x, 0);
			continue;
		}
		if (sp.n == 0) {
			sp.t0 = t;
			sp.v0 = x;
		} else {
			sp.energy += (sp.v1 + x) / 2 * (double)(t - sp.t1) /
			    (double)S;
			sp.max_gap = t - sp.t1 > sp.max_gap ? t - sp.t1 :
			    sp.max_gap;
		}
		sp.t1 = t;
		sp.v1 = x;
		sp.n++;
		if (t == 590 * S)
			assert_int_equal(integ_add_span(&b, &sp), 0);
	}
	assert_int_equal(integ_finish(&a, &ra, NULL), 0);
	assert_int_equal(integ_finish(&b, &rb, NULL), 0);
	assert_true(fabs(ra.energy - rb.energy) < 1e-9 * ra.energy);
	assert_int_equal(ra.points, rb.points);
	assert_int_equal(ra.max_gap, rb.max_gap);
	for (i = 0; i < a.bins[0].n; i++)
		assert_true(fabs(a.bins[0].e[i] - b.bins[0].e[i]) < 1e-6);
	/* a span across the window start, or across a bin, does not fit */
	sp.t0 = 50 * S;
	sp.t1 = 150 * S;
	integ_fini(&b);
	assert_int_equal(integ_init(&b, &o, NULL), 0);
	assert_false(integ_span_fits(&b, &sp));
	sp.t0 = 250 * S;
	sp.t1 = 350 * S;
	assert_false(integ_span_fits(&b, &sp));
	sp.t1 = 300 * S;
	assert_true(integ_span_fits(&b, &sp));
	sp.refuse = true;
	assert_false(integ_span_fits(&b, &sp));
	integ_fini(&a);
	integ_fini(&b);
}

/* A PDU's series, whose labels share a long tail (kept as heads in the
 * writer's pool), come out of encode and decode with their whole names
 * and labels, each series once per target. */
static void
test_pooled_names_roundtrip(void **st)
{
	static const char *const tg[] = { "pdu-r1-a", "pdu-r1-b" };
	struct journal_value v[97];
	struct journal_record r;
	struct wp_err err = { 0 };
	struct jsum *js, *back;
	uint8_t fin[JSUM_HASH_LEN] = { 1 }, *body;
	size_t blen, i;
	int p, k, g;
	char want[WP_LABEL_MAX];

	(void)st;
	assert_non_null(js = jsum_new(T0, 3600 * S, 0, NULL));
	for (p = 0; p < 3; p++)
		for (g = 0; g < 2; g++) {
			for (k = 0; k < 97; k++) {
				char series[32];

				snprintf(series, sizeof(series), "outlet/%d/%s",
				    k / 2 + 1, k % 2 ? "energy" : "power");
				val(&v[k], series, WP_B_OUTLET, k % 2 ?
				    WP_Q_ENERGY : WP_Q_POWER, k % 2 ?
				    WP_COUNTER : WP_GAUGE, 100 + p, 1e6 + p, 0);
				snprintf(v[k].s.labels, WP_LABEL_MAX,
				    "name=Outlet %d;index=1.%d;unit=1;profile="
				    "raritan-pdu2;vendor=Raritan;sysdescr=%s",
				    k / 2 + 1, k / 2 + 1, tg[g]);
			}
			r = (struct journal_record){ .t_real = T0 + p * STEP,
			    .t_mono = T0 + p * STEP, .target = tg[g],
			    .error = "", .n = 97, .v = v };
			assert_int_equal(jsum_add(js, &r), 0);
		}
	assert_int_equal(js->ns, 2 * 97);
	assert_int_equal(jsum_encode(js, fin, 6, &body, &blen), 0);
	assert_non_null(back = jsum_decode(body, blen, &err));
	assert_int_equal(back->ns, 2 * 97);
	for (i = 0; i < back->ns; i++) {
		const struct jsum_series *se = &back->s[i];
		char series[32], sb[WP_SERIES_MAX], lb[WP_LABEL_MAX];
		const char *sp, *lp;

		k = (int)(i % 97);
		snprintf(series, sizeof(series), "outlet/%d/%s", k / 2 + 1,
		    k % 2 ? "energy" : "power");
		snprintf(want, sizeof(want), "name=Outlet %d;index=1.%d;"
		    "unit=1;profile=raritan-pdu2;vendor=Raritan;sysdescr=%s",
		    k / 2 + 1, k / 2 + 1, tg[i / 97]);
		assert_string_equal(se->series, series);
		assert_string_equal(se->labels, want);
		assert_int_equal(se->n, 1);
		assert_int_equal(se->span[0].n, 3);
		assert_true(js->s[i].pooled);	/* the writer's: in its pool */
		jsum_series_text(js, &js->s[i], sb, lb, &sp, &lp);
		assert_string_equal(sp, series);
		assert_string_equal(lp, want);
	}
	/* the writer's pool: the heads, not 194 whole labels */
	assert_true(js->pool.len < 194 * 40);
	free(body);
	jsum_free(back);
	jsum_free(js);
}

/* a and b encode (final hash fin, count records) to the same bytes. */
static void
encode_same(struct jsum *a, struct jsum *b, const uint8_t *fin,
    uint64_t count)
{
	uint8_t *ba, *bb;
	size_t la, lb;

	assert_int_equal(jsum_encode(a, fin, count, &ba, &la), 0);
	assert_int_equal(jsum_encode(b, fin, count, &bb, &lb), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(ba, bb, la);
	free(ba);
	free(bb);
}

/*
 * Records carrying their strings (a sertext, as the collector gives the
 * journal) build a summary that encodes byte for byte as one built from
 * the same records without: its series hold the texts instead of pooling
 * the strings, until a target's series hold JSUM_TEXTS_MAX (8) texts;
 * then its new series go to the pool.  Freed, it gives the texts back.
 */
static void
test_texted_names(void **st)
{
	struct journal_value v[6];
	struct journal_record r;
	struct sertext *text[12] = { NULL };
	struct jsum *a, *b;
	uint8_t fin[JSUM_HASH_LEN] = { 1 };
	size_t i;
	int p, k, texted = 0, pooled = 0;

	(void)st;
	assert_non_null(a = jsum_new(T0, 3600 * S, 0, NULL));
	assert_non_null(b = jsum_new(T0, 3600 * S, 0, NULL));
	for (p = 0; p < 12; p++) {	/* each poll a new pair of series */
		for (k = 0; k < 6; k++) {
			char series[32];

			snprintf(series, sizeof(series), "outlet/%d/%s",
			    k < 4 ? k / 2 : p + 2, k % 2 ? "energy" : "power");
			val(&v[k], series, WP_B_OUTLET, k % 2 ? WP_Q_ENERGY :
			    WP_Q_POWER, k % 2 ? WP_COUNTER : WP_GAUGE, 100 + p,
			    1e6 + p, 0);
			snprintf(v[k].s.labels, WP_LABEL_MAX, "name=Outlet %d;"
			    "vendor=Raritan", k / 2);
		}
		r = (struct journal_record){ .t_real = T0 + p * STEP,
		    .t_mono = T0 + p * STEP, .target = "pdu-1", .error = "",
		    .n = 6, .v = v };
		assert_int_equal(jsum_add(a, &r), 0);
		assert_non_null(text[p] = sertext_new(&v[0].s, 6,
		    sizeof(v[0])));
		r.text = text[p];
		assert_int_equal(jsum_add(b, &r), 0);
	}
	assert_int_equal(b->ns, 4 + 2 * 12);
	for (i = 0; i < b->ns; i++) {
		texted += b->s[i].texted;
		pooled += b->s[i].pooled && !b->s[i].texted;
	}
	/* poll 0's 6 series and polls 1-7's 2 each in texts, the rest
	 * (polls 8-11) pooled */
	assert_int_equal(texted, 6 + 2 * 7);
	assert_int_equal(pooled, 2 * 4);
	assert_int_equal(text[0]->refs, 1 + 6);
	assert_int_equal(text[7]->refs, 1 + 2);
	assert_int_equal(text[8]->refs, 1);
	encode_same(a, b, fin, 24);
	jsum_free(a);
	jsum_free(b);
	for (p = 0; p < 12; p++) {
		assert_int_equal(text[p]->refs, 1);
		sertext_drop(text[p]);
	}
}

/* js (a writer's, before its first reading) keeps its closed spans in a
 * spill, as the journal's does. */
static void
spill_on(struct jsum *js)
{
	int fd = jspill_tmpfile("/tmp");

	assert_true(fd >= 0);
	assert_int_equal(jsum_spill(js, fd), 0);
	assert_non_null(js->spill);
}

/* tw, a summary with a twin, encodes as a (a summary of its slot alone)
 * and, its twin swapped in, as b (of the twin's slot alone), byte for
 * byte, swapped and back; all three freed. */
static void
twin_encodes_as(struct jsum *tw, struct jsum *a, struct jsum *b,
    uint64_t count)
{
	uint8_t fin[JSUM_HASH_LEN] = { 7 }, *want[2], *e;
	size_t len[2], elen;
	int k;

	assert_int_equal(jsum_encode(a, fin, count, &want[0], &len[0]), 0);
	assert_int_equal(jsum_encode(b, fin, count, &want[1], &len[1]), 0);
	assert_true(len[0] != len[1]);
	for (k = 0; k < 3; k++) {
		assert_int_equal(jsum_encode(tw, fin, count, &e, &elen), 0);
		assert_int_equal(elen, len[k % 2]);
		assert_memory_equal(e, want[k % 2], elen);
		free(e);
		jsum_twin_swap(tw);
	}
	free(want[0]);
	free(want[1]);
	jsum_free(tw);
	jsum_free(a);
	jsum_free(b);
}

/*
 * The ledger's twin column keeps only the sums of its open span and takes
 * the rest from the 10-minute spans when it closes or is encoded: what
 * happens where two of those spans meet must come out as reading by
 * reading.  At the slot edges here: a counter stepping back (no reset), a
 * step refused as implausible, a missed poll (the widest gap is the edge's),
 * counter flags on a span's last reading that the next span's lack, and a
 * gauge at -0 where the span before holds +0 (the first of equal values is
 * the minimum and maximum); every counter reading has its journal delta.
 * The hour ends mid-way, so a twin span is also closed and packed.
 */
static void
twin_sums_joins(bool spill)
{
	struct jsum *tw, *a10, *a60;
	struct journal_value v[2];
	struct journal_record r;
	double cum = 0, g;
	int p;

	assert_non_null(tw = jsum_new(T0, 3600 * S, 600 * S, NULL));
	assert_int_equal(jsum_set_twin(tw, 3600 * S), 0);
	if (spill)
		spill_on(tw);
	assert_non_null(a10 = jsum_new(T0, 3600 * S, 600 * S, NULL));
	assert_non_null(a60 = jsum_new(T0, 3600 * S, 3600 * S, NULL));
	for (p = 0; p < 400; p++) {
		uint32_t cf = 0;

		if (p == 179)
			continue;		/* missed: an edge's gap */
		cum += p == 60 ? -50 : 1000 + p % 7;	/* back at an edge */
		if (p == 120)
			cf = CTR_IMPLAUSIBLE;
		if (p == 59)
			cf = CTR_WRAPPED;	/* the first span's last */
		g = p % 60 == 0 && p > 0 ? -0.0 : p % 60 == 59 ? 0.0 :
		    10 + p % 5;
		if (p >= 240 && p < 300)
			g = 0.0;		/* a span of +0 ... */
		if (p == 300)
			g = -0.0;		/* ... then -0 at the edge */
		val(&v[0], "outlet/1/energy", WP_B_OUTLET, WP_Q_ENERGY,
		    WP_COUNTER, cum, cum, cf);
		v[0].delta = p == 60 ? 0 : 1000 + p % 7 + 0.1 * (p % 3);
		val(&v[1], "outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    g, 0, 0);
		r = (struct journal_record){ .t_real = T0 + p * STEP,
		    .t_mono = T0 + p * STEP, .target = "pdu-r1-a", .error = "",
		    .n = 2, .v = v };
		assert_int_equal(jsum_add(tw, &r), 0);
		assert_int_equal(jsum_add(a10, &r), 0);
		assert_int_equal(jsum_add(a60, &r), 0);
	}
	assert_true(tw->twin_sums);
	jsum_twin_swap(tw);	/* no readings into a swapped-in twin */
	assert_int_equal(jsum_add(tw, &r), -1);
	jsum_twin_swap(tw);
	twin_encodes_as(tw, a10, a60, 399);
}

static void
test_twin_sums_joins(void **st)
{
	(void)st;
	twin_sums_joins(false);
	twin_sums_joins(true);
}

/*
 * A summary whose spill is over fd and one without, of the same readings
 * (4 targets of 10 series polled in a different order each time, a slot a
 * minute through an hour: 59 closes a series, 2,360 records, more slots
 * than the spill caches), with a twin at tslot: the summary and its twin
 * encode the same, and the spill's write error is failed.
 */
static void
spill_equals_memory(int fd, wp_time tslot, int failed)
{
	static const char *const tg[] = { "pdu-a", "pdu-b", "pdu-c", "pdu-d" };
	struct journal_value v[10];
	struct journal_record r;
	struct jsum *js, *ref;
	char name[10][24];
	uint8_t fin[JSUM_HASH_LEN] = { 5 };
	int p, g, k, pass;

	assert_non_null(js = jsum_new(T0, 3600 * S, 60 * S, NULL));
	assert_non_null(ref = jsum_new(T0, 3600 * S, 60 * S, NULL));
	assert_int_equal(jsum_set_twin(js, tslot), 0);
	assert_int_equal(jsum_set_twin(ref, tslot), 0);
	assert_int_equal(jsum_spill(js, fd), 0);
	for (p = 0; p < 360; p++)
		for (g = 0; g < 4; g++) {
			int t = (g * (p % 3 + 1) + p) % 4;	/* the order */

			for (k = 0; k < 10; k++) {
				snprintf(name[k], sizeof(name[k]),
				    "outlet/%d/power", k);
				val(&v[k], name[k], WP_B_OUTLET, WP_Q_POWER,
				    WP_GAUGE, 100 + (k * 7 + p + t) % 13, 0, 0);
			}
			r = (struct journal_record){ .t_real = T0 + p * STEP +
			    g * S, .t_mono = T0 + p * STEP + g * S,
			    .target = tg[t], .error = "", .n = 10, .v = v };
			assert_int_equal(jsum_add(js, &r), 0);
			assert_int_equal(jsum_add(ref, &r), 0);
		}
	assert_int_equal(jspill_failed(js->spill), failed);
	for (pass = 0; pass < 2; pass++) {	/* the summary, then its twin */
		encode_same(js, ref, fin, 1440);
		jsum_twin_swap(js);
		jsum_twin_swap(ref);
	}
	jsum_free(js);
	jsum_free(ref);
}

/* Spills read back from the file and from memory (a full disk), twins
 * kept as sums or as spans; and a spill is set before the first reading
 * only. */
static void
test_spill_equals_memory(void **st)
{
	static const wp_time tslot[] = { 600 * S, 150 * S };
	struct journal_value v;
	struct journal_record r;
	struct jsum *js;
	size_t i;
	int fd;

	(void)st;
	for (i = 0; i < 2; i++) {
		assert_true((fd = jspill_tmpfile("/tmp")) >= 0);
		spill_equals_memory(fd, tslot[i], 0);
		assert_true((fd = open("/dev/full", O_RDWR | O_CLOEXEC)) >= 0);
		spill_equals_memory(fd, tslot[i], ENOSPC);
	}
	assert_non_null(js = jsum_new(T0, 3600 * S, 60 * S, NULL));
	val(&v, "wall/power", WP_B_WALL, WP_Q_POWER, WP_GAUGE, 1, 0, 0);
	r = (struct journal_record){ .t_real = T0, .t_mono = T0,
	    .target = "n", .error = "", .n = 1, .v = &v };
	assert_int_equal(jsum_add(js, &r), 0);
	assert_true((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0);
	assert_int_equal(jsum_spill(js, fd), -1);	/* has series */
	assert_null(js->spill);
	jsum_free(js);
}

/* A summary with a twin (the journal writer's: 10-minute spans and the
 * ledger's hourly ones from one table of series) encodes as each of two
 * summaries of one slot would, byte for byte, swapped and back: readings
 * with resets and a wrap on and off slot edges, held, repeated, non-finite
 * and wrong-kind ones, a failed poll, a series that starts late.  Its
 * tables sized beforehand (jsum_reserve) are not grown. */
static void
twin_equals_alone(wp_time slot, wp_time tslot, bool spill)
{
	static const char *const tg[] = { "node1/bmc", "pdu-r1-a" };
	struct jsum *tw, *a10, *a60;
	struct journal_value v[4];
	struct journal_record r;
	unsigned seed = 42;
	double cum[2][4] = { { 0 } };
	int p, g, k, n;

	assert_non_null(tw = jsum_new(T0, 3600 * S, slot, NULL));
	assert_int_equal(jsum_set_twin(tw, tslot), 0);
	if (spill)
		spill_on(tw);
	assert_int_equal(tw->twin_sums, tslot % slot == 0);
	assert_int_equal(jsum_reserve(tw, 2, 8), 0);	/* as the journal does */
	assert_non_null(a10 = jsum_new(T0, 3600 * S, slot, NULL));
	assert_non_null(a60 = jsum_new(T0, 3600 * S, tslot, NULL));
	for (p = 0; p < 370; p++)
		for (g = 0; g < 2; g++) {
			wp_time t = T0 + p * STEP + g * S;

			for (k = n = 0; k < 4; k++) {
				uint32_t cf = 0;
				double x = 100 + rand_r(&seed) % 50;

				if (k == 3 && p < 100)
					continue;	/* starts late */
				cum[g][k] += x * 10;
				if (p % 60 == 0 && k == 1)
					cf = CTR_RESET;	/* on a slot edge */
				if (p % 47 == 5 && k == 2)
					cf = CTR_RESET | CTR_WRAPPED;
				if (p % 53 == 7 && k == 1)
					cf = CTR_HELD;
				if (p % 61 == 9 && k == 0)
					x = NAN;
				val(&v[n], k == 0 ? "wall/power" : k == 1 ?
				    "wall/energy" : k == 2 ? "outlet/1/energy" :
				    "gpu/0/energy", WP_B_WALL, k ? WP_Q_ENERGY :
				    WP_Q_POWER, k ? WP_COUNTER : WP_GAUGE, x,
				    cum[g][k], cf);
				if (p % 67 == 11 && k == 3)
					v[n].s.kind = WP_GAUGE;	/* wrong kind */
				n++;
			}
			r = (struct journal_record){ .t_real = t, .t_mono = t,
			    .target = tg[g], .error = p % 71 == 3 ? "timeout" :
			    "", .status = p % 71 == 3, .n = p % 71 == 3 ? 0 :
			    (size_t)n, .v = v };
			assert_int_equal(jsum_add(tw, &r), 0);
			assert_int_equal(jsum_add(a10, &r), 0);
			assert_int_equal(jsum_add(a60, &r), 0);
			if (p == 200)	/* a poll repeated: readings not after */
				for (k = 0; k < 3; k++) {
					assert_int_equal(jsum_add(tw, &r), 0);
					assert_int_equal(jsum_add(a10, &r), 0);
					assert_int_equal(jsum_add(a60, &r), 0);
				}
		}
	assert_int_equal(jsum_set_twin(tw, tslot), -1);	/* has series */
	assert_int_equal(tw->ns, 8);	/* 2 targets x 4 series: sized exactly */
	assert_true(tw->scap == 8 && tw->twcap == 8 && tw->tcap == 2);
	twin_encodes_as(tw, a10, a60, 740);
}

/* The twin kept as sums (its slot a multiple of the summary's), and kept
 * as spans (not a multiple: 700 s and 1800 s). */
static void
test_twin_equals_alone(void **st)
{
	(void)st;
	twin_equals_alone(600 * S, 3600 * S, false);
	twin_equals_alone(700 * S, 1800 * S, false);
	twin_equals_alone(600 * S, 3600 * S, true);
	twin_equals_alone(700 * S, 1800 * S, true);

}

/* The journal writer with a ledger slot other than the summary's (the
 * ledger's column a twin), the same (no twin), and no .wps summary at all:
 * every summary and ledger block checks against its segment. */
static void
test_writer_ledger_slots(void **st)
{
	static const wp_time slots[][2] = { { 0, 3600 }, { 0, 1800 },
	    { 0, 600 }, { -1, 3600 } };
	struct journal_verify_stats vs;
	struct ledger_stats ls;
	struct journal_value v[2];
	struct wp_err err = { 0 };
	struct journal *j;
	char dir[64], jdir[96], ldir[96], cmd[128];
	size_t k;
	long p;

	(void)st;
	for (k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		struct journal_opts jo = { .fsync = JOURNAL_FSYNC_NONE,
		    .retention = 400 * 86400 * WP_SEC,
		    .summary_slot = slots[k][0] * S,
		    .ledger_slot = slots[k][1] * S };

		snprintf(dir, sizeof(dir), "/tmp/wp-test-jsum.XXXXXX");
		assert_non_null(mkdtemp(dir));
		snprintf(jdir, sizeof(jdir), "%s/journal", dir);
		snprintf(ldir, sizeof(ldir), "%s/ledger", dir);
		jo.ledger_dir = ldir;
		assert_non_null(j = journal_open(jdir, &jo, &err));
		for (p = 0; p < 3 * 360 + 7; p++) {
			val(&v[0], "wall/power", WP_B_WALL, WP_Q_POWER,
			    WP_GAUGE, 500 + p % 7, 0, 0);
			val(&v[1], "wall/energy", WP_B_WALL, WP_Q_ENERGY,
			    WP_COUNTER, 5000.0 * p, 5000.0 * p, p % 200 ==
			    0 ? CTR_RESET : 0);
			put(j, T0 + p * STEP, "n1/bmc", v, 2, p % 97 == 5);
		}
		journal_close(j);
		memset(&vs, 0, sizeof(vs));
		assert_int_equal(journal_verify(jdir, &vs, &err), 0);
		assert_int_equal(vs.summaries, slots[k][0] < 0 ? 0 : 3);
		memset(&ls, 0, sizeof(ls));
		assert_int_equal(ledger_verify(jdir, ldir, &ls, &err), 0);
		assert_int_equal(ls.checked_raw, 3);
		for (p = 0; p < 3; p++) {	/* blocks at the ledger's slot */
			char path[160];
			uint8_t *b;
			size_t blen;
			struct jsum *js;

			snprintf(path, sizeof(path), "%s/20261129T%02ld.wpl",
			    ldir, 8 + p);
			assert_int_equal(jsum_slurp(path, &b, &blen, &err), 0);
			assert_non_null(js = jsum_decode(b, blen - JSUM_HASH_LEN,
			    &err));
			assert_int_equal(js->slot, slots[k][1] * S);
			jsum_free(js);
			free(b);
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* Readings of series name (kind) of target at times t[0..n) into a
 * summary of the hour at start, encoded and decoded back. */
struct mreading {
	const char	*target, *series;
	int		 kind;
	wp_time		 t;
};

/* js (count records, the chain's final hash fin_byte, ...) encoded, its
 * FNV-1a into *fnv when not NULL, and decoded back; js freed. */
static struct jsum *
round_trip(struct jsum *js, uint8_t fin_byte, size_t count, uint64_t *fnv)
{
	uint8_t fin[JSUM_HASH_LEN] = { fin_byte }, *body;
	struct wp_err err = { 0 };
	struct jsum *back;
	size_t blen;

	assert_int_equal(jsum_encode(js, fin, count, &body, &blen), 0);
	if (fnv != NULL)
		*fnv = fnv64(body, blen);
	assert_non_null(back = jsum_decode(body, blen, &err));
	free(body);
	jsum_free(js);
	return back;
}

static struct jsum *
merge_input(wp_time start, const struct mreading *m, size_t n)
{
	struct journal_value v;
	struct journal_record r;
	struct jsum_merge mm;
	struct jsum *js;
	size_t i;

	assert_non_null(js = jsum_new(start, 3600 * S, 0, NULL));
	for (i = 0; i < n; i++) {
		double x = (double)(m[i].t / S);

		val(&v, m[i].series, WP_B_WALL, m[i].kind == WP_COUNTER ?
		    WP_Q_ENERGY : WP_Q_POWER, m[i].kind, x, x, 0);
		r = (struct journal_record){ .t_real = m[i].t,
		    .t_mono = m[i].t, .target = m[i].target, .error = "",
		    .n = 1, .v = &v };
		assert_int_equal(jsum_add(js, &r), 0);
	}
	/* a writer's summary (pooled, packed) is refused */
	assert_int_equal(jsum_merge_init(&mm, start, 86400 * S, 3600 * S,
	    NULL), 0);
	assert_int_equal(jsum_merge_add(&mm, js), -1);
	jsum_merge_fini(&mm);
	return round_trip(js, 3, n, NULL);
}

/* An hour of readings of three series for edges(): t in seconds after the
 * block's start, cf counter flags, d the journal delta. */
struct ereading {
	int		 series;	/* 0, 1: counters; 2: a gauge */
	long		 t;
	double		 x;
	uint32_t	 cf;
	double		 d;
};

/* The writer's summary of a block's readings (10-minute slots), its
 * encoding's FNV-1a into *fnv, decoded back. */
static struct jsum *
edge_block(wp_time start, const struct ereading *e, size_t n, uint64_t *fnv)
{
	static const char *const name[] = { "outlet/1/energy", "wall/energy",
	    "inlet/power" };
	struct journal_value v;
	struct journal_record r;
	struct jsum *js;
	size_t i;

	assert_non_null(js = jsum_new(start, 3600 * S, 0, NULL));
	for (i = 0; i < n; i++) {
		int kind = e[i].series < 2 ? WP_COUNTER : WP_GAUGE;

		val(&v, name[e[i].series], WP_B_OUTLET, kind == WP_COUNTER ?
		    WP_Q_ENERGY : WP_Q_POWER, kind, e[i].x, e[i].x, e[i].cf);
		v.delta = e[i].d;
		r = (struct journal_record){ .t_real = start + e[i].t * S,
		    .t_mono = start + e[i].t * S, .target = "pdu",
		    .error = "", .n = 1, .v = &v };
		assert_int_equal(jsum_add(js, &r), 0);
	}
	return round_trip(js, 5, n, fnv);
}

static int
each_head_ok(void *arg, const struct jsum *h, size_t ns)
{
	(void)arg, (void)h, (void)ns;
	return 0;
}

static int
each_series_ok(void *arg, const struct jsum *h, const struct jsum_series *se)
{
	(void)arg, (void)h, (void)se;
	return 0;
}

/* The day of a, b and c merged from their bytes, a series at a time
 * (jsum_merge_add_bytes, as the ledger does): the same encoding (blen
 * bytes of hash fnv) as merged decoded; bytes cut short or with one more
 * refused; and a's bytes with any one byte changed taken by the series at
 * a time decode exactly when jsum_decode takes them. */
static void
merge_bytes_equal(const struct jsum *a, const struct jsum *b,
    const struct jsum *c, size_t blen, uint64_t fnv)
{
	const struct jsum *in[3] = { a, b, c };
	const struct jsum_each e = { each_head_ok, each_series_ok, NULL };
	uint8_t fin[JSUM_HASH_LEN] = { 6 }, *p[3], *body, *np;
	struct wp_err err = { 0 };
	struct jsum_merge m;
	size_t len[3], i;

	for (i = 0; i < 3; i++)
		assert_int_equal(jsum_encode((struct jsum *)in[i], in[i]->fin,
		    in[i]->count, &p[i], &len[i]), 0);
	assert_int_equal(jsum_merge_init(&m, T0, 86400 * S, 3600 * S, a->in),
	    0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(jsum_merge_add_bytes(&m, p[i], len[i], &err),
		    0);
		assert_int_equal(m.b_count, in[i]->count);
		assert_memory_equal(m.b_fin, in[i]->fin, JSUM_HASH_LEN);
	}
	jsum_merge_finish(&m);
	assert_int_equal(jsum_encode(m.s, fin, m.s->count, &body, &i), 0);
	assert_int_equal(i, blen);
	assert_true(fnv64(body, i) == fnv);
	free(body);
	jsum_merge_fini(&m);
	assert_int_equal(jsum_merge_init(&m, T0, 86400 * S, 3600 * S, a->in),
	    0);
	assert_int_equal(jsum_merge_add_bytes(&m, p[0], len[0] - 1, &err), -1);
	jsum_merge_fini(&m);
	assert_non_null(np = realloc(p[0], len[0] + 1));
	p[0] = np;
	p[0][len[0]] = 0;
	assert_int_equal(jsum_decode_each(p[0], len[0] + 1, &e, &err), -1);
	for (i = 0; i < len[0]; i++) {
		uint8_t was = p[0][i];
		struct jsum *d;

		p[0][i] ^= (uint8_t)(0x5a + i % 7);
		d = jsum_decode(p[0], len[0], &err);
		assert_int_equal(jsum_decode_each(p[0], len[0], &e, &err),
		    d != NULL ? 0 : -1);
		jsum_free(d);
		p[0][i] = was;
	}
	for (i = 0; i < 3; i++)
		free(p[i]);
}

/* Edges of the writer's spans and of a day's merge, byte for byte as git
 * 85dc522 (the writer keeping the previous reading apart, the merge
 * keeping every span) made them: a reading at or before the one taken
 * before (skipped), journal deltas, a counter reset and a step refused as
 * implausible on an hour's first reading (refused by the integrator, not
 * by a span), a counter going back, and a block whose readings lie past
 * the day's window (flagged). */
static void
test_merge_edges(void **st)
{
	static const struct ereading a[] = {
		{ 0, 10, 1000, 0, 0 }, { 1, 10, 5e9, 0, 0 },
		{ 2, 10, 250, 0, 0 }, { 0, 40, 1030, 0, 30 },
		{ 0, 40, 1031, 0, 0 },			/* repeated: skipped */
		{ 0, 30, 1029, 0, 0 },			/* earlier: skipped */
		{ 1, 40, 5e9 + 4096, 0, 4096 }, { 2, 40, 251.5, 0, 0 },
		{ 0, 700, 1700, 0, 670 }, { 1, 700, 5e9 + 8192, 0, 4096 },
		{ 2, 700, 249, 0, 0 }, { 0, 3590, 4590, 0, 2890 },
		{ 1, 3590, 5e9 + 12288, 0, 4096 }, { 2, 3590, 260, 0, 0 },
	}, b[] = {
		{ 0, 10, 5, CTR_RESET, 0 },		/* a reset, first */
		{ 1, 10, 5e9 + 9e15, CTR_IMPLAUSIBLE, 0 },
		{ 2, 10, 255, 0, 0 }, { 0, 640, 640, 0, 635 },
		{ 1, 640, 5e9 + 9e15 + 10, 0, 10 }, { 2, 640, 256, 0, 0 },
		{ 0, 1300, 600, 0, 0 },			/* goes back */
		{ 1, 1300, 5e9 + 9e15 + 20, 0, 10 },
	}, c[] = {
		{ 0, 10, 700, 0, 100 }, { 1, 10, 5e9 + 9e15 + 30, 0, 10 },
		{ 2, 10, 300, 0, 0 }, { 0, 900, 900, 0, 200 },
	};
	static const uint64_t gold_blk[3] = { 0x2a6d5d36aa9281b4ULL,
	    0x4aec9cdfbe151c1dULL, 0xfd403cfed72cf027ULL };
	const wp_time h = 3600 * S;
	uint8_t fin[JSUM_HASH_LEN] = { 6 }, *body;
	struct jsum *ja, *jb, *jc;
	struct jsum_merge m;
	uint64_t f[3];
	size_t blen;

	(void)st;
	ja = edge_block(T0, a, sizeof(a) / sizeof(a[0]), &f[0]);
	jb = edge_block(T0 + h, b, sizeof(b) / sizeof(b[0]), &f[1]);
	jc = edge_block(T0 + 26 * h, c, sizeof(c) / sizeof(c[0]), &f[2]);
	assert_int_equal(jsum_merge_init(&m, T0, 86400 * S, h, ja->in), 0);
	assert_int_equal(jsum_merge_add(&m, ja), 0);
	assert_int_equal(jsum_merge_add(&m, jb), 0);
	assert_int_equal(jsum_merge_add(&m, jc), 0);
	jsum_merge_finish(&m);
	assert_int_equal(jsum_encode(m.s, fin, m.s->count, &body, &blen), 0);
	assert_true(f[0] == gold_blk[0] && f[1] == gold_blk[1] &&
	    f[2] == gold_blk[2]);
	assert_int_equal(blen, 1239);
	assert_true(fnv64(body, blen) == 0x8509db9cd099befaULL);
	assert_true(m.s->s[0].span[0].flags & JSUM_F_RESET);
	free(body);
	jsum_merge_fini(&m);
	merge_bytes_equal(ja, jb, jc, 1239, 0x8509db9cd099befaULL);
	jsum_free(ja);
	jsum_free(jb);
	jsum_free(jc);
}

/* Summaries merged (a ledger day block): targets' counts added and the
 * gap between them counted; a series' spans made one as they come, one of
 * another kind in an entry of its own, with its energy per hour (the
 * segment between the hours split at the hour), one whose readings do not
 * follow flagged; encoded and decoded back as a version-3 summary. */
static void
test_merge_days(void **st)
{
	const wp_time h = 3600 * S;
	char sbuf[WP_SERIES_MAX], lbuf[WP_LABEL_MAX];
	const char *sp, *lp;
	const struct mreading a[] = {
		{ "n0/bmc", "wall/energy", WP_COUNTER, T0 + 10 * S },
		{ "n0/bmc", "wall/power", WP_GAUGE, T0 + 10 * S },
		{ "n1/bmc", "wall/energy", WP_COUNTER, T0 + 20 * S },
		{ "n0/bmc", "wall/energy", WP_COUNTER, T0 + 40 * S },
		{ "n1/bmc", "wall/energy", WP_COUNTER, T0 + 50 * S },
	}, b[] = {
		{ "n0/bmc", "wall/energy", WP_COUNTER, T0 + h + 10 * S },
		{ "n0/bmc", "wall/power", WP_COUNTER, T0 + h + 10 * S },
		{ "n1/bmc", "wall/energy", WP_COUNTER, T0 + 30 * S },
		{ "n0/bmc", "wall/energy", WP_COUNTER, T0 + h + 90 * S },
		{ "n1/bmc", "wall/energy", WP_COUNTER, T0 + h + 50 * S },
	};
	uint8_t fin[JSUM_HASH_LEN] = { 4 }, *body;
	struct wp_err err = { 0 };
	struct jsum *ja, *jb, *back;
	struct jsum_merge m;
	const struct jsum *d;
	size_t blen;

	(void)st;
	ja = merge_input(T0, a, 5);
	jb = merge_input(T0 + h, b, 5);
	assert_int_equal(jsum_merge_init(&m, T0, 86400 * S, h, ja->in), 0);
	assert_int_equal(jsum_merge_add(&m, ja), 0);
	assert_int_equal(jsum_merge_add(&m, jb), 0);
	d = m.s;
	assert_int_equal(d->nt, 2);
	assert_int_equal(d->count, 10);
	assert_int_equal(d->rec_min, T0 + 10 * S);
	assert_int_equal(d->rec_max, T0 + h + 90 * S);
	assert_string_equal(d->t[0].name, "n0/bmc");
	assert_int_equal(d->t[0].polls, 6);
	assert_int_equal(d->t[0].first, T0 + 10 * S);
	assert_int_equal(d->t[0].last, T0 + h + 90 * S);
	assert_int_equal(d->t[0].max_gap, h - 30 * S);	/* 00:00:40-01:00:10 */
	/* n0 energy (2 spans), n0 power gauge, n1 energy (its 00:00:30 is
	 * not after 00:00:50), n0 power counter */
	assert_int_equal(d->ns, 4);
	assert_true(d->s[0].pooled);	/* the merge's text in its pool */
	jsum_series_text(d, &d->s[0], sbuf, lbuf, &sp, &lp);
	assert_string_equal(sp, "wall/energy");
	assert_int_equal(d->s[0].target, 0);
	/* one span a series as they come: from a's first reading to b's
	 * last */
	assert_int_equal(d->s[0].n, 1);
	assert_int_equal(d->s[0].span[0].t0, ja->s[0].span[0].t0);
	assert_true(d->s[0].span[0].cum0 == ja->s[0].span[0].cum0);
	assert_int_equal(d->s[0].span[0].t1, jb->s[0].span[0].t1);
	assert_true(d->s[0].span[0].cum1 == jb->s[0].span[0].cum1);
	assert_int_equal(d->s[0].span[0].n, ja->s[0].span[0].n +
	    jb->s[0].span[0].n);
	assert_int_equal(d->s[1].kind, WP_GAUGE);
	assert_int_equal(d->s[1].n, 1);
	assert_int_equal(d->s[2].target, 1);
	assert_int_equal(d->s[2].n, 1);
	jsum_series_text(d, &d->s[3], sbuf, lbuf, &sp, &lp);
	assert_string_equal(sp, "wall/power");
	assert_int_equal(d->s[3].kind, WP_COUNTER);
	/* one span a series, the energy per hour beside it */
	jsum_merge_finish(&m);
	assert_int_equal(d->version, JSUM_VERSION_DAY);
	assert_int_equal(d->s[0].n, 1);
	assert_int_equal(d->s[0].span[0].n, 4);
	assert_int_equal(d->s[0].span[0].t0, T0 + 10 * S);
	assert_int_equal(d->s[0].span[0].t1, T0 + h + 90 * S);
	assert_true(d->s[0].span[0].cum1 == (double)(T0 / S) + 3690);
	assert_true(d->s[0].span[0].energy == 3680);	/* 10 s to 3690 s */
	assert_int_equal(d->s[0].span[0].max_gap, 3570 * S);
	/* the day's 24 hours and one each side, from 23:00 the day before */
	assert_int_equal(d->s[0].nsub, 26);
	assert_int_equal(jsum_sub_origin(d), T0 - h);
	assert_true(d->s[0].sub[0] == 0);
	assert_true(d->s[0].sub[1] == 30 + 3560);	/* 00:00:40-01:00 */
	assert_true(d->s[0].sub[2] == 10 + 80);
	assert_true(d->s[0].sub[3] == 0);
	assert_false(d->s[0].span[0].flags & JSUM_F_RESET);
	assert_true(d->s[2].span[0].flags & JSUM_F_RESET);	/* not following */
	assert_int_equal(d->s[2].span[0].n, 4);
	assert_int_equal(jsum_encode(m.s, fin, d->count, &body, &blen), 0);
	/* what git 85dc522 (every span kept, then made one) encoded */
	assert_int_equal(blen, 1632);
	assert_true(fnv64(body, blen) == 0x2eec914c132e0957ULL);
	assert_non_null(back = jsum_decode(body, blen, &err));
	assert_int_equal(back->version, JSUM_VERSION_DAY);
	assert_int_equal(back->ns, 4);
	assert_int_equal(back->seg_len, 86400 * S);
	assert_int_equal(back->slot, h);
	assert_int_equal(back->s[0].nsub, 26);
	assert_memory_equal(back->s[0].sub, d->s[0].sub, 26 * sizeof(double));
	assert_memory_equal(back->s[0].span, d->s[0].span,
	    sizeof(struct jsum_span));
	free(body);
	jsum_free(back);
	jsum_merge_fini(&m);
	jsum_free(ja);
	jsum_free(jb);
}

/* A journal with its ledger of two meters over 42 hours from T0 (11-29
 * 08:00), 11-30 a whole day; the IT meter's readings stamped 12 s after
 * their polls (so the 23:59:50 poll's reading is the next day's); with
 * back, the facility meter's first two readings of 11-30 10:00 carry a
 * device time 15 s back (the hour's readings do not follow the hour
 * before's). */
static void
day_journal(const char *dir, bool back)
{
	struct journal_opts jo = { .fsync = JOURNAL_FSYNC_NONE,
	    .retention = 400 * 86400 * WP_SEC };
	char jdir[128], ldir[128], cfg[160];
	struct journal_value v[1];
	struct wp_err err = { 0 };
	double fac = 0, it = 0;
	struct journal *j;
	FILE *c;
	long p;

	snprintf(jdir, sizeof(jdir), "%s/journal", dir);
	snprintf(ldir, sizeof(ldir), "%s/ledger", dir);
	snprintf(cfg, sizeof(cfg), "%s/wattpath.yaml", dir);
	jo.ledger_dir = ldir;
	assert_non_null(j = journal_open(jdir, &jo, &err));
	for (p = 0; p < 42 * 360; p++) {
		wp_time t = T0 + p * STEP;
		double load = 1.0 + 0.5 * (double)((p * 7) % 11);

		val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
		    fac, fac, p == 0 ? CTR_DISCONT : 0);
		if (back && (t == T0 + 26 * 3600 * S ||
		    t == T0 + 26 * 3600 * S + STEP))
			v[0].s.t_real = t - 15 * S;
		put(j, t, "incomer", v, 1, 0);
		val(&v[0], "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
		    it, it, p == 0 ? CTR_DISCONT : 0);
		v[0].s.t_real = t + 12 * S;
		put(j, t + WP_MS, "ups", v, 1, 0);
		fac += 1.3 * 3000.0 * 10 * load;
		it += 3000.0 * 10 * load;
	}
	journal_close(j);
	assert_non_null(c = fopen(cfg, "w"));
	fprintf(c, "collector: {interval: 10s, data_dir: %s}\nnodes:\n"
	    "  - name: n0\n    class: h100-2\n    bmc: {url: https://10.0.0.1,"
	    " auth: none}\nmeters:\n  - {name: incomer, role: facility_total,"
	    " modbus: {tcp: 127.0.0.1:502, unit: 1}, map: eastron-sdm630}\n"
	    "  - {name: ups, role: it_total, modbus: {tcp: 127.0.0.1:502, "
	    "unit: 2}, map: eastron-sdm630}\nsite: {name: t, zone: FR}\n"
	    "report: {curve_step: 1h}\n", dir);
	assert_int_equal(fclose(c), 0);
}

/* FNV-1a of dir's ledger day blocks (*.wpd, by name), each file's bytes
 * in turn; *n gets how many. */
static uint64_t
day_blocks_fnv(const char *dir, int *n)
{
	char ldir[160], path[600];
	struct dirent **names;
	struct wp_err err = { 0 };
	uint64_t h = FNV_SEED;
	uint8_t *b;
	size_t len;
	int i, m;

	snprintf(ldir, sizeof(ldir), "%s/ledger", dir);
	assert_true((m = scandir(ldir, &names, NULL, alphasort)) >= 0);
	for (*n = 0, i = 0; i < m; i++) {
		len = strlen(names[i]->d_name);
		if (len > 4 && strcmp(names[i]->d_name + len - 4, ".wpd") == 0) {
			snprintf(path, sizeof(path), "%s/%s", ldir,
			    names[i]->d_name);
			assert_int_equal(jsum_slurp(path, &b, &len, &err), 0);
			h = fnv64_add(h, b, len);
			free(b);
			(*n)++;
		}
		free(names[i]);
	}
	free(names);
	return h;
}

/* The report over 11-30 and some hours each side from its day block
 * equals the one from its hourly blocks, readings past midnight included
 * (the day blocks byte for byte as when a merge kept every span);
 * where an hour's readings do not follow the hour before's, the day block
 * is not taken (the hour by hour path reads that hour's records). */
static void
test_report_day_block(void **st)
{
	static const uint64_t gold[] = { 0x522a6e4ecb411b0eULL,
	    0x19e1e50042bd0eaaULL };
	int back, nd;

	(void)st;
	for (back = 0; back < 2; back++) {
		char dir[] = "/tmp/wp-test-day.XXXXXX", cfg[160], cmd[200];
		struct conf_errs errs = { 0 };
		struct wp_err err = { 0 };
		json_object *a, *b;
		struct wp_conf *c;

		assert_non_null(mkdtemp(dir));
		day_journal(dir, back);
		/* the day blocks the writer made, byte for byte what git
		 * 85dc522's (every span kept, then made one) were */
		assert_true(day_blocks_fnv(dir, &nd) == gold[back]);
		assert_int_equal(nd, 2);
		snprintf(cfg, sizeof(cfg), "%s/wattpath.yaml", dir);
		assert_non_null(c = conf_load(cfg, NULL, &errs));
		assert_non_null(a = report_json(c, T0 + 12 * 3600 * S,
		    T0 + 41 * 3600 * S, &err));
		setenv("WATTPATH_NO_LEDGER_DAYS", "1", 1);
		assert_non_null(b = report_json(c, T0 + 12 * 3600 * S,
		    T0 + 41 * 3600 * S, &err));
		unsetenv("WATTPATH_NO_LEDGER_DAYS");
		assert_int_equal(jint(a, "disclosure", "journal",
		    "ledger_days_used"), !back);
		assert_int_equal(jint(b, "disclosure", "journal",
		    "ledger_days_used"), 0);
		same(a, b, "$", false);
		json_object_put(a);
		json_object_put(b);
		conf_free(c);
		conf_errs_fini(&errs);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* The ledger's hour h of a run from day start b: one counter, two
 * readings; chain values h and h + 1. */
static void
ledger_hour(struct ledger *l, wp_time b, int h, wp_time now)
{
	uint8_t in[JSUM_HASH_LEN] = { (uint8_t)h }, fin[JSUM_HASH_LEN] = {
	    (uint8_t)(h + 1) };
	wp_time t = b + (wp_time)h * 3600 * S;
	struct journal_value v;
	struct journal_record r;
	struct wp_err err = { 0 };
	struct jsum *js;
	char name[32];
	time_t sec = (time_t)(t / S);
	struct tm tm;
	int k;

	assert_non_null(js = jsum_new(t, 3600 * S, 3600 * S, in));
	for (k = 0; k < 2; k++) {
		val(&v, "energy", WP_B_FACILITY, WP_Q_ENERGY, WP_COUNTER,
		    1e6 * h + k, 1e6 * h + k, 0);
		r = (struct journal_record){ .t_real = t + (10 + 3580 * k) * S,
		    .t_mono = t, .target = "incomer", .error = "", .n = 1,
		    .v = &v };
		assert_int_equal(jsum_add(js, &r), 0);
	}
	gmtime_r(&sec, &tm);
	strftime(name, sizeof(name), "%Y%m%dT%H.wpj", &tm);
	assert_int_equal(ledger_append(l, name, t, 2, in, fin, js, now,
	    &err), 0);
	jsum_free(js);
}

/* Ledger retention with day blocks: 4 days of hourly blocks kept 50 h;
 * each day's block written once the next day began; the days that lost
 * hourly blocks to retention dropped with them (files, DAYS anchor); what
 * is left verifies, the kept day recomputed from its blocks. */
static void
test_ledger_days_retention(void **st)
{
	const wp_time b = 1795996800LL * WP_SEC;	/* 2026-11-30T00:00Z */
	char dir[] = "/tmp/wp-test-ldays.XXXXXX", ldir[64], path[96];
	char cmd[128], jdir[64];
	struct ledger_stats ls;
	struct ledger_index days;
	struct wp_err err = { 0 };
	struct ledger *l;
	int h;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(ldir, sizeof(ldir), "%s/ledger", dir);
	snprintf(jdir, sizeof(jdir), "%s/journal", dir);	/* none */
	assert_non_null(l = ledger_open(ldir, 50 * 3600 * S, false, &err));
	for (h = 0; h < 96; h++) {
		ledger_hour(l, b, h, b + (wp_time)(h + 1) * 3600 * S);
		if (h == 24 || h == 48) {	/* the day before written */
			assert_int_equal(ledger_days_read(ldir, &days, &err),
			    0);
			assert_int_equal(days.n, h / 24);
			ledger_index_fini(&days);
		}
	}
	ledger_close(l);
	/* at 96 h the blocks before 46 h went: days 11-30 and 12-01 lost
	 * hours, 12-02 is whole, 12-03 is open */
	assert_int_equal(ledger_days_read(ldir, &days, &err), 0);
	assert_int_equal(days.n, 1);
	assert_int_equal(days.e[0].start, b + 48 * 3600 * S);
	assert_string_equal(days.e[0].name, "20261202.wpd");
	ledger_index_fini(&days);
	snprintf(path, sizeof(path), "%s/20261201.wpd", ldir);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(ledger_verify(jdir, ldir, &ls, &err), 0);
	assert_int_equal(ls.days, 1);
	assert_int_equal(ls.days_checked, 1);
	/* an index that cannot be read (here a directory) is an error, not
	 * an empty index */
	snprintf(path, sizeof(path), "%s/DAYS", ldir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(ledger_days_read(ldir, &days, &err), -1);
	assert_non_null(strstr(err.msg, "DAYS: read error"));
	ledger_index_fini(&days);
	/* the collector sets it aside (DAYS.bad-SECONDS), not rewrites it */
	assert_non_null(l = ledger_open(ldir, 50 * 3600 * S, false, &err));
	ledger_close(l);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(cmd, sizeof(cmd), "ls -d '%s'.bad-* >/dev/null", path);
	assert_int_equal(system(cmd), 0);
	/* a LEDGER that cannot be read stops a rebuild: rebuilt from the
	 * journal (none here) alone, its blocks would be lost */
	snprintf(path, sizeof(path), "%s/LEDGER", ldir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(ledger_rebuild(jdir, ldir, 0, 0, &ls, &err), -1);
	assert_non_null(strstr(err.msg, "LEDGER: read error"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Block `variant` of a sequence for jsum_rd: 3 targets of 3 series;
 * 1: a fourth series on the second target; 2: other labels on a series;
 * 3: the second target renamed; 4: the third target gone. */
static void
rd_block(int variant, uint8_t **body, size_t *blen)
{
	const char *tg[3] = { "n0/bmc", variant == 3 ? "n9/bmc" : "n1/bmc",
	    "pdu" };
	uint8_t fin[JSUM_HASH_LEN] = { 2 };
	struct journal_value v[4];
	struct journal_record r;
	struct jsum *js;
	int p, g, k, ns;

	assert_non_null(js = jsum_new(T0 + variant * 3600 * S, 3600 * S,
	    600 * S, NULL));
	for (p = 0; p < 80; p++)
		for (g = 0; g < (variant == 4 ? 2 : 3); g++) {
			ns = variant == 1 && g == 1 ? 4 : 3;
			for (k = 0; k < ns; k++) {
				char series[32];

				snprintf(series, sizeof(series), "s/%d",
				    k == 3 ? 7 : k);
				val(&v[k], series, WP_B_WALL, WP_Q_ENERGY, k % 2 ?
				    WP_GAUGE : WP_COUNTER, 100 + p + variant,
				    1e6 + 50 * p + variant, 0);
				snprintf(v[k].s.labels, WP_LABEL_MAX, "a=%d",
				    variant == 2 && k == 1 ? 2 : 1);
			}
			r = (struct journal_record){ .t_real = T0 + p * 45 * S,
			    .t_mono = T0 + p * 45 * S, .target = tg[g],
			    .error = "", .n = (size_t)ns, .v = v };
			assert_int_equal(jsum_add(js, &r), 0);
		}
	assert_int_equal(jsum_encode(js, fin, 6, body, blen), 0);
	jsum_free(js);
}

/* Whether series i of b is, by its text, series i of a (jsum_rd's
 * `same`: its header and every target's name unchanged). */
static bool
rd_same(const struct jsum *a, const struct jsum *b, size_t i)
{
	const struct jsum_series *x, *y = &b->s[i];
	size_t t;

	if (a == NULL || a->nt != b->nt || i >= a->ns)
		return false;
	for (t = 0; t < a->nt; t++)
		if (strcmp(a->t[t].name, b->t[t].name) != 0)
			return false;
	x = &a->s[i];
	return x->target == y->target && strcmp(x->series, y->series) == 0 &&
	    strcmp(x->labels, y->labels) == 0 && x->kind == y->kind &&
	    x->boundary == y->boundary && x->quantity == y->quantity &&
	    memcmp(&x->resolution, &y->resolution, sizeof(double)) == 0;
}

static void
rd_check(const struct jsum *want, const struct jsum *got,
    const struct jsum *before)
{
	size_t i;

	assert_int_equal(got->seg_start, want->seg_start);
	assert_int_equal(got->slot, want->slot);
	assert_int_equal(got->count, want->count);
	assert_memory_equal(got->in, want->in, JSUM_HASH_LEN);
	assert_memory_equal(got->fin, want->fin, JSUM_HASH_LEN);
	assert_int_equal(got->rec_min, want->rec_min);
	assert_int_equal(got->nt, want->nt);
	assert_int_equal(got->ns, want->ns);
	for (i = 0; i < want->nt; i++) {
		assert_string_equal(got->t[i].name, want->t[i].name);
		assert_int_equal(got->t[i].polls, want->t[i].polls);
		assert_int_equal(got->t[i].max_gap, want->t[i].max_gap);
	}
	for (i = 0; i < want->ns; i++) {
		const struct jsum_series *x = &want->s[i], *y = &got->s[i];

		assert_int_equal(y->target, x->target);
		assert_string_equal(y->series, x->series);
		assert_string_equal(y->labels, x->labels);
		assert_true(y->kind == x->kind && y->boundary == x->boundary &&
		    y->quantity == x->quantity && y->flags == x->flags);
		assert_memory_equal(&y->resolution, &x->resolution,
		    sizeof(double));
		assert_int_equal(y->n, x->n);
		assert_memory_equal(y->span, x->span, x->n * sizeof(*x->span));
		assert_int_equal(y->same, rd_same(before, want, i));
	}
}

/* jsum_rd gives what jsum_decode gives, block after block, through
 * series added and dropped, labels and targets renamed, a bad block. */
static void
test_rd_equals_decode(void **st)
{
	static const int seq[] = { 0, 0, 1, 1, 0, 2, 3, 0, 4, 0, -1, 0, 0 };
	struct jsum_rd rd = { 0 };
	struct wp_err err = { 0 };
	struct jsum *want, *before = NULL;
	const struct jsum *got;
	uint8_t *body;
	size_t blen, cap, i;

	(void)st;
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		rd_block(seq[i] < 0 ? 0 : seq[i], &body, &blen);
		if (seq[i] < 0)
			body[blen - 112 + 63] ^= 0x40;	/* last span's flags */
		want = jsum_decode(body, blen, &err);
		cap = blen;
		got = jsum_rd_decode(&rd, &body, &cap, blen, &err);
		free(body);
		if (seq[i] < 0) {
			assert_null(want);
			assert_null(got);
			jsum_free(before);
			before = NULL;
			continue;
		}
		assert_non_null(want);
		assert_non_null(got);
		assert_int_equal(got->seq, rd.seq);
		rd_check(want, got, before);
		jsum_free(before);
		before = want;
	}
	jsum_free(before);
	jsum_rd_fini(&rd);
}

/* An hour of 3 series every 30 s from T0 + 5 min (7 slots): a gauge of
 * varied values, a counter with a reset, and one that misses a slot. */
static void hour_summary_of(struct jsum *js, const char *target);

static void
hour_summary(struct jsum *js)
{
	hour_summary_of(js, "pdu");
}

static void
hour_summary_of(struct jsum *js, const char *target)
{
	struct journal_value v[3];
	struct journal_record r;
	wp_time t;
	double cum = 1e7;
	int i = 0;

	for (t = T0 + 300 * S; t < T0 + 3900 * S; t += 30 * S, i++) {
		val(&v[0], "outlet/1/power", WP_B_OUTLET, WP_Q_POWER,
		    WP_GAUGE, 100.0 / 3 + (i % 17) * 1.37 - (i % 5) * 0.01, 0,
		    0);
		cum += (double)(i % 9) * 10.25;
		if (i == 53)
			cum = 12.5;
		val(&v[1], "outlet/1/energy", WP_B_OUTLET, WP_Q_ENERGY,
		    WP_COUNTER, cum, cum, i == 53 ? CTR_RESET : 0);
		v[1].delta = i == 53 ? 0 : (double)(i % 9) * 10.25;
		val(&v[2], "inlet/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    -2.5 * i, 0, 0);
		r = (struct journal_record){ .t_real = t + i % 3 * S,
		    .t_mono = t, .target = target, .error = "",
		    .n = t >= T0 + 1800 * S && t < T0 + 2400 * S ? 2 : 3,
		    .v = v };
		assert_int_equal(jsum_add(js, &r), 0);
	}
}

/* what git a857b30 (spans kept whole) encoded from hour_summary */
#ifndef GOLDEN_LEN
#define GOLDEN_LEN	2519
#define GOLDEN_FNV	0x2b8e81d1ff50b756ULL
#define GOLDEN_LEN10	38359	/* and with 10-second slots */
#define GOLDEN_FNV10	0xc15d240826eca205ULL
#endif

/* FNV-1a of p[0..n) on from h. */
static uint64_t
fnv64_add(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

static uint64_t
fnv64(const uint8_t *p, size_t n)
{
	return fnv64_add(FNV_SEED, p, n);
}
/* The writer's packed spans: the file is byte for byte the one the spans
 * kept whole wrote (the hash of what git a857b30 encoded from the same
 * readings), twice over, and the closed spans take less than whole; with
 * 10-second slots too (120 spans a series: past SPAN_CHAIN_MAX). */
static void
test_writer_spans_exact(void **st)
{
	static const wp_time slot[] = { 0, 10 * S };
	static const size_t glen[] = { GOLDEN_LEN, GOLDEN_LEN10 };
	static const uint64_t gfnv[] = { GOLDEN_FNV, GOLDEN_FNV10 };
	static const uint32_t nsp[2][3] = { { 7, 7, 6 }, { 120, 120, 100 } };
	struct wp_err err = { 0 };
	uint8_t fin[JSUM_HASH_LEN] = { 7 }, *a, *b;
	struct jsum *js, *back;
	size_t alen, blen, i, c;

	(void)st;
	for (c = 0; c < 4; c++) {	/* 2, 3: the closed spans spilled */
		bool spill = c >= 2;

		assert_non_null(js = jsum_new(T0, 3600 * S, slot[c % 2],
		    NULL));
		if (spill)
			spill_on(js);
		hour_summary(js);
		assert_int_equal(js->ns, 3);
		assert_int_equal(jsum_encode(js, fin, 120, &a, &alen), 0);
		assert_int_equal(jsum_encode(js, fin, 120, &b, &blen), 0);
		assert_int_equal(alen, blen);
		assert_memory_equal(a, b, alen);
		assert_int_equal(alen, glen[c % 2]);
		assert_true(fnv64(a, alen) == gfnv[c % 2]);
		for (i = 0; i < js->ns; i++) {
			assert_true(js->s[i].packed);
			assert_int_equal(js->s[i].n, nsp[c % 2][i]);
			assert_true(spill || js->s[i].cap <
			    (js->s[i].n - 1) * 112);
			assert_true(!spill || js->s[i].pk == NULL);
		}
		assert_non_null(back = jsum_decode(a, alen, &err));
		assert_int_equal(back->s[1].n, nsp[c % 2][1]);
		assert_int_equal(back->s[1].span[0].t0, T0 + 300 * S);
		/* a reset after a span's first reading (one a span at 10 s) */
		assert_true(c % 2 == 1 || (back->s[1].flags & JSUM_F_RESET));
		jsum_free(back);
		free(a);
		free(b);
		jsum_free(js);
	}
}

/* Closed spans of whole watts (as PDUs report them) pack to about a
 * third of a span: their doubles' changes sit in the high bytes; those of
 * a counter of joules in the middle ones. */
static void
test_writer_packs_whole_units(void **st)
{
	uint8_t fin[JSUM_HASH_LEN] = { 3 }, *a;
	struct journal_value v[2];
	struct journal_record r;
	struct wp_err err = { 0 };
	struct jsum *js, *back;
	double cum = 60014862000.0, w, last = 0, first[6], energy[6] = { 0 };
	size_t alen, i;
	wp_time t;
	int k = 0;

	(void)st;
	assert_non_null(js = jsum_new(T0, 3600 * S, 0, NULL));
	for (t = T0; t < T0 + 3600 * S; t += 30 * S, k++) {
		w = 2880 + (k * 37) % 300;
		cum += w * 30;
		if (k % 20 == 0)
			first[k / 20] = w;
		else	/* as span_extend adds it */
			energy[k / 20] += (last + w) / 2 * 30.0;
		last = w;
		val(&v[0], "outlet/1/power", WP_B_OUTLET, WP_Q_POWER, WP_GAUGE,
		    w, 0, 0);
		val(&v[1], "outlet/1/energy", WP_B_OUTLET, WP_Q_ENERGY,
		    WP_COUNTER, cum, cum, 0);
		r = (struct journal_record){ .t_real = t, .t_mono = t,
		    .target = "pdu", .error = "", .n = 2, .v = v };
		assert_int_equal(jsum_add(js, &r), 0);
	}
	/* 112 bytes whole; the power's 5 closed spans 196 bytes (coded with
	 * the low bytes only, 330) */
	assert_int_equal(js->s[0].n, 6);
	assert_true(js->s[0].cap < 5 * 45);
	assert_int_equal(js->s[1].n, 6);
	assert_true(js->s[1].cap < 5 * 70);
	assert_int_equal(jsum_encode(js, fin, 120, &a, &alen), 0);
	assert_non_null(back = jsum_decode(a, alen, &err));
	for (i = 0; i < 6; i++) {	/* the closed ones unpacked */
		assert_int_equal(back->s[0].span[i].n, 20);
		assert_true(back->s[0].span[i].val0 == first[i]);
		assert_true(back->s[0].span[i].energy == energy[i]);
		assert_true(back->s[1].span[i].val0 == (i == 0 ?
		    60014862000.0 + first[0] * 30 : back->s[1].span[i - 1].val1 +
		    first[i] * 30));
	}
	assert_int_equal(back->s[0].span[5].t1, T0 + 3570 * S);
	assert_true(back->s[1].span[5].cum1 == cum);
	jsum_free(back);
	free(a);
	jsum_free(js);
}

/* A sink collecting the pieces, failing at piece fail_at (0: never). */
struct pieces {
	struct wire_buf	 all;
	size_t		 n, small, fail_at, last;	/* small: before the
							   last, short */
};

static int
pieces_put(void *arg, const void *p, size_t n)
{
	struct pieces *c = arg;

	if (++c->n == c->fail_at)
		return -1;
	assert_true(c->fail_at == 0 || c->n < c->fail_at);
	assert_true(n > 0);
	if (c->n > 1 && c->last < JSUM_PIECE)
		c->small++;
	c->last = n;
	wire_put(&c->all, p, n);
	return 0;
}

/* jsum_write hands over jsum_encode's bytes in pieces (none empty, only
 * the last short) and stops at a failed put; jseg_write_summary's file is those
 * bytes and the chain trailer, its whole hash the file's, and a file it
 * cannot write is an error that leaves nothing. */
static void
test_write_in_pieces(void **st)
{
	uint8_t fin[JSUM_HASH_LEN] = { 9 }, *a, h[HASH_LEN], whole[HASH_LEN];
	uint8_t *file;
	struct pieces c = { 0 };
	struct jsum_sink k = { pieces_put, &c };
	struct wp_err err = { 0 };
	char dir[] = "/tmp/wpjsumXXXXXX", path[64], tmp[80];
	const char *tg[] = { "pdu-a", "pdu-b", "pdu-c", "pdu-d" };
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	struct jsum *js;
	size_t alen, flen, i;

	(void)st;
	assert_non_null(js = jsum_new(T0, 3600 * S, 10 * S, NULL));
	for (i = 0; i < 4; i++)
		hour_summary_of(js, tg[i]);
	assert_int_equal(jsum_encode(js, fin, 480, &a, &alen), 0);
	assert_true(alen > 2 * JSUM_PIECE);
	assert_int_equal(jsum_write(js, fin, 480, &k), 0);
	assert_true(c.n >= 2);
	assert_int_equal(c.small, 0);
	assert_int_equal(c.all.len, alen);
	assert_memory_equal(c.all.p, a, alen);
	free(c.all.p);
	c = (struct pieces){ .fail_at = 2 };
	assert_int_equal(jsum_write(js, fin, 480, &k), -1);
	assert_int_equal(c.n, 2);
	free(c.all.p);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.wpl", dir);
	assert_int_equal(jseg_write_summary(js, fin, 480, path, true, whole), 0);
	assert_int_equal(jsum_slurp(path, &file, &flen, &err), 0);
	assert_int_equal(flen, alen + HASH_LEN);
	assert_memory_equal(file, a, alen);
	assert_int_equal(jseg_chain_hash(md, fin, a, alen, h), 0);
	assert_memory_equal(file + alen, h, HASH_LEN);
	assert_int_equal(EVP_Digest(file, flen, h, NULL, EVP_sha256(), NULL),
	    1);
	assert_memory_equal(whole, h, HASH_LEN);
	free(file);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/no/x.wps", dir);
	assert_int_equal(jseg_write_summary(js, fin, 480, path, false, NULL),
	    -1);
	assert_int_equal(errno, ENOENT);
	/* written, but not renamed over a directory: nothing left */
	snprintf(path, sizeof(path), "%s/d.wps", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(jseg_write_summary(js, fin, 480, path, false, NULL),
	    -1);
	assert_int_equal(errno, EISDIR);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
	EVP_MD_CTX_free(md);
	free(a);
	jsum_free(js);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_spans_exact),
		cmocka_unit_test(test_write_in_pieces),
		cmocka_unit_test(test_writer_packs_whole_units),
		cmocka_unit_test(test_pooled_names_roundtrip),
		cmocka_unit_test(test_texted_names),
		cmocka_unit_test(test_twin_equals_alone),
		cmocka_unit_test(test_twin_sums_joins),
		cmocka_unit_test(test_spill_equals_memory),
		cmocka_unit_test(test_writer_ledger_slots),
		cmocka_unit_test(test_merge_days),
		cmocka_unit_test(test_merge_edges),
		cmocka_unit_test(test_report_day_block),
		cmocka_unit_test(test_ledger_days_retention),
		cmocka_unit_test(test_rd_equals_decode),
		cmocka_unit_test(test_report_summaries_equal_full_scan),
		cmocka_unit_test(test_report_ledger_after_expiry),
		cmocka_unit_test(test_scan_refuses_edited_blocks),
		cmocka_unit_test(test_verify_checks_summaries),
		cmocka_unit_test(test_verify_version1_summary),
		cmocka_unit_test(test_scan_skips_bad_summary),
		cmocka_unit_test(test_integ_span_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
