/*
 * report_cmd.c - `wattpath report` and `wattpath curve`: the I/O around
 * the pure model.  Loads the config, streams the journal once over the
 * window (plus a margin for the edge readings), maps each journal value to
 * a node and a role by the series naming of docs/series.md, feeds the
 * model's streaming integrators, then computes boundaries, J/token, PUE,
 * idle-subtracted and SLO-qualified figures, run statistics, carbon and
 * cost, and prints JSON, Markdown or CSV (schema: docs/report.md).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "../../model/boundary.h"
#include "../../model/carbon.h"
#include "../../model/counter.h"
#include "../../model/curve.h"
#include "../../model/integrate.h"
#include "../../model/jtoken.h"
#include "../../model/pue.h"
#include "../../model/stats.h"
#include "../../drivers/inband/reqlog.h"
#include "../lib/clock.h"
#include "../lib/hmap.h"
#include "cmd.h"
#include "../conf/conf.h"
#include "../store/journal.h"
#include "../store/jsum.h"
#include "../lib/log.h"
#include "report.h"
#include "report_md.h"
#include "../lib/sample.h"

#define MAX_RUNS	64
#define GAUGE_MIN_REL	1e-4	/* least bound of a gauge figure */
/* Least bound of a modeled figure: a node is modeled at its own load, which
 * the class's metered nodes may never have run at (the fit extrapolates);
 * the simulator's truth shows errors of 15 % there, so a quarter. */
#define MODEL_MIN_REL	0.25
#define MODEL_NOFIT_REL	0.50	/* when the class fit is underdetermined */
#define MAX_GPUS	64
#define FILE_MAX	(64u << 20)	/* CSV / request log size cap */
#define HOUR		(3600 * WP_SEC)

enum role {
	R_NONE, R_WALL, R_WALL_P, R_GPU_IB, R_GPU_IB_P, R_GPU_BMC, R_GPU_BMC_P,
	R_LIMIT, R_OUTLET, R_OUTLET_P, R_TOK_OUT, R_TOK_IN, R_FAC, R_IT
};

struct ser {
	char	*key;		/* "target|series" */
	int	 role;
	int	 node;		/* index in conf->nodes, -1 site meters */
	int	 gpu;		/* GPU index, outlet slot */
	int	 kind;
	bool	 used;
	wp_time	 interval;	/* the target's sampling interval */
	double	 gres;		/* gauges: reading resolution (W) */
	char	 labels[WP_LABEL_MAX];
	double	 lim_sum;	/* R_LIMIT: mean over the window */
	size_t	 lim_n;
	struct integ main, idle;
	struct integ *run;	/* nruns, or NULL */
	struct integ_result res;
	int	 rc;		/* integ_finish of main */
	char	 why[WP_ERR_MSG];
};

struct opts {
	const char *cfg, *requests, *format, *node, *cls;
	const char *carbon_csv;	/* --carbon-csv FILE ("-": stdout) */
	wp_time	 from, to, idle_from, idle_to, step;
	int	 runs;
	int	 period;	/* --period: enum pue_period, -1 all */
	bool	 have_window, have_idle;
};


struct rep {
	const struct wp_conf *c;
	struct opts o;
	struct hmap ser;	/* struct ser by "target|series" */
	bool	 curve_mode;
	bool	*selected;	/* curve: nodes in scope */
	json_object *warnings;
	struct reqlog *rq;	/* request log, or NULL */
	wp_time	 run_from[MAX_RUNS], run_to[MAX_RUNS];
	const char *run_method;
	bool	 conf_borrowed;	/* report_json: the caller's conf */
	struct ser **sum_ser;	/* per summary series (on_summary) */
	size_t	 sum_cap;
	struct journal_scan_stats scan_st;
	json_object *partial;	/* disclosure: boundaries covering part */
};

/* ---------------------------------------------------------- helpers */

static void
warn(struct rep *r, const char *fmt, ...) __attribute__((format(printf, 2,
    3)));

static void
warn(struct rep *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(r->warnings, json_object_new_string(buf));
}

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

static json_object *
jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void
jset(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *
jtime(wp_time t)
{
	char buf[40];

	clock_iso8601(t, buf, sizeof(buf));
	return json_object_new_string(buf);
}

/* Reads a whole file (capped).  Caller frees. */
static char *
slurp(const char *path, size_t *len, struct wp_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (f == NULL) {
		err_set(err, WP_E_CONFIG, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (n == cap) {
			char *nb;

			if (cap >= FILE_MAX) {
				err_set(err, WP_E_CONFIG, "%s: larger than %u "
				    "bytes", path, FILE_MAX);
				goto fail;
			}
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap + 1)) == NULL) {
				err_set(err, WP_E_INTERNAL, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		err_set(err, WP_E_CONFIG, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

/* A path from the config, relative to the config file's directory. */
static void
conf_path(const struct wp_conf *c, const char *p, char *out, size_t len)
{
	const char *slash = strrchr(c->path, '/');

	if (p[0] == '/' || slash == NULL)
		snprintf(out, len, "%s", p);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - c->path), c->path,
		    p);
}

/* ------------------------------------------------ series and roles */

static int
node_index(const struct wp_conf *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < c->n_nodes; i++)
		if (strlen(c->nodes[i].name) == len &&
		    strncmp(c->nodes[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

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
	    i < 0 || i >= MAX_GPUS)
		return -1;
	return (int)i;
}

struct tgt {
	int	 kind;		/* 0 none, 1 bmc, 2 gpu, 3 engine, 4 pdu, 5 meter */
	int	 node;
	const char *name;	/* pdu / meter name */
	const char *role;	/* meter role */
	int	 meter;		/* index in conf->meters */
};

static void
classify_target(const struct wp_conf *c, const char *t, struct tgt *g)
{
	const char *sl = strrchr(t, '/');
	size_t i;

	memset(g, 0, sizeof(*g));
	g->node = -1;
	if (sl != NULL) {
		g->node = node_index(c, t, (size_t)(sl - t));
		if (g->node < 0)
			return;
		if (strcmp(sl + 1, "bmc") == 0)
			g->kind = 1;
		else if (strcmp(sl + 1, "gpu") == 0)
			g->kind = 2;
		else if (strncmp(sl + 1, "engine", 6) == 0)
			g->kind = 3;
		return;
	}
	for (i = 0; i < c->n_pdus; i++)
		if (strcmp(c->pdus[i].name, t) == 0) {
			g->kind = 4;
			g->name = c->pdus[i].name;
			return;
		}
	for (i = 0; i < c->n_meters; i++)
		if (strcmp(c->meters[i].name, t) == 0) {
			g->kind = 5;
			g->meter = (int)i;
			g->name = c->meters[i].name;
			g->role = c->meters[i].role;
			return;
		}
}

/* Role of series s on target g; fills node and gpu/slot. */
static int
classify(const struct wp_conf *c, const struct tgt *g, const char *s,
    const char *labels, int *node, int *idx)
{
	int i;

	*node = g->node;
	*idx = 0;
	switch (g->kind) {
	case 1:
		if (strcmp(s, "wall/energy") == 0)
			return R_WALL;
		if (strcmp(s, "wall/power") == 0)
			return R_WALL_P;
		if ((i = gpu_series(s, "energy")) >= 0)
			return *idx = i, R_GPU_BMC;
		if ((i = gpu_series(s, "power")) >= 0)
			return *idx = i, R_GPU_BMC_P;
		return R_NONE;
	case 2:
		if ((i = gpu_series(s, "energy")) >= 0)
			return *idx = i, R_GPU_IB;
		if ((i = gpu_series(s, "power")) >= 0)
			return *idx = i, R_GPU_IB_P;
		if ((i = gpu_series(s, "power_limit")) >= 0)
			return *idx = i, R_LIMIT;
		return R_NONE;
	case 3:
		if (strcmp(s, "tokens/output") == 0)
			return R_TOK_OUT;
		if (strcmp(s, "tokens/input") == 0)
			return R_TOK_IN;
		return R_NONE;
	case 4:
		if (strncmp(s, "outlet/", 7) == 0) {
			char n[32];
			const char *e = strchr(s + 7, '/');

			if (e == NULL || (size_t)(e - s - 7) >= sizeof(n))
				return R_NONE;
			snprintf(n, sizeof(n), "%.*s", (int)(e - s - 7), s + 7);
			*node = outlet_node(c, g->name, n, labels, idx);
			if (*node < 0)
				return R_NONE;
			if (strcmp(e, "/energy") == 0)
				return R_OUTLET;
			if (strcmp(e, "/power") == 0)
				return R_OUTLET_P;
		}
		return R_NONE;
	case 5:
		if (strcmp(s, "energy") != 0)
			return R_NONE;
		*node = -1;
		*idx = g->meter;
		if (strcmp(g->role, "facility_total") == 0)
			return R_FAC;
		if (strcmp(g->role, "it_total") == 0)
			return R_IT;
		return R_NONE;
	}
	return R_NONE;
}

static bool
hourly_role(int role)
{
	return role == R_WALL || role == R_WALL_P || role == R_FAC ||
	    role == R_IT || role == R_GPU_IB || role == R_GPU_IB_P ||
	    role == R_GPU_BMC || role == R_GPU_BMC_P;
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

static bool
curve_role(int role)
{
	return role == R_WALL || role == R_WALL_P || role == R_GPU_IB ||
	    role == R_GPU_IB_P || role == R_GPU_BMC || role == R_GPU_BMC_P;
}

static int
ser_setup(struct rep *r, struct ser *s, const char *target,
    const struct wp_sample *smp)
{
	struct integ_opts io = { .from = r->o.from, .to = r->o.to,
	    .interval = target_interval(r->c, target), .kind = smp->kind,
	    .resolution = smp->kind == WP_COUNTER ? smp->resolution : 0 };
	struct wp_err err = { 0 };
	int i;

	s->kind = smp->kind;
	s->interval = io.interval;
	s->gres = smp->kind == WP_GAUGE && smp->resolution > 0 ?
	    smp->resolution : 0;
	snprintf(s->labels, sizeof(s->labels), "%s", smp->labels);
	if (hourly_role(s->role) && !r->curve_mode)
		io.bin_len[0] = HOUR;
	if (curve_role(s->role) && r->o.step > 0)
		io.bin_len[1] = r->o.step;
	if (integ_init(&s->main, &io, &err) == -1)
		return -1;
	io.bin_len[0] = io.bin_len[1] = 0;
	if (r->o.have_idle) {
		io.from = r->o.idle_from;
		io.to = r->o.idle_to;
		if (integ_init(&s->idle, &io, &err) == -1)
			return -1;
	}
	if (r->o.runs > 1) {
		s->run = calloc((size_t)r->o.runs, sizeof(*s->run));
		if (s->run == NULL)
			return -1;
		for (i = 0; i < r->o.runs; i++) {
			io.from = r->run_from[i];
			io.to = r->run_to[i];
			if (integ_init(&s->run[i], &io, &err) == -1)
				return -1;
		}
	}
	s->used = true;
	return 0;
}

struct ser_key {
	const char	*target, *series;
	size_t		 lt;
};

static bool
ser_eq(const void *entry, const void *key)
{
	const struct ser_key *k = key;
	const char *e = ((const struct ser *)entry)->key;

	return memcmp(e, k->target, k->lt) == 0 && e[k->lt] == '|' &&
	    strcmp(e + k->lt + 1, k->series) == 0;
}

/* Finds or creates the series for key.  NULL on ENOMEM. */
static struct ser *
ser_get(struct rep *r, const char *target, const char *series, bool *fresh)
{
	struct ser_key k = { target, series, strlen(target) };
	uint64_t h;
	struct ser *s;
	char *key;

	/* hash("target|series") without building the key: the hot path */
	h = hmap_hash_add(hmap_hash_add(hmap_hash_add(HMAP_SEED, target, k.lt),
	    "|", 1), series, strlen(series));
	*fresh = false;
	if ((s = hmap_get(&r->ser, h, ser_eq, &k)) != NULL)
		return s;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if (asprintf(&key, "%s|%s", target, series) == -1 ||
	    hmap_put(&r->ser, h, s) == -1) {
		free(s);
		return NULL;
	}
	s->key = key;
	*fresh = true;
	return s;
}

static void
ser_free(struct ser *s, int runs)
{
	int i;

	integ_fini(&s->main);
	integ_fini(&s->idle);
	for (i = 0; s->run != NULL && i < runs; i++)
		integ_fini(&s->run[i]);
	free(s->run);
	free(s->key);
	free(s);
}

static void
feed(struct rep *r, struct ser *s, wp_time t, const struct journal_value *v)
{
	uint32_t pf = 0;
	double x = v->s.kind == WP_COUNTER ? v->cum : v->s.value;
	int i;

	if (s->role == R_LIMIT) {
		if (t >= r->o.from && t <= r->o.to && v->s.value > 0) {
			s->lim_sum += v->s.value;
			s->lim_n++;
		}
		return;
	}
	if (v->s.kind == WP_COUNTER) {
		if (v->ctr_flags & (CTR_RESET | CTR_DISCONT))
			pf |= INTEG_P_RESET;
		if (v->ctr_flags & CTR_HELD)
			pf |= INTEG_P_HELD;
	}
	integ_add(&s->main, t, x, pf);
	if (r->o.have_idle)
		integ_add(&s->idle, t, x, pf);
	for (i = 0; s->run != NULL && i < r->o.runs; i++)
		integ_add(&s->run[i], t, x, pf);
}

/*
 * One journal record.  Hot path: each value's series is found by hashing
 * target and series (no formatting); only a series seen for the first
 * time is classified (its role cached, R_NONE too, so values nobody
 * reports on cost one lookup).
 */
static int
on_record(const struct journal_record *rec, void *arg)
{
	struct rep *r = arg;
	struct tgt g;
	bool classified = false;
	size_t i;

	if (rec->status != 0 || rec->n == 0)
		return 0;
	for (i = 0; i < rec->n; i++) {
		const struct journal_value *v = &rec->v[i];
		wp_time t = v->s.t_real ? v->s.t_real : rec->t_real;
		struct ser *s;
		int node = -1, idx = 0, role;
		bool fresh;

		if ((s = ser_get(r, rec->target, v->s.series, &fresh)) == NULL)
			return -1;
		if (fresh) {
			if (!classified)
				classify_target(r->c, rec->target, &g);
			classified = true;
			role = g.kind == 0 ? R_NONE : classify(r->c, &g,
			    v->s.series, v->s.labels, &node, &idx);
			if (r->curve_mode && (node < 0 || !r->selected[node]))
				role = R_NONE;
			s->role = role;
			s->node = -1;
			if (role != R_NONE) {
				s->node = node;
				s->gpu = idx;
				if (ser_setup(r, s, rec->target, &v->s) == -1)
					return -1;
			}
		}
		if (s->role == R_NONE || v->s.kind != s->kind)
			continue;
		feed(r, s, t, v);
	}
	return 0;
}

/* The series of summary entry e (created and classified when new, as
 * on_record does for its first reading).  NULL on ENOMEM. */
static struct ser *
sum_ser_get(struct rep *r, const struct jsum *sm, const struct jsum_series *e)
{
	const char *target = sm->t[e->target].name;
	struct wp_sample smp;
	struct ser *s;
	struct tgt g;
	int node = -1, idx = 0, role;
	bool fresh;

	if ((s = ser_get(r, target, e->series, &fresh)) == NULL || !fresh)
		return s;
	classify_target(r->c, target, &g);
	role = g.kind == 0 ? R_NONE : classify(r->c, &g, e->series,
	    e->labels, &node, &idx);
	if (r->curve_mode && (node < 0 || !r->selected[node]))
		role = R_NONE;
	s->role = role;
	s->node = -1;
	if (role == R_NONE)
		return s;
	s->node = node;
	s->gpu = idx;
	memset(&smp, 0, sizeof(smp));
	smp.kind = e->kind;
	smp.resolution = e->resolution;
	snprintf(smp.labels, sizeof(smp.labels), "%s", e->labels);
	return ser_setup(r, s, target, &smp) == -1 ? NULL : s;
}

static void
to_ispan(const struct jsum_series *e, const struct jsum_span *sp,
    struct integ_span *is)
{
	is->t0 = sp->t0;
	is->t1 = sp->t1;
	is->v0 = jsum_x(e->kind, sp->val0, sp->cum0);
	is->v1 = jsum_x(e->kind, sp->val1, sp->cum1);
	is->pf0 = e->kind == WP_COUNTER && (sp->cf0 & (CTR_RESET |
	    CTR_DISCONT)) ? INTEG_P_RESET : 0;
	is->n = sp->n;
	is->energy = sp->energy;
	is->max_gap = sp->max_gap;
	is->refuse = (sp->flags & (JSUM_F_RESET | JSUM_F_BACK)) != 0;
	is->range = true;
	is->vmin = sp->vmin;
	is->vmax = sp->vmax;
}

/* Whether entry e of a summary can be applied to s exactly. */
static bool
sum_fits(struct rep *r, struct ser *s, const struct jsum_series *e)
{
	struct integ_span is;
	size_t k;
	int i;

	if (s->role == R_NONE)
		return true;
	if (e->kind != s->kind)		/* its readings are skipped */
		return !(e->flags & JSUM_F_KIND);
	if (e->flags & JSUM_F_NONFINITE)
		return false;
	for (k = 0; k < e->n; k++) {
		const struct jsum_span *sp = &e->span[k];

		if (s->role == R_LIMIT) {
			if (s->kind != WP_GAUGE ||
			    (e->flags & (JSUM_F_ORDER | JSUM_F_HELD)) ||
			    ((sp->t0 <= r->o.to && sp->t1 >= r->o.from) &&
			    (sp->t0 < r->o.from || sp->t1 > r->o.to ||
			    !(sp->vmin > 0))))
				return false;
			continue;
		}
		/* later spans follow the first: checking each against the
		 * integrator's state before the segment is enough */
		to_ispan(e, sp, &is);
		if (!integ_span_fits(&s->main, &is) || (r->o.have_idle &&
		    !integ_span_fits(&s->idle, &is)))
			return false;
		for (i = 0; s->run != NULL && i < r->o.runs; i++)
			if (!integ_span_fits(&s->run[i], &is))
				return false;
	}
	return true;
}

static void
sum_apply(struct rep *r, struct ser *s, const struct jsum_series *e)
{
	struct integ_span is;
	size_t k;
	int i;

	if (s->role == R_NONE || e->kind != s->kind)
		return;
	for (k = 0; k < e->n; k++) {
		const struct jsum_span *sp = &e->span[k];

		if (s->role == R_LIMIT) {
			if (sp->t0 >= r->o.from && sp->t1 <= r->o.to) {
				s->lim_sum += sp->vsum;
				s->lim_n += sp->n;
			}
			continue;
		}
		to_ispan(e, sp, &is);
		integ_add_span(&s->main, &is);
		if (r->o.have_idle)
			integ_add_span(&s->idle, &is);
		for (i = 0; s->run != NULL && i < r->o.runs; i++)
			integ_add_span(&s->run[i], &is);
	}
}

/*
 * A closed segment's summary: taken (1) when every series in it can be
 * added exactly as its readings would be, else 0 and the segment is read.
 */
static int
on_summary(const struct jsum *sm, void *arg)
{
	struct rep *r = arg;
	size_t i;

	if (sm->ns > r->sum_cap) {
		struct ser **nv = reallocarray(r->sum_ser, sm->ns,
		    sizeof(*nv));

		if (nv == NULL)
			return -1;
		r->sum_ser = nv;
		r->sum_cap = sm->ns;
	}
	for (i = 0; i < sm->ns; i++) {
		if ((r->sum_ser[i] = sum_ser_get(r, sm, &sm->s[i])) == NULL)
			return -1;
		if (!sum_fits(r, r->sum_ser[i], &sm->s[i]))
			return 0;
	}
	for (i = 0; i < sm->ns; i++)
		sum_apply(r, r->sum_ser[i], &sm->s[i]);
	return 1;
}

static int
scan(struct rep *r, struct wp_err *err)
{
	char dir[PATH_MAX];
	wp_time margin = 4 * r->c->interval, from = r->o.from, to = r->o.to;
	size_t i;

	if (r->o.have_idle) {
		if (r->o.idle_from < from)
			from = r->o.idle_from;
		if (r->o.idle_to > to)
			to = r->o.idle_to;
	}
	snprintf(dir, sizeof(dir), "%s/journal", r->c->data_dir);
	if (journal_scan_sum(dir, from - margin, to + margin + 1, on_record,
	    getenv("WATTPATH_NO_SUMMARIES") ? NULL : on_summary, r,
	    &r->scan_st, err) == -1)
		return -1;
	log_debug("report: %zu segments read, %zu summaries used",
	    r->scan_st.segments_read, r->scan_st.summaries_used);
	for (i = 0; i < r->ser.cap; i++) {
		struct ser *s = r->ser.slot[i].e;
		struct wp_err e = { 0 };

		if (s == NULL || s->role == R_LIMIT || s->role == R_NONE)
			continue;
		s->rc = integ_finish(&s->main, &s->res, &e);
		snprintf(s->why, sizeof(s->why), "%s", e.msg);
	}
	return 0;
}

/* ------------------------------------------------- per-node figures */

#define MAX_SLOTS	16
#define W_MAIN		(-2)
#define W_IDLE		(-1)

struct nodeagg {
	struct ser *wall;
	struct ser *gib[MAX_GPUS], *gbmc[MAX_GPUS], *lim[MAX_GPUS];
	struct ser *outl[MAX_SLOTS];
	struct ser *tok_out[8], *tok_in[8];
	size_t	 n_out, n_in;
};

/* Better of two candidates for one slot: a counter whenever one exists
 * (a refused counter window is refused, never papered over with the
 * gauge), else a valid gauge. */
static struct ser *
better(struct ser *cur, struct ser *s)
{
	int sc_cur, sc_s;

	if (cur == NULL)
		return s;
	sc_cur = (cur->kind == WP_COUNTER) * 2 + (cur->rc == 0);
	sc_s = (s->kind == WP_COUNTER) * 2 + (s->rc == 0);
	return sc_s > sc_cur ? s : cur;
}

static void
gather(struct rep *r, struct nodeagg *na)
{
	size_t i;

	for (i = 0; i < r->ser.cap; i++) {
		struct ser *s = r->ser.slot[i].e;
		struct nodeagg *a;

		if (s == NULL || s->node < 0)
			continue;
		a = &na[s->node];
		switch (s->role) {
		case R_WALL: case R_WALL_P:
			a->wall = better(a->wall, s);
			break;
		case R_GPU_IB: case R_GPU_IB_P:
			a->gib[s->gpu] = better(a->gib[s->gpu], s);
			break;
		case R_GPU_BMC: case R_GPU_BMC_P:
			a->gbmc[s->gpu] = better(a->gbmc[s->gpu], s);
			break;
		case R_LIMIT:
			a->lim[s->gpu] = s;
			break;
		case R_OUTLET: case R_OUTLET_P:
			if (s->gpu < MAX_SLOTS)
				a->outl[s->gpu] = better(a->outl[s->gpu], s);
			break;
		case R_TOK_OUT:
			if (a->n_out < 8 && s->kind == WP_COUNTER)
				a->tok_out[a->n_out++] = s;
			break;
		case R_TOK_IN:
			if (a->n_in < 8 && s->kind == WP_COUNTER)
				a->tok_in[a->n_in++] = s;
			break;
		}
	}
}

/* Energy of s over the main window, the idle window or run k. */
static int
ser_energy(struct ser *s, int which, double *e)
{
	struct integ_result res;

	if (s == NULL)
		return -1;
	if (which == W_MAIN) {
		*e = s->res.energy;
		return s->rc;
	}
	if (integ_finish(which == W_IDLE ? &s->idle : &s->run[which], &res,
	    NULL) == -1)
		return -1;
	*e = res.energy;
	return 0;
}

static int
method_of(const struct ser *s)
{
	return s->kind == WP_COUNTER ? BM_COUNTER : BM_GAUGE;
}

static double
bound_of(const struct ser *s)
{
	double b = stats_instrument_bound(s->res.energy, s->res.res_bound,
	    s->res.edge_bound, 0);

	/* a gauge: the envelope of its readings, plus one reading step over
	 * the window (at least GAUGE_MIN_REL of the energy) */
	if (s->kind != WP_COUNTER)
		b += s->res.gauge_bound + fmax(s->gres * secs(s->main.o.to -
		    s->main.o.from), GAUGE_MIN_REL * fabs(s->res.energy));
	return b;
}

static void
one(struct ser *s, int which, struct bnd_value *v)
{
	memset(v, 0, sizeof(*v));
	if (s != NULL && ser_energy(s, which, &v->energy_j) == 0) {
		v->valid = true;
		v->method = method_of(s);
		v->bound_j = which == W_MAIN ? bound_of(s) : 0;
	}
}

static void
node_gpu(struct nodeagg *a, int which, struct bnd_value *v, double *cross)
{
	struct bnd_gpu_src src[2 * MAX_GPUS];
	size_t n = 0;
	int g;

	for (g = 0; g < MAX_GPUS; g++) {
		struct ser *p[2] = { a->gib[g], a->gbmc[g] };
		int k;

		for (k = 0; k < 2; k++) {
			struct bnd_value b;

			if (p[k] == NULL)
				continue;
			one(p[k], which, &b);
			src[n++] = (struct bnd_gpu_src){ .gpu = g,
			    .inband = k == 0, .valid = b.valid,
			    .energy_j = b.energy_j, .method = b.method,
			    .bound_j = b.bound_j };
		}
	}
	if (n == 0) {
		memset(v, 0, sizeof(*v));
		*cross = NAN;
		return;
	}
	boundary_gpu(src, n, v, cross);
}

/* The outlet boundary of a node: the sum of its outlets, invalid when
 * one is missing or refused (*why names it, when why is not NULL). */
static void
node_outlet(const struct wp_node *nd, struct nodeagg *a, int which,
    struct bnd_value *v, char *why, size_t wlen)
{
	size_t j;

	memset(v, 0, sizeof(*v));
	if (nd->n_outlets == 0) {
		if (why != NULL)
			snprintf(why, wlen, "no outlets in the config");
		return;
	}
	v->valid = true;
	for (j = 0; j < nd->n_outlets && j < MAX_SLOTS; j++) {
		struct bnd_value b;

		one(a->outl[j], which, &b);
		if (!b.valid) {
			v->valid = false;
			if (why != NULL)
				snprintf(why, wlen, "outlet %s/%s: %s",
				    nd->outlets[j].pdu, nd->outlets[j].outlet,
				    a->outl[j] == NULL ? "no outlet/<n>/energy "
				    "or power series in the journal (outlet "
				    "numbers are the PDU's, 1-based)" :
				    a->outl[j]->why);
			return;
		}
		v->energy_j += b.energy_j;
		v->bound_j += b.bound_j;
		v->method = v->method > b.method ? v->method : b.method;
	}
}

/* Output (or input) tokens of a node over a window; -1 none. */
static double
node_tokens(struct nodeagg *a, bool output, int which)
{
	struct ser **t = output ? a->tok_out : a->tok_in;
	size_t i, n = output ? a->n_out : a->n_in;
	double sum = 0, e;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (ser_energy(t[i], which, &e) != 0)
			return -1;
		sum += e;
	}
	return sum;
}

static double
node_limit(struct nodeagg *a)
{
	double sum = 0;
	int g;

	for (g = 0; g < MAX_GPUS; g++)
		if (a->lim[g] != NULL && a->lim[g]->lim_n > 0)
			sum += a->lim[g]->lim_sum / (double)a->lim[g]->lim_n;
	return sum;
}

/* Why a node's wall/GPU figure is missing, for the warnings. */
static const char *
why_missing(struct ser *s)
{
	return s == NULL ? "no series in the journal" : s->why;
}

/* ------------------------------------------------------ request log */

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* {p50, p90, p99, mean} of input or output tokens of the requests that
 * ended inside the window. */
static json_object *
dist_json(const struct rep *r, bool output)
{
	const struct reqlog *l = r->rq;
	double *v = malloc((l->n + 1) * sizeof(double)), sum = 0;
	double t0 = secs(r->o.from), t1 = secs(r->o.to);
	json_object *o = json_object_new_object();
	size_t i, n = 0;

	if (v == NULL) {
		free(v);
		return o;
	}
	for (i = 0; i < l->n; i++) {
		if (l->e[i].t_end < t0 || l->e[i].t_end > t1)
			continue;
		v[n] = (double)(output ? l->e[i].out_tokens :
		    l->e[i].in_tokens);
		sum += v[n++];
	}
	if (n > 0) {
		qsort(v, n, sizeof(double), dcmp);
		jset(o, "p50", jnum(v[n * 50 / 100]));
		jset(o, "p90", jnum(v[n * 90 / 100]));
		jset(o, "p99", jnum(v[n * 99 / 100]));
		jset(o, "mean", jnum(sum / (double)n));
		jset(o, "requests", json_object_new_int64((int64_t)n));
	}
	free(v);
	return o;
}

static int
start_cmp(const void *a, const void *b)
{
	const struct reqlog_entry *x = a, *y = b;

	return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

/*
 * Request-log runs: requests sorted by start; a new run begins where a
 * request starts more than gap after every earlier request ended (the
 * load generator was idle).  Keeps the last n runs in r->run_from/to.
 */
static int
reqlog_runs(struct rep *r, int n, wp_time gap, struct wp_err *err)
{
	struct reqlog *l = r->rq;
	wp_time from[MAX_RUNS], to[MAX_RUNS];
	int k = 0, total = 0, i;
	double hi = 0;
	size_t j;

	qsort(l->e, l->n, sizeof(l->e[0]), start_cmp);
	for (j = 0; j < l->n; j++) {
		wp_time s = (wp_time)(l->e[j].t_start * WP_SEC);
		wp_time e = (wp_time)(l->e[j].t_end * WP_SEC);

		if (j == 0 || l->e[j].t_start > hi + secs(gap)) {
			k = total++ % MAX_RUNS;
			from[k] = s;
			to[k] = e;
		}
		if (e > to[k])
			to[k] = e;
		if (l->e[j].t_end > hi)
			hi = l->e[j].t_end;
	}
	if (total < n)
		return err_set(err, WP_E_CONFIG, "--runs %d: the request log "
		    "holds %d run(s) (runs are separated by more than %.0f s "
		    "without a request)", n, total, secs(gap));
	for (i = 0; i < n; i++) {
		k = (total - n + i) % MAX_RUNS;
		r->run_from[i] = from[k];
		r->run_to[i] = to[k];
	}
	r->run_method = "request-log runs";
	return 0;
}
/* ------------------------------------------------------ composition */

struct totals {
	struct bnd_total b[BND_N];
	double	 out, in;		/* tokens, -1 unknown */
	double	 slo_share;		/* NAN unknown */
	double	 pue;			/* NAN none */
	const char *pue_source;		/* metered, declared */
	const char *pue_category;
	double	 fac_metered_j, it_metered_j;
	double	 secs;
	double	*wall_h, *fac_h, *it_h;	/* hourly kWh (boundaries) */
	double	*mfac_h, *mit_h;	/* hourly kWh of the site meters */
	size_t	 nh;
	wp_time	 origin;
	/* node classes: curves from the wall-metered nodes, hourly wall kWh */
	size_t	 ncls;
	const char **cls_name;		/* ncls */
	int	*cls_of;		/* per node: class index, -1 none */
	struct curve *cls_curve;	/* ncls */
	struct curve *node_curve;	/* per node */
	double	*cls_h;			/* (ncls + 1) x nh; slot ncls: no class */
	double	*cls_out;		/* ncls + 1: output tokens, -1 unknown */
	size_t	*cls_nodes;		/* ncls + 1: nodes per slot */
	double	 curve_tol;
};

static void	 node_curve(struct rep *, struct nodeagg *, struct curve *);
static json_object *curve_json(const struct curve *);

static bool
in_replica(const struct wp_conf *c, const char *node)
{
	const struct ynode *reps = c->report ? ynode_get(c->report,
	    "replicas") : NULL, *rp, *n;

	for (rp = reps ? reps->child : NULL; rp != NULL; rp = rp->next)
		for (n = ynode_get(rp, "nodes") ? ynode_get(rp, "nodes")->child :
		    NULL; n != NULL; n = n->next)
			if (n->value && strcmp(n->value, node) == 0)
				return true;
	return false;
}

/* Adds t tokens of node k to its class slot (by: ncls + 1, -1 unknown). */
static void
cls_tokens_add(const struct totals *T, double *by, int k, double t)
{
	size_t c;

	if (by == NULL || T == NULL || T->cls_of == NULL)
		return;
	c = T->cls_of[k] >= 0 ? (size_t)T->cls_of[k] : T->ncls;
	by[c] = (by[c] > 0 ? by[c] : 0) + t;
}

/* Tokens counted once per model replica (first node of the replica with
 * engine counters); nodes outside replicas count their own.  by (T's
 * ncls + 1 slots, preset to -1) gets each counted node's tokens under its
 * class, so the classes add up to the fleet. */
static double
fleet_tokens_by(struct rep *r, struct nodeagg *na, bool output, int which,
    const struct totals *T, double *by)
{
	const struct ynode *reps = r->c->report ? ynode_get(r->c->report,
	    "replicas") : NULL, *rp, *n;
	double sum = 0, t;
	bool any = false;
	size_t i;

	for (rp = reps ? reps->child : NULL; rp != NULL; rp = rp->next)
		for (n = ynode_get(rp, "nodes") ? ynode_get(rp, "nodes")->child :
		    NULL; n != NULL; n = n->next) {
			int k = n->value ? node_index(r->c, n->value,
			    strlen(n->value)) : -1;

			if (k >= 0 && (t = node_tokens(&na[k], output,
			    which)) >= 0) {
				sum += t;
				any = true;
				cls_tokens_add(T, by, k, t);
				break;
			}
		}
	for (i = 0; i < r->c->n_nodes; i++)
		if (!in_replica(r->c, r->c->nodes[i].name) &&
		    (t = node_tokens(&na[i], output, which)) >= 0) {
			sum += t;
			any = true;
			cls_tokens_add(T, by, (int)i, t);
		}
	return any ? sum : -1;
}

static double
fleet_tokens(struct rep *r, struct nodeagg *na, bool output, int which)
{
	return fleet_tokens_by(r, na, output, which, NULL, NULL);
}

static json_object *
fig_json(const struct bnd_value *v, double coverage, const struct totals *T,
    double out, double in, double slo, double idle_w)
{
	json_object *o = json_object_new_object();
	char mix[64];
	struct jtoken j;
	struct jtoken_in ji = { .energy_j = v->energy_j, .output_tokens = out,
	    .input_tokens = in, .slo_output_tokens = slo, .window_s = T->secs,
	    .idle_power_w = idle_w };

	if (!v->valid) {
		jset(o, "energy_j", NULL);
		jset(o, "method", json_object_new_string("none"));
		jset(o, "coverage", jnum(coverage));
		return o;
	}
	jset(o, "energy_j", jnum(v->energy_j));
	if (jtoken_compute(&ji, &j, NULL) == 0) {
		jset(o, "j_per_output_token", jnum(j.j_per_output_token));
		jset(o, "j_per_total_token", jnum(j.j_per_total_token));
		jset(o, "tokens_per_joule", jnum(j.tokens_per_joule));
		jset(o, "kwh_per_million_output_tokens",
		    jnum(j.kwh_per_million_output_tokens));
		jset(o, "j_per_slo_qualified_token", jnum(j.j_per_slo_token));
		if (idle_w >= 0 && j.idle_valid) {
			jset(o, "idle_energy_j", jnum(j.idle_energy_j));
			jset(o, "net_energy_j", jnum(j.net_energy_j));
			jset(o, "j_per_output_token_net",
			    jnum(j.net_j_per_output_token));
			jset(o, "kwh_per_million_output_tokens_net",
			    jnum(j.net_kwh_per_million_output_tokens));
		}
	}
	jset(o, "mean_power_w", jnum(T->secs > 0 ? v->energy_j / T->secs :
	    NAN));
	jset(o, "method", json_object_new_string(v->mix ?
	    boundary_mix_name(v->mix, mix, sizeof(mix)) :
	    boundary_method_name(v->method)));
	jset(o, "coverage", jnum(coverage));
	jset(o, "instrument_bound_j", jnum(v->bound_j));
	jset(o, "instrument_bound_rel", jnum(v->energy_j > 0 ?
	    v->bound_j / v->energy_j : NAN));
	return o;
}

static void
total_value(const struct bnd_total *t, struct bnd_value *v)
{
	memset(v, 0, sizeof(*v));
	v->valid = t->counted > 0 && t->counted == t->nodes;
	v->energy_j = t->energy_j;
	v->method = t->method;
	v->bound_j = t->bound_j;
	v->mix = t->mix;
}

/* Node i's value at boundary k (nv: n_nodes x BND_N). */
static const struct bnd_value *
nval(const struct bnd_value *nv, size_t i, int k)
{
	return &nv[i * BND_N + (size_t)k];
}

static void
cover_add(struct bnd_value *tv, const struct bnd_value *v, size_t *cnt)
{
	tv->valid = true;
	tv->energy_j += v->energy_j;
	tv->bound_j += v->bound_j;
	tv->method = tv->method > v->method ? tv->method : v->method;
	tv->mix |= 1u << v->method;
	(*cnt)++;
}

/*
 * A boundary some nodes lack (neither measured nor modeled): the energy
 * and the tokens of the nodes it covers.  A node outside replicas counts
 * with its own tokens; a replica counts (its nodes' energy, its tokens
 * once) only when every node of it is covered.  tv gets the energy (valid
 * when some node counts), *out and *in the tokens (-1 none); returns the
 * nodes counted.
 */
static size_t
cover_partial(struct rep *r, struct nodeagg *na, const struct bnd_value *nv,
    int k, struct bnd_value *tv, double *out, double *in)
{
	const struct ynode *reps = r->c->report ? ynode_get(r->c->report,
	    "replicas") : NULL, *rp, *n;
	double t;
	size_t i, cnt = 0;

	memset(tv, 0, sizeof(*tv));
	*out = *in = -1;
	for (rp = reps ? reps->child : NULL; rp != NULL; rp = rp->next) {
		const struct ynode *ns = ynode_get(rp, "nodes");
		bool all = ns != NULL && ns->child != NULL, tok = false;
		int x;

		for (n = ns ? ns->child : NULL; n != NULL && all; n = n->next) {
			x = n->value ? node_index(r->c, n->value,
			    strlen(n->value)) : -1;
			all = x >= 0 && nval(nv, (size_t)x, k)->valid;
		}
		for (n = all ? ns->child : NULL; n != NULL; n = n->next) {
			x = node_index(r->c, n->value, strlen(n->value));
			cover_add(tv, nval(nv, (size_t)x, k), &cnt);
			if (!tok && (t = node_tokens(&na[x], true, W_MAIN)) >=
			    0) {
				*out = (*out > 0 ? *out : 0) + t;
				if ((t = node_tokens(&na[x], false, W_MAIN)) >=
				    0)
					*in = (*in > 0 ? *in : 0) + t;
				tok = true;
			}
		}
	}
	for (i = 0; i < r->c->n_nodes; i++) {
		if (in_replica(r->c, r->c->nodes[i].name) ||
		    !nval(nv, i, k)->valid)
			continue;
		cover_add(tv, nval(nv, i, k), &cnt);
		if ((t = node_tokens(&na[i], true, W_MAIN)) >= 0)
			*out = (*out > 0 ? *out : 0) + t;
		if ((t = node_tokens(&na[i], false, W_MAIN)) >= 0)
			*in = (*in > 0 ? *in : 0) + t;
	}
	return cnt;
}

/* The fleet figure of boundary k: every node covered (measured or
 * modeled), or the covered part with its own tokens, or none. */
static json_object *
boundary_json(struct rep *r, struct nodeagg *na, const struct bnd_value *nv,
    int k, struct totals *T, double slo, struct bnd_value *tv)
{
	const struct bnd_total *t = &T->b[k];
	double out = T->out, in = T->in;
	size_t cnt = t->counted;
	json_object *o;

	total_value(t, tv);
	if (!tv->valid && t->counted > 0) {
		cnt = cover_partial(r, na, nv, k, tv, &out, &in);
		slo = out > 0 && isfinite(T->slo_share) ? out * T->slo_share :
		    -1;
		if (tv->valid) {
			char buf[256];

			snprintf(buf, sizeof(buf), "covers %zu of %zu nodes "
			    "(the rest neither measured nor modeled): energy "
			    "and J/token over those nodes and their %.0f output "
			    "tokens only", cnt, t->nodes, out);
			warn(r, "%s boundary %s", bnd_name(k), buf);
			if (r->partial == NULL)
				r->partial = json_object_new_object();
			jset(r->partial, bnd_name(k),
			    json_object_new_string(buf));
		}
	}
	o = fig_json(tv, boundary_coverage(t), T, out, in, slo, -1);
	jset(o, "nodes_counted", json_object_new_int64((int64_t)cnt));
	jset(o, "nodes_measured", json_object_new_int64((int64_t)t->measured));
	jset(o, "nodes", json_object_new_int64((int64_t)t->nodes));
	if (cnt < t->nodes)
		jset(o, "output_tokens_covered", out >= 0 ? jnum(out) : NULL);
	if (!tv->valid)
		warn(r, "%s boundary: no node has a measured or modeled value",
		    bnd_name(k));
	return o;
}

/* Site meters: facility and IT energy, hourly bins, PUE. */
static void
site_pue(struct rep *r, struct totals *T)
{
	bool fac = false, it = false, bad = false;
	const char *cat = NULL;
	char lab[64];
	size_t i, h;

	T->pue = NAN;
	T->pue_source = "none";
	T->pue_category = "unstated";
	for (i = 0; i < r->ser.cap; i++) {
		struct ser *s = r->ser.slot[i].e;

		if (s == NULL || (s->role != R_FAC && s->role != R_IT))
			continue;
		if (s->rc != 0) {
			warn(r, "meter %s: %s", s->key, s->why);
			bad = true;
			continue;
		}
		if (s->role == R_FAC) {
			T->fac_metered_j += s->res.energy;
			fac = true;
		} else {
			struct wp_sample tmp;

			T->it_metered_j += s->res.energy;
			it = true;
			snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
			if (sample_get_label(&tmp, "category", lab,
			    sizeof(lab)) == 0)
				cat = pue_category(lab);
		}
		for (h = 0; h < T->nh && h < s->main.bins[0].n; h++)
			(s->role == R_FAC ? T->mfac_h : T->mit_h)[h] +=
			    s->main.bins[0].e[h] / 3.6e6;
	}
	if (fac && it && !bad) {
		struct wp_err e = { 0 };

		if (pue_compute(T->fac_metered_j, T->it_metered_j, &T->pue,
		    &e) == 0) {
			T->pue_source = "metered";
			T->pue_category = cat ? cat : "unstated";
		} else
			warn(r, "%s", e.msg);
	} else if (r->c->report && ynode_get(r->c->report, "pue")) {
		const struct ynode *p = ynode_get(r->c->report, "pue");
		struct wp_err e = { 0 };
		double v;

		if (ynode_double(p, "value", &v, &e) == 0 && v >= 1) {
			T->pue = v;
			T->pue_source = "declared";
			T->pue_category = pue_category(ynode_str(p,
			    "category"));
		} else
			warn(r, "report.pue.value must be a number >= 1%s%s",
			    e.msg[0] ? ": " : "", e.msg);
	}
	if (isnan(T->pue))
		warn(r, "no PUE (no facility_total and it_total meters over the "
		    "window, no report.pue): facility boundary left out");
}

static double
cfg_num(struct rep *r, const struct ynode *m, const char *k, double def)
{
	struct wp_err e = { 0 };
	double v = def;

	if (m != NULL && ynode_double(m, k, &v, &e) == -1) {
		warn(r, "%s", e.msg);
		return def;
	}
	return v;
}

static int
load_hourly(struct rep *r, const char *file, int kind, const char *zone,
    const char *basis, struct hourly_series *s)
{
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	size_t len;
	char *buf;
	int rc;

	conf_path(r->c, file, path, sizeof(path));
	if ((buf = slurp(path, &len, &e)) == NULL) {
		warn(r, "%s", e.msg);
		return -1;
	}
	rc = hourly_parse(buf, len, kind, zone, basis, s, &e);
	free(buf);
	if (rc == -1)
		warn(r, "%s: %s", path, e.msg);
	return rc;
}

static const char *const carbon_bnd[2] = { "wall", "facility" };

/* {kg, g_per_million_output_tokens, kwh, coverage}; out < 0: unknown. */
static json_object *
carbon_pair(double g, double out, double kwh, double coverage)
{
	json_object *o = json_object_new_object();

	jset(o, "kg", jnum(g / 1000));
	jset(o, "g_per_million_output_tokens", jnum(out > 0 ? g / out * 1e6 :
	    NAN));
	jset(o, "kwh", jnum(kwh));
	jset(o, "coverage", jnum(coverage));
	return o;
}

/* Share of kWh with an hourly intensity (the rest at the yearly
 * average); NAN without energy. */
static double
loc_coverage(const struct carbon_loc *cl)
{
	return cl->kwh > 0 ? 1 - cl->fallback_kwh / cl->kwh : NAN;
}

/* Class slots reported: every class, plus "unclassified" (slot ncls) when
 * some nodes have no class. */
static size_t
cls_slots(const struct totals *T)
{
	return T->cls_nodes != NULL && T->cls_nodes[T->ncls] > 0 ?
	    T->ncls + 1 : T->ncls;
}

static const char *
cls_label(const struct totals *T, size_t c)
{
	return c < T->ncls ? T->cls_name[c] : "unclassified";
}

/* Hourly kWh of class slot c at boundary b (0 wall, 1 facility: wall x
 * PUE, as the site's); buf: nh scratch. */
static const double *
cls_hours(const struct totals *T, size_t c, int b, double *buf)
{
	const double *w = T->cls_h + c * T->nh;
	size_t h;

	if (b == 0)
		return w;
	for (h = 0; h < T->nh; h++)
		buf[h] = w[h] * T->pue;
	return buf;
}

static double
hours_sum(const double *kwh_h, size_t n)
{
	double s = 0;
	size_t h;

	for (h = 0; h < n; h++)
		s += kwh_h[h];
	return s;
}

/* by.<name>.<k>, created (as an object) on first use. */
static json_object *
jchild(json_object *by, const char *name, const char *k)
{
	json_object *o, *c;

	if (!json_object_object_get_ex(by, name, &o)) {
		o = json_object_new_object();
		jset(by, name, o);
	}
	if (k == NULL)
		return o;
	if (!json_object_object_get_ex(o, k, &c)) {
		c = json_object_new_object();
		jset(o, k, c);
	}
	return c;
}

/* Contractual instruments of site.market, or none (warned). Caller frees
 * *in with free(). */
static void
load_instruments(struct rep *r, const struct ynode *m,
    struct carbon_instrument **in, size_t *n)
{
	char path[PATH_MAX];
	struct wp_err e = { 0 };
	size_t len;
	char *buf;

	*in = NULL;
	*n = 0;
	if (m == NULL || ynode_str(m, "instruments_csv") == NULL)
		return;
	conf_path(r->c, ynode_str(m, "instruments_csv"), path, sizeof(path));
	if ((buf = slurp(path, &len, &e)) == NULL ||
	    carbon_parse_instruments(buf, len, in, n, &e) == -1)
		warn(r, "instruments: %s", e.msg);
	free(buf);
}

/* The market-based details (wall boundary) into mk. */
static void
market_details(struct rep *r, const struct market_result *res,
    const struct ynode *rm, json_object *mk)
{
	json_object *rj = json_object_new_array();
	size_t h;

	for (h = 0; h < res->rejected && h < MARKET_REJECTS; h++) {
		json_object *x = json_object_new_object();

		jset(x, "id", json_object_new_string(res->rejects[h].id));
		jset(x, "reason", json_object_new_string(res->rejects[h].why));
		json_object_array_add(rj, x);
	}
	jset(mk, "coverage", jnum(res->coverage));
	jset(mk, "hourly_matching", jnum(res->hourly_matching));
	jset(mk, "hourly_gap_hours", json_object_new_int64(
	    (int64_t)res->hourly_gap_hours));
	jset(mk, "remainder_method", json_object_new_string(
	    res->remainder_step));
	jset(mk, "remainder_factor_g_per_kwh", jnum(res->remainder_factor));
	jset(mk, "instruments_accepted", json_object_new_int64(
	    (int64_t)res->accepted));
	jset(mk, "instruments_mwh", jnum(res->instrument_kwh / 1000));
	jset(mk, "instruments_rejected", rj);
	if (res->residual_zero_ignored)
		warn(r, "residual mix factor 0 read as 'none published' "
		    "(AIB), not as zero");
	if (rm) {
		const char *src = ynode_str(rm, "source");
		const char *yr = ynode_str(rm, "year");
		char b[160];

		snprintf(b, sizeof(b), "%s %s (CO2 only)", src ? src :
		    "unstated", yr ? yr : "");
		jset(mk, "residual_mix", json_object_new_string(b));
		jset(mk, "residual_mix_source", json_object_new_string(src ?
		    src : "unstated"));
		jset(mk, "residual_mix_year", yr ? json_object_new_string(yr) :
		    NULL);
	}
}

/* Market-based at boundary bname over kwh_h into mk; *res for the class
 * split.  0, or -1 (warned). */
static int
market_json(struct rep *r, const struct totals *T, const double *kwh_h,
    const char *bname, const struct hourly_series *grid, double yearly,
    json_object *mk, struct market_result *res)
{
	const struct ynode *site = r->c->site, *m = ynode_get(site,
	    "market"), *rm = m ? ynode_get(m, "residual_mix") : NULL;
	struct market_opts mo = { .zone = ynode_str(site, "zone"),
	    .holder = m ? ynode_str(m, "holder") : NULL,
	    .site = ynode_str(site, "name"), .supplier_factor = NAN,
	    .residual_factor = NAN, .grid_average = yearly };
	struct carbon_instrument *in = NULL;
	struct wp_err e = { 0 };
	double kwh = hours_sum(kwh_h, T->nh);
	size_t n = 0;
	time_t s = (time_t)(r->o.from / WP_SEC);
	struct tm tm;

	if (grid != NULL && grid->n > 0) {
		struct carbon_loc loc;

		if (carbon_location(grid, yearly, kwh_h, T->nh, T->origin, &loc,
		    NULL) == 0)
			mo.grid_average = loc.g_per_kwh;
	}
	gmtime_r(&s, &tm);
	mo.period_start = (wp_time)timegm(&(struct tm){ .tm_year = tm.tm_year,
	    .tm_mday = 1 }) * WP_SEC;
	mo.period_end = (wp_time)timegm(&(struct tm){ .tm_year = tm.tm_year +
	    1, .tm_mday = 1 }) * WP_SEC;
	mo.supplier_factor = cfg_num(r, m, "supplier_factor", NAN);
	mo.residual_factor = cfg_num(r, rm, "factor", NAN);
	mo.period_kwh = cfg_num(r, m, "period_consumption_mwh", 0) * 1000;
	load_instruments(r, m, &in, &n);
	if (carbon_market(in, n, kwh, kwh_h, T->nh, T->origin, &mo, res,
	    &e) == -1) {
		warn(r, "market-based (%s): %s", bname, e.msg);
		free(in);
		return -1;
	}
	jset(mk, bname, carbon_pair(res->g, T->out, kwh, res->coverage));
	if (strcmp(bname, "wall") == 0)
		market_details(r, res, rm, mk);
	free(in);
	return 0;
}

/* carbon.by_class: kWh, nodes and output tokens per class slot. */
static void
class_info(const struct totals *T, json_object *byc, double *buf)
{
	size_t c;
	int b;

	for (c = 0; c < cls_slots(T); c++) {
		json_object *o = jchild(byc, cls_label(T, c), NULL);
		json_object *k = jchild(byc, cls_label(T, c), "kwh");

		jset(o, "nodes", json_object_new_int64(
		    (int64_t)T->cls_nodes[c]));
		jset(o, "output_tokens", T->cls_out[c] >= 0 ?
		    jnum(T->cls_out[c]) : NULL);
		for (b = 0; b < 2; b++)
			if (b == 0 || !isnan(T->pue))
				jset(k, carbon_bnd[b], jnum(hours_sum(
				    cls_hours(T, c, b, buf), T->nh)));
	}
}

/* Location-based per class at boundary b: each hour's class energy x that
 * hour's intensity. */
static void
class_location(const struct totals *T, const struct hourly_series *gs,
    double yearly, int b, json_object *byc, double *buf)
{
	size_t c;

	for (c = 0; c < cls_slots(T); c++) {
		struct carbon_loc cl;

		if (carbon_location(gs, yearly, cls_hours(T, c, b, buf), T->nh,
		    T->origin, &cl, NULL) == 0)
			jset(jchild(byc, cls_label(T, c), "location"),
			    carbon_bnd[b], carbon_pair(cl.g, T->cls_out[c],
			    cl.kwh, loc_coverage(&cl)));
	}
}

/* Market-based per class at boundary b: the site's result split in
 * proportion to the classes' consumption (carbon_market_allocate). */
static void
class_market(struct rep *r, const struct totals *T,
    const struct market_result *res, int b, json_object *byc, double *buf)
{
	size_t n = cls_slots(T), c;
	double *kwh = calloc(n + 1, sizeof(double));
	struct market_share *sh = calloc(n + 1, sizeof(*sh));
	struct wp_err e = { 0 };

	if (kwh == NULL || sh == NULL) {
		warn(r, "out of memory: market-based by class left out");
		goto out;
	}
	for (c = 0; c < n; c++)
		kwh[c] = hours_sum(cls_hours(T, c, b, buf), T->nh);
	if (carbon_market_allocate(res, kwh, n, sh, &e) == -1) {
		warn(r, "market-based by class (%s): %s", carbon_bnd[b], e.msg);
		goto out;
	}
	for (c = 0; c < n; c++) {
		json_object *p = carbon_pair(sh[c].g, T->cls_out[c], sh[c].kwh,
		    sh[c].coverage);

		jset(p, "instrument_mwh", jnum(sh[c].covered_kwh / 1000));
		jset(jchild(byc, cls_label(T, c), "market"), carbon_bnd[b], p);
	}
out:
	free(kwh);
	free(sh);
}

/* carbon.location.intensity_source: layout, column, basis, resolution. */
static void
intensity_source(const struct hourly_series *gs, double yearly,
    json_object *loc)
{
	char b[256];

	if (gs->n > 0)
		snprintf(b, sizeof(b), "%s: %s; basis %s; rows every %.0f s, "
		    "hourly values%s", gs->layout, gs->column, gs->basis,
		    secs(gs->resolution), yearly > 0 ? "; yearly average "
		    "fallback" : "");
	else
		snprintf(b, sizeof(b), "yearly average %g gCO2eq/kWh "
		    "(configured)", yearly);
	jset(loc, "intensity_source", json_object_new_string(b));
	jset(loc, "resolution_s", jnum(gs->n > 0 ? secs(gs->resolution) :
	    NAN));
}

/* Location- and market-based at both boundaries, site and classes. */
static void
carbon_bounds(struct rep *r, const struct totals *T,
    const struct hourly_series *gs, double yearly, json_object *cb)
{
	json_object *loc = json_object_new_object(), *mk =
	    json_object_new_object(), *byc = json_object_new_object();
	const double *hb[2] = { T->wall_h, T->fac_h };
	double *buf = calloc(T->nh + 1, sizeof(double));
	int b;

	if (buf != NULL && T->cls_h != NULL && T->cls_out != NULL &&
	    T->cls_nodes != NULL)
		class_info(T, byc, buf);
	for (b = 0; b < 2; b++) {
		struct carbon_loc cl;
		struct market_result res;
		struct wp_err e = { 0 };

		if (b == 1 && isnan(T->pue))
			continue;
		if (carbon_location(gs->n ? gs : NULL, yearly, hb[b], T->nh,
		    T->origin, &cl, &e) == 0) {
			jset(loc, carbon_bnd[b], carbon_pair(cl.g, T->out, cl.kwh,
			    loc_coverage(&cl)));
			if (b == 0) {
				jset(loc, "fallback_hours", json_object_new_int64(
				    (int64_t)cl.fallback_hours));
				jset(loc, "g_per_kwh", jnum(cl.g_per_kwh));
				jset(loc, "source", json_object_new_string(
				    gs->n ? gs->layout : "yearly average"));
				jset(loc, "basis", json_object_new_string(
				    gs->n ? gs->basis : "unstated"));
				intensity_source(gs, yearly, loc);
			}
			if (cl.fallback_hours && b == 0)
				warn(r, "%zu hour(s) at the yearly average "
				    "intensity (no hourly value)",
				    cl.fallback_hours);
			if (buf != NULL && json_object_object_length(byc) > 0)
				class_location(T, gs->n ? gs : NULL, yearly, b,
				    byc, buf);
		} else
			warn(r, "location-based (%s): %s", carbon_bnd[b], e.msg);
		if (market_json(r, T, hb[b], carbon_bnd[b], gs->n ? gs : NULL,
		    yearly, mk, &res) == 0 && buf != NULL &&
		    json_object_object_length(byc) > 0)
			class_market(r, T, &res, b, byc, buf);
	}
	jset(cb, "location", loc);
	jset(cb, "market", mk);
	jset(cb, "by_class", byc);
	free(buf);
}

/* cost: the site's, then per class at the same boundary. */
static void
cost_json(struct rep *r, const struct totals *T, const struct ynode *tar,
    json_object *root)
{
	struct hourly_series ps = { 0 };
	struct cost_result cr;
	struct wp_err e = { 0 };
	int bi = isnan(T->pue) ? 0 : 1;
	const double *kh = bi ? T->fac_h : T->wall_h;
	double flat = cfg_num(r, tar, "price", NAN);
	double *buf = calloc(T->nh + 1, sizeof(double));
	json_object *cost = json_object_new_object(), *byc;
	size_t c;

	if (ynode_str(tar, "price_csv"))
		load_hourly(r, ynode_str(tar, "price_csv"), HOURLY_PRICE,
		    NULL, NULL, &ps);
	jset(cost, "currency", json_object_new_string(ynode_str(tar,
	    "currency") ? ynode_str(tar, "currency") : "EUR"));
	jset(cost, "boundary", json_object_new_string(carbon_bnd[bi]));
	if (cost_compute(ps.n ? &ps : NULL, flat, kh, T->nh, T->origin, &cr,
	    &e) == 0) {
		jset(cost, "amount", jnum(cr.amount));
		jset(cost, "per_million_output_tokens", jnum(T->out > 0 ?
		    cr.amount / T->out * 1e6 : NAN));
		jset(cost, "fallback_hours", json_object_new_int64(
		    (int64_t)cr.fallback_hours));
		byc = json_object_new_object();
		for (c = 0; buf != NULL && T->cls_h != NULL &&
		    T->cls_out != NULL && c < cls_slots(T); c++) {
			json_object *o;

			if (cost_compute(ps.n ? &ps : NULL, flat, cls_hours(T, c,
			    bi, buf), T->nh, T->origin, &cr, NULL) == -1)
				continue;
			o = jchild(byc, cls_label(T, c), NULL);
			jset(o, "amount", jnum(cr.amount));
			jset(o, "kwh", jnum(cr.kwh));
			jset(o, "per_million_output_tokens", jnum(
			    T->cls_out[c] > 0 ? cr.amount / T->cls_out[c] * 1e6 :
			    NAN));
		}
		jset(cost, "by_class", byc);
	} else
		warn(r, "cost: %s", e.msg);
	jset(root, "cost", cost);
	hourly_fini(&ps);
	free(buf);
}

static void
carbon_json(struct rep *r, const struct totals *T, json_object *root)
{
	const struct ynode *site = r->c->site, *grid;
	const char *zone = site ? ynode_str(site, "zone") : NULL;
	struct hourly_series gs = { 0 };
	json_object *cb, *so;
	double yearly;

	grid = site ? ynode_get(site, "grid") : NULL;
	if (zone == NULL || (grid == NULL && !ynode_get(site, "market"))) {
		warn(r, "site has no zone or grid data: carbon left out");
		return;
	}
	yearly = cfg_num(r, grid, "yearly_average_g_per_kwh", -1);
	if (grid && ynode_str(grid, "intensity_csv"))
		load_hourly(r, ynode_str(grid, "intensity_csv"),
		    HOURLY_INTENSITY, zone, ynode_str(grid, "basis"), &gs);
	cb = json_object_new_object();
	so = json_object_new_object();
	jset(so, "name", ynode_str(site, "name") ? json_object_new_string(
	    ynode_str(site, "name")) : NULL);
	jset(so, "zone", json_object_new_string(zone));
	jset(so, "nodes", json_object_new_int64((int64_t)r->c->n_nodes));
	jset(so, "output_tokens", T->out >= 0 ? jnum(T->out) : NULL);
	jset(cb, "site", so);
	carbon_bounds(r, T, &gs, yearly, cb);
	jset(root, "carbon", cb);
	hourly_fini(&gs);
	if (site && ynode_get(site, "tariff"))
		cost_json(r, T, ynode_get(site, "tariff"), root);
}

/* Adds a node's hourly energy (s's hourly bins x scale) to the fleet's and
 * its class's hourly wall kWh (nodes without a class: slot ncls). */
static void
add_hours(struct totals *T, int node, const struct ser *s, double scale)
{
	size_t h, c;

	if (s->main.bins[0].e == NULL)
		return;
	c = T->cls_of != NULL && T->cls_of[node] >= 0 ?
	    (size_t)T->cls_of[node] : T->ncls;
	for (h = 0; h < T->nh && h < s->main.bins[0].n; h++) {
		double kwh = s->main.bins[0].e[h] / 3.6e6 * scale;

		T->wall_h[h] += kwh;
		if (T->cls_h != NULL)
			T->cls_h[c * T->nh + h] += kwh;
	}
}

/* The GPU source chosen per GPU index (in-band if accepted, else BMC). */
static struct ser *
gpu_pick(struct nodeagg *a, int g)
{
	return a->gib[g] && a->gib[g]->rc == 0 ? a->gib[g] : a->gbmc[g];
}

/* Class curves: node curves of wall-metered nodes merged per class. */
static int
classes_build(struct rep *r, struct nodeagg *na, struct totals *T)
{
	size_t i, j, n = r->c->n_nodes;

	T->cls_name = calloc(n + 1, sizeof(*T->cls_name));
	T->cls_of = calloc(n + 1, sizeof(int));
	T->cls_curve = calloc(n + 1, sizeof(struct curve));
	T->node_curve = calloc(n + 1, sizeof(struct curve));
	if (!T->cls_name || !T->cls_of || !T->cls_curve || !T->node_curve)
		return -1;
	for (i = 0; i < n; i++) {
		const char *cl = r->c->nodes[i].class;

		T->cls_of[i] = -1;
		curve_init(&T->node_curve[i]);
		if (cl == NULL)
			continue;
		for (j = 0; j < T->ncls && strcmp(T->cls_name[j], cl) != 0; j++)
			;
		if (j == T->ncls) {
			T->cls_name[T->ncls] = cl;
			curve_init(&T->cls_curve[T->ncls++]);
		}
		T->cls_of[i] = (int)j;
		node_curve(r, &na[i], &T->node_curve[i]);
	}
	/* a class curve from its counter-metered nodes (gauges sampled at
	 * the poll interval miss bursty loads by tens of percent, which
	 * would carry into every modeled node); gauge nodes only for a
	 * class without counter-metered nodes */
	for (j = 0; j < T->ncls; j++) {
		int pass;

		for (pass = 0; pass < 2 && T->cls_curve[j].n == 0; pass++)
			for (i = 0; i < n; i++)
				if (T->cls_of[i] == (int)j && na[i].wall != NULL &&
				    (pass == 1 || na[i].wall->kind ==
				    WP_COUNTER))
					curve_merge(&T->cls_curve[j],
					    &T->node_curve[i]);
	}
	T->cls_h = calloc((T->ncls + 1) * T->nh + 1, sizeof(double));
	T->cls_out = calloc(T->ncls + 1, sizeof(double));
	T->cls_nodes = calloc(T->ncls + 1, sizeof(size_t));
	if (T->cls_out != NULL)
		for (j = 0; j <= T->ncls; j++)
			T->cls_out[j] = -1;
	for (i = 0; T->cls_nodes != NULL && i < n; i++)
		T->cls_nodes[T->cls_of[i] >= 0 ? (size_t)T->cls_of[i] :
		    T->ncls]++;
	T->curve_tol = 0.05;
	if (r->c->report != NULL)
		T->curve_tol = cfg_num(r, r->c->report, "curve_tolerance", 0.05);
	return T->cls_h == NULL || T->cls_out == NULL || T->cls_nodes == NULL ?
	    -1 : 0;
}

static void
classes_free(struct totals *T)
{
	free(T->cls_name);
	free(T->cls_of);
	free(T->cls_curve);
	free(T->node_curve);
	free(T->cls_h);
	free(T->cls_out);
	free(T->cls_nodes);
}

/* A bin's wall/GPU ratio when it can be used: a ratio under 1 (the wall
 * feeding less than its own GPUs) is a misaligned measurement. */
static double
usable_ratio(const struct curve *c, int k)
{
	double x;

	if (c->bin[k].count == 0)
		return NAN;
	x = curve_bin_ratio(c, k);
	return x >= 1 ? x : NAN;
}

/*
 * Wall/GPU ratio of a class at a GPU load, and *dist, how far (in load)
 * outside the class's measured loads it had to be carried.  Inside that
 * range: the load's bin, else the linear fit (interpolation).  Outside it:
 * the nearest usable bin's ratio held flat; a fit through points taken at
 * nearly one load extrapolates to anything (even below 1).  NAN when the
 * class has no usable bin.
 */
static double
class_ratio(const struct curve *c, const struct curve_fit *f, double load,
    double gpu_w, double *dist)
{
	int k = (int)(load * CURVE_BINS), lo, hi;
	double x;

	k = k < 0 ? 0 : k >= CURVE_BINS ? CURVE_BINS - 1 : k;
	*dist = 0;
	for (lo = 0; lo < CURVE_BINS && isnan(usable_ratio(c, lo)); lo++)
		;
	for (hi = CURVE_BINS - 1; hi >= 0 && isnan(usable_ratio(c, hi)); hi--)
		;
	if (lo > hi)
		return NAN;
	if (k < lo) {
		*dist = curve_bin_load_lo(lo) - load;
		return usable_ratio(c, lo);
	}
	if (k > hi) {
		*dist = load - curve_bin_load_lo(hi + 1);
		return usable_ratio(c, hi);
	}
	if (!isnan(x = usable_ratio(c, k)))
		return x;
	if (f->valid && gpu_w > 0 && (x = curve_eval(f, gpu_w) / gpu_w) >= 1)
		return x;
	for (; k > lo && isnan(usable_ratio(c, k)); k--)
		;
	return usable_ratio(c, k);	/* lo at worst */
}

/*
 * Wall energy of a node without wall metering, modeled from its class
 * curve: each curve step's GPU energy x the class's wall/GPU ratio at that
 * step's GPU load.  0 with v (method modeled), or -1.
 */
static int
model_wall(struct rep *r, struct nodeagg *a, const struct curve *cls,
    struct bnd_value *v)
{
	struct ser *gs[MAX_GPUS];
	struct curve_fit f;
	double lim = node_limit(a), e = 0, gb = 0, gt = 0, rel;
	double ext = 0, ge_all = 0;	/* load distance carried, GPU J */
	const struct integ_bins *b0 = NULL;
	size_t i;
	int g, ng = 0;

	memset(v, 0, sizeof(*v));
	if (!(lim > 0) || cls == NULL || cls->n == 0)
		return -1;
	for (g = 0; g < MAX_GPUS; g++) {
		struct ser *s = gpu_pick(a, g);

		if (s == NULL)
			continue;
		if (s->rc != 0 || s->main.bins[1].e == NULL)
			return -1;
		gs[ng++] = s;
		b0 = &s->main.bins[1];
		gb += bound_of(s);
		gt += s->res.energy;
	}
	if (ng == 0)
		return -1;
	curve_fit(cls, 1, &f);
	for (i = 0; i < b0->n; i++) {
		wp_time bs = b0->origin + (wp_time)i * b0->len;
		wp_time lo = bs > r->o.from ? bs : r->o.from;
		wp_time hi = bs + b0->len < r->o.to ? bs + b0->len : r->o.to;
		double ge = 0, ratio, dist;

		if (hi <= lo)
			continue;
		for (g = 0; g < ng; g++)
			ge += gs[g]->main.bins[1].e[i];
		ratio = class_ratio(cls, &f, ge / secs(hi - lo) / lim,
		    ge / secs(hi - lo), &dist);
		if (!isfinite(ratio))
			return -1;
		e += ge * ratio;
		ext += ge * dist;
		ge_all += ge;
	}
	/* the model's scatter: twice the class fit's RMS residual relative
	 * to its mean wall power (no cancellation over the window assumed),
	 * at least MODEL_MIN_REL; plus the GPU energy's own bound carried
	 * through the node's wall/GPU ratio */
	rel = f.valid && f.mean_wall > 0 ? 2 * f.rms / f.mean_wall : NAN;
	if (!(rel >= MODEL_MIN_REL))
		rel = f.valid ? MODEL_MIN_REL : MODEL_NOFIT_REL;
	/* a ratio held flat beyond the class's loads: its error grows with
	 * the distance, taken one for one (the simulator's PSU and host model
	 * falls from 2.8 at 10 % load to 1.45 at 55 % and 1.35 at full load:
	 * under 1 per unit of load everywhere) */
	if (ge_all > 0)
		rel += ext / ge_all;
	v->valid = true;
	v->energy_j = e;
	v->method = BM_MODELED;
	v->bound_j = e * rel + (gt > 0 ? gb * e / gt : 0);
	return 0;
}

/* Hourly wall kWh of a modeled node: its GPUs' hourly energy scaled so
 * that the hours add up to the modeled energy. */
static void
model_hours(struct totals *T, int node, struct nodeagg *a, double wall_j)
{
	double gpu = 0;
	int g;

	for (g = 0; g < MAX_GPUS; g++)
		if (gpu_pick(a, g) != NULL)
			gpu += gpu_pick(a, g)->res.energy;
	for (g = 0; g < MAX_GPUS && gpu > 0; g++)
		if (gpu_pick(a, g) != NULL)
			add_hours(T, node, gpu_pick(a, g), wall_j / gpu);
}

static json_object *
node_json(struct rep *r, size_t i, struct nodeagg *a, struct totals *T,
    struct bnd_value *v)
{
	const struct wp_node *nd = &r->c->nodes[i];
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	double cross, out = node_tokens(a, true, W_MAIN);
	double in = node_tokens(a, false, W_MAIN), dev = NAN;
	char why[WP_ERR_MSG + 128];
	int k, c = T->cls_of[i];
	bool flag = false;

	node_gpu(a, W_MAIN, &v[BND_GPU], &cross);
	one(a->wall && a->wall->rc == 0 ? a->wall : NULL, W_MAIN, &v[BND_WALL]);
	node_outlet(nd, a, W_MAIN, &v[BND_OUTLET], why, sizeof(why));
	if (!v[BND_OUTLET].valid && nd->n_outlets > 0)
		warn(r, "node %s: no outlet energy: %s", nd->name, why);
	if (!v[BND_WALL].valid && c >= 0 &&
	    model_wall(r, a, &T->cls_curve[c], &v[BND_WALL]) == 0) {
		warn(r, "node %s: %s%s: wall energy modeled from the %s class "
		    "curve (bound %.1f %%)", nd->name, a->wall == NULL ?
		    "no wall metering" : "wall window unusable: ",
		    a->wall == NULL ? "" : a->wall->why, T->cls_name[c],
		    100 * v[BND_WALL].bound_j / v[BND_WALL].energy_j);
		model_hours(T, (int)i, a, v[BND_WALL].energy_j);
	} else if (!v[BND_WALL].valid)
		warn(r, "node %s: no wall energy: %s%s", nd->name,
		    why_missing(a->wall), c < 0 ? " (no class to model it "
		    "from)" : " (its class curve cannot model it)");
	else
		add_hours(T, (int)i, a->wall, 1);
	boundary_facility_pue(&v[BND_WALL], T->pue, &v[BND_FACILITY]);
	for (k = 0; k < MAX_GPUS && !v[BND_GPU].valid; k++) {
		struct ser *x = a->gib[k] ? a->gib[k] : a->gbmc[k];

		if (x != NULL && x->rc != 0) {
			warn(r, "node %s: no GPU energy: gpu %d: %s", nd->name, k,
			    x->why);
			break;
		}
	}
	if (c >= 0 && T->node_curve[i].n > 0) {
		dev = curve_deviation(&T->node_curve[i], &T->cls_curve[c],
		    T->curve_tol, &flag);
		if (flag)
			warn(r, "node %s: wall-to-GPU curve deviates %.1f %% from "
			    "its class %s (tolerance %.1f %%)", nd->name,
			    dev * 100, T->cls_name[c], T->curve_tol * 100);
	}
	jset(o, "name", json_object_new_string(nd->name));
	jset(o, "class", nd->class ? json_object_new_string(nd->class) : NULL);
	for (k = 0; k < BND_N; k++)
		jset(b, bnd_name(k), fig_json(&v[k], v[k].valid &&
		    v[k].method != BM_MODELED ? 1 : 0, T, out, in, -1, -1));
	jset(o, "boundaries", b);
	jset(o, "tokens", out >= 0 ? jnum(out) : NULL);
	jset(o, "wall_to_gpu_ratio", jnum(v[BND_WALL].valid &&
	    v[BND_GPU].valid && v[BND_GPU].energy_j > 0 ?
	    v[BND_WALL].energy_j / v[BND_GPU].energy_j : NAN));
	jset(o, "gpu_crosscheck_bmc_j", jnum(cross));
	jset(o, "calibration_wall_over_outlet", jnum(v[BND_WALL].valid &&
	    v[BND_WALL].method != BM_MODELED && v[BND_OUTLET].valid &&
	    v[BND_OUTLET].energy_j > 0 ?
	    v[BND_WALL].energy_j / v[BND_OUTLET].energy_j : NAN));
	jset(o, "gpu_power_limit_w", jnum(node_limit(a) > 0 ? node_limit(a) :
	    NAN));
	jset(o, "curve_intervals", json_object_new_int64(
	    (int64_t)T->node_curve[i].n));
	jset(o, "curve_deviation_from_class", jnum(dev));
	jset(o, "curve_deviates", json_object_new_boolean(flag));
	return o;
}

/* Idle power of a boundary over the idle window, W; -1 none. */
static double
idle_power(struct rep *r, struct nodeagg *na, int bnd)
{
	double sum = 0, cross;
	size_t i;

	if (!r->o.have_idle)
		return -1;
	for (i = 0; i < r->c->n_nodes; i++) {
		struct bnd_value v;

		if (bnd == BND_GPU)
			node_gpu(&na[i], W_IDLE, &v, &cross);
		else
			one(na[i].wall, W_IDLE, &v);
		if (!v.valid) {
			warn(r, "idle window: node %s has no %s energy",
			    r->c->nodes[i].name, bnd_name(bnd));
			return -1;
		}
		sum += v.energy_j;
	}
	return sum / secs(r->o.idle_to - r->o.idle_from);
}

static json_object *
runs_json(struct rep *r, struct nodeagg *na)
{
	json_object *o = json_object_new_object(), *vals;
	double x[MAX_RUNS];
	struct runstats rs;
	struct wp_err e = { 0 };
	int k;
	size_t i;

	jset(o, "n", json_object_new_int(r->o.runs));
	jset(o, "method", json_object_new_string(r->run_method));
	vals = json_object_new_array();
	for (k = 0; k < r->o.runs; k++) {
		double energy = 0, tok = fleet_tokens(r, na, true, k);

		for (i = 0; i < r->c->n_nodes; i++) {
			struct bnd_value v;

			one(na[i].wall, k, &v);
			if (!v.valid) {
				warn(r, "run %d: node %s has no wall energy "
				    "(sub-window refused)", k + 1,
				    r->c->nodes[i].name);
				return o;
			}
			energy += v.energy_j;
		}
		x[k] = tok > 0 ? energy / tok : NAN;
		json_object_array_add(vals, jnum(x[k]));
	}
	jset(o, "wall_j_per_output_token", vals);
	if (stats_runs(x, (size_t)r->o.runs, &rs, &e) == 0) {
		jset(o, "mean", jnum(rs.mean));
		jset(o, "sd", jnum(rs.sd));
		jset(o, "t", jnum(rs.t));
		jset(o, "ci95_half_width", jnum(rs.half95));
	} else
		warn(r, "runs: %s", e.msg);
	return o;
}

#define DISCLOSE_MAX	64	/* instrument entries per boundary */

static const char *const id_keys[] = { "vendor", "model", "fw", "firmware",
    "sysdescr", "profile", "meter", "category", "driver", "dcgm", "uuid",
    "source", "engine", NULL };

/* Adds s to arr unless present (distinct values). */
static void
add_distinct(json_object *arr, const char *s)
{
	size_t i, n = json_object_array_length(arr);

	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr,
		    i)), s) == 0)
			return;
	if (n < DISCLOSE_MAX)
		json_object_array_add(arr, json_object_new_string(s));
}

/*
 * The instruments behind a boundary, from what was collected: one entry per
 * series (target, series, counter or gauge, the target's sampling
 * interval, the identity labels the driver reported), and the distinct
 * identities (BMC vendor/model/firmware, PDU sysDescr, meter model, GPU
 * model/driver/DCGM) in "devices".
 */
static json_object *
instruments(struct rep *r, int r1, int r2, json_object *devices)
{
	json_object *a = json_object_new_array();
	size_t i, more = 0;
	int k;

	for (i = 0; i < r->ser.cap; i++) {
		struct ser *s = r->ser.slot[i].e;
		struct wp_sample tmp;
		json_object *e, *lab;
		char val[WP_LABEL_MAX];
		const char *bar;

		if (s == NULL || (s->role != r1 && s->role != r2))
			continue;
		snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
		for (k = 0; id_keys[k] != NULL; k++) {
			json_object *d;

			if (sample_get_label(&tmp, id_keys[k], val,
			    sizeof(val)) != 0 || strcmp(id_keys[k], "uuid") == 0 ||
			    strcmp(id_keys[k], "source") == 0)
				continue;
			if (!json_object_object_get_ex(devices,
			    strcmp(id_keys[k], "firmware") == 0 ? "fw" :
			    id_keys[k], &d)) {
				d = json_object_new_array();
				jset(devices, strcmp(id_keys[k], "firmware") == 0 ?
				    "fw" : id_keys[k], d);
			}
			add_distinct(d, val);
		}
		if (json_object_array_length(a) >= DISCLOSE_MAX) {
			more++;
			continue;
		}
		e = json_object_new_object();
		bar = strchr(s->key, '|');
		jset(e, "target", json_object_new_string_len(s->key,
		    (int)(bar - s->key)));
		jset(e, "series", json_object_new_string(bar + 1));
		jset(e, "kind", json_object_new_string(s->kind == WP_COUNTER ?
		    "counter" : "gauge"));
		jset(e, "interval_s", jnum(secs(s->interval)));
		lab = json_object_new_object();
		for (k = 0; id_keys[k] != NULL; k++)
			if (sample_get_label(&tmp, id_keys[k], val,
			    sizeof(val)) == 0)
				jset(lab, id_keys[k], json_object_new_string(val));
		jset(e, "labels", lab);
		json_object_array_add(a, e);
	}
	if (more > 0)
		warn(r, "disclosure: %zu more instrument series not listed", more);
	return a;
}

/* Distinct sampling intervals over the series used. */
static json_object *
intervals(struct rep *r)
{
	json_object *a = json_object_new_array();
	size_t i, j, n;

	for (i = 0; i < r->ser.cap; i++) {
		const struct ser *s = r->ser.slot[i].e;
		bool dup = false;

		if (s == NULL || s->role == R_NONE)
			continue;
		n = json_object_array_length(a);
		for (j = 0; j < n && !dup; j++)
			dup = json_object_get_double(json_object_array_get_idx(a,
			    j)) == secs(s->interval);
		if (!dup)
			json_object_array_add(a, jnum(secs(s->interval)));
	}
	return a;
}

static json_object *
jdev(json_object *dev, const char *k)
{
	json_object *o = json_object_new_object();

	jset(dev, k, o);
	return o;
}

/* Per node: the sum of its GPUs' enforced power limits (mean over the
 * window), W. */
static json_object *
limits(struct rep *r, struct nodeagg *na)
{
	json_object *o = json_object_new_object();
	size_t i, n = 0;

	for (i = 0; i < r->c->n_nodes && n < DISCLOSE_MAX; i++)
		if (node_limit(&na[i]) > 0) {
			jset(o, r->c->nodes[i].name, jnum(node_limit(&na[i])));
			n++;
		}
	return o;
}

static json_object *
disclosure(struct rep *r, struct nodeagg *na, const struct totals *T)
{
	json_object *d = json_object_new_object(), *ins, *dev;
	char buf[256];

	ins = json_object_new_object();
	dev = json_object_new_object();
	jset(ins, "gpu", instruments(r, R_GPU_IB, R_GPU_BMC, jdev(dev, "gpu")));
	jset(ins, "wall", instruments(r, R_WALL, R_WALL_P, jdev(dev, "bmc")));
	jset(ins, "outlet", instruments(r, R_OUTLET, R_OUTLET_P, jdev(dev,
	    "pdu")));
	jset(ins, "facility", instruments(r, R_FAC, R_IT, jdev(dev, "meter")));
	jset(ins, "tokens", instruments(r, R_TOK_OUT, R_TOK_IN, jdev(dev,
	    "engine")));
	jset(d, "instruments", ins);
	jset(d, "devices", dev);
	jset(d, "gpu_power_limit_w", limits(r, na));
	jset(d, "sampling_interval_s", jnum(secs(r->c->interval)));
	jset(d, "sampling_intervals_s", intervals(r));
	jset(d, "window_s", jnum(T->secs));
	jset(d, "run_count", json_object_new_int(r->o.runs > 1 ? r->o.runs : 1));
	jset(d, "edges", json_object_new_string("counters interpolated "
	    "linearly between the readings around each edge; gauges only "
	    "when no counter (gauge-estimated)"));
	if (r->o.have_idle) {
		char a[40], b[40];

		clock_iso8601(r->o.idle_from, a, sizeof(a));
		clock_iso8601(r->o.idle_to, b, sizeof(b));
		snprintf(buf, sizeof(buf), "gross is the headline; "
		    "idle-subtracted is secondary, idle power from %s..%s", a, b);
	} else
		snprintf(buf, sizeof(buf), "gross only (no idle window marked)");
	jset(d, "idle_policy", json_object_new_string(buf));
	jset(d, "token_denominator", json_object_new_string("output tokens, "
	    "counted once per model replica; total = input + output"));
	{
		json_object *p = json_object_new_object();

		jset(p, "value", jnum(T->pue));
		jset(p, "period", json_object_new_string("window"));
		jset(p, "category", json_object_new_string(T->pue_category));
		jset(p, "source", json_object_new_string(isnan(T->pue) ? "none" :
		    T->pue_source));
		jset(d, "pue", p);
	}
	jset(d, "wall_model", json_object_new_string("nodes without a usable "
	    "wall reading (unmetered, or the window refused: e.g. an "
	    "EnergykWh counter too coarse for it): GPU energy per curve step "
	    "x their class's wall/GPU ratio at that GPU load (method "
	    "modeled, not in coverage; bound 2 x the class fit's RMS "
	    "residual over its mean wall power, at least 25 % (the fit may "
	    "extrapolate to the node's load), plus the GPU energy's bound)"));
	jset(d, "bounds", json_object_new_string("counters: one resolution "
	    "step plus half the straddling reading interval's energy at each "
	    "edge; gauges: window x the largest distance of the mean power "
	    "from the lowest and highest reading (holds while the power "
	    "stays within the range the readings saw), plus one reading step "
	    "over the window; modeled: see wall_model; totals add their "
	    "nodes' bounds"));
	jset(d, "coverage_rule", json_object_new_string("coverage is the "
	    "share of nodes measured; modeled nodes count in the energy, not "
	    "in coverage; a boundary some nodes lack altogether reports the "
	    "nodes it covers, with J/token over their own tokens (a replica "
	    "only when all its nodes are covered)"));
	if (r->partial != NULL) {
		json_object_get(r->partial);
		jset(d, "partial_coverage", r->partial);
	}
	jset(d, "facility_method", json_object_new_string(isnan(T->pue) ?
	    "none" : "wall energy x PUE over the same window; second method: "
	    "metered facility energy allocated by IT energy share"));
	{
		json_object *j = json_object_new_object();

		jset(j, "segments_read", json_object_new_int64((int64_t)
		    r->scan_st.segments_read));
		jset(j, "summaries_used", json_object_new_int64((int64_t)
		    r->scan_st.summaries_used));
		jset(d, "journal", j);
	}
	if (r->rq != NULL) {
		jset(d, "isl", dist_json(r, false));
		jset(d, "osl", dist_json(r, true));
		jset(d, "requests", json_object_new_int64((int64_t)r->rq->n));
		jset(d, "request_log_bad_lines", json_object_new_int64(
		    (int64_t)r->rq->n_bad));
	}
	return d;
}

/* PUE rows of one calendar period from the meters' hourly energies. */
static json_object *
pue_rows(const struct totals *T, int period)
{
	json_object *a = json_object_new_array();
	size_t n, i, max = T->nh + 1;
	struct pue_row *rows = calloc(max, sizeof(*rows));

	if (rows == NULL)
		return a;
	n = pue_periods(T->mfac_h, T->mit_h, T->nh, T->origin, period, rows,
	    max);
	for (i = 0; i < n; i++) {
		json_object *x = json_object_new_object();

		jset(x, "start", jtime(rows[i].start));
		jset(x, "value", jnum(rows[i].value));
		jset(x, "facility_energy_j", jnum(rows[i].facility_j * 3.6e6));
		jset(x, "it_energy_j", jnum(rows[i].it_j * 3.6e6));
		json_object_array_add(a, x);
	}
	free(rows);
	return a;
}

/* Partial PUE per zone: facility_total over it_total meters carrying the
 * same `zone:` in the config. */
static json_object *
pue_zones(struct rep *r)
{
	json_object *z = json_object_new_object();
	size_t i, j;

	for (i = 0; i < r->c->n_meters; i++) {
		const char *zone = ynode_str(r->c->meters[i].block, "zone");
		double fac = 0, it = 0, v;
		bool seen = false, bad = false;
		struct wp_err e = { 0 };
		json_object *x;

		if (zone == NULL || json_object_object_get_ex(z, zone, NULL))
			continue;
		for (j = 0; j < r->ser.cap; j++) {
			struct ser *s = r->ser.slot[j].e;
			const char *sz;

			if (s == NULL || (s->role != R_FAC && s->role != R_IT))
				continue;
			sz = ynode_str(r->c->meters[s->gpu].block, "zone");
			if (sz == NULL || strcmp(sz, zone) != 0)
				continue;
			if (s->rc != 0)
				bad = true;
			*(s->role == R_FAC ? &fac : &it) += s->res.energy;
			seen = seen || s->role == R_IT;
		}
		x = json_object_new_object();
		jset(x, "facility_energy_j", jnum(fac));
		jset(x, "it_energy_j", jnum(it));
		if (!seen || bad || fac <= 0)
			jset(x, "value", NULL);
		else if (pue_compute(fac, it, &v, &e) == 0)
			jset(x, "value", jnum(v));
		else {
			jset(x, "value", NULL);
			warn(r, "zone %s: partial %s", zone, e.msg);
		}
		json_object_object_add(z, zone, x);
	}
	return z;
}

static json_object *
pue_json(struct rep *r, const struct totals *T)
{
	json_object *o = json_object_new_object(), *per;
	static const int ps[] = { PUE_HOUR, PUE_DAY, PUE_MONTH, PUE_YEAR };
	size_t i;

	jset(o, "value", jnum(T->pue));
	jset(o, "category", json_object_new_string(T->pue_category));
	jset(o, "period", json_object_new_string("window"));
	jset(o, "source", json_object_new_string(T->pue_source));
	if (strcmp(T->pue_source, "metered") != 0) {
		jset(o, "days", json_object_new_array());
		return o;
	}
	jset(o, "facility_energy_j", jnum(T->fac_metered_j));
	jset(o, "it_energy_j", jnum(T->it_metered_j));
	jset(o, "days", pue_rows(T, PUE_DAY));
	per = json_object_new_object();
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		if (r->o.period >= 0 ? r->o.period != ps[i] :
		    ps[i] == PUE_HOUR && T->nh > 48)
			continue;
		jset(per, pue_period_name(ps[i]), pue_rows(T, ps[i]));
	}
	jset(o, "periods", per);
	jset(o, "zones", pue_zones(r));
	return o;
}

static json_object *
build_report(struct rep *r)
{
	struct nodeagg *na = calloc(r->c->n_nodes + 1, sizeof(*na));
	json_object *root = json_object_new_object(), *nodes, *b, *w, *tk, *is;
	struct bnd_value *v, tv[BND_N];
	struct bnd_value *nv = calloc((r->c->n_nodes + 1) * BND_N,
	    sizeof(*nv));
	struct totals T = { 0 };
	double slo = -1, idle_w, idle_g, rw_j = 0, rg_j = 0;
	size_t i;
	int k;

	if (na == NULL || nv == NULL) {
		free(na);
		free(nv);
		warn(r, "out of memory building the report");
		json_object_get(r->warnings);
		jset(root, "warnings", r->warnings);
		return root;
	}
	T.secs = secs(r->o.to - r->o.from);
	T.origin = r->o.from - ((r->o.from % HOUR) + HOUR) % HOUR;
	T.nh = (size_t)((r->o.to - T.origin + HOUR - 1) / HOUR);
	T.wall_h = calloc(T.nh + 1, sizeof(double));
	T.fac_h = calloc(T.nh + 1, sizeof(double));
	T.it_h = calloc(T.nh + 1, sizeof(double));
	T.mfac_h = calloc(T.nh + 1, sizeof(double));
	T.mit_h = calloc(T.nh + 1, sizeof(double));
	gather(r, na);
	if (classes_build(r, na, &T) == -1)
		warn(r, "out of memory building class curves");
	site_pue(r, &T);
	for (k = 0; k < BND_N; k++)
		boundary_total_init(&T.b[k]);
	T.out = fleet_tokens_by(r, na, true, W_MAIN, &T, T.cls_out);
	T.in = fleet_tokens(r, na, false, W_MAIN);
	if (T.out < 0 && r->rq != NULL) {
		struct reqlog_window rw;

		reqlog_window(r->rq, secs(r->o.from), secs(r->o.to) + 1e-6, 0, 0,
		    &rw);
		T.out = (double)rw.out_tokens;
		T.in = (double)rw.in_tokens;
		warn(r, "no engine token counters: tokens from the request log");
	}
	if (T.out <= 0)
		warn(r, "no output tokens in the window: J/token undefined");
	nodes = json_object_new_array();
	for (i = 0; i < r->c->n_nodes; i++) {
		v = &nv[i * BND_N];
		json_object_array_add(nodes, node_json(r, i, &na[i], &T, v));
		for (k = 0; k < BND_N; k++)
			boundary_total_add(&T.b[k], &v[k]);
		if (v[BND_WALL].valid && v[BND_GPU].valid) {
			rw_j += v[BND_WALL].energy_j;
			rg_j += v[BND_GPU].energy_j;
		}
	}
	for (i = 0; i < T.nh; i++)
		T.fac_h[i] = isnan(T.pue) ? 0 : T.wall_h[i] * T.pue;
	if (r->rq != NULL && r->c->report && ynode_get(r->c->report, "slo")) {
		const struct ynode *s = ynode_get(r->c->report, "slo");
		struct reqlog_window rw;

		/* share of output tokens of requests ending in the window that
		 * met the SLO, applied to the counted tokens */
		reqlog_window(r->rq, secs(r->o.from), secs(r->o.to) + 1e-6,
		    cfg_num(r, s, "ttft_ms", 0) / 1000,
		    cfg_num(r, s, "tpot_ms", 0) / 1000, &rw);
		T.slo_share = rw.out_tokens > 0 ? (double)rw.slo_out_tokens /
		    (double)rw.out_tokens : NAN;
		if (isfinite(T.slo_share) && T.out > 0)
			slo = T.out * T.slo_share;
	}
	w = json_object_new_object();
	jset(w, "start", jtime(r->o.from));
	jset(w, "end", jtime(r->o.to));
	jset(w, "seconds", jnum(T.secs));
	jset(root, "window", w);
	tk = json_object_new_object();
	jset(tk, "output", T.out >= 0 ? jnum(T.out) : NULL);
	jset(tk, "input", T.in >= 0 ? jnum(T.in) : NULL);
	jset(tk, "slo_qualified", slo >= 0 ? jnum(slo) : NULL);
	jset(root, "tokens", tk);
	b = json_object_new_object();
	for (k = 0; k < BND_N; k++)
		jset(b, bnd_name(k), boundary_json(r, na, nv, k, &T, slo,
		    &tv[k]));
	jset(root, "boundaries", b);
	idle_w = idle_power(r, na, BND_WALL);
	idle_g = idle_power(r, na, BND_GPU);
	is = json_object_new_object();
	if (idle_w >= 0 && T.b[BND_WALL].counted < T.b[BND_WALL].nodes)
		idle_w = -1;	/* the idle power covers every node */
	if (idle_g >= 0 && T.b[BND_GPU].counted < T.b[BND_GPU].nodes)
		idle_g = -1;
	if (idle_w >= 0) {
		jset(is, "wall", fig_json(&tv[BND_WALL], 1, &T, T.out, T.in, -1,
		    idle_w));
		jset(is, "idle_power_wall_w", jnum(idle_w));
	}
	if (idle_g >= 0) {
		jset(is, "gpu", fig_json(&tv[BND_GPU], 1, &T, T.out, T.in, -1,
		    idle_g));
		jset(is, "idle_power_gpu_w", jnum(idle_g));
	}
	jset(root, "idle_subtracted", is);
	/* over the nodes that have both, measured or modeled */
	jset(root, "wall_to_gpu_ratio", jnum(rg_j > 0 ? rw_j / rg_j : NAN));
	jset(root, "pue", pue_json(r, &T));
	{
		json_object *cv = json_object_new_object();

		for (i = 0; T.cls_curve != NULL && i < T.ncls; i++)
			jset(cv, T.cls_name[i], curve_json(&T.cls_curve[i]));
		jset(root, "curves", cv);
	}
	jset(root, "nodes", nodes);
	if (r->o.runs > 1)
		jset(root, "runs", runs_json(r, na));
	if (T.b[BND_WALL].counted > 0 &&
	    T.b[BND_WALL].counted == T.b[BND_WALL].nodes)
		carbon_json(r, &T, root);
	else
		warn(r, "wall boundary incomplete (%zu of %zu nodes measured or "
		    "modeled): carbon and cost left out",
		    T.b[BND_WALL].counted, T.b[BND_WALL].nodes);
	jset(root, "disclosure", disclosure(r, na, &T));
	json_object_get(r->warnings);
	jset(root, "warnings", r->warnings);
	free(T.wall_h);
	free(T.fac_h);
	free(T.it_h);
	free(T.mfac_h);
	free(T.mit_h);
	classes_free(&T);
	free(nv);
	free(na);
	return root;
}

/* ----------------------------------------------------------- output */

/* One CSV cell (quoted when needed), then sep ('\0': none). */
static void
csv_cell(FILE *f, const char *s, char sep)
{
	if (strpbrk(s, ",\"\n\r") != NULL) {
		fputc('"', f);
		for (; *s; s++)
			fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
		fputc('"', f);
	} else
		fputs(s, f);
	if (sep != '\0')
		fputc(sep, f);
}

/* CSV: one "path,value" row per leaf, for spreadsheets. */
static void
flatten(json_object *o, const char *path, FILE *f)
{
	char p[512];

	if (o != NULL && json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "",
			    k);
			flatten(v, p, f);
		}
	} else if (o != NULL && json_object_is_type(o, json_type_array)) {
		size_t i, n = json_object_array_length(o);

		for (i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(o, i);
			json_object *nm;

			if (json_object_is_type(e, json_type_object) &&
			    json_object_object_get_ex(e, "name", &nm))
				snprintf(p, sizeof(p), "%s.%s", path,
				    json_object_get_string(nm));
			else
				snprintf(p, sizeof(p), "%s.%zu", path, i);
			flatten(e, p, f);
		}
	} else {
		csv_cell(f, path, ',');
		csv_cell(f, o ? json_object_get_string(o) : "", '\n');
	}
}

/* The string at o.a.b.c (NULL keys end the path), "" when absent/null. */
static const char *
jcell(json_object *o, const char *a, const char *b, const char *c)
{
	const char *k[3] = { a, b, c };
	int i;

	for (i = 0; i < 3 && k[i] != NULL; i++)
		if (o == NULL || !json_object_object_get_ex(o, k[i], &o))
			return "";
	return o ? json_object_get_string(o) : "";
}

/* The number (%.12g) or string at o.k as a CSV cell, "" when null. */
static void
csv_val(FILE *f, json_object *o, const char *k, char sep)
{
	char b[64];

	if (o != NULL && json_object_object_get_ex(o, k, &o) && o != NULL &&
	    json_object_is_type(o, json_type_double)) {
		snprintf(b, sizeof(b), "%.12g", json_object_get_double(o));
		csv_cell(f, b, sep);
	} else
		csv_cell(f, o != NULL ? json_object_get_string(o) : "", sep);
}

static const char carbon_csv_header[] = "scope,name,boundary,method,kgco2e,"
    "g_per_million_output_tokens,coverage,kwh,output_tokens,"
    "intensity_source,residual_mix_source,residual_mix_year,"
    "remainder_method,period_start,period_end\n";

/* Rows of one scope (sc: carbon for the site, carbon.by_class.<name>). */
static void
carbon_csv_scope(FILE *f, json_object *root, json_object *sc,
    const char *scope, const char *name, json_object *tokens)
{
	static const char *const meth[2] = { "location", "market" };
	json_object *cb = json_object_object_get(root, "carbon");
	json_object *mk = json_object_object_get(cb, "market");
	int b, m;

	for (b = 0; b < 2; b++)
		for (m = 0; m < 2; m++) {
			json_object *p = NULL;
			bool grid = m == 0 || strcmp(jcell(mk,
			    "remainder_method", NULL, NULL), "grid-average") == 0;

			if (!json_object_object_get_ex(json_object_object_get(
			    sc, meth[m]), carbon_bnd[b], &p) || p == NULL)
				continue;
			csv_cell(f, scope, ',');
			csv_cell(f, name, ',');
			csv_cell(f, carbon_bnd[b], ',');
			csv_cell(f, meth[m], ',');
			csv_val(f, p, "kg", ',');
			csv_val(f, p, "g_per_million_output_tokens", ',');
			csv_val(f, p, "coverage", ',');
			csv_val(f, p, "kwh", ',');
			csv_val(f, tokens, "output_tokens", ',');
			csv_cell(f, grid ? jcell(cb, "location",
			    "intensity_source", NULL) : "", ',');
			csv_cell(f, m ? jcell(mk, "residual_mix_source", NULL,
			    NULL) : "", ',');
			csv_cell(f, m ? jcell(mk, "residual_mix_year", NULL,
			    NULL) : "", ',');
			csv_cell(f, m ? jcell(mk, "remainder_method", NULL,
			    NULL) : "", ',');
			csv_cell(f, jcell(root, "window", "start", NULL), ',');
			csv_cell(f, jcell(root, "window", "end", NULL), '\n');
		}
}

/* Sustainability CSV (docs/report.md): one row per (scope, name,
 * boundary, method); the header alone when carbon was left out. */
static void
carbon_csv(json_object *root, FILE *f)
{
	json_object *cb = json_object_object_get(root, "carbon"), *byc;

	fputs(carbon_csv_header, f);
	if (cb == NULL)
		return;
	carbon_csv_scope(f, root, cb, "site", jcell(cb, "site", "name", NULL),
	    json_object_object_get(cb, "site"));
	byc = json_object_object_get(cb, "by_class");
	if (byc == NULL)
		return;
	json_object_object_foreach(byc, k, v)
		carbon_csv_scope(f, root, v, "class", k, v);
}

/* Markdown table of carbon (and cost) per site and class. */
static void
emit(json_object *root, const char *fmt)
{
	if (strcmp(fmt, "csv") == 0) {
		printf("key,value\n");
		flatten(root, "", stdout);
	} else if (strcmp(fmt, "md") == 0)
		report_md_print(root, stdout);
	else
		printf("%s\n", json_object_to_json_string_ext(root,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* --carbon-csv: the sustainability CSV to path ("-": stdout).  0 or 1. */
static int
write_carbon_csv(json_object *root, const char *path)
{
	FILE *f;

	if (path == NULL)
		return 0;
	if (strcmp(path, "-") == 0) {
		carbon_csv(root, stdout);
		return 0;
	}
	if ((f = fopen(path, "w")) == NULL) {
		fprintf(stderr, "wattpath report: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	carbon_csv(root, f);
	if (fclose(f) != 0) {
		fprintf(stderr, "wattpath report: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	return 0;
}

/* --------------------------------------------------------- commands */

static int
parse_args(int argc, char **argv, struct opts *o, bool curve)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "requests", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'n' },
		{ "idle-from", required_argument, NULL, 'I' },
		{ "idle-to", required_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "node", required_argument, NULL, 'N' },
		{ "class", required_argument, NULL, 'C' },
		{ "step", required_argument, NULL, 'S' },
		{ "period", required_argument, NULL, 'P' },
		{ "carbon-csv", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 }
	};
	bool hf = false, ht = false, hi = false, hj = false;
	int ch;

	memset(o, 0, sizeof(*o));
	o->format = "json";
	o->runs = 1;
	o->period = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': o->cfg = optarg; break;
		case 'r': o->requests = optarg; break;
		case 'F': o->format = optarg; break;
		case 'N': o->node = optarg; break;
		case 'C': o->cls = optarg; break;
		case 'K': o->carbon_csv = optarg; break;
		case 'f': hf = clock_parse_time(optarg, &o->from) == 0;
			if (!hf) goto badtime;
			break;
		case 't': ht = clock_parse_time(optarg, &o->to) == 0;
			if (!ht) goto badtime;
			break;
		case 'I': hi = clock_parse_time(optarg, &o->idle_from) == 0;
			if (!hi) goto badtime;
			break;
		case 'J': hj = clock_parse_time(optarg, &o->idle_to) == 0;
			if (!hj) goto badtime;
			break;
		case 'P':
			for (o->period = PUE_HOUR; o->period <= PUE_YEAR &&
			    strcmp(pue_period_name(o->period), optarg) != 0;
			    o->period++)
				;
			if (o->period > PUE_YEAR) {
				fprintf(stderr, "--period must be hour, day, "
				    "month or year\n");
				return -1;
			}
			break;
		case 'S': if (clock_parse_duration(optarg, &o->step) == -1 ||
			    o->step <= 0) {
				fprintf(stderr, "bad --step %s\n", optarg);
				return -1;
			}
			break;
		case 'n': o->runs = atoi(optarg);
			if (o->runs < 1 || o->runs > MAX_RUNS) {
				fprintf(stderr, "--runs must be 1..%d\n",
				    MAX_RUNS);
				return -1;
			}
			break;
		default: return -1;
		}
	}
	o->have_window = hf && ht;
	o->have_idle = hi && hj;
	if (o->cfg == NULL || hf != ht || hi != hj ||
	    (!o->have_window && (curve || o->requests == NULL)) ||
	    (curve && (o->node == NULL) == (o->cls == NULL)) ||
	    (curve && o->carbon_csv != NULL))
		return -1;
	if (strcmp(o->format, curve ? "svg" : "md") != 0 &&
	    strcmp(o->format, "json") != 0 && strcmp(o->format, "csv") != 0)
		return -1;
	return 0;
badtime:
	fprintf(stderr, "not a time (ISO-8601 or epoch seconds): %s\n", optarg);
	return -1;
}

/* Window from the request log (first start .. last end), idle window from
 * report.idle when not on the command line. */
static int
setup(struct rep *r, struct wp_err *err)
{
	const struct ynode *idle = r->c->report ? ynode_get(r->c->report,
	    "idle") : NULL;
	wp_time gap = 30 * WP_SEC;
	size_t i;
	int k;

	if (r->o.requests != NULL) {
		if ((r->rq = reqlog_load(r->o.requests, err)) == NULL)
			return -1;
		if (r->rq->n_bad > 0)
			warn(r, "%s: %zu line(s) not valid request records "
			    "skipped (first at line %lu)", r->o.requests,
			    r->rq->n_bad, r->rq->bad_lines[0]);
		if (r->c->report && ynode_str(r->c->report, "run_gap") &&
		    (clock_parse_duration(ynode_str(r->c->report,
		    "run_gap"), &gap) == -1 || gap <= 0))
			return err_set(err, WP_E_CONFIG, "report.run_gap is not "
			    "a duration");
		if (r->o.runs > 1 && reqlog_runs(r, r->o.runs, gap, err) == -1)
			return -1;
		if (!r->o.have_window && r->o.runs > 1) {
			r->o.from = r->run_from[0];
			r->o.to = r->run_to[r->o.runs - 1];
		} else if (!r->o.have_window) {
			r->o.from = (wp_time)(r->rq->e[0].t_start * WP_SEC);
			r->o.to = (wp_time)(r->rq->e[0].t_end * WP_SEC);
			for (i = 1; i < r->rq->n; i++) {
				wp_time s = (wp_time)(r->rq->e[i].t_start *
				    WP_SEC);
				wp_time e = (wp_time)(r->rq->e[i].t_end * WP_SEC);

				r->o.from = s < r->o.from ? s : r->o.from;
				r->o.to = e > r->o.to ? e : r->o.to;
			}
		}
	}
	if (r->o.runs > 1 && r->run_method == NULL) {
		wp_time len = (r->o.to - r->o.from) / r->o.runs;

		for (k = 0; k < r->o.runs; k++) {
			r->run_from[k] = r->o.from + len * k;
			r->run_to[k] = k + 1 == r->o.runs ? r->o.to :
			    r->run_from[k] + len;
		}
		r->run_method = "equal sub-windows";
	}
	if (!r->o.have_idle && idle != NULL) {
		const char *a = ynode_str(idle, "from"), *b = ynode_str(idle,
		    "to");

		if (a == NULL || b == NULL || clock_parse_time(a,
		    &r->o.idle_from) == -1 || clock_parse_time(b,
		    &r->o.idle_to) == -1)
			return err_set(err, WP_E_CONFIG, "report.idle needs from "
			    "and to times");
		r->o.have_idle = true;
	}
	if (r->o.step == 0 && !r->curve_mode) {
		const char *cs = r->c->report ? ynode_str(r->c->report,
		    "curve_step") : NULL;

		if (cs != NULL && (clock_parse_duration(cs, &r->o.step) == -1 ||
		    r->o.step <= 0))
			return err_set(err, WP_E_CONFIG, "report.curve_step is "
			    "not a duration");
		if (r->o.step == 0) {
			r->o.step = r->c->interval * 6 > 60 * WP_SEC ?
			    r->c->interval * 6 : 60 * WP_SEC;
			if ((r->o.to - r->o.from) / 512 > r->o.step)
				r->o.step = (r->o.to - r->o.from) / 512;
			/* long windows: whole summary slots per step */
			if (r->o.to - r->o.from >= 6 * HOUR)
				r->o.step = (r->o.step + JSUM_SLOT_DEFAULT - 1) /
				    JSUM_SLOT_DEFAULT * JSUM_SLOT_DEFAULT;
		}
	}
	if (r->o.to - r->o.from < 60 * WP_SEC)
		return err_set(err, WP_E_CONFIG, "window of %.3f s refused: "
		    "shorter than the 60 s minimum", secs(r->o.to - r->o.from));
	if (r->o.have_idle && r->o.idle_to - r->o.idle_from < 60 * WP_SEC)
		return err_set(err, WP_E_CONFIG, "idle window shorter than 60 s");
	for (k = 0; r->o.runs > 1 && k < r->o.runs; k++)
		if (r->run_to[k] - r->run_from[k] < 60 * WP_SEC)
			return err_set(err, WP_E_CONFIG, "--runs %d: run %d "
			    "(%s) lasts %.1f s, shorter than 60 s", r->o.runs,
			    k + 1, r->run_method, secs(r->run_to[k] -
			    r->run_from[k]));
	return 0;
}

static void
rep_fini(struct rep *r)
{
	size_t i;

	for (i = 0; i < r->ser.cap; i++)
		if (r->ser.slot[i].e != NULL)
			ser_free(r->ser.slot[i].e, r->o.runs > 1 ? r->o.runs : 0);
	hmap_fini(&r->ser);
	free(r->sum_ser);
	free(r->selected);
	reqlog_free(r->rq);
	json_object_put(r->warnings);
	json_object_put(r->partial);
	if (!r->conf_borrowed)
		conf_free((struct wp_conf *)r->c);
}

static int
rep_open(struct rep *r, int argc, char **argv, bool curve)
{
	struct conf_errs errs = { 0 };
	size_t i;

	memset(r, 0, sizeof(*r));
	r->ser.min_cap = 1024;
	r->curve_mode = curve;
	if (parse_args(argc, argv, &r->o, curve) == -1) {
		fprintf(stderr, curve ? "usage: wattpath curve -c CFG (--node N "
		    "| --class C) --from T --to T [--step D] [--format "
		    "json|csv|svg]\n" : "usage: wattpath report -c CFG "
		    "(--from T --to T | --requests LOG) [--runs N] "
		    "[--idle-from T --idle-to T] [--period hour|day|month|year] "
		    "[--format json|md|csv] [--carbon-csv FILE|-]\n");
		return 2;
	}
	r->warnings = json_object_new_array();
	if ((r->c = conf_load(r->o.cfg, NULL, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		conf_errs_fini(&errs);
		json_object_put(r->warnings);
		return 1;
	}
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	struct rep r;
	struct wp_err err = { 0 };
	json_object *root;
	int rc;

	if ((rc = rep_open(&r, argc, argv, false)) != 0)
		return rc;
	if (setup(&r, &err) == -1 || scan(&r, &err) == -1) {
		fprintf(stderr, "wattpath report: %s\n", err.msg);
		rep_fini(&r);
		return 1;
	}
	root = build_report(&r);
	rc = write_carbon_csv(root, r.o.carbon_csv);
	if (r.o.carbon_csv == NULL || strcmp(r.o.carbon_csv, "-") != 0)
		emit(root, r.o.format);
	json_object_put(root);
	rep_fini(&r);
	return rc;
}

/* ------------------------------------------------------------ curve */

/* Feeds one node's intervals (curve bins) into c. */
static void
node_curve(struct rep *r, struct nodeagg *a, struct curve *c)
{
	struct integ_bins *wb = a->wall && a->wall->rc == 0 ?
	    &a->wall->main.bins[1] : NULL;
	double lim = node_limit(a), len = secs(r->o.step);
	size_t i;
	int g;

	if (wb == NULL || wb->e == NULL || !(lim > 0))
		return;
	for (i = 0; i < wb->n; i++) {
		double gpu = 0;
		wp_time bs = wb->origin + (wp_time)i * wb->len;
		bool ok = bs >= r->o.from && bs + wb->len <= r->o.to;

		for (g = 0; g < MAX_GPUS && ok; g++) {
			struct ser *s = a->gib[g] && a->gib[g]->rc == 0 ?
			    a->gib[g] : a->gbmc[g];

			if (s == NULL)
				continue;
			if (s->rc != 0 || s->main.bins[1].e == NULL)
				ok = false;
			else
				gpu += s->main.bins[1].e[i] / len;
		}
		if (ok && gpu > 0)
			curve_add(c, gpu, wb->e[i] / len, lim);
	}
}

static json_object *
curve_json(const struct curve *c)
{
	json_object *o = json_object_new_object(), *bins, *fits;
	struct curve_fit f;
	int i, d;

	bins = json_object_new_array();
	for (i = 0; i < CURVE_BINS; i++) {
		json_object *b = json_object_new_object();

		jset(b, "load_from", jnum(curve_bin_load_lo(i)));
		jset(b, "load_to", jnum(curve_bin_load_lo(i + 1)));
		jset(b, "count", json_object_new_int64((int64_t)c->bin[i].count));
		jset(b, "gpu_w", jnum(curve_bin_mean_gpu(c, i)));
		jset(b, "wall_w", jnum(curve_bin_mean_wall(c, i)));
		jset(b, "ratio", jnum(curve_bin_ratio(c, i)));
		json_object_array_add(bins, b);
	}
	jset(o, "intervals", json_object_new_int64((int64_t)c->n));
	jset(o, "bins", bins);
	fits = json_object_new_object();
	for (d = 1; d <= 2; d++) {
		json_object *x = json_object_new_object();

		curve_fit(c, d, &f);
		jset(x, "valid", json_object_new_boolean(f.valid));
		jset(x, "a", f.valid ? jnum(f.a) : NULL);
		jset(x, "b", f.valid ? jnum(f.b) : NULL);
		jset(x, "c", f.valid ? jnum(f.c) : NULL);
		jset(x, "r2", f.valid ? jnum(f.r2) : NULL);
		jset(x, "rms_w", f.valid ? jnum(f.rms) : NULL);
		jset(fits, d == 1 ? "linear" : "quadratic", x);
	}
	jset(o, "fit", fits);
	return o;
}

static void
curve_svg(const struct curve *c, const char *title)
{
	double maxg = 1, maxw = 1;
	int i;

	for (i = 0; i < CURVE_BINS; i++)
		if (c->bin[i].count) {
			maxg = fmax(maxg, curve_bin_mean_gpu(c, i));
			maxw = fmax(maxw, curve_bin_mean_wall(c, i));
		}
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
	    "height=\"400\" viewBox=\"0 0 640 400\">\n<title>wall vs GPU power"
	    ": %s</title>\n<rect width=\"640\" height=\"400\" fill=\"white\"/>\n"
	    "<line x1=\"60\" y1=\"360\" x2=\"620\" y2=\"360\" stroke=\"black\"/>"
	    "\n<line x1=\"60\" y1=\"360\" x2=\"60\" y2=\"20\" stroke=\"black\"/>"
	    "\n<text x=\"300\" y=\"390\">GPU power (W), max %.0f</text>\n"
	    "<text x=\"5\" y=\"15\">wall power (W), max %.0f</text>\n", title,
	    maxg, maxw);
	for (i = 0; i < CURVE_BINS; i++)
		if (c->bin[i].count)
			printf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			    "fill=\"steelblue\"><title>load %.1f-%.1f: %zu "
			    "intervals, ratio %.3f</title></circle>\n",
			    60 + 560 * curve_bin_mean_gpu(c, i) / maxg,
			    360 - 340 * curve_bin_mean_wall(c, i) / maxw,
			    curve_bin_load_lo(i), curve_bin_load_lo(i + 1),
			    c->bin[i].count, curve_bin_ratio(c, i));
	printf("</svg>\n");
}

/* The curve document of r's scope (selected, window set); NULL with err
 * when the journal cannot be read. */
static json_object *
curve_build(struct rep *r, struct curve *cls, struct wp_err *err)
{
	struct nodeagg *na;
	json_object *root, *nodes;
	size_t i;

	if (r->o.step == 0)
		r->o.step = r->c->interval * 6 > 60 * WP_SEC ?
		    r->c->interval * 6 : 60 * WP_SEC;
	r->selected = calloc(r->c->n_nodes + 1, sizeof(bool));
	na = calloc(r->c->n_nodes + 1, sizeof(*na));
	if (r->selected == NULL || na == NULL) {
		free(na);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	for (i = 0; i < r->c->n_nodes; i++)
		r->selected[i] = r->o.node ? strcmp(r->c->nodes[i].name,
		    r->o.node) == 0 : r->c->nodes[i].class != NULL &&
		    strcmp(r->c->nodes[i].class, r->o.cls) == 0;
	if (setup(r, err) == -1 || scan(r, err) == -1) {
		free(na);
		return NULL;
	}
	gather(r, na);
	curve_init(cls);
	root = json_object_new_object();
	nodes = json_object_new_array();
	for (i = 0; i < r->c->n_nodes; i++) {
		struct curve nc;

		if (!r->selected[i])
			continue;
		curve_init(&nc);
		node_curve(r, &na[i], &nc);
		curve_merge(cls, &nc);
		if (nc.n == 0)
			warn(r, "node %s: no complete wall+GPU intervals "
			    "(needs wall and GPU energy and power limits)",
			    r->c->nodes[i].name);
		{
			json_object *x = curve_json(&nc);
			bool flag;

			jset(x, "name", json_object_new_string(
			    r->c->nodes[i].name));
			jset(x, "deviation_from_class", jnum(curve_deviation(&nc,
			    cls, 0.05, &flag)));
			json_object_array_add(nodes, x);
		}
	}
	jset(root, "scope", json_object_new_string(r->o.node ? r->o.node :
	    r->o.cls));
	jset(root, "step_s", jnum(secs(r->o.step)));
	jset(root, "class_curve", curve_json(cls));
	jset(root, "nodes", nodes);
	json_object_get(r->warnings);
	jset(root, "warnings", r->warnings);
	free(na);
	return root;
}

int
cmd_curve(int argc, char **argv)
{
	struct rep r;
	struct wp_err err = { 0 };
	struct curve cls;
	json_object *root;
	int rc;

	if ((rc = rep_open(&r, argc, argv, true)) != 0)
		return rc;
	if ((root = curve_build(&r, &cls, &err)) == NULL) {
		fprintf(stderr, "wattpath curve: %s\n", err.msg);
		rep_fini(&r);
		return 1;
	}
	if (strcmp(r.o.format, "svg") == 0)
		curve_svg(&cls, r.o.node ? r.o.node : r.o.cls);
	else
		emit(root, r.o.format);
	json_object_put(root);
	rep_fini(&r);
	return 0;
}

/* ----------------------------------------- library (report.h) */

static void
rep_borrow(struct rep *r, const struct wp_conf *c, wp_time from, wp_time to)
{
	memset(r, 0, sizeof(*r));
	r->ser.min_cap = 1024;
	r->c = c;
	r->conf_borrowed = true;
	r->o.from = from;
	r->o.to = to;
	r->o.have_window = true;
	r->o.runs = 1;
	r->o.period = -1;
	r->o.format = "json";
	r->warnings = json_object_new_array();
}

json_object *
report_json(const struct wp_conf *c, wp_time from, wp_time to,
    struct wp_err *err)
{
	struct rep r;
	json_object *root = NULL;

	rep_borrow(&r, c, from, to);
	if (setup(&r, err) == 0 && scan(&r, err) == 0)
		root = build_report(&r);
	rep_fini(&r);
	return root;
}

json_object *
report_curve_json(const struct wp_conf *c, const char *node, const char *cls,
    wp_time from, wp_time to, wp_time step, struct wp_err *err)
{
	struct rep r;
	struct curve cc;
	json_object *root;

	if ((node == NULL) == (cls == NULL)) {
		err_set(err, WP_E_CONFIG, "one of node or class is needed");
		return NULL;
	}
	rep_borrow(&r, c, from, to);
	r.curve_mode = true;
	r.o.node = node;
	r.o.cls = cls;
	r.o.step = step;
	root = curve_build(&r, &cc, err);
	rep_fini(&r);
	return root;
}
