/* report_disclose.c - the disclosure as data (see report_disclose.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_node.h"

/* Identity labels a driver reports (docs/series.md), in listing order. */
static const char *const id_keys[REPORT_ID_KEYS + 1] = { "vendor", "model",
    "fw", "firmware", "sysdescr", "profile", "meter", "category", "driver",
    "nvml", "cuda", "dcgm_field", "dcgm", "collect_interval_s", "uuid",
    "source", "engine", "engine_version", "precision", NULL };

static const char text_edges[] = "counters interpolated linearly between "
    "the readings around each edge; gauges only when no counter "
    "(gauge-estimated)";
static const char text_tokens[] = "output tokens, counted once per model "
    "replica; total = input + output";
static const char text_bounds[] = "counters: one resolution step plus half "
    "the straddling reading interval's energy at each edge; gauges: window "
    "x the largest distance of the mean power from the lowest and highest "
    "reading (holds while the power stays within the range the readings "
    "saw), plus one reading step over the window; modeled: see wall_model; "
    "totals add their nodes' bounds; a source that refreshes its values "
    "itself (dcgm-exporter's collection interval, collect_interval_s) adds "
    "the mean power x that interval";
static const char text_coverage[] = "coverage is the share of nodes "
    "measured; modeled nodes count in the energy, not in coverage; a "
    "boundary some nodes lack altogether reports the nodes it covers, with "
    "J/token over their own tokens (a replica only when all its nodes are "
    "covered)";
static const char text_ups_losses[] = "; at PUE category 1 the IT energy "
    "is metered at the UPS output, so wall x PUE leaves out the losses "
    "between the UPS output and the server inlets (PDUs, distribution, "
    "devices not metered at the wall)";

static double
secs(wp_time t)
{
	return (double)t / (double)WP_SEC;
}

const char *
report_instrument_group(int g)
{
	static const char *const n[REPORT_I_N] = { "gpu", "wall", "outlet",
	    "facility", "tokens" };

	return g >= 0 && g < REPORT_I_N ? n[g] : "unknown";
}

const char *
report_device_group(int g)
{
	static const char *const n[REPORT_I_N] = { "gpu", "bmc", "pdu",
	    "meter", "engine" };

	return g >= 0 && g < REPORT_I_N ? n[g] : "unknown";
}

const char *
report_wall_model_text(char *buf, size_t len)
{
	snprintf(buf, len, "nodes without a usable wall reading (unmetered, "
	    "or the window refused: e.g. an EnergykWh counter too coarse for "
	    "it): GPU energy per curve step x their class's wall/GPU ratio at "
	    "that GPU load (method modeled, not in coverage; bound %d x the "
	    "class fit's RMS residual over its mean wall power, at least %.0f "
	    "%% (the fit may extrapolate to the node's load), plus the GPU "
	    "energy's bound)", REPORT_MODEL_RMS_FACTOR,
	    100 * REPORT_MODEL_MIN_REL);
	return buf;
}

/* Adds value to key's distinct values in d (first seen first). */
static int
add_distinct(struct report_devices *d, const char *key, const char *value)
{
	struct report_devkey *k;
	size_t i;

	for (i = 0; i < d->n && strcmp(d->keys[i].key, key) != 0; i++)
		;
	if (i == d->n) {
		if (d->n == REPORT_ID_KEYS)
			return 0;
		d->keys[d->n++] = (struct report_devkey){ .key = key };
	}
	k = &d->keys[i];
	for (i = 0; i < k->n; i++)
		if (strcmp(k->vals[i], value) == 0)
			return 0;
	if (k->n >= REPORT_DISCLOSE_MAX)
		return 0;
	if (k->vals == NULL && (k->vals = calloc(REPORT_DISCLOSE_MAX,
	    sizeof(char *))) == NULL)
		return -1;
	if ((k->vals[k->n] = strdup(value)) == NULL)
		return -1;
	k->n++;
	return 0;
}

/* The device identities in s's labels into d. */
static int
add_devices(const struct wp_sample *tmp, struct report_devices *d)
{
	char val[WP_LABEL_MAX];
	int k;

	for (k = 0; id_keys[k] != NULL; k++) {
		if (sample_get_label(tmp, id_keys[k], val, sizeof(val)) != 0 ||
		    strcmp(id_keys[k], "uuid") == 0 ||
		    strcmp(id_keys[k], "source") == 0)
			continue;
		/* journals before the rename: dcgm= held the field id */
		if (add_distinct(d, strcmp(id_keys[k], "firmware") == 0 ? "fw" :
		    strcmp(id_keys[k], "dcgm") == 0 ? "dcgm_field" :
		    id_keys[k], val) == -1)
			return -1;
	}
	return 0;
}

/* s as an instrument entry: target, series, kind, interval, labels. */
static int
instrument(const struct report_series *s, const struct wp_sample *tmp,
    struct report_instrument *e)
{
	const char *bar = strchr(s->key, '|');
	char val[WP_LABEL_MAX];
	int k;

	memset(e, 0, sizeof(*e));
	if ((e->target = strndup(s->key, (size_t)(bar - s->key))) == NULL ||
	    (e->series = strdup(bar + 1)) == NULL)
		return -1;
	e->kind = s->kind;
	e->interval_s = secs(s->interval);
	for (k = 0; id_keys[k] != NULL; k++) {
		if (sample_get_label(tmp, id_keys[k], val, sizeof(val)) != 0)
			continue;
		e->labels[e->n_labels].key = id_keys[k];
		if ((e->labels[e->n_labels++].value = strdup(val)) == NULL)
			return -1;
	}
	return 0;
}

/* The instruments of the series with role r1 or r2 into group g. */
static int
instruments(const struct report_input *in, int r1, int r2, int g,
    struct report *r)
{
	struct report_instruments *ins = &r->disc.ins[g];
	size_t i;

	if ((ins->v = calloc(REPORT_DISCLOSE_MAX, sizeof(*ins->v))) == NULL)
		return -1;
	for (i = 0; i < in->n_ser; i++) {
		const struct report_series *s = in->ser[i];
		struct wp_sample tmp;

		if (s->role != r1 && s->role != r2)
			continue;
		snprintf(tmp.labels, sizeof(tmp.labels), "%s", s->labels);
		if (add_devices(&tmp, &r->disc.dev[g]) == -1)
			return -1;
		if (ins->n >= REPORT_DISCLOSE_MAX) {
			ins->more++;
			continue;
		}
		if (instrument(s, &tmp, &ins->v[ins->n++]) == -1)
			return -1;
	}
	if (ins->more > 0)
		report_warn(&r->warnings, "disclosure: %zu more instrument "
		    "series not listed", ins->more);
	return 0;
}

/* Distinct sampling intervals over the series used. */
static int
intervals(const struct report_input *in, struct report_disclosure *d)
{
	size_t i, j;

	if ((d->intervals_s = calloc(in->n_ser + 1, sizeof(double))) == NULL)
		return -1;
	for (i = 0; i < in->n_ser; i++) {
		const struct report_series *s = in->ser[i];
		bool dup = false;

		if (s->role == RR_NONE)
			continue;
		for (j = 0; j < d->n_intervals && !dup; j++)
			dup = d->intervals_s[j] == secs(s->interval);
		if (!dup)
			d->intervals_s[d->n_intervals++] = secs(s->interval);
	}
	return 0;
}

/* The entry of the target of series key ("target|series") in d, added
 * when new (NULL: the list is full, more_clocks counts it, or ENOMEM). */
static struct report_clock *
clock_of(struct report_disclosure *d, const char *key, bool *oom)
{
	size_t i, n = strcspn(key, "|");

	for (i = 0; i < d->n_clocks; i++)
		if (strncmp(d->clocks[i].target, key, n) == 0 &&
		    d->clocks[i].target[n] == '\0')
			return &d->clocks[i];
	if (d->n_clocks == REPORT_DISCLOSE_MAX) {
		d->more_clocks++;
		return NULL;
	}
	if ((d->clocks[i].target = strndup(key, n)) == NULL) {
		*oom = true;
		return NULL;
	}
	d->n_clocks++;
	return &d->clocks[i];
}

/* The device clocks' offsets per target, warned beyond the tolerance. */
static int
clocks(const struct report_input *in, struct report *r)
{
	struct report_disclosure *d = &r->disc;
	double tol = in->set != NULL ? secs(in->set->clock_tolerance) :
	    secs(REPORT_CLOCK_TOLERANCE);
	bool oom = false;
	size_t i;

	d->clock_tolerance_s = tol;
	if ((d->clocks = calloc(REPORT_DISCLOSE_MAX, sizeof(*d->clocks))) ==
	    NULL)
		return -1;
	for (i = 0; i < in->n_ser; i++) {
		const struct report_series *s = in->ser[i];
		struct report_clock *c;

		if (s->role == RR_NONE || s->clk_n == 0 ||
		    (c = clock_of(d, s->key, &oom)) == NULL) {
			if (oom)
				return -1;
			continue;
		}
		if (c->readings == 0 || s->clk_min < c->min_s)
			c->min_s = s->clk_min;
		if (c->readings == 0 || s->clk_max > c->max_s)
			c->max_s = s->clk_max;
		c->readings += s->clk_n;
	}
	for (i = 0; i < d->n_clocks; i++) {
		struct report_clock *c = &d->clocks[i];

		c->beyond = fabs(c->min_s) > tol || fabs(c->max_s) > tol;
		if (c->beyond)
			report_warn(&r->warnings, "%s: the device's clock "
			    "differs from the collector's by %+.1f .. %+.1f s "
			    "(tolerance %.0f s): its readings are placed at "
			    "the collector's poll time", c->target, c->min_s,
			    c->max_s, tol);
	}
	return 0;
}

/* Per node: the sum of its GPUs' enforced power limits, W, and their
 * mean SM clock, MHz. */
static int
limits(const struct report_input *in, const struct report_sel *sel,
    struct report_disclosure *d)
{
	size_t i;

	if ((d->limits = calloc(REPORT_DISCLOSE_MAX, sizeof(*d->limits))) ==
	    NULL)
		return -1;
	for (i = 0; i < in->n_nodes && d->n_limits < REPORT_DISCLOSE_MAX; i++)
		if (report_node_limit(&sel[i]) > 0)
			d->limits[d->n_limits++] = (struct report_limit){
			    .node = in->nodes[i].name,
			    .w = report_node_limit(&sel[i]) };
	if ((d->clocks_mhz = calloc(REPORT_DISCLOSE_MAX,
	    sizeof(*d->clocks_mhz))) == NULL)
		return -1;
	for (i = 0; i < in->n_nodes && d->n_clocks_mhz < REPORT_DISCLOSE_MAX;
	    i++)
		if (!isnan(report_node_clock(&sel[i])))
			d->clocks_mhz[d->n_clocks_mhz++] = (struct report_limit){
			    .node = in->nodes[i].name,
			    .w = report_node_clock(&sel[i]) };
	return 0;
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* What dist takes from a request: input or output tokens, TTFT or TPOT
 * (ms; requests without one left out). */
enum { DIST_ISL, DIST_OSL, DIST_TTFT, DIST_TPOT };

static double
dist_value(const struct reqlog_entry *e, int what)
{
	switch (what) {
	case DIST_ISL:
		return (double)e->in_tokens;
	case DIST_OSL:
		return (double)e->out_tokens;
	case DIST_TTFT:
		return e->ttft >= 0 ? e->ttft * 1e3 : NAN;
	default:
		return e->tpot >= 0 ? e->tpot * 1e3 : NAN;
	}
}

/* The distribution of what over the requests that ended in the window. */
static int
dist(const struct reqlog *l, const struct report *r, int what,
    struct report_dist *o)
{
	double *v = malloc((l->n + 1) * sizeof(double)), sum = 0;
	double t0 = secs(r->from), t1 = secs(r->to);
	size_t i, n = 0;

	memset(o, 0, sizeof(*o));
	if (v == NULL)
		return -1;
	for (i = 0; i < l->n; i++) {
		if (l->e[i].t_end < t0 || l->e[i].t_end > t1 ||
		    isnan(v[n] = dist_value(&l->e[i], what)))
			continue;
		sum += v[n++];
	}
	if (n > 0) {
		qsort(v, n, sizeof(double), dcmp);
		o->p50 = v[n * 50 / 100];
		o->p90 = v[n * 90 / 100];
		o->p99 = v[n * 99 / 100];
		o->mean = sum / (double)n;
		o->n = n;
	}
	free(v);
	return 0;
}

/* The facility boundary's method, with the second method's comparison
 * where it was computed (report_pue_allocate). */
static void
facility_text(const struct report *r, struct report_disclosure *d)
{
	const struct report_pue *p = &r->pue;
	char cmp[256];

	d->facility_alloc_j = p->alloc_j;
	d->facility_primary_j = p->primary_j;
	d->facility_alloc_rel = p->alloc_rel;
	if (isnan(p->value)) {
		snprintf(d->facility_method, sizeof(d->facility_method), "none");
		return;
	}
	if (!isnan(p->alloc_j))
		snprintf(cmp, sizeof(cmp), "; second method, each hour's "
		    "metered facility energy x that hour's IT share (wall / "
		    "it_total): %.6g J, %+.2f %% against wall x PUE",
		    p->alloc_j, 100 * p->alloc_rel);
	else if (strcmp(p->source, "metered") == 0)
		snprintf(cmp, sizeof(cmp), "; no second method (an hour with "
		    "wall energy has no it_total energy)");
	else
		snprintf(cmp, sizeof(cmp), "; no second method (no metered "
		    "facility energy)");
	snprintf(d->facility_method, sizeof(d->facility_method), "wall energy "
	    "x the %s PUE (period %s)%s%s", p->source, p->period_text, cmp,
	    strncmp(p->category, "PUE1", 4) == 0 ? text_ups_losses : "");
}

/* The policies as text: idle, PUE, facility method, wall model. */
static void
policies(const struct report_input *in, struct report *r)
{
	const struct report_plan *p = in->plan;
	struct report_disclosure *d = &r->disc;
	char a[40], b[40];

	d->edges = text_edges;
	d->token_denominator = text_tokens;
	d->bounds = text_bounds;
	d->coverage_rule = text_coverage;
	if (p->have_idle) {
		clock_iso8601(p->idle_from, a, sizeof(a));
		clock_iso8601(p->idle_to, b, sizeof(b));
		snprintf(d->idle_policy, sizeof(d->idle_policy), "gross is the "
		    "headline; idle-subtracted is secondary, idle power from "
		    "%s..%s", a, b);
	} else
		snprintf(d->idle_policy, sizeof(d->idle_policy), "gross only "
		    "(no idle window marked)");
	d->pue_value = r->pue.value;
	d->pue_category = r->pue.category;
	d->pue_source = isnan(r->pue.value) ? "none" : r->pue.source;
	d->pue_period = isnan(r->pue.value) ? "none" : r->pue.period_text;
	report_wall_model_text(d->wall_model, sizeof(d->wall_model));
	facility_text(r, d);
}

/* The sources of a report over several data dirs, copied. */
static int
sources(const struct report_input *in, struct report_disclosure *d)
{
	size_t i;

	if (in->n_sources == 0)
		return 0;
	if ((d->sources = calloc(in->n_sources, sizeof(*d->sources))) == NULL)
		return -1;
	for (i = 0; i < in->n_sources; i++, d->n_sources++) {
		d->sources[i].candidates = in->sources[i].candidates;
		d->sources[i].target = strdup(in->sources[i].target);
		d->sources[i].data_dir = strdup(in->sources[i].data_dir);
		if (d->sources[i].target == NULL ||
		    d->sources[i].data_dir == NULL)
			return d->n_sources++, -1;
	}
	return 0;
}

int
report_disclose_build(const struct report_input *in,
    const struct report_sel *sel, struct report *r)
{
	static const int roles[REPORT_I_N][2] = {
		{ RR_GPU_IB, RR_GPU_BMC }, { RR_WALL, RR_WALL_P },
		{ RR_OUTLET, RR_OUTLET_P }, { RR_FAC, RR_IT },
		{ RR_TOK_OUT, RR_TOK_IN } };
	struct report_disclosure *d = &r->disc;
	int g;

	for (g = 0; g < REPORT_I_N; g++)
		if (instruments(in, roles[g][0], roles[g][1], g, r) == -1)
			return -1;
	if (limits(in, sel, d) == -1 || intervals(in, d) == -1 ||
	    clocks(in, r) == -1)
		return -1;
	d->sampling_interval_s = secs(in->interval);
	d->window_s = r->secs;
	d->run_count = in->plan->runs > 1 ? in->plan->runs : 1;
	policies(in, r);
	d->segments_read = in->segments_read;
	d->summaries_used = in->summaries_used;
	d->ledger_used = in->ledger_used;
	d->ledger_days = in->ledger_days;
	if (sources(in, d) == -1)
		return -1;
	d->slo_set = in->set != NULL && in->set->slo_set;
	d->slo_ttft_ms = d->slo_set ? in->set->slo_ttft_ms : 0;
	d->slo_tpot_ms = d->slo_set ? in->set->slo_tpot_ms : 0;
	if (in->rq == NULL)
		return 0;
	d->has_requests = true;
	d->requests = in->rq->n;
	d->request_log_bad_lines = in->rq->n_bad;
	return dist(in->rq, r, DIST_ISL, &d->isl) == -1 ||
	    dist(in->rq, r, DIST_OSL, &d->osl) == -1 ||
	    dist(in->rq, r, DIST_TTFT, &d->ttft_ms) == -1 ||
	    dist(in->rq, r, DIST_TPOT, &d->tpot_ms) == -1 ? -1 : 0;
}

void
report_disclose_free(struct report_disclosure *d)
{
	size_t i, j, k;
	int g;

	for (g = 0; g < REPORT_I_N; g++) {
		for (i = 0; i < d->ins[g].n; i++) {
			free(d->ins[g].v[i].target);
			free(d->ins[g].v[i].series);
			for (j = 0; j < d->ins[g].v[i].n_labels; j++)
				free(d->ins[g].v[i].labels[j].value);
		}
		free(d->ins[g].v);
		for (k = 0; k < d->dev[g].n; k++) {
			for (j = 0; j < d->dev[g].keys[k].n; j++)
				free(d->dev[g].keys[k].vals[j]);
			free(d->dev[g].keys[k].vals);
		}
	}
	for (i = 0; i < d->n_sources; i++) {
		free(d->sources[i].target);
		free(d->sources[i].data_dir);
	}
	free(d->sources);
	free(d->limits);
	free(d->clocks_mhz);
	for (i = 0; d->clocks != NULL && i < d->n_clocks; i++)
		free(d->clocks[i].target);
	free(d->clocks);
	free(d->intervals_s);
	for (g = 0; g < BND_N; g++)
		free(d->partial[g]);
}
