/*
 * Unit tests: collector/expo/expo_attr.c - the per-model and per-tenant
 * counters: over many random intervals (either rule, coarse outer
 * counters that lag the GPUs), committed or only viewed, the models and
 * the tenants add up to the nodes' energy at the GPU, wall and outlet
 * boundaries, to floating-point rounding, and no counter goes back from
 * one commit to the next, nor moves between commits; the
 * facility is the wall gain x the PUE of its interval, the gain of an
 * interval without a PUE counted as unpriced; a pod that moves takes
 * only the energy after the move; a node seen first attributes all it
 * had; a reading that goes back attributes nothing, and what comes back
 * is not attributed twice; past 64 names the known ones still count.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/conf/conf.h"
#include "../../collector/expo/expo_attr.h"
#include "../../model/attr.h"

/* Two nodes: n1 serves model a on GPUs 0-1 and b on GPU 2, GPU 3 idle
 * (namespace "chat" on GPU 2); n2 one engine of model a, no gpus given,
 * two GPUs.  Tenants: chat (namespace), big (model a). */
struct world {
	struct report_engine	 e1[2], e2[1];
	struct wp_node		 cn[2];
	const char		*t_ns[1], *t_models[1];
	struct report_tenant	 ten[2];
	struct wp_conf		 c;
	struct fleet_node	 n[2];
	struct fleet_inband	 ib[2];
	struct fleet		 fl;
};

static void
world_init(struct world *w, int rule)
{
	memset(w, 0, sizeof(*w));
	w->e1[0] = (struct report_engine){ .model = "a", .gpus = { 0, 1 },
	    .n_gpus = 2 };
	w->e1[1] = (struct report_engine){ .model = "b", .gpus = { 2 },
	    .n_gpus = 1 };
	w->e2[0] = (struct report_engine){ .model = "a" };
	w->cn[0] = (struct wp_node){ .name = "n1", .engines = w->e1,
	    .n_engines = 2 };
	w->cn[1] = (struct wp_node){ .name = "n2", .engines = w->e2,
	    .n_engines = 1 };
	w->t_ns[0] = "chat";
	w->t_models[0] = "a";
	w->ten[0] = (struct report_tenant){ .name = "chat",
	    .namespaces = w->t_ns, .n_namespaces = 1 };
	w->ten[1] = (struct report_tenant){ .name = "big",
	    .models = w->t_models, .n_models = 1 };
	w->c.report.attribution = rule;
	w->c.report.tenants = w->ten;
	w->c.report.n_tenants = 2;
	w->n[0] = (struct fleet_node){ .name = "n1", .conf = &w->cn[0],
	    .gpu_has = 0xf, .eng_has = 3 };
	w->n[1] = (struct fleet_node){ .name = "n2", .conf = &w->cn[1],
	    .gpu_has = 0x3, .eng_has = 1 };
	w->n[0].ib = &w->ib[0];
	w->n[1].ib = &w->ib[1];
	w->ib[0].gpu_ns[2] = "chat";
	w->fl = (struct fleet){ .conf = &w->c, .nodes = w->n, .n_nodes = 2 };
}

/* One random interval: each GPU gains, the wall and outlet gain the GPUs'
 * sum x 1.3 and x 1.35, or nothing (a coarse counter) now and then. */
static void
advance(struct world *w, unsigned *seed)
{
	size_t i;
	int g;

	for (i = 0; i < 2; i++) {
		double sum = 0;

		for (g = 0; g < 4; g++)
			if (w->n[i].gpu_has & (1u << g)) {
				double x = g == 3 ? 70 : 100 + rand_r(seed) % 600;

				w->n[i].ib->gpu_e[g] += x;
				sum += x;
			}
		for (g = 0; g < 2; g++)
			w->n[i].ib->eng_out[g] += rand_r(seed) % 1000;
		w->n[i].b[FB_WALL].has_energy = true;
		w->n[i].b[FB_OUTLET].has_energy = true;
		if (rand_r(seed) % 4 != 0)
			w->n[i].b[FB_WALL].energy += sum * 1.3 * (1 +
			    (rand_r(seed) % 4 == 0));
		if (rand_r(seed) % 3 != 0)
			w->n[i].b[FB_OUTLET].energy += sum * 1.35;
	}
}

static double
tab_sum(const struct attr_tab *t, int b)
{
	double s = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		s += t->v[i].j[b];
	return s;
}

static const struct attr_sum *
find(const struct attr_tab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

static void
assert_adds_up(const struct world *w, const struct attr_view *v)
{
	static const int fb[3] = { FB_GPU, FB_WALL, FB_OUTLET };
	static const int bb[3] = { BND_GPU, BND_WALL, BND_OUTLET };
	double tot, gpu;
	size_t i;
	int k, g;

	for (k = 0; k < 3; k++) {
		tot = 0;
		for (i = 0; i < 2; i++) {
			gpu = 0;
			for (g = 0; g < 4; g++)
				gpu += w->n[i].ib->gpu_e[g];
			tot += k == 0 ? gpu : w->n[i].b[fb[k]].energy;
		}
		assert_true(fabs(tab_sum(&v->models, bb[k]) - tot) <=
		    1e-9 * tot);
		assert_true(fabs(tab_sum(&v->tenants, bb[k]) - tot) <=
		    1e-9 * tot);
	}
}

/* Every entry of a at least as high in b, at every boundary. */
static void
assert_not_back(const struct attr_tab *a, const struct attr_tab *b)
{
	const struct attr_sum *y;
	size_t i;
	int k;

	for (i = 0; i < a->n; i++) {
		assert_non_null(y = find(b, a->v[i].name));
		for (k = 0; k < BND_N; k++)
			assert_true(y->j[k] >= a->v[i].j[k] - 1e-9);
		assert_true(y->out >= a->v[i].out);
	}
}

static void
random_run(int rule)
{
	struct world w;
	struct expo_attr *a = expo_attr_new();
	struct attr_view v, prev = { 0 };
	unsigned seed = 7;
	int i;

	assert_non_null(a);
	world_init(&w, rule);
	for (i = 0; i < 300; i++) {
		advance(&w, &seed);
		if (i % 3 != 0) {	/* between commits nothing moves */
			assert_int_equal(expo_attr_view(a, &w.fl, 1.4, &v), 0);
			assert_true(tab_sum(&v.models, BND_WALL) ==
			    tab_sum(&prev.models, BND_WALL));
			expo_attr_view_fini(&v);
		}
		assert_int_equal(expo_attr_commit(a, &w.fl, 1.4), 0);
		assert_int_equal(expo_attr_view(a, &w.fl, 1.4, &v), 0);
		assert_adds_up(&w, &v);
		assert_true(fabs(v.nodes_j[BND_WALL] - tab_sum(&v.models,
		    BND_WALL)) <= 1e-9 * v.nodes_j[BND_WALL]);
		assert_not_back(&prev.models, &v.models);
		assert_not_back(&prev.tenants, &v.tenants);
		/* the facility is the wall x PUE, the PUE constant here */
		assert_true(fabs(tab_sum(&v.models, BND_FACILITY) -
		    1.4 * tab_sum(&v.models, BND_WALL)) <=
		    1e-9 * tab_sum(&v.models, BND_FACILITY));
		expo_attr_view_fini(&prev);
		prev = v;
	}
	assert_int_equal(prev.rule, rule);
	assert_non_null(find(&prev.models, "unallocated"));
	assert_non_null(find(&prev.tenants, "chat"));
	expo_attr_view_fini(&prev);
	expo_attr_free(a);
}

static void
test_random_proportional(void **st)
{
	(void)st;
	random_run(ATTR_PROPORTIONAL);
}

static void
test_random_per_gpu(void **st)
{
	(void)st;
	random_run(ATTR_PER_GPU);
}

/* Exact figures on one node: GPU 0 (model a) 100 J, GPU 2 (b) 300 J, wall
 * 800 J, in proportion: a 200, b 600 at the wall. */
static void
test_exact_and_pue(void **st)
{
	struct world w;
	struct expo_attr *a = expo_attr_new();
	struct attr_view v;
	const struct attr_sum *s;

	(void)st;
	world_init(&w, ATTR_PROPORTIONAL);
	w.fl.n_nodes = 1;
	w.n[0].gpu_has = 0x5;
	w.n[0].ib->gpu_e[0] = 100;
	w.n[0].ib->gpu_e[2] = 300;
	w.n[0].b[FB_WALL] = (struct fleet_fig){ .energy = 800,
	    .has_energy = true };
	assert_int_equal(expo_attr_commit(a, &w.fl, NAN), 0);
	assert_int_equal(expo_attr_view(a, &w.fl, NAN, &v), 0);
	assert_non_null(s = find(&v.models, "a"));
	assert_true(fabs(s->j[BND_WALL] - 200) < 1e-9);
	assert_false(s->ok[BND_FACILITY]);
	assert_true(fabs(v.facility_unpriced_j - 800) < 1e-9);
	assert_non_null(s = find(&v.models, "b"));
	assert_true(fabs(s->j[BND_WALL] - 600) < 1e-9);
	expo_attr_view_fini(&v);
	/* then 400 J more at the wall, 200 at GPU 0, with a PUE of 1.5: in
	   the sums at the next commit, not before */
	w.n[0].ib->gpu_e[0] += 200;
	w.n[0].b[FB_WALL].energy += 400;
	assert_int_equal(expo_attr_view(a, &w.fl, 1.5, &v), 0);
	assert_true(fabs(find(&v.models, "a")->j[BND_WALL] - 200) < 1e-9);
	expo_attr_view_fini(&v);
	assert_int_equal(expo_attr_commit(a, &w.fl, 1.5), 0);
	assert_int_equal(expo_attr_view(a, &w.fl, 1.5, &v), 0);
	assert_non_null(s = find(&v.models, "a"));
	assert_true(fabs(s->j[BND_WALL] - 600) < 1e-9);
	assert_true(fabs(s->j[BND_FACILITY] - 600) < 1e-9);
	assert_true(fabs(v.facility_unpriced_j - 800) < 1e-9);
	assert_true(fabs(v.nodes_j[BND_WALL] - 1200) < 1e-9);
	expo_attr_view_fini(&v);
	/* a reading that goes back (a target held) attributes nothing, and
	   what comes back is not attributed twice: only past 1200 J */
	w.n[0].b[FB_WALL].energy = 10;
	assert_int_equal(expo_attr_commit(a, &w.fl, 1.5), 0);
	w.n[0].b[FB_WALL].energy = 1200;
	assert_int_equal(expo_attr_commit(a, &w.fl, 1.5), 0);
	assert_int_equal(expo_attr_view(a, &w.fl, 1.5, &v), 0);
	assert_true(fabs(find(&v.models, "a")->j[BND_WALL] - 600) < 1e-9);
	expo_attr_view_fini(&v);
	w.n[0].b[FB_WALL].energy = 1300;
	assert_int_equal(expo_attr_commit(a, &w.fl, 1.5), 0);
	assert_int_equal(expo_attr_view(a, &w.fl, 1.5, &v), 0);
	assert_true(fabs(tab_sum(&v.models, BND_WALL) - 1300) < 1e-9);
	expo_attr_view_fini(&v);
	expo_attr_free(a);
}

/* GPU 2's pod moves from namespace chat to none: chat keeps what it had,
 * the energy after the move goes to b's tenant (none: unallocated). */
static void
test_pod_move(void **st)
{
	struct world w;
	struct expo_attr *a = expo_attr_new();
	struct attr_view v;
	double chat;

	(void)st;
	world_init(&w, ATTR_PROPORTIONAL);
	w.fl.n_nodes = 1;
	w.n[0].ib->gpu_e[2] = 500;
	assert_int_equal(expo_attr_commit(a, &w.fl, NAN), 0);
	w.n[0].ib->gpu_ns[2] = NULL;
	w.n[0].ib->gpu_e[2] += 250;
	assert_int_equal(expo_attr_commit(a, &w.fl, NAN), 0);
	assert_int_equal(expo_attr_view(a, &w.fl, NAN, &v), 0);
	chat = find(&v.tenants, "chat")->j[BND_GPU];
	assert_true(fabs(chat - 500) < 1e-9);
	assert_true(fabs(find(&v.tenants, "unallocated")->j[BND_GPU] - 250) <
	    1e-9);
	/* the model keeps its GPU throughout */
	assert_true(fabs(find(&v.models, "b")->j[BND_GPU] - 750) < 1e-9);
	expo_attr_view_fini(&v);
	expo_attr_free(a);
}

/* With no state (a one-off snapshot) the view is the whole cumulative. */
static void
test_stateless(void **st)
{
	struct world w;
	struct attr_view v;

	(void)st;
	world_init(&w, ATTR_PER_GPU);
	w.n[1].ib->gpu_e[0] = 40;
	w.n[1].ib->gpu_e[1] = 60;
	assert_int_equal(expo_attr_view(NULL, &w.fl, NAN, &v), 0);
	assert_true(fabs(find(&v.models, "a")->j[BND_GPU] - 100) < 1e-9);
	assert_true(find(&v.tenants, "big") != NULL);
	expo_attr_view_fini(&v);
}

/* Nodes without in-band readings (no GPU or engine arrays in their
 * snapshot, though their engines name GPUs and tenants are configured):
 * the wall's energy is split all the same, none lost or made. */
static void
test_no_inband(void **st)
{
	struct world w;
	struct attr_view v;
	double models = 0, tenants = 0;
	size_t i;
	int rule;

	(void)st;
	for (rule = ATTR_PROPORTIONAL; rule <= ATTR_PER_GPU; rule++) {
		world_init(&w, rule);
		for (i = 0; i < 2; i++) {
			w.n[i].ib = NULL;
			w.n[i].gpu_has = 0;
			w.n[i].eng_has = 0;
			w.n[i].b[FB_WALL] = (struct fleet_fig){ .energy = 400,
			    .has_energy = true };
		}
		assert_int_equal(expo_attr_view(NULL, &w.fl, NAN, &v), 0);
		models = tenants = 0;
		for (i = 0; i < v.models.n; i++)
			models += v.models.v[i].j[BND_WALL];
		for (i = 0; i < v.tenants.n; i++)
			tenants += v.tenants.v[i].j[BND_WALL];
		assert_true(fabs(models - 800) < 1e-9);
		assert_true(tenants <= 800 + 1e-9);
		expo_attr_view_fini(&v);
	}
}

/* 70 models: past EXPO_ATTR_MAX the new names go to "other", and the
 * names already counted keep counting. */
static void
test_cap_other(void **st)
{
	enum { N = EXPO_ATTR_MAX + 6 };
	static struct report_engine e[N];
	static struct wp_node cn[N];
	static struct fleet_node n[N];
	static struct fleet_inband ib[N];
	static char names[N][16];
	struct wp_conf c;
	struct fleet fl;
	struct expo_attr *a = expo_attr_new();
	struct attr_view v;
	const struct attr_sum *s;
	double before;
	int i;

	(void)st;
	memset(&c, 0, sizeof(c));
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "m%d", i);
		e[i] = (struct report_engine){ .model = names[i] };
		cn[i] = (struct wp_node){ .name = names[i], .engines = &e[i],
		    .n_engines = 1 };
		n[i] = (struct fleet_node){ .name = names[i], .conf = &cn[i],
		    .gpu_has = 1, .eng_has = 1, .ib = &ib[i] };
		n[i].ib->gpu_e[0] = 100;
	}
	fl = (struct fleet){ .conf = &c, .nodes = n, .n_nodes = N };
	assert_int_equal(expo_attr_commit(a, &fl, NAN), 0);
	assert_int_equal(expo_attr_view(a, &fl, NAN, &v), 0);
	assert_int_equal(v.models.n, EXPO_ATTR_MAX + 1);
	assert_non_null(s = find(&v.models, "other"));
	assert_true(fabs(s->j[BND_GPU] - 600) < 1e-9);
	before = find(&v.models, "m0")->j[BND_GPU];
	expo_attr_view_fini(&v);
	n[0].ib->gpu_e[0] += 50;
	assert_int_equal(expo_attr_commit(a, &fl, NAN), 0);
	assert_int_equal(expo_attr_view(a, &fl, NAN, &v), 0);
	assert_true(fabs(find(&v.models, "m0")->j[BND_GPU] - before - 50) <
	    1e-9);
	expo_attr_view_fini(&v);
	expo_attr_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_proportional),
		cmocka_unit_test(test_random_per_gpu),
		cmocka_unit_test(test_exact_and_pue),
		cmocka_unit_test(test_pod_move),
		cmocka_unit_test(test_stateless),
		cmocka_unit_test(test_no_inband),
		cmocka_unit_test(test_cap_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
