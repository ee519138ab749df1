/*
 * http.c - libcurl's multi socket API wired into the loop, after curl's
 * docs/examples/ephiperfifo.c: curl tells us which sockets to watch and
 * when to time out; the loop tells curl what happened.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <strings.h>

#include <curl/curl.h>

#include "http.h"
#include "loop.h"

struct buf {
	char	*p;
	size_t	 len, cap, max;
	int	 over;
};

struct shard;

struct http_conn {
	struct http	*h;
	struct shard	*sh;		/* the multi handle it runs on */
	CURL		*easy;
	int		 busy;		/* a request is started or queued */
	int		 queued;
	struct http_conn *qnext;
	struct curl_slist *hdrs;
	char		*url, *body, *method;
	struct buf	 resp, head;
	http_done_cb	 cb;
	void		*arg;
	wp_time		 started;
	char		 errbuf[CURL_ERROR_SIZE];
};

/*
 * A fleet's connections are spread over several multi handles of at most
 * SHARD_CONNS each: curl 7.88's curl_multi_remove_handle walks the whole
 * connection cache of its multi, which made every finished request cost
 * O(fleet).  A connection always runs on its shard, so keep-alive holds.
 */
#define SHARD_CONNS	64

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

#define HEADERS_MAX	(64u << 10)

static void check_done(struct shard *sh);
static void start_queued(struct http *h);

static int
buf_add(struct buf *b, const char *p, size_t n)
{
	size_t cap;
	char *np;

	if (b->len + n > b->max) {
		b->over = 1;
		return -1;
	}
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((np = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	struct http_conn *c = arg;

	return buf_add(&c->resp, p, size * n) == 0 ? size * n : 0;
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	struct http_conn *c = arg;

	if (n * size >= 5 && strncmp(p, "HTTP/", 5) == 0)
		c->head.len = 0;	/* a new response after a redirect */
	return buf_add(&c->head, p, size * n) == 0 ? size * n : 0;
}

/* --- loop glue --- */

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
	/* Keep each device's idle connection alive between polls. */
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
	if ((c->easy = curl_easy_init()) == NULL) {
		free(c);
		err_set(err, WP_E_INTERNAL, "out of memory");
		return NULL;
	}
	c->h = h;
	c->sh = sh;
	sh->nconns++;
	return c;
}

static void
req_reset(struct http_conn *c)
{
	curl_slist_free_all(c->hdrs);
	c->hdrs = NULL;
	free(c->url);
	free(c->body);
	free(c->method);
	c->url = c->body = c->method = NULL;
	free(c->resp.p);
	free(c->head.p);
	memset(&c->resp, 0, sizeof(c->resp));
	memset(&c->head, 0, sizeof(c->head));
	c->busy = c->queued = 0;
	c->cb = NULL;
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

void
http_cancel(struct http_conn *c)
{
	if (c == NULL || !c->busy)
		return;
	if (c->queued)
		unqueue(c->h, c);
	else {
		curl_multi_remove_handle(c->sh->multi, c->easy);
		c->h->inflight--;
		/* A slot is free: let the loop start a queued request soon. */
		if (c->h->qhead != NULL)
			loop_timer_arm(c->h->kick, clock_mono());
	}
	req_reset(c);
}

void
http_conn_free(struct http_conn *c)
{
	if (c == NULL)
		return;
	http_cancel(c);
	curl_easy_cleanup(c->easy);
	c->sh->nconns--;
	free(c);
}

int
http_busy(const struct http_conn *c)
{
	return c->busy;
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

static char *
xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int
set_tls(struct http_conn *c, const struct http_req_opts *o)
{
	CURL *e = c->easy;
	char pin[256];

	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
	if (o->pin_sha256 != NULL) {
		snprintf(pin, sizeof(pin), "%s%s",
		    strncmp(o->pin_sha256, "sha256//", 8) ? "sha256//" : "",
		    o->pin_sha256);
		if (curl_easy_setopt(e, CURLOPT_PINNEDPUBLICKEY, pin) != CURLE_OK)
			return -1;
	} else
		curl_easy_setopt(e, CURLOPT_PINNEDPUBLICKEY, NULL);
	return 0;
}

static int
set_headers(struct http_conn *c, const struct http_req_opts *o)
{
	const char *const *hp;
	char ct[128];

	for (hp = o->headers; hp != NULL && *hp != NULL; hp++)
		if ((c->hdrs = curl_slist_append(c->hdrs, *hp)) == NULL)
			return -1;
	if (o->body != NULL) {
		snprintf(ct, sizeof(ct), "Content-Type: %s",
		    o->content_type ? o->content_type : "application/json");
		if ((c->hdrs = curl_slist_append(c->hdrs, ct)) == NULL)
			return -1;
	}
	/* curl adds "Expect: 100-continue" to POSTs; BMCs hate it. */
	if ((c->hdrs = curl_slist_append(c->hdrs, "Expect:")) == NULL)
		return -1;
	return 0;
}

static int
prepare(struct http_conn *c, const struct http_req_opts *o)
{
	CURL *e = c->easy;
	wp_time to = o->timeout ? o->timeout : 10 * WP_SEC;
	wp_time cto = o->connect_timeout ? o->connect_timeout :
	    (to < 5 * WP_SEC ? to : 5 * WP_SEC);

	c->url = xstrdup(o->url);
	c->body = xstrdup(o->body);
	c->method = xstrdup(o->method ? o->method : "GET");
	if (c->url == NULL || c->method == NULL ||
	    (o->body && c->body == NULL) || set_headers(c, o) == -1)
		return -1;
	c->resp.max = o->max_body ? o->max_body : HTTP_MAX_BODY_DEFAULT;
	c->head.max = HEADERS_MAX;
	c->errbuf[0] = '\0';
	curl_easy_setopt(e, CURLOPT_URL, c->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, c);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(to / WP_MS));
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(cto / WP_MS));
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->resp.max);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, o->max_redirs > 0 ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_MAXREDIRS, o->max_redirs);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
	    strcmp(c->method, "GET") ? c->method : NULL);
	curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	if (c->body != NULL) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(c->body));
	}
	curl_easy_setopt(e, CURLOPT_HTTPAUTH, o->basic_user ?
	    CURLAUTH_BASIC : CURLAUTH_NONE);
	curl_easy_setopt(e, CURLOPT_USERNAME, o->basic_user);
	curl_easy_setopt(e, CURLOPT_PASSWORD, o->basic_password);
	return set_tls(c, o);
}

static int
launch(struct http_conn *c)
{
	if (curl_multi_add_handle(c->sh->multi, c->easy) != CURLM_OK)
		return -1;
	c->h->inflight++;
	c->queued = 0;
	c->started = clock_mono();
	return 0;
}

int
http_start(struct http_conn *c, const struct http_req_opts *o,
    http_done_cb cb, void *arg, struct wp_err *err)
{
	struct http *h = c->h;

	if (c->busy)
		return err_set(err, WP_E_INTERNAL, "request already in flight");
	if (prepare(c, o) == -1) {
		req_reset(c);
		return err_set(err, WP_E_CONFIG, "cannot set up request to %s",
		    o->url);
	}
	c->cb = cb;
	c->arg = arg;
	c->busy = 1;
	if (h->max_inflight > 0 && h->inflight >= h->max_inflight) {
		c->queued = 1;
		if (h->qtail)
			h->qtail->qnext = c;
		else
			h->qhead = c;
		h->qtail = c;
		return 0;
	}
	if (launch(c) == -1) {
		req_reset(c);
		return err_set(err, WP_E_INTERNAL, "curl_multi_add_handle failed");
	}
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
		if (launch(c) == -1) {
			struct wp_err e;
			http_done_cb cb = c->cb;
			void *arg = c->arg;

			err_set(&e, WP_E_INTERNAL, "curl_multi_add_handle failed");
			req_reset(c);
			cb(arg, NULL, &e);
		}
	}
}

static void
fail_msg(struct http_conn *c, CURLcode rc, struct wp_err *e)
{
	int class = WP_E_TRANSIENT;

	if (rc == CURLE_WRITE_ERROR && c->resp.over)
		rc = CURLE_FILESIZE_EXCEEDED;
	switch (rc) {
	case CURLE_FILESIZE_EXCEEDED:
		err_set(e, WP_E_PROTOCOL, "response body over %zu bytes",
		    c->resp.max);
		return;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_CACERT_BADFILE:
		class = WP_E_AUTH;
		break;
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_BAD_CONTENT_ENCODING:
		class = WP_E_PROTOCOL;
		break;
	default:
		break;
	}
	err_set(e, class, "%s%s%s", curl_easy_strerror(rc),
	    c->errbuf[0] ? ": " : "", c->errbuf);
}

static void
finish(struct http_conn *c, CURLcode rc)
{
	struct http_resp r = { 0 };
	http_done_cb cb = c->cb;
	void *arg = c->arg;
	struct wp_err e;
	char *ct = NULL, *body, *head, ctbuf[128];

	curl_multi_remove_handle(c->sh->multi, c->easy);
	c->h->inflight--;
	if (rc != CURLE_OK) {
		fail_msg(c, rc, &e);
		req_reset(c);
		cb(arg, NULL, &e);
		return;
	}
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &r.status);
	curl_easy_getinfo(c->easy, CURLINFO_CONTENT_TYPE, &ct);
	/* Take the buffers: the conn is reusable from inside the callback. */
	body = c->resp.p;
	head = c->head.p;
	r.len = c->resp.len;
	c->resp.p = c->head.p = NULL;
	r.body = body ? body : "";
	r.headers = head ? head : "";
	if (ct != NULL) {
		snprintf(ctbuf, sizeof(ctbuf), "%s", ct);
		r.content_type = ctbuf;
	}
	r.elapsed = clock_mono() - c->started;
	req_reset(c);
	cb(arg, &r, NULL);
	free(body);
	free(head);
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
		if (c != NULL)
			finish(c, m->data.result);
	}
	start_queued(sh->h);
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
			snprintf(buf, len, "%.*s", (int)(e - p), p);
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
