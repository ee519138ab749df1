/*
 * redfish_subscr.c - a BMC target's EventService subscription
 * (redfish_subscr.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/http.h"
#include "../../collector/lib/log.h"
#include "redfish_push.h"
#include "redfish_subscr.h"

#define RF_SUBS		"/redfish/v1/EventService/Subscriptions"
#define RF_SUB_RETRY	(30 * WP_SEC)
#define RF_SUB_STALE	64	/* subscriptions looked at for stale ones */

enum su { SU_IDLE, SU_LIST, SU_MEMBER, SU_DELETE, SU_CREATE, SU_ACTIVE,
	SU_CHECK };

struct rf_sub {
	char		 name[128];
	char		*dest, *context;	/* owned; dest holds the token */
	struct wp_services svc;
	struct rf_bmc	*bmc;		/* borrowed from the kick */
	struct http_conn *conn;
	int		 state;
	bool		 swept, fail_logged;
	wp_time		 retry_at;
	char		 uri[RF_URI_MAX];	/* ours, or "" */
	char		 peer[64];	/* the address that accepted it */
	char		 (*members)[RF_URI_MAX];	/* RF_SUB_STALE */
	size_t		 n_members, next_member;
};

static void create(struct rf_sub *u);
static void next_member(struct rf_sub *u);

struct rf_sub *
rf_sub_new(const char *name, const char *dest, const char *context,
    const struct wp_services *svc)
{
	struct rf_sub *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return NULL;
	snprintf(u->name, sizeof(u->name), "%s", name);
	u->svc = *svc;
	if ((u->dest = strdup(dest)) == NULL ||
	    (u->context = strdup(context)) == NULL ||
	    (u->members = calloc(RF_SUB_STALE, sizeof(*u->members))) == NULL) {
		rf_sub_free(u);
		return NULL;
	}
	return u;
}

/* Starts method path (body or NULL) on u's connection, or on conn when
 * given.  0, or -1 (no session yet, or not started). */
static int
send_on(struct rf_sub *u, struct http_conn *conn, const char *method,
    const char *path, const char *body, http_done_cb done, void *arg)
{
	struct http_req_opts o = { 0 };
	char url[RF_URI_MAX + 320], hdr[600];
	const char *hdrs[3] = { "Accept: application/json", NULL, NULL };
	struct wp_err err;
	int rc;

	if (u->bmc == NULL || rf_bmc_side_opts(u->bmc, &o, url, sizeof(url),
	    path, hdr, sizeof(hdr)) < 0)
		return -1;
	hdrs[1] = hdr[0] ? hdr : NULL;
	o.method = method;
	o.headers = hdrs;
	o.body = body;
	o.timeout = 10 * WP_SEC;
	rc = http_start(conn, &o, done, arg, &err);
	explicit_bzero(hdr, sizeof(hdr));
	if (rc < 0)
		log_debug("redfish %s: subscription %s %s: %s", u->name,
		    method, path, err.msg);
	return rc;
}

static int
send_req(struct rf_sub *u, const char *method, const char *path,
    const char *body, http_done_cb done)
{
	struct wp_err err;

	if (u->conn == NULL && (u->conn = http_conn_new(u->svc.http, &err)) ==
	    NULL)
		return -1;
	return send_on(u, u->conn, method, path, body, done, u);
}

/* Not subscribed: tried again later. */
static void
failed(struct rf_sub *u, const char *why)
{
	u->state = SU_IDLE;
	u->retry_at = clock_mono() + RF_SUB_RETRY;
	if (!u->fail_logged)
		log_warnx("redfish %s: cannot subscribe for pushed reports "
		    "(%s): polling, retried every %d s", u->name, why,
		    (int)(RF_SUB_RETRY / WP_SEC));
	else
		log_debug("redfish %s: subscribe: %s", u->name, why);
	u->fail_logged = true;
}

static void
why_of(char *buf, size_t len, const char *what, const struct http_resp *r,
    const struct wp_err *e)
{
	if (r == NULL)
		snprintf(buf, len, "%s: %s", what, e->msg);
	else
		snprintf(buf, len, "%s: HTTP %ld", what, r->status);
}

static void
on_created(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_sub *u = arg;
	char loc[RF_URI_MAX + 320], why[WP_ERR_MSG + 64];

	if (r == NULL || r->status < 200 || r->status > 204) {
		why_of(why, sizeof(why), "POST " RF_SUBS, r, e);
		failed(u, why);
		return;
	}
	if (rf_sub_uri_of(http_resp_header(r, "Location", loc, sizeof(loc)) ==
	    0 ? loc : NULL, r->body, r->len, u->uri, sizeof(u->uri)) < 0) {
		/* it may exist all the same: the next try sweeps by Context
		 * first, so that none piles up on the BMC */
		u->swept = false;
		failed(u, "POST " RF_SUBS ": no Location of the subscription");
		return;
	}
	snprintf(u->peer, sizeof(u->peer), "%s", r->peer_ip);
	u->state = SU_ACTIVE;
	u->fail_logged = false;
	log_info("redfish %s: subscribed for pushed reports (%s, from %s)",
	    u->name, u->uri, u->peer[0] ? u->peer : "?");
}

static void
create(struct rf_sub *u)
{
	char *body = rf_sub_body(u->dest, u->context);

	u->swept = true;
	u->state = SU_CREATE;
	if (body == NULL || send_req(u, "POST", RF_SUBS, body,
	    on_created) < 0)
		failed(u, body ? "not started" : "out of memory");
	if (body != NULL)
		explicit_bzero(body, strlen(body));
	free(body);
}

static void
on_stale_deleted(void *arg, const struct http_resp *r,
    const struct wp_err *e)
{
	struct rf_sub *u = arg;

	(void)e;
	log_info("redfish %s: deleted a stale subscription of ours, %s (%s)",
	    u->name, u->members[u->next_member - 1], r ? "done" : "failed");
	next_member(u);
}

static void
on_member(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_sub *u = arg;
	const char *m = u->members[u->next_member - 1];

	(void)e;
	if (r == NULL || r->status != 200 ||
	    !rf_sub_has_context(r->body, r->len, u->context)) {
		next_member(u);
		return;
	}
	u->state = SU_DELETE;
	if (send_req(u, "DELETE", m, NULL, on_stale_deleted) < 0)
		next_member(u);
}

/* The next listed subscription: looked at; past the last, create. */
static void
next_member(struct rf_sub *u)
{
	while (u->next_member < u->n_members) {
		u->state = SU_MEMBER;
		if (send_req(u, "GET", u->members[u->next_member++], NULL,
		    on_member) == 0)
			return;
	}
	create(u);
}

static void
on_list(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_sub *u = arg;
	struct wp_err pe;
	char why[WP_ERR_MSG + 64];
	int n;

	if (r == NULL || r->status != 200) {
		why_of(why, sizeof(why), "GET " RF_SUBS, r, e);
		failed(u, why);
		return;
	}
	if ((n = rf_sub_members(r->body, r->len, u->members, RF_SUB_STALE,
	    &pe)) < 0) {
		failed(u, pe.msg);
		return;
	}
	u->n_members = (size_t)n;
	u->next_member = 0;
	next_member(u);
}

void
rf_sub_kick(struct rf_sub *u, struct rf_bmc *bmc)
{
	if (u == NULL)
		return;
	u->bmc = bmc;
	if (u->state != SU_IDLE || clock_mono() < u->retry_at)
		return;
	if (u->swept) {
		create(u);
		return;
	}
	u->state = SU_LIST;
	if (send_req(u, "GET", RF_SUBS, NULL, on_list) < 0)
		u->state = SU_IDLE;	/* no session yet: a poll opens one */
}

static void
on_checked(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_sub *u = arg;

	(void)e;
	u->state = SU_ACTIVE;
	if (r == NULL || (r->status != 404 && r->status != 410))
		return;
	log_warnx("redfish %s: the BMC lost our subscription %s (HTTP %ld; "
	    "rebooted?): subscribing again", u->name, u->uri, r->status);
	u->uri[0] = '\0';
	create(u);
}

void
rf_sub_check(struct rf_sub *u)
{
	if (u == NULL || u->state != SU_ACTIVE)
		return;
	u->state = SU_CHECK;
	if (send_req(u, "GET", u->uri, NULL, on_checked) < 0)
		u->state = SU_ACTIVE;
}

bool
rf_sub_active(const struct rf_sub *u)
{
	return u != NULL && (u->state == SU_ACTIVE || u->state == SU_CHECK);
}

/* a and b, numeric addresses, the same (IPv4-mapped as IPv4)? */
static bool
same_addr(const char *a, const char *b)
{
	unsigned char x[16], y[16];
	int fx = strchr(a, ':') ? AF_INET6 : AF_INET,
	    fy = strchr(b, ':') ? AF_INET6 : AF_INET;

	if (strncmp(a, "::ffff:", 7) == 0 && strchr(a + 7, '.'))
		a += 7, fx = AF_INET;
	if (strncmp(b, "::ffff:", 7) == 0 && strchr(b + 7, '.'))
		b += 7, fy = AF_INET;
	if (fx != fy || inet_pton(fx, a, x) != 1 || inet_pton(fy, b, y) != 1)
		return false;
	return memcmp(x, y, fx == AF_INET ? 4 : 16) == 0;
}

bool
rf_sub_sender_ok(const struct rf_sub *u, const char *peer)
{
	return rf_sub_active(u) && u->peer[0] != '\0' && peer != NULL &&
	    same_addr(u->peer, peer);
}

/* The DELETE outlives the target: it holds the BMC (and its session). */
struct rf_unsub {
	struct http_conn *conn;
	struct rf_bmc	*bmc;
	char		 name[128];
};

static void
on_unsubscribed(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct rf_unsub *x = arg;

	if (r != NULL && (r->status < 300 || r->status == 404))
		log_info("redfish %s: subscription deleted", x->name);
	else
		log_info("redfish %s: subscription delete failed: %s", x->name,
		    r ? "refused" : e->msg);
	http_conn_free(x->conn);	/* not touched after the callback */
	rf_bmc_unref(x->bmc);
	free(x);
}

static void
unsubscribe(struct rf_sub *u)
{
	struct rf_unsub *x;
	struct wp_err err;

	if (u->uri[0] == '\0' || u->bmc == NULL ||
	    (x = calloc(1, sizeof(*x))) == NULL)
		return;
	snprintf(x->name, sizeof(x->name), "%s", u->name);
	if ((x->conn = http_conn_new(u->svc.http, &err)) == NULL ||
	    send_on(u, x->conn, "DELETE", u->uri, NULL, on_unsubscribed,
	    x) < 0) {
		log_info("redfish %s: subscription %s not deleted (no session)",
		    u->name, u->uri);
		http_conn_free(x->conn);
		free(x);
		return;
	}
	x->bmc = u->bmc;
	rf_bmc_ref(x->bmc);
}

void
rf_sub_free(struct rf_sub *u)
{
	if (u == NULL)
		return;
	if (u->state != SU_CREATE)
		unsubscribe(u);
	http_conn_free(u->conn);
	if (u->dest != NULL)
		explicit_bzero(u->dest, strlen(u->dest));
	free(u->dest);
	free(u->context);
	free(u->members);
	free(u);
}
