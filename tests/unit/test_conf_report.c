/*
 * Unit tests: collector/conf/conf_report.c - report: and site: typed at
 * load, every bad value an error at its line (check-config sees them), a
 * key nothing reads a warning.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/conf/conf.h"

struct fx {
	char	 dir[64];
	char	 path[128];
	struct conf_errs errs;
	struct wp_conf *c;
};

static int
setup(void **st)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/wp-test-confr.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/w.yaml", f->dir);
	*st = f;
	return 0;
}

static int
teardown(void **st)
{
	struct fx *f = *st;

	conf_free(f->c);
	conf_errs_fini(&f->errs);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct wp_conf *
load(struct fx *f, const char *yaml)
{
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	fputs(yaml, fp);
	fclose(fp);
	conf_free(f->c);
	conf_errs_fini(&f->errs);
	f->c = conf_load(f->path, false, &f->errs);
	return f->c;
}

/* Is there a message "FILE:LINE: ...sub..." in v? */
static bool
has(char **v, size_t n, const char *file, int line, const char *sub)
{
	char pre[300];
	size_t i;

	snprintf(pre, sizeof(pre), "%s:%d: ", file, line);
	for (i = 0; i < n; i++)
		if (strncmp(v[i], pre, strlen(pre)) == 0 &&
		    strstr(v[i] + strlen(pre), sub) != NULL)
			return true;
	return false;
}

static void
dump(const struct fx *f)
{
	size_t i;

	for (i = 0; i < f->errs.n; i++)
		fprintf(stderr, "  err: %s\n", f->errs.msg[i]);
	for (i = 0; i < f->errs.n_warn; i++)
		fprintf(stderr, "  warn: %s\n", f->errs.warn[i]);
}

#define ERR_AT(f, line, sub) do {					\
	if (!has((f)->errs.msg, (f)->errs.n, (f)->path, line, sub)) {	\
		dump(f);						\
		fail_msg("no error at line %d with '%s'", line, sub);	\
	}								\
} while (0)
#define WARN_AT(f, line, sub) do {					\
	if (!has((f)->errs.warn, (f)->errs.n_warn, (f)->path, line, sub)) { \
		dump(f);						\
		fail_msg("no warning at line %d with '%s'", line, sub);	\
	}								\
} while (0)
#define LOAD_OK(f, y) do {						\
	if (load(f, y) == NULL) {					\
		dump(f);						\
		fail_msg("config did not load");			\
	}								\
} while (0)

static const char meters[] =
    "meters:\n"
    "  - {name: m1, role: facility_total, map: eastron-sdm630,\n"
    "     modbus: {tcp: \"127.0.0.1:502\"}, zone: hall-a}\n"
    "  - {name: m2, role: it_total, map: eastron-sdm630,\n"
    "     modbus: {tcp: \"127.0.0.1:502\"}}\n";

static void
test_defaults(void **st)
{
	struct fx *f = *st;
	const struct report_settings *r;
	const struct report_site *s;

	LOAD_OK(f, "collector: {interval: 10s}\n");
	r = &f->c->report;
	s = &f->c->site;
	assert_false(r->slo_set || r->idle_set || r->pue_set);
	assert_int_equal(r->n_replicas, 0);
	assert_true(r->curve_tolerance == REPORT_CURVE_TOLERANCE);
	assert_int_equal(r->curve_step, 0);
	assert_int_equal(r->run_gap, REPORT_RUN_GAP);
	assert_null(s->name);
	assert_null(s->zone);
	assert_false(s->grid.set || s->market.set || s->tariff.set);
	assert_true(s->grid.yearly_g_per_kwh == -1);
	assert_true(isnan(s->market.supplier_factor));
	assert_true(isnan(s->market.residual_factor));
	assert_true(isnan(s->tariff.price));
	assert_string_equal(s->tariff.currency, "EUR");
}

static void
test_typed(void **st)
{
	struct fx *f = *st;
	char y[2048];
	const struct report_settings *r;
	const struct report_site *s;

	snprintf(y, sizeof(y), "%s"
	    "report:\n"
	    "  slo: {ttft_ms: 500, tpot_ms: 50}\n"
	    "  replicas:\n"
	    "    - {name: ra, nodes: [a1, a2]}\n"
	    "    - {nodes: [b1]}\n"
	    "  idle: {from: \"2026-01-10T02:00:00Z\", to: 1768014000}\n"
	    "  pue: {value: 1.35, category: \"2\"}\n"
	    "  curve_tolerance: 0.08\n"
	    "  curve_step: 2m\n"
	    "  run_gap: 45s\n"
	    "site:\n"
	    "  name: par-1\n"
	    "  zone: FR\n"
	    "  grid: {intensity_csv: g.csv, basis: lifecycle,\n"
	    "         yearly_average_g_per_kwh: 56}\n"
	    "  market:\n"
	    "    instruments_csv: go.csv\n"
	    "    holder: acme\n"
	    "    supplier_factor: 25\n"
	    "    residual_mix: {factor: 40.74, source: AIB, year: 2023}\n"
	    "    period_consumption_mwh: 1200\n"
	    "  tariff: {price: -0.01, price_csv: p.csv, currency: USD}\n",
	    meters);
	LOAD_OK(f, y);
	assert_int_equal(f->errs.n_warn, 0);
	r = &f->c->report;
	assert_true(r->slo_set && r->slo_ttft_ms == 500 && r->slo_tpot_ms == 50);
	assert_int_equal(r->n_replicas, 2);
	assert_string_equal(r->replicas[0].name, "ra");
	assert_int_equal(r->replicas[0].n_nodes, 2);
	assert_string_equal(r->replicas[0].nodes[1], "a2");
	assert_null(r->replicas[1].name);
	assert_string_equal(r->replicas[1].nodes[0], "b1");
	assert_true(r->idle_set);
	assert_int_equal(r->idle_from, 1768010400LL * WP_SEC);
	assert_int_equal(r->idle_to, 1768014000LL * WP_SEC);
	assert_true(r->pue_set && r->pue_value == 1.35);
	assert_string_equal(r->pue_category, "2");
	assert_true(r->curve_tolerance == 0.08);
	assert_int_equal(r->curve_step, 120 * WP_SEC);
	assert_int_equal(r->run_gap, 45 * WP_SEC);
	s = &f->c->site;
	assert_string_equal(s->name, "par-1");
	assert_string_equal(s->zone, "FR");
	assert_true(s->grid.set);
	assert_string_equal(s->grid.intensity_csv, "g.csv");
	assert_string_equal(s->grid.basis, "lifecycle");
	assert_true(s->grid.yearly_g_per_kwh == 56);
	assert_true(s->market.set && s->market.residual_set);
	assert_string_equal(s->market.holder, "acme");
	assert_true(s->market.supplier_factor == 25);
	assert_true(s->market.residual_factor == 40.74);
	assert_string_equal(s->market.residual_source, "AIB");
	assert_string_equal(s->market.residual_year, "2023");
	assert_true(s->market.period_consumption_mwh == 1200);
	assert_true(s->tariff.set && s->tariff.price == -0.01);
	assert_string_equal(s->tariff.currency, "USD");
	assert_string_equal(f->c->meters[0].zone, "hall-a");
	assert_null(f->c->meters[1].zone);
}

/* What only warned when a report ran (or failed it) fails the load. */
static void
test_report_errors(void **st)
{
	struct fx *f = *st;

	assert_null(load(f,
	    "report:\n"					/* 1 */
	    "  pue: {value: high}\n"			/* 2 */
	    "  curve_tolerance: tight\n"		/* 3 */
	    "  curve_step: 5x\n"			/* 4 */
	    "  run_gap: 0s\n"				/* 5 */
	    "  idle: {from: \"2026-01-10T02:00:00Z\"}\n"	/* 6 */
	    "  slo: {ttft_ms: -1, tpot_ms: fast}\n"	/* 7 */
	    "  replicas:\n"				/* 8 */
	    "    - {name: r1, nodes: a1}\n"		/* 9 */
	    "    - r2\n"				/* 10 */
	    "    - {name: r3, nodes: [{x: 1}]}\n"));	/* 11 */
	ERR_AT(f, 2, "report: pue: value must be a number >= 1, not 'high'");
	ERR_AT(f, 3, "report: curve_tolerance must be a number >= 0, not "
	    "'tight'");
	ERR_AT(f, 4, "report: curve_step: '5x' is not a duration");
	ERR_AT(f, 5, "report: run_gap 0s is out of range (more than 0)");
	ERR_AT(f, 6, "report: idle: missing required key 'to'");
	ERR_AT(f, 7, "report: slo: ttft_ms must be a number >= 0, not '-1'");
	ERR_AT(f, 7, "report: slo: tpot_ms must be a number >= 0, not 'fast'");
	ERR_AT(f, 9, "report: replica r1: nodes must be a list, not a single "
	    "value");
	ERR_AT(f, 10, "report: replicas: each entry must be a mapping");
	ERR_AT(f, 11, "report: replica r3: each node must be a node name");
	assert_int_equal(f->errs.n, 10);
	assert_null(load(f, "report:\n  pue: {value: 0.9}\n"
	    "  idle: {from: soon, to: later}\n  slo: 5\n  replicas: {a: 1}\n"));
	ERR_AT(f, 2, "report: pue: value must be a number >= 1, not '0.9'");
	ERR_AT(f, 3, "report: idle: from: 'soon' is not a time");
	ERR_AT(f, 3, "report: idle: to: 'later' is not a time");
	ERR_AT(f, 4, "report: slo must be a mapping, not a single value");
	ERR_AT(f, 5, "report: replicas must be a list, not a mapping");
	assert_null(load(f, "report:\n  pue: {category: \"1\"}\n"));
	ERR_AT(f, 2, "report: pue: missing required key 'value'");
	/* the declared PUE's period and category are validated */
	assert_null(load(f, "report:\n  pue: {value: 1.3, period: window, "
	    "category: ups_outpt}\n"));
	ERR_AT(f, 2, "report: pue: period must be a year (2025), a month "
	    "(2026-11) or a range of months (2025-07..2026-06), not 'window'");
	ERR_AT(f, 2, "report: pue: category must be ups_output (1), "
	    "pdu_output (2) or it_input (3), not 'ups_outpt'");
	LOAD_OK(f, "report:\n  pue: {value: 1.3, period: 2025-07..2026-06, "
	    "category: ups_output}\n");
	assert_string_equal(f->c->report.pue_period, "2025-07..2026-06");
	LOAD_OK(f, "report:\n  pue: {value: 1.3, period: \"2025\"}\n");
	assert_string_equal(f->c->report.pue_period, "2025");
}

/* report.data_dirs: a list of paths, none empty, none twice. */
static void
test_data_dirs(void **st)
{
	struct fx *f = *st;

	LOAD_OK(f, "report:\n  data_dirs: [/srv/a, /srv/b]\n");
	assert_int_equal(f->c->report.n_data_dirs, 2);
	assert_string_equal(f->c->report.data_dirs[0], "/srv/a");
	assert_string_equal(f->c->report.data_dirs[1], "/srv/b");
	assert_null(load(f,
	    "report:\n"				/* 1 */
	    "  data_dirs:\n"			/* 2 */
	    "    - /srv/a\n"			/* 3 */
	    "    - \"\"\n"			/* 4 */
	    "    - {path: /srv/c}\n"		/* 5 */
	    "    - /srv/a\n"));			/* 6 */
	ERR_AT(f, 4, "report: data_dirs: each entry must be a directory path, "
	    "not an empty string");
	ERR_AT(f, 5, "report: data_dirs: each entry must be a directory path, "
	    "not a mapping");
	ERR_AT(f, 6, "report: data_dirs: '/srv/a' is listed twice");
	assert_int_equal(f->errs.n, 3);
	assert_null(load(f, "report:\n  data_dirs: /srv/a\n"));
	ERR_AT(f, 2, "report: data_dirs must be a list, not a single value");
}

static void
test_site_errors(void **st)
{
	struct fx *f = *st;
	char y[2048];

	snprintf(y, sizeof(y),
	    "site:\n"					/* 1 */
	    "  zone: FR\n"				/* 2 */
	    "  grid: {basis: both, yearly_average_g_per_kwh: -3}\n" /* 3 */
	    "  market:\n"				/* 4 */
	    "    supplier_factor: cheap\n"		/* 5 */
	    "    residual_mix: {factor: none, year: [2023]}\n" /* 6 */
	    "    period_consumption_mwh: lots\n"	/* 7 */
	    "  tariff: {price: free, currency: {a: 1}}\n" /* 8 */
	    "meters:\n"					/* 9 */
	    "  - {name: m1, role: it_total, map: eastron-sdm630,\n" /* 10 */
	    "     modbus: {tcp: \"127.0.0.1:502\"}, zone: [a, b]}\n"); /* 11 */
	assert_null(load(f, y));
	ERR_AT(f, 3, "site: grid: basis must be one of direct, lifecycle, "
	    "not 'both'");
	ERR_AT(f, 3, "site: grid: yearly_average_g_per_kwh must be a number "
	    ">= 0, not '-3'");
	ERR_AT(f, 5, "site: market: supplier_factor must be a number >= 0");
	ERR_AT(f, 6, "site: market: residual_mix: factor must be a number");
	ERR_AT(f, 6, "site: market: residual_mix: year must be a single "
	    "value, not a list");
	ERR_AT(f, 7, "site: market: period_consumption_mwh must be a number");
	ERR_AT(f, 8, "site: tariff: price must be a number, not 'free'");
	ERR_AT(f, 8, "site: tariff: currency must be a single value");
	ERR_AT(f, 11, "meter m1: zone must be a single value, not a list");
	assert_null(load(f, "site: {grid: [1], market: 2}\n"));
	ERR_AT(f, 1, "site: grid must be a mapping, not a list");
	ERR_AT(f, 1, "site: market must be a mapping, not a single value");
}

/* Issue 19: a key nothing reads is an error, with the key it is a typo
 * of (report: {slo: {ttft: 500}} made every token "within SLO"). */
static void
test_unknown_keys_refused(void **st)
{
	struct fx *f = *st;

	assert_null(load(f, "report:\n"
	    "  slo: {ttft: 500, p99: 2}\n"
	    "  colour: red\n"
	    "site:\n"
	    "  zone: FR\n"
	    "  grid: {source: static, gco2_per_kwh: 56}\n"
	    "  tariff: {eur_per_kwh: 0.18, prise: 0.2}\n"
	    "  market: {residual_mix: {factr: 40}}\n"));
	ERR_AT(f, 2, "report: slo: unknown key 'ttft' (did you mean "
	    "'ttft_ms'?)");
	ERR_AT(f, 2, "report: slo: unknown key 'p99'");
	ERR_AT(f, 3, "report: unknown key 'colour'");
	ERR_AT(f, 6, "site: grid: unknown key 'source'");
	ERR_AT(f, 6, "site: grid: unknown key 'gco2_per_kwh'");
	ERR_AT(f, 7, "site: tariff: unknown key 'eur_per_kwh'");
	ERR_AT(f, 7, "site: tariff: unknown key 'prise' (did you mean "
	    "'price'?)");
	ERR_AT(f, 8, "site: market: residual_mix: unknown key 'factr' (did "
	    "you mean 'factor'?)");
	assert_int_equal(f->errs.n_warn, 0);
	/* the PUE's period, an idle window's and a replica's keys too */
	assert_null(load(f, "report:\n"
	    "  pue: {value: 1.3, perod: 2025}\n"
	    "  idle: {from: 1, to: 2, form: 3}\n"
	    "  replicas: [{name: a, node: [n1]}]\n"));
	ERR_AT(f, 2, "report: pue: unknown key 'perod' (did you mean "
	    "'period'?)");
	ERR_AT(f, 3, "report: idle: unknown key 'form' (did you mean "
	    "'from'?)");
	ERR_AT(f, 4, "report: replica a: unknown key 'node' (did you mean "
	    "'nodes'?)");
	LOAD_OK(f, "report:\n  slo: {ttft_ms: 1}\n");
	assert_true(f->c->report.slo_set && f->c->report.slo_ttft_ms == 1);
	/* a block given, even empty, is there: the report says what it
	 * lacks rather than leaving carbon out silently */
	LOAD_OK(f, "site:\n  zone: FR\n  grid:\n  tariff:\n");
	assert_true(f->c->site.grid.set && f->c->site.tariff.set);
	assert_false(f->c->site.market.set);
	assert_true(isnan(f->c->site.tariff.price));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_typed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_data_dirs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_site_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_keys_refused, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
