/*
 * Unit tests: collector/http_wire.c - request bytes (exact), Basic auth
 * (RFC 4648 vectors), header injection refused; responses framed by
 * Content-Length, chunked coding and connection close, fed whole and split
 * at every byte; interim 1xx, 204, HEAD, HTTP/1.0, keep-alive decisions,
 * and every refusal: malformed status and headers, caps, bad lengths and
 * chunk sizes, truncation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/http_wire.h"

#define HEAD_MAX	4096
#define BODY_MAX	1024

struct parsed {
	int	 rc;		/* last http_rx_* result */
	long	 status;
	bool	 keep_alive;
	char	 body[2048];
	size_t	 len;
	char	 msg[160];
	char	 head[4096];
};

/* Feeds s in pieces of at most `step` bytes (0: whole), then EOF if asked. */
static void
parse_cap(const char *s, size_t n, size_t step, bool eof, bool no_body,
    size_t max_body, struct parsed *out)
{
	struct http_rx rx = { 0 };
	size_t off = 0, k;

	http_rx_init(&rx, HEAD_MAX, max_body, no_body);
	out->rc = HTTP_RX_MORE;
	while (off < n && out->rc == HTTP_RX_MORE) {
		k = step == 0 || n - off < step ? n - off : step;
		out->rc = http_rx_feed(&rx, s + off, k);
		off += k;
	}
	/* bytes after a whole response count too */
	if (out->rc == HTTP_RX_DONE && off < n)
		out->rc = http_rx_feed(&rx, s + off, n - off);
	if (eof && out->rc == HTTP_RX_MORE)
		out->rc = http_rx_eof(&rx);
	out->status = rx.status;
	out->keep_alive = rx.keep_alive;
	out->len = rx.body.len;
	snprintf(out->body, sizeof(out->body), "%s", rx.body.p ? rx.body.p : "");
	snprintf(out->head, sizeof(out->head), "%s", rx.head.p ? rx.head.p : "");
	snprintf(out->msg, sizeof(out->msg), "%s", rx.msg);
	http_rx_free(&rx);
}

static void
parse(const char *s, size_t n, size_t step, bool eof, bool no_body,
    struct parsed *out)
{
	parse_cap(s, n, step, eof, no_body, BODY_MAX, out);
}

/* Parses s whole and split at every step size: all must agree. */
static void
parse_all_ways(const char *s, bool eof, struct parsed *out)
{
	size_t n = strlen(s), step;
	struct parsed p;

	parse(s, n, 0, eof, false, out);
	for (step = 1; step < n; step++) {
		parse(s, n, step, eof, false, &p);
		assert_int_equal(p.rc, out->rc);
		assert_int_equal(p.status, out->status);
		assert_int_equal(p.keep_alive, out->keep_alive);
		assert_int_equal(p.len, out->len);
		assert_string_equal(p.body, out->body);
	}
}

static void
test_base64_vectors(void **state)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foob",
	    "fooba", "foobar" };
	static const char *const want[] = { "", "Zg==", "Zm8=", "Zm9v",
	    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char out[16];
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++) {
		http_base64((const unsigned char *)in[i], strlen(in[i]), out);
		assert_string_equal(out, want[i]);
	}
}

static void
test_request_bytes(void **state)
{
	const char *const hdrs[] = { "Accept: application/json",
	    "X-Auth-Token: abc", NULL };
	struct http_wire_req r = { .method = "GET",
	    .target = "/redfish/v1/Chassis?$select=Id", .host = "10.0.0.1:8443",
	    .headers = hdrs, .user_agent = "wattpath/0" };
	struct wbuf b = { 0 };
	char msg[128];

	(void)state;
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), 0);
	assert_string_equal(b.p, "GET /redfish/v1/Chassis?$select=Id HTTP/1.1\r\n"
	    "Host: 10.0.0.1:8443\r\nUser-Agent: wattpath/0\r\n"
	    "Accept: application/json\r\nX-Auth-Token: abc\r\n\r\n");
	b.len = 0;
	r = (struct http_wire_req){ .method = "POST", .target = "/s",
	    .host = "h", .body = "{\"a\":1}", .body_len = 7,
	    .basic_user = "Aladdin", .basic_password = "open sesame" };
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), 0);
	assert_string_equal(b.p, "POST /s HTTP/1.1\r\nHost: h\r\n"
	    "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n"
	    "Content-Type: application/json\r\nContent-Length: 7\r\n\r\n"
	    "{\"a\":1}");
	b.len = 0;
	r = (struct http_wire_req){ .method = "POST", .target = "/s",
	    .host = "h" };
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), 0);
	assert_non_null(strstr(b.p, "Content-Length: 0\r\n"));
	wbuf_free(&b);
}

static void
test_request_injection_refused(void **state)
{
	const char *const evil[] = { "X-A: b\r\nX-Injected: 1", NULL };
	const char *const nocolon[] = { "no colon here", NULL };
	struct http_wire_req r = { .method = "GET", .target = "/a", .host = "h" };
	struct wbuf b = { 0 };
	char msg[128];

	(void)state;
	r.headers = evil;
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	r.headers = nocolon;
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	r.headers = NULL;
	r.target = "/a HTTP/1.1\r\nHost: x";
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	r.target = "a";
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	r.target = "/a";
	r.host = "h\r\nX: y";
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	r.host = "h";
	r.method = "G ET";
	assert_int_equal(http_wire_request(&b, &r, msg, sizeof(msg)), -1);
	wbuf_free(&b);
}

static void
test_content_length(void **state)
{
	struct parsed p;

	(void)state;
	parse_all_ways("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	    "Content-Length: 11\r\n\r\n{\"a\": 1.5}\n", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.status, 200);
	assert_true(p.keep_alive);
	assert_string_equal(p.body, "{\"a\": 1.5}\n");
	assert_non_null(strstr(p.head, "Content-Type: application/json"));
	/* an identical duplicate is fine; LF-only lines too */
	parse_all_ways("HTTP/1.1 201 Created\nContent-Length: 2, 2\n"
	    "Location: /s/1\n\nok", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.status, 201);
	assert_string_equal(p.body, "ok");
	/* zero length */
	parse_all_ways("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false,
	    &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.len, 0);
}

static void
test_chunked(void **state)
{
	struct parsed p;

	(void)state;
	parse_all_ways("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n1;ext=\"a;b\"\r\n \r\nA \r\n0123456789\r\n"
	    "0\r\nX-Trailer: 1\r\n\r\n", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_true(p.keep_alive);
	assert_string_equal(p.body, "hello 0123456789");
	/* upper-case hex, no trailer, LF only */
	parse_all_ways("HTTP/1.1 200 OK\nTransfer-Encoding: gzip, Chunked\n\n"
	    "B\nhello world\n0\n\n", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_string_equal(p.body, "hello world");
	/* chunked wins over Content-Length, and the connection is closed */
	parse_all_ways("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_false(p.keep_alive);
	assert_string_equal(p.body, "ab");
}

static void
test_interim_and_bodiless(void **state)
{
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
	struct parsed p;

	(void)state;
	parse_all_ways("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n"
	    "X: y\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
	    false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.status, 200);
	assert_string_equal(p.body, "abc");
	assert_null(strstr(p.head, "Continue"));
	parse_all_ways("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
	    false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.len, 0);
	assert_true(p.keep_alive);
	parse_all_ways("HTTP/1.1 304 Not Modified\r\n\r\n", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	/* HEAD: the length describes a body that does not follow */
	parse(head, strlen(head), 0, false, true, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_int_equal(p.len, 0);
}

static void
test_keep_alive_rules(void **state)
{
	struct parsed p;

	(void)state;
	parse_all_ways("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, close\r\n"
	    "Content-Length: 1\r\n\r\nx", false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_false(p.keep_alive);
	parse_all_ways("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", false,
	    &p);
	assert_false(p.keep_alive);
	parse_all_ways("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
	    "Content-Length: 1\r\n\r\nx", false, &p);
	assert_true(p.keep_alive);
	/* no framing: the body ends with the connection */
	parse_all_ways("HTTP/1.0 200 OK\r\n\r\nuntil the end", true, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_false(p.keep_alive);
	assert_string_equal(p.body, "until the end");
	/* bytes past the response: not reusable */
	parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxJUNK", 43, 0,
	    false, false, &p);
	assert_int_equal(p.rc, HTTP_RX_DONE);
	assert_false(p.keep_alive);
	assert_string_equal(p.body, "x");
}

static void
expect_error(const char *s, bool eof, const char *needle)
{
	struct parsed p;

	parse_all_ways(s, eof, &p);
	assert_int_equal(p.rc, HTTP_RX_ERROR);
	if (strstr(p.msg, needle) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", s, p.msg, needle);
	assert_false(p.keep_alive);
}

static void
test_refusals(void **state)
{
	char big[HEAD_MAX + 200], *q;

	(void)state;
	expect_error("<html><body>Bad gateway</body></html>\r\n\r\n", false,
	    "status line");
	expect_error("HTTP/2 200\r\n\r\n", false, "status line");
	expect_error("HTTP/1.1 20 OK\r\n\r\n", false, "status line");
	expect_error("HTTP/1.1 200OK\r\n\r\n", false, "status line");
	expect_error("HTTP/1.1 099 Low\r\n\r\n", false, "out of range");
	expect_error("HTTP/1.1 101 Switching Protocols\r\n\r\n", false, "101");
	expect_error("\r\n\r\n", false, "status line");
	expect_error("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", false, "header");
	expect_error("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", false, "header");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false,
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", false,
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
	    "Content-Length: 2\r\n\r\n", false, "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", false,
	    "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: "
	    "99999999999999999999999\r\n\r\n", false, "Content-Length");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 1025\r\n\r\n", false,
	    "over 1024 bytes");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "401\r\n", false, "over 1024 bytes");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "zz\r\n", false, "chunk size");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "1234567890abcdef\r\n", false, "too large");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "2\r\nabX\r\n", false, "CRLF");
	expect_error("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true,
	    "truncated");
	expect_error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nab", true, "truncated");
	expect_error("HTTP/1.1 200 OK\r\nContent-Le", true, "truncated");
	expect_error("", true, "no response");
	/* an over-long header block, with no end in sight */
	q = big + sprintf(big, "HTTP/1.1 200 OK\r\n");
	while (q < big + sizeof(big) - 20)
		q += sprintf(q, "X-Pad: aaaaaaaaaa\r\n");
	expect_error(big, false, "headers over 4096 bytes");
}

/* Body over the cap when it is not announced (until EOF). */
static void
test_unannounced_body_cap(void **state)
{
	struct http_rx rx = { 0 };
	char chunk[600];

	(void)state;
	memset(chunk, 'x', sizeof(chunk));
	http_rx_init(&rx, HEAD_MAX, BODY_MAX, false);
	assert_int_equal(http_rx_feed(&rx, "HTTP/1.0 200 OK\r\n\r\n", 19),
	    HTTP_RX_MORE);
	assert_int_equal(http_rx_feed(&rx, chunk, sizeof(chunk)), HTTP_RX_MORE);
	assert_int_equal(http_rx_feed(&rx, chunk, sizeof(chunk)),
	    HTTP_RX_ERROR);
	assert_non_null(strstr(rx.msg, "over 1024"));
	/* and it stays failed */
	assert_int_equal(http_rx_feed(&rx, "x", 1), HTTP_RX_ERROR);
	assert_int_equal(http_rx_eof(&rx), HTTP_RX_ERROR);
	http_rx_free(&rx);
}

/* Every captured response in tests/fixtures/http/ parses whole. */
static void
test_fixtures(void **state)
{
	static const char *const files[] = { "sim-environment-metrics.txt",
	    "sim-404.txt", "peer-service-root.txt", "chunked-trailer.txt",
	    "interim-then-created.txt", "http10-until-close.txt" };
	static const long status[] = { 200, 404, 200, 200, 201, 200 };
	char path[256], buf[8192];
	struct parsed p;
	size_t i, n;
	FILE *f;

	(void)state;
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "tests/fixtures/http/%s", files[i]);
		if ((f = fopen(path, "rb")) == NULL)
			fail_msg("cannot open %s (run from the repository root)",
			    path);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		parse_cap(buf, n, 0, true, false, sizeof(buf), &p);
		if (p.rc != HTTP_RX_DONE)
			fail_msg("%s: %s", files[i], p.msg);
		assert_int_equal(p.status, status[i]);
		assert_true(p.len > 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64_vectors),
		cmocka_unit_test(test_request_bytes),
		cmocka_unit_test(test_request_injection_refused),
		cmocka_unit_test(test_content_length),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_interim_and_bodiless),
		cmocka_unit_test(test_keep_alive_rules),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_unannounced_body_cap),
		cmocka_unit_test(test_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
