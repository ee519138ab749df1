/*
 * Unit tests: model/attr.c - a node's energy split over the models on it:
 * each GPU's energy whole to its holder, idle GPUs' to unallocated, the
 * outer boundaries' overhead in proportion to GPU energy or evenly per
 * allocated GPU; a node without a GPU figure, a node with no GPU held;
 * the parts always add up to the node's figure at every boundary
 * (randomised nodes, to floating-point rounding).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "../../model/attr.h"

static void
totals(struct bnd_value *t, double g, double w, double o, double f)
{
	const double e[BND_N] = { g, w, o, f };
	int b;

	for (b = 0; b < BND_N; b++)
		t[b] = (struct bnd_value){ .valid = true, .energy_j = e[b],
		    .method = BM_COUNTER };
}

/* Asserts the parts and unallocated add up to t at every valid b. */
static void
assert_sums(const struct bnd_value *t, const double *part, size_t np,
    const struct attr_out *o)
{
	size_t p;
	int b;

	for (b = 0; b < BND_N; b++) {
		double s = o->unalloc_j[b];

		if (!t[b].valid) {
			assert_false(o->ok[b]);
			continue;
		}
		for (p = 0; p < np; p++)
			s += part[p * BND_N + (size_t)b];
		assert_near(s, t[b].energy_j, 1e-12 * fabs(t[b].energy_j) +
		    1e-9);
	}
}

static const double gj[4] = { 100, 200, 50, 30 };
static const int own[4] = { 0, 0, 1, -1 };

static void
test_proportional(void **st)
{
	struct bnd_value t[BND_N];
	double part[2 * BND_N];
	struct attr_out o;

	(void)st;
	totals(t, 380, 600, 620, 732);
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PROPORTIONAL },
	    part, &o);
	assert_near(part[0 * BND_N + BND_GPU], 300, 1e-12);
	assert_near(part[1 * BND_N + BND_GPU], 50, 1e-12);
	assert_near(o.unalloc_j[BND_GPU], 30, 1e-12);
	/* wall overhead 220 in proportion 300 : 50 : 30 */
	assert_near(part[0 * BND_N + BND_WALL], 300 + 220 * 300 / 380.0,
	    1e-9);
	assert_near(part[1 * BND_N + BND_WALL], 50 + 220 * 50 / 380.0, 1e-9);
	assert_near(o.unalloc_j[BND_WALL], 30 + 220 * 30 / 380.0, 1e-9);
	assert_near(part[1 * BND_N + BND_FACILITY], 50 + 352 * 50 / 380.0,
	    1e-9);
	assert_int_equal(o.rule[BND_WALL], ATTR_PROPORTIONAL);
	assert_sums(t, part, 2, &o);
}

static void
test_per_gpu(void **st)
{
	struct bnd_value t[BND_N];
	double part[2 * BND_N];
	struct attr_out o;

	(void)st;
	totals(t, 380, 600, 620, 732);
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PER_GPU }, part,
	    &o);
	/* 220 over the 3 allocated GPUs; the idle one keeps its own only */
	assert_near(part[0 * BND_N + BND_WALL], 300 + 2 * 220 / 3.0, 1e-9);
	assert_near(part[1 * BND_N + BND_WALL], 50 + 220 / 3.0, 1e-9);
	assert_near(o.unalloc_j[BND_WALL], 30, 1e-12);
	assert_int_equal(o.rule[BND_OUTLET], ATTR_PER_GPU);
	assert_sums(t, part, 2, &o);
}

static void
test_no_gpu_figure(void **st)
{
	struct bnd_value t[BND_N];
	double part[2 * BND_N];
	struct attr_out o;

	(void)st;
	totals(t, 380, 600, 620, 732);
	t[BND_GPU].valid = false;	/* some GPU without a reading */
	t[BND_OUTLET].valid = false;	/* no outlet */
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PROPORTIONAL },
	    part, &o);
	assert_false(o.ok[BND_GPU]);
	assert_false(o.ok[BND_OUTLET]);
	assert_int_equal(o.rule[BND_WALL], ATTR_WHOLE_PER_GPU);
	assert_near(part[0 * BND_N + BND_WALL], 400, 1e-9);
	assert_near(part[1 * BND_N + BND_WALL], 200, 1e-9);
	assert_near(o.unalloc_j[BND_WALL], 0, 0);
	assert_sums(t, part, 2, &o);
}

static void
test_nothing_held(void **st)
{
	static const int none[4] = { -1, -1, -1, 7 };	/* 7: out of range */
	struct bnd_value t[BND_N];
	double part[1 * BND_N];
	struct attr_out o;

	(void)st;
	totals(t, 380, 600, 620, 732);
	attr_split(&(struct attr_in){ 4, gj, none, 1, t, ATTR_PER_GPU }, part,
	    &o);
	assert_near(o.unalloc_j[BND_FACILITY], 732, 1e-9);
	assert_near(part[BND_FACILITY], 0, 0);
	/* no GPU energy at all: proportional falls back to per GPU */
	{
		static const double zero[2] = { 0, 0 };
		static const int o2[2] = { 0, -1 };

		totals(t, 0, 100, 100, 120);
		attr_split(&(struct attr_in){ 2, zero, o2, 1, t,
		    ATTR_PROPORTIONAL }, part, &o);
		assert_int_equal(o.rule[BND_WALL], ATTR_PER_GPU);
		assert_near(part[BND_WALL], 100, 1e-12);
		assert_sums(t, part, 1, &o);
	}
}

/* Random nodes: up to 16 GPUs, 5 parts, both rules, figures that may
 * be below the GPU figure (instrument disagreement): always the sum. */
static void
test_random_sums(void **st)
{
	double g[16], part[5 * BND_N], sum;
	int owner[16], k, i, n;
	struct bnd_value t[BND_N];
	struct attr_out o;

	(void)st;
	srand(22);
	for (k = 0; k < 2000; k++) {
		n = 1 + rand() % 16;
		sum = 0;
		for (i = 0; i < n; i++) {
			g[i] = (rand() % 3 == 0 ? 0 : 1e3 + rand()) * 1.000001;
			owner[i] = rand() % 6 - 1;
			sum += g[i];
		}
		totals(t, sum, sum * (0.9 + rand() / (double)RAND_MAX),
		    sum * 1.4 + rand(), sum * 1.7 + rand() / 7.0);
		t[BND_OUTLET].valid = rand() % 4 != 0;
		t[BND_GPU].valid = rand() % 8 != 0;
		attr_split(&(struct attr_in){ (size_t)n, g, owner, 5, t,
		    k % 2 ? ATTR_PER_GPU : ATTR_PROPORTIONAL }, part, &o);
		assert_sums(t, part, 5, &o);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proportional),
		cmocka_unit_test(test_per_gpu),
		cmocka_unit_test(test_no_gpu_figure),
		cmocka_unit_test(test_nothing_held),
		cmocka_unit_test(test_random_sums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
