/* remote_write.c - batches to remote-write receivers (remote_write.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "expo_metrics.h"
#include "remote_write.h"
#include "../lib/diskq.h"
#include "../lib/http.h"
#include "../lib/log.h"
#include "../lib/loop.h"
#include "../lib/promwrite.h"
#include "../lib/secret.h"
#include "../lib/workers.h"

#define BACKOFF_MIN	(1 * WP_SEC)
#define BACKOFF_MAX	(60 * WP_SEC)
#define HEADERS_MAX	24		/* the protocol's 3, the config's */
#define LABELS_MAX	16		/* the config's labels, instance */
#define DESTS_MAX	8		/* as conf_rw.c allows */
#define ANSWER_MAX	(1u << 20)	/* a receiver's answer body */

/* One receiver: its queue, its connection, its counters. */
struct rw_dest {
	struct rw		*w;
	char			*name, *url, *ca_file, *user;
	char			*pass;		/* secret, or NULL */
	char			*hdr[HEADERS_MAX + 1];	/* "Name: value" */
	char			*extra[2 * LABELS_MAX + 1];	/* name, value, NULL */
	bool			 insecure;
	wp_time			 timeout;
	struct diskq		*q;
	struct http_conn	*conn;
	struct loop_timer	*retry;
	wp_time			 backoff;	/* 0: the last one went through */
	bool			 inflight;
	uint64_t		 seq, items;	/* the batch in flight */
	uint64_t		 sent, rejected, dropped, failures;
	wp_time			 last_ok;	/* realtime, 0 never */
};

struct rw {
	struct loop	*loop;
	struct http	*http;
	struct workers	*enc;		/* one thread: the encoding */
	size_t		 pending;	/* batches given to it, not yet back */
	bool		 closing;
	char		*sig;		/* the config it was made from */
	struct rw_dest	*d;
	size_t		 n;
};

static void	kick(struct rw_dest *d);

static void
on_retry(void *arg)
{
	kick(arg);
}

static void
later(struct rw_dest *d, const char *why)
{
	d->failures++;
	if (d->backoff == 0)
		log_warnx("remote_write %s: %s; the queue keeps the batches and "
		    "retries", d->name, why);
	else
		log_debug("remote_write %s: %s", d->name, why);
	d->backoff = d->backoff ? d->backoff * 2 : BACKOFF_MIN;
	if (d->backoff > BACKOFF_MAX)
		d->backoff = BACKOFF_MAX;
	loop_timer_arm(d->retry, clock_mono() + d->backoff);
}

static void
on_done(void *arg, const struct http_resp *r, const struct wp_err *err)
{
	struct rw_dest *d = arg;
	char why[160];

	d->inflight = false;
	if (err != NULL || r == NULL) {
		diskq_unmark(d->q);
		later(d, err ? err->msg : "no answer");
		return;
	}
	if (r->status >= 200 && r->status < 300) {
		diskq_pop(d->q, d->seq);
		d->sent += d->items;
		d->last_ok = clock_real();
		if (d->backoff != 0)
			log_info("remote_write %s: the receiver takes batches "
			    "again (%zu queued)", d->name, diskq_len(d->q));
		d->backoff = 0;
	} else if (r->status >= 400 && r->status < 500 && r->status != 408 &&
	    r->status != 429) {
		log_warnx("remote_write %s: batch %" PRIu64 " of %" PRIu64
		    " samples refused (HTTP %ld: %.120s); dropped", d->name,
		    d->seq, d->items, r->status, r->body ? r->body : "");
		diskq_pop(d->q, d->seq);
		d->rejected += d->items;
	} else {
		diskq_unmark(d->q);
		snprintf(why, sizeof(why), "HTTP %ld", r->status);
		later(d, why);
		return;
	}
	kick(d);
}

/* Starts sending the oldest batch, unless one is in flight or waiting
 * for its backoff. */
static void
kick(struct rw_dest *d)
{
	struct http_req_opts o = { .method = "POST", .url = d->url,
	    .content_type = "application/x-protobuf",
	    .headers = (const char *const *)d->hdr, .basic_user = d->user,
	    .basic_password = d->pass, .ca_file = d->ca_file,
	    .insecure = d->insecure, .timeout = d->timeout,
	    .max_body = ANSWER_MAX };
	struct wp_err err;
	uint8_t *body;
	size_t len;
	int rc, tries;

	if (d->inflight || loop_timer_armed(d->retry))
		return;
	for (tries = 0; tries < 16; tries++) {
		rc = diskq_peek(d->q, &body, &len, &d->seq, &d->items,
		    &d->dropped, &err);
		if (rc == 1)
			return;
		if (rc == 0)
			break;
		log_warnx("remote_write %s: %s", d->name, err.msg);
	}
	if (rc != 0)
		return;
	o.body = (const char *)body;
	o.body_len = len;
	rc = http_start(d->conn, &o, on_done, d, &err);
	free(body);
	if (rc == -1) {
		diskq_unmark(d->q);
		later(d, err.msg);
		return;
	}
	d->inflight = true;
}

/* One batch on its way: the text to the worker, a body per receiver
 * back (each its own labels). */
struct rw_job {
	struct rw	*w;
	char		*text;		/* owned until encoded */
	size_t		 len;
	int64_t		 ts_ms;
	bool		 ran;
	uint8_t		*body[DESTS_MAX];	/* owned */
	size_t		 blen[DESTS_MAX], n[DESTS_MAX];
	struct wp_err	 err;
};

/* On the worker: parse, pack, compress, per receiver (their labels are
 * not changed after rw_new). */
static void
job_run(void *arg)
{
	struct rw_job *j = arg;
	size_t i;

	for (i = 0; i < j->w->n; i++)
		if (promwrite_encode(j->text, j->len, j->ts_ms,
		    (const char *const *)j->w->d[i].extra, &j->body[i],
		    &j->blen[i], &j->n[i], &j->err) == -1)
			break;
	free(j->text);
	j->text = NULL;
	j->ran = true;
}

/* On the loop: each body into its queue, then sending. */
static void
job_done(void *arg)
{
	struct rw_job *j = arg;
	struct rw *w = j->w;
	struct wp_err err;
	size_t i;

	w->pending--;
	if (!j->ran)		/* never run: the pool is closing */
		log_warnx("remote_write: a batch was not encoded before the "
		    "stop");
	else if (*j->err.msg)
		log_warnx("remote_write: %s", j->err.msg);
	for (i = 0; i < w->n; i++) {
		struct rw_dest *d = &w->d[i];

		if (j->body[i] != NULL && diskq_push(d->q, j->body[i],
		    j->blen[i], j->n[i], &d->dropped, &err) == -1) {
			d->dropped += j->n[i];
			log_warnx("remote_write %s: %s; %zu samples dropped",
			    d->name, err.msg, j->n[i]);
		}
		if (!w->closing)
			kick(d);
		free(j->body[i]);
	}
	free(j->text);
	free(j);
}

void
rw_push(struct rw *w, char *text, size_t len, wp_time ts)
{
	struct rw_job *j;
	struct wp_err err;

	if (w == NULL || w->n == 0 || (j = calloc(1, sizeof(*j))) == NULL) {
		if (w != NULL)
			log_warnx("remote_write: out of memory: a batch lost");
		free(text);
		return;
	}
	*j = (struct rw_job){ .w = w, .text = text, .len = len,
	    .ts_ms = ts / WP_MS };
	/* one key: batches are encoded and queued in their order */
	if (workers_submit(w->enc, "remote_write", job_run, job_done, j,
	    &err) == -1) {
		log_warnx("remote_write: %s: a batch lost", err.msg);
		free(text);
		free(j);
		return;
	}
	w->pending++;
}

static int
dest_headers(struct rw_dest *d, const struct wp_remote_write *rc)
{
	const struct ynode *h;
	size_t k = 0;

	if ((d->hdr[k++] = strdup("Content-Encoding: snappy")) == NULL ||
	    (d->hdr[k++] = strdup("X-Prometheus-Remote-Write-Version: "
	    "0.1.0")) == NULL)
		return -1;
	for (h = rc->headers ? rc->headers->child : NULL; h != NULL &&
	    k < HEADERS_MAX; h = h->next)
		if (asprintf(&d->hdr[k++], "%s: %s", h->key, h->value) < 0) {
			d->hdr[k - 1] = NULL;
			return -1;
		}
	return 0;
}

/* The config's labels, and instance (this host and the listen port, as
 * a scrape would name it) unless they give one. */
static int
dest_labels(struct rw_dest *d, const struct wp_remote_write *rc,
    const char *listen)
{
	const struct ynode *l;
	const char *port = listen ? strrchr(listen, ':') : NULL;
	char host[256];
	size_t k = 0;
	bool inst = false;

	for (l = rc->labels ? rc->labels->child : NULL; l != NULL &&
	    k < 2 * (LABELS_MAX - 1); l = l->next) {
		if ((d->extra[k++] = strdup(l->key)) == NULL ||
		    (d->extra[k++] = strdup(l->value)) == NULL)
			return -1;
		inst |= strcmp(l->key, "instance") == 0;
	}
	if (inst)
		return 0;
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if ((d->extra[k++] = strdup("instance")) == NULL ||
	    asprintf(&d->extra[k], "%s%s", host, port ? port : "") < 0) {
		d->extra[k] = NULL;
		return -1;
	}
	return 0;
}

static int
dest_init(struct rw *w, struct rw_dest *d, const struct wp_remote_write *rc,
    const struct wp_conf *c, struct wp_err *err)
{
	const char *data_dir = c->data_dir;
	char dir[4096];

	d->w = w;
	d->timeout = rc->timeout;
	d->insecure = rc->insecure;
	if ((d->name = strdup(rc->name)) == NULL ||
	    (d->url = strdup(rc->url)) == NULL ||
	    (rc->ca_file && (d->ca_file = strdup(rc->ca_file)) == NULL) ||
	    (rc->username && (d->user = strdup(rc->username)) == NULL) ||
	    dest_headers(d, rc) == -1 || dest_labels(d, rc, c->listen) == -1 ||
	    (d->retry = loop_timer_new(w->loop, on_retry, d)) == NULL ||
	    (d->conn = http_conn_new(w->http, err)) == NULL)
		return err_set(err, WP_E_INTERNAL, "out of memory");
	if (rc->username != NULL && (d->pass = secret_load(rc->password_file,
	    rc->password_env, err)) == NULL) {
		err_prefix(err, "remote_write %s: password", rc->name);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/remote_write", data_dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(err, WP_E_CONFIG, "%s: %s", dir, strerror(errno));
	snprintf(dir, sizeof(dir), "%s/remote_write/%s", data_dir, rc->name);
	if ((d->q = diskq_open(dir, (uint64_t)rc->max_queue_bytes,
	    err)) == NULL)
		return -1;
	if (diskq_len(d->q) > 0)
		log_info("remote_write %s: %zu batches (%" PRIu64 " samples) "
		    "queued from before", d->name, diskq_len(d->q),
		    diskq_items(d->q));
	return 0;
}

/* Everything of c's remote_write that rw_new reads, as one string (a
 * new one, caller frees; NULL out of memory). */
static char *
rw_sig(const struct wp_conf *c)
{
	const struct ynode *h;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fprintf(f, "%s|%s\n", c->data_dir, c->listen ? c->listen : "");
	for (i = 0; i < c->n_remote_write; i++) {
		const struct wp_remote_write *r = &c->remote_write[i];

		fprintf(f, "%s|%s|%lld|%lld|%s|%d|%s|%s|%s", r->name, r->url,
		    (long long)r->timeout, r->max_queue_bytes,
		    r->ca_file ? r->ca_file : "", r->insecure,
		    r->username ? r->username : "",
		    r->password_file ? r->password_file : "",
		    r->password_env ? r->password_env : "");
		for (h = r->headers ? r->headers->child : NULL; h; h = h->next)
			fprintf(f, "|%s=%s", h->key, h->value ? h->value : "");
		for (h = r->labels ? r->labels->child : NULL; h; h = h->next)
			fprintf(f, "|l:%s=%s", h->key, h->value ? h->value : "");
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

bool
rw_same(const struct rw *w, const struct wp_conf *c)
{
	char *s;
	bool same;

	if (w == NULL)
		return c->n_remote_write == 0;
	if ((s = rw_sig(c)) == NULL)
		return true;	/* keep what runs */
	same = strcmp(s, w->sig) == 0;
	free(s);
	return same;
}

struct rw *
rw_new(struct loop *l, const struct wp_conf *c, struct wp_err *err)
{
	struct rw *w;
	size_t i;

	err_clear(err);
	if (c->n_remote_write == 0)
		return NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->d = calloc(c->n_remote_write, sizeof(*w->d))) == NULL) {
		free(w);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	w->loop = l;
	if ((w->sig = rw_sig(c)) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		rw_free(w);
		return NULL;
	}
	if ((w->http = http_new(l, 0, err)) == NULL ||
	    (w->enc = workers_new(l, 1, err)) == NULL) {
		rw_free(w);
		return NULL;
	}
	for (i = 0; i < c->n_remote_write; i++) {
		w->n = i + 1;
		if (dest_init(w, &w->d[i], &c->remote_write[i], c, err) == -1) {
			rw_free(w);
			return NULL;
		}
		log_info("remote_write %s: to %s", w->d[i].name, w->d[i].url);
	}
	return w;
}

void
rw_free(struct rw *w)
{
	size_t i, k;

	if (w == NULL)
		return;
	/* the batches being encoded still go into the queues */
	w->closing = true;
	workers_free(w->enc);
	for (i = 0; i < w->n; i++) {
		struct rw_dest *d = &w->d[i];

		if (d->q != NULL)
			log_info("remote_write %s: stopped: %" PRIu64 " samples "
			    "sent, %" PRIu64 " rejected, %" PRIu64 " dropped; "
			    "%zu batches (%" PRIu64 " samples) stay queued",
			    d->name, d->sent, d->rejected, d->dropped,
			    diskq_len(d->q), diskq_items(d->q));
		http_conn_free(d->conn);
		loop_timer_free(d->retry);
		diskq_close(d->q);
		free(d->name);
		free(d->url);
		free(d->ca_file);
		free(d->user);
		secret_free(d->pass);
		for (k = 0; d->hdr[k] != NULL; k++)
			free(d->hdr[k]);
		for (k = 0; d->extra[k] != NULL; k++)
			free(d->extra[k]);
	}
	http_free(w->http);
	free(w->sig);
	free(w->d);
	free(w);
}

/* One series: name{site="..",remote=".."[,result=".."]} v. */
static void
rw_series(FILE *f, const char *site, const char *name, const char *remote,
    const char *result, double v)
{
	char buf[64];

	fprintf(f, "%s{", name);
	if (site != NULL && *site) {
		fputs("site=\"", f);
		expo_label_escape(f, site);
		fputs("\",", f);
	}
	fputs("remote=\"", f);
	expo_label_escape(f, remote);
	fputc('"', f);
	if (result != NULL)
		fprintf(f, ",result=\"%s\"", result);
	expo_fmt_value(buf, sizeof(buf), v);
	fprintf(f, "} %s\n", buf);
}

static const struct {
	const char *name, *type, *help;
} rw_fam[] = {
	{ "wattpath_remote_write_samples_total", "counter", "Samples of the "
	    "exposition for a remote-write receiver, by result: sent (a 2xx), "
	    "rejected (a 4xx: never to be taken), dropped (the queue's bound, "
	    "or a disk error)." },
	{ "wattpath_remote_write_queue_batches", "gauge", "Batches (one per "
	    "interval) waiting on disk for the receiver." },
	{ "wattpath_remote_write_queue_samples", "gauge", "Samples in the "
	    "batches waiting for the receiver." },
	{ "wattpath_remote_write_queue_bytes", "gauge", "Bytes of the "
	    "receiver's queue on disk (bounded by max_queue_bytes)." },
	{ "wattpath_remote_write_failures_total", "counter", "Requests to "
	    "the receiver that failed and will be retried (5xx, 408, 429, "
	    "no connection, timeout)." },
	{ "wattpath_remote_write_last_success_timestamp_seconds", "gauge",
	    "When the receiver last took a batch (Unix time)." },
};

void
rw_metrics_write(FILE *f, const struct rw *w, const char *site)
{
	static const char *const res[] = { "sent", "rejected", "dropped" };
	size_t j, i, r;

	if (w == NULL)
		return;
	for (j = 0; j < sizeof(rw_fam) / sizeof(rw_fam[0]); j++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", rw_fam[j].name,
		    rw_fam[j].help, rw_fam[j].name, rw_fam[j].type);
		for (i = 0; i < w->n; i++) {
			const struct rw_dest *d = &w->d[i];
			const uint64_t v[] = { d->sent, d->rejected, d->dropped };

			switch (j) {
			case 0:
				for (r = 0; r < 3; r++)
					rw_series(f, site, rw_fam[j].name, d->name,
					    res[r], (double)v[r]);
				break;
			case 1: rw_series(f, site, rw_fam[j].name, d->name, NULL,
				    (double)diskq_len(d->q)); break;
			case 2: rw_series(f, site, rw_fam[j].name, d->name, NULL,
				    (double)diskq_items(d->q)); break;
			case 3: rw_series(f, site, rw_fam[j].name, d->name, NULL,
				    (double)diskq_bytes(d->q)); break;
			case 4: rw_series(f, site, rw_fam[j].name, d->name, NULL,
				    (double)d->failures); break;
			default:
				if (d->last_ok != 0)
					rw_series(f, site, rw_fam[j].name, d->name,
					    NULL, (double)d->last_ok / WP_SEC);
			}
		}
	}
}
