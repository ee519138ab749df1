/* redfish_bmc.c - a BMC's connection and session, shared by its targets. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../collector/lib/log.h"
#include "../../collector/lib/secret.h"
#include "../../collector/lib/shared.h"
#include "../../collector/lib/strcopy.h"
#include "redfish_bmc.h"
#include "redfish_parse.h"

#define RF_SLOW_TIMEOUT	(10 * WP_SEC)	/* login, discovery, stale DELETE */
#define RF_LEGACY_SESSIONS "/redfish/v1/Sessions"
#define RF_SESSIONS	"/redfish/v1/SessionService/Sessions"
#define DRIVER		"redfish"

enum bmc_step { B_IDLE, B_STALE, B_LOGIN, B_USER };

struct rf_bmc {
	char		*key;		/* in svc->shared, or NULL */
	struct wp_services svc;		/* copy of the pointers */
	char		 base[256];
	int		 auth;
	char		*user, *pw_file, *pw_env, *ca_file, *pin;
	char		*password;	/* loaded secret, or NULL; secret_free */
	bool		 insecure, insecure_warned;
	int		 refs;
	struct http_conn *conn;
	/* session */
	char		*token;		/* X-Auth-Token, or NULL: token_clear */
	char		 session_uri[RF_URI_MAX];
	char		*state_file;	/* or NULL: sessions not kept */
	bool		 stale_checked;
	bool		 replacing;	/* the DELETE before a re-login */
	const char	*login_path;
	/* turns */
	int		 step;
	struct rf_user	*cur;		/* has the turn, or NULL */
	struct rf_user	*head, *tail;	/* waiting */
};

static void serve(struct rf_bmc *b);

static char *
dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*fail = true;
	return d;
}

/* base|auth|user|file|env|ca|pin|insecure; caller frees. */
static char *
make_key(const struct rf_bmc_conf *c)
{
	char *k;

	if (asprintf(&k, "%s|%d|%s|%s|%s|%s|%s|%d", c->base, c->auth,
	    c->user ? c->user : "", c->pw_file ? c->pw_file : "",
	    c->pw_env ? c->pw_env : "", c->ca_file ? c->ca_file : "",
	    c->pin ? c->pin : "", c->insecure) < 0)
		return NULL;
	return k;
}

/* <dir>/redfish-session-<host_port>-<user>: the same file for the same
 * BMC and user whatever the targets are called, so that a restart under
 * another configuration still finds what a crash left. */
static void
state_path(struct rf_bmc *b, const char *dir)
{
	char safe[200];
	const char *h = strstr(b->base, "://");
	size_t i;

	snprintf(safe, sizeof(safe), "%s-%s", h ? h + 3 : b->base,
	    b->user ? b->user : "");
	for (i = 0; safe[i]; i++)
		if (!((safe[i] >= 'a' && safe[i] <= 'z') || (safe[i] >= 'A' &&
		    safe[i] <= 'Z') || (safe[i] >= '0' && safe[i] <= '9') ||
		    safe[i] == '-' || safe[i] == '.'))
			safe[i] = '_';
	if (asprintf(&b->state_file, "%s/redfish-session-%s", dir, safe) < 0)
		b->state_file = NULL;
}

static void
bmc_free(struct rf_bmc *b)
{
	http_conn_free(b->conn);
	free(b->key);
	free(b->user);
	free(b->pw_file);
	free(b->pw_env);
	free(b->ca_file);
	free(b->pin);
	secret_free(b->password);
	if (b->token != NULL) {
		explicit_bzero(b->token, strlen(b->token));
		free(b->token);
	}
	free(b->state_file);
	free(b);
}

static struct rf_bmc *
bmc_new(const struct rf_bmc_conf *c, const struct wp_services *svc)
{
	struct rf_bmc *b;
	bool fail = false;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	if (svc != NULL)
		b->svc = *svc;
	snprintf(b->base, sizeof(b->base), "%s", c->base);
	b->auth = c->auth;
	b->insecure = c->insecure;
	b->user = dup_or_null(c->user, &fail);
	b->pw_file = dup_or_null(c->pw_file, &fail);
	b->pw_env = dup_or_null(c->pw_env, &fail);
	b->ca_file = dup_or_null(c->ca_file, &fail);
	b->pin = dup_or_null(c->pin, &fail);
	if (fail) {
		bmc_free(b);
		return NULL;
	}
	if (b->svc.state_dir != NULL)
		state_path(b, b->svc.state_dir);
	return b;
}

struct rf_bmc *
rf_bmc_get(const struct rf_bmc_conf *c, const struct wp_services *svc,
    struct wp_err *err)
{
	struct rf_bmc *b;
	char *key;

	if ((key = make_key(c)) == NULL)
		goto nomem;
	if (svc != NULL && (b = shared_get(svc->shared, DRIVER, key)) !=
	    NULL) {
		free(key);
		b->refs++;
		return b;
	}
	if ((b = bmc_new(c, svc)) == NULL) {
		free(key);
		goto nomem;
	}
	b->refs = 1;
	if (svc != NULL && svc->shared != NULL) {
		if (shared_put(svc->shared, DRIVER, key, b) < 0) {
			free(key);
			bmc_free(b);
			goto nomem;
		}
		b->key = key;
	} else
		free(key);
	return b;
nomem:
	err_set(err, WP_E_INTERNAL, "out of memory");
	return NULL;
}

const char *
rf_bmc_auth_name(const struct rf_bmc *b)
{
	return b->auth == AUTH_SESSION ? "session" : b->auth == AUTH_BASIC ?
	    "basic" : "no auth";
}

const char *
rf_bmc_base(const struct rf_bmc *b)
{
	return b->base;
}

int
rf_bmc_users(const struct rf_bmc *b)
{
	return b->refs;
}

bool
rf_bmc_serving(const struct rf_bmc *b, const struct rf_user *u)
{
	return b->cur == u;
}

/* ---- the session token and its state file ---- */

/* The session token is a secret: wiped when dropped. */
static void
token_clear(struct rf_bmc *b)
{
	if (b->token == NULL)
		return;
	explicit_bzero(b->token, strlen(b->token));
	free(b->token);
	b->token = NULL;
}

static int
token_set(struct rf_bmc *b, const char *tok)
{
	token_clear(b);
	return tok[0] != '\0' && (b->token = strdup(tok)) != NULL ? 0 : -1;
}

static const char *
who(const struct rf_bmc *b)
{
	return b->cur != NULL ? b->cur->name : b->base;
}

static void
save_session(struct rf_bmc *b)
{
	char tmp[600];
	FILE *f;
	int fd;

	if (b->state_file == NULL)
		return;
	if (b->session_uri[0] == '\0') {
		unlink(b->state_file);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s", b->state_file);
	if (strrchr(tmp, '/') != NULL) {	/* the state dir may be new */
		*strrchr(tmp, '/') = '\0';
		(void)mkdir(tmp, 0700);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", b->state_file);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		log_warn("redfish %s: cannot save session state", who(b));
		return;
	}
	fprintf(f, "%s\n%s\n%s\n", b->base, b->session_uri,
	    b->token ? b->token : "");
	if (fclose(f) != 0 || rename(tmp, b->state_file) != 0)
		log_warn("redfish %s: cannot save session state", who(b));
}

/* Reads a stale session left by a previous run into session_uri/token. */
static bool
load_stale(struct rf_bmc *b)
{
	char base[256] = "", uri[RF_URI_MAX] = "", tok[512] = "";
	FILE *f;

	if (b->state_file == NULL || (f = fopen(b->state_file, "r")) == NULL)
		return false;
	if (fgets(base, sizeof(base), f) && fgets(uri, sizeof(uri), f) &&
	    fgets(tok, sizeof(tok), f)) {
		base[strcspn(base, "\n")] = uri[strcspn(uri, "\n")] = '\0';
		tok[strcspn(tok, "\n")] = '\0';
	}
	fclose(f);
	if (strcmp(base, b->base) != 0 || uri[0] == '\0') {
		unlink(b->state_file);
		return false;
	}
	snprintf(b->session_uri, sizeof(b->session_uri), "%s", uri);
	token_set(b, tok);
	explicit_bzero(tok, sizeof(tok));
	return true;
}

/* Loads the password from its file or variable once; 0 or -1. */
static int
load_password(struct rf_bmc *b, struct wp_err *err)
{
	if (b->password != NULL || b->user == NULL || b->auth == AUTH_NONE)
		return 0;
	if (b->pw_file == NULL && b->pw_env == NULL)
		return 0;
	b->password = secret_load(b->pw_file, b->pw_env, err);
	return b->password == NULL ? -1 : 0;
}

/* ---- requests ---- */

static void on_resp(void *arg, const struct http_resp *r,
    const struct wp_err *e);

/* Sends a request on b's connection; the answer goes to on_resp. */
static int
send_req(struct rf_bmc *b, const char *method, const char *path,
    const char *body, wp_time timeout, struct wp_err *err)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600];
	const char *hdrs[3] = { "Accept: application/json", NULL, NULL };
	int rc;

	if (b->conn == NULL && (b->conn = http_conn_new(b->svc.http,
	    err)) == NULL)
		return -1;
	if (strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0)
		str_copy(url, sizeof(url), path);
	else
		str_append(url, sizeof(url), str_copy(url, sizeof(url),
		    b->base), path);
	o.method = method;
	o.url = url;
	o.body = body;
	if (b->auth == AUTH_SESSION && b->token != NULL && b->step != B_LOGIN) {
		str_append(hdr, sizeof(hdr), str_copy(hdr, sizeof(hdr),
		    "X-Auth-Token: "), b->token);
		hdrs[1] = hdr;
	}
	if (b->auth == AUTH_BASIC) {
		o.basic_user = b->user;
		o.basic_password = b->password;
	}
	o.headers = hdrs;
	o.ca_file = b->ca_file;
	o.pin_sha256 = b->pin;
	o.insecure = b->insecure;
	o.timeout = timeout;
	if (b->insecure && !b->insecure_warned) {
		log_warnx("redfish %s: TLS verification is off (insecure: true)",
		    who(b));
		b->insecure_warned = true;
	}
	rc = http_start(b->conn, &o, on_resp, b, err);
	explicit_bzero(hdr, sizeof(hdr));	/* copied by http_start */
	return rc;
}

static wp_time
slow_timeout(const struct rf_bmc *b)
{
	wp_time t = b->cur != NULL ? b->cur->timeout : 0;

	return t > RF_SLOW_TIMEOUT ? t : RF_SLOW_TIMEOUT;
}

int
rf_bmc_request(struct rf_bmc *b, struct rf_user *u, const char *method,
    const char *path, bool slow, struct wp_err *err)
{
	if (b->cur != u || b->step != B_IDLE)
		return err_set(err, WP_E_INTERNAL, "request out of turn");
	b->step = B_USER;
	if (send_req(b, method, path, NULL, slow ? slow_timeout(b) :
	    u->timeout, err) < 0) {
		b->step = B_IDLE;
		return -1;
	}
	return 0;
}

int
rf_bmc_side_opts(const struct rf_bmc *b, struct http_req_opts *o,
    char *url, size_t urllen, const char *path, char *hdr, size_t len)
{
	hdr[0] = '\0';
	if (b->auth == AUTH_SESSION) {
		if (b->token == NULL)
			return -1;
		snprintf(hdr, len, "X-Auth-Token: %s", b->token);
	}
	if (b->auth == AUTH_BASIC) {
		if (b->password == NULL)
			return -1;
		o->basic_user = b->user;
		o->basic_password = b->password;
	}
	snprintf(url, urllen, "%s%s", b->base, path);
	o->url = url;
	o->ca_file = b->ca_file;
	o->pin_sha256 = b->pin;
	o->insecure = b->insecure;
	return 0;
}

/* ---- login ---- */

static char *
login_body(struct rf_bmc *b)
{
	struct json_object *o = json_object_new_object();
	char *s;

	json_object_object_add(o, "UserName", json_object_new_string(b->user ?
	    b->user : ""));
	json_object_object_add(o, "Password",
	    json_object_new_string(b->password ? b->password : ""));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static int
start_login(struct rf_bmc *b, const char *path, struct wp_err *err)
{
	char *body;
	int rc;

	b->step = B_LOGIN;
	b->login_path = path;
	if ((body = login_body(b)) == NULL) {
		b->step = B_IDLE;
		return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	rc = send_req(b, "POST", path, body, slow_timeout(b), err);
	explicit_bzero(body, strlen(body));
	free(body);
	if (rc < 0)
		b->step = B_IDLE;
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

/* The session URI: Location, else the body's @odata.id. */
static void
session_uri_of(struct rf_bmc *b, const struct http_resp *r)
{
	char loc[RF_URI_MAX];
	struct json_object *o;
	struct wp_err pe;
	const char *id;

	b->session_uri[0] = '\0';
	if (http_resp_header(r, "Location", loc, sizeof(loc)) == 0 && loc[0])
		uri_path(loc, b->session_uri, sizeof(b->session_uri));
	else if (r->len > 0 && (o = rf_json_parse(r->body, r->len, &pe))) {
		if ((id = rf_link(o, NULL)) != NULL)
			snprintf(b->session_uri, sizeof(b->session_uri), "%s",
			    id);
		json_object_put(o);
	}
}

/* 0 logged in, 1 retried at the legacy URI, -1 with err. */
static int
on_login(struct rf_bmc *b, const struct http_resp *r, struct wp_err *err)
{
	char tok[512];
	int rc;

	if (r->status == 405 && strcmp(b->login_path, RF_SESSIONS) == 0)
		return start_login(b, RF_LEGACY_SESSIONS, err) < 0 ? -1 : 1;
	if (r->status == 401 || r->status == 403)
		return err_set(err, WP_E_AUTH, "login refused (HTTP %ld)",
		    r->status);
	if (r->status != 200 && r->status != 201 && r->status != 204)
		return err_set(err, http_status_class(r->status),
		    "login: HTTP %ld", r->status);
	if (http_resp_header(r, "X-Auth-Token", tok, sizeof(tok)) < 0)
		tok[0] = '\0';
	rc = token_set(b, tok);
	explicit_bzero(tok, sizeof(tok));
	if (rc < 0)
		return err_set(err, WP_E_PROTOCOL, "login: no X-Auth-Token");
	session_uri_of(b, r);
	if (b->session_uri[0] == '\0')
		log_warnx("redfish %s: session has no URI (Location or "
		    "@odata.id); it cannot be deleted", who(b));
	save_session(b);
	log_debug("redfish %s: logged in, session %s (%s, %d target%s)",
	    who(b), b->session_uri, b->base, b->refs, b->refs == 1 ? "" : "s");
	return 0;
}

/* ---- turns ---- */

/* Ends the turn of every user waiting and of the current one: the
 * session cannot be opened (they would all fail alike). */
static void
fail_all(struct rf_bmc *b, const struct wp_err *err)
{
	struct rf_user *u;

	while ((u = b->cur) != NULL || (u = b->head) != NULL) {
		if (u == b->cur)
			b->cur = NULL;
		else {
			b->head = u->next;
			if (b->head == NULL)
				b->tail = NULL;
			u->queued = false;
		}
		u->failed(u, err);
	}
}

/* Starts the DELETE of session_uri with the token in hand; true if one is
 * in flight (its answer clears the session and serves again). */
static bool
delete_session(struct rf_bmc *b)
{
	struct wp_err err;

	if (b->session_uri[0] == '\0' || b->token == NULL)
		return false;
	b->step = B_STALE;
	if (send_req(b, "DELETE", b->session_uri, NULL, slow_timeout(b),
	    &err) == 0)
		return true;
	b->step = B_IDLE;
	token_clear(b);
	b->session_uri[0] = '\0';
	return false;
}

/* Starts the stale DELETE if a previous run left a session; true if one
 * is in flight. */
static bool
stale_check(struct rf_bmc *b)
{
	b->stale_checked = true;
	return load_stale(b) && delete_session(b);
}

/* Gives the turn to the next user once the session is open. */
static void
serve(struct rf_bmc *b)
{
	struct wp_err err = { 0 };

	if (b->step != B_IDLE)
		return;		/* the answer in flight calls again */
	if (b->cur == NULL && (b->cur = b->head) != NULL) {
		b->head = b->cur->next;
		if (b->head == NULL)
			b->tail = NULL;
		b->cur->queued = false;
	}
	if (b->cur == NULL)
		return;
	if (b->auth != AUTH_NONE && load_password(b, &err) < 0) {
		fail_all(b, &err);
		return;
	}
	if (b->auth == AUTH_SESSION && !b->stale_checked && stale_check(b))
		return;
	if (b->auth == AUTH_SESSION && b->token == NULL) {
		if (start_login(b, RF_SESSIONS, &err) < 0)
			fail_all(b, &err);
		return;
	}
	b->cur->ready(b->cur);
}

void
rf_bmc_want(struct rf_bmc *b, struct rf_user *u)
{
	if (b->cur == u || u->queued)
		return;
	u->next = NULL;
	u->queued = true;
	if (b->tail != NULL)
		b->tail->next = u;
	else
		b->head = u;
	b->tail = u;
	serve(b);
}

void
rf_bmc_done(struct rf_bmc *b, struct rf_user *u)
{
	if (b->cur != u)
		return;
	b->cur = NULL;
	serve(b);
}

static void
unqueue(struct rf_bmc *b, struct rf_user *u)
{
	struct rf_user **pp, *prev = NULL;

	for (pp = &b->head; *pp != NULL; prev = *pp, pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			if (b->tail == u)
				b->tail = prev;
			u->queued = false;
			return;
		}
}

void
rf_bmc_leave(struct rf_bmc *b, struct rf_user *u)
{
	if (u->queued)
		unqueue(b, u);
	if (b->cur != u)
		return;
	b->cur = NULL;
	if (b->step == B_USER) {	/* its own request: cancelled */
		http_cancel(b->conn);
		b->step = B_IDLE;
		serve(b);
	}
	/* a login or stale DELETE goes on; its answer serves the next */
}

/*
 * A 401 on a user's request: log in again once per poll, then repeat.  The
 * old session is deleted first: a BMC that answers 401 to a session it
 * still holds (a privilege it lacks, a bug) must not collect one session
 * per re-login; a BMC that dropped it answers the DELETE 401 or 404.
 */
static bool
relogin(struct rf_bmc *b, struct rf_user *u, const struct http_resp *r)
{
	if (r == NULL || r->status != 401 || b->auth != AUTH_SESSION ||
	    u->relogged)
		return false;
	log_info("redfish %s: session expired (401), logging in again",
	    u->name);
	u->relogged = true;
	b->step = B_IDLE;
	if ((b->replacing = delete_session(b)))
		return true;	/* its answer logs in */
	token_clear(b);
	b->session_uri[0] = '\0';
	save_session(b);
	serve(b);
	return true;
}

static void
on_resp(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_bmc *b = arg;
	struct rf_user *u = b->cur;
	struct wp_err err = { 0 };
	int rc, was = b->step;

	b->step = B_IDLE;
	if (was == B_STALE) {		/* best effort */
		if (r != NULL && !b->replacing)
			log_info("redfish %s: deleted the session a previous "
			    "run left (HTTP %ld)", who(b), r->status);
		else if (r != NULL)
			log_debug("redfish %s: old session deleted before the "
			    "new login (HTTP %ld)", who(b), r->status);
		b->replacing = false;
		token_clear(b);
		b->session_uri[0] = '\0';
		save_session(b);
		serve(b);
		return;
	}
	if (was == B_LOGIN) {
		if (r == NULL)
			err = *e;
		else if ((rc = on_login(b, r, &err)) == 1)
			return;		/* retried at the legacy URI */
		else if (rc == 0) {
			serve(b);
			return;
		}
		fail_all(b, &err);
		return;
	}
	if (u == NULL || relogin(b, u, r))
		return;
	u->answer(u, r, e);
}

/* ---- the end: delete the session ---- */

/* The DELETE outlives the BMC: its connection is freed when it ends. */
struct rf_logout {
	struct http_conn *conn;
	char		*state_file;	/* or NULL */
	char		 session_uri[RF_URI_MAX];
};

/*
 * Removes the state file only if it still names this session: after a
 * reload a new BMC object for the same BMC may have saved its own session
 * there while this DELETE was in flight.
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
 * moment after target_free) on the BMC's kept-alive connection, which the
 * DELETE then owns.  The state file is removed only when it succeeded;
 * otherwise the next start deletes the session first.
 */
static void
logout(struct rf_bmc *b)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600];
	const char *hdrs[2] = { hdr, NULL };
	struct rf_logout *lo;
	struct wp_err err;

	if (b->session_uri[0] == '\0' || b->svc.http == NULL ||
	    (lo = calloc(1, sizeof(*lo))) == NULL)
		return;
	if (b->conn != NULL) {
		http_cancel(b->conn);
		lo->conn = b->conn;
		b->conn = NULL;
	} else if ((lo->conn = http_conn_new(b->svc.http, &err)) == NULL) {
		free(lo);
		return;
	}
	lo->state_file = b->state_file ? strdup(b->state_file) : NULL;
	snprintf(lo->session_uri, sizeof(lo->session_uri), "%s",
	    b->session_uri);
	snprintf(url, sizeof(url), "%s%s", b->base, b->session_uri);
	snprintf(hdr, sizeof(hdr), "X-Auth-Token: %s",
	    b->token ? b->token : "");
	o.method = "DELETE";
	o.url = url;
	o.headers = hdrs;
	o.ca_file = b->ca_file;
	o.pin_sha256 = b->pin;
	o.insecure = b->insecure;
	o.timeout = 2 * WP_SEC;
	if (http_start(lo->conn, &o, on_logout, lo, &err) < 0) {
		http_conn_free(lo->conn);
		free(lo->state_file);
		free(lo);
		log_info("redfish %s: logout not started: %s", b->base,
		    err.msg);
	}
	explicit_bzero(hdr, sizeof(hdr));	/* http_start copied it */
}

void
rf_bmc_ref(struct rf_bmc *b)
{
	b->refs++;
}

void
rf_bmc_unref(struct rf_bmc *b)
{
	if (b == NULL || --b->refs > 0)
		return;
	if (b->key != NULL)
		shared_del(b->svc.shared, DRIVER, b->key, b);
	log_debug("redfish %s: closing%s%s", b->base, b->session_uri[0] ?
	    ", deleting session " : "", b->session_uri);
	logout(b);
	bmc_free(b);
}
