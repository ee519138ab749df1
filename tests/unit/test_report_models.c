/*
 * Unit tests: model/report_models.c - the report per model: an engine's
 * model from its series' label, else the config, else "unknown"; GPUs by
 * the engines' gpus map, all of a one-model node's GPUs without one, an
 * idle GPU and a node without engines to unallocated; a model served on
 * two classes summed; two models without a map warned and unallocated;
 * tokens and J/token per model; the entries add up to the fleet's figure
 * at every boundary.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_model_near.h"
#include "report_fixture.h"
#include "../../model/attr.h"
#include "../../model/report_models.h"
#include "../../model/report_node.h"

#define N	3	/* n1 (A: llama gpus 0,1; mistral gpu 2; gpu 3 idle),
			   n2 (B: llama, no map), n3 (no engines) */
#define G	4

struct fx {
	struct report_node nodes[N];
	struct report_engine eng[3];
	struct report_settings set;
	struct report_input in;
	struct report_series *s[32];
	size_t ns;
	struct report_sel sel[N];
	struct report_node_fig nf[N];
	int of[N];
	const char *cls[2];
	struct report r;
};

static struct report_series *
ser(struct fx *f, const char *key, int role, int node, int idx, double e,
    const char *labels)
{
	struct report_series *s = rf_result(key, role, node, idx, WP_COUNTER,
	    e, 0);

	snprintf(s->labels, sizeof(s->labels), "%s", labels);
	f->s[f->ns++] = s;
	return s;
}

/* Node i: GPU g draws gpu[g] J; wall, outlet, facility given. */
static void
node(struct fx *f, int i, const double *gpu, double wall, double outl,
    double fac)
{
	const double e[BND_N] = { 0, wall, outl, fac };
	char key[64];
	double sum = 0;
	int g, b;

	for (g = 0; g < G; g++) {
		snprintf(key, sizeof(key), "%s/gpu|gpu/%d/energy",
		    f->nodes[i].name, g);
		f->sel[i].gib[g] = ser(f, key, RR_GPU_IB, i, g, gpu[g], "");
		sum += gpu[g];
	}
	for (b = 0; b < BND_N; b++) {
		struct bnd_value *v = &f->nf[i].b[b].v;

		*v = (struct bnd_value){ .valid = true, .energy_j = b ==
		    BND_GPU ? sum : e[b], .method = BM_COUNTER };
		f->r.tot[b].energy_j += v->energy_j;
	}
}

static void
tokens(struct fx *f, int i, int eng, double out, const char *labels)
{
	char key[64];

	snprintf(key, sizeof(key), "%s/engine%d|tokens/output",
	    f->nodes[i].name, eng);
	f->sel[i].tok_out[f->sel[i].n_out++] = ser(f, key, RR_TOK_OUT, i, 0,
	    out, labels);
}

static void
setup(struct fx *f, bool map)
{
	static const double g1[G] = { 100, 200, 50, 30 };
	static const double g2[G] = { 80, 80, 80, 80 };
	static const double g3[G] = { 10, 10, 10, 10 };

	memset(f, 0, sizeof(*f));
	report_settings_init(&f->set);
	f->eng[0] = (struct report_engine){ .model = "ignored-by-label",
	    .gpus = { 0, 1 }, .n_gpus = map ? 2 : 0 };
	f->eng[1] = (struct report_engine){ .model = "mistral",
	    .gpus = { 2 }, .n_gpus = map ? 1 : 0 };
	f->eng[2] = (struct report_engine){ 0 };
	f->nodes[0] = (struct report_node){ .name = "n1", .cls = "A",
	    .engines = &f->eng[0], .n_engines = 2 };
	f->nodes[1] = (struct report_node){ .name = "n2", .cls = "B",
	    .engines = &f->eng[2], .n_engines = 1 };
	f->nodes[2] = (struct report_node){ .name = "n3" };
	f->in = (struct report_input){ .nodes = f->nodes, .n_nodes = N,
	    .set = &f->set };
	f->r.nodes = f->nf;
	f->r.n_nodes = N;
	f->cls[0] = "A";
	f->cls[1] = "B";
	f->of[0] = 0;
	f->of[1] = 1;
	f->of[2] = -1;
	f->r.cls = (struct report_classes){ .ncls = 2, .name = f->cls,
	    .of = f->of };
	node(f, 0, g1, 600, 620, 732);
	node(f, 1, g2, 500, 510, 610);
	node(f, 2, g3, 90, 95, 110);
	tokens(f, 0, 0, 1000, "direction=output;model=llama");
	tokens(f, 0, 1, 200, "direction=output");
	tokens(f, 1, 0, 3000, "model=llama;engine=vllm");
}

static void
teardown(struct fx *f)
{
	size_t i;

	for (i = 0; i < f->ns; i++)
		rf_free(f->s[i]);
	report_models_free(&f->r.models);
	report_warnings_fini(&f->r.warnings);
}

static const struct report_model *
find(const struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->models.n; i++)
		if (strcmp(r->models.v[i].name, name) == 0)
			return &r->models.v[i];
	fail_msg("no model %s", name);
	return NULL;
}

static void
assert_fleet_sums(const struct report *r)
{
	size_t i;
	int b;

	for (b = 0; b < BND_N; b++) {
		double s = 0;

		for (i = 0; i < r->models.n; i++) {
			assert_true(r->models.v[i].ok[b]);
			s += r->models.v[i].energy_j[b];
		}
		assert_near(s, r->tot[b].energy_j, 1e-12 * r->tot[b].energy_j);
	}
}

static void
test_mapped(void **st)
{
	struct fx f;
	const struct report_model *l, *m, *u;

	(void)st;
	setup(&f, true);
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	assert_int_equal(f.r.models.n, 3);
	assert_true(f.r.models.v[2].unallocated);	/* last */
	l = find(&f.r, "llama");
	m = find(&f.r, "mistral");
	u = find(&f.r, REPORT_UNALLOCATED);
	/* llama: n1 GPUs 0-1 (300 J) and all of n2 (320 J), two classes */
	assert_int_equal(l->nodes, 2);
	assert_int_equal(l->gpus, 6);
	assert_near(l->energy_j[BND_GPU], 300 + 320, 1e-9);
	assert_near(l->energy_j[BND_WALL], 300 + 220 * 300 / 380.0 + 500,
	    1e-9);
	assert_near(l->out, 4000, 0);
	assert_near(l->j_per_token[BND_WALL], l->energy_j[BND_WALL] / 4000,
	    1e-12);
	assert_near(l->tokens_per_j[BND_GPU], 4000 / 620.0, 1e-12);
	/* mistral: the config's name, GPU 2 */
	assert_near(m->energy_j[BND_GPU], 50, 1e-12);
	assert_near(m->energy_j[BND_FACILITY], 50 + 352 * 50 / 380.0, 1e-9);
	assert_near(m->out, 200, 0);
	/* per class: llama in A (n1's GPUs 0-1) and B (n2), n3 unclassified */
	assert_int_equal(f.r.models.n_cls, 3);
	assert_near(l->cls[0].energy_j[BND_GPU], 300, 1e-9);
	assert_near(l->cls[1].energy_j[BND_WALL], 500, 1e-9);
	assert_near(l->cls[1].out, 3000, 0);
	assert_int_equal(l->cls[2].nodes, 0);
	/* unallocated: n1's idle GPU 3 with its share, and all of n3 */
	assert_near(u->energy_j[BND_GPU], 30 + 40, 1e-12);
	assert_near(u->energy_j[BND_WALL], 30 + 220 * 30 / 380.0 + 90, 1e-9);
	assert_int_equal(u->nodes, 2);
	assert_int_equal(u->gpus, 5);
	assert_near(u->cls[2].energy_j[BND_WALL], 90, 1e-9);
	assert_near(u->cls[0].energy_j[BND_GPU], 30, 1e-12);
	assert_true(isnan(u->j_per_token[BND_WALL]));
	assert_fleet_sums(&f.r);
	/* the config's name differs from the label: warned */
	assert_int_equal(f.r.warnings.n, 1);
	assert_non_null(strstr(f.r.warnings.v[0], "reports model 'llama'"));
	teardown(&f);
}

static void
test_unmapped_and_unknown(void **st)
{
	struct fx f;
	const struct report_model *l, *u;

	(void)st;
	setup(&f, false);
	f.eng[1].model = NULL;		/* engine1: no label, no config */
	f.set.attribution = ATTR_PER_GPU;
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	l = find(&f.r, "llama");
	u = find(&f.r, REPORT_UNALLOCATED);
	assert_non_null(find(&f.r, REPORT_UNKNOWN_MODEL));
	/* n1 serves two models without gpus: all of it unallocated */
	assert_near(l->energy_j[BND_WALL], 500, 1e-9);
	assert_near(u->energy_j[BND_WALL], 600 + 90, 1e-9);
	assert_near(find(&f.r, REPORT_UNKNOWN_MODEL)->energy_j[BND_GPU], 0, 0);
	assert_fleet_sums(&f.r);
	assert_int_equal(f.r.warnings.n, 2);
	assert_non_null(strstr(f.r.warnings.v[1], "node n1: its engines serve "
	    "2 models and give no gpus"));
	teardown(&f);
}

static void
test_tenants(void **st)
{
	static const char *ma[] = { "llama" }, *nb[] = { "n3" },
	    *nc[] = { "ns-c" };
	struct report_tenant ten[3] = {
		{ .name = "team-a", .models = ma, .n_models = 1 },
		{ .name = "team-b", .nodes = nb, .n_nodes = 1 },
		{ .name = "team-c", .namespaces = nc, .n_namespaces = 1 },
	};
	const struct report_model *a, *b, *c, *u;
	struct fx f;
	size_t i;
	int k;

	(void)st;
	setup(&f, true);
	f.set.tenants = ten;
	f.set.n_tenants = 3;
	/* n1's GPU 2 series (the third of the fixture's) */
	snprintf(f.s[2]->labels, sizeof(f.s[2]->labels),
	    "uuid=GPU-2;namespace=ns-c;pod=mistral-0");
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	assert_int_equal(f.r.tenants.n, 4);
	a = &f.r.tenants.v[0];
	b = &f.r.tenants.v[1];
	c = &f.r.tenants.v[2];
	u = &f.r.tenants.v[3];
	assert_string_equal(a->name, "team-a");
	assert_true(u->unallocated);
	/* team-a by model: llama's GPUs on n1 and n2 */
	assert_near(a->energy_j[BND_GPU], 620, 1e-9);
	assert_near(a->out, 4000, 0);
	/* team-b by node: all of n3, idle GPUs included */
	assert_near(b->energy_j[BND_WALL], 90, 1e-9);
	assert_int_equal(b->gpus, 4);
	/* team-c by the GPU's namespace; mistral's tokens by its GPU */
	assert_near(c->energy_j[BND_GPU], 50, 1e-12);
	assert_near(c->energy_j[BND_WALL], 50 + 220 * 50 / 380.0, 1e-9);
	assert_near(c->out, 200, 0);
	assert_near(u->energy_j[BND_GPU], 30, 1e-12);
	for (k = 0; k < BND_N; k++) {
		double sum = 0;

		for (i = 0; i < f.r.tenants.n; i++)
			sum += f.r.tenants.v[i].energy_j[k];
		assert_near(sum, f.r.tot[k].energy_j, 1e-12 *
		    f.r.tot[k].energy_j);
	}
	report_models_free(&f.r.tenants);
	teardown(&f);
}

/* The tenants' sums at every boundary equal the fleet's. */
static void
assert_tenant_sums(const struct report *r)
{
	size_t i;
	int k;

	for (k = 0; k < BND_N; k++) {
		double sum = 0;

		for (i = 0; i < r->tenants.n; i++)
			sum += r->tenants.v[i].energy_j[k];
		assert_near(sum, r->tot[k].energy_j, 1e-12 * r->tot[k].energy_j);
	}
}

static struct report_tenant ten_c[1];
static const char *nc_only[] = { "ns-c" };

/* MIG (issue 22): n1's idle GPU 3 (30 J) split into a 3g.40gb instance
 * whose pod is in ns-c and a 2g.20gb one without a pod: ns-c gets 3/7 of
 * it, the 2 slices of the instance without a pod and the 2 no instance
 * holds go to unallocated; an A30 has 4 slices. */
static void
test_tenants_mig(void **st)
{
	const struct report_model *c, *u;
	struct fx f;

	(void)st;
	setup(&f, true);
	ten_c[0] = (struct report_tenant){ .name = "team-c",
	    .namespaces = nc_only, .n_namespaces = 1 };
	f.set.tenants = ten_c;
	f.set.n_tenants = 1;
	snprintf(f.s[3]->labels, sizeof(f.s[3]->labels),
	    "uuid=GPU-3;model=NVIDIA H100 80GB HBM3;mig=3g.40gb:ns-c,"
	    "2g.20gb:;namespace=ns-c");
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	c = &f.r.tenants.v[0];
	u = &f.r.tenants.v[1];
	assert_string_equal(c->name, "team-c");
	assert_near(c->energy_j[BND_GPU], 30 * 3 / 7.0, 1e-12);
	assert_near(c->energy_j[BND_WALL], 30 * 3 / 7.0 * (1 + 220 / 380.0),
	    1e-9);
	assert_near(u->energy_j[BND_GPU], f.r.tot[BND_GPU].energy_j -
	    30 * 3 / 7.0, 1e-9);
	assert_tenant_sums(&f.r);
	report_models_free(&f.r.tenants);
	report_models_free(&f.r.models);
	memset(&f.r.tenants, 0, sizeof(f.r.tenants));
	memset(&f.r.models, 0, sizeof(f.r.models));
	/* the same layout on an A30: 3 of 4 slices (no other instance fits
	 * the rest but the 2g: 5 slices seen, so 3/5) */
	snprintf(f.s[3]->labels, sizeof(f.s[3]->labels),
	    "model=NVIDIA A30;mig=3g.40gb:ns-c,2g.20gb:");
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	assert_near(f.r.tenants.v[0].energy_j[BND_GPU], 30 * 3 / 5.0, 1e-12);
	assert_tenant_sums(&f.r);
	report_models_free(&f.r.tenants);
	teardown(&f);
}

/* A pod that moved: n1's GPU 2 (50 J) held by ns-c for 60 % of the
 * energy the loader saw, then by a pod without a namespace: ns-c gets
 * 60 % of it (and of its share of the overheads), the rest unallocated. */
static void
test_tenants_pod_move(void **st)
{
	struct attr_holds h = { 0 };
	const struct report_model *c;
	struct fx f;

	(void)st;
	setup(&f, true);
	ten_c[0] = (struct report_tenant){ .name = "team-c",
	    .namespaces = nc_only, .n_namespaces = 1 };
	f.set.tenants = ten_c;
	f.set.n_tenants = 1;
	attr_holds_add(&h, 0, 100, 0, 0, "ns-c");
	attr_holds_add(&h, 0, 100, 50, 60, "ns-c");
	attr_holds_add(&h, 0, 100, 100, 100, "");
	/* 0..50: 60 J ns-c; 50..100: 40 J split (a move in it) */
	assert_int_equal(h.n, 2);
	f.s[2]->holds = &h;
	snprintf(f.s[2]->labels, sizeof(f.s[2]->labels), "namespace=ns-c");
	assert_int_equal(report_models_build(&f.in, f.sel, &f.r), 0);
	c = &f.r.tenants.v[0];
	assert_near(c->energy_j[BND_GPU], 50 * 0.8, 1e-12);
	assert_near(c->energy_j[BND_WALL], 50 * 0.8 * (1 + 220 / 380.0), 1e-9);
	assert_tenant_sums(&f.r);
	f.s[2]->holds = NULL;
	report_models_free(&f.r.tenants);
	teardown(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapped),
		cmocka_unit_test(test_unmapped_and_unknown),
		cmocka_unit_test(test_tenants),
		cmocka_unit_test(test_tenants_mig),
		cmocka_unit_test(test_tenants_pod_move),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
