/* Unit tests: collector/expo/expo_sites.c - a peer's /api/v1/fleet read
 * into a site row, and the rows' combination (issue 21). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/expo/expo_sites.h"

#define NOW	((wp_time)1796175677LL * WP_SEC)

/* A document as /api/v1/fleet writes it: wall and GPU, no outlet, the
 * site meters, tokens, targets. */
static const char doc_b[] =
	"{\"time\":\"2026-12-02T01:41:10.500Z\",\"site\":\"site-b\","
	"\"nodes\":2,\"boundaries\":{"
	"\"wall\":{\"power_w\":2000.5,\"energy_j\":1.5e6,"
	"\"energy_15m_j\":9000,\"tokens_15m\":3000},"
	"\"gpu\":{\"power_w\":1500,\"energy_j\":1e6,"
	"\"energy_15m_j\":6000,\"tokens_15m\":3000},"
	"\"outlet\":{\"power_w\":null,\"energy_j\":null,"
	"\"energy_15m_j\":null,\"tokens_15m\":null}},"
	"\"pue_15m\":1.4,\"facility\":{\"power_w\":3000,\"energy_j\":2.1e6},"
	"\"it\":{\"power_w\":2100,\"energy_j\":1.5e6},"
	"\"tokens\":{\"output\":123456,\"input\":7},"
	"\"targets\":{\"up\":5,\"down\":1},\"classes\":[]}";

static void
test_parse(void **st)
{
	struct site_row r;
	struct wp_err err = { 0 };

	(void)st;
	assert_int_equal(site_row_parse("site-b", doc_b, NOW, &r, &err), 0);
	assert_string_equal(r.name, "site-b");
	assert_true(r.reachable && !r.self && r.error[0] == '\0');
	assert_true(r.last_ok == NOW);
	assert_true(r.time == (wp_time)1796175670500LL * WP_MS);
	assert_int_equal(r.nodes, 2);
	assert_true(r.q[FB_WALL].has_power && r.q[FB_WALL].power == 2000.5);
	assert_true(r.q[FB_WALL].has_energy && r.q[FB_WALL].energy == 1.5e6);
	assert_false(r.q[FB_OUTLET].has_power || r.q[FB_OUTLET].has_energy);
	assert_true(r.q[SQ_FACILITY].energy == 2.1e6 && r.q[SQ_IT].power == 2100);
	assert_true(r.has15[FB_WALL] && r.e15[FB_WALL] == 9000 &&
	    r.t15[FB_WALL] == 3000);
	assert_false(r.has15[FB_OUTLET]);
	assert_true(r.has_pue15 && r.pue15 == 1.4);
	assert_true(r.has_tokens && r.tokens_out == 123456);
	assert_int_equal(r.up, 5);
	assert_int_equal(r.down, 1);
}

static void
test_refused(void **st)
{
	struct site_row r;
	struct wp_err err = { 0 };

	(void)st;
	/* another site's answer: unreachable, the figures unknown */
	assert_int_equal(site_row_parse("site-c", doc_b, NOW, &r, &err), -1);
	assert_false(r.reachable);
	assert_non_null(strstr(r.error, "answers as site 'site-b'"));
	assert_false(r.q[FB_WALL].has_power || r.q[FB_WALL].has_energy);
	assert_false(r.has_tokens);
	assert_int_equal(site_row_parse("site-b", "<html>", NOW, &r, &err), -1);
	assert_non_null(strstr(r.error, "not JSON"));
	assert_int_equal(site_row_parse("site-b", "{\"nodes\":1}", NOW, &r,
	    &err), -1);
	assert_non_null(strstr(r.error, "not a wattpath"));
}

static void
row(struct site_row *r, const char *name, double wall_e, double e15,
    double t15, bool outlet)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->reachable = true;
	r->q[FB_WALL] = (struct site_q){ wall_e / 100, wall_e, true, true };
	if (outlet)
		r->q[FB_OUTLET] = (struct site_q){ 7, 70, true, true };
	r->q[SQ_FACILITY] = (struct site_q){ wall_e / 50, 2 * wall_e, true,
	    true };
	r->q[SQ_IT] = (struct site_q){ wall_e / 100, wall_e, true, true };
	r->e15[FB_WALL] = e15;
	r->t15[FB_WALL] = t15;
	r->has15[FB_WALL] = e15 > 0;
	r->tokens_out = 10;
	r->has_tokens = true;
	r->up = 3;
	r->down = 1;
}

static void
test_combine(void **st)
{
	struct site_row rows[3];
	struct sites_sum *s = malloc(sizeof(*s));

	(void)st;
	assert_non_null(s);
	row(&rows[0], "a", 1000, 100, 50, true);
	row(&rows[1], "b", 3000, 300, 100, false);
	row(&rows[2], "c", 500, 0, 0, true);	/* no J/token window */
	sites_combine(rows, 3, s);
	assert_true(s->q[FB_WALL].has_energy && s->q[FB_WALL].energy == 4500);
	assert_true(s->q[FB_WALL].has_power && s->q[FB_WALL].power == 45);
	/* outlet: b has none, so no sum, and b named */
	assert_false(s->q[FB_OUTLET].has_energy || s->q[FB_OUTLET].has_power);
	assert_string_equal(s->miss_e[FB_OUTLET], "b");
	assert_string_equal(s->miss_p[FB_OUTLET], "b");
	assert_string_equal(s->miss_e[FB_WALL], "");
	/* J/token over the sites with both: (100 + 300) / (50 + 100) */
	assert_int_equal(s->jpt_sites[FB_WALL], 2);
	assert_true(s->e15[FB_WALL] == 400 && s->t15[FB_WALL] == 150);
	/* PUE: summed facility power over summed IT power */
	assert_true(fabs(s->pue - 2.0) < 1e-12);
	assert_true(s->has_tokens && s->tokens_out == 30);
	assert_int_equal(s->up, 9);
	assert_int_equal(s->unreachable, 0);
	/* c unreachable: every sum partial, c named; its targets left out */
	rows[2].reachable = false;
	memset(rows[2].q, 0, sizeof(rows[2].q));
	rows[2].has_tokens = false;
	sites_combine(rows, 3, s);
	assert_false(s->q[FB_WALL].has_energy || s->q[SQ_FACILITY].has_power);
	assert_string_equal(s->miss_e[FB_WALL], "c");
	assert_string_equal(s->miss_e[FB_OUTLET], "b, c");
	assert_false(s->has_tokens);
	assert_true(isnan(s->pue));
	assert_int_equal(s->up, 6);
	assert_int_equal(s->unreachable, 1);
	free(s);
}

static void
test_json(void **st)
{
	struct site_row rows[2];
	char *j;

	(void)st;
	row(&rows[0], "a", 1000, 100, 50, true);
	rows[0].self = true;
	row(&rows[1], "b", 3000, 300, 100, false);
	rows[1].reachable = false;
	snprintf(rows[1].error, sizeof(rows[1].error), "timed out");
	memset(rows[1].q, 0, sizeof(rows[1].q));
	assert_non_null(j = sites_json(rows, 2, NOW));
	assert_non_null(strstr(j, "\"unreachable\":[\"b\"]"));
	assert_non_null(strstr(j, "\"error\":\"timed out\""));
	assert_non_null(strstr(j, "\"missing_energy\":[\"b\"]"));
	/* b's figures are null, never 0 */
	assert_null(strstr(j, "\"energy_j\":0"));
	free(j);
}

static void
shard_row(struct site_row *r, const char *name, unsigned i, unsigned n,
    double wall_e)
{
	row(r, name, wall_e, wall_e / 10, 5, false);
	r->shard_index = i;
	r->shard_count = n;
	r->nodes = 9;
	if (i != 0) {	/* the meters are shard 0's */
		r->q[SQ_FACILITY].has_power = r->q[SQ_FACILITY].has_energy =
		    false;
		r->q[SQ_IT].has_power = r->q[SQ_IT].has_energy = false;
	} else {
		r->pue15 = 1.3;
		r->has_pue15 = true;
	}
}

static void
test_shards(void **st)
{
	struct site_row rows[5];
	size_t n;

	(void)st;
	/* own shard 1 first, another site, shards 0 and 2 of the own site */
	shard_row(&rows[0], "a", 1, 3, 100);
	rows[0].self = true;
	row(&rows[1], "b", 3000, 300, 100, false);
	shard_row(&rows[2], "a", 0, 3, 200);
	shard_row(&rows[3], "a", 2, 3, 400);
	rows[3].time = 5;
	rows[2].time = 7;
	rows[0].time = 9;
	n = sites_merge_shards(rows, 4);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "a");
	assert_string_equal(rows[1].name, "b");
	assert_true(rows[0].self && rows[0].reachable && !rows[0].incomplete);
	assert_int_equal(rows[0].shard_count, 3);
	assert_int_equal(rows[0].shards, 3);
	assert_true(rows[0].q[FB_WALL].energy == 700 &&
	    rows[0].q[FB_WALL].power == 7);
	/* the meters: shard 0's alone, and its PUE the site's */
	assert_true(rows[0].q[SQ_FACILITY].has_power &&
	    rows[0].q[SQ_FACILITY].energy == 400);
	assert_true(rows[0].has_pue15 && rows[0].pue15 == 1.3);
	assert_false(rows[0].q[FB_OUTLET].has_energy);
	assert_true(rows[0].e15[FB_WALL] == 70 && rows[0].t15[FB_WALL] == 15);
	assert_true(rows[0].tokens_out == 30);
	assert_int_equal(rows[0].nodes, 9);
	assert_int_equal(rows[0].up, 9);
	assert_true(rows[0].time == 5);
	/* a meter on a second shard: no shard's PUE is the site's */
	shard_row(&rows[0], "a", 0, 2, 100);
	shard_row(&rows[1], "a", 1, 2, 100);
	rows[1].q[SQ_IT] = (struct site_q){ 1, 10, true, true };
	assert_int_equal(sites_merge_shards(rows, 2), 1);
	assert_true(rows[0].reachable && !rows[0].has_pue15);
	assert_true(rows[0].q[SQ_IT].power == 2);
	/* shard 2 not listed: incomplete, figures unknown */
	shard_row(&rows[0], "a", 0, 3, 100);
	rows[0].self = true;
	shard_row(&rows[1], "a", 1, 3, 100);
	assert_int_equal(sites_merge_shards(rows, 2), 1);
	assert_true(rows[0].self && rows[0].reachable && rows[0].incomplete);
	assert_string_equal(rows[0].error,
	    "shard 2 of 3 not in collector.peers");
	assert_false(rows[0].q[FB_WALL].has_energy || rows[0].has_tokens ||
	    rows[0].has_pue15);
	/* the own collector sharded, no peer listed */
	shard_row(&rows[0], "a", 1, 4, 100);
	assert_int_equal(sites_merge_shards(rows, 1), 1);
	assert_string_equal(rows[0].error,
	    "shard 0, 2, 3 of 4 not in collector.peers");
	/* one shard twice (an HA pair listed whole) */
	shard_row(&rows[0], "a", 0, 2, 100);
	shard_row(&rows[1], "a", 0, 2, 100);
	shard_row(&rows[2], "a", 1, 2, 100);
	assert_int_equal(sites_merge_shards(rows, 3), 1);
	assert_true(rows[0].incomplete);
	assert_non_null(strstr(rows[0].error, "shard 0 is listed twice"));
	/* counts that differ; a collector listed twice, unsharded */
	shard_row(&rows[0], "a", 0, 2, 100);
	shard_row(&rows[1], "a", 1, 3, 100);
	assert_int_equal(sites_merge_shards(rows, 2), 1);
	assert_non_null(strstr(rows[0].error, "counts differ (2 and 3)"));
	row(&rows[0], "a", 100, 10, 5, false);
	row(&rows[1], "a", 100, 10, 5, false);
	assert_int_equal(sites_merge_shards(rows, 2), 1);
	assert_true(rows[0].incomplete);
	assert_non_null(strstr(rows[0].error, "not sharded"));
	/* a shard that does not answer: unreachable, its reason */
	shard_row(&rows[0], "a", 0, 2, 100);
	shard_row(&rows[1], "a", 1, 2, 100);
	rows[1].reachable = false;
	snprintf(rows[1].error, sizeof(rows[1].error), "timed out");
	rows[1].last_ok = 3;
	rows[0].last_ok = 8;
	assert_int_equal(sites_merge_shards(rows, 2), 1);
	assert_false(rows[0].reachable || rows[0].incomplete);
	assert_string_equal(rows[0].error, "a shard's collector: timed out");
	assert_true(rows[0].last_ok == 3);
	assert_false(rows[0].q[FB_WALL].has_power);
	/* unsharded sites pass through untouched */
	row(&rows[0], "a", 100, 10, 5, false);
	row(&rows[1], "b", 200, 10, 5, false);
	assert_int_equal(sites_merge_shards(rows, 2), 2);
	assert_true(rows[1].q[FB_WALL].energy == 200 && rows[1].shards == 0);
}

static void
test_parse_shard(void **st)
{
	static const char with[] = "{\"time\":\"2026-12-02T01:41:10Z\","
	    "\"site\":\"a\",\"boundaries\":{},\"shard\":{\"index\":2,"
	    "\"count\":3}}";
	static const char bad[] = "{\"time\":\"2026-12-02T01:41:10Z\","
	    "\"site\":\"a\",\"boundaries\":{},\"shard\":{\"index\":3,"
	    "\"count\":3}}";
	struct site_row r;
	struct wp_err err = { 0 };

	(void)st;
	assert_int_equal(site_row_parse("a", with, NOW, &r, &err), 0);
	assert_true(r.shard_index == 2 && r.shard_count == 3);
	assert_int_equal(site_row_parse("site-b", doc_b, NOW, &r, &err), 0);
	assert_int_equal(r.shard_count, 0);
	assert_int_equal(site_row_parse("a", bad, NOW, &r, &err), -1);
	assert_false(r.reachable);
	assert_non_null(strstr(r.error, "its shard"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_shards),
		cmocka_unit_test(test_parse_shard),
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
