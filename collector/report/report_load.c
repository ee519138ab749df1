/* report_load.c - a report's series from the journal (see report_load.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/counter.h"
#include "../conf/conf.h"
#include "../lib/log.h"
#include "../store/journal.h"
#include "../store/jsum.h"
#include "report_load.h"

#define SER_MIN_CAP	1024	/* the table's first size: its slot order
				   is the order of the disclosure's lists */

/* ------------------------------------------------ series and roles */

/* The node owning outlet n of pdu, or -1.  A config names an outlet by
 * the PDU's 1-based number (the series' <n>) or by its name (the
 * series' name= label). */
static int
outlet_node(const struct wp_conf *c, const char *pdu, const char *n,
    const char *labels, int *slot)
{
	struct wp_sample tmp;
	char name[WP_LABEL_MAX] = "";
	size_t i, j;

	if (labels != NULL && labels[0] != '\0') {
		snprintf(tmp.labels, sizeof(tmp.labels), "%s", labels);
		if (sample_get_label(&tmp, "name", name, sizeof(name)) != 0)
			name[0] = '\0';
	}
	for (i = 0; i < c->n_nodes; i++)
		for (j = 0; j < c->nodes[i].n_outlets; j++) {
			const char *o = c->nodes[i].outlets[j].outlet;

			if (strcmp(c->nodes[i].outlets[j].pdu, pdu) != 0)
				continue;
			if (strcmp(o, n) == 0 || (name[0] != '\0' &&
			    strcmp(o, name) == 0)) {
				*slot = (int)j;
				return (int)i;
			}
		}
	return -1;
}

/* "gpu/<i>/<rest>": index, or -1. */
static int
gpu_series(const char *s, const char *rest)
{
	char *end;
	long i;

	if (strncmp(s, "gpu/", 4) != 0)
		return -1;
	i = strtol(s + 4, &end, 10);
	if (end == s + 4 || *end != '/' || strcmp(end + 1, rest) != 0 ||
	    i < 0 || i >= REPORT_MAX_GPUS)
		return -1;
	return (int)i;
}

enum tgt_kind { TK_NONE, TK_BMC, TK_GPU, TK_ENGINE, TK_PDU, TK_METER };

struct tgt {
	int	 kind;		/* enum tgt_kind */
	int	 node;
	const char *name;	/* pdu / meter name */
	const char *role;	/* meter role */
	int	 meter;		/* index in conf->meters (PDUs: pdus) */
	bool	 inlets;	/* classify PDU inlets */
};

static void
classify_target(const struct wp_conf *c, const char *t, struct tgt *g)
{
	const char *sl = strrchr(t, '/');
	size_t i;

	memset(g, 0, sizeof(*g));
	g->node = -1;
	if (sl != NULL) {
		if ((g->node = conf_node_index(c, t, (size_t)(sl - t))) < 0)
			return;
		if (strcmp(sl + 1, "bmc") == 0)
			g->kind = TK_BMC;
		else if (strcmp(sl + 1, "gpu") == 0)
			g->kind = TK_GPU;
		else if (strncmp(sl + 1, "engine", 6) == 0)
			g->kind = TK_ENGINE;
		return;
	}
	for (i = 0; i < c->n_pdus; i++)
		if (strcmp(c->pdus[i].name, t) == 0) {
			g->kind = TK_PDU;
			g->name = c->pdus[i].name;
			g->meter = (int)i;
			return;
		}
	for (i = 0; i < c->n_meters; i++)
		if (strcmp(c->meters[i].name, t) == 0) {
			g->kind = TK_METER;
			g->meter = (int)i;
			g->name = c->meters[i].name;
			g->role = c->meters[i].role;
			return;
		}
}

/* The role of outlet series s ("outlet/<n>/energy|power") of PDU g. */
static int
classify_outlet(const struct wp_conf *c, const struct tgt *g, const char *s,
    const char *labels, int *node, int *idx)
{
	const char *e = strchr(s + 7, '/');
	char n[32];

	if (e == NULL || (size_t)(e - s - 7) >= sizeof(n))
		return RR_NONE;
	snprintf(n, sizeof(n), "%.*s", (int)(e - s - 7), s + 7);
	if ((*node = outlet_node(c, g->name, n, labels, idx)) < 0)
		return RR_NONE;
	if (strcmp(e, "/energy") == 0)
		return RR_OUTLET;
	if (strcmp(e, "/power") == 0)
		return RR_OUTLET_P;
	return RR_NONE;
}

/* The role of series s on a node's BMC, GPU or engine target. */
static int
classify_node(int kind, const char *s, int *idx)
{
	int i;

	switch (kind) {
	case TK_BMC:
		if (strcmp(s, "wall/energy") == 0)
			return RR_WALL;
		if (strcmp(s, "wall/power") == 0)
			return RR_WALL_P;
		if ((i = gpu_series(s, "energy")) >= 0)
			return *idx = i, RR_GPU_BMC;
		if ((i = gpu_series(s, "power")) >= 0)
			return *idx = i, RR_GPU_BMC_P;
		return RR_NONE;
	case TK_GPU:
		if ((i = gpu_series(s, "energy")) >= 0)
			return *idx = i, RR_GPU_IB;
		if ((i = gpu_series(s, "power")) >= 0)
			return *idx = i, RR_GPU_IB_P;
		if ((i = gpu_series(s, "power_limit")) >= 0)
			return *idx = i, RR_LIMIT;
		if ((i = gpu_series(s, "sm_clock")) >= 0)
			return *idx = i, RR_CLOCK;
		return RR_NONE;
	case TK_ENGINE:
		if (strcmp(s, "tokens/output") == 0)
			return RR_TOK_OUT;
		if (strcmp(s, "tokens/input") == 0)
			return RR_TOK_IN;
	}
	return RR_NONE;
}

/* Role of series s on target g; fills node and gpu/slot/meter. */
static int
classify(const struct wp_conf *c, const struct tgt *g, const char *s,
    const char *labels, int *node, int *idx)
{
	*node = g->node;
	*idx = 0;
	switch (g->kind) {
	case TK_BMC: case TK_GPU: case TK_ENGINE:
		return classify_node(g->kind, s, idx);
	case TK_PDU:
		if (g->inlets && strncmp(s, "inlet/", 6) == 0 &&
		    strcmp(s + strlen(s) - 7, "/energy") == 0) {
			*idx = g->meter;
			return RR_INLET;
		}
		if (strncmp(s, "outlet/", 7) != 0)
			return RR_NONE;
		return classify_outlet(c, g, s, labels, node, idx);
	case TK_METER:
		if (strcmp(s, "energy") != 0)
			return RR_NONE;
		*node = -1;
		*idx = g->meter;
		if (strcmp(g->role, "facility_total") == 0)
			return RR_FAC;
		if (strcmp(g->role, "it_total") == 0)
			return RR_IT;
	}
	return RR_NONE;
}

static bool
hourly_role(int role)
{
	return role == RR_WALL || role == RR_WALL_P || role == RR_FAC ||
	    role == RR_IT || role == RR_GPU_IB || role == RR_GPU_IB_P ||
	    role == RR_GPU_BMC || role == RR_GPU_BMC_P;
}

static bool
curve_role(int role)
{
	return role == RR_WALL || role == RR_WALL_P || role == RR_GPU_IB ||
	    role == RR_GPU_IB_P || role == RR_GPU_BMC || role == RR_GPU_BMC_P;
}

/* The sampling interval of a target (per-target overrides). */
static wp_time
target_interval(const struct wp_conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_targets; i++)
		if (strcmp(c->targets[i].name, name) == 0 &&
		    c->targets[i].interval > 0)
			return c->targets[i].interval;
	return c->interval;
}

/* ------------------------------------------------------ integrators */

static int
ser_runs(const struct report_plan *p, struct report_series *s,
    struct integ_opts *io)
{
	struct wp_err err = { 0 };
	int i;

	s->run = calloc((size_t)p->runs, sizeof(*s->run));
	s->run_e = calloc((size_t)p->runs, sizeof(*s->run_e));
	if (s->run == NULL || s->run_e == NULL)
		return -1;
	for (i = 0; i < p->runs; i++) {
		io->from = p->run_from[i];
		io->to = p->run_to[i];
		if (integ_init(&s->run[i], io, &err) == -1)
			return -1;
	}
	return 0;
}

/* A zeroed column of nbins bins in c (its stride c->cols), or NULL out
 * of memory.  The store is c's until report_load_fini. */
static double *
col_take(struct report_bin_cols *c, size_t nbins)
{
	size_t col;
	double **nv;

	if (c->nbins != 0 && c->nbins != nbins)
		return NULL;		/* one plan: one bin count */
	if (c->nbins == 0) {
		c->nbins = nbins;
		c->cols = REPORT_BIN_CHUNK / sizeof(double) / nbins;
		if (c->cols > REPORT_BIN_COLS)
			c->cols = REPORT_BIN_COLS;
		if (c->cols == 0)
			c->cols = 1;
	}
	if ((col = c->used % c->cols) == 0) {
		if ((nv = reallocarray(c->chunk, c->nchunk + 1,
		    sizeof(*nv))) == NULL)
			return NULL;
		c->chunk = nv;
		if ((nv[c->nchunk] = calloc(nbins, c->cols *
		    sizeof(double))) == NULL)
			return NULL;
		c->nchunk++;
	}
	c->used++;
	return c->chunk[c->nchunk - 1] + col;
}

static void
cols_fini(struct report_bin_cols *c)
{
	size_t i;

	for (i = 0; i < c->nchunk; i++)
		free(c->chunk[i]);
	free(c->chunk);
	memset(c, 0, sizeof(*c));
}

/* The main window's bin sets of io in l's columns.  0, or -1 ENOMEM. */
static int
ser_bins(struct report_load *l, struct integ_opts *io)
{
	size_t n;
	int i;

	for (i = 0; i < INTEG_BINSETS; i++) {
		if (io->bin_len[i] <= 0)
			continue;
		n = integ_bin_count(io->from, io->to, io->bin_len[i]);
		if (n > INTEG_MAX_BINS)
			continue;	/* integ_init refuses it */
		if ((io->bin_store[i] = col_take(&l->cols[i], n)) == NULL)
			return -1;
		io->bin_stride[i] = l->cols[i].cols;
	}
	return 0;
}

static int
ser_setup(struct report_load *l, struct report_series *s, const char *target,
    const struct wp_sample *smp)
{
	const struct report_plan *p = l->p;
	struct integ_opts io = { .from = p->from, .to = p->to,
	    .interval = target_interval(l->c, target), .kind = smp->kind,
	    .resolution = smp->kind == WP_COUNTER ? smp->resolution : 0 };
	struct wp_err err = { 0 };

	s->kind = smp->kind;
	s->interval = io.interval;
	s->gres = smp->kind == WP_GAUGE && smp->resolution > 0 ?
	    smp->resolution : 0;
	snprintf(s->labels, sizeof(s->labels), "%s", smp->labels);
	if (l->holders && s->role == RR_GPU_IB && s->kind == WP_COUNTER &&
	    (s->holds = calloc(1, sizeof(*s->holds))) == NULL)
		return -1;
	if (hourly_role(s->role) && !p->curve)
		io.bin_len[0] = REPORT_HOUR;
	if (curve_role(s->role) && p->step > 0)
		io.bin_len[1] = p->step;
	if (ser_bins(l, &io) != 0 || integ_init(&s->main, &io, &err) == -1)
		return -1;
	memset(io.bin_len, 0, sizeof(io.bin_len));
	memset(io.bin_store, 0, sizeof(io.bin_store));
	if (p->have_idle) {
		io.from = p->idle_from;
		io.to = p->idle_to;
		if (integ_init(&s->idle, &io, &err) == -1)
			return -1;
	}
	return p->runs > 1 ? ser_runs(p, s, &io) : 0;
}

/* Classifies a new series (its first reading or summary entry) and sets
 * up its integrators when it has a role.  0, or -1 out of memory. */
static int
ser_new(struct report_load *l, struct report_series *s, const char *target,
    const struct tgt *g, const char *series, const struct wp_sample *smp)
{
	int node = -1, idx = 0, role;

	role = g->kind == TK_NONE ? RR_NONE : classify(l->c, g, series,
	    smp->labels, &node, &idx);
	if (l->selected != NULL && (node < 0 || !l->selected[node]))
		role = RR_NONE;
	s->role = role;
	s->node = -1;
	if (role == RR_NONE)
		return 0;
	s->node = node;
	s->idx = idx;
	return ser_setup(l, s, target, smp);
}

struct ser_key {
	const char	*target, *series;
	size_t		 lt;
};

static bool
ser_eq(const void *entry, const void *key)
{
	const struct ser_key *k = key;
	const char *e = ((const struct report_series *)entry)->key;

	return memcmp(e, k->target, k->lt) == 0 && e[k->lt] == '|' &&
	    strcmp(e + k->lt + 1, k->series) == 0;
}

/* Finds or creates the series for key.  NULL on ENOMEM. */
static struct report_series *
ser_get(struct report_load *l, const char *target, const char *series,
    bool *fresh)
{
	struct ser_key k = { target, series, strlen(target) };
	struct report_series *s;
	uint64_t h;
	char *key;

	/* hash("target|series") without building the key: the hot path */
	h = hmap_hash_add(hmap_hash_add(hmap_hash_add(HMAP_SEED, target, k.lt),
	    "|", 1), series, strlen(series));
	*fresh = false;
	if ((s = hmap_get(&l->ser, h, ser_eq, &k)) != NULL)
		return s;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if (asprintf(&key, "%s|%s", target, series) == -1) {
		free(s);
		return NULL;
	}
	if (hmap_put(&l->ser, h, s) == -1) {
		free(key);
		free(s);
		return NULL;
	}
	s->key = key;
	*fresh = true;
	return s;
}

static void
ser_free(struct report_series *s, int runs)
{
	int i;

	integ_fini(&s->main);
	integ_fini(&s->idle);
	for (i = 0; s->run != NULL && i < runs; i++)
		integ_fini(&s->run[i]);
	free(s->run);
	free(s->run_e);
	free(s->holds);
	free(s->key);
	free(s);
}

/* Widens a limit series' range of readings to [lo, hi]. */
static void
lim_range(struct report_series *s, double lo, double hi)
{
	if (s->lim_n == 0 || lo < s->lim_min)
		s->lim_min = lo;
	if (s->lim_n == 0 || hi > s->lim_max)
		s->lim_max = hi;
}

/* Who holds the GPU of s at this reading (its namespace label). */
static void
hold(const struct report_load *l, struct report_series *s, wp_time t,
    const struct journal_value *v)
{
	char ns[ATTR_HOLD_NAME];

	if (sample_get_label(&v->s, "namespace", ns, sizeof(ns)) != 0)
		ns[0] = '\0';
	attr_holds_add(s->holds, l->p->from, l->p->to, t, v->cum, ns);
}

static void
feed(struct report_load *l, struct report_series *s, wp_time t,
    const struct journal_value *v)
{
	const struct report_plan *p = l->p;
	uint32_t pf = 0;
	double x = v->s.kind == WP_COUNTER ? v->cum : v->s.value;
	int i;

	if (v->s.device_time != 0 && t >= p->from && t <= p->to) {
		double off = (double)(v->s.device_time - t) / (double)WP_SEC;

		if (s->clk_n == 0 || off < s->clk_min)
			s->clk_min = off;
		if (s->clk_n == 0 || off > s->clk_max)
			s->clk_max = off;
		s->clk_n++;
	}
	if (report_role_is_mean(s->role)) {
		if (t >= p->from && t <= p->to && v->s.value > 0) {
			lim_range(s, v->s.value, v->s.value);
			s->lim_sum += v->s.value;
			s->lim_n++;
		}
		return;
	}
	if (v->s.kind == WP_COUNTER) {
		if (v->ctr_flags & (CTR_RESET | CTR_DISCONT))
			pf |= INTEG_P_RESET;
		if (v->ctr_flags & CTR_IMPLAUSIBLE)
			pf |= INTEG_P_IMPLAUSIBLE;
		if (v->ctr_flags & CTR_HELD)
			pf |= INTEG_P_HELD;
	}
	integ_add(&s->main, t, x, pf);
	if (s->holds != NULL && !(pf & INTEG_P_HELD))
		hold(l, s, t, v);
	if (p->have_idle)
		integ_add(&s->idle, t, x, pf);
	for (i = 0; s->run != NULL && i < p->runs; i++)
		integ_add(&s->run[i], t, x, pf);
}

/* The earliest good reading scanned. */
static void
seen(struct report_load *l, wp_time t)
{
	if (!l->seen || t < l->first_t)
		l->first_t = t;
	l->seen = true;
}

/*
 * One journal record.  Hot path: each value's series is found by hashing
 * target and series (no formatting); only a series seen for the first
 * time is classified (its role cached, RR_NONE too, so values nobody
 * reports on cost one lookup).
 */
static int
on_record(const struct journal_record *rec, void *arg)
{
	struct report_load *l = arg;
	struct tgt g;
	bool classified = false, fresh;
	size_t i;

	if (l->cancel != NULL && atomic_load(l->cancel))
		return -1;
	if (rec->status != 0 || rec->n == 0)
		return 0;
	seen(l, rec->t_real);
	for (i = 0; i < rec->n; i++) {
		const struct journal_value *v = &rec->v[i];
		wp_time t = v->s.t_real ? v->s.t_real : rec->t_real;
		struct report_series *s;

		if ((s = ser_get(l, rec->target, v->s.series, &fresh)) == NULL)
			return l->oom = true, -1;
		if (fresh) {
			if (!classified) {
				classify_target(l->c, rec->target, &g);
				g.inlets = l->inlets;
			}
			classified = true;
			if (ser_new(l, s, rec->target, &g, v->s.series,
			    &v->s) == -1)
				return l->oom = true, -1;
		}
		if (s->role == RR_NONE || v->s.kind != s->kind)
			continue;
		feed(l, s, t, v);
	}
	return 0;
}

/* ------------------------------------------------------- summaries */

/* The series of summary entry e (created and classified when new, as
 * on_record does for its first reading).  NULL on ENOMEM. */
static struct report_series *
sum_ser_get(struct report_load *l, const struct jsum *sm,
    const struct jsum_series *e)
{
	const char *target = sm->t[e->target].name;
	struct report_series *s;
	struct wp_sample smp;
	struct tgt g;
	bool fresh;

	if ((s = ser_get(l, target, e->series, &fresh)) == NULL || !fresh)
		return s;
	classify_target(l->c, target, &g);
	g.inlets = l->inlets;
	memset(&smp, 0, sizeof(smp));
	smp.kind = e->kind;
	smp.resolution = e->resolution;
	snprintf(smp.labels, sizeof(smp.labels), "%s", e->labels);
	return ser_new(l, s, target, &g, e->series, &smp) == -1 ? NULL : s;
}

/* How a summary stands to the one whose series are in sum_ser (pos_sm):
 * unrelated, the one its decoder gave next, or the same one again (a
 * ledger block on_summary did not take, given to on_forced). */
enum { POS_NONE, POS_NEXT, POS_AGAIN };

/*
 * sum_ser_get for series i of a summary, trying first the series at the
 * same position in the previous one (consecutive blocks list a fleet's
 * series in the same order): one compare instead of a hash lookup, and
 * none when the summary is the one its decoder gave next (follow
 * POS_NEXT) and the decoder found the series' header and the targets'
 * names unchanged, or when it is that summary again (POS_AGAIN).
 */
static struct report_series *
pos_ser_get(struct report_load *l, const struct jsum *sm, size_t i,
    int follow)
{
	const struct jsum_series *e = &sm->s[i];
	struct report_series *s = i < l->sum_n ? l->sum_ser[i] : NULL;
	const char *target;
	struct ser_key k;

	if (i < l->pos_n && (follow == POS_AGAIN || (follow == POS_NEXT &&
	    e->same)))
		return s;
	target = sm->t[e->target].name;
	k = (struct ser_key){ target, e->series, strlen(target) };
	if (s == NULL || !ser_eq(s, &k))
		s = sum_ser_get(l, sm, e);
	if (s != NULL) {
		l->sum_ser[i] = s;
		if (i >= l->sum_n)
			l->sum_n = i + 1;
	}
	return s;
}

/* How sm stands to the summary whose series the last on_summary or
 * on_forced matched by position (only a jsum_rd's summaries are known). */
static int
pos_follows(const struct report_load *l, const struct jsum *sm)
{
	if (sm->seq == 0 || sm != l->pos_sm)
		return POS_NONE;
	return sm->seq == l->pos_seq + 1 ? POS_NEXT : sm->seq == l->pos_seq ?
	    POS_AGAIN : POS_NONE;
}

/* sm's first n series matched by position in l->sum_ser (follow: as
 * pos_follows said before the matching). */
static void
pos_done(struct report_load *l, const struct jsum *sm, size_t n, int follow)
{
	if (follow != POS_AGAIN || n > l->pos_n)
		l->pos_n = n;
	/* a summary not from a jsum_rd is freed after its callback */
	l->pos_sm = sm->seq != 0 ? sm : NULL;
	l->pos_seq = sm->seq;
}

/* Room for n positions in l->sum_ser.  0, or -1 out of memory. */
static int
pos_reserve(struct report_load *l, size_t n)
{
	struct report_series **nv;

	if (n <= l->sum_cap)
		return 0;
	if ((nv = reallocarray(l->sum_ser, n, sizeof(*nv))) == NULL)
		return -1;
	l->sum_ser = nv;
	l->sum_cap = n;
	return 0;
}

/* Whether a limit series' span can be applied exactly. */
static bool
limit_fits(const struct report_plan *p, const struct report_series *s,
    const struct jsum_series *e, const struct jsum_span *sp)
{
	return !(s->kind != WP_GAUGE || (e->flags & (JSUM_F_ORDER |
	    JSUM_F_HELD)) || ((sp->t0 <= p->to && sp->t1 >= p->from) &&
	    (sp->t0 < p->from || sp->t1 > p->to || !(sp->vmin > 0))));
}

/* Whether e is a day block's day span: one span, its energy per
 * sub-slot beside it. */
static bool
is_day_span(const struct jsum *sm, const struct jsum_series *e)
{
	return sm->version >= JSUM_VERSION_DAY && e->n == 1 && e->nsub > 0;
}

/* Whether span is of e fits integrator g: as a span, or a day block's
 * day span by its sub-slots. */
static bool
span_fits(const struct integ *g, const struct jsum *sm,
    const struct jsum_series *e, const struct integ_span *is)
{
	if (is_day_span(sm, e))
		return integ_sub_fits(g, is, jsum_sub_origin(sm), sm->slot);
	return integ_span_fits(g, is);
}

static void
span_add(struct integ *g, const struct jsum *sm, const struct jsum_series *e,
    const struct integ_span *is)
{
	if (is_day_span(sm, e))
		integ_add_sub(g, is, e->sub, e->nsub, jsum_sub_origin(sm),
		    sm->slot);
	else
		integ_add_fitted(g, is);
}

/* Whether entry e of summary sm can be applied to s exactly. */
static bool
sum_fits(struct report_load *l, struct report_series *s, const struct jsum *sm,
    const struct jsum_series *e)
{
	const struct report_plan *p = l->p;
	struct integ_span is;
	size_t k;
	int i;

	if (s->role == RR_NONE)
		return true;
	if (s->holds != NULL)		/* who held it: the readings' labels */
		return false;
	if (e->kind != s->kind)		/* its readings are skipped */
		return !(e->flags & JSUM_F_KIND);
	if (e->flags & JSUM_F_NONFINITE)
		return false;
	for (k = 0; k < e->n; k++) {
		if (report_role_is_mean(s->role)) {
			if (!limit_fits(p, s, e, &e->span[k]))
				return false;
			continue;
		}
		/* later spans follow the first: checking each against the
		 * integrator's state before the segment is enough */
		jsum_ispan(e, &e->span[k], &is);
		if (!span_fits(&s->main, sm, e, &is) || (p->have_idle &&
		    !span_fits(&s->idle, sm, e, &is)))
			return false;
		for (i = 0; s->run != NULL && i < p->runs; i++)
			if (!span_fits(&s->run[i], sm, e, &is))
				return false;
	}
	return true;
}

static void
sum_apply(struct report_load *l, struct report_series *s, const struct jsum *sm,
    const struct jsum_series *e)
{
	const struct report_plan *p = l->p;
	struct integ_span is;
	size_t k;
	int i;

	if (s->role == RR_NONE || e->kind != s->kind)
		return;
	for (k = 0; k < e->n; k++) {
		const struct jsum_span *sp = &e->span[k];

		if (report_role_is_mean(s->role)) {
			if (sp->t0 >= p->from && sp->t1 <= p->to && sp->n > 0) {
				lim_range(s, sp->vmin, sp->vmax);
				s->lim_sum += sp->vsum;
				s->lim_n += sp->n;
			}
			continue;
		}
		jsum_ispan(e, sp, &is);	/* sum_fits checked them all */
		span_add(&s->main, sm, e, &is);
		if (p->have_idle)
			span_add(&s->idle, sm, e, &is);
		for (i = 0; s->run != NULL && i < p->runs; i++)
			span_add(&s->run[i], sm, e, &is);
	}
}

/* Whether entry e's spans follow those an earlier entry of the same
 * series gave in this summary (a day block holds a series twice when its
 * boundary or quantity changed within the day, jsum_merge): sum_fits
 * checks each entry against the state before the summary only. */
static bool
sum_follows(struct report_load *l, struct report_series *s,
    const struct jsum_series *e)
{
	if (s->role == RR_NONE || report_role_is_mean(s->role) ||
	    e->kind != s->kind || e->n == 0)
		return true;		/* a mean only sums */
	if (s->sum_mark == l->sum_mark && e->span[0].t0 <= s->sum_t1)
		return false;
	s->sum_mark = l->sum_mark;
	s->sum_t1 = e->span[e->n - 1].t1;
	return true;
}

/*
 * A closed segment's summary: taken (1) when every series in it can be
 * added exactly as its readings would be, else 0 and the segment is read.
 */
static int
on_summary(const struct jsum *sm, void *arg)
{
	struct report_load *l = arg;
	int follow = pos_follows(l, sm);
	size_t i;

	if (l->cancel != NULL && atomic_load(l->cancel))
		return -1;
	if (pos_reserve(l, sm->ns) != 0)
		return l->oom = true, -1;
	l->pos_sm = NULL;
	l->sum_mark++;
	for (i = 0; i < sm->ns; i++) {
		if (pos_ser_get(l, sm, i, follow) == NULL)
			return l->oom = true, -1;
		if (!sum_fits(l, l->sum_ser[i], sm, &sm->s[i]) ||
		    !sum_follows(l, l->sum_ser[i], &sm->s[i]))
			return pos_done(l, sm, i + 1, follow), 0;
	}
	pos_done(l, sm, sm->ns, follow);
	for (i = 0; i < sm->ns; i++)
		sum_apply(l, l->sum_ser[i], sm, &sm->s[i]);
	if (sm->ns > 0)
		seen(l, sm->rec_min);
	return 1;
}

static void
forced_apply(struct report_load *l, struct report_series *s,
    const struct jsum_series *e)
{
	const struct report_plan *p = l->p;
	struct integ_span is;
	size_t k;
	int i;

	if (s->role == RR_NONE || e->kind != s->kind)
		return;
	if (report_role_is_mean(s->role)) {
		sum_apply(l, s, NULL, e);	/* no integrator */
		return;
	}
	for (k = 0; k < e->n; k++) {
		jsum_ispan(e, &e->span[k], &is);
		if ((is.t0 < p->from && is.t1 > p->from) ||
		    (is.t0 < p->to && is.t1 > p->to))
			l->ledger_snapped++;
		integ_add_span_gone(&s->main, &is);
		if (p->have_idle)
			integ_add_span_gone(&s->idle, &is);
		for (i = 0; s->run != NULL && i < p->runs; i++)
			integ_add_span_gone(&s->run[i], &is);
	}
}

/* A ledger block whose raw segment has expired and that on_summary did
 * not take: applied span by span (1), exact where a span fits, else as
 * integ_add_span_gone says (a span across a window edge snaps it). */
static int
on_forced(const struct jsum *sm, void *arg)
{
	struct report_load *l = arg;
	int follow = pos_follows(l, sm);
	struct report_series *s;
	size_t i;

	if (pos_reserve(l, sm->ns) != 0)
		return l->oom = true, -1;
	l->pos_sm = NULL;
	for (i = 0; i < sm->ns; i++) {
		if ((s = pos_ser_get(l, sm, i, follow)) == NULL)
			return l->oom = true, -1;
		forced_apply(l, s, &sm->s[i]);
	}
	pos_done(l, sm, sm->ns, follow);
	return 1;
}

/* ------------------------------------------------------------ scan */

/* Each series' windows finished, and the table in slot order. */
static int
finish(struct report_load *l)
{
	const struct report_plan *p = l->p;
	struct integ_result res;
	size_t i;
	int k;

	if ((l->v = calloc(l->ser.n + 1, sizeof(*l->v))) == NULL)
		return -1;
	for (i = 0; i < l->ser.cap; i++) {
		struct report_series *s = l->ser.slot[i].e;
		struct wp_err e = { 0 };

		if (s == NULL)
			continue;
		l->v[l->n++] = s;
		if (report_role_is_mean(s->role) || s->role == RR_NONE)
			continue;
		s->rc = integ_finish(&s->main, &s->res, &e);
		snprintf(s->why, sizeof(s->why), "%s", e.msg);
		if (p->have_idle) {
			s->idle_e.rc = integ_finish(&s->idle, &res, NULL);
			s->idle_e.energy = res.energy;
		}
		for (k = 0; s->run != NULL && k < p->runs; k++) {
			s->run_e[k].rc = integ_finish(&s->run[k], &res, NULL);
			s->run_e[k].energy = res.energy;
		}
	}
	return 0;
}

int
report_load_scan(struct report_load *l, struct wp_err *err)
{
	const struct report_plan *p = l->p;
	wp_time margin = 4 * l->c->interval, from = p->from, to = p->to;
	const char *dd = l->data_dir != NULL ? l->data_dir : l->c->data_dir;
	struct journal_scan_stats st = { 0 };
	char dir[PATH_MAX], ldir[PATH_MAX];
	int rc;

	l->ser.min_cap = SER_MIN_CAP;
	l->pos_sm = NULL;	/* a summary of this scan's reader only */
	l->pos_n = 0;
	if (p->have_idle) {
		if (p->idle_from < from)
			from = p->idle_from;
		if (p->idle_to > to)
			to = p->idle_to;
	}
	snprintf(dir, sizeof(dir), "%s/journal", dd);
	snprintf(ldir, sizeof(ldir), "%s/ledger", dd);
	if (getenv("WATTPATH_NO_LEDGER") != NULL ||
	    getenv("WATTPATH_NO_SUMMARIES") != NULL)
		rc = journal_scan_sum(dir, from - margin, to + margin + 1,
		    on_record, getenv("WATTPATH_NO_SUMMARIES") ? NULL :
		    on_summary, l, &st, err);
	else
		rc = journal_scan_ledger(dir, ldir,
		    getenv("WATTPATH_NO_LEDGER_DAYS") == NULL, from - margin,
		    to + margin + 1, on_record, on_summary, on_forced, l, &st,
		    err);
	/* a callback's -1 stops the scan: say why */
	if (l->cancel != NULL && atomic_load(l->cancel))
		return err_set(err, WP_E_TRANSIENT, "report cancelled");
	if (l->oom)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (rc == -1)
		return -1;
	l->segments_read = st.segments_read;
	l->summaries_used = st.summaries_used;
	l->ledger_used = st.ledger_used;
	l->ledger_days = st.ledger_days;
	l->ledger_forced = st.ledger_forced;
	log_debug("report: %zu segments read, %zu summaries used",
	    st.segments_read, st.summaries_used);
	if (finish(l) == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	return 0;
}

void
report_load_fini(struct report_load *l)
{
	size_t i;

	for (i = 0; i < l->ser.cap; i++)
		if (l->ser.slot[i].e != NULL)
			ser_free(l->ser.slot[i].e, l->p->runs > 1 ? l->p->runs :
			    0);
	hmap_fini(&l->ser);
	for (i = 0; i < INTEG_BINSETS; i++)
		cols_fini(&l->cols[i]);
	free(l->sum_ser);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
