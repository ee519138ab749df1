/*
 * inband.c - the inband driver: GPU counters from dcgm-exporter (or local
 * NVML) and token counters from inference engines, over the shared HTTP
 * transport.  Decoding is in dcgm.c, engines.c and nvml.c; this file only
 * validates config, moves bytes and turns results into samples.
 *
 * Config (docs/inband.md):
 *   gpu:     {dcgm_exporter: URL, hostname: H, collect_interval: 30s,
 *             timeout: 5s, max_body: N, ca_file: F, insecure: false}
 *            or   {nvml: true}
 *   engines: [{url: URL, kind: vllm|sglang|tgi|llamacpp|auto, timeout...,
 *             version: V, precision: P}]  (declared: labels for the
 *             disclosure, as no engine's metrics say them)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/url.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "dcgm.h"
#include "engines.h"
#include "inband.h"
#include "nvml.h"
#include "promtext.h"

enum { M_DCGM, M_NVML, M_ENGINE };

#define INBAND_BODY_MAX_DEFAULT	(8u << 20)
/* dcgm-exporter's own collection interval (-c / DCGM_EXPORTER_INTERVAL,
 * 30000 ms by default): its values are up to this old when read. */
#define INBAND_DCGM_COLLECT_DEFAULT	(30 * WP_SEC)

struct inband {
	char			 name[128];
	int			 mode;
	char			*url;
	char			*hostname;	/* dcgm filter, or NULL */
	char			*version;	/* engine: declared, or NULL */
	char			*precision;	/* engine: declared, or NULL */
	char			*ca_file;
	bool			 insecure;
	int			 kind;		/* engine kind */
	wp_time			 timeout;
	wp_time			 collect;	/* dcgm-exporter's -c interval */
	size_t			 max_body;
	const struct wp_services *svc;
	struct http_conn	*conn;
	struct wp_poll		*poll;		/* in flight, or NULL */
	struct nvml		*nvml;
	char			 last_note[160];	/* logged once */
};

static const char *const gpu_keys[] = { "dcgm_exporter", "nvml", "hostname",
	"collect_interval", "max_body", "ca_file", "insecure", NULL };
/* model and gpus: read by the config for the report's attribution
 * (collector/conf/conf_engine.c) */
static const char *const engine_keys[] = { "url", "kind", "max_body",
	"ca_file", "insecure", "model", "gpus", "version", "precision", NULL };

static void
target_free(void *state)
{
	struct inband *t = state;

	if (t == NULL)
		return;
	http_conn_free(t->conn);
	nvml_close(t->nvml);
	free(t->url);
	free(t->hostname);
	free(t->version);
	free(t->precision);
	free(t->ca_file);
	free(t);
}

/* The endpoint URL (key of the block) and the keys every HTTP block may
 * carry. */
static void
http_conf(struct inband *t, const struct wp_target_conf *tc,
    const struct ynode *url, struct diag *d)
{
	const struct ynode *b = tc->block;
	struct wp_err err = { 0 };
	long max;
	bool tls;
	int rc;

	if (url != NULL && url_check(url->value, &tls, &err) < 0)
		diag_err(d, url, tc->where, &err, false);
	else if (url != NULL)
		diag_strdup(d, tc->block, tc->where, &t->url, url->value);
	t->max_body = INBAND_BODY_MAX_DEFAULT;
	if ((rc = ycheck_long(d, b, "max_body", tc->where, 1024, 1L << 30,
	    &max)) == 0)
		t->max_body = (size_t)max;
	ycheck_bool(d, b, "insecure", tc->where, &t->insecure);
	diag_strdup(d, tc->block, tc->where, &t->ca_file,
	    ycheck_scalar(d, b, "ca_file", tc->where, false));
}

static void
gpu_conf(struct inband *t, const struct wp_target_conf *tc, struct diag *d)
{
	const struct ynode *b = tc->block, *url;
	bool nv = false;

	driver_check_keys(tc, b, tc->where, gpu_keys, d);
	url = ycheck_typed(d, b, "dcgm_exporter", YN_SCALAR, tc->where, false);
	ycheck_bool(d, b, "nvml", tc->where, &nv);
	if (url != NULL && nv) {
		diag_at(d, b, false, "%s: give dcgm_exporter or nvml: true, "
		    "not both", tc->where);
		return;
	}
	if (nv) {
		t->mode = M_NVML;
		return;
	}
	if (ynode_get(b, "dcgm_exporter") == NULL && ynode_get(b,
	    "nvml") == NULL) {
		diag_at(d, b, false, "%s: needs dcgm_exporter: URL or nvml: "
		    "true", tc->where);
		return;
	}
	t->mode = M_DCGM;
	t->collect = INBAND_DCGM_COLLECT_DEFAULT;
	ycheck_duration(d, b, "collect_interval", tc->where, 0,
	    3600 * WP_SEC, "0s..1h (0s: fresh at each scrape)", &t->collect);
	diag_strdup(d, tc->block, tc->where, &t->hostname,
	    ycheck_scalar(d, b, "hostname", tc->where, false));
	http_conf(t, tc, url, d);
}

/* A declared label of the engine block (version, precision) into *out:
 * a short value a label can carry. */
static void
declared(struct diag *d, const struct wp_target_conf *tc, const char *key,
    char **out)
{
	const char *v = ycheck_scalar(d, tc->block, key, tc->where, false);

	if (v == NULL)
		return;
	if (v[0] == '\0' || strlen(v) >= 64 || strpbrk(v, ";,=\"") != NULL) {
		diag_at(d, ynode_get(tc->block, key), false, "%s: %s: a value "
		    "of 1..63 bytes without ';', ',', '=' or '\"'", tc->where,
		    key);
		return;
	}
	diag_strdup(d, tc->block, tc->where, out, v);
}

static void
engine_conf(struct inband *t, const struct wp_target_conf *tc,
    struct diag *d)
{
	static const char *const kinds[] = { "vllm", "sglang", "tgi",
	    "llamacpp", "auto", NULL };
	const struct ynode *b = tc->block;
	const char *kind;

	driver_check_keys(tc, b, tc->where, engine_keys, d);
	t->mode = M_ENGINE;
	t->kind = ENGINE_AUTO;
	if ((kind = ycheck_enum(d, b, "kind", tc->where, kinds,
	    "vllm, sglang, tgi, llamacpp, auto")) != NULL)
		t->kind = engine_kind_parse(kind);
	http_conf(t, tc, ycheck_typed(d, b, "url", YN_SCALAR, tc->where,
	    true), d);
	declared(d, tc, "version", &t->version);
	declared(d, tc, "precision", &t->precision);
}

/* Reads tc's block into t; every problem to d (validate and target_new
 * read it alike). */
static void
inband_conf(struct inband *t, const struct wp_target_conf *tc,
    struct diag *d)
{
	snprintf(t->name, sizeof(t->name), "%s", tc->name);
	t->timeout = tc->timeout;
	if (tc->kind != NULL && strcmp(tc->kind, "engine") == 0)
		engine_conf(t, tc, d);
	else if (tc->kind != NULL && strcmp(tc->kind, "gpu") == 0)
		gpu_conf(t, tc, d);
	else
		diag_at(d, tc->block, false, "%s: target kind '%s' is not gpu "
		    "or engine", tc->where, tc->kind ? tc->kind : "");
}

static int
validate(const struct wp_target_conf *tc, struct diag *d)
{
	size_t n0 = d->n_err;
	struct inband *t;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		diag_at(d, tc->block, false, "%s: out of memory", tc->where);
		return 1;
	}
	inband_conf(t, tc, d);
	target_free(t);
	return (int)(d->n_err - n0);
}

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	struct diag d = { .main_file = "" };
	struct inband *t;

	*state = NULL;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	t->svc = svc;
	inband_conf(t, tc, &d);
	if (diag_take_err(&d, err) == -1) {
		target_free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static void
describe(void *state, char *buf, size_t len)
{
	struct inband *t = state;

	if (t->mode == M_NVML)
		snprintf(buf, len, "%s: NVML (local)", t->name);
	else if (t->mode == M_DCGM)
		snprintf(buf, len, "%s: dcgm-exporter %s", t->name, t->url);
	else
		snprintf(buf, len, "%s: %s engine %s", t->name,
		    engine_kind_name(t->kind), t->url);
}

/* ---- decoding a body into samples ----------------------------------- */

static int
emit_gpus(struct wp_poll *poll, struct gpu_reading *g, size_t n,
    const char *source, wp_time collect, struct wp_err *err)
{
	struct wp_sample s[GPU_SAMPLES_MAX];
	size_t i;
	int k, j;

	for (i = 0; i < n; i++) {
		g[i].collect_s = (double)collect / (double)WP_SEC;
		if ((k = gpu_samples(&g[i], source, s, err)) < 0)
			return -1;
		for (j = 0; j < k; j++)
			poll_add(poll, &s[j]);
	}
	return 0;
}

/* Logs a rejected field once (until the reason changes). */
static void
note_once(struct inband *t, const char *note)
{
	if (note[0] == '\0' || strcmp(note, t->last_note) == 0)
		return;
	snprintf(t->last_note, sizeof(t->last_note), "%s", note);
	log_warnx("%s: ignored: %s", t->name, note);
}

/* The declared labels of engine t as engine_samples takes them, in x
 * (room for 5). */
static const char *const *
declared_labels(const struct inband *t, const char **x)
{
	int n = 0;

	if (t->version != NULL)
		x[n++] = "engine_version", x[n++] = t->version;
	if (t->precision != NULL)
		x[n++] = "precision", x[n++] = t->precision;
	x[n] = NULL;
	return x;
}

static int
decode(struct inband *t, struct wp_poll *poll, const struct http_resp *r,
    struct wp_err *err)
{
	const char *extra[5];
	struct dcgm_opts o = { 0 };
	struct dcgm_result *d;
	struct engine_result *e;
	struct wp_sample s[ENGINE_SAMPLES_MAX];
	bool om = prom_content_is_openmetrics(r->content_type);
	int rc = -1, n, i;

	if (t->mode == M_DCGM) {
		o.openmetrics = om;
		o.hostname = t->hostname;
		if ((d = malloc(sizeof(*d))) == NULL)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		if (dcgm_parse(r->body, r->len, &o, d, err) == 0) {
			note_once(t, d->note);
			rc = emit_gpus(poll, d->gpu, d->n, "dcgm", t->collect,
			    err);
		}
		free(d);
		return rc;
	}
	if ((e = malloc(sizeof(*e))) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (engines_parse(r->body, r->len, om, t->kind, e, err) == 0 &&
	    (n = engine_samples(e, declared_labels(t, extra), s, err)) >= 0) {
		note_once(t, e->note);
		for (i = 0; i < n; i++)
			poll_add(poll, &s[i]);
		rc = 0;
	}
	free(e);
	return rc;
}

/* ---- polling ---------------------------------------------------------- */

static void
on_resp(void *arg, const struct http_resp *r, const struct wp_err *terr)
{
	struct inband *t = arg;
	struct wp_poll *poll = t->poll;
	struct wp_err err;

	t->poll = NULL;
	err_clear(&err);
	if (poll == NULL)
		return;
	if (terr != NULL) {
		poll_done(poll, -1, terr);
		return;
	}
	if (r->status != 200) {
		err_set(&err, http_status_class(r->status), "HTTP %ld from %s",
		    r->status, t->url);
		poll_done(poll, -1, &err);
		return;
	}
	if (r->body == NULL || decode(t, poll, r, &err) == -1) {
		if (err.class == WP_E_NONE)
			err_set(&err, WP_E_PROTOCOL, "empty response");
		poll_done(poll, -1, &err);
		return;
	}
	poll_done(poll, 0, NULL);
}

static void
req_opts(const struct inband *t, struct http_req_opts *o)
{
	static const char *const hdrs[] = {
		"Accept: application/openmetrics-text;version=1.0.0;q=0.5,"
		    "text/plain;version=0.0.4;q=1,*/*;q=0.1",
		NULL,
	};

	memset(o, 0, sizeof(*o));
	o->method = "GET";
	o->url = t->url;
	o->headers = hdrs;
	o->ca_file = t->ca_file;
	o->insecure = t->insecure;
	o->timeout = t->timeout;
	o->max_body = t->max_body;
}

static int
poll_nvml(struct inband *t, struct wp_poll *poll)
{
	struct gpu_reading g[DCGM_MAX_GPUS];
	struct wp_err err;
	size_t n;

	err_clear(&err);
	if (t->nvml == NULL && (t->nvml = nvml_open(NULL, &err)) == NULL) {
		poll_done(poll, -1, &err);
		return 0;
	}
	if (nvml_read(t->nvml, g, DCGM_MAX_GPUS, &n, &err) == -1 ||
	    emit_gpus(poll, g, n, "nvml", 0, &err) == -1) {
		poll_done(poll, -1, &err);
		return 0;
	}
	poll_done(poll, 0, NULL);
	return 0;
}

static int
poll_start(void *state, struct wp_poll *poll)
{
	struct inband *t = state;
	struct http_req_opts o;
	struct wp_err err;

	err_clear(&err);
	if (t->mode == M_NVML)
		return poll_nvml(t, poll);
	if (t->conn == NULL &&
	    (t->conn = http_conn_new(t->svc->http, &err)) == NULL) {
		poll_done(poll, -1, &err);
		return 0;
	}
	req_opts(t, &o);
	t->poll = poll;
	if (http_start(t->conn, &o, on_resp, t, &err) == -1) {
		t->poll = NULL;
		poll_done(poll, -1, &err);
	}
	return 0;
}

static void
poll_cancel(void *state, struct wp_poll *poll)
{
	struct inband *t = state;

	(void)poll;
	if (t->conn != NULL)
		http_cancel(t->conn);
	t->poll = NULL;
}

/* ---- probe ------------------------------------------------------------ */

static const char *
req_extra(const struct wp_probe_req *req, const char *key)
{
	size_t n = strlen(key), i;

	for (i = 0; req->extra != NULL && req->extra[i] != NULL; i++)
		if (strncmp(req->extra[i], key, n) == 0 &&
		    req->extra[i][n] == '=')
			return req->extra[i] + n + 1;
	return NULL;
}

static int
probe_gpus(const struct dcgm_result *d, struct wp_probe_result *out,
    struct wp_err *err)
{
	struct wp_sample s[GPU_SAMPLES_MAX];
	char path[256];
	size_t i;
	int k, j;

	snprintf(out->vendor, sizeof(out->vendor), "NVIDIA");
	snprintf(out->model, sizeof(out->model), "%s", d->gpu[0].model);
	snprintf(out->firmware, sizeof(out->firmware), "%s", d->gpu[0].driver);
	snprintf(out->extra, sizeof(out->extra), "dcgm-exporter gpus=%zu%s%s "
	    "folded_rows=%u blank=%u rejected=%u%s%.160s", d->n,
	    d->gpu[0].hostname[0] ? " host=" : "", d->gpu[0].hostname,
	    d->folded, d->blank, d->rejected, d->note[0] ? " " : "", d->note);
	for (i = 0; i < d->n; i++) {
		if ((k = gpu_samples(&d->gpu[i], "dcgm", s, err)) < 0)
			return -1;
		for (j = 0; j < k; j++) {
			if (s[j].quantity != WP_Q_ENERGY &&
			    s[j].quantity != WP_Q_POWER)
				continue;
			snprintf(path, sizeof(path), "%s{gpu=\"%d\"}",
			    s[j].quantity == WP_Q_ENERGY ?
			    (d->gpu[i].energy_field == 156 ?
			    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" :
			    "energy (J field)") : "DCGM_FI_DEV_POWER_USAGE",
			    d->gpu[i].index);
			if (probe_result_add(out, &s[j], path, true) == -1)
				return err_set(err, WP_E_INTERNAL, "no memory");
		}
	}
	return 0;
}

static int
probe_engine(const struct engine_result *e, struct wp_probe_result *out,
    struct wp_err *err)
{
	struct wp_sample s[ENGINE_SAMPLES_MAX];
	int n, i, w, k = 0;

	snprintf(out->vendor, sizeof(out->vendor), "%s",
	    engine_kind_name(e->kind));
	snprintf(out->model, sizeof(out->model), "%s", e->n ?
	    e->model[0].name : "");
	snprintf(out->extra, sizeof(out->extra), "engine=%s models=%zu "
	    "rejected=%u%s%.160s", engine_kind_name(e->kind), e->n, e->rejected,
	    e->note[0] ? " " : "", e->note);
	if ((n = engine_samples(e, NULL, s, err)) < 0)
		return -1;
	for (w = 0; w < EW_NWHAT; w++) {
		if (!e->has[w] || k >= n)
			continue;
		i = k++;
		if (probe_result_add(out, &s[i], e->metric[w], true) == -1)
			return err_set(err, WP_E_INTERNAL, "no memory");
	}
	return 0;
}

/* True if raw response headers name OpenMetrics as the content type. */
static bool
headers_openmetrics(const char *h)
{
	const char *p;

	for (p = h; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncasecmp(p, "content-type:", 13) == 0)
			return prom_content_is_openmetrics(p + 13 +
			    strspn(p + 13, " \t"));
	return false;
}

static int
probe_body(const struct wp_probe_req *req, const char *body, size_t len,
    bool om, struct wp_probe_result *out, struct wp_err *err)
{
	struct dcgm_opts o = { .hostname = req_extra(req, "hostname"),
	    .openmetrics = om };
	const char *ks = req_extra(req, "kind");
	struct dcgm_result *d = malloc(sizeof(*d));
	struct engine_result *e = malloc(sizeof(*e));
	struct wp_err de = { 0 }, ee = { 0 };
	int kind = ks ? engine_kind_parse(ks) : ENGINE_AUTO, rc = -1;

	snprintf(out->protocol, sizeof(out->protocol), "prometheus");
	if (d == NULL || e == NULL)
		err_set(err, WP_E_INTERNAL, "out of memory");
	else if (kind < 0)
		err_set(err, WP_E_CONFIG, "-o kind=%.32s: want vllm, sglang, "
		    "tgi, llamacpp or auto", ks);
	else if (ks == NULL && dcgm_parse(body, len, &o, d, &de) == 0)
		rc = probe_gpus(d, out, err);
	else if (engines_parse(body, len, om, kind, e, &ee) == 0)
		rc = probe_engine(e, out, err);
	else if (ks != NULL)
		err_set(err, ee.class, "%s", ee.msg);
	else if (memmem(body, len, "DCGM_FI_", 8) != NULL ||
	    memmem(body, len, "dcgm_", 5) != NULL)
		err_set(err, de.class, "dcgm-exporter: %s%s", de.msg,
		    strstr(de.msg, "hostname") ? " (-o hostname=H)" : "");
	else
		err_set(err, WP_E_PROTOCOL, "neither dcgm-exporter (%.100s) nor "
		    "an inference engine (%.100s)", de.msg, ee.msg);
	free(d);
	free(e);
	return rc;
}

static int
probe(const struct wp_probe_req *req, const struct wp_services *svc,
    struct wp_probe_result *out, struct wp_err *err)
{
	struct inband t = { 0 };
	struct http_req_opts o;
	struct http_conn *c;
	char *body = NULL, *hdrs = NULL;
	size_t len = 0;
	long status = 0;
	bool tls;
	int rc;

	if (url_check(req->url, &tls, err) < 0)
		return -1;
	t.url = (char *)req->url;
	t.ca_file = (char *)req->ca_file;
	t.insecure = req->insecure;
	t.timeout = req->timeout;
	t.max_body = INBAND_BODY_MAX_DEFAULT;
	if ((c = http_conn_new(svc->http, err)) == NULL)
		return -1;
	req_opts(&t, &o);
	rc = http_fetch_sync(svc->http, c, &o, &status, &body, &len, &hdrs,
	    err);
	http_conn_free(c);
	if (rc == 0 && status != 200)
		rc = err_set(err, http_status_class(status), "HTTP %ld from %s",
		    status, req->url);
	if (rc == 0)
		rc = probe_body(req, body, len, headers_openmetrics(hdrs), out,
		    err);
	free(body);
	free(hdrs);
	return rc;
}

const struct wp_driver inband_driver = {
	.name = "inband",
	.validate = validate,
	.target_new = target_new,
	.poll_start = poll_start,
	.poll_cancel = poll_cancel,
	.target_free = target_free,
	.describe = describe,
	.probe = probe,
};
