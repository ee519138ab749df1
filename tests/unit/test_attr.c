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
#include <string.h>
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
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PROPORTIONAL, NULL },
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
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PER_GPU, NULL }, part,
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
	attr_split(&(struct attr_in){ 4, gj, own, 2, t, ATTR_PROPORTIONAL, NULL },
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
	attr_split(&(struct attr_in){ 4, gj, none, 1, t, ATTR_PER_GPU, NULL }, part,
	    &o);
	assert_near(o.unalloc_j[BND_FACILITY], 732, 1e-9);
	assert_near(part[BND_FACILITY], 0, 0);
	/* no GPU energy at all: proportional falls back to per GPU */
	{
		static const double zero[2] = { 0, 0 };
		static const int o2[2] = { 0, -1 };

		totals(t, 0, 100, 100, 120);
		attr_split(&(struct attr_in){ 2, zero, o2, 1, t,
		    ATTR_PROPORTIONAL, NULL }, part, &o);
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
		    k % 2 ? ATTR_PER_GPU : ATTR_PROPORTIONAL, NULL }, part, &o);
		assert_sums(t, part, 5, &o);
	}
}


/* A pod that moves: GPU 3 held by "search" for the first 60 s of a 100 s
 * window at 500 W, then by "chat" at 300 W, readings every 10 s and one
 * before and after the window; the move between 60 and 70 s: that
 * interval half and half. */
static void
test_holds_pod_move(void **st)
{
	struct attr_holds h;
	double share[ATTR_MAX_HOLDS + 1], cum = 0, held;
	long long t, from = 1000, to = 1100, S = 1;
	size_t i;

	(void)st;
	memset(&h, 0, sizeof(h));
	for (t = 990; t <= 1110; t += 10) {
		const char *ns = t <= 1060 ? "search" : "chat";

		if (t > 990)
			cum += (t <= 1060 ? 500.0 : 300.0) * 10;
		attr_holds_add(&h, from * S, to * S, t * S, cum, ns);
	}
	assert_int_equal(h.n, 2);
	held = attr_holds_shares(&h, share);
	/* in the window: 1000..1060 at 500 W = 30 kJ to search; 1060..1070
	 * (3 kJ at 300 W) split; 1070..1100 = 9 kJ to chat */
	assert_near(held, 30000 + 3000 + 9000, 1e-6);
	assert_string_equal(h.v[0].ns, "search");
	assert_near(h.v[0].j, 31500, 1e-6);
	assert_near(h.v[1].j, 10500, 1e-6);
	assert_near(share[0] + share[1], 1, 1e-12);
	/* an out-of-order reading is skipped, the window's edges clip */
	attr_holds_add(&h, from, to, 1050, cum + 1e6, "x");
	assert_int_equal(h.n, 2);
	for (i = 0; i < h.n; i++)
		assert_true(h.v[i].j < 40000);
}

/* More holders than ATTR_MAX_HOLDS: the rest to "" (no namespace). */
static void
test_holds_overflow(void **st)
{
	static const char *const ns[] = { "a", "b", "c", "d", "e", "f" };
	struct attr_holds h;
	double share[ATTR_MAX_HOLDS + 1];
	int k;

	(void)st;
	memset(&h, 0, sizeof(h));
	for (k = 0; k < 12; k++)
		attr_holds_add(&h, 0, 1000, 10 * k, 100.0 * k, ns[k / 2]);
	assert_int_equal(h.n, ATTR_MAX_HOLDS + 1);
	assert_string_equal(h.v[ATTR_MAX_HOLDS].ns, "");
	assert_near(attr_holds_shares(&h, share), 1100, 1e-9);
	assert_true(h.v[ATTR_MAX_HOLDS].j > 0);
}

/* MIG: the profile's compute slices; a GPU's by its model. */
static void
test_mig_slices(void **st)
{
	(void)st;
	assert_int_equal(attr_mig_slices("3g.40gb"), 3);
	assert_int_equal(attr_mig_slices("1g.10gb+me"), 1);
	assert_int_equal(attr_mig_slices("7g.80gb"), 7);
	assert_int_equal(attr_mig_slices("1g.6gb"), 1);
	assert_int_equal(attr_mig_slices("9g.80gb"), -1);
	assert_int_equal(attr_mig_slices("0g.1gb"), -1);
	assert_int_equal(attr_mig_slices("g.40gb"), -1);
	assert_int_equal(attr_mig_slices("3c.40gb"), -1);
	assert_int_equal(attr_mig_slices(""), -1);
	assert_int_equal(attr_mig_slices(NULL), -1);
	assert_int_equal(attr_mig_total("NVIDIA A30"), 4);
	assert_int_equal(attr_mig_total("NVIDIA H100 80GB HBM3"), 7);
	assert_int_equal(attr_mig_total(NULL), 7);
}

/* A GPU split over two holders (weights 0.6 and 0.4) and a whole GPU:
 * per GPU, the overhead goes by weight (0.6 : 0.4 : 1); the parts add up. */
static void
test_weights_per_gpu(void **st)
{
	const double gpu[3] = { 600, 400, 1000 }, w[3] = { 0.6, 0.4, 1 };
	const int ow[3] = { 0, 1, 1 };
	struct bnd_value t[BND_N];
	double part[2 * BND_N];
	struct attr_out o;

	(void)st;
	totals(t, 2000, 3000, 3100, 4000);
	attr_split(&(struct attr_in){ .n_gpus = 3, .gpu_j = gpu, .owner = ow,
	    .weight = w, .n_parts = 2, .tot = t, .rule = ATTR_PER_GPU },
	    part, &o);
	assert_near(part[0 * BND_N + BND_GPU], 600, 1e-9);
	assert_near(part[0 * BND_N + BND_WALL], 600 + 1000 * 0.6 / 2, 1e-9);
	assert_near(part[1 * BND_N + BND_WALL], 1400 + 1000 * 1.4 / 2, 1e-9);
	assert_sums(t, part, 2, &o);
	attr_split(&(struct attr_in){ .n_gpus = 3, .gpu_j = gpu, .owner = ow,
	    .weight = w, .n_parts = 2, .tot = t, .rule = ATTR_PROPORTIONAL },
	    part, &o);
	assert_near(part[0 * BND_N + BND_FACILITY], 600 * 2, 1e-9);
	assert_sums(t, part, 2, &o);
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
		cmocka_unit_test(test_holds_pod_move),
		cmocka_unit_test(test_holds_overflow),
		cmocka_unit_test(test_mig_slices),
		cmocka_unit_test(test_weights_per_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
