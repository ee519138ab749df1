/*
 * Unit tests: model/report_node.c - a node's series and its modeled wall:
 * the class's wall/GPU ratio inside its measured loads (the load's bin,
 * else the linear fit) and outside them (the nearest usable bin held
 * flat, with the load distance), bins under 1 never used; the modeled
 * wall energy and its bound (REPORT_MODEL_MIN_REL, _NOFIT_REL, the
 * distance, the GPU energy's bound); which series a boundary takes.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"
#include "../../model/report_node.h"

#define LIMIT	1000.0	/* W: the node's GPU power limits */

/* n intervals at GPU power gpu and wall power wall. */
static void
points(struct curve *c, int n, double gpu, double wall)
{
	while (n-- > 0)
		curve_add(c, gpu, wall, LIMIT);
}

static void
test_class_ratio_inside_and_outside(void **st)
{
	struct curve c;
	struct curve_fit f, none = { 0 };
	double d;

	(void)st;
	curve_init(&c);
	assert_true(isnan(report_class_ratio(&c, &none, 0.5, 500, &d)));
	points(&c, 5, 350, 560);	/* load 0.35: ratio 1.6 */
	points(&c, 5, 650, 910);	/* load 0.65: ratio 1.4 */
	curve_fit(&c, 1, &f);
	assert_true(f.valid);
	/* inside: the load's bin */
	assert_near(report_class_ratio(&c, &f, 0.35, 350, &d), 1.6, 1e-12);
	assert_near(d, 0, 0);
	/* inside, an empty bin: the fit (wall = 151.67 + 1.1667 gpu) */
	assert_near(report_class_ratio(&c, &f, 0.5, 500, &d), 735.0 / 500,
	    1e-9);
	assert_near(d, 0, 0);
	/* no fit: the nearest usable bin below */
	assert_near(report_class_ratio(&c, &none, 0.5, 500, &d), 1.6, 1e-12);
	/* outside: held flat, and how far it was carried */
	assert_near(report_class_ratio(&c, &f, 0.1, 100, &d), 1.6, 1e-12);
	assert_near(d, 0.3 - 0.1, 1e-12);
	assert_near(report_class_ratio(&c, &f, 0.95, 950, &d), 1.4, 1e-12);
	assert_near(d, 0.95 - 0.7, 1e-12);
	/* a bin under 1 (the wall below its own GPUs) is never used */
	points(&c, 5, 850, 800);
	assert_true(isnan(report_usable_ratio(&c, 8)));
	assert_near(report_class_ratio(&c, &f, 0.85, 850, &d), 1.4, 1e-12);
	assert_near(d, 0.85 - 0.7, 1e-12);
}

struct node {
	struct report_plan p;
	struct report_series *gpu, *lim;
	struct report_sel sel;
};

/* A node with one GPU at 500 W (load 0.5) over 30 minutes and its
 * limit of 1000 W. */
static void
node_setup(struct node *n)
{
	memset(n, 0, sizeof(*n));
	rf_plan(&n->p, RF_T0, RF_T0 + 1800 * WP_SEC, 300 * WP_SEC);
	n->gpu = rf_series(&n->p, "n/gpu|gpu/0/energy", RR_GPU_IB, 0, 0,
	    WP_COUNTER, 500);
	n->lim = rf_result("n/gpu|gpu/0/power_limit", RR_LIMIT, 0, 0,
	    WP_GAUGE, 0, 0);
	n->lim->lim_sum = 10 * LIMIT;
	n->lim->lim_n = 10;
	report_select((struct report_series *[]){ n->gpu, n->lim }, 2,
	    &n->sel);
}

static void
node_free(struct node *n)
{
	rf_free(n->gpu);
	rf_free(n->lim);
}

static void
test_modeled_wall_and_bound(void **st)
{
	struct node n;
	struct curve c;
	struct bnd_value v;
	double e, gb, gt;

	(void)st;
	node_setup(&n);
	gt = n.gpu->res.energy;
	gb = report_series_bound(n.gpu);
	assert_near(gt, 500 * 1800, 1e-6);
	/* an exact line through loads 0.4-0.6: the bin at 0.5, ratio 1.4;
	 * no scatter: the bound is the least one */
	curve_init(&c);
	points(&c, 3, 400, 580);
	points(&c, 3, 500, 700);
	points(&c, 3, 600, 820);
	assert_int_equal(report_model_wall(&n.sel, &c, &n.p, &v), 0);
	e = gt * 1.4;
	assert_true(v.valid);
	assert_int_equal(v.method, BM_MODELED);
	assert_near(v.energy_j, e, 1e-6);
	assert_near(v.bound_j, e * REPORT_MODEL_MIN_REL + gb * e / gt, 1e-6);
	/* two intervals: no fit, the bound of an underdetermined model */
	curve_init(&c);
	points(&c, 2, 500, 700);
	assert_int_equal(report_model_wall(&n.sel, &c, &n.p, &v), 0);
	assert_near(v.bound_j, e * REPORT_MODEL_NOFIT_REL + gb * e / gt, 1e-6);
	/* measured only at loads 0.2-0.3: the ratio carried 0.2 further
	 * adds 20 % */
	curve_init(&c);
	points(&c, 3, 200, 280);
	points(&c, 3, 250, 350);
	points(&c, 3, 220, 308);
	assert_int_equal(report_model_wall(&n.sel, &c, &n.p, &v), 0);
	assert_near(v.energy_j, gt * 1.4, 1e-6);
	assert_near(v.bound_j, e * (REPORT_MODEL_MIN_REL + (0.5 - 0.3)) +
	    gb * e / gt, 1e-3);
	/* without a class curve, or limits, nothing is modeled */
	curve_init(&c);
	assert_int_equal(report_model_wall(&n.sel, &c, &n.p, &v), -1);
	assert_false(v.valid);
	n.sel.lim[0] = NULL;
	points(&c, 3, 500, 700);
	assert_int_equal(report_model_wall(&n.sel, &c, &n.p, &v), -1);
	node_free(&n);
}

/* A counter whenever one exists, refused or not; in-band GPU readings
 * while accepted, else the BMC's. */
static void
test_series_chosen(void **st)
{
	struct report_series *wc = rf_result("n/bmc|wall/energy", RR_WALL, 0,
	    0, WP_COUNTER, 0, -1);
	struct report_series *wg = rf_result("n/bmc|wall/power", RR_WALL_P, 0,
	    0, WP_GAUGE, 5e6, 0);
	struct report_series *gi = rf_result("n/gpu|gpu/0/energy", RR_GPU_IB,
	    0, 0, WP_COUNTER, 1e6, -1);
	struct report_series *gm = rf_result("n/bmc|gpu/0/energy", RR_GPU_BMC,
	    0, 0, WP_COUNTER, 2e6, 0);
	struct report_sel a;
	struct bnd_value v;
	double cross;

	(void)st;
	memset(&a, 0, sizeof(a));
	report_select((struct report_series *[]){ wg, wc, gi, gm }, 4, &a);
	assert_ptr_equal(a.wall, wc);		/* never papered over */
	memset(&a, 0, sizeof(a));
	report_select((struct report_series *[]){ wg }, 1, &a);
	assert_ptr_equal(a.wall, wg);
	memset(&a, 0, sizeof(a));
	report_select((struct report_series *[]){ gi, gm }, 2, &a);
	assert_ptr_equal(report_gpu_pick(&a, 0), gm);
	report_node_gpu(&a, REPORT_W_MAIN, &v, &cross);
	assert_true(v.valid);
	assert_near(v.energy_j, 2e6, 0);
	gi->rc = 0;
	assert_ptr_equal(report_gpu_pick(&a, 0), gi);
	report_node_gpu(&a, REPORT_W_MAIN, &v, &cross);
	assert_near(v.energy_j, 1e6, 0);
	assert_near(cross, 2e6, 0);		/* the BMC only cross-checks */
	rf_free(wc);
	rf_free(wg);
	rf_free(gi);
	rf_free(gm);
}

/* A source that refreshes its values itself (dcgm-exporter, every 30 s by
 * default) reads up to that old at either edge: its bound adds the mean
 * power x the collection interval. */
static void
test_collect_interval_bound(void **st)
{
	struct report_plan p;
	struct report_series *s;
	double b0, b1;

	(void)st;
	rf_plan(&p, RF_T0, RF_T0 + 600 * WP_SEC, 60 * WP_SEC);
	s = rf_series(&p, "n/gpu|gpu/0/energy", RR_GPU_IB, 0, 0, WP_COUNTER,
	    1000);
	assert_near(s->res.energy, 600e3, 1e-3);
	b0 = report_series_bound(s);
	snprintf(s->labels, sizeof(s->labels), "uuid=GPU-1;dcgm_field=156;"
	    "collect_interval_s=30");
	b1 = report_series_bound(s);
	assert_near(b1 - b0, 1000 * 30, 1e-6);
	snprintf(s->labels, sizeof(s->labels), "collect_interval_s=bad");
	assert_near(report_series_bound(s), b0, 0);
	rf_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_ratio_inside_and_outside),
		cmocka_unit_test(test_modeled_wall_and_bound),
		cmocka_unit_test(test_series_chosen),
		cmocka_unit_test(test_collect_interval_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
