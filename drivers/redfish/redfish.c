/*
 * redfish.c - the per-BMC state machine on the shared HTTP transport.
 *
 * One struct rf_target per BMC (or Redfish PDU), one keep-alive connection,
 * at most one request in flight.  A poll runs these steps, each one request
 * at a time, resuming from the HTTP callback:
 *   stale  DELETE a session a previous run left behind (state file)
 *   login  POST SessionService/Sessions (405: the legacy /redfish/v1/Sessions)
 *   walk   discovery (redfish_discover.c); its plan is copied into a
 *          compact one (rf_plan_compact: only what polling needs) and the
 *          walker is freed; a fresh walk runs after a 404, after
 *          RF_REDISCOVER and on reload (a new target)
 *   fetch  GET each resource of the plan ($select when supported)
 * then samples are built (rf_series_sample) and poll_done() is called.
 * A 401 drops the session and logs in again once per poll.
 *
 * stale, login and walk are not bound to one poll: when the core cancels a
 * poll (its deadline passed) during one of them, the request is left to
 * finish in the background (its own, longer timeout) so that a session the
 * BMC created is known and deleted later, and a discovery longer than one
 * interval still completes; the next poll resumes from there.  Only fetch
 * requests are cancelled.  max_inflight: one request per BMC (only 1 is
 * accepted in the config).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../collector/lib/diag.h"
#include "../../collector/lib/driver.h"
#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/loop.h"
#include "../../collector/lib/secret.h"
#include "../../collector/lib/url.h"
#include "../../collector/lib/ycheck.h"
#include "../../collector/lib/ynode.h"
#include "redfish.h"
#include "redfish_discover.h"
#include "redfish_parse.h"
#include "redfish_probe.h"

#define RF_REDISCOVER	(4 * 3600 * WP_SEC)
#define RF_STALE_POLLS	30	/* identical readings while others move */
#define RF_SKEW_MAX	(60 * WP_SEC)
#define RF_SLOW_TIMEOUT	(10 * WP_SEC)	/* login, discovery, stale DELETE */
#define RF_LEGACY_SESSIONS "/redfish/v1/Sessions"
#define RF_SESSIONS	"/redfish/v1/SessionService/Sessions"

enum rf_auth { AUTH_SESSION, AUTH_BASIC, AUTH_NONE };
enum rf_step { ST_IDLE, ST_STALE, ST_LOGIN, ST_WALK, ST_FETCH, ST_LOGOUT };

struct rf_stale {
	double	 last;
	int	 same;
};

struct rf_target {
	char		 name[128];
	char		 base[256];	/* scheme://host[:port] */
	int		 mode;		/* RF_MODE_NODE / RF_MODE_PDU */
	int		 auth;
	char		*user;
	char		*password;	/* loaded secret, or NULL; secret_free */
	char		*pw_file;	/* where it comes from (one of two) */
	char		*pw_env;
	char		*ca_file, *pin;
	bool		 insecure, gpu_inband;
	wp_time		 timeout;
	const struct wp_services *svc;	/* -> svc_copy */
	struct wp_services svc_copy;
	struct http_conn *conn;
	/* session */
	char		*token;		/* X-Auth-Token, or NULL; token_clear */
	char		 session_uri[RF_URI_MAX];
	char		*state_file;	/* or NULL: sessions not kept */
	bool		 stale_checked;
	const char	*login_path;
	/* discovery: the walker while it runs, then only the plan */
	struct rf_disc	*disc;
	struct rf_plan	*plan;		/* rf_plan_compact's; rf_plan_free */
	wp_time		 disc_at;
	bool		 disc_done;
	/* poll */
	struct wp_poll	*poll;
	int		 step;
	bool		 relogged;
	size_t		 next_uri;	/* in plan->uris */
	struct rf_readings polled;	/* kept across polls, emptied */
	struct rf_stale	*stale;
	bool		 skew_logged, insecure_warned;
};

static void step(struct rf_target *t);

/* ---- config ---- */

static const char *const bmc_keys[] = { "url", "credentials", "auth",
	"ca_file", "pin_sha256", "insecure", "max_inflight", "name", NULL };

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

static void
dup_str(char **dst, const char *s, const struct wp_target_conf *tc,
    struct diag *d)
{
	if (s != NULL && (*dst = strdup(s)) == NULL)
		diag_at(d, tc->block, false, "%s: out of memory", tc->where);
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
		    "password_file or password_env", tc->where, n->value);
		return;
	}
	dup_str(&t->user, c->username, tc, d);
	if (c->password_file != NULL)
		dup_str(&t->pw_file, c->password_file, tc, d);
	else
		dup_str(&t->pw_env, c->password_env, tc, d);
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
	dup_str(&t->ca_file, ycheck_scalar(d, b, "ca_file", tc->where, false),
	    tc, d);
	dup_str(&t->pin, ycheck_scalar(d, b, "pin_sha256", tc->where, false),
	    tc, d);
	t->timeout = tc->timeout > 0 ? tc->timeout : 10 * WP_SEC;
	inflight_conf(tc, d);
	t->gpu_inband = tc->node_gpu_inband;
	creds_conf(t, tc, auth != NULL || ynode_get(b, "auth") == NULL, d);
}

static void
state_path(struct rf_target *t, const char *dir)
{
	char safe[128];
	size_t i;

	snprintf(safe, sizeof(safe), "%s", t->name);
	for (i = 0; safe[i]; i++)
		if (!((safe[i] >= 'a' && safe[i] <= 'z') || (safe[i] >= 'A' &&
		    safe[i] <= 'Z') || (safe[i] >= '0' && safe[i] <= '9') ||
		    safe[i] == '-' || safe[i] == '.'))
			safe[i] = '_';
	free(t->state_file);
	if (asprintf(&t->state_file, "%s/redfish-session-%s", dir, safe) < 0)
		t->state_file = NULL;
}

/* The session token is a secret: wiped when dropped. */
static void
token_clear(struct rf_target *t)
{
	if (t->token == NULL)
		return;
	explicit_bzero(t->token, strlen(t->token));
	free(t->token);
	t->token = NULL;
}

static int
token_set(struct rf_target *t, const char *tok)
{
	token_clear(t);
	return tok[0] != '\0' && (t->token = strdup(tok)) != NULL ? 0 : -1;
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
	t->svc = &t->svc_copy;
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

static int
target_new(const struct wp_target_conf *tc, const struct wp_services *svc,
    void **state, struct wp_err *err)
{
	struct diag d = { .main_file = "" };
	struct rf_target *t;

	*state = NULL;
	if ((t = rf_alloc(tc)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (svc != NULL)
		t->svc_copy = *svc;	/* keep our own copy of the pointers */
	rf_conf(t, tc, &d);
	if (diag_to_err(&d, err) == -1) {
		diag_fini(&d);
		err_prefix(err, "redfish %s", tc->name);
		target_free(t);
		return -1;
	}
	diag_fini(&d);
	if (svc && svc->state_dir)
		state_path(t, svc->state_dir);
	*state = t;
	return 0;
}

static void
describe(void *state, char *buf, size_t len)
{
	struct rf_target *t = state;

	snprintf(buf, len, "redfish %s (%s, %s)", t->name, t->base,
	    t->auth == AUTH_SESSION ? "session" : t->auth == AUTH_BASIC ?
	    "basic" : "no auth");
}

/* ---- requests ---- */

static void on_resp(void *arg, const struct http_resp *r,
    const struct wp_err *e);

static int
request(struct rf_target *t, const char *method, const char *path,
    const char *body, struct wp_err *err)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600];
	const char *hdrs[3] = { "Accept: application/json", NULL, NULL };
	int rc;

	if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0)
		snprintf(url, sizeof(url), "%s", path);
	else
		snprintf(url, sizeof(url), "%s%s", t->base, path);
	o.method = method;
	o.url = url;
	o.body = body;
	if (t->auth == AUTH_SESSION && t->token != NULL && t->step != ST_LOGIN) {
		snprintf(hdr, sizeof(hdr), "X-Auth-Token: %s", t->token);
		hdrs[1] = hdr;
	}
	if (t->auth == AUTH_BASIC) {
		o.basic_user = t->user;
		o.basic_password = t->password;
	}
	o.headers = hdrs;
	o.ca_file = t->ca_file;
	o.pin_sha256 = t->pin;
	o.insecure = t->insecure;
	o.timeout = t->timeout;
	if (t->step == ST_LOGIN || t->step == ST_WALK || t->step == ST_STALE)
		o.timeout = t->timeout > RF_SLOW_TIMEOUT ? t->timeout :
		    RF_SLOW_TIMEOUT;
	if (t->insecure && !t->insecure_warned) {
		log_warnx("redfish %s: TLS verification is off (insecure: true)",
		    t->name);
		t->insecure_warned = true;
	}
	rc = http_start(t->conn, &o, on_resp, t, err);
	explicit_bzero(hdr, sizeof(hdr));	/* copied by http_start */
	return rc;
}

static void
finish_poll(struct rf_target *t, int rc, const struct wp_err *err)
{
	struct wp_poll *p = t->poll;

	t->poll = NULL;
	t->step = ST_IDLE;
	/* the readings are rebuilt every poll: hold no memory in between */
	rf_readings_fini(&t->polled);
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

/* ---- sessions ---- */

static void
save_session(struct rf_target *t)
{
	char tmp[600];
	FILE *f;
	int fd;

	if (t->state_file == NULL)
		return;
	if (t->session_uri[0] == '\0') {
		unlink(t->state_file);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s", t->state_file);
	if (strrchr(tmp, '/') != NULL) {	/* the state dir may be new */
		*strrchr(tmp, '/') = '\0';
		(void)mkdir(tmp, 0700);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", t->state_file);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		log_warn("redfish %s: cannot save session state", t->name);
		return;
	}
	fprintf(f, "%s\n%s\n%s\n", t->base, t->session_uri,
	    t->token ? t->token : "");
	if (fclose(f) != 0 || rename(tmp, t->state_file) != 0)
		log_warn("redfish %s: cannot save session state", t->name);
}

/* Reads a stale session left by a previous run into session_uri/token. */
static bool
load_stale(struct rf_target *t)
{
	char base[256] = "", uri[RF_URI_MAX] = "", tok[512] = "";
	FILE *f;

	if (t->state_file == NULL || (f = fopen(t->state_file, "r")) == NULL)
		return false;
	if (fgets(base, sizeof(base), f) && fgets(uri, sizeof(uri), f) &&
	    fgets(tok, sizeof(tok), f)) {
		base[strcspn(base, "\n")] = uri[strcspn(uri, "\n")] = '\0';
		tok[strcspn(tok, "\n")] = '\0';
	}
	fclose(f);
	if (strcmp(base, t->base) != 0 || uri[0] == '\0') {
		unlink(t->state_file);
		return false;
	}
	snprintf(t->session_uri, sizeof(t->session_uri), "%s", uri);
	token_set(t, tok);
	explicit_bzero(tok, sizeof(tok));
	return true;
}

/* Loads the password from its file or variable once; 0 or -1. */
static int
load_password(struct rf_target *t, struct wp_err *err)
{
	if (t->password != NULL || t->user == NULL || t->auth == AUTH_NONE)
		return 0;
	if (t->pw_file == NULL && t->pw_env == NULL)
		return 0;
	t->password = secret_load(t->pw_file, t->pw_env, err);
	return t->password == NULL ? -1 : 0;
}

static char *
login_body(struct rf_target *t)
{
	struct json_object *o = json_object_new_object();
	char *s;

	json_object_object_add(o, "UserName", json_object_new_string(t->user));
	json_object_object_add(o, "Password",
	    json_object_new_string(t->password ? t->password : ""));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static int
start_login(struct rf_target *t, const char *path, struct wp_err *err)
{
	char *body;
	int rc;

	t->step = ST_LOGIN;
	t->login_path = path;
	if ((body = login_body(t)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	rc = request(t, "POST", path, body, err);
	explicit_bzero(body, strlen(body));
	free(body);
	return rc;
}

/* Path part of a Location header (absolute or relative). */
static void
uri_path(const char *loc, char *out, size_t len)
{
	const char *p = loc;

	if (strncmp(p, "http://", 7) == 0 || strncmp(p, "https://", 8) == 0) {
		p = strstr(p, "://") + 3;
		p += strcspn(p, "/");
	}
	snprintf(out, len, "%s", p);
}

static int
on_login(struct rf_target *t, const struct http_resp *r, struct wp_err *err)
{
	char loc[RF_URI_MAX], tok[512];
	struct json_object *o;
	struct wp_err pe;
	const char *id;
	int rc;

	if (r->status == 405 && strcmp(t->login_path, RF_SESSIONS) == 0)
		return start_login(t, RF_LEGACY_SESSIONS, err) < 0 ? -1 : 1;
	if (r->status == 401 || r->status == 403)
		return err_set(err, WP_E_AUTH, "login refused (HTTP %ld)",
		    r->status);
	if (r->status != 200 && r->status != 201 && r->status != 204)
		return err_set(err, http_status_class(r->status),
		    "login: HTTP %ld", r->status);
	if (http_resp_header(r, "X-Auth-Token", tok, sizeof(tok)) < 0)
		tok[0] = '\0';
	rc = token_set(t, tok);
	explicit_bzero(tok, sizeof(tok));
	if (rc < 0)
		return err_set(err, WP_E_PROTOCOL, "login: no X-Auth-Token");
	t->session_uri[0] = '\0';
	if (http_resp_header(r, "Location", loc, sizeof(loc)) == 0 && loc[0])
		uri_path(loc, t->session_uri, sizeof(t->session_uri));
	else if (r->len > 0 && (o = rf_json_parse(r->body, r->len, &pe))) {
		if ((id = rf_link(o, NULL)) != NULL)
			snprintf(t->session_uri, sizeof(t->session_uri), "%s", id);
		json_object_put(o);
	}
	if (t->session_uri[0] == '\0')
		log_warnx("redfish %s: session has no URI (Location or "
		    "@odata.id); it cannot be deleted", t->name);
	save_session(t);
	log_debug("redfish %s: logged in, session %s", t->name,
	    t->session_uri);
	return 0;
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
	rf_plan_free(t->plan);
	t->plan = NULL;
	t->disc_done = false;
}

static int
fetch_next(struct rf_target *t, struct wp_err *err)
{
	char path[RF_URI_MAX + 200];
	const char *sel = t->plan->select[t->next_uri];

	t->step = ST_FETCH;
	snprintf(path, sizeof(path), "%s%s%s", t->plan->uris[t->next_uri],
	    sel[0] ? "?$select=" : "", sel);
	return request(t, "GET", path, NULL, err);
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

static int
on_walk(struct rf_target *t, const struct http_resp *r, struct wp_err *err)
{
	struct json_object *o = NULL;
	struct wp_err fe = { 0 };
	int rc;

	if (r->status != 200)
		err_set(&fe, http_status_class(r->status), "HTTP %ld",
		    r->status);
	else
		o = rf_json_parse(r->body, r->len, &fe);
	rc = rf_disc_feed(t->disc, o, &fe, err);
	json_object_put(o);
	return rc;
}

/* ---- the step machine ---- */

static void
on_resp(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_target *t = arg;
	struct wp_err err = { 0 };
	int rc = 0, was = t->step;

	if (r == NULL) {
		if (was == ST_STALE) {	/* best effort */
			t->step = ST_IDLE;
			step(t);
			return;
		}
		if (was == ST_WALK) {
			rc = rf_disc_feed(t->disc, NULL, e, &err);
			if (rc == 0) {
				t->step = ST_IDLE;
				step(t);
				return;
			}
			drop_discovery(t);	/* the root: start over */
			fail(t, &err);
			return;
		}
		fail(t, e);
		return;
	}
	if (r->status == 401 && was != ST_LOGIN && was != ST_STALE &&
	    t->auth == AUTH_SESSION && !t->relogged) {
		log_info("redfish %s: session expired (401), logging in again",
		    t->name);
		token_clear(t);		/* the BMC dropped it already */
		t->session_uri[0] = '\0';
		save_session(t);
		t->relogged = true;
		if (was == ST_WALK)
			drop_discovery(t);
		t->step = ST_IDLE;
		step(t);
		return;
	}
	if (r->status == 401 && was != ST_LOGIN && was != ST_STALE) {
		err_set(&err, WP_E_AUTH, "HTTP 401 after login");
		fail(t, &err);
		return;
	}
	switch (was) {
	case ST_STALE:
		log_info("redfish %s: deleted the session a previous run left "
		    "(HTTP %ld)", t->name, r->status);
		token_clear(t);
		t->session_uri[0] = '\0';
		save_session(t);
		break;
	case ST_LOGIN:
		rc = on_login(t, r, &err);
		if (rc == 1)
			return;		/* retried at the legacy URI */
		break;
	case ST_WALK:
		rc = on_walk(t, r, &err);
		break;
	case ST_FETCH:
		rc = on_fetch(t, r, &err);
		break;
	default:
		return;
	}
	if (rc < 0) {
		if (was == ST_WALK)
			drop_discovery(t);	/* the root: start over */
		fail(t, &err);
		return;
	}
	t->step = ST_IDLE;
	step(t);
}

static void
step_walk_done(struct rf_target *t)
{
	const struct rf_plan *found;
	struct wp_err err;

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
	/* Keep only what polling needs; the walk is done with. */
	t->plan = rf_plan_compact(found);
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
	log_info("redfish %s: %s %s firmware %s: %zu series from %zu "
	    "resources", t->name, t->plan->vendor, t->plan->model,
	    t->plan->firmware, t->plan->n_series, t->plan->n_uris);
	t->next_uri = 0;
	rf_readings_clear(&t->polled);
	step(t);
}

static void
step(struct rf_target *t)
{
	struct wp_err err = { 0 };
	const char *next;

	if (t->auth == AUTH_BASIC && load_password(t, &err) < 0) {
		fail(t, &err);
		return;
	}
	/* Without a poll (cancelled), stale, login and walk go on. */
	if (t->auth == AUTH_SESSION && !t->stale_checked) {
		t->stale_checked = true;
		if (load_stale(t)) {
			t->step = ST_STALE;
			if (request(t, "DELETE", t->session_uri, NULL, &err) < 0)
				t->step = ST_IDLE;
			else
				return;
			token_clear(t);
			t->session_uri[0] = '\0';
		}
	}
	if (t->auth == AUTH_SESSION && t->token == NULL) {
		if (load_password(t, &err) < 0 ||
		    start_login(t, RF_SESSIONS, &err) < 0)
			fail(t, &err);
		return;
	}
	if (t->disc_done && t->poll != NULL &&
	    clock_mono() - t->disc_at > RF_REDISCOVER)
		drop_discovery(t);
	if (!t->disc_done) {
		if (t->disc == NULL && (t->disc = rf_disc_new(t->mode)) == NULL) {
			err_set(&err, WP_E_INTERNAL, "out of memory");
			fail(t, &err);
			return;
		}
		if ((next = rf_disc_next(t->disc)) == NULL) {
			step_walk_done(t);
			return;
		}
		t->step = ST_WALK;
		if (request(t, "GET", next, NULL, &err) < 0)
			fail(t, &err);
		return;
	}
	if (t->poll == NULL) {
		t->step = ST_IDLE;	/* ready for the next poll */
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
	struct wp_err err;

	if (t->conn == NULL && (t->conn = http_conn_new(t->svc->http,
	    &err)) == NULL) {
		poll_done(poll, -1, &err);
		return 0;
	}
	t->poll = poll;
	t->relogged = false;
	t->next_uri = 0;
	rf_readings_clear(&t->polled);
	if (http_busy(t->conn))
		return 0;	/* a login still running resumes this poll */
	t->step = ST_IDLE;
	step(t);
	return 0;
}

static void
poll_cancel(void *state, struct wp_poll *poll)
{
	struct rf_target *t = state;

	(void)poll;
	t->poll = NULL;
	/* A stale DELETE, a login or a discovery in flight is left to
	 * finish (see the top): only a fetch is cancelled. */
	if (t->step == ST_FETCH && t->conn != NULL) {
		http_cancel(t->conn);
		t->step = ST_IDLE;
	}
}

/* The DELETE outlives the target: its connection is freed when it ends. */
struct rf_logout {
	struct http_conn *conn;
	char		*state_file;	/* or NULL */
	char		 session_uri[RF_URI_MAX];
};

/*
 * Removes the state file only if it still names this session: after a
 * reload the new target of the same name may have saved its own session
 * there while the old one's DELETE was in flight.
 */
static void
forget_session(const char *file, const char *uri)
{
	char base[256], cur[RF_URI_MAX];
	FILE *f;
	bool ours = false;

	if (file == NULL || (f = fopen(file, "r")) == NULL)
		return;
	if (fgets(base, sizeof(base), f) && fgets(cur, sizeof(cur), f)) {
		cur[strcspn(cur, "\n")] = '\0';
		ours = strcmp(cur, uri) == 0;
	}
	fclose(f);
	if (ours)
		unlink(file);
}

static void
on_logout(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_logout *lo = arg;

	if (r != NULL && (r->status < 300 || r->status == 404)) {
		log_debug("redfish: session deleted (HTTP %ld)", r->status);
		forget_session(lo->state_file, lo->session_uri);
	} else
		log_info("redfish: session delete failed: %s", r ?
		    "refused" : e->msg);
	http_conn_free(lo->conn);	/* not touched after the callback */
	free(lo->state_file);
	free(lo);
}

/*
 * Starts the session DELETE without waiting (the core runs the loop a
 * moment after target_free).  The state file is removed only when the
 * DELETE succeeded; otherwise the next start deletes the session first.
 */
static void
logout(struct rf_target *t)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600];
	const char *hdrs[2] = { hdr, NULL };
	struct rf_logout *lo;
	struct wp_err err;

	if (t->session_uri[0] == '\0' || t->svc->http == NULL)
		return;
	if ((lo = calloc(1, sizeof(*lo))) == NULL)
		return;
	/* The target's kept-alive connection carries the DELETE (no new
	 * handshake per BMC at exit or reload); the DELETE owns it now. */
	if (t->conn != NULL) {
		http_cancel(t->conn);
		lo->conn = t->conn;
		t->conn = NULL;
	} else if ((lo->conn = http_conn_new(t->svc->http, &err)) == NULL) {
		free(lo);
		return;
	}
	lo->state_file = t->state_file ? strdup(t->state_file) : NULL;
	snprintf(lo->session_uri, sizeof(lo->session_uri), "%s",
	    t->session_uri);
	snprintf(url, sizeof(url), "%s%s", t->base, t->session_uri);
	snprintf(hdr, sizeof(hdr), "X-Auth-Token: %s",
	    t->token ? t->token : "");
	o.method = "DELETE";
	o.url = url;
	o.headers = hdrs;
	o.ca_file = t->ca_file;
	o.pin_sha256 = t->pin;
	o.insecure = t->insecure;
	o.timeout = 2 * WP_SEC;
	if (http_start(lo->conn, &o, on_logout, lo, &err) < 0) {
		http_conn_free(lo->conn);
		free(lo->state_file);
		free(lo);
		log_info("redfish %s: logout not started: %s", t->name, err.msg);
	}
	explicit_bzero(hdr, sizeof(hdr));	/* http_start copied it */
}

static void
target_free(void *state)
{
	struct rf_target *t = state;

	if (t == NULL)
		return;
	log_debug("redfish %s: closing%s%s", t->name, t->session_uri[0] ?
	    ", deleting session " : "", t->session_uri);
	logout(t);
	http_conn_free(t->conn);
	drop_discovery(t);
	rf_readings_fini(&t->polled);
	free(t->stale);
	free(t->user);
	secret_free(t->password);
	free(t->pw_file);
	free(t->pw_env);
	free(t->ca_file);
	free(t->pin);
	token_clear(t);
	free(t->state_file);
	free(t);
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
};
