/*
 * Unit tests: model/report_fleet.c - a model replica's tokens counted once
 * (its first node with engine counters), nodes outside replicas their
 * own, each under its class so the classes add up to the fleet; a
 * boundary some nodes lack covers the others with their own tokens, a
 * replica only when all its nodes are covered; the partial figure warned
 * and disclosed.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"
#include "../../model/report_fleet.h"

#define N	4	/* a1, a2 (class A, replica ra), b1 (B), c1 (none) */

struct fleet {
	struct report_node nodes[N];
	const char *ra[3];
	struct report_replica rep[2];
	struct report_settings set;
	struct report_input in;
	struct report_series *tok[N];
	struct report_sel sel[N];
	struct bnd_value nv[N * BND_N];
	int of[N];
	const char *names[2];
	double by[3];
	struct report_classes k;
};

static void
fleet_setup(struct fleet *f)
{
	static const char *const nm[N] = { "a1", "a2", "b1", "c1" };
	static const char *const cl[N] = { "A", "A", "B", NULL };
	static const double tokens[N] = { 1000, 1000, 500, 200 };
	int i;

	memset(f, 0, sizeof(*f));
	report_settings_init(&f->set);
	f->ra[0] = "a1";
	f->ra[1] = "a2";
	f->rep[0] = (struct report_replica){ "ra", f->ra, 2 };
	f->set.replicas = f->rep;
	f->set.n_replicas = 1;
	for (i = 0; i < N; i++) {
		char key[64];

		f->nodes[i] = (struct report_node){ .name = nm[i], .cls = cl[i] };
		snprintf(key, sizeof(key), "%s/engine0|tokens/output", nm[i]);
		f->tok[i] = rf_result(key, RR_TOK_OUT, i, 0, WP_COUNTER,
		    tokens[i], 0);
		f->sel[i].tok_out[f->sel[i].n_out++] = f->tok[i];
		f->of[i] = i < 2 ? 0 : i == 2 ? 1 : -1;
	}
	f->in = (struct report_input){ .nodes = f->nodes, .n_nodes = N,
	    .set = &f->set };
	f->names[0] = "A";
	f->names[1] = "B";
	f->k = (struct report_classes){ .ncls = 2, .name = f->names,
	    .of = f->of };
	for (i = 0; i < 3; i++)
		f->by[i] = -1;
}

static void
fleet_free(struct fleet *f)
{
	int i;

	for (i = 0; i < N; i++)
		rf_free(f->tok[i]);
}

/* Node i's wall value: e J, or none. */
static void
wall(struct fleet *f, int i, double e)
{
	struct bnd_value *v = &f->nv[i * BND_N + BND_WALL];

	memset(v, 0, sizeof(*v));
	if (e > 0)
		*v = (struct bnd_value){ .valid = true, .energy_j = e,
		    .method = BM_COUNTER, .bound_j = e / 100 };
}

static void
test_tokens_once_per_replica(void **st)
{
	struct fleet f;

	(void)st;
	fleet_setup(&f);
	assert_true(report_in_replica(&f.set, "a2"));
	assert_false(report_in_replica(&f.set, "b1"));
	assert_near(report_fleet_tokens(&f.in, f.sel, true, REPORT_W_MAIN,
	    &f.k, f.by), 1000 + 500 + 200, 0);
	/* under its class: A (the replica), B, the unclassified slot */
	assert_near(f.by[0], 1000, 0);
	assert_near(f.by[1], 500, 0);
	assert_near(f.by[2], 200, 0);
	assert_near(f.by[0] + f.by[1] + f.by[2], 1700, 0);
	/* the replica's first node without counters: the next one counts */
	f.sel[0].n_out = 0;
	assert_near(report_fleet_tokens(&f.in, f.sel, true, REPORT_W_MAIN,
	    NULL, NULL), 1700, 0);
	/* no counters anywhere: unknown, not 0 */
	f.sel[1].n_out = f.sel[2].n_out = f.sel[3].n_out = 0;
	assert_near(report_fleet_tokens(&f.in, f.sel, true, REPORT_W_MAIN,
	    NULL, NULL), -1, 0);
	fleet_free(&f);
}

static void
test_partial_coverage(void **st)
{
	struct fleet f;
	struct bnd_value tv;
	double out, in;

	(void)st;
	fleet_setup(&f);
	wall(&f, 0, 10);
	wall(&f, 1, 0);			/* a2: no wall energy */
	wall(&f, 2, 20);
	wall(&f, 3, 30);
	/* the replica is not whole: only b1 and c1, with their tokens */
	assert_int_equal(report_cover_partial(&f.in, f.sel, f.nv, BND_WALL,
	    &tv, &out, &in), 2);
	assert_true(tv.valid);
	assert_near(tv.energy_j, 50, 0);
	assert_near(tv.bound_j, 0.5, 1e-12);
	assert_near(out, 700, 0);
	assert_near(in, -1, 0);		/* no input counters */
	/* whole: every node's energy, the replica's tokens once */
	wall(&f, 1, 15);
	assert_int_equal(report_cover_partial(&f.in, f.sel, f.nv, BND_WALL,
	    &tv, &out, &in), 4);
	assert_near(tv.energy_j, 75, 0);
	assert_near(out, 1700, 0);
	/* a replica naming a node not in the inventory never counts */
	f.ra[2] = "ghost";
	f.rep[0].n_nodes = 3;
	assert_int_equal(report_cover_partial(&f.in, f.sel, f.nv, BND_WALL,
	    &tv, &out, &in), 2);
	assert_near(out, 700, 0);
	fleet_free(&f);
}

/* The fleet figure: partial, warned, disclosed, J/token over its part. */
static void
test_partial_boundary_figure(void **st)
{
	struct fleet f;
	struct report r;
	struct bnd_value tv;
	int i;

	(void)st;
	fleet_setup(&f);
	memset(&r, 0, sizeof(r));
	r.secs = 600;
	r.out = 1700;
	r.in = -1;
	r.slo = -1;
	wall(&f, 0, 10);
	wall(&f, 1, 0);
	wall(&f, 2, 20);
	wall(&f, 3, 30);
	boundary_total_init(&r.tot[BND_WALL]);
	for (i = 0; i < N; i++)
		boundary_total_add(&r.tot[BND_WALL], &f.nv[i * BND_N +
		    BND_WALL]);
	report_fleet_boundary(&f.in, f.sel, f.nv, BND_WALL, &r, &tv);
	assert_int_equal(r.bnd[BND_WALL].counted, 2);
	assert_int_equal(r.bnd[BND_WALL].nodes, 4);
	assert_near(r.bnd[BND_WALL].out_covered, 700, 0);
	assert_true(r.bnd[BND_WALL].fig.per_token);
	assert_near(r.bnd[BND_WALL].fig.jt.j_per_output_token, 50.0 / 700,
	    1e-15);
	assert_near(r.bnd[BND_WALL].fig.coverage, 3.0 / 4, 1e-15);
	assert_int_equal(r.warnings.n, 1);
	assert_string_equal(r.warnings.v[0], "wall boundary covers 2 of 4 "
	    "nodes (the rest neither measured nor modeled): energy and "
	    "J/token over those nodes and their 700 output tokens only");
	assert_non_null(r.disc.partial[BND_WALL]);
	assert_string_equal(r.warnings.v[0] + strlen("wall boundary "),
	    r.disc.partial[BND_WALL]);
	free(r.disc.partial[BND_WALL]);
	report_warnings_fini(&r.warnings);
	fleet_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens_once_per_replica),
		cmocka_unit_test(test_partial_coverage),
		cmocka_unit_test(test_partial_boundary_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
