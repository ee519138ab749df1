/*
 * redfish_stream.c - a BMC target's SSE push channel (redfish_stream.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/loop.h"
#include "redfish_push.h"
#include "redfish_stream.h"
#include "redfish_subscr.h"

#define RF_EVENTSERVICE	"/redfish/v1/EventService"
#define RF_STREAM_LONG	(24 * 3600 * WP_SEC)	/* the stream's own timeout */
#define RF_BACKOFF_MAX	(60 * WP_SEC)
#define RF_NO_SSE_RETRY	(600 * WP_SEC)
#define RF_SKEW_WARN	(60 * WP_SEC)

enum st { ST_IDLE, ST_ES, ST_OPEN };

struct rf_stream {
	char		 name[128];
	int		 mode;
	wp_time		 interval, stall, backoff, retry_at, last_report;
	struct wp_services svc;
	struct wp_push_sink sink;
	bool		 has_sink, up, fail_logged, gpu_crosscheck, skew_logged;
	const struct rf_plan *plan;
	struct rf_bmc	*bmc;
	struct rf_sub	*sub;		/* POST delivery, or NULL: SSE */
	wp_time		 check_at;	/* of the subscription, not up */
	struct http_conn *conn;
	struct loop_timer *watchdog;
	int		 state;
	char		 uri[RF_URI_MAX];	/* ServerSentEventUri, or "" */
	char		 last_id[128];	/* the last event id, for a reopen */
	struct rf_sse	 sse;
	struct rf_readings vals;
	struct wp_sample *smp;
	size_t		 cap;
};

static void on_watchdog(void *arg);

struct rf_stream *
rf_stream_new(const char *name, int mode, wp_time interval,
    bool gpu_crosscheck, const struct wp_services *svc)
{
	struct rf_stream *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->mode = mode;
	s->gpu_crosscheck = gpu_crosscheck;
	s->interval = interval > 0 ? interval : 10 * WP_SEC;
	s->stall = 3 * s->interval > 2 * WP_SEC ? 3 * s->interval :
	    2 * WP_SEC;
	s->backoff = s->interval;
	s->svc = *svc;
	rf_readings_init(&s->vals);
	if ((s->watchdog = loop_timer_new(svc->loop, on_watchdog, s)) ==
	    NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void
rf_stream_free(struct rf_stream *s)
{
	if (s == NULL)
		return;
	rf_sub_free(s->sub);
	http_conn_free(s->conn);
	loop_timer_free(s->watchdog);
	rf_sse_fini(&s->sse);
	rf_readings_fini(&s->vals);
	free(s->smp);
	free(s);
}

void
rf_stream_attach(struct rf_stream *s, const struct wp_push_sink *sink)
{
	s->sink = *sink;
	s->has_sink = true;
	if (sink->post_url != NULL && sink->post_context != NULL &&
	    (s->sub = rf_sub_new(s->name, sink->post_url, sink->post_context,
	    &s->svc)) == NULL)
		log_warnx("redfish %s: out of memory: no subscription, SSE",
		    s->name);
	s->sink.post_url = NULL;	/* the token stays in s->sub only */
	sink->stream(sink->owner, false);	/* a push target, not up yet */
}

void
rf_stream_forget_plan(struct rf_stream *s)
{
	if (s != NULL)
		s->plan = NULL;
}

bool
rf_stream_fresh(const struct rf_stream *s)
{
	return s != NULL && s->up && clock_mono() - s->last_report < s->stall;
}

static size_t
report(struct rf_stream *s, int result, struct wp_sample *v, size_t n)
{
	return s->has_sink ? s->sink.report(s->sink.owner, result, v, n) : 0;
}

/* A pushed Timestamp far from our clock: logged once per stream. */
static void
check_skew(struct rf_stream *s, const struct wp_sample *v, size_t n)
{
	wp_time now = clock_real(), d;

	if (s->skew_logged || n == 0 || v[0].t_real == 0)
		return;
	d = v[0].t_real > now ? v[0].t_real - now : now - v[0].t_real;
	if (d > RF_SKEW_WARN) {
		log_warnx("redfish %s: pushed Timestamps differ from our clock "
		    "by %.0f s: values older than a poll's are refused, and "
		    "the target is polled while none is taken", s->name,
		    (double)d / WP_SEC);
		s->skew_logged = true;
	}
}

/* The channel is down (or could not come up): polled, retried later. */
static void
went_down(struct rf_stream *s, const char *why, wp_time retry)
{
	wp_time now = clock_mono();

	s->state = ST_IDLE;
	loop_timer_disarm(s->watchdog);
	s->retry_at = now + retry;
	if (s->up) {
		s->up = false;
		if (s->has_sink)
			s->sink.stream(s->sink.owner, false);
		(s->mode == RF_PUSH_PUSH ? log_warnx : log_info)("redfish %s: "
		    "push stream down (%s): polling until it is back",
		    s->name, why);
	} else if (!s->fail_logged) {
		(s->mode == RF_PUSH_PUSH ? log_warnx : log_info)("redfish %s: "
		    "push stream not available (%s): polling", s->name, why);
		s->fail_logged = true;
	} else
		log_debug("redfish %s: push stream: %s", s->name, why);
}

static void
backoff_down(struct rf_stream *s, const char *why)
{
	wp_time b = s->backoff;

	s->backoff = b * 2 < RF_BACKOFF_MAX ? b * 2 : RF_BACKOFF_MAX;
	went_down(s, why, b);
}

/* The samples of one report: validated, GPU cross-checks marked. */
static size_t
samples_of(struct rf_stream *s)
{
	struct wp_err e;
	size_t n, i, k = 0;

	if (s->vals.n > s->cap) {
		struct wp_sample *ns = realloc(s->smp, s->vals.n * sizeof(*ns));

		if (ns == NULL)
			return 0;
		s->smp = ns;
		s->cap = s->vals.n;
	}
	n = rf_push_samples(s->plan, &s->vals, s->smp, s->cap, NULL);
	for (i = 0; i < n; i++) {
		if (sample_validate(&s->smp[i], &e) < 0) {
			log_debug("redfish %s: pushed %s left out: %s",
			    s->name, s->smp[i].series, e.msg);
			continue;
		}
		if (s->smp[i].boundary == WP_B_GPU && s->gpu_crosscheck)
			s->smp[i].flags |= WP_F_CROSSCHECK;
		s->smp[k++] = s->smp[i];
	}
	return k;
}

/* The channel carries reports again. */
static void
came_up(struct rf_stream *s)
{
	s->last_report = clock_mono();
	s->backoff = s->interval;
	loop_timer_arm(s->watchdog, s->last_report + s->stall);
	if (s->up)
		return;
	s->up = true;
	s->fail_logged = false;
	if (s->has_sink)
		s->sink.stream(s->sink.owner, true);
	log_info("redfish %s: push %s up (%s): reports replace polls",
	    s->name, s->sub ? "subscription" : "stream", s->sub ? "POST" :
	    s->uri);
}

/* One pushed document (an SSE event's data, a POSTed body). */
static void
ingest(struct rf_stream *s, const char *data, size_t len)
{
	struct wp_err e;
	char id[128];
	size_t n;
	int rc;

	rf_readings_clear(&s->vals);
	if ((rc = rf_push_parse(data, len, &s->vals, id, sizeof(id),
	    &e)) < 0) {
		log_debug("redfish %s: pushed report refused: %s", s->name,
		    e.msg);
		report(s, WP_PUSH_MALFORMED, NULL, 0);
		return;
	}
	if (rc == 0 || s->plan == NULL || (n = samples_of(s)) == 0) {
		report(s, WP_PUSH_IGNORED, NULL, 0);
		return;
	}
	check_skew(s, s->smp, n);
	if (report(s, WP_PUSH_OK, s->smp, n) == 0)
		return;		/* all refused: no stand-in for a poll */
	came_up(s);
}

static void
on_event(void *arg, const struct rf_sse_event *ev)
{
	struct rf_stream *s = arg;

	if (ev->oversized) {
		log_debug("redfish %s: pushed event over %u bytes refused",
		    s->name, RF_STREAM_MAX);
		report(s, WP_PUSH_OVERSIZED, NULL, 0);
		return;
	}
	ingest(s, ev->data, ev->len);
}

void
rf_stream_post(struct rf_stream *s, const char *body, size_t len,
    const char *peer)
{
	if (s == NULL || s->sub == NULL)
		return;
	if (!rf_sub_sender_ok(s->sub, peer)) {
		log_debug("redfish %s: a report POSTed from %s, not our BMC's "
		    "subscription: refused", s->name, peer);
		report(s, WP_PUSH_UNKNOWN_SENDER, NULL, 0);
		return;
	}
	ingest(s, body, len);
}

static void
on_chunk(void *arg, long status, const char *p, size_t n)
{
	struct rf_stream *s = arg;

	if (status == 200)
		rf_sse_feed(&s->sse, p, n, on_event, s);
}

static void
on_stream_end(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_stream *s = arg;
	char why[WP_ERR_MSG + 32];

	if (r == NULL)
		snprintf(why, sizeof(why), "%s", e->msg);
	else if (r->status != 200)
		snprintf(why, sizeof(why), "%s: HTTP %ld", s->uri, r->status);
	else
		snprintf(why, sizeof(why), "the BMC closed the stream");
	backoff_down(s, why);
}

static void
on_watchdog(void *arg)
{
	struct rf_stream *s = arg;
	char why[64];

	if (s->sub != NULL) {		/* POSTs stopped: is it still there? */
		snprintf(why, sizeof(why), "no report POSTed for %.0f s",
		    (double)s->stall / WP_SEC);
		went_down(s, why, 0);
		rf_sub_check(s->sub);
		s->check_at = clock_mono() + s->stall;
		return;
	}
	if (s->state != ST_OPEN)
		return;
	http_cancel(s->conn);
	snprintf(why, sizeof(why), "no report for %.0f s",
	    (double)s->stall / WP_SEC);
	backoff_down(s, why);
}

/* GET path on the stream's connection; 0, or -1 (not now). */
static int
get(struct rf_stream *s, const char *path, bool stream, http_done_cb done)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600], lid[160];
	const char *hdrs[4] = { NULL, NULL, NULL, NULL };
	struct wp_err err;
	int rc;

	if (s->bmc == NULL || rf_bmc_side_opts(s->bmc, &o, url, sizeof(url),
	    path, hdr, sizeof(hdr)) < 0)
		return -1;		/* no session yet: a poll opens one */
	if (s->conn == NULL && (s->conn = http_conn_new(s->svc.http,
	    &err)) == NULL)
		return -1;
	hdrs[0] = stream ? "Accept: text/event-stream" :
	    "Accept: application/json";
	hdrs[1] = hdr[0] ? hdr : NULL;
	if (stream && s->last_id[0] != '\0') {	/* what we missed, again */
		snprintf(lid, sizeof(lid), "Last-Event-ID: %s", s->last_id);
		hdrs[hdr[0] ? 2 : 1] = lid;
	}
	o.headers = hdrs;
	o.timeout = stream ? RF_STREAM_LONG : 10 * WP_SEC;
	o.max_body = stream ? RF_STREAM_MAX : 0;
	o.stream = stream ? on_chunk : NULL;
	rc = http_start(s->conn, &o, done, s, &err);
	explicit_bzero(hdr, sizeof(hdr));
	if (rc < 0)
		went_down(s, err.msg, RF_BACKOFF_MAX);
	return rc;
}

static void
open_stream(struct rf_stream *s)
{
	if (s->sse.line != NULL && s->sse.id[0] != '\0')
		memcpy(s->last_id, s->sse.id, sizeof(s->last_id));
	rf_sse_fini(&s->sse);
	if (rf_sse_init(&s->sse, RF_STREAM_MAX) < 0) {
		went_down(s, "out of memory", RF_BACKOFF_MAX);
		return;
	}
	if (get(s, s->uri, true, on_stream_end) < 0)
		return;
	s->state = ST_OPEN;
	loop_timer_arm(s->watchdog, clock_mono() + s->stall);
}

/* EventService: where the stream is. */
static void
on_eventservice(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_stream *s = arg;
	struct json_object *o = NULL, *u;
	struct wp_err pe;
	char why[WP_ERR_MSG + 64];

	s->state = ST_IDLE;
	if (r == NULL || r->status != 200 ||
	    (o = rf_json_parse(r->body, r->len, &pe)) == NULL) {
		snprintf(why, sizeof(why), RF_EVENTSERVICE ": %s", r == NULL ?
		    e->msg : r->status != 200 ? "no EventService" : pe.msg);
		if (r != NULL && r->status == 404)
			went_down(s, why, RF_NO_SSE_RETRY);
		else
			backoff_down(s, why);
		return;
	}
	if (!json_object_object_get_ex(o, "ServerSentEventUri", &u) ||
	    !json_object_is_type(u, json_type_string) ||
	    json_object_get_string(u)[0] != '/' ||
	    strlen(json_object_get_string(u)) >= sizeof(s->uri)) {
		json_object_put(o);
		went_down(s, "the EventService has no ServerSentEventUri",
		    RF_NO_SSE_RETRY);
		return;
	}
	snprintf(s->uri, sizeof(s->uri), "%s", json_object_get_string(u));
	json_object_put(o);
	open_stream(s);
}

/* POST delivery: subscribed, and while no report comes, checked every
 * stall interval (a BMC that lost it is subscribed again). */
static void
kick_sub(struct rf_stream *s)
{
	wp_time now = clock_mono();

	rf_sub_kick(s->sub, s->bmc);
	if (s->up || !rf_sub_active(s->sub))
		return;
	if (s->check_at == 0)
		s->check_at = now + s->stall;
	else if (now >= s->check_at) {
		rf_sub_check(s->sub);
		s->check_at = now + s->stall;
	}
}

void
rf_stream_kick(struct rf_stream *s, const struct rf_plan *plan,
    struct rf_bmc *bmc)
{
	if (s == NULL)
		return;
	s->plan = plan;
	s->bmc = bmc;
	if (s->sub != NULL) {
		if (plan != NULL)
			kick_sub(s);
		return;
	}
	if (s->state != ST_IDLE || plan == NULL ||
	    clock_mono() < s->retry_at)
		return;
	if (s->uri[0] != '\0') {
		open_stream(s);
		return;
	}
	if (get(s, RF_EVENTSERVICE, false, on_eventservice) == 0)
		s->state = ST_ES;
}
