/* report_models.c - the report per model (see report_models.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "report.h"
#include "report_fleet.h"
#include "report_models.h"
#include "report_node.h"

/* One engine of a node as attribution sees it. */
struct eng {
	char	 model[REPORT_MODEL_NAME];
	double	 out, in;	/* -1 unknown */
	int	 part;		/* the node's part (model) index */
};

const char *
report_models_rule_text(int rule)
{
	if (rule == ATTR_PER_GPU)
		return "GPU energy per GPU to the model whose engine held the "
		    "GPU; each outer boundary's overhead over the GPU figure "
		    "(wall, outlet, facility minus GPU) split evenly per "
		    "allocated GPU; GPUs no engine held, and their energy, to "
		    "unallocated; a node without a GPU figure split evenly per "
		    "allocated GPU";
	return "GPU energy per GPU to the model whose engine held the GPU; "
	    "each outer boundary's overhead over the GPU figure (wall, outlet, "
	    "facility minus GPU) split in proportion to GPU energy, the idle "
	    "GPUs' share to unallocated; GPUs no engine held, and their "
	    "energy, to unallocated; a node without a GPU figure split evenly "
	    "per allocated GPU";
}

/* The value of key in "k=v;k=v" labels into buf ("" none). */
static void
label_value(const char *labels, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), n;
	const char *p = labels, *e;

	buf[0] = '\0';
	while (p != NULL && *p != '\0') {
		e = strchr(p, ';');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return;
		}
		p = e != NULL ? e + 1 : NULL;
	}
}

/* The engine index of a series keyed "<node>/engine<i>|...", or -1. */
static int
engine_index(const char *key)
{
	const char *p = strstr(key, "/engine"), *bar = strchr(key, '|');
	char *end;
	long v;

	if (p == NULL || bar == NULL || p > bar)
		return -1;
	v = strtol(p + 7, &end, 10);
	return end == bar && v >= 0 && v < REPORT_MAX_TOKEN_SRC ? (int)v : -1;
}

static double
tokens_of(const struct report_series *s)
{
	double e;

	return report_series_energy(s, REPORT_W_MAIN, &e) == 0 ? e : -1;
}

/* Whether node i is in a replica after a node with token counters: its
 * tokens were counted there. */
static bool
replica_later(const struct report_input *in, const struct report_sel *sel,
    size_t i)
{
	const struct report_settings *s = in->set;
	size_t k, j, x;

	for (k = 0; k < s->n_replicas; k++)
		for (j = 0; j < s->replicas[k].n_nodes; j++) {
			for (x = 0; x < in->n_nodes; x++)
				if (strcmp(in->nodes[x].name,
				    s->replicas[k].nodes[j]) == 0)
					break;
			if (x == i)
				break;
			if (x < in->n_nodes && sel[x].n_out > 0 &&
			    report_in_replica(s, in->nodes[i].name)) {
				size_t y;

				for (y = j + 1; y < s->replicas[k].n_nodes; y++)
					if (strcmp(s->replicas[k].nodes[y],
					    in->nodes[i].name) == 0)
						return true;
			}
		}
	return false;
}

/* The engines of node i (n of them) into e: model and tokens. */
static void
node_engines(const struct report_input *in, const struct report_sel *a,
    size_t i, struct eng *e, size_t n, struct report *r)
{
	const struct report_node *nd = &in->nodes[i];
	char lab[REPORT_MODEL_NAME];
	size_t k;
	int x;

	for (k = 0; k < n; k++)
		e[k] = (struct eng){ .out = -1, .in = -1 };
	for (k = 0; k < a->n_out; k++)
		if ((x = engine_index(a->tok_out[k]->key)) >= 0 &&
		    (size_t)x < n) {
			e[x].out = tokens_of(a->tok_out[k]);
			label_value(a->tok_out[k]->labels, "model", lab,
			    sizeof(lab));
			snprintf(e[x].model, sizeof(e[x].model), "%s", lab);
		}
	for (k = 0; k < a->n_in; k++)
		if ((x = engine_index(a->tok_in[k]->key)) >= 0 &&
		    (size_t)x < n)
			e[x].in = tokens_of(a->tok_in[k]);
	for (k = 0; k < n; k++) {
		const char *cm = k < nd->n_engines ? nd->engines[k].model : NULL;

		if (e[k].model[0] != '\0' && cm != NULL &&
		    strcmp(cm, e[k].model) != 0)
			report_warn(&r->warnings, "node %s: engine%zu reports "
			    "model '%s', the config says '%s': the engine's is "
			    "used", nd->name, k, e[k].model, cm);
		if (e[k].model[0] == '\0')
			snprintf(e[k].model, sizeof(e[k].model), "%s", cm ? cm :
			    REPORT_UNKNOWN_MODEL);
		if (strchr(e[k].model, ',') != NULL)
			report_warn(&r->warnings, "node %s: engine%zu serves "
			    "several models (%s): reported as one entry", nd->name,
			    k, e[k].model);
	}
}

/* The index of name's entry in m (added when new), or -1 out of
 * memory. */
static int
entry(struct report_models *m, const char *name, bool unalloc)
{
	struct report_model *v;
	size_t i;
	int b;

	for (i = 0; i < m->n; i++)
		if (m->v[i].unallocated == unalloc &&
		    strcmp(m->v[i].name, name) == 0)
			return (int)i;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;

		if ((v = realloc(m->v, cap * sizeof(*v))) == NULL)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	v = &m->v[m->n];
	memset(v, 0, sizeof(*v));
	if ((v->cls = calloc(m->n_cls + 1, sizeof(*v->cls))) == NULL)
		return -1;
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->unallocated = unalloc;
	v->in = unalloc ? -1 : 0;
	v->out = unalloc ? -1 : 0;
	for (b = 0; b < BND_N; b++)
		v->rule[b] = -2;	/* none yet */
	for (b = 0; b < BND_N; b++)
		v->ok[b] = true;
	return (int)m->n++;
}

/* The owner (part) of each GPU slot of node a: the engines' gpus lists;
 * without any, the node's one model when it serves one.  Returns the
 * GPU slots. */
static size_t
gpu_owners(const struct report_input *in, const struct report_sel *a,
    size_t i, const struct eng *e, size_t ne, size_t nparts, int *slot,
    int *owner, struct report *r)
{
	const struct report_node *nd = &in->nodes[i];
	bool mapped = false;
	size_t k, j, n = 0;
	int g;

	for (g = 0; g < REPORT_MAX_GPUS; g++)
		if (a->gib[g] != NULL || a->gbmc[g] != NULL) {
			slot[g] = (int)n;
			owner[n++] = ne > 0 && nparts == 1 ? 0 : -1;
		} else
			slot[g] = -1;
	for (k = 0; k < ne && k < nd->n_engines; k++)
		mapped |= nd->engines[k].n_gpus > 0;
	if (!mapped) {
		if (ne > 0 && nparts > 1 && n > 0)
			report_warn(&r->warnings, "node %s: its engines serve %zu "
			    "models and give no gpus: its energy is reported as "
			    "unallocated", nd->name, nparts);
		return n;
	}
	for (j = 0; j < n; j++)
		owner[j] = -1;
	for (k = 0; k < ne && k < nd->n_engines; k++)
		for (j = 0; j < nd->engines[k].n_gpus; j++) {
			g = nd->engines[k].gpus[j];
			if (g < 0 || g >= REPORT_MAX_GPUS || slot[g] < 0)
				report_warn(&r->warnings, "node %s: engine%zu holds "
				    "GPU %d, which has no energy series", nd->name,
				    k, g);
			else
				owner[slot[g]] = e[k].part;
		}
	return n;
}

/* Node i's class slot (r->cls.ncls: no class). */
static size_t
class_slot(const struct report *r, size_t i)
{
	return r->cls.of != NULL && r->cls.of[i] >= 0 ? (size_t)r->cls.of[i] :
	    r->cls.ncls;
}

/* Adds a node's split: its parts are entries pi[0..np), unallocated un,
 * the node's class slot cs. */
static void
add_split(struct report_models *mm, const int *pi, size_t np, int un,
    const double *part_j, const struct attr_out *o, size_t cs)
{
	size_t p;
	int b;

	for (b = 0; b < BND_N; b++)
		for (p = 0; p <= np; p++) {
			struct report_model *m = &mm->v[p < np ? pi[p] : un];
			double x = p < np ? part_j[p * BND_N + (size_t)b] :
			    o->unalloc_j[b];

			if (!o->ok[b]) {
				m->ok[b] = false;
				continue;
			}
			m->energy_j[b] += x;
			m->cls[cs].energy_j[b] += x;
			m->rule[b] = m->rule[b] == -2 || m->rule[b] == o->rule[b] ?
			    o->rule[b] : -1;
		}
}

/* Tokens and counts of a node's engines onto their entries, class slot
 * cs (skip: the tokens were counted at another node of the replica). */
static void
add_engines(struct report_models *mm, const int *pi, size_t np,
    const struct eng *e, size_t ne, bool skip, size_t cs)
{
	size_t k, p;

	for (p = 0; p < np; p++) {
		mm->v[pi[p]].nodes++;
		mm->v[pi[p]].cls[cs].nodes++;
	}
	for (k = 0; k < ne; k++) {
		struct report_model *m = &mm->v[pi[e[k].part]];

		m->engines++;
		if (skip)
			continue;
		if (e[k].out < 0) {
			m->engines_no_tokens++;
			continue;
		}
		m->out += e[k].out;
		m->cls[cs].out += e[k].out;
		m->in = m->in < 0 || e[k].in < 0 ? -1 : m->in + e[k].in;
	}
}

/* The node's parts: one per distinct model of its engines.  Returns
 * their number, or -1 out of memory. */
static int
node_parts(struct report_models *mm, struct eng *e, size_t ne, int *pi)
{
	size_t k, p, np = 0;

	for (k = 0; k < ne; k++) {
		for (p = 0; p < np && strcmp(mm->v[pi[p]].name,
		    e[k].model) != 0; p++)
			;
		if (p == np && (pi[np++] = entry(mm, e[k].model, false)) < 0)
			return -1;
		e[k].part = (int)p;
	}
	return (int)np;
}

/* A node's split by model, as the tenants' split reuses it. */
struct node_split {
	const struct eng *e;
	size_t	 ne;
	const int *pi;			/* part -> entry in r->models */
	const int *slot, *owner;	/* GPU index -> slot; slot -> part */
	size_t	 ng;
	const double *gpu_j;
	const struct bnd_value *v;
};

/* A node's GPUs as the tenants split them: one entry per (GPU slot,
 * holder), with its share of the GPU (weight) and energy. */
#define GP_MAX	(REPORT_MAX_GPUS * (ATTR_MAX_HOLDS * 2 + 1))
struct gpu_parts {
	size_t	 n;
	size_t	 slot[GP_MAX];
	int	 t[GP_MAX];		/* tenant, -1 unallocated */
	double	 w[GP_MAX], j[GP_MAX];
};

static void
gp_add(struct gpu_parts *gp, size_t slot, int t, double w)
{
	if (gp->n >= GP_MAX || !(w > 0))
		return;
	gp->slot[gp->n] = slot;
	gp->t[gp->n] = t;
	gp->w[gp->n++] = w;
}

int
report_tenant_by(const struct report_settings *s, const char *name,
    int what)
{
	size_t t, j, n;
	const char **v;

	if (name == NULL || *name == '\0')
		return -1;
	for (t = 0; t < s->n_tenants; t++) {
		const struct report_tenant *x = &s->tenants[t];

		v = what == 0 ? x->models : what == 1 ? x->namespaces : x->nodes;
		n = what == 0 ? x->n_models : what == 1 ? x->n_namespaces :
		    x->n_nodes;
		for (j = 0; j < n; j++)
			if (strcmp(v[j], name) == 0)
				return (int)t;
	}
	return -1;
}

/* The tenant of a GPU slot k held by namespace ns ("" none): ns's, else
 * the model of the engine holding it, else the node's. */
static int
slot_tenant(const struct report_input *in, size_t i, const struct report *r,
    const struct node_split *ns, size_t k, const char *name)
{
	const struct report_settings *s = in->set;
	int t = report_tenant_by(s, name, RT_BY_NAMESPACE);

	if (t < 0 && ns->owner[k] >= 0)
		t = report_tenant_by(s,
		    r->models.v[ns->pi[ns->owner[k]]].name, RT_BY_MODEL);
	if (t < 0)
		t = report_tenant_by(s, in->nodes[i].name, RT_BY_NODE);
	return t;
}

/* A MIG GPU's parts (its `mig` label: "profile:namespace,..."): each
 * instance N slices over the larger of the GPU's (attr_mig_total) and the
 * instances' sum; the slices no instance holds, and instances whose
 * profile is not one, to unallocated. */
static void
mig_parts(const struct report_input *in, size_t i, const struct report *r,
    const struct node_split *ns, const struct report_series *s, size_t k,
    char *lab, struct gpu_parts *gp)
{
	char model[REPORT_MODEL_NAME], *it, *save = NULL, *c;
	int n[ATTR_MAX_HOLDS * 2], t[ATTR_MAX_HOLDS * 2], m = 0, sum = 0, tot, j;

	for (it = strtok_r(lab, ",", &save); it != NULL && m < ATTR_MAX_HOLDS * 2;
	    it = strtok_r(NULL, ",", &save)) {
		if ((c = strchr(it, ':')) != NULL)
			*c++ = '\0';
		if ((n[m] = attr_mig_slices(it)) < 0)
			continue;
		t[m] = c != NULL && *c ? slot_tenant(in, i, r, ns, k, c) : -1;
		sum += n[m++];
	}
	label_value(s->labels, "model", model, sizeof(model));
	tot = attr_mig_total(model);
	if (sum > tot)
		tot = sum;
	for (j = 0; j < m; j++)
		gp_add(gp, k, t[j], (double)n[j] / tot);
	if (tot > sum)
		gp_add(gp, k, -1, (double)(tot - sum) / tot);
}

/* The parts of GPU slot k, appended to gp: a MIG GPU (its `mig` label,
 * "profile:namespace,..."): each instance by its compute slices out of
 * ATTR_MIG_SLICES, the slices no instance or no known profile holds to
 * unallocated; a GPU whose holder changed (s->holds): each holder by the
 * energy it held; else its one holder (its namespace label). */
static void
slot_parts(const struct report_input *in, size_t i, const struct report *r,
    const struct node_split *ns, const struct report_series *s, size_t k,
    struct gpu_parts *gp)
{
	char lab[WP_LABEL_MAX];
	double share[ATTR_MAX_HOLDS + 1];
	size_t h;

	label_value(s ? s->labels : "", "mig", lab, sizeof(lab));
	if (lab[0] != '\0') {
		mig_parts(in, i, r, ns, s, k, lab, gp);
		return;
	}
	if (s != NULL && s->holds != NULL && s->holds->n > 0 &&
	    attr_holds_shares(s->holds, share) > 0) {
		for (h = 0; h < s->holds->n; h++)
			gp_add(gp, k, slot_tenant(in, i, r, ns, k,
			    s->holds->v[h].ns), share[h]);
		return;
	}
	label_value(s ? s->labels : "", "namespace", lab, sizeof(lab));
	gp_add(gp, k, slot_tenant(in, i, r, ns, k, lab), 1);
}

/* Per GPU slot its parts (gp) and its main tenant tt[k] (the largest
 * share's, -1 unallocated). */
static void
gpu_tenants(const struct report_input *in, const struct report_sel *a,
    size_t i, const struct report *r, const struct node_split *ns, int *tt,
    struct gpu_parts *gp)
{
	double best[REPORT_MAX_GPUS];
	size_t j;
	int g, k;

	gp->n = 0;
	for (g = 0; g < REPORT_MAX_GPUS; g++) {
		if ((k = ns->slot[g]) < 0)
			continue;
		j = gp->n;
		slot_parts(in, i, r, ns, a->gib[g] != NULL ? a->gib[g] :
		    report_gpu_pick(a, g), (size_t)k, gp);
		best[k] = -1;
		for (; j < gp->n; j++)
			if (gp->w[j] > best[k]) {
				best[k] = gp->w[j];
				tt[k] = gp->t[j];
			}
	}
	for (j = 0; j < gp->n; j++)
		gp->j[j] = ns->gpu_j[gp->slot[j]] * gp->w[j];
}

/* The tenant of engine k: its model's, else the node's, else that of
 * the first GPU it holds. */
static int
engine_tenant(const struct report_input *in, size_t i,
    const struct node_split *ns, const int *tt, size_t k)
{
	int t = report_tenant_by(in->set, ns->e[k].model, RT_BY_MODEL);
	size_t j;

	if (t < 0)
		t = report_tenant_by(in->set, in->nodes[i].name,
		    RT_BY_NODE);
	for (j = 0; t < 0 && j < ns->ng; j++)
		if (ns->owner[j] == ns->e[k].part)
			t = tt[j];
	return t;
}

/* Engine k's counts and tokens onto its tenant et[k] (skip: the tokens
 * were counted at another node of the replica). */
static void
tenant_engines(struct report *r, size_t i, const struct node_split *ns,
    const int *et, bool skip)
{
	struct report_model *m;
	size_t k;

	for (k = 0; k < ns->ne; k++) {
		if (et[k] < 0)
			continue;
		m = &r->tenants.v[et[k]];
		m->engines++;
		if (skip)
			continue;
		if (ns->e[k].out < 0) {
			m->engines_no_tokens++;
			continue;
		}
		m->out += ns->e[k].out;
		m->cls[class_slot(r, i)].out += ns->e[k].out;
		m->in = m->in < 0 || ns->e[k].in < 0 ? -1 : m->in + ns->e[k].in;
	}
}

/* Node i's split by tenant onto r->tenants (entries in config order,
 * unallocated last).  0, or -1 out of memory. */
static int
node_tenants(const struct report_input *in, const struct report_sel *sel,
    size_t i, struct report *r, const struct node_split *ns)
{
	size_t nt = in->set->n_tenants, k, np = 0;
	int tt[REPORT_MAX_GPUS], et[REPORT_MAX_TOKEN_SRC], *own;
	int *loc, *pi, t;
	bool skip, un = false;
	double *part_j;
	struct gpu_parts *gp;
	struct attr_out o;

	if (nt == 0)
		return 0;
	loc = calloc(nt, sizeof(int));
	pi = calloc(nt, sizeof(int));
	part_j = calloc(nt * BND_N, sizeof(double));
	gp = calloc(1, sizeof(*gp));
	own = calloc(GP_MAX, sizeof(int));
	if (loc == NULL || pi == NULL || part_j == NULL || gp == NULL ||
	    own == NULL) {
		free(loc);
		free(pi);
		free(part_j);
		free(gp);
		free(own);
		return -1;
	}
	for (k = 0; k < nt; k++)
		loc[k] = -1;
	gpu_tenants(in, &sel[i], i, r, ns, tt, gp);
	for (k = 0; k < ns->ne; k++)
		et[k] = engine_tenant(in, i, ns, tt, k);
	/* the tenants present on the node, as local parts */
	for (k = 0; k < gp->n + ns->ne; k++) {
		t = k < gp->n ? gp->t[k] : et[k - gp->n];
		if (t >= 0 && loc[t] < 0) {
			loc[t] = (int)np;
			pi[np] = t;
			np++;
		}
		un |= k < gp->n && t < 0;
	}
	for (k = 0; k < gp->n; k++)
		own[k] = gp->t[k] >= 0 ? loc[gp->t[k]] : -1;
	attr_split(&(struct attr_in){ .n_gpus = gp->n, .gpu_j = gp->j,
	    .owner = own, .weight = gp->w, .n_parts = np, .tot = ns->v,
	    .rule = in->set->attribution }, part_j, &o);
	skip = replica_later(in, sel, i);
	for (k = 0; k < np; k++) {
		r->tenants.v[pi[k]].nodes++;
		r->tenants.v[pi[k]].cls[class_slot(r, i)].nodes++;
	}
	if (un || np == 0) {
		r->tenants.v[nt].nodes++;
		r->tenants.v[nt].cls[class_slot(r, i)].nodes++;
	}
	for (k = 0; k < ns->ng; k++)
		r->tenants.v[tt[k] >= 0 ? tt[k] : (int)nt].gpus++;
	tenant_engines(r, i, ns, et, skip);
	add_split(&r->tenants, pi, np, (int)nt, part_j, &o,
	    class_slot(r, i));
	free(loc);
	free(pi);
	free(part_j);
	free(gp);
	free(own);
	return 0;
}

static int
node_models(const struct report_input *in, const struct report_sel *sel,
    size_t i, struct report *r)
{
	const struct report_sel *a = &sel[i];
	struct eng e[REPORT_MAX_TOKEN_SRC];
	double gpu_j[REPORT_MAX_GPUS], part_j[REPORT_MAX_TOKEN_SRC * BND_N];
	int slot[REPORT_MAX_GPUS], owner[REPORT_MAX_GPUS];
	int pi[REPORT_MAX_TOKEN_SRC], np, un, g;
	size_t ne = in->nodes[i].n_engines, k, ng, held;
	struct bnd_value v[BND_N], gv;
	struct attr_out o;

	if (ne > REPORT_MAX_TOKEN_SRC)
		ne = REPORT_MAX_TOKEN_SRC;
	node_engines(in, a, i, e, ne, r);
	if ((np = node_parts(&r->models, e, ne, pi)) < 0 ||
	    (un = entry(&r->models, REPORT_UNALLOCATED, true)) < 0)
		return -1;
	ng = gpu_owners(in, a, i, e, ne, (size_t)np, slot, owner, r);
	for (g = 0; g < REPORT_MAX_GPUS; g++)
		if (slot[g] >= 0) {
			report_value(report_gpu_pick(a, g), REPORT_W_MAIN, &gv);
			gpu_j[slot[g]] = gv.valid ? gv.energy_j : 0;
		}
	for (g = 0; g < BND_N; g++)
		v[g] = r->nodes[i].b[g].v;
	attr_split(&(struct attr_in){ .n_gpus = ng, .gpu_j = gpu_j,
	    .owner = owner, .n_parts = (size_t)np, .tot = v,
	    .rule = in->set->attribution }, part_j, &o);
	held = 0;
	for (k = 0; k < ng; k++) {
		r->models.v[owner[k] >= 0 ? pi[owner[k]] : un].gpus++;
		held += owner[k] >= 0;
	}
	if (held < ng || np == 0) {
		r->models.v[un].nodes++;
		r->models.v[un].cls[class_slot(r, i)].nodes++;
	}
	add_engines(&r->models, pi, (size_t)np, e, ne,
	    replica_later(in, sel, i), class_slot(r, i));
	add_split(&r->models, pi, (size_t)np, un, part_j, &o,
	    class_slot(r, i));
	return node_tenants(in, sel, i, r, &(struct node_split){ .e = e,
	    .ne = ne, .pi = pi, .slot = slot, .owner = owner, .ng = ng,
	    .gpu_j = gpu_j, .v = v });
}

/* Per-token figures, carbon and cost of one entry: the site's figure at
 * a boundary x the entry's share of the fleet's energy there. */
static void
finish(struct report *r, struct report_model *m)
{
	static const int cb[REPORT_C_N] = { BND_WALL, BND_FACILITY };
	double tot, share;
	int b, c;

	for (b = 0; b < BND_N; b++) {
		bool t = m->ok[b] && m->out > 0 && m->energy_j[b] > 0;

		/* as the fleet's: all its energy over the tokens counted */
		m->j_per_token[b] = t ? m->energy_j[b] / m->out : NAN;
		m->tokens_per_j[b] = t ? m->out / m->energy_j[b] : NAN;
	}
	for (c = 0; c < REPORT_C_N; c++) {
		b = cb[c];
		tot = r->tot[b].energy_j;
		if (!m->ok[b] || !(tot > 0))
			continue;
		share = m->energy_j[b] / tot;
		if ((m->loc_ok[c] = r->has_carbon && r->carbon.loc_ok[c]))
			m->loc_kg[c] = r->carbon.loc[c].kg * share;
		if ((m->mk_ok[c] = r->has_carbon && r->carbon.mk_ok[c]))
			m->mk_kg[c] = r->carbon.mk[c].kg * share;
	}
	b = r->cost.boundary == REPORT_C_FACILITY ? BND_FACILITY : BND_WALL;
	tot = r->tot[b].energy_j;
	if ((m->cost_ok = r->has_cost && r->cost.ok && m->ok[b] && tot > 0))
		m->cost = r->cost.amount * (m->energy_j[b] / tot);
}

int
report_models_build(const struct report_input *in,
    const struct report_sel *sel, struct report *r)
{
	struct report_models *mm = &r->models;
	struct report_model un;
	size_t i;

	mm->rule = in->set->attribution;
	mm->n_cls = r->tenants.n_cls = r->cls.ncls + 1;
	mm->cost_boundary = r->cost.boundary;
	mm->currency = r->has_cost ? r->cost.currency : NULL;
	for (i = 0; i < in->set->n_tenants; i++)
		if (entry(&r->tenants, in->set->tenants[i].name, false) < 0)
			return -1;
	if (in->set->n_tenants > 0 && entry(&r->tenants, REPORT_UNALLOCATED,
	    true) < 0)
		return -1;
	for (i = 0; i < in->n_nodes; i++)
		if (node_models(in, sel, i, r) == -1)
			return -1;
	/* unallocated last */
	for (i = 0; i < mm->n; i++)
		if (mm->v[i].unallocated) {
			un = mm->v[i];
			memmove(&mm->v[i], &mm->v[i + 1], (mm->n - i - 1) *
			    sizeof(un));
			mm->v[mm->n - 1] = un;
			break;
		}
	for (i = 0; i < mm->n; i++)
		finish(r, &mm->v[i]);
	for (i = 0; i < r->tenants.n; i++)
		finish(r, &r->tenants.v[i]);
	return 0;
}

void
report_models_free(struct report_models *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].cls);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
