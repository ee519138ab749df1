/*
 * Unit tests: the node input of every fixture tree (tests/fixtures/redfish/
 * expected.tsv, read by hand) is what discovery chooses, and discovery
 * costs no more requests than tests/fixtures/redfish/requests.tsv allows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/lib/sample.h"
#include "../../drivers/redfish/redfish_model.h"
#include "redfish_walk.h"

#define MAX_ROWS	128
#define FIELD_MAX	2048

struct row {
	char	 f[9][FIELD_MAX];	/* tree mode system series source value
					   unit picks why */
	int	 line;
};

enum { TREE, MODE, SYS, SERIES, SOURCE, VALUE, UNIT, PICKS, WHY };

/* Reads the rows of a TSV file (comments and blank lines left out). */
static size_t
read_tsv(const char *file, struct row *rows, size_t max, size_t cols)
{
	static char line[8 * FIELD_MAX];
	FILE *f = fopen(file, "r");
	size_t n = 0, k;
	char *p, *tab;
	int ln = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL && n < max) {
		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		memset(&rows[n], 0, sizeof(rows[n]));
		for (k = 0, p = line; k < cols && p != NULL; k++) {
			tab = strchr(p, '\t');
			snprintf(rows[n].f[k], FIELD_MAX, "%.*s", tab ?
			    (int)(tab - p) : (int)strlen(p), p);
			p = tab ? tab + 1 : NULL;
		}
		if (k < cols)
			fail_msg("%s:%d: %zu fields, want %zu", file, ln, k, cols);
		rows[n++].line = ln;
	}
	fclose(f);
	return n;
}

static int
mode_of(const char *s)
{
	return strcmp(s, "pdu") == 0 ? RF_MODE_PDU : strcmp(s, "probe") == 0 ?
	    RF_MODE_PROBE : RF_MODE_NODE;
}

static const struct rf_series *
series_of(const struct rf_plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_series; i++)
		if (strcmp(p->series[i].series, name) == 0)
			return &p->series[i];
	return NULL;
}

/* Is key (under /redfish/v1/) one of the comma-separated picks? */
static bool
listed(const char *picks, const char *key)
{
	char buf[FIELD_MAX], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", picks);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, key + strlen("/redfish/v1/")) == 0)
			return true;
	return false;
}

static size_t
n_picks(const char *picks)
{
	size_t n = 1;

	for (; *picks; picks++)
		n += *picks == ',';
	return n;
}

static void
check_row(struct rf_disc *d, const struct row *r)
{
	const struct rf_plan *p;
	const struct rf_series *se;
	const struct rf_reading *x;
	struct wp_err err;
	double sum = 0, want;
	size_t i;

	(void)rf_disc_plan(d, &p, &err);
	if (strcmp(r->f[SERIES], "wall") == 0) {
		if (series_of(p, "wall/energy") || series_of(p, "wall/power"))
			fail_msg("expected.tsv:%d: %s has a wall series, want "
			    "none", r->line, r->f[TREE]);
		return;
	}
	if ((se = series_of(p, r->f[SERIES])) == NULL)
		fail_msg("expected.tsv:%d: %s: no %s", r->line, r->f[TREE],
		    r->f[SERIES]);
	if (strcmp(se->source, r->f[SOURCE]) != 0)
		fail_msg("expected.tsv:%d: %s %s: source %s, want %s", r->line,
		    r->f[TREE], r->f[SERIES], se->source, r->f[SOURCE]);
	if (se->n_pick != n_picks(r->f[PICKS]))
		fail_msg("expected.tsv:%d: %s %s: %zu picks, want %zu",
		    r->line, r->f[TREE], r->f[SERIES], se->n_pick,
		    n_picks(r->f[PICKS]));
	for (i = 0; i < se->n_pick; i++) {
		if (!listed(r->f[PICKS], se->pick[i].key))
			fail_msg("expected.tsv:%d: %s %s: picks %s, not listed",
			    r->line, r->f[TREE], r->f[SERIES], se->pick[i].key);
		assert_non_null(x = rf_readings_find(&d->rd, se->pick[i].key));
		if (strcmp(x->raw_unit, r->f[UNIT]) != 0)
			fail_msg("expected.tsv:%d: %s: unit %s, want %s",
			    r->line, se->pick[i].key, x->raw_unit, r->f[UNIT]);
		sum += x->raw_value;
	}
	want = strtod(r->f[VALUE], NULL);
	if (fabs(sum - want) > 1e-9 * fmax(1, fabs(want)))
		fail_msg("expected.tsv:%d: %s %s = %.6g %s, want %.6g",
		    r->line, r->f[TREE], r->f[SERIES], sum, r->f[UNIT], want);
}

/* Wall series the rows of group [g0, g1) do not name must be absent. */
static void
check_absent(struct rf_disc *d, const struct row *rows, size_t g0, size_t g1)
{
	static const char *const wall[] = { "wall/energy", "wall/power" };
	const struct rf_plan *p;
	struct wp_err err;
	size_t i, k;

	if (mode_of(rows[g0].f[MODE]) != RF_MODE_NODE)
		return;
	(void)rf_disc_plan(d, &p, &err);
	for (k = 0; k < 2; k++) {
		for (i = g0; i < g1; i++)
			if (strcmp(rows[i].f[SERIES], wall[k]) == 0)
				break;
		if (i == g1 && series_of(p, wall[k]) != NULL)
			fail_msg("expected.tsv:%d: %s has %s, want none",
			    rows[g0].line, rows[g0].f[TREE], wall[k]);
	}
}

static bool
has_note(struct rf_disc *d, const char *text)
{
	const char *const *notes;
	size_t i, n = rf_disc_notes(d, &notes);

	for (i = 0; i < n; i++)
		if (strstr(notes[i], text) != NULL)
			return true;
	return false;
}

static bool
same_group(const struct row *a, const struct row *b)
{
	return strcmp(a->f[TREE], b->f[TREE]) == 0 &&
	    strcmp(a->f[MODE], b->f[MODE]) == 0 &&
	    strcmp(a->f[SYS], b->f[SYS]) == 0;
}

static void
test_every_tree_gives_its_input(void **st)
{
	static struct row rows[MAX_ROWS];
	struct rf_disc *d;
	struct wp_err err;
	size_t n, g0, g1, i;
	int rc, trees = 0;

	(void)st;
	n = read_tsv(FIXDIR "expected.tsv", rows, MAX_ROWS, 9);
	assert_true(n > 40);
	for (g0 = 0; g0 < n; g0 = g1) {
		for (g1 = g0 + 1; g1 < n && same_group(&rows[g0], &rows[g1]);
		    g1++)
			;
		d = walk_system(rows[g0].f[TREE], mode_of(rows[g0].f[MODE]),
		    strcmp(rows[g0].f[SYS], "-") ? rows[g0].f[SYS] : NULL,
		    &rc, &err);
		for (i = g0; i < g1; i++)
			check_row(d, &rows[i]);
		check_absent(d, rows, g0, g1);
		if (strcmp(rows[g0].f[SERIES], "wall") == 0 &&
		    mode_of(rows[g0].f[MODE]) == RF_MODE_NODE &&
		    strcmp(rows[g0].f[TREE], "telegraf-invalid") != 0)
			assert_true(has_note(d, "no wall source"));
		rf_disc_free(d);
		trees++;
	}
	assert_true(trees >= 30);
}

/* Every tree in the fixture folder has a row (a new tree needs one). */
static void
test_every_tree_has_a_row(void **st)
{
	static struct row rows[MAX_ROWS];
	char cmd[256], name[256];
	size_t n, i;
	FILE *p;
	bool seen;

	(void)st;
	n = read_tsv(FIXDIR "expected.tsv", rows, MAX_ROWS, 9);
	snprintf(cmd, sizeof(cmd), "ls -d %s*/", FIXDIR);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(name, sizeof(name), p) != NULL) {
		name[strcspn(name, "\n")] = '\0';
		if (strlen(name) > 0 && name[strlen(name) - 1] == '/')
			name[strlen(name) - 1] = '\0';
		for (i = 0, seen = false; i < n && !seen; i++)
			seen = strcmp(rows[i].f[TREE], name +
			    strlen(FIXDIR)) == 0;
		if (!seen)
			fail_msg("%s: no row in expected.tsv", name);
	}
	pclose(p);
}

/* Requests per discovery, per tree: never over the budget. */
static void
test_discovery_cost(void **st)
{
	static struct row rows[MAX_ROWS];
	struct rf_disc *d;
	struct wp_err err;
	size_t n, i;
	int rc, got, budget;

	(void)st;
	n = read_tsv(FIXDIR "requests.tsv", rows, MAX_ROWS, 4);
	assert_true(n > 20);
	for (i = 0; i < n; i++) {
		fx.no_expand = strcmp(rows[i].f[1], "node-noexpand") == 0;
		fx.page = 0;
		d = walk(rows[i].f[0], fx.no_expand ? RF_MODE_NODE :
		    mode_of(rows[i].f[1]), &rc, &err);
		got = rf_disc_requests(d);
		budget = atoi(rows[i].f[3]);
		print_message("%-32s %-13s before %4s now %4d\n", rows[i].f[0],
		    rows[i].f[1], rows[i].f[2], got);
		if (got > budget)
			fail_msg("requests.tsv:%d: %s: %d requests, budget %d",
			    rows[i].line, rows[i].f[0], got, budget);
		rf_disc_free(d);
	}
	fx.no_expand = false;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tree_gives_its_input),
		cmocka_unit_test(test_every_tree_has_a_row),
		cmocka_unit_test(test_discovery_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
