/* redfish_probe.c - one-shot walk of a Redfish service for `wattpath probe`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "../../collector/lib/secret.h"
#include "redfish_discover.h"
#include "redfish_parse.h"
#include "redfish_probe.h"

struct pctx {
	const struct wp_probe_req *req;
	const struct wp_services *svc;
	struct http_conn *conn;
	char	 base[256];
	char	*password;
	char	 token[512];
	char	 session[RF_URI_MAX];
	bool	 basic;
};

static void
opts(struct pctx *c, struct http_req_opts *o, const char *method,
    const char *url, const char **hdrs)
{
	memset(o, 0, sizeof(*o));
	o->method = method;
	o->url = url;
	o->ca_file = c->req->ca_file;
	o->insecure = c->req->insecure;
	o->timeout = c->req->timeout > 0 ? c->req->timeout : 10 * WP_SEC;
	o->headers = hdrs;
	if (c->basic) {
		o->basic_user = c->req->user;
		o->basic_password = c->password;
	}
}

static int
fetch(struct pctx *c, const char *method, const char *path, const char *body,
    long *status, char **out, size_t *len, char **headers, struct wp_err *err)
{
	struct http_req_opts o;
	char url[RF_URI_MAX + 300], hdr[600];
	const char *hdrs[3] = { "Accept: application/json", NULL, NULL };

	snprintf(url, sizeof(url), "%s%s", c->base, path);
	if (c->token[0]) {
		snprintf(hdr, sizeof(hdr), "X-Auth-Token: %s", c->token);
		hdrs[1] = hdr;
	}
	opts(c, &o, method, url, hdrs);
	o.body = body;
	return http_fetch_sync(c->svc->http, c->conn, &o, status, out, len,
	    headers, err);
}

static int
try_login(struct pctx *c, const char *path, long *status, struct wp_err *err)
{
	struct json_object *o = json_object_new_object();
	struct http_resp r = { 0 };
	char *body = NULL, *head = NULL, loc[RF_URI_MAX];
	const char *p;
	int rc;

	json_object_object_add(o, "UserName",
	    json_object_new_string(c->req->user));
	json_object_object_add(o, "Password",
	    json_object_new_string(c->password ? c->password : ""));
	rc = fetch(c, "POST", path, json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN), status, &body, NULL, &head, err);
	json_object_put(o);
	if (rc < 0)
		return -1;
	r.headers = head;
	if ((*status == 200 || *status == 201 || *status == 204) &&
	    http_resp_header(&r, "X-Auth-Token", c->token,
	    sizeof(c->token)) == 0) {
		if (http_resp_header(&r, "Location", loc, sizeof(loc)) == 0) {
			p = strstr(loc, "://") ? strstr(loc, "://") + 3 : NULL;
			snprintf(c->session, sizeof(c->session), "%s",
			    p ? p + strcspn(p, "/") : loc);
		} else if (body && (o = json_tokener_parse(body)) != NULL) {
			if (rf_link(o, NULL))
				snprintf(c->session, sizeof(c->session), "%s",
				    rf_link(o, NULL));
			json_object_put(o);
		}
	}
	free(body);
	free(head);
	return 0;
}

static int
login(struct pctx *c, struct wp_err *err)
{
	long status = 0;

	if (c->req->user == NULL)
		return 0;
	if (c->req->password_file && (c->password =
	    secret_load(c->req->password_file, NULL, err)) == NULL)
		return -1;
	if (try_login(c, "/redfish/v1/SessionService/Sessions", &status,
	    err) < 0)
		return -1;
	if (status == 405 && try_login(c, "/redfish/v1/Sessions", &status,
	    err) < 0)
		return -1;
	if (c->token[0])
		return 0;
	if (status == 401 || status == 403)
		return err_set(err, WP_E_AUTH, "login refused (HTTP %ld)",
		    status);
	log_info("probe: no session (HTTP %ld); trying HTTP Basic", status);
	c->basic = true;
	return 0;
}

static void
logout(struct pctx *c)
{
	struct wp_err err;
	char *body = NULL;
	long status;

	if (c->session[0] == '\0')
		return;
	if (fetch(c, "DELETE", c->session, NULL, &status, &body, NULL, NULL,
	    &err) < 0)
		log_warnx("probe: could not delete session %s: %s", c->session,
		    err.msg);
	free(body);
	c->session[0] = c->token[0] = '\0';
}

static int
walk(struct pctx *c, struct rf_disc *d, struct wp_err *err)
{
	struct json_object *o;
	struct wp_err fe;
	const char *uri;
	char *body;
	size_t len;
	long status;
	int rc;

	while ((uri = rf_disc_next(d)) != NULL) {
		memset(&fe, 0, sizeof(fe));
		o = NULL;
		body = NULL;
		if (fetch(c, "GET", uri, NULL, &status, &body, &len, NULL,
		    &fe) == 0) {
			if (status != 200)
				err_set(&fe, WP_E_PROTOCOL, "HTTP %ld", status);
			else
				o = rf_json_parse(body, len, &fe);
		}
		free(body);
		if (o == NULL)
			log_warnx("probe: %s: %s", uri, fe.msg);
		rc = rf_disc_feed(d, o, &fe, err);
		json_object_put(o);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
fill(struct rf_disc *d, struct wp_probe_result *out, struct wp_err *err)
{
	const struct rf_found *f;
	const struct rf_reading *r;
	struct wp_sample s;
	size_t i, n;

	n = rf_disc_found(d, &f);
	for (i = 0; i < n; i++) {
		r = f[i].r;
		sample_init(&s, "probe", f[i].boundary, r->quantity, r->kind);
		s.value = r->value;
		s.raw_value = r->raw_value;
		sample_set_unit(&s, r->raw_unit);
		s.resolution = r->resolution;
		s.reset_time = r->reset_time;
		s.device_time = r->device_time;
		s.avg_window = r->avg_window;
		s.flags = r->flags;
		sample_add_label(&s, "source", r->source);
		if (f[i].where[0])
			sample_add_label(&s, "at", f[i].where);
		if (f[i].why[0])
			sample_add_label(&s, "why", f[i].why);
		if (probe_result_add(out, &s, r->key, f[i].chosen) < 0)
			return err_set(err, WP_E_INTERNAL, "out of memory");
	}
	return 0;
}

/* The walk's notes on standard error; the rule and the cost in extra. */
static void
say_notes(const struct rf_disc *d, struct wp_probe_result *out)
{
	const char *const *notes;
	size_t i, n = rf_disc_notes(d, &notes), len;

	len = (size_t)snprintf(out->extra, sizeof(out->extra),
	    "discovery=%d requests", rf_disc_requests(d));
	for (i = 0; i < n; i++) {
		log_info("probe: %s", notes[i]);
		if (strncmp(notes[i], "wall/", 5) == 0 && len < sizeof(out->extra))
			len += (size_t)snprintf(out->extra + len,
			    sizeof(out->extra) - len, "; %s", notes[i]);
	}
}

/* The value of -o key=value, or NULL; an unknown key is an error. */
static int
probe_opts(const struct wp_probe_req *req, const char **system,
    struct wp_err *err)
{
	size_t i;

	*system = NULL;
	for (i = 0; req->extra != NULL && req->extra[i] != NULL; i++) {
		if (strncmp(req->extra[i], "system=", 7) == 0)
			*system = req->extra[i] + 7;
		else if (strncmp(req->extra[i], "user=", 5) != 0)
			return err_set(err, WP_E_CONFIG, "redfish probe: "
			    "unknown option '%s' (known: -o system=<Id>)",
			    req->extra[i]);
	}
	return 0;
}

int
redfish_probe(const struct wp_probe_req *req, const struct wp_services *svc,
    struct wp_probe_result *out, struct wp_err *err)
{
	struct pctx c = { .req = req, .svc = svc };
	const struct rf_plan *plan;
	struct rf_disc *d = NULL;
	const char *p, *system;
	int rc = -1;

	snprintf(out->protocol, sizeof(out->protocol), "redfish");
	if (probe_opts(req, &system, err) < 0)
		return -1;
	if ((p = strstr(req->url, "://")) == NULL)
		return err_set(err, WP_E_CONFIG, "%s: not a URL", req->url);
	snprintf(c.base, sizeof(c.base), "%.*s", (int)(p + 3 - req->url +
	    strcspn(p + 3, "/?#")), req->url);
	if ((c.conn = http_conn_new(svc->http, err)) == NULL)
		return -1;
	if (login(&c, err) < 0)
		goto out;
	if ((d = rf_disc_new(RF_MODE_PROBE, system)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto out;
	}
	if (walk(&c, d, err) < 0)
		goto out;
	rc = rf_disc_plan(d, &plan, err);
	snprintf(out->vendor, sizeof(out->vendor), "%s", plan->vendor);
	snprintf(out->model, sizeof(out->model), "%s", plan->model);
	snprintf(out->firmware, sizeof(out->firmware), "%s", plan->firmware);
	if (plan->dangling > 0)
		log_warnx("probe: %d links could not be read (last: %s)",
		    plan->dangling, rf_disc_last_problem(d));
	say_notes(d, out);
	if (rc == 0 && fill(d, out, err) < 0)
		rc = -1;
	if (rc == 0 && out->n == 0)
		rc = err_set(err, WP_E_PROTOCOL, "no power or energy source");
out:
	logout(&c);
	rf_disc_free(d);
	http_conn_free(c.conn);
	secret_free(c.password);
	explicit_bzero(c.token, sizeof(c.token));
	return rc;
}
