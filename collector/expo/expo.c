/*
 * expo.c - libmicrohttpd on the collector's loop: routing, TLS, auth, and
 * the report workers: /api/v1/report and /api/v1/curves are computed on a
 * small pool of threads of their own (REPORT_WORKERS at once, REPORT_QUEUE
 * more waiting, then 503 with Retry-After) while their connection is
 * suspended, so that a long report never delays a poll.  A job holds the
 * config it was asked under (a SIGHUP may swap it meanwhile); a connection
 * closed under a running job leaves it to its completion; freeing the
 * server stops the scans, waits for the workers and resumes every
 * connection before MHD stops.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "../conf/conf.h"
#include "dash_pages.h"
#include "dashboard.h"
#include "expo.h"
#include "expo_api.h"
#include "expo_attr.h"
#include "expo_drift.h"
#include "expo_fleet.h"
#include "expo_gzip.h"
#include "expo_history.h"
#include "expo_metrics.h"
#include "expo_out.h"
#include "guard.h"
#include "html.h"
#include "remote_write.h"
#include "expo_sites.h"
#include "../lib/log.h"
#include "../lib/loop.h"
#include "../run.h"
#include "../lib/listen.h"
#include "../lib/secret.h"
#include "../lib/workers.h"

#define HIST_CAP	720		/* points: 2 h at a 10 s interval */
#define REPORT_WORKERS	2		/* reports computed at once */
#define REPORT_QUEUE	4		/* reports waiting for a worker */
#define REPORT_RETRY	"5"		/* s: Retry-After when all are taken */

struct expo {
	struct loop		*loop;
	struct collector	*co;
	struct MHD_Daemon	*d;
	struct guard		*guard;		/* the socket, the limits */
	int			 epfd;
	struct loop_timer	*timer;		/* MHD's timeout */
	struct loop_timer	*sampler;	/* history, every interval */
	struct history		*hist;
	struct expo_attr	*attr;		/* per model and tenant */
	struct rw		*rw;		/* remote write, or NULL */
	struct peers		*peers;		/* collector.peers, or NULL */
	char			*user, *pass;	/* Basic auth, or NULL */
	char			*cert, *key;	/* PEM, or NULL */
	struct workers		*reports;	/* the report workers */
	size_t			 jobs;		/* submitted, not yet done */
	struct expo_stats	 stats;		/* the /metrics renders */
	atomic_bool		 closing;	/* stops the reports' scans */
};

/* A report or curve request on a worker, its connection suspended.  The
 * connection owns it: the handler frees it once the answer is queued, or
 * MHD's completion when the connection goes first (an orphan still on a
 * worker is freed by its completion instead). */
struct report_job {
	struct expo		*x;
	struct MHD_Connection	*conn;
	const struct wp_conf	*conf;		/* held until done */
	struct expo_report_req	 req;
	struct expo_resp	 resp;
	bool			 done;		/* resp is final */
	bool			 orphan;	/* its connection is gone */
};

/* --- the loop drives MHD --- */

static void
expo_pump(struct expo *x)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_run(x->d) != MHD_YES)
		log_warnx("http: MHD_run failed");
	if (MHD_get_timeout(x->d, &ms) == MHD_YES)
		loop_timer_arm(x->timer, clock_mono() + (wp_time)ms * WP_MS);
	else
		loop_timer_disarm(x->timer);
}

static void
on_guard(void *arg)
{
	expo_pump(arg);
}

static void
on_epoll(int fd, int events, void *arg)
{
	(void)fd;
	(void)events;
	expo_pump(arg);
}

static void
on_timer(void *arg)
{
	expo_pump(arg);
}

static int
each_view(const void *src, int (*fn)(const struct target_view *, void *),
    void *arg)
{
	return collector_each_target(src, fn, arg);
}

/* The push listener's counters, when there is one. */
static void
push_listen_view(const struct collector *co, struct fleet *f)
{
	const unsigned long *r = collector_push_listen_refused(co);

	if (r == NULL)
		return;
	memcpy(f->push_listen_refused, r, sizeof(f->push_listen_refused));
	f->has_push_listen = true;
}

/* A snapshot of the collector's fleet, with what (FLEET_*) besides. */
static struct fleet *
snapshot(struct expo *x, unsigned what)
{
	struct fleet *f = fleet_build(collector_conf(x->co), each_view, x->co,
	    clock_real(), what);

	if (f != NULL) {
		f->attr = x->attr;
		collector_health(x->co, &f->storage);
		f->has_storage = true;
		guard_stats(x->guard, &f->http);
		f->has_http = true;
		collector_reloads(x->co, &f->reloads);
		f->has_reloads = true;
		push_listen_view(x->co, f);
		f->expo = x->stats;
		f->has_expo = true;
		proc_stats_read(&f->proc);
		f->has_proc = true;
	}
	return f;
}

static int
drift_cb(FILE *f, const void *w)
{
	return expo_drift_write(f, w);
}

/* The remote-write families (rw_metrics_write) through eo_stream. */
struct rw_families {
	const struct rw	*w;
	const char	*site;
};

static int
rw_cb(FILE *f, const void *arg)
{
	const struct rw_families *r = arg;

	rw_metrics_write(f, r->w, r->site);
	return ferror(f) ? -1 : 0;
}

/* /metrics of snapshot f into *buf (caller frees), in memory sized as the
 * last one; 0, or -1 with *buf NULL. */
static int
render_metrics(struct expo *x, const struct fleet *f, char **buf,
    size_t *len)
{
	struct rw_families rw = { x->rw, f->site };
	struct expo_out o;

	*buf = NULL;
	if (eo_init_mem(&o, x->stats.last_bytes + x->stats.last_bytes / 8) ==
	    -1)
		return -1;
	if (expo_metrics_out(&o, f, history_pue(x->hist, f, PUE_WINDOW)) ==
	    -1 || eo_stream(&o, drift_cb, collector_drift(x->co)) == -1 ||
	    eo_stream(&o, rw_cb, &rw) == -1) {
		eo_fini(&o);
		return -1;
	}
	if ((*buf = eo_take(&o, len)) == NULL)
		return -1;
	x->stats.last_bytes = *len;
	return 0;
}

/* After a reload: new senders if collector.remote_write changed. */
static void
rw_reload(struct expo *x)
{
	const struct wp_conf *c = collector_conf(x->co);
	struct wp_err err;

	/* compared by content every interval: a new config may have the
	 * old one's address */
	if (rw_same(x->rw, c))
		return;
	log_info("remote_write: the receivers changed: starting anew");
	rw_free(x->rw);
	if ((x->rw = rw_new(x->loop, c, &err)) == NULL &&
	    err.class != WP_E_NONE)
		log_error("remote_write: %s (none until the next reload)",
		    err.msg);
}

/* After a reload: new fetchers if collector.peers changed. */
static void
peers_reload(struct expo *x)
{
	const struct wp_conf *c = collector_conf(x->co);
	struct wp_err err;

	if (peers_same(x->peers, c))
		return;
	log_info("peers: the list changed: starting anew");
	peers_free(x->peers);
	if ((x->peers = peers_new(x->loop, c, &err)) == NULL &&
	    err.class != WP_E_NONE)
		log_error("peers: %s (none until the next reload)", err.msg);
	peers_tick(x->peers);
}

/* Every interval: the history's point, the remote-write batch and the
 * peers' fetch. */
static void
on_sample(void *arg)
{
	struct expo *x = arg;
	struct fleet *f;
	char *buf;
	size_t len;

	rw_reload(x);	/* first: whether remote write renders below */
	/* the PDU readings only for remote write's render: a fleet's worth
	 * of them held for a moment every interval, for nothing, otherwise */
	if ((f = snapshot(x, x->rw != NULL ? FLEET_PDU_READINGS : 0)) ==
	    NULL || history_add(x->hist, f) == -1)
		log_warnx("http: history: out of memory");
	if (f != NULL && expo_attr_commit(x->attr, f, history_pue(x->hist, f,
	    PUE_WINDOW)) == -1)
		log_warnx("http: per-model counters: out of memory (the "
		    "interval is split at the next one)");
	peers_reload(x);
	peers_tick(x->peers);
	if (f != NULL && x->rw != NULL) {
		if (render_metrics(x, f, &buf, &len) == 0)
			rw_push(x->rw, buf, len, f->now);	/* takes buf */
		else
			log_warnx("remote_write: the exposition did not render");
	}
	fleet_free(f);
	loop_timer_arm(x->sampler, clock_mono() +
	    collector_conf(x->co)->interval);
}

/* --- responses --- */

/* Queues body (taken over; NULL: empty) with an extra header hname when
 * not NULL. */
static enum MHD_Result
reply_with(struct MHD_Connection *c, int status, const char *ctype,
    char *body, size_t len, const char *hname, const char *hval)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	if (body == NULL)
		r = MHD_create_response_from_buffer(0, (void *)"",
		    MHD_RESPMEM_PERSISTENT);
	else
		r = MHD_create_response_from_buffer(len, body,
		    MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (hname != NULL)
		MHD_add_response_header(r, hname, hval);
	rc = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
reply(struct MHD_Connection *c, int status, const char *ctype, char *body,
    size_t len)
{
	return reply_with(c, status, ctype, body, len, NULL, NULL);
}

static enum MHD_Result
reply_text(struct MHD_Connection *c, int status, const char *text)
{
	char *b = strdup(text);

	return reply(c, status, "text/plain; charset=utf-8", b,
	    b ? strlen(b) : 0);
}

/* /healthz: 200 "ok" while the journal writes, 503 with the reason when
 * it does not; a failing RRD store is named but not fatal (the journal
 * keeps every reading). */
static enum MHD_Result
serve_health(struct expo *x, struct MHD_Connection *c)
{
	struct ingest_health h;
	char body[2 * WP_ERR_MSG + 256], t[40];
	size_t n;

	collector_health(x->co, &h);
	n = (size_t)snprintf(body, sizeof(body), "%s\n", h.journal.ok ? "ok" :
	    "journal failing");
	if (!h.journal.ok) {
		clock_iso8601(h.journal.since, t, sizeof(t));
		n += (size_t)snprintf(body + n, sizeof(body) - n, "journal: "
		    "failing since %s: %s\n", t, h.journal.error);
	}
	if (!h.rrd.ok && n < sizeof(body)) {
		clock_iso8601(h.rrd.since, t, sizeof(t));
		snprintf(body + n, sizeof(body) - n, "rrd: failing since %s: "
		    "%s\n", t, h.rrd.error);
	}
	return reply_text(c, h.journal.ok ? 200 : 503, body);
}

static const char *
conn_arg(const void *ctx, const char *key)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)ctx,
	    MHD_GET_ARGUMENT_KIND, key);
}

/* Renders one of the fleet views (/metrics, the dashboard) into *buf
 * (caller frees); 0, or -1 with *buf NULL. */
static int
render(struct expo *x, struct MHD_Connection *c, bool metrics, char **buf,
    size_t *len)
{
	struct dash_query q = { conn_arg(c, "q"), conn_arg(c, "node"),
	    conn_arg(c, "page") ? atol(conn_arg(c, "page")) : 1,
	    collector_drift(x->co) };
	struct fleet *f;
	FILE *m = NULL;
	int rc;

	*buf = NULL;
	*len = 0;
	if ((f = snapshot(x, metrics ? FLEET_PDU_READINGS : 0)) == NULL ||
	    (!metrics && (m = open_memstream(buf, len)) == NULL)) {
		fleet_free(f);
		return -1;
	}
	if (metrics)
		rc = render_metrics(x, f, buf, len);
	else {
		rc = dashboard_write(m, f, x->hist, &q);
		fclose(m);
	}
	fleet_free(f);
	if (rc == -1) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/* The dashboard, or /metrics: gzip when the client takes it; the time
 * it took counted for the next /metrics (wattpath_exposition_*). */
static enum MHD_Result
serve_fleet(struct expo *x, struct MHD_Connection *c, const char *url)
{
	bool metrics = strcmp(url, "/metrics") == 0;
	wp_time t0 = clock_mono();
	struct MHD_Response *r;
	enum MHD_Result rc;
	char *buf, *z;
	size_t len, zlen;
	bool gz;

	if (render(x, c, metrics, &buf, &len) == -1)
		return reply_text(c, 500, "render failed\n");
	if (!metrics)
		return reply(c, 200, "text/html; charset=utf-8", buf, len);
	gz = expo_accepts_gzip(MHD_lookup_connection_value(c,
	    MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	if (gz && (z = expo_gzip(buf, len, EXPO_GZIP_LEVEL, &zlen)) != NULL) {
		free(buf);
		buf = z;
		len = zlen;
	} else
		gz = false;
	if ((r = MHD_create_response_from_buffer(len, buf,
	    MHD_RESPMEM_MUST_FREE)) == NULL) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "text/plain; version=0.0.4; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
	    MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
		    "gzip");
	rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	x->stats.last_s = (double)(clock_mono() - t0) / WP_SEC;
	x->stats.sum_s += x->stats.last_s;
	x->stats.count++;
	return rc;
}

/* The node, rack, PDU and targets pages (dash_pages.h). */
static enum MHD_Result
serve_page(struct expo *x, struct MHD_Connection *c, const char *url)
{
	/* the PDU readings: only a PDU's page shows them */
	unsigned what = strncmp(url, "/pdu/", 5) == 0 ? FLEET_PDU_READINGS : 0;
	struct fleet *f;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if ((f = snapshot(x, what)) == NULL ||
	    (m = open_memstream(&buf, &len)) == NULL) {
		fleet_free(f);
		return reply_text(c, 500, "out of memory\n");
	}
	rc = dash_page_write(m, url, f, x->hist);
	fclose(m);
	fleet_free(f);
	if (rc != 0) {
		free(buf);
		return rc == 1 ? reply_text(c, 404, "no such node, rack or pdu "
		    "in the configuration\n") : reply_text(c, 500,
		    "render failed\n");
	}
	return reply(c, 200, "text/html; charset=utf-8", buf, len);
}

/* The Sites view's rows: this site's first, then the peers'; *n set.
 * The caller frees the snapshot *fp. */
static int
site_rows(struct expo *x, struct fleet **fp, struct site_row *rows,
    size_t *n)
{
	if ((*fp = snapshot(x, 0)) == NULL)
		return -1;
	site_row_self(*fp, x->hist, &rows[0]);
	*n = sites_merge_shards(rows, 1 + peers_rows(x->peers, rows + 1,
	    SITES_MAX - 1));
	return 0;
}

/* /api/v1/sites (api) and the /sites page. */
static enum MHD_Result
serve_sites(struct expo *x, struct MHD_Connection *c, bool api)
{
	struct site_row *rows;
	struct fleet *f = NULL;
	char *buf = NULL;
	size_t n, len = 0;
	FILE *m;
	int rc = -1;

	if ((rows = calloc(SITES_MAX, sizeof(*rows))) == NULL ||
	    site_rows(x, &f, rows, &n) == -1) {
		free(rows);
		return reply_text(c, 500, "out of memory\n");
	}
	if (api)
		rc = (buf = sites_json(rows, n, f->now)) != NULL ? 0 : -1;
	else if ((m = open_memstream(&buf, &len)) != NULL) {
		rc = dash_sites_write(m, f, rows, n);
		fclose(m);
	}
	fleet_free(f);
	free(rows);
	if (rc != 0) {
		free(buf);
		return reply_text(c, 500, "render failed\n");
	}
	if (api)
		return reply(c, 200, "application/json", buf, strlen(buf));
	return reply(c, 200, "text/html; charset=utf-8", buf, len);
}

static enum MHD_Result
serve_api(struct expo *x, struct MHD_Connection *c, const char *url)
{
	struct expo_req q = { url, conn_arg, c };
	struct expo_resp r = { 0 };

	expo_api_handle(&q, collector_conf(x->co), each_view, x->co, x->hist,
	    x->attr, &r);
	return reply(c, r.status, r.ctype ? r.ctype : "application/json",
	    r.body, r.len);
}

/* --- reports on the workers --- */

static void
job_free(struct report_job *j)
{
	expo_api_report_fini(&j->req);
	free(j->resp.body);
	free(j);
}

/* On a worker thread: only the job's own data and its held config. */
static void
job_run(void *arg)
{
	struct report_job *j = arg;

	expo_api_report_run(j->conf, &j->req, &j->resp);
}

/* On the loop thread (or in expo_free): the answer is ready, or the job
 * never ran.  Resumes the connection, whose handler queues the answer. */
static void
job_done(void *arg)
{
	struct report_job *j = arg;
	struct expo *x = j->x;

	collector_conf_release(x->co, j->conf);
	j->conf = NULL;
	x->jobs--;
	j->done = true;
	if (j->orphan) {
		job_free(j);
		return;
	}
	if (j->resp.status == 0) {
		j->resp.status = 503;
		j->resp.ctype = "text/plain; charset=utf-8";
	}
	MHD_resume_connection(j->conn);
	if (!atomic_load(&x->closing))
		expo_pump(x);
}

/* /api/v1/report and /api/v1/curves: parsed here, computed on a worker
 * while the connection is suspended. */
static enum MHD_Result
serve_report(struct expo *x, struct MHD_Connection *c, const char *url,
    void **con_cls)
{
	struct expo_req q = { url, conn_arg, c };
	struct expo_resp r = { 0 };
	struct report_job *j;
	struct wp_err err;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return reply_text(c, 500, "out of memory\n");
	if (expo_api_report_parse(&q, &j->req, &r) == -1) {
		free(j);
		return reply(c, r.status, r.ctype ? r.ctype :
		    "application/json", r.body, r.len);
	}
	if (x->jobs >= REPORT_WORKERS + REPORT_QUEUE) {
		static const char busy[] = "busy: too many reports in progress\n";

		job_free(j);
		return reply_with(c, 503, "text/plain; charset=utf-8",
		    strdup(busy), sizeof(busy) - 1, MHD_HTTP_HEADER_RETRY_AFTER,
		    REPORT_RETRY);
	}
	j->x = x;
	j->conn = c;
	j->req.q.cancel = &x->closing;
	j->conf = collector_conf_hold(x->co);
	if (workers_submit(x->reports, NULL, job_run, job_done, j,
	    &err) == -1) {
		collector_conf_release(x->co, j->conf);
		job_free(j);
		return reply_text(c, 500, "out of memory\n");
	}
	x->jobs++;
	MHD_suspend_connection(c);
	*con_cls = j;
	return MHD_YES;
}

/* A resumed report connection: its answer, and the job freed. */
static enum MHD_Result
serve_done(struct MHD_Connection *c, void **con_cls, struct expo *x)
{
	struct report_job *j = *con_cls;
	enum MHD_Result rc;

	*con_cls = x;
	rc = reply(c, j->resp.status, j->resp.ctype ? j->resp.ctype :
	    "application/json", j->resp.body, j->resp.len);
	j->resp.body = NULL;		/* reply took it */
	job_free(j);
	return rc;
}

/* MHD is done with a connection: a job it still owns goes with it. */
static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct expo *x = cls;
	struct report_job *j;

	(void)toe;
	guard_request_end(x->guard, c);
	if (con_cls == NULL || *con_cls == NULL || *con_cls == cls)
		return;
	j = *con_cls;
	*con_cls = NULL;
	if (j->done)
		job_free(j);
	else
		j->orphan = true;	/* still on a worker: job_done frees it */
}

/* Constant-time comparison of two NUL-terminated strings. */
static bool
same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return d == 0;
}

static bool
authorised(const struct expo *x, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok;

	if (x->user == NULL)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = user != NULL && pass != NULL && same(user, x->user) &
	    same(pass, x->pass);
	if (pass != NULL) {
		memset(pass, 0, strlen(pass));
		MHD_free(pass);
	}
	if (user != NULL)
		MHD_free(user);
	return ok;
}

static size_t
unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return html_url_unescape(s);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct expo *x = cls;
	struct MHD_Response *r;
	enum MHD_Result rc;
	unsigned wait;

	(void)version;
	(void)upload;
	if (*con_cls == NULL) {		/* headers only: wait for the body */
		*con_cls = x;
		guard_request_begin(x->guard, c);
		return MHD_YES;
	}
	if (*con_cls != x)		/* a report job, resumed */
		return serve_done(c, con_cls, x);
	if (*upload_size != 0) {	/* bodies are not used: drop them */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_text(c, 405, "only GET and HEAD\n");
	if (x->user != NULL && (wait = guard_auth_wait(x->guard, c)) > 0) {
		static const char msg[] = "too many failed passwords; try "
		    "later\n";
		char after[16];

		snprintf(after, sizeof(after), "%u", wait);
		return reply_with(c, 429, "text/plain", strdup(msg),
		    sizeof(msg) - 1, MHD_HTTP_HEADER_RETRY_AFTER, after);
	}
	if (!authorised(x, c)) {
		guard_auth_result(x->guard, c, false);
		if ((r = MHD_create_response_from_buffer(13,
		    (void *)"unauthorised\n", MHD_RESPMEM_PERSISTENT)) == NULL)
			return MHD_NO;
		rc = MHD_queue_basic_auth_fail_response(c, "wattpath", r);
		MHD_destroy_response(r);
		return rc;
	}
	if (x->user != NULL)
		guard_auth_result(x->guard, c, true);
	if (strcmp(url, "/healthz") == 0)
		return serve_health(x, c);
	if (strcmp(url, "/metrics") == 0 || strcmp(url, "/") == 0)
		return serve_fleet(x, c, url);
	if (strcmp(url, "/sites") == 0 || strcmp(url, "/api/v1/sites") == 0)
		return serve_sites(x, c, url[1] == 'a');
	if (dash_page_is(url))
		return serve_page(x, c, url);
	if (strncmp(url, "/api/v1/", 8) == 0) {
		struct expo_req q = { url, conn_arg, c };

		if (expo_api_is_report(&q))
			return serve_report(x, c, url, con_cls);
		return serve_api(x, c, url);
	}
	return reply_text(c, 404, "not found\n");
}

/* --- setup --- */

static int
load_secrets(struct expo *x, const struct wp_conf *c, struct wp_err *err)
{
	if (c->http_user != NULL) {
		if ((x->user = strdup(c->http_user)) == NULL)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		if ((x->pass = secret_load(c->http_password_file,
		    c->http_password_env, err)) == NULL) {
			err_prefix(err, "collector: http password");
			return -1;
		}
	}
	if (c->tls_cert_file == NULL)
		return 0;
	/* a certificate is public: read without the privacy check */
	if ((x->cert = listen_read_cert(c->tls_cert_file)) == NULL)
		return err_set(err, WP_E_CONFIG, "collector: tls_cert_file "
		    "%s: cannot read (or empty, or over 1 MiB)",
		    c->tls_cert_file);
	if ((x->key = secret_load(c->tls_key_file, NULL, err)) == NULL) {
		err_prefix(err, "collector: tls_key_file");
		return -1;
	}
	return 0;
}

static int
start(struct expo *x, const struct wp_conf *c, struct wp_err *err)
{
	struct sockaddr_storage ss = { 0 };
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	    MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET;
	const union MHD_DaemonInfo *di;

	if (listen_resolve("listen", c->listen, &ss, err) == -1)
		return -1;
	if (x->cert != NULL) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
			return err_set(err, WP_E_CONFIG, "collector: TLS "
			    "configured but libmicrohttpd has no TLS");
		flags |= MHD_USE_TLS;
	}
	if ((x->guard = guard_new(x->loop, &ss, c->listen, err)) == NULL)
		return -1;
	/* the guard keeps to its own limits; MHD's leave room for the
	 * connections it has shut down and MHD has not yet closed */
	x->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, x,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)(2 * GUARD_MAX_CONNS),
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)GUARD_IDLE_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, x,
	    MHD_OPTION_NOTIFY_CONNECTION, guard_notify, x->guard,
	    MHD_OPTION_EXTERNAL_LOGGER, listen_mhd_log, "http",
	    MHD_OPTION_UNESCAPE_CALLBACK, unescape, x,
	    x->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, x->cert,
	    MHD_OPTION_HTTPS_MEM_KEY, x->key, MHD_OPTION_END);
	if (x->d == NULL)
		return err_set(err, WP_E_CONFIG, "collector: cannot listen on "
		    "%s: %s", c->listen, errno ? strerror(errno) :
		    "libmicrohttpd refused");
	if ((di = MHD_get_daemon_info(x->d, MHD_DAEMON_INFO_EPOLL_FD)) == NULL)
		return err_set(err, WP_E_INTERNAL, "http: no epoll fd");
	x->epfd = di->epoll_fd;
	if (loop_add_fd(x->loop, x->epfd, LOOP_READ, on_epoll, x) == -1) {
		x->epfd = -1;
		return err_set(err, WP_E_INTERNAL, "http: loop_add_fd");
	}
	return guard_attach(x->guard, x->d, on_guard, x, err);
}

struct expo *
expo_new(struct loop *loop, struct collector *co, struct wp_err *err)
{
	const struct wp_conf *c = collector_conf(co);
	struct expo *x;

	if ((x = calloc(1, sizeof(*x))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	x->loop = loop;
	x->co = co;
	x->epfd = -1;
	atomic_init(&x->closing, false);
	if ((x->timer = loop_timer_new(loop, on_timer, x)) == NULL ||
	    (x->sampler = loop_timer_new(loop, on_sample, x)) == NULL ||
	    (x->hist = history_new(HIST_CAP)) == NULL ||
	    (x->attr = expo_attr_new()) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		goto fail;
	}
	if ((x->reports = workers_new(loop, REPORT_WORKERS, err)) == NULL)
		goto fail;
	if (load_secrets(x, c, err) == -1 || start(x, c, err) == -1)
		goto fail;
	if ((x->rw = rw_new(loop, c, err)) == NULL && err->class != WP_E_NONE)
		goto fail;
	if ((x->peers = peers_new(loop, c, err)) == NULL &&
	    err->class != WP_E_NONE)
		goto fail;
	peers_tick(x->peers);
	loop_timer_arm(x->sampler, clock_mono() + c->interval);
	expo_pump(x);
	log_info("serving %s on %s%s", x->cert ? "https" : "http", c->listen,
	    x->user ? " (basic auth)" : "");
	return x;
fail:
	expo_free(x);
	return NULL;
}

void
expo_free(struct expo *x)
{
	if (x == NULL)
		return;
	/* stop the scans, wait for the workers: every job is done and its
	 * connection resumed, which MHD must see before it stops; the
	 * connections' completions free the jobs */
	atomic_store(&x->closing, true);
	workers_free(x->reports);
	if (x->epfd != -1)
		loop_del_fd(x->loop, x->epfd);
	if (x->d != NULL)
		MHD_stop_daemon(x->d);	/* its connections leave the guard */
	guard_free(x->guard);
	loop_timer_free(x->timer);
	loop_timer_free(x->sampler);
	rw_free(x->rw);
	peers_free(x->peers);
	history_free(x->hist);
	expo_attr_free(x->attr);
	free(x->user);
	secret_free(x->pass);
	free(x->cert);
	secret_free(x->key);
	free(x);
}
