/*
 * redfish.c - the Redfish driver's targets: a node's BMC (or a Redfish
 * PDU), polled over the BMC it names (redfish_bmc.c: one connection and
 * one session per BMC, shared by every target on it).
 *
 * A poll runs these steps, each one request at a time, in the target's
 * turn on its BMC (the BMC opens the session first: a stale DELETE left
 * by a crash, a login):
 *   walk   discovery (redfish_discover.c) for the node's system (bmc:
 *          system:) or all of them; its plan is copied into a compact one
 *          (rf_plan_compact: only what polling needs) and the walker is
 *          freed; a fresh walk runs after a 404, after RF_REDISCOVER and
 *          on reload (a new target)
 *   fetch  GET each resource of the plan ($select when supported)
 * then samples are built (rf_series_sample) and poll_done() is called.
 *
 * A walk is not bound to one poll: when the core cancels a poll (its
 * deadline passed) during one, the walk goes on in the background (its
 * requests have their own, longer timeout), keeping the BMC's turn, so
 * that a discovery longer than one interval completes; the next poll
 * resumes from there.  Only fetches are cancelled.  max_inflight: one
 * request per BMC (only 1 is accepted in the config).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/strcopy.h"
#include "../../collector/lib/url.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "redfish.h"
#include "redfish_bmc.h"
#include "redfish_discover.h"
#include "redfish_parse.h"
#include "redfish_probe.h"
#include "redfish_stream.h"

#define RF_REDISCOVER	(4 * 3600 * WP_SEC)
#define RF_STALE_POLLS	30	/* identical readings while others move */
#define RF_SKEW_MAX	(60 * WP_SEC)
#define RF_SYSTEM_MAX	64

enum rf_step { T_IDLE, T_WALK, T_FETCH };

struct rf_stale {
	double	 last;
	int	 same;
};

struct rf_target {
	struct rf_user	 u;		/* its side of the BMC's turns */
	char		 name[128];
	char		 base[256];	/* scheme://host[:port] */
	char		 system[RF_SYSTEM_MAX];	/* bmc: system:, or "" */
	int		 mode;		/* RF_MODE_NODE / RF_MODE_PDU */
	int		 auth;
	char		*user, *pw_file, *pw_env;	/* where the password is */
	char		*ca_file, *pin;
	bool		 insecure, gpu_inband;
	int		 push;		/* enum rf_push_mode (bmc: mode:) */
	wp_time		 timeout, interval;
	struct rf_stream *stream;	/* mode push/auto, or NULL */
	struct rf_bmc	*bmc;		/* rf_bmc_unref */
	/* discovery: the walker while it runs, then only the plan */
	struct rf_disc	*disc;
	struct rf_plan	*plan;		/* rf_plan_compact's; rf_plan_free */
	wp_time		 disc_at;
	bool		 disc_done;
	/* poll */
	struct wp_poll	*poll;
	int		 step;
	size_t		 next_uri;	/* in plan->uris */
	struct rf_readings polled;	/* kept across polls, emptied */
	struct rf_stale	*stale;
	bool		 skew_logged;
	char		 dropped_why[160];	/* last logged */
};

static void target_step(struct rf_target *t);

/* ---- config ---- */

static const char *const bmc_keys[] = { "url", "credentials", "auth",
	"ca_file", "pin_sha256", "insecure", "max_inflight", "name", "system",
	"mode", NULL };

/* scheme://host[:port] of a checked URL into t->base. */
static void
url_base(struct rf_target *t, const struct wp_target_conf *tc,
    const struct ynode *url, struct diag *d)
{
	const char *p = strstr(url->value, "://") + 3;
	size_t n = (size_t)(p - url->value) + strcspn(p, "/?#");

	if (n >= sizeof(t->base)) {
		diag_at(d, url, false, "%s: URL too long", tc->where);
		return;
	}
	memcpy(t->base, url->value, n);
	t->base[n] = '\0';
}

/* credentials: by name; their secrets are loaded at the first poll, so
 * that check-config reads none. */
static void
creds_conf(struct rf_target *t, const struct wp_target_conf *tc,
    bool auth_ok, struct diag *d)
{
	const struct ynode *n;
	const struct wp_cred *c;

	n = ycheck_typed(d, tc->block, "credentials", YN_SCALAR, tc->where,
	    false);
	if (n == NULL) {
		if (auth_ok && t->auth != AUTH_NONE &&
		    ynode_get(tc->block, "credentials") == NULL)
			diag_at(d, tc->block, false, "%s: auth %s needs "
			    "credentials", tc->where, t->auth == AUTH_BASIC ?
			    "basic" : "session");
		return;
	}
	if ((c = driver_cred(tc, n->value)) == NULL) {
		diag_at(d, n, false, "%s: unknown credential '%s'", tc->where,
		    n->value);
		return;
	}
	if (c->username == NULL || (c->password_file == NULL &&
	    c->password_env == NULL)) {
		diag_at(d, n, false, "%s: credentials %s need username and "
		    "password_file, password_env or password_credential", tc->where, n->value);
		return;
	}
	diag_strdup(d, tc->block, tc->where, &t->user, c->username);
	if (c->password_file != NULL)
		diag_strdup(d, tc->block, tc->where, &t->pw_file,
		    c->password_file);
	else
		diag_strdup(d, tc->block, tc->where, &t->pw_env,
		    c->password_env);
}

/* BMCs are weak: one request in flight per BMC, and nothing else. */
static void
inflight_conf(const struct wp_target_conf *tc, struct diag *d)
{
	long n = 1;

	if (ycheck_long(d, tc->block, "max_inflight", tc->where, 1, 1000,
	    &n) == 0 && n != 1)
		diag_at(d, ynode_get(tc->block, "max_inflight"), false,
		    "%s: max_inflight %ld: the Redfish driver keeps one "
		    "request in flight per BMC; only 1 is supported (the "
		    "global cap is collector.http_max_inflight)", tc->where, n);
}

/* system: the ComputerSystem of a BMC that manages several (a node of a
 * two-node blade); nodes only. */
static void
system_conf(struct rf_target *t, const struct wp_target_conf *tc,
    struct diag *d)
{
	const char *s = ycheck_scalar(d, tc->block, "system", tc->where,
	    false);

	if (s == NULL)
		return;
	if (t->mode == RF_MODE_PDU)
		diag_at(d, ynode_get(tc->block, "system"), false, "%s: system: "
		    "is for a node's bmc block (the ComputerSystem Id a "
		    "multi-node BMC reports), not a PDU", tc->where);
	else if (*s == '\0' || strlen(s) >= sizeof(t->system) ||
	    strpbrk(s, "/?#") != NULL)
		diag_at(d, ynode_get(tc->block, "system"), false, "%s: system "
		    "'%s': a ComputerSystem Id (1..63 characters, no '/', '?' "
		    "or '#')", tc->where, s);
	else
		snprintf(t->system, sizeof(t->system), "%s", s);
}

/* mode: poll (default), push or auto: a node's BMC's readings pushed over
 * the EventService's SSE stream, polled while it is down. */
static void
mode_conf(struct rf_target *t, const struct wp_target_conf *tc,
    struct diag *d)
{
	static const char *const modes[] = { "poll", "push", "auto", NULL };
	const char *m = ycheck_enum(d, tc->block, "mode", tc->where, modes,
	    "poll, push, auto");

	t->push = m == NULL || strcasecmp(m, "poll") == 0 ? RF_PUSH_POLL :
	    strcasecmp(m, "push") == 0 ? RF_PUSH_PUSH : RF_PUSH_AUTO;
	if (t->push != RF_PUSH_POLL && t->mode == RF_MODE_PDU)
		diag_at(d, ynode_get(tc->block, "mode"), false, "%s: mode %s "
		    "is for a node's bmc block, not a PDU", tc->where, m);
}

/* Reads tc's block into t; every problem to d (validate and target_new
 * read it alike). */
static void
rf_conf(struct rf_target *t, const struct wp_target_conf *tc,
    struct diag *d)
{
	static const char *const auths[] = { "session", "basic", "none",
	    NULL };
	const struct ynode *b = tc->block, *url;
	struct wp_err err = { 0 };
	const char *auth;
	bool ins = false, tls = true;

	driver_check_keys(tc, b, tc->where, bmc_keys, d);
	if ((url = ycheck_typed(d, b, "url", YN_SCALAR, tc->where,
	    true)) != NULL) {
		if (url_check(url->value, &tls, &err) < 0)
			diag_err(d, url, tc->where, &err, false);
		else
			url_base(t, tc, url, d);
	}
	auth = ycheck_enum(d, b, "auth", tc->where, auths,
	    "session, basic, none");
	t->auth = auth == NULL || strcasecmp(auth, "session") == 0 ?
	    AUTH_SESSION : strcasecmp(auth, "basic") == 0 ? AUTH_BASIC :
	    AUTH_NONE;
	if (url != NULL && !tls && ynode_get(b, "credentials") != NULL)
		diag_at(d, url, true, "%s: plain http:// URL: credentials "
		    "travel in clear text; use https://", tc->where);
	ycheck_bool(d, b, "insecure", tc->where, &ins);
	t->insecure = ins;
	diag_strdup(d, tc->block, tc->where, &t->ca_file,
	    ycheck_scalar(d, b, "ca_file", tc->where, false));
	diag_strdup(d, tc->block, tc->where, &t->pin,
	    ycheck_scalar(d, b, "pin_sha256", tc->where, false));
	t->timeout = tc->timeout > 0 ? tc->timeout : 10 * WP_SEC;
	inflight_conf(tc, d);
	system_conf(t, tc, d);
	mode_conf(t, tc, d);
	t->interval = tc->interval;
	t->gpu_inband = tc->node_gpu_inband;
	creds_conf(t, tc, auth != NULL || ynode_get(b, "auth") == NULL, d);
}

static void target_free(void *state);

static struct rf_target *
rf_alloc(const struct wp_target_conf *tc)
{
	struct rf_target *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s", tc->name);
	t->mode = tc->kind && strcmp(tc->kind, "pdu") == 0 ? RF_MODE_PDU :
	    RF_MODE_NODE;
	rf_readings_init(&t->polled);
	return t;
}

static int
validate(const struct wp_target_conf *tc, struct diag *d)
{
	size_t n0 = d->n_err;
	struct rf_target *t;

	if ((t = rf_alloc(tc)) == NULL) {
		diag_at(d, tc->block, false, "%s: out of memory", tc->where);
		return 1;
	}
	rf_conf(t, tc, d);
	target_free(t);
	return (int)(d->n_err - n0);
}

static void on_ready(struct rf_user *u);
static void on_answer(struct rf_user *u, const struct http_resp *r,
    const struct wp_err *e);
static void on_failed(struct rf_user *u, const struct wp_err *e);

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	struct diag d = { .main_file = "" };
	struct rf_bmc_conf bc;
	struct rf_target *t;

	*state = NULL;
	if ((t = rf_alloc(tc)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	rf_conf(t, tc, &d);
	if (diag_take_err(&d, err) == -1) {
		err_prefix(err, "redfish %s", tc->name);
		target_free(t);
		return -1;
	}
	bc = (struct rf_bmc_conf){ t->base, t->auth, t->user, t->pw_file,
	    t->pw_env, t->ca_file, t->pin, t->insecure };
	if ((t->bmc = rf_bmc_get(&bc, svc, err)) == NULL) {
		target_free(t);
		return -1;
	}
	if (t->push != RF_PUSH_POLL && (t->stream = rf_stream_new(t->name,
	    t->push, t->interval, t->gpu_inband, svc)) == NULL) {
		target_free(t);
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	t->u.ready = on_ready;
	t->u.answer = on_answer;
	t->u.failed = on_failed;
	t->u.name = t->name;
	t->u.timeout = t->timeout;
	if (rf_bmc_users(t->bmc) > 1)
		log_debug("redfish %s: shares %s with %d other target%s",
		    t->name, t->base, rf_bmc_users(t->bmc) - 1,
		    rf_bmc_users(t->bmc) > 2 ? "s" : "");
	*state = t;
	return 0;
}

static void
describe(void *state, char *buf, size_t len)
{
	struct rf_target *t = state;

	snprintf(buf, len, "redfish %s (%s%s%s, %s)", t->name, t->base,
	    t->system[0] ? " system " : "", t->system, t->auth ==
	    AUTH_SESSION ? "session" : t->auth == AUTH_BASIC ? "basic" :
	    "no auth");
}

/* ---- the end of a poll ---- */

static void
finish_poll(struct rf_target *t, int rc, const struct wp_err *err)
{
	struct wp_poll *p = t->poll;

	t->poll = NULL;
	t->step = T_IDLE;
	/* the readings are rebuilt every poll: hold no memory in between */
	rf_readings_fini(&t->polled);
	rf_bmc_done(t->bmc, &t->u);
	if (p != NULL)
		poll_done(p, rc, err);
}

static void
fail(struct rf_target *t, const struct wp_err *err)
{
	struct wp_err e = *err;

	if (strncmp(e.msg, "redfish ", 8) != 0)
		err_prefix(&e, "redfish %s", t->name);
	finish_poll(t, -1, &e);
}

/* ---- discovery and polling ---- */

/* Per-series stale state; 0 or -1 on ENOMEM. */
static int
plan_stale(struct rf_target *t)
{
	free(t->stale);
	t->stale = calloc(t->plan->n_series + 1, sizeof(*t->stale));
	return t->stale == NULL ? -1 : 0;
}

static void
drop_discovery(struct rf_target *t)
{
	rf_disc_free(t->disc);
	t->disc = NULL;
	rf_stream_forget_plan(t->stream);
	rf_plan_free(t->plan);
	t->plan = NULL;
	t->disc_done = false;
}

static int
fetch_next(struct rf_target *t, struct wp_err *err)
{
	char path[RF_URI_MAX + 200];
	const char *uri = t->plan->uris[t->next_uri];
	const char *sel = t->plan->select[t->next_uri];
	size_t n;

	t->step = T_FETCH;
	n = str_copy(path, sizeof(path), uri);
	n = str_append(path, sizeof(path), n, sel[0] == '\0' ? "" :
	    strchr(uri, '?') ? "&$select=" : "?$select=");
	str_append(path, sizeof(path), n, sel);
	return rf_bmc_request(t->bmc, &t->u, "GET", path, false, err);
}
/* Flags a series stale when it stays put while the others move. */
static void
check_stale(struct rf_target *t, size_t i, struct wp_sample *s, bool others)
{
	struct rf_stale *st = &t->stale[i];

	if (s->value == st->last)
		st->same++;
	else
		st->same = 0;
	st->last = s->value;
	if (st->same >= RF_STALE_POLLS && others)
		s->flags |= WP_F_STALE;
}

static void
check_skew(struct rf_target *t, const struct wp_sample *s)
{
	wp_time now = clock_real(), d;

	if (s->device_time == 0 || t->skew_logged)
		return;
	d = s->device_time - now;
	if (d < 0)
		d = -d;
	if (d > RF_SKEW_MAX) {
		log_warnx("redfish %s: BMC clock differs from ours by %.0f s "
		    "(ReadingTime)", t->name, (double)d / WP_SEC);
		t->skew_logged = true;
	}
}

/* Absurd values left out this poll: one line when the reason changes. */
static void
note_dropped(struct rf_target *t)
{
	const struct rf_readings *p = &t->polled;

	if (p->dropped > 0 && strcmp(p->dropped_why, t->dropped_why) != 0)
		log_warnx("redfish %s: %zu absurd value(s) left out, the rest "
		    "kept; first: %s", t->name, p->dropped, p->dropped_why);
	str_copy(t->dropped_why, sizeof(t->dropped_why),
	    p->dropped > 0 ? p->dropped_why : "");
}

static void
emit(struct rf_target *t)
{
	struct wp_sample *s;
	struct wp_err e;
	size_t i, n = t->plan->n_series, ok = 0;
	bool moving = false;

	if ((s = calloc(n + 1, sizeof(*s))) == NULL) {
		err_set(&e, WP_E_INTERNAL, "out of memory");
		fail(t, &e);
		return;
	}
	for (i = 0; i < n; i++) {
		if (rf_series_sample(&t->plan->series[i], &t->polled, &s[i],
		    &e) < 0) {
			log_debug("redfish %s: %s", t->name, e.msg);
			s[i].series[0] = '\0';
			continue;
		}
		rf_identity_labels(t->plan, &s[i]);
		if (s[i].value != t->stale[i].last)
			moving = true;
	}
	for (i = 0; i < n; i++) {
		if (s[i].series[0] == '\0')
			continue;
		check_stale(t, i, &s[i], moving);
		check_skew(t, &s[i]);
		if (s[i].boundary == WP_B_GPU && t->gpu_inband)
			s[i].flags |= WP_F_CROSSCHECK;
		if (poll_add(t->poll, &s[i]) == 0)
			ok++;
	}
	free(s);
	note_dropped(t);
	if (ok == 0) {
		err_set(&e, WP_E_PROTOCOL, "no usable reading this poll");
		fail(t, &e);
		return;
	}
	finish_poll(t, 0, NULL);
}

static int
on_fetch(struct rf_target *t, const struct http_resp *r, struct wp_err *err)
{
	const char *uri = t->plan->uris[t->next_uri];
	struct json_object *o;

	if (r->status == 404) {
		err_set(err, WP_E_PROTOCOL, "%s: HTTP 404, rediscovering", uri);
		drop_discovery(t);	/* the tree changed: walk again */
		return -1;
	}
	if (r->status != 200)
		return err_set(err, http_status_class(r->status),
		    "%s: HTTP %ld", uri, r->status);
	if ((o = rf_json_parse(r->body, r->len, err)) == NULL) {
		err_prefix(err, "%s", uri);
		return -1;
	}
	if (rf_parse_resource(uri, o, &t->polled, err) < 0) {
		json_object_put(o);
		return -1;
	}
	json_object_put(o);
	t->next_uri++;
	return 0;
}

/* An answer to a walk request (r NULL: transport error e). */
static int
on_walk(struct rf_target *t, const struct http_resp *r,
    const struct wp_err *e, struct wp_err *err)
{
	struct json_object *o = NULL;
	struct wp_err fe = { 0 };
	int rc;

	if (r == NULL)
		fe = *e;
	else if (r->status != 200)
		err_set(&fe, http_status_class(r->status), "HTTP %ld",
		    r->status);
	else
		o = rf_json_parse(r->body, r->len, &fe);
	rc = rf_disc_feed(t->disc, o, &fe, err);
	json_object_put(o);
	return rc;
}

/* ---- the step machine, in the target's turn on its BMC ---- */

static void
on_answer(struct rf_user *u, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_target *t = (struct rf_target *)u;
	struct wp_err err = { 0 };
	int rc = 0;

	if (t->step == T_WALK) {
		if (on_walk(t, r, e, &err) < 0) {
			drop_discovery(t);	/* the root: start over */
			fail(t, &err);
			return;
		}
	} else if (t->step == T_FETCH) {
		if (r == NULL) {
			fail(t, e);
			return;
		}
		if (r->status == 401) {
			err_set(&err, WP_E_AUTH, "HTTP 401 after login");
			fail(t, &err);
			return;
		}
		if ((rc = on_fetch(t, r, &err)) < 0) {
			fail(t, &err);
			return;
		}
	}
	target_step(t);
}

static void
on_failed(struct rf_user *u, const struct wp_err *e)
{
	struct rf_target *t = (struct rf_target *)u;

	if (t->poll != NULL)
		fail(t, e);
	else
		t->step = T_IDLE;
}

static void
on_ready(struct rf_user *u)
{
	target_step((struct rf_target *)u);
}

static void
step_walk_done(struct rf_target *t)
{
	const struct rf_plan *found;
	const char *const *notes;
	const char *why;
	struct wp_err err;
	size_t i, n, nd;

	n = rf_disc_notes(t->disc, &notes);
	for (i = 0; i < n; i++)
		log_debug("redfish %s: %s", t->name, notes[i]);
	if (rf_disc_plan(t->disc, &found, &err) < 0) {
		drop_discovery(t);
		t->disc_at = clock_mono();	/* retry at the next poll */
		fail(t, &err);
		return;
	}
	if (found->dangling > 0)
		log_info("redfish %s: %d unreadable links during discovery "
		    "(last: %s)", t->name, found->dangling,
		    rf_disc_last_problem(t->disc));
	if ((nd = rf_disc_dropped(t->disc, &why)) > 0)
		log_warnx("redfish %s: %zu absurd value(s) left out during "
		    "discovery, the rest kept; first: %s", t->name, nd, why);
	for (i = 0; i < n; i++)
		if (strncmp(notes[i], "no wall source", 14) == 0 ||
		    strncmp(notes[i], "no system", 9) == 0)
			log_warnx("redfish %s: %s", t->name, notes[i]);
	/* Keep only what polling needs; the walk is done with. */
	t->plan = rf_plan_compact(found);
	log_info("redfish %s: %s %s firmware %s: %zu series from %zu "
	    "resources (discovery: %d requests)", t->name, found->vendor,
	    found->model, found->firmware, found->n_series, t->plan ?
	    t->plan->n_uris : 0, rf_disc_requests(t->disc));
	rf_disc_free(t->disc);
	t->disc = NULL;
	if (t->plan == NULL || plan_stale(t) < 0) {
		drop_discovery(t);
		err_set(&err, WP_E_INTERNAL, "out of memory");
		fail(t, &err);
		return;
	}
	t->disc_done = true;
	t->disc_at = clock_mono();
	t->next_uri = 0;
	rf_readings_clear(&t->polled);
	target_step(t);
}

/* The walk's next request, or its end. */
static void
step_walk(struct rf_target *t)
{
	struct wp_err err = { 0 };
	const char *next;

	if (t->disc == NULL && (t->disc = rf_disc_new(t->mode,
	    t->system)) == NULL) {
		err_set(&err, WP_E_INTERNAL, "out of memory");
		fail(t, &err);
		return;
	}
	if ((next = rf_disc_next(t->disc)) == NULL) {
		step_walk_done(t);
		return;
	}
	t->step = T_WALK;
	if (rf_bmc_request(t->bmc, &t->u, "GET", next, true, &err) < 0)
		fail(t, &err);
}

static void
target_step(struct rf_target *t)
{
	struct wp_err err = { 0 };

	/* Without a poll (cancelled), a walk goes on. */
	if (t->disc_done && t->poll != NULL &&
	    clock_mono() - t->disc_at > RF_REDISCOVER)
		drop_discovery(t);
	if (!t->disc_done) {
		step_walk(t);
		return;
	}
	if (t->poll == NULL) {
		t->step = T_IDLE;	/* ready for the next poll */
		rf_bmc_done(t->bmc, &t->u);
		return;
	}
	if (t->next_uri < t->plan->n_uris) {
		if (fetch_next(t, &err) < 0)
			fail(t, &err);
		return;
	}
	emit(t);
}

static int
poll_start(void *state, struct wp_poll *poll)
{
	struct rf_target *t = state;

	if (t->stream != NULL && t->disc_done) {
		rf_stream_kick(t->stream, t->plan, t->bmc);
		if (rf_stream_fresh(t->stream)) {
			poll_done(poll, 0, NULL);	/* the stream has it */
			return 0;
		}
	}
	t->poll = poll;
	t->u.relogged = false;
	t->next_uri = 0;
	rf_readings_clear(&t->polled);
	if (rf_bmc_serving(t->bmc, &t->u))
		return 0;	/* a walk still running resumes this poll */
	t->step = T_IDLE;
	rf_bmc_want(t->bmc, &t->u);
	return 0;
}

static void
poll_cancel(void *state, struct wp_poll *poll)
{
	struct rf_target *t = state;

	(void)poll;
	t->poll = NULL;
	/* A walk in flight goes on (see the top); a fetch, or a wait for
	 * the BMC's turn, ends. */
	if (t->step != T_WALK) {
		rf_bmc_leave(t->bmc, &t->u);
		t->step = T_IDLE;
	}
}

static void
target_free(void *state)
{
	struct rf_target *t = state;

	if (t == NULL)
		return;
	log_debug("redfish %s: closing", t->name);
	rf_stream_free(t->stream);	/* its subscription's DELETE first */
	t->stream = NULL;		/* drop_discovery must not reach it */
	if (t->bmc != NULL) {
		rf_bmc_leave(t->bmc, &t->u);
		rf_bmc_unref(t->bmc);
	}
	drop_discovery(t);
	rf_readings_fini(&t->polled);
	free(t->stale);
	free(t->user);
	free(t->pw_file);
	free(t->pw_env);
	free(t->ca_file);
	free(t->pin);
	free(t);
}

static void
push_post(void *state, const char *body, size_t len, const char *peer)
{
	struct rf_target *t = state;

	rf_stream_post(t->stream, body, len, peer);
}

static void
push_attach(void *state, const struct wp_push_sink *sink)
{
	struct rf_target *t = state;

	if (t->stream != NULL)
		rf_stream_attach(t->stream, sink);
}

const struct wp_driver redfish_driver = {
	.name = "redfish",
	.validate = validate,
	.target_new = target_new,
	.poll_start = poll_start,
	.poll_cancel = poll_cancel,
	.target_free = target_free,
	.describe = describe,
	.probe = redfish_probe,
	.push_attach = push_attach,
	.push_post = push_post,
};
