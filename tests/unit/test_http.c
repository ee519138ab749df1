/*
 * Unit tests: collector/http.c on the loop, against a small HTTP server in
 * a thread on 127.0.0.1: body, headers, size cap, a server that never
 * answers, one that trickles, cancel, the global in-flight cap; kept-alive
 * connections reused (the server counts them), a kept-alive connection the
 * server drops retried once on a fresh one, chunked bodies, Connection:
 * close, and a reply that is not HTTP.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../collector/lib/http.h"
#include "../../collector/lib/loop.h"

struct server {
	int		 fd, port;
	volatile int	 stop;
	volatile int	 accepted;	/* connections so far */
	pthread_t	 th;
};

/* Reads one request's head; 0, or -1 when the client went away. */
static int
read_request(int c, char *path, size_t plen)
{
	char req[4096] = "", fmt[32];
	ssize_t n;
	size_t got = 0;

	while (got < sizeof(req) - 1 && strstr(req, "\r\n\r\n") == NULL) {
		if ((n = read(c, req + got, 1)) <= 0)	/* byte-wise: no overread */
			return -1;
		got += (size_t)n;
		req[got] = '\0';
	}
	snprintf(fmt, sizeof(fmt), "%%*s %%%zus", plen - 1);
	return sscanf(req, fmt, path) == 1 ? 0 : -1;
}

static void
say(int c, const char *s)
{
	(void)!write(c, s, strlen(s));
}

static const char ka_reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
    "\r\nka";

/* Keep-alive paths: answer each request on the connection; "/ka-drop"
 * drops the connection on its second request, unanswered. */
static void
serve_keepalive(int c, const char *first)
{
	char path[256];
	int nreq = 1;

	snprintf(path, sizeof(path), "%s", first);
	for (;;) {
		if (strcmp(path, "/ka-drop") == 0 && nreq == 2)
			return;
		if (strcmp(path, "/close") == 0) {
			say(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n"
			    "Content-Length: 5\r\n\r\nbye\r\n");
			return;
		}
		say(c, ka_reply);
		if (read_request(c, path, sizeof(path)) != 0)
			return;
		nreq++;
	}
}

static void
serve_one(int c, volatile int *stop)
{
	char path[256] = "", out[512];
	int i;

	if (read_request(c, path, sizeof(path)) != 0)
		return;
	if (strncmp(path, "/ka", 3) == 0 || strcmp(path, "/close") == 0) {
		serve_keepalive(c, path);
		return;
	}
	if (strcmp(path, "/chunked") == 0) {
		const char *r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
		    "\r\n\r\n4\r\n{\"a\"\r\n";

		say(c, r);
		usleep(20000);		/* the rest in another segment */
		say(c, "5;x=1\r\n: 2.5\r\n1\r\n}\r\n0\r\n\r\n");
		return;
	}
	if (strcmp(path, "/garbage") == 0) {
		say(c, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
		return;
	}
	if (strcmp(path, "/ok") == 0) {
		snprintf(out, sizeof(out), "HTTP/1.1 200 OK\r\nContent-Type: "
		    "application/json\r\nX-Auth-Token: tok123\r\n"
		    "Content-Length: 11\r\n\r\n{\"a\": 1.5}\n");
		(void)!write(c, out, strlen(out));
	} else if (strcmp(path, "/big") == 0) {
		static char chunk[65536];

		memset(chunk, 'x', sizeof(chunk));
		snprintf(out, sizeof(out), "HTTP/1.1 200 OK\r\n"
		    "Transfer-Encoding: identity\r\nConnection: close\r\n\r\n");
		(void)!write(c, out, strlen(out));
		for (i = 0; i < 200 && !*stop; i++)
			if (write(c, chunk, sizeof(chunk)) < 0)
				break;
	} else if (strcmp(path, "/trickle") == 0) {
		const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n";

		(void)!write(c, r, strlen(r));
		for (i = 0; i < 100 && !*stop; i++) {
			(void)!write(c, "x", 1);
			usleep(100000);
		}
	} else {	/* "/hang": accept, read, never answer */
		while (!*stop)
			usleep(10000);
	}
}

struct conn_arg {
	int		 fd;
	struct server	*s;
};

static void *
conn_main(void *p)
{
	struct conn_arg *a = p;

	serve_one(a->fd, &a->s->stop);
	close(a->fd);
	free(a);
	return NULL;
}

static void *
server_main(void *p)
{
	struct server *s = p;
	struct conn_arg *a;
	pthread_t th;
	int c;

	while (!s->stop) {
		if ((c = accept(s->fd, NULL, NULL)) == -1)
			continue;
		if ((a = malloc(sizeof(*a))) == NULL) {
			close(c);
			continue;
		}
		s->accepted++;
		*a = (struct conn_arg){ c, s };
		if (pthread_create(&th, NULL, conn_main, a) == 0)
			pthread_detach(th);
	}
	return NULL;
}

static int
server_start(void **state)
{
	struct server *s = calloc(1, sizeof(*s));
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct timeval tv = { 0, 100000 };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(s->fd, 64) == -1)
		return -1;
	getsockname(s->fd, (struct sockaddr *)&sa, &len);
	s->port = ntohs(sa.sin_port);
	pthread_create(&s->th, NULL, server_main, s);
	*state = s;
	return 0;
}

static int
server_stop(void **state)
{
	struct server *s = *state;

	s->stop = 1;
	pthread_join(s->th, NULL);
	close(s->fd);
	usleep(150000);		/* let connection threads see stop */
	free(s);
	return 0;
}

struct result {
	int		 done;
	long		 status;
	char		 body[64];
	char		 token[64];
	struct wp_err	 err;
	int		 failed;
	wp_time		 at;
	struct loop	*l;
	int		*left;
};

static void
on_done(void *arg, const struct http_resp *r, const struct wp_err *err)
{
	struct result *res = arg;

	res->done = 1;
	res->at = clock_mono();
	if (r == NULL) {
		res->failed = 1;
		res->err = *err;
	} else {
		res->status = r->status;
		snprintf(res->body, sizeof(res->body), "%s", r->body);
		http_resp_header(r, "x-auth-token", res->token,
		    sizeof(res->token));
	}
	if (--*res->left == 0)
		loop_stop(res->l);
}

static void
url(char *buf, size_t len, const struct server *s, const char *path)
{
	snprintf(buf, len, "http://127.0.0.1:%d%s", s->port, path);
}

static void
test_get_body_and_headers(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	int left = 1;
	struct result r = { .l = l, .left = &left };
	char u[128];
	struct http_req_opts o = { .url = u, .timeout = 5 * WP_SEC };

	url(u, sizeof(u), s, "/ok");
	assert_int_equal(http_start(c, &o, on_done, &r, NULL), 0);
	assert_false(r.done);	/* never called from inside http_start */
	loop_run(l);
	assert_false(r.failed);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{\"a\": 1.5}\n");
	assert_string_equal(r.token, "tok123");
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

static void
test_oversized_body_is_protocol_error(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	int left = 1;
	struct result r = { .l = l, .left = &left };
	char u[128];
	struct http_req_opts o = { .url = u, .timeout = 5 * WP_SEC,
	    .max_body = 1 << 20 };

	url(u, sizeof(u), s, "/big");
	http_start(c, &o, on_done, &r, NULL);
	loop_run(l);
	assert_true(r.failed);
	assert_int_equal(r.err.class, WP_E_PROTOCOL);
	assert_non_null(strstr(r.err.msg, "over"));
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

static void
test_silent_and_trickling_servers_do_not_delay_others(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c[3];
	int left = 3, i;
	struct result r[3];
	char u[3][128];
	const char *paths[3] = { "/hang", "/trickle", "/ok" };
	wp_time t0 = clock_mono();

	for (i = 0; i < 3; i++) {
		struct http_req_opts o = { .url = u[i], .timeout = WP_SEC };

		r[i] = (struct result){ .l = l, .left = &left };
		c[i] = http_conn_new(h, NULL);
		url(u[i], sizeof(u[i]), s, paths[i]);
		http_start(c[i], &o, on_done, &r[i], NULL);
	}
	loop_run(l);
	assert_true(r[0].failed && r[0].err.class == WP_E_TRANSIENT);
	assert_true(r[1].failed && r[1].err.class == WP_E_TRANSIENT);
	assert_false(r[2].failed);
	/* The good answer came long before the bad ones timed out. */
	assert_true(r[2].at - t0 < r[0].at - t0);
	assert_true(r[2].at - t0 < 500 * WP_MS);
	for (i = 0; i < 3; i++)
		http_conn_free(c[i]);
	http_free(h);
	loop_free(l);
}

static void
on_never(void *arg, const struct http_resp *r, const struct wp_err *err)
{
	(void)r;
	(void)err;
	*(int *)arg = 1;
}

static void
test_cancel_means_no_callback_and_cap_queues(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 1, NULL);	/* one in flight at most */
	struct http_conn *c1 = http_conn_new(h, NULL), *c2 = http_conn_new(h, NULL);
	int called = 0, left = 1;
	struct result r = { .l = l, .left = &left };
	char u1[128], u2[128];
	struct http_req_opts o1 = { .url = u1, .timeout = 5 * WP_SEC };
	struct http_req_opts o2 = { .url = u2, .timeout = 5 * WP_SEC };

	url(u1, sizeof(u1), s, "/hang");
	url(u2, sizeof(u2), s, "/ok");
	http_start(c1, &o1, on_never, &called, NULL);
	http_start(c2, &o2, on_done, &r, NULL);		/* queued behind c1 */
	loop_run_once(l, 100);
	assert_false(r.done);
	http_cancel(c1);				/* frees the slot */
	loop_run(l);
	assert_false(called);
	assert_int_equal(r.status, 200);
	http_conn_free(c1);
	http_conn_free(c2);
	http_free(h);
	loop_free(l);
}

static void
test_fetch_sync(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	char u[128], *body = NULL;
	long status = 0;
	struct wp_err err;
	struct http_req_opts o = { .url = u, .timeout = 5 * WP_SEC };

	url(u, sizeof(u), s, "/ok");
	assert_int_equal(http_fetch_sync(h, c, &o, &status, &body, NULL, NULL,
	    &err), 0);
	assert_int_equal(status, 200);
	assert_string_equal(body, "{\"a\": 1.5}\n");
	free(body);
	/* Nobody listens on port 1: a clear transient error. */
	snprintf(u, sizeof(u), "http://127.0.0.1:1/");
	assert_int_equal(http_fetch_sync(h, c, &o, &status, &body, NULL, NULL,
	    &err), -1);
	assert_int_equal(err.class, WP_E_TRANSIENT);
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

/* More connections than one multi handle holds: every request finishes,
 * and a second round reuses the kept-alive connections. */
static void
test_many_connections_over_shards(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	enum { N = 150 };
	struct http_conn *c[N];
	struct result r[N];
	char u[128];
	int left, i, round;

	url(u, sizeof(u), s, "/ok");
	for (i = 0; i < N; i++)
		c[i] = http_conn_new(h, NULL);
	for (round = 0; round < 2; round++) {
		left = N;
		for (i = 0; i < N; i++) {
			struct http_req_opts o = { .url = u, .timeout = 10 * WP_SEC };

			r[i] = (struct result){ .l = l, .left = &left };
			assert_int_equal(http_start(c[i], &o, on_done, &r[i],
			    NULL), 0);
		}
		loop_run(l);
		for (i = 0; i < N; i++) {
			assert_false(r[i].failed);
			assert_int_equal(r[i].status, 200);
		}
	}
	assert_int_equal(http_pending(h), 0);
	for (i = 0; i < N; i++)
		http_conn_free(c[i]);
	http_free(h);
	loop_free(l);
}

/* Runs requests one after the other on one connection owner. */
static void
sequential(struct server *s, struct http *h, struct loop *l,
    struct http_conn *c, const char *const *paths, int n, struct result *r)
{
	struct http_req_opts o = { .timeout = 5 * WP_SEC };
	char u[128];
	int i, left;

	(void)h;
	for (i = 0; i < n; i++) {
		left = 1;
		r[i] = (struct result){ .l = l, .left = &left };
		url(u, sizeof(u), s, paths[i]);
		o.url = u;
		assert_int_equal(http_start(c, &o, on_done, &r[i], NULL), 0);
		loop_run(l);
		assert_true(r[i].done);
	}
}

static void
test_keep_alive_reuses_the_connection(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	const char *const paths[] = { "/ka", "/ka", "/ka", "/close", "/ka" };
	struct result r[5];
	int before = s->accepted, i;

	sequential(s, h, l, c, paths, 5, r);
	for (i = 0; i < 5; i++) {
		assert_false(r[i].failed);
		assert_int_equal(r[i].status, 200);
	}
	assert_string_equal(r[0].body, "ka");
	assert_string_equal(r[3].body, "bye\r\n");
	/* three on the first connection, /close on it too, then a new one */
	assert_int_equal(s->accepted - before, 2);
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

static void
test_dropped_keep_alive_is_retried_once(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	const char *const paths[] = { "/ka-drop", "/ka-drop", "/ka-drop" };
	struct result r[3];
	int before = s->accepted, i;

	sequential(s, h, l, c, paths, 3, r);
	for (i = 0; i < 3; i++) {
		assert_false(r[i].failed);
		assert_int_equal(r[i].status, 200);
	}
	/* requests 2 and 3 each met a dropped connection and went again */
	assert_int_equal(s->accepted - before, 3);
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

static void
test_chunked_and_not_http(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	const char *const paths[] = { "/chunked", "/garbage", "/ok" };
	struct result r[3];

	sequential(s, h, l, c, paths, 3, r);
	assert_false(r[0].failed);
	assert_string_equal(r[0].body, "{\"a\": 2.5}");
	assert_true(r[1].failed);
	assert_int_equal(r[1].err.class, WP_E_PROTOCOL);
	assert_non_null(strstr(r[1].err.msg, "status line"));
	assert_false(r[2].failed);	/* the conn recovers */
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

/* A streamed body: handed over as it comes, never kept, so the cap is
 * per read; the done callback still ends the exchange. */
struct streamed {
	size_t	 bytes, calls;
	char	 text[64];
	long	 status;
};

static void
on_stream(void *arg, long status, const char *p, size_t n)
{
	struct streamed *st = arg;
	size_t have = strlen(st->text);

	st->status = status;
	st->bytes += n;
	st->calls++;
	if (have + n < sizeof(st->text))
		memcpy(st->text + have, p, n);
}

struct stream_result {
	struct streamed	 st;	/* first: the stream callback's arg */
	struct result	 r;
};

static void
on_stream_done(void *arg, const struct http_resp *r, const struct wp_err *e)
{
	struct stream_result *sr = arg;

	on_done(&sr->r, r, e);
}

static void
test_streamed_bodies(void **state)
{
	struct server *s = *state;
	struct loop *l = loop_new(NULL);
	struct http *h = http_new(l, 0, NULL);
	struct http_conn *c = http_conn_new(h, NULL);
	int left = 1;
	struct stream_result sr = { .r = { .l = l, .left = &left } };
	char u[128];
	struct http_req_opts o = { .url = u, .timeout = 20 * WP_SEC,
	    .max_body = 1 << 20, .stream = on_stream };

	url(u, sizeof(u), s, "/big");	/* 12.5 MiB, over the 1 MiB cap */
	assert_int_equal(http_start(c, &o, on_stream_done, &sr, NULL), 0);
	loop_run(l);
	assert_false(sr.r.failed);
	assert_int_equal(sr.st.status, 200);
	assert_int_equal(sr.st.bytes, (size_t)200 * 65536);
	assert_true(sr.st.calls > 1);
	assert_string_equal(sr.r.body, "");	/* nothing kept */
	memset(&sr, 0, sizeof(sr));
	sr.r = (struct result){ .l = l, .left = &left };
	left = 1;
	url(u, sizeof(u), s, "/chunked");	/* decoded, in two pieces */
	assert_int_equal(http_start(c, &o, on_stream_done, &sr, NULL), 0);
	loop_run(l);
	assert_false(sr.r.failed);
	assert_string_equal(sr.st.text, "{\"a\": 2.5}");
	http_conn_free(c);
	http_free(h);
	loop_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_body_and_headers),
		cmocka_unit_test(test_streamed_bodies),
		cmocka_unit_test(test_oversized_body_is_protocol_error),
		cmocka_unit_test(test_silent_and_trickling_servers_do_not_delay_others),
		cmocka_unit_test(test_cancel_means_no_callback_and_cap_queues),
		cmocka_unit_test(test_fetch_sync),
		cmocka_unit_test(test_many_connections_over_shards),
		cmocka_unit_test(test_keep_alive_reuses_the_connection),
		cmocka_unit_test(test_dropped_keep_alive_is_retried_once),
		cmocka_unit_test(test_chunked_and_not_http),
	};

	signal(SIGPIPE, SIG_IGN);	/* as the daemon: peers hang up */
	return cmocka_run_group_tests(tests, server_start, server_stop);
}
