/*
 * http.c - HTTP/1.1 exchanges for the drivers, on the loop.
 *
 * libcurl makes every connection: TCP, TLS with verification, CA files,
 * public-key pinning, connect timeouts, proxies (CURLOPT_CONNECT_ONLY on
 * the multi socket API, wired in after curl's docs/examples/ephiperfifo.c).
 * On each kept-alive connection the exchanges themselves are written and
 * parsed here (http_wire.c) through curl_easy_send and curl_easy_recv, so a
 * poll costs one TLS write and the reads of its answer.  A full libcurl
 * transfer per request (URL parse, connection-cache search and liveness
 * check, request assembly, state machine, cache walks on removal) cost
 * several times what the rest of a poll does.
 *
 * A connection's socket stays watched while it is idle: a peer that hangs
 * up is seen at once and the next request reconnects.  A request that
 * meets a kept-alive connection the peer closed before answering is sent
 * once more on a fresh connection, as browsers and libcurl do.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <openssl/ssl.h>

#include "http.h"
#include "http_wire.h"
#include "loop.h"
#include "strcopy.h"

#define HEADERS_MAX	(64u << 10)
#define RECV_CHUNK	(16u << 10)
#define CA_REREAD_S	60L	/* a ca_file parsed this long ago is read again */

/*
 * A fleet's connections are spread over several multi handles of at most
 * SHARD_CONNS each: curl 7.88 walks the whole connection cache of a multi
 * on curl_easy_send/recv of a connect-only handle and on removal, so a
 * shard keeps that walk short (each shard costs about 29 KB of curl's
 * hash tables).  A connection always runs on its shard.
 */
#define SHARD_CONNS	32

struct shard {
	struct http	 *h;
	CURLM		 *multi;
	struct loop_timer *timer;
	size_t		  nconns;
};

struct http {
	struct loop	 *loop;
	struct shard	**shards;
	size_t		  nshards;
	struct loop_timer *kick;	/* starts queued requests soon */
	int		  max_inflight, inflight;
	struct http_conn *qhead, *qtail;
};

enum link { L_NONE, L_CONNECTING, L_OPEN };
enum phase { P_IDLE, P_QUEUED, P_CONNECT, P_SEND, P_RECV };

/* Where a connection goes: the request's origin and TLS settings. */
struct origin {
	bool		 https, insecure;
	char		*authority;	/* "host[:port]" as in the URL */
	char		*ca_file, *pin;	/* or NULL */
};

struct http_conn {
	struct http	*h;
	struct shard	*sh;
	CURL		*easy;
	int		 link;		/* enum link */
	int		 fd;		/* L_OPEN: watched by us */
	int		 watching;	/* LOOP_READ|LOOP_WRITE now asked */
	bool		 in_multi;	/* easy is added to sh->multi */
	struct origin	 at;		/* where the link goes */
	unsigned	 exchanges;	/* answered on this link */
	/* the request */
	int		 phase;		/* enum phase */
	bool		 retried;
	struct http_conn *qnext;
	struct origin	 want;
	struct wbuf	 req;
	size_t		 sent;
	struct http_rx	*rx;		/* while a request is on: req_clear */
	http_done_cb	 cb;
	void		(*stream)(void *arg, long status, const char *p,
			    size_t n);
	void		*arg;
	wp_time		 timeout, connect_timeout, started;
	struct loop_timer *deadline;
	struct wp_err	 late;		/* failure to deliver from the loop */
	bool		 has_late, in_start;
	char		 errbuf[CURL_ERROR_SIZE];
};

static void check_done(struct shard *sh);
static void start_queued(struct http *h);
static void launch(struct http_conn *c);
static void on_io(int fd, int events, void *arg);
static void on_deadline(void *arg);
static void tls_read_ahead(struct http_conn *c);
static void fail_later(struct http_conn *c, int class, const char *msg);

/* --- curl multi glue (connections only) --- */

static void
on_fd(int fd, int events, void *arg)
{
	struct shard *sh = arg;
	int flags = 0, running;

	if (events & LOOP_READ)
		flags |= CURL_CSELECT_IN;
	if (events & LOOP_WRITE)
		flags |= CURL_CSELECT_OUT;
	if (events & LOOP_ERROR)
		flags |= CURL_CSELECT_ERR;
	curl_multi_socket_action(sh->multi, fd, flags, &running);
	check_done(sh);
}

static int
on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct shard *sh = userp;
	struct loop *l = sh->h->loop;
	int ev = 0;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (socketp != NULL)
			loop_del_fd(l, s);
		curl_multi_assign(sh->multi, s, NULL);
		return 0;
	}
	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		ev |= LOOP_READ;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		ev |= LOOP_WRITE;
	if (socketp == NULL) {
		if (loop_add_fd(l, s, ev, on_fd, sh) == -1)
			return -1;
		curl_multi_assign(sh->multi, s, sh);
	} else if (loop_mod_fd(l, s, ev) == -1)
		return -1;
	return 0;
}

static void
on_timer(void *arg)
{
	struct shard *sh = arg;
	int running;

	curl_multi_socket_action(sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_done(sh);
}

static int
on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct shard *sh = userp;

	(void)multi;
	if (timeout_ms < 0)
		loop_timer_disarm(sh->timer);
	else
		loop_timer_arm(sh->timer, clock_mono() + timeout_ms * WP_MS);
	return 0;
}

static void
on_kick(void *arg)
{
	start_queued(arg);
}

static void
shard_free(struct shard *sh)
{
	if (sh == NULL)
		return;
	if (sh->multi != NULL)
		curl_multi_cleanup(sh->multi);
	loop_timer_free(sh->timer);
	free(sh);
}

/* A shard with room for one more connection (a new one if all are full). */
static struct shard *
shard_for_new_conn(struct http *h)
{
	struct shard *sh, **v;
	size_t i;

	for (i = 0; i < h->nshards; i++)
		if (h->shards[i]->nconns < SHARD_CONNS)
			return h->shards[i];
	if ((v = realloc(h->shards, (h->nshards + 1) * sizeof(*v))) == NULL)
		return NULL;
	h->shards = v;
	if ((sh = calloc(1, sizeof(*sh))) == NULL ||
	    (sh->multi = curl_multi_init()) == NULL ||
	    (sh->timer = loop_timer_new(h->loop, on_timer, sh)) == NULL) {
		shard_free(sh);
		return NULL;
	}
	sh->h = h;
	curl_multi_setopt(sh->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(sh->multi, CURLMOPT_SOCKETDATA, sh);
	curl_multi_setopt(sh->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
	curl_multi_setopt(sh->multi, CURLMOPT_TIMERDATA, sh);
	curl_multi_setopt(sh->multi, CURLMOPT_MAXCONNECTS,
	    (long)(4 * SHARD_CONNS));
	h->shards[h->nshards++] = sh;
	return sh;
}

struct http *
http_new(struct loop *l, int max_inflight, struct wp_err *err)
{
	struct http *h;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		err_set(err, WP_E_INTERNAL, "curl_global_init failed");
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->kick = loop_timer_new(l, on_kick, h)) == NULL) {
		free(h);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	h->loop = l;
	h->max_inflight = max_inflight;
	return h;
}

void
http_free(struct http *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nshards; i++)
		shard_free(h->shards[i]);
	free(h->shards);
	loop_timer_free(h->kick);
	free(h);
}

/* --- origins --- */

static void
origin_free(struct origin *o)
{
	free(o->authority);
	free(o->ca_file);
	free(o->pin);
	memset(o, 0, sizeof(*o));
}

static bool
str_eq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool
origin_eq(const struct origin *a, const struct origin *b)
{
	return a->https == b->https && a->insecure == b->insecure &&
	    str_eq(a->authority, b->authority) &&
	    str_eq(a->ca_file, b->ca_file) && str_eq(a->pin, b->pin);
}

/* Sets *dst to a copy of src unless it already holds it.  0 or -1. */
static int
keep_str(char **dst, const char *src, size_t n)
{
	char *d;

	if (src == NULL) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	if (*dst != NULL && strlen(*dst) == n && memcmp(*dst, src, n) == 0)
		return 0;
	if ((d = strndup(src, n)) == NULL)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

static int
copy_origin(struct origin *dst, const struct origin *src)
{
	dst->https = src->https;
	dst->insecure = src->insecure;
	if (keep_str(&dst->authority, src->authority,
	    strlen(src->authority)) == -1 ||
	    keep_str(&dst->ca_file, src->ca_file,
	    src->ca_file ? strlen(src->ca_file) : 0) == -1 ||
	    keep_str(&dst->pin, src->pin, src->pin ? strlen(src->pin) : 0) == -1)
		return -1;
	return 0;
}

/*
 * Splits "http[s]://authority[/target]" (no user info, no fragment).
 * Sets the request's origin and *target ("/" when the URL has no path).
 */
static int
parse_url(struct http_conn *c, const struct http_req_opts *o,
    const char **target)
{
	const char *u = o->url, *a, *e;
	char pin[256];

	if (strncasecmp(u, "https://", 8) == 0) {
		c->want.https = true;
		a = u + 8;
	} else if (strncasecmp(u, "http://", 7) == 0) {
		c->want.https = false;
		a = u + 7;
	} else
		return -1;
	e = a + strcspn(a, "/?#");
	if (e == a || memchr(a, '@', (size_t)(e - a)) != NULL ||
	    strchr(e, '#') != NULL)
		return -1;
	*target = *e ? e : "/";
	if (**target == '?')
		return -1;		/* "http://h?q": no path */
	if (keep_str(&c->want.authority, a, (size_t)(e - a)) == -1)
		return -1;
	c->want.insecure = o->insecure;
	if (o->pin_sha256 != NULL)
		snprintf(pin, sizeof(pin), "%s%s",
		    strncmp(o->pin_sha256, "sha256//", 8) ? "sha256//" : "",
		    o->pin_sha256);
	if (keep_str(&c->want.ca_file, o->ca_file,
	    o->ca_file ? strlen(o->ca_file) : 0) == -1 ||
	    keep_str(&c->want.pin, o->pin_sha256 ? pin : NULL,
	    o->pin_sha256 ? strlen(pin) : 0) == -1)
		return -1;
	return 0;
}

/* --- connections --- */

struct http_conn *
http_conn_new(struct http *h, struct wp_err *err)
{
	struct http_conn *c;
	struct shard *sh;

	if ((sh = shard_for_new_conn(h)) == NULL ||
	    (c = calloc(1, sizeof(*c))) == NULL) {
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	if ((c->easy = curl_easy_init()) == NULL ||
	    (c->deadline = loop_timer_new(h->loop, on_deadline, c)) == NULL) {
		curl_easy_cleanup(c->easy);
		free(c);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	c->h = h;
	c->sh = sh;
	c->fd = -1;
	sh->nconns++;
	return c;
}

/* Drops the link: curl closes a connect-only connection on removal. */
static void
link_close(struct http_conn *c)
{
	if (c->link == L_OPEN && c->fd >= 0)
		loop_del_fd(c->h->loop, c->fd);
	if (c->in_multi)
		curl_multi_remove_handle(c->sh->multi, c->easy);
	c->in_multi = false;
	c->fd = -1;
	c->watching = 0;
	c->link = L_NONE;
	c->exchanges = 0;
}

static void
watch(struct http_conn *c, int events)
{
	if (c->watching == events)
		return;
	if (loop_mod_fd(c->h->loop, c->fd, events) == 0)
		c->watching = events;
}

/* The request's bytes hold secrets (Basic, tokens): wipe, keep the space. */
static void
req_clear(struct http_conn *c)
{
	if (c->req.p != NULL)
		explicit_bzero(c->req.p, c->req.cap);
	c->req.len = 0;
	c->sent = 0;
	c->phase = P_IDLE;
	c->retried = false;
	c->has_late = false;
	if (c->rx != NULL) {
		http_rx_free(c->rx);
		free(c->rx);
		c->rx = NULL;
	}
	c->cb = NULL;
	c->stream = NULL;
	c->arg = NULL;
	loop_timer_disarm(c->deadline);
}

static void
unqueue(struct http *h, struct http_conn *c)
{
	struct http_conn **pp, *prev = NULL;

	for (pp = &h->qhead; *pp != NULL; prev = *pp, pp = &(*pp)->qnext) {
		if (*pp == c) {
			*pp = c->qnext;
			if (h->qtail == c)
				h->qtail = prev;
			c->qnext = NULL;
			return;
		}
	}
}

/* A request slot is free: let the loop start a queued one soon. */
static void
slot_freed(struct http *h)
{
	h->inflight--;
	if (h->qhead != NULL)
		loop_timer_arm(h->kick, clock_mono());
}

void
http_cancel(struct http_conn *c)
{
	if (c == NULL || c->phase == P_IDLE)
		return;
	if (c->phase == P_QUEUED)
		unqueue(c->h, c);
	else {
		link_close(c);		/* an exchange half done */
		slot_freed(c->h);
	}
	req_clear(c);
}

void
http_conn_free(struct http_conn *c)
{
	if (c == NULL)
		return;
	http_cancel(c);
	link_close(c);
	curl_easy_cleanup(c->easy);
	loop_timer_free(c->deadline);
	wbuf_free(&c->req);
	origin_free(&c->at);
	origin_free(&c->want);
	c->sh->nconns--;
	free(c);
}

int
http_busy(const struct http_conn *c)
{
	return c->phase != P_IDLE;
}

int
http_pending(const struct http *h)
{
	const struct http_conn *c;
	int n = h->inflight;

	for (c = h->qhead; c != NULL; c = c->qnext)
		n++;
	return n;
}

/* --- ending an exchange --- */

static void
fail_msg(struct http_conn *c, CURLcode rc, struct wp_err *e)
{
	int class = WP_E_TRANSIENT;

	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_CACERT_BADFILE:
		class = WP_E_AUTH;
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		class = WP_E_CONFIG;
		break;
	default:
		break;
	}
	err_set(e, class, "%s%s%s", curl_easy_strerror(rc),
	    c->errbuf[0] ? ": " : "", c->errbuf);
}

/* Fails the request in flight: drops the link, frees the slot, calls back. */
static void
finish_fail(struct http_conn *c, const struct wp_err *e)
{
	struct http *h = c->h;
	http_done_cb cb = c->cb;
	void *arg = c->arg;
	struct wp_err copy = *e;

	if (c->in_start) {
		link_close(c);
		fail_later(c, e->class, e->msg);
		return;
	}
	link_close(c);
	slot_freed(h);
	req_clear(c);
	cb(arg, NULL, &copy);
}

static void
finish_ok(struct http_conn *c)
{
	struct http *h = c->h;
	http_done_cb cb = c->cb;
	void *arg = c->arg;
	struct http_resp r = { 0 };
	struct wbuf head = c->rx->head, body = c->rx->body;
	char ct[128], ipb[64] = "", *ip = NULL;

	/* Take the buffers: the conn is reusable from inside the callback. */
	memset(&c->rx->head, 0, sizeof(c->rx->head));
	memset(&c->rx->body, 0, sizeof(c->rx->body));
	r.status = c->rx->status;
	r.body = body.p ? body.p : "";
	r.len = body.len;
	r.headers = head.p ? head.p : "";
	if (http_resp_header(&r, "Content-Type", ct, sizeof(ct)) == 0)
		r.content_type = ct;
	if (c->easy != NULL && curl_easy_getinfo(c->easy, CURLINFO_PRIMARY_IP,
	    &ip) == CURLE_OK && ip != NULL)
		str_copy(ipb, sizeof(ipb), ip);
	r.peer_ip = ipb;
	r.elapsed = clock_mono() - c->started;
	/* answered before the whole request went out: the link is spoilt */
	if (c->rx->keep_alive && c->sent == c->req.len)
		c->exchanges++;
	else
		link_close(c);
	slot_freed(h);
	req_clear(c);
	cb(arg, &r, NULL);
	wbuf_free(&head);
	wbuf_free(&body);
}

/* A failure seen where no callback may run: delivered from the loop. */
static void
fail_later(struct http_conn *c, int class, const char *msg)
{
	err_set(&c->late, class, "%s", msg);
	c->has_late = true;
	loop_timer_arm(c->deadline, clock_mono());
}

static void
on_deadline(void *arg)
{
	struct http_conn *c = arg;
	struct wp_err e;

	if (c->has_late)
		e = c->late;
	else
		err_set(&e, WP_E_TRANSIENT, "timed out after %lld ms with %zu "
		    "bytes received", (long long)((clock_mono() - c->started) /
		    WP_MS), c->rx->received);
	finish_fail(c, &e);
}

/*
 * The peer closed or reset a kept-alive connection before a byte of the
 * answer: the request never reached a live server, so send it again on a
 * fresh connection, once.
 */
static bool
retry_fresh(struct http_conn *c)
{
	if (c->retried || c->exchanges == 0 || c->rx->received != 0)
		return false;
	link_close(c);
	c->retried = true;
	c->sent = 0;
	http_rx_init(c->rx, HEADERS_MAX, c->rx->max_body, c->rx->no_body);
	launch(c);
	return true;
}

/* --- the exchange --- */

static void
connect_link(struct http_conn *c)
{
	CURL *e = c->easy;
	char url[512];
	wp_time left = c->timeout - (clock_mono() - c->started);

	if (copy_origin(&c->at, &c->want) == -1) {
		fail_later(c, WP_E_INTERNAL, "out of memory");
		return;
	}
	snprintf(url, sizeof(url), "%s://%s/", c->at.https ? "https" : "http",
	    c->at.authority);
	c->errbuf[0] = '\0';
	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, c);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	/* through a proxy, a tunnel: our requests are in origin form */
	curl_easy_setopt(e, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
	    (long)((left > WP_MS ? left : WP_MS) / WP_MS));
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)(c->connect_timeout / WP_MS));
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, c->at.insecure ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, c->at.insecure ? 0L : 2L);
	curl_easy_setopt(e, CURLOPT_CAINFO, c->at.ca_file);
	/* A ca_file is the peer's only trust anchors: not also the system's
	 * directory of CAs (libcurl's default CApath).  It also lets libcurl
	 * share the file's parsed store among the shard's connections that
	 * name the same file, instead of parsing it into each; connections
	 * made a minute or more after it was read read it again, so an
	 * edited file is taken (libcurl's own default is a day). */
	if (c->at.ca_file != NULL) {
		curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
		curl_easy_setopt(e, CURLOPT_CA_CACHE_TIMEOUT, CA_REREAD_S);
	}
	if (c->at.pin != NULL &&
	    curl_easy_setopt(e, CURLOPT_PINNEDPUBLICKEY, c->at.pin) !=
	    CURLE_OK) {
		fail_later(c, WP_E_CONFIG, "public-key pinning is not "
		    "supported by this libcurl");
		return;
	}
	if (curl_multi_add_handle(c->sh->multi, e) != CURLM_OK) {
		fail_later(c, WP_E_INTERNAL, "curl_multi_add_handle failed");
		return;
	}
	c->in_multi = true;
	c->link = L_CONNECTING;
}

/* Fails the exchange over a transport error, or retries it once. */
static void
io_fail(struct http_conn *c, CURLcode rc)
{
	struct wp_err e;

	if (retry_fresh(c))
		return;
	fail_msg(c, rc, &e);
	finish_fail(c, &e);
}

static void
recv_some(struct http_conn *c)
{
	char buf[RECV_CHUNK];
	struct wp_err e;
	CURLcode rc;
	size_t n;
	int r;

	for (;;) {
		c->errbuf[0] = '\0';
		rc = curl_easy_recv(c->easy, buf, sizeof(buf), &n);
		if (rc == CURLE_AGAIN)
			return;
		if (rc != CURLE_OK) {
			io_fail(c, rc);
			return;
		}
		if (n == 0) {			/* the peer closed */
			if ((r = http_rx_eof(c->rx)) == HTTP_RX_DONE)
				finish_ok(c);
			else if (!retry_fresh(c)) {
				err_set(&e, WP_E_TRANSIENT, "%s", c->rx->msg);
				finish_fail(c, &e);
			}
			return;
		}
		r = http_rx_feed(c->rx, buf, n);
		if (c->stream != NULL && r != HTTP_RX_ERROR &&
		    c->rx->status != 0 && c->rx->body.len > 0) {
			c->stream(c->arg, c->rx->status, c->rx->body.p,
			    c->rx->body.len);
			c->rx->body.len = 0;	/* handed over: not kept */
			c->rx->body.p[0] = '\0';
		}
		if (r == HTTP_RX_DONE) {
			finish_ok(c);
			return;
		}
		if (r == HTTP_RX_ERROR) {
			err_set(&e, WP_E_PROTOCOL, "%s", c->rx->msg);
			finish_fail(c, &e);
			return;
		}
	}
}

static void
send_some(struct http_conn *c)
{
	CURLcode rc;
	size_t n;

	while (c->sent < c->req.len) {
		c->errbuf[0] = '\0';
		rc = curl_easy_send(c->easy, c->req.p + c->sent,
		    c->req.len - c->sent, &n);
		if (rc == CURLE_AGAIN) {
			watch(c, LOOP_READ | LOOP_WRITE);
			return;
		}
		if (rc != CURLE_OK) {
			io_fail(c, rc);
			return;
		}
		c->sent += n;
	}
	/* the first send attached the connection: its SSL is reachable now */
	if (c->exchanges == 0 && c->at.https)
		tls_read_ahead(c);
	c->phase = P_RECV;
	watch(c, LOOP_READ);
}

/*
 * Lets OpenSSL read whatever the socket holds in one go: an answer sent as
 * two TLS records (headers, body) is then one read, not four (header and
 * body of each record).  Only this code reads the connection, and it reads
 * until the answer is whole, so nothing is left waiting unseen.
 */
static void
tls_read_ahead(struct http_conn *c)
{
	struct curl_tlssessioninfo *ti = NULL;

	if (curl_easy_getinfo(c->easy, CURLINFO_TLS_SSL_PTR, &ti) == CURLE_OK &&
	    ti != NULL && ti->backend == CURLSSLBACKEND_OPENSSL &&
	    ti->internals != NULL)
		SSL_set_read_ahead(ti->internals, 1);
}

/* Takes over the socket of a new link from the shard's watch.  0 or -1. */
static int
watch_new_link(struct http_conn *c, int fd)
{
	struct loop *l = c->h->loop;

	if (loop_add_fd(l, fd, LOOP_READ, on_io, c) == 0)
		return 0;
	/* curl still had it watched for the connect: that is over */
	loop_del_fd(l, fd);
	return loop_add_fd(l, fd, LOOP_READ, on_io, c);
}

/* The connect-only transfer ended: the link is up, or the request fails. */
static void
link_done(struct http_conn *c, CURLcode rc)
{
	curl_socket_t s = CURL_SOCKET_BAD;
	struct wp_err e;

	if (rc == CURLE_OK &&
	    curl_easy_getinfo(c->easy, CURLINFO_ACTIVESOCKET, &s) == CURLE_OK &&
	    s != CURL_SOCKET_BAD && watch_new_link(c, (int)s) == 0) {
		c->link = L_OPEN;
		c->fd = (int)s;
		c->watching = LOOP_READ;
		c->phase = P_SEND;
		send_some(c);
		return;
	}
	if (rc == CURLE_OK)
		err_set(&e, WP_E_INTERNAL, "cannot watch the new connection");
	else
		fail_msg(c, rc, &e);
	finish_fail(c, &e);
}

static void
on_io(int fd, int events, void *arg)
{
	struct http_conn *c = arg;
	char b;
	size_t n;

	(void)fd;
	switch (c->phase) {
	case P_SEND:
		/* One call only: either may end the request and free c. */
		if (events & (LOOP_READ | LOOP_ERROR))
			recv_some(c);	/* an early answer (an error) */
		else
			send_some(c);
		break;
	case P_RECV:
		recv_some(c);
		break;
	default:
		/* Idle and readable: the peer hung up (or talks out of turn). */
		if (curl_easy_recv(c->easy, &b, 1, &n) != CURLE_AGAIN)
			link_close(c);
		break;
	}
}

/* Starts the request on its link (connecting first if needed). */
static void
launch(struct http_conn *c)
{
	if (c->phase == P_QUEUED || c->phase == P_IDLE) {
		c->h->inflight++;
		c->started = clock_mono();
		loop_timer_arm(c->deadline, c->started + c->timeout);
	}
	if (c->link == L_OPEN && !origin_eq(&c->at, &c->want))
		link_close(c);
	if (c->link == L_OPEN) {
		c->phase = P_SEND;
		send_some(c);
	} else {
		c->phase = P_CONNECT;
		connect_link(c);
	}
}

static void
check_done(struct shard *sh)
{
	struct http_conn *c;
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(sh->multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		c = NULL;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&c);
		if (c != NULL && c->link == L_CONNECTING)
			link_done(c, m->data.result);
	}
	start_queued(sh->h);
}

static int
prepare(struct http_conn *c, const struct http_req_opts *o, char *msg,
    size_t msglen)
{
	struct http_wire_req w = { .method = o->method ? o->method : "GET",
	    .headers = o->headers, .basic_user = o->basic_user,
	    .basic_password = o->basic_password, .body = o->body,
	    .body_len = o->body_len ? o->body_len :
	    o->body ? strlen(o->body) : 0,
	    .content_type = o->content_type,
	    .user_agent = "wattpath/" WP_VERSION };
	wp_time to = o->timeout ? o->timeout : 10 * WP_SEC;

	if (parse_url(c, o, &w.target) == -1) {
		snprintf(msg, msglen, "bad URL");
		return -1;
	}
	w.host = c->want.authority;
	c->req.len = 0;
	if (http_wire_request(&c->req, &w, msg, msglen) == -1)
		return -1;
	if (c->rx == NULL && (c->rx = calloc(1, sizeof(*c->rx))) == NULL) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	c->timeout = to;
	c->connect_timeout = o->connect_timeout ? o->connect_timeout :
	    (to < 5 * WP_SEC ? to : 5 * WP_SEC);
	http_rx_init(c->rx, HEADERS_MAX,
	    o->max_body ? o->max_body : HTTP_MAX_BODY_DEFAULT,
	    strcmp(w.method, "HEAD") == 0);
	return 0;
}

int
http_start(struct http_conn *c, const struct http_req_opts *o,
    http_done_cb cb, void *arg, struct wp_err *err)
{
	struct http *h = c->h;
	char msg[128];

	if (c->phase != P_IDLE)
		return err_set(err, WP_E_INTERNAL, "request already in flight");
	if (prepare(c, o, msg, sizeof(msg)) == -1) {
		req_clear(c);
		return err_set(err, WP_E_CONFIG, "cannot set up request to %s: "
		    "%s", o->url, msg);
	}
	c->cb = cb;
	c->stream = o->stream;
	c->arg = arg;
	if (h->max_inflight > 0 && h->inflight >= h->max_inflight) {
		c->phase = P_QUEUED;
		if (h->qtail)
			h->qtail->qnext = c;
		else
			h->qhead = c;
		h->qtail = c;
		return 0;
	}
	c->in_start = true;	/* no callback from inside http_start */
	launch(c);
	c->in_start = false;
	return 0;
}

static void
start_queued(struct http *h)
{
	struct http_conn *c;

	while (h->qhead != NULL &&
	    (h->max_inflight <= 0 || h->inflight < h->max_inflight)) {
		c = h->qhead;
		h->qhead = c->qnext;
		if (h->qhead == NULL)
			h->qtail = NULL;
		c->qnext = NULL;
		launch(c);
	}
}

int
http_resp_header(const struct http_resp *r, const char *name, char *buf,
    size_t len)
{
	size_t nl = strlen(name);
	const char *p = r->headers, *e;

	while (p != NULL && *p) {
		if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			p += nl + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			e = p + strcspn(p, "\r\n");
			while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			str_copy_n(buf, len, p, (size_t)(e - p));
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

struct sync_result {
	int	 done, status_ok;
	long	 status;
	char	*body, *headers;
	size_t	 len;
	struct wp_err err;
};

static void
on_sync(void *arg, const struct http_resp *r, const struct wp_err *err)
{
	struct sync_result *s = arg;

	s->done = 1;
	if (r == NULL) {
		s->err = *err;
		return;
	}
	s->status = r->status;
	s->len = r->len;
	s->body = malloc(r->len + 1);
	s->headers = strdup(r->headers);
	if (s->body != NULL) {
		memcpy(s->body, r->body, r->len);
		s->body[r->len] = '\0';
		s->status_ok = 1;
	}
}

int
http_fetch_sync(struct http *h, struct http_conn *c,
    const struct http_req_opts *o, long *status, char **body, size_t *len,
    char **headers, struct wp_err *err)
{
	struct sync_result s = { 0 };

	if (http_start(c, o, on_sync, &s, err) == -1)
		return -1;
	while (!s.done)
		if (loop_run_once(h->loop, 1000) == -1) {
			http_cancel(c);
			return err_set(err, WP_E_INTERNAL, "event loop failed");
		}
	if (!s.status_ok) {
		free(s.body);
		free(s.headers);
		if (s.err.class == WP_E_NONE)
			return err_set(err, WP_E_INTERNAL, "out of memory");
		*err = s.err;
		return -1;
	}
	*status = s.status;
	*body = s.body;
	if (len)
		*len = s.len;
	if (headers)
		*headers = s.headers;
	else
		free(s.headers);
	return 0;
}

int
http_status_class(long status)
{
	if (status >= 500 || status == 408 || status == 429)
		return WP_E_TRANSIENT;
	if (status == 401 || status == 403)
		return WP_E_AUTH;
	return WP_E_PROTOCOL;
}
