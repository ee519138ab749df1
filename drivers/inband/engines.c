/* engines.c - engine token counters (see engines.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/hmap.h"
#include "engines.h"
#include "promtext.h"

enum { EW_TTFT_SUM = EW_NWHAT, EW_TTFT_CNT, EW_ITL_SUM, EW_ITL_CNT };

struct emetric {
	int		 kind;
	const char	*name;		/* sample name as exposed */
	int		 what;
	int		 type;		/* declared type it must have */
	int		 prio;		/* lower wins (old names: 1) */
};

static const struct emetric metrics[] = {
	{ ENGINE_VLLM, "vllm:generation_tokens_total", EW_OUT, PROM_COUNTER, 0 },
	{ ENGINE_VLLM, "vllm:prompt_tokens_total", EW_IN, PROM_COUNTER, 0 },
	{ ENGINE_VLLM, "vllm:request_success_total", EW_SUCCESS, PROM_COUNTER,
	    0 },
	{ ENGINE_VLLM, "vllm:time_to_first_token_seconds_sum", EW_TTFT_SUM,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_VLLM, "vllm:time_to_first_token_seconds_count", EW_TTFT_CNT,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_VLLM, "vllm:inter_token_latency_seconds_sum", EW_ITL_SUM,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_VLLM, "vllm:inter_token_latency_seconds_count", EW_ITL_CNT,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_VLLM, "vllm:time_per_output_token_seconds_sum", EW_ITL_SUM,
	    PROM_HISTOGRAM, 1 },
	{ ENGINE_VLLM, "vllm:time_per_output_token_seconds_count", EW_ITL_CNT,
	    PROM_HISTOGRAM, 1 },
	{ ENGINE_SGLANG, "sglang:generation_tokens_total", EW_OUT, PROM_COUNTER,
	    0 },
	{ ENGINE_SGLANG, "sglang:prompt_tokens_total", EW_IN, PROM_COUNTER, 0 },
	{ ENGINE_SGLANG, "sglang:num_requests_total", EW_SUCCESS, PROM_COUNTER,
	    0 },
	{ ENGINE_SGLANG, "sglang:time_to_first_token_seconds_sum", EW_TTFT_SUM,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_SGLANG, "sglang:time_to_first_token_seconds_count",
	    EW_TTFT_CNT, PROM_HISTOGRAM, 0 },
	{ ENGINE_SGLANG, "sglang:inter_token_latency_seconds_sum", EW_ITL_SUM,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_SGLANG, "sglang:inter_token_latency_seconds_count",
	    EW_ITL_CNT, PROM_HISTOGRAM, 0 },
	{ ENGINE_SGLANG, "sglang:time_per_output_token_seconds_sum",
	    EW_ITL_SUM, PROM_HISTOGRAM, 1 },
	{ ENGINE_SGLANG, "sglang:time_per_output_token_seconds_count",
	    EW_ITL_CNT, PROM_HISTOGRAM, 1 },
	{ ENGINE_TGI, "tgi_request_generated_tokens_sum", EW_OUT,
	    PROM_HISTOGRAM, 0 },
	{ ENGINE_TGI, "tgi_request_input_length_sum", EW_IN, PROM_HISTOGRAM, 0 },
	{ ENGINE_TGI, "tgi_request_success", EW_SUCCESS, PROM_COUNTER, 0 },
	{ ENGINE_TGI, "tgi_request_success_total", EW_SUCCESS, PROM_COUNTER, 0 },
	{ ENGINE_TGI, "tgi_request_mean_time_per_token_duration_sum",
	    EW_ITL_SUM, PROM_HISTOGRAM, 0 },
	{ ENGINE_TGI, "tgi_request_mean_time_per_token_duration_count",
	    EW_ITL_CNT, PROM_HISTOGRAM, 0 },
	{ ENGINE_LLAMACPP, "llamacpp:tokens_predicted_total", EW_OUT,
	    PROM_COUNTER, 0 },
	{ ENGINE_LLAMACPP, "llamacpp:prompt_tokens_total", EW_IN, PROM_COUNTER,
	    0 },
};

static const char *const kind_names[] = {
	"auto", "vllm", "sglang", "tgi", "llamacpp",
};

static const char *const prefixes[] = {
	"", "vllm:", "sglang:", "tgi_", "llamacpp:",
};

/* One engine's accumulation while parsing. */
struct acc {
	struct engine_result r;
	int	 prio[ENGINE_MAX_MODELS][EW_ITL_CNT + 1];
	unsigned seen;			/* metrics of this engine recognised */
};

struct ctx {
	struct acc	*acc[ENGINE_NKINDS];
	uint64_t	*series;	/* identities of summed series */
	size_t		 n_series;
	struct hmap	 seen;		/* positions in series (hmap_ix) */
	double		 start_time;
};

int
engine_kind_parse(const char *s)
{
	int i;

	for (i = 0; i < ENGINE_NKINDS; i++)
		if (strcmp(s, kind_names[i]) == 0)
			return i;
	return -1;
}

const char *
engine_kind_name(int kind)
{
	return kind >= 0 && kind < ENGINE_NKINDS ? kind_names[kind] : "?";
}

/* Order-independent identity of a series (name + labels): the hash of
 * its name mixed with the sum of its labels' hashes. */
static uint64_t
series_id(const struct prom_sample *s)
{
	uint64_t h = hmap_hash(s->name), l = 0;
	size_t i;

	for (i = 0; i < s->n_labels; i++)
		l += hmap_hash_add(hmap_hash_add(7, s->labels[i].name,
		    strlen(s->labels[i].name)), s->labels[i].value,
		    strlen(s->labels[i].value)) * 0x9e3779b97f4a7c15ULL;
	return h ^ l;
}

struct id_key {
	const uint64_t	*series;
	uint64_t	 id;
};

static bool
id_eq(const void *entry, const void *key)
{
	const struct id_key *k = key;

	return k->series[hmap_ix_of(entry)] == k->id;
}

/* Returns 1 if seen before, 0 if new, -1 on overflow (err). */
static int
series_seen(struct ctx *c, const struct prom_sample *s, struct wp_err *err)
{
	struct id_key k = { c->series, series_id(s) };

	if (hmap_get(&c->seen, k.id, id_eq, &k) != NULL)
		return 1;
	if (c->n_series >= ENGINE_MAX_SERIES)
		return err_set(err, WP_E_PROTOCOL, "more than %d token series",
		    ENGINE_MAX_SERIES);
	if (hmap_put(&c->seen, k.id, hmap_ix(c->n_series)) == -1)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	c->series[c->n_series++] = k.id;
	return 0;
}

static void
reject(struct engine_result *r, const struct prom_sample *s, const char *why)
{
	r->rejected++;
	if (r->note[0] == '\0')
		snprintf(r->note, sizeof(r->note), "line %lu: %.64s %s",
		    s->line, s->name, why);
}

static struct engine_model *
model_slot(struct acc *a, const struct prom_sample *s, int *idx,
    struct wp_err *err)
{
	struct engine_result *r = &a->r;
	const char *m = prom_label(s, "model_name");
	size_t i, j;

	if (m == NULL)
		m = prom_label(s, "model");
	if (m == NULL)
		m = "";
	for (i = 0; i < r->n; i++)
		if (strncmp(r->model[i].name, m, sizeof(r->model[i].name) - 1)
		    == 0) {
			*idx = (int)i;
			return &r->model[i];
		}
	if (r->n >= ENGINE_MAX_MODELS) {
		err_set(err, WP_E_PROTOCOL, "more than %d models",
		    ENGINE_MAX_MODELS);
		return NULL;
	}
	i = r->n++;
	memset(&r->model[i], 0, sizeof(r->model[i]));
	snprintf(r->model[i].name, sizeof(r->model[i].name), "%s", m);
	for (j = 0; j <= EW_ITL_CNT; j++)
		a->prio[i][j] = 1000;
	*idx = (int)i;
	return &r->model[i];
}

static const struct emetric *
metric_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		if (strcmp(name, metrics[i].name) == 0)
			return &metrics[i];
	return NULL;
}

static bool
type_ok(const struct emetric *m, const struct prom_sample *s)
{
	return s->type == PROM_UNTYPED || s->type == m->type;
}

static double *
slot_value(struct engine_model *em, int what, bool **has)
{
	*has = NULL;
	switch (what) {
	case EW_TTFT_SUM:
		*has = &em->has_ttft;
		return &em->ttft_sum;
	case EW_TTFT_CNT:
		return &em->ttft_count;
	case EW_ITL_SUM:
		*has = &em->has_itl;
		return &em->itl_sum;
	case EW_ITL_CNT:
		return &em->itl_count;
	default:
		*has = &em->has[what];
		return &em->v[what];
	}
}

static int
add_value(struct ctx *c, const struct emetric *m, const struct prom_sample *s,
    struct wp_err *err)
{
	struct acc *a = c->acc[m->kind];
	struct engine_model *em;
	double *v;
	bool *has;
	int idx, dup;

	if ((em = model_slot(a, s, &idx, err)) == NULL)
		return -1;
	if (m->prio > a->prio[idx][m->what])
		return 0;
	if ((dup = series_seen(c, s, err)) == -1)
		return -1;
	if (dup) {
		a->r.duplicates++;
		return 0;
	}
	v = slot_value(em, m->what, &has);
	if (m->prio < a->prio[idx][m->what])
		*v = 0;		/* a newer name replaces an older one */
	a->prio[idx][m->what] = m->prio;
	*v += s->value;
	if (has != NULL)
		*has = true;
	if (m->what < EW_NWHAT)
		a->r.metric[m->what] = m->name;
	return 0;
}

/* "<counter>_created" and process_start_time_seconds: restart times. */
static void
note_restart(struct ctx *c, const struct prom_sample *s)
{
	size_t n = strlen(s->name);

	if (strcmp(s->name, "process_start_time_seconds") == 0 &&
	    isfinite(s->value) && s->value > 0)
		c->start_time = s->value;
	else if (n > 8 && strcmp(s->name + n - 8, "_created") == 0 &&
	    isfinite(s->value) && s->value > c->start_time &&
	    (strstr(s->name, "tokens") != NULL ||
	    strstr(s->name, "request_success") != NULL))
		c->start_time = s->value;
}

static int
on_sample(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	struct ctx *c = arg;
	const struct emetric *m;
	const char *tp;
	int k;

	for (k = 1; k < ENGINE_NKINDS; k++)
		if (strncmp(s->name, prefixes[k], strlen(prefixes[k])) == 0)
			c->acc[k]->seen++;
	note_restart(c, s);
	if ((m = metric_find(s->name)) == NULL)
		return 0;
	if (!type_ok(m, s)) {
		reject(&c->acc[m->kind]->r, s, "has the wrong TYPE");
		return 0;
	}
	if (!isfinite(s->value) || s->value < 0) {
		reject(&c->acc[m->kind]->r, s, "is not a finite count >= 0");
		return 0;
	}
	/* SGLang: a per-TP-rank copy of the same requests counts once. */
	tp = prom_label(s, "tp_rank");
	if (m->kind == ENGINE_SGLANG && tp != NULL && strcmp(tp, "0") != 0)
		return 0;
	return add_value(c, m, s, err);
}

static void
totals(struct engine_result *r, double start_time)
{
	size_t i;
	int w;

	for (i = 0; i < r->n; i++)
		for (w = 0; w < EW_NWHAT; w++)
			if (r->model[i].has[w]) {
				r->has[w] = true;
				r->v[w] += r->model[i].v[w];
			}
	r->start_time = start_time;
}

static bool
has_tokens(const struct acc *a)
{
	return a->r.has[EW_OUT] || a->r.has[EW_IN];
}

static int
choose(struct ctx *c, int kind, struct engine_result *out, struct wp_err *err)
{
	int k, data = 0, seen = 0, target, other;
	struct acc *a;

	for (k = 1; k < ENGINE_NKINDS; k++) {
		if (has_tokens(c->acc[k])) {
			if (kind == ENGINE_AUTO && data != 0)
				return err_set(err, WP_E_PROTOCOL, "token "
				    "counters of both %s and %s: set kind",
				    kind_names[data], kind_names[k]);
			data = data ? data : k;
		} else if (c->acc[k]->seen > 0 && seen == 0)
			seen = k;
	}
	target = kind != ENGINE_AUTO ? kind : data ? data : seen;
	a = target ? c->acc[target] : NULL;
	if (a != NULL && has_tokens(a)) {
		memcpy(out, &a->r, sizeof(*out));
		out->kind = target;
		return 0;
	}
	if (a != NULL && a->r.note[0])
		return err_set(err, WP_E_PROTOCOL, "no usable %s token counter: "
		    "%s", kind_names[target], a->r.note);
	other = data ? data : seen;
	if (other != 0 && other != target)
		return err_set(err, WP_E_PROTOCOL, "no %s token counters; the "
		    "metrics look like %s", kind_names[target],
		    kind_names[other]);
	return err_set(err, WP_E_PROTOCOL, "no %s token counters found",
	    target ? kind_names[target] : "engine");
}

int
engines_parse(const char *body, size_t len, bool openmetrics, int kind,
    struct engine_result *out, struct wp_err *err)
{
	struct prom_opts po = { 0 };
	struct ctx c;
	int k, rc = -1;

	memset(&c, 0, sizeof(c));
	memset(out, 0, sizeof(*out));
	if (kind < 0 || kind >= ENGINE_NKINDS)
		return err_set(err, WP_E_CONFIG, "bad engine kind %d", kind);
	c.series = calloc(ENGINE_MAX_SERIES, sizeof(*c.series));
	for (k = 0; k < ENGINE_NKINDS; k++)
		c.acc[k] = calloc(1, sizeof(*c.acc[k]));
	for (k = 0; k < ENGINE_NKINDS; k++)
		if (c.acc[k] == NULL)
			goto oom;
	if (c.series == NULL)
		goto oom;
	po.openmetrics = openmetrics;
	if (prom_parse(body, len, &po, on_sample, &c, err) == 0) {
		for (k = 1; k < ENGINE_NKINDS; k++)
			totals(&c.acc[k]->r, c.start_time);
		rc = choose(&c, kind, out, err);
	}
	goto done;
oom:
	err_set(err, WP_E_INTERNAL, "out of memory");
done:
	for (k = 0; k < ENGINE_NKINDS; k++)
		free(c.acc[k]);
	free(c.series);
	hmap_fini(&c.seen);
	return rc;
}

/* "a,b,c" of the model names, cut with "+N" to fit len. */
static void
model_list(const struct engine_result *r, char *buf, size_t len)
{
	size_t i, used = 0, n;
	char more[16];

	buf[0] = '\0';
	for (i = 0; i < r->n; i++) {
		n = strlen(r->model[i].name);
		if (n == 0 || strchr(r->model[i].name, ';') != NULL)
			continue;
		snprintf(more, sizeof(more), ",+%zu", r->n - i);
		if (used + n + 1 + strlen(more) >= len) {
			snprintf(buf + used, len - used, "%s",
			    used ? more : more + 1);
			return;
		}
		used += snprintf(buf + used, len - used, "%s%s",
		    used ? "," : "", r->model[i].name);
	}
}

int
engine_samples(const struct engine_result *r, const char *const *extra,
    struct wp_sample *out, struct wp_err *err)
{
	static const char *const series[] = { "tokens/output", "tokens/input",
	    "requests/success" };
	static const char *const dir[] = { "output", "input", "" };
	struct wp_sample *s;
	char models[WP_LABEL_MAX];
	int w, x, n = 0;

	for (w = 0; w < EW_NWHAT; w++) {
		if (!r->has[w])
			continue;
		s = &out[n++];
		if (sample_init(s, series[w], WP_B_NONE, w == EW_SUCCESS ?
		    WP_Q_OTHER : WP_Q_TOKENS, WP_COUNTER) == -1)
			return err_set(err, WP_E_INTERNAL, "bad series");
		s->value = s->raw_value = r->v[w];
		sample_set_unit(s, w == EW_SUCCESS ? "requests" : "tokens");
		s->resolution = 1;
		if (r->start_time > 0)
			s->reset_time = (wp_time)(r->start_time * 1e9);
		if (dir[w][0])
			sample_add_label(s, "direction", dir[w]);
		sample_add_label(s, "engine", engine_kind_name(r->kind));
		for (x = 0; extra != NULL && extra[x] != NULL &&
		    extra[x + 1] != NULL; x += 2)
			if (sample_add_label(s, extra[x], extra[x + 1]) == -1)
				return err_set(err, WP_E_CONFIG, "label %s=%s "
				    "does not fit", extra[x], extra[x + 1]);
		model_list(r, models, WP_LABEL_MAX - strlen(s->labels) - 8);
		if (models[0])
			sample_add_label(s, "model", models);
	}
	return n;
}
