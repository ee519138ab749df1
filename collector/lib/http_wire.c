/*
 * http_wire.c - HTTP/1.1 request bytes and a streaming response parser
 * (RFC 9112: message framing by Content-Length, chunked transfer coding or
 * connection close; interim 1xx responses skipped).
 */
#include <sys/types.h>

#include <ctype.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_wire.h"

enum {
	RX_HEAD, RX_BODY, RX_EOF_BODY, RX_CHUNK_SIZE, RX_CHUNK_DATA,
	RX_CHUNK_END, RX_TRAILER, RX_DONE, RX_FAILED
};

int
wbuf_add(struct wbuf *b, const void *p, size_t n)
{
	size_t cap;
	char *np;

	if (n > SIZE_MAX / 2 - b->len)
		return -1;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((np = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

void
wbuf_free(struct wbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int
wbuf_str(struct wbuf *b, const char *s)
{
	return wbuf_add(b, s, strlen(s));
}

/* ---- requests ---- */

void
http_base64(const unsigned char *in, size_t n, char *out)
{
	static const char a[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
		out[o++] = a[v & 63];
	}
	if (i < n) {
		v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

/* Bytes a field may hold: FIELD everywhere (a target, a host), FIELD_SP
 * where spaces may be too (a header): printable ASCII and 0x80-0xff, tabs
 * and spaces with FIELD_SP only; nothing that ends a line or the string
 * (0x00-0x1f, 0x7f). */
#define FIELD		0x01
#define FIELD_SP	0x02
#define FC(c)	((c) == '\t' || (c) == ' ' ? FIELD_SP : (c) < 0x20 || \
		 (c) == 0x7f ? 0 : FIELD | FIELD_SP)
#define FC4(c)	FC(c), FC((c) + 1), FC((c) + 2), FC((c) + 3)
#define FC16(c)	FC4(c), FC4((c) + 4), FC4((c) + 8), FC4((c) + 12)
#define FC64(c)	FC16(c), FC16((c) + 16), FC16((c) + 32), FC16((c) + 48)

static const unsigned char field_class[256] = {
	FC64(0), FC64(64), FC64(128), FC64(192)
};

/* Printable ASCII and tabs only: nothing that ends a line or the string. */
static bool
field_ok(const char *s, bool spaces)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char need = spaces ? FIELD_SP : FIELD;

	while (field_class[*p] & need)
		p++;
	return *p == '\0';
}

static int
basic_auth(struct wbuf *out, const char *user, const char *pw)
{
	size_t ul = strlen(user), pl = pw ? strlen(pw) : 0;
	unsigned char *up;
	char *b64;
	int rc = -1;

	if ((up = malloc(ul + pl + 2)) == NULL ||
	    (b64 = malloc(4 * ((ul + pl + 3) / 3) + 1)) == NULL) {
		free(up);
		return -1;
	}
	memcpy(up, user, ul);
	up[ul] = ':';
	if (pl)
		memcpy(up + ul + 1, pw, pl);
	http_base64(up, ul + pl + 1, b64);
	if (wbuf_str(out, "Authorization: Basic ") == 0 &&
	    wbuf_str(out, b64) == 0 && wbuf_str(out, "\r\n") == 0)
		rc = 0;
	explicit_bzero(up, ul + pl + 1);
	explicit_bzero(b64, strlen(b64));
	free(up);
	free(b64);
	return rc;
}

static bool
wants_length(const char *method)
{
	return strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
	    strcmp(method, "PATCH") == 0;
}

int
http_wire_request(struct wbuf *out, const struct http_wire_req *r, char *msg,
    size_t msglen)
{
	const char *const *h;
	char num[32];
	const char *m;
	int ok = 1;

	for (m = r->method; *m; m++)
		if (!isupper((unsigned char)*m)) {
			snprintf(msg, msglen, "bad method '%s'", r->method);
			return -1;
		}
	if (r->target[0] != '/' || !field_ok(r->target, false) ||
	    !field_ok(r->host, false)) {
		snprintf(msg, msglen, "bad request target or host");
		return -1;
	}
	for (h = r->headers; h != NULL && *h != NULL; h++)
		if (!field_ok(*h, true) || strchr(*h, ':') == NULL) {
			snprintf(msg, msglen, "bad request header");
			return -1;
		}
	ok &= wbuf_str(out, r->method) == 0 && wbuf_str(out, " ") == 0 &&
	    wbuf_str(out, r->target) == 0 &&
	    wbuf_str(out, " HTTP/1.1\r\nHost: ") == 0 &&
	    wbuf_str(out, r->host) == 0 && wbuf_str(out, "\r\n") == 0;
	if (r->user_agent)
		ok &= wbuf_str(out, "User-Agent: ") == 0 &&
		    wbuf_str(out, r->user_agent) == 0 &&
		    wbuf_str(out, "\r\n") == 0;
	for (h = r->headers; h != NULL && *h != NULL; h++)
		ok &= wbuf_str(out, *h) == 0 && wbuf_str(out, "\r\n") == 0;
	if (r->basic_user)
		ok &= basic_auth(out, r->basic_user, r->basic_password) == 0;
	if (r->body != NULL) {
		ok &= wbuf_str(out, "Content-Type: ") == 0 &&
		    wbuf_str(out, r->content_type ? r->content_type :
		    "application/json") == 0 && wbuf_str(out, "\r\n") == 0;
	}
	if (r->body != NULL || wants_length(r->method)) {
		snprintf(num, sizeof(num), "%zu", r->body ? r->body_len : 0);
		ok &= wbuf_str(out, "Content-Length: ") == 0 &&
		    wbuf_str(out, num) == 0 && wbuf_str(out, "\r\n") == 0;
	}
	ok &= wbuf_str(out, "\r\n") == 0;
	if (r->body != NULL)
		ok &= wbuf_add(out, r->body, r->body_len) == 0;
	if (!ok) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	return 0;
}

/* ---- responses ---- */

void
http_rx_init(struct http_rx *rx, size_t max_head, size_t max_body,
    bool no_body)
{
	http_rx_free(rx);
	rx->max_head = max_head;
	rx->max_body = max_body;
	rx->no_body = no_body;
	rx->length = -1;
}

void
http_rx_free(struct http_rx *rx)
{
	wbuf_free(&rx->head);
	wbuf_free(&rx->body);
	memset(rx, 0, sizeof(*rx));
}

static int
fail(struct http_rx *rx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct http_rx *rx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rx->msg, sizeof(rx->msg), fmt, ap);
	va_end(ap);
	rx->st = RX_FAILED;
	rx->keep_alive = false;
	return HTTP_RX_ERROR;
}

static int
over_body(struct http_rx *rx)
{
	return fail(rx, "response body over %zu bytes", rx->max_body);
}

/* Case-insensitive: does the comma-separated list s hold token t? */
static bool
has_token(const char *s, size_t n, const char *t, bool last_only)
{
	size_t tl = strlen(t), i = 0, a, b;
	bool found = false;

	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
			i++;
		a = i;
		while (i < n && s[i] != ',')
			i++;
		b = i;
		while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
			b--;
		if (b == a)
			continue;
		found = b - a == tl && strncasecmp(s + a, t, tl) == 0;
		if (found && !last_only)
			return true;
	}
	return found;
}

/* Content-Length: "42" or "42, 42"; -1 if malformed. */
static int64_t
parse_length(const char *s, size_t n)
{
	int64_t v = -1, cur;
	size_t i = 0;

	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n || !isdigit((unsigned char)s[i]))
			return -1;
		for (cur = 0; i < n && isdigit((unsigned char)s[i]); i++) {
			if (cur > (INT64_MAX - 9) / 10)
				return -1;
			cur = cur * 10 + (s[i] - '0');
		}
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (v != -1 && cur != v)
			return -1;
		v = cur;
		if (i < n && s[i++] != ',')
			return -1;
	}
	return v;
}

static int
header_line(struct http_rx *rx, const char *l, size_t n, bool *te, bool *cl)
{
	const char *colon = memchr(l, ':', n), *v;
	size_t nl, vl;
	int64_t len;

	if (n > 0 && (l[0] == ' ' || l[0] == '\t'))
		return 0;		/* obsolete line folding: ignored */
	if (colon == NULL || colon == l)
		return fail(rx, "malformed HTTP header line");
	nl = (size_t)(colon - l);
	if (memchr(l, ' ', nl) || memchr(l, '\t', nl))
		return fail(rx, "malformed HTTP header name");
	v = colon + 1;
	vl = n - nl - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (nl == 14 && strncasecmp(l, "content-length", 14) == 0) {
		if ((len = parse_length(v, vl)) < 0 ||
		    (rx->length >= 0 && len != rx->length))
			return fail(rx, "malformed Content-Length");
		rx->length = len;
		*cl = true;
	} else if (nl == 17 && strncasecmp(l, "transfer-encoding", 17) == 0) {
		*te = true;
		rx->chunked = has_token(v, vl, "chunked", true);
	} else if (nl == 10 && strncasecmp(l, "connection", 10) == 0) {
		rx->conn_close |= has_token(v, vl, "close", false);
		rx->conn_keep |= has_token(v, vl, "keep-alive", false);
	}
	return 0;
}

/* "HTTP/1.x NNN ..." */
static int
status_line(struct http_rx *rx, const char *l, size_t n)
{
	if (n < 12 || memcmp(l, "HTTP/1.", 7) != 0 ||
	    !isdigit((unsigned char)l[7]) || l[8] != ' ' ||
	    !isdigit((unsigned char)l[9]) || !isdigit((unsigned char)l[10]) ||
	    !isdigit((unsigned char)l[11]) || (n > 12 && l[12] != ' '))
		return fail(rx, "malformed HTTP status line");
	rx->minor = l[7] - '0';
	rx->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	if (rx->status < 100 || rx->status > 599)
		return fail(rx, "HTTP status %ld out of range", rx->status);
	return 0;
}

/* The line after the one at s, or end. */
static const char *
next_line(const char *s, const char *end)
{
	const char *e = memchr(s, '\n', (size_t)(end - s));

	return e ? e + 1 : end;
}

/* Length of the line at s (up to n) without its CR LF or LF. */
static size_t
line_len(const char *s, const char *end)
{
	const char *e = memchr(s, '\n', (size_t)(end - s));
	size_t n = (size_t)((e ? e : end) - s);

	return n > 0 && s[n - 1] == '\r' ? n - 1 : n;
}

/* A whole header block is in rx->head: parse it and pick the framing. */
static int
headers_done(struct http_rx *rx)
{
	const char *p = rx->head.p, *end = p + rx->head.len;
	bool te = false, cl = false;
	size_t n;

	n = line_len(p, end);
	if (status_line(rx, p, n) != 0)
		return HTTP_RX_ERROR;
	if (rx->status >= 100 && rx->status < 200) {
		if (rx->status == 101)
			return fail(rx, "unexpected 101 Switching Protocols");
		rx->head.len = 0;	/* interim: the real one follows */
		rx->head.p[0] = '\0';
		rx->ls = 0;
		return HTTP_RX_MORE;
	}
	for (p = next_line(p, end); p < end; p = next_line(p, end)) {
		if ((n = line_len(p, end)) == 0)
			break;
		if (header_line(rx, p, n, &te, &cl) != 0)
			return HTTP_RX_ERROR;
	}
	rx->keep_alive = rx->minor >= 1 ? !rx->conn_close :
	    rx->conn_keep && !rx->conn_close;
	if (te && cl)
		rx->keep_alive = false;	/* RFC 9112 6.3: TE wins, then close */
	if (rx->no_body || rx->status == 204 || rx->status == 304) {
		rx->st = RX_DONE;
		return HTTP_RX_DONE;
	}
	if (rx->chunked) {
		rx->st = RX_CHUNK_SIZE;
		return HTTP_RX_MORE;
	}
	if (te || rx->length < 0) {
		rx->until_eof = true;
		rx->keep_alive = false;
		rx->st = RX_EOF_BODY;
		return HTTP_RX_MORE;
	}
	if ((uint64_t)rx->length > rx->max_body)
		return over_body(rx);
	rx->left = (uint64_t)rx->length;
	rx->st = rx->left ? RX_BODY : RX_DONE;
	return rx->left ? HTTP_RX_MORE : HTTP_RX_DONE;
}

/* Header bytes, a line at a time; returns bytes used (<= n) or -1. */
static ssize_t
feed_head(struct http_rx *rx, const char *p, size_t n, int *rc)
{
	const char *e;
	size_t i = 0, seg, ll;

	*rc = HTTP_RX_MORE;
	while (i < n) {
		e = memchr(p + i, '\n', n - i);
		seg = e ? (size_t)(e - (p + i)) + 1 : n - i;
		if (seg > rx->max_head - rx->head.len) {
			*rc = fail(rx, "response headers over %zu bytes",
			    rx->max_head);
			return -1;
		}
		if (wbuf_add(&rx->head, p + i, seg) != 0) {
			*rc = fail(rx, "out of memory");
			return -1;
		}
		i += seg;
		if (e == NULL)
			break;
		/* a line ended; an empty one ends the block */
		ll = rx->head.len - 1 - rx->ls;
		if (ll == 0 || (ll == 1 && rx->head.p[rx->ls] == '\r')) {
			if (rx->ls == 0) {
				*rc = fail(rx, "malformed HTTP status line");
				return -1;
			}
			*rc = headers_done(rx);
			return *rc == HTTP_RX_ERROR ? -1 : (ssize_t)i;
		}
		rx->ls = rx->head.len;
	}
	return (ssize_t)i;
}

static int
body_bytes(struct http_rx *rx, const char *p, size_t n)
{
	if (n > rx->max_body - rx->body.len)
		return over_body(rx);
	if (wbuf_add(&rx->body, p, n) != 0)
		return fail(rx, "out of memory");
	return 0;
}

/* A line of the chunked framing; returns bytes used or -1.  Of trailer
 * lines only the length and first byte are kept (enough to see a blank
 * line). */
static ssize_t
take_line(struct http_rx *rx, const char *p, size_t n, bool *whole)
{
	const char *e = memchr(p, '\n', n);
	size_t k = e ? (size_t)(e - p) + 1 : n;

	*whole = e != NULL;
	if (rx->st == RX_TRAILER) {
		if (k > rx->max_head - rx->trailer) {
			fail(rx, "response trailers over %zu bytes",
			    rx->max_head);
			return -1;
		}
		rx->trailer += k;
		if (rx->nline == 0)
			rx->line[0] = p[0];
		rx->nline += k;
		return (ssize_t)k;
	}
	if (rx->nline + k > sizeof(rx->line) - 1) {
		fail(rx, "chunked body: line too long");
		return -1;
	}
	memcpy(rx->line + rx->nline, p, k);
	rx->nline += k;
	rx->line[rx->nline] = '\0';
	return (ssize_t)k;
}

static bool
blank_line(const char *l)
{
	return strcmp(l, "\n") == 0 || strcmp(l, "\r\n") == 0;
}

static int
chunk_size(struct http_rx *rx)
{
	const char *s = rx->line;
	uint64_t v = 0;
	int digits = 0;

	for (; isxdigit((unsigned char)*s); s++, digits++) {
		if (digits == 15)
			return fail(rx, "chunked body: chunk size too large");
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
		    (tolower((unsigned char)*s) - 'a' + 10));
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (digits == 0 || (*s != ';' && *s != '\r' && *s != '\n'))
		return fail(rx, "chunked body: malformed chunk size");
	if (v > rx->max_body - rx->body.len)
		return over_body(rx);
	rx->left = v;
	rx->st = v ? RX_CHUNK_DATA : RX_TRAILER;
	return 0;
}

/* After a line of chunked framing is whole. */
static int
framing_line(struct http_rx *rx)
{
	int rc = 0;

	switch (rx->st) {
	case RX_CHUNK_SIZE:
		rc = chunk_size(rx);
		break;
	case RX_CHUNK_END:
		if (!blank_line(rx->line))
			rc = fail(rx, "chunked body: no CRLF after a chunk");
		else
			rx->st = RX_CHUNK_SIZE;
		break;
	case RX_TRAILER:
		if (rx->nline == 1 || (rx->nline == 2 && rx->line[0] == '\r'))
			rx->st = RX_DONE;
		break;
	}
	rx->nline = 0;
	return rc;
}

int
http_rx_feed(struct http_rx *rx, const char *p, size_t n)
{
	int rc = HTTP_RX_MORE;
	ssize_t k;
	size_t take;
	bool whole;

	rx->received += n;
	while (n > 0) {
		switch (rx->st) {
		case RX_FAILED:
			return HTTP_RX_ERROR;
		case RX_DONE:
			rx->keep_alive = false;	/* bytes past the response */
			return HTTP_RX_DONE;
		case RX_HEAD:
			if ((k = feed_head(rx, p, n, &rc)) < 0)
				return HTTP_RX_ERROR;
			break;
		case RX_EOF_BODY:
			if (body_bytes(rx, p, n) != 0)
				return HTTP_RX_ERROR;
			k = (ssize_t)n;
			break;
		case RX_BODY:
		case RX_CHUNK_DATA:
			take = n < rx->left ? n : (size_t)rx->left;
			if (body_bytes(rx, p, take) != 0)
				return HTTP_RX_ERROR;
			if ((rx->left -= take) == 0)
				rx->st = rx->st == RX_BODY ? RX_DONE :
				    RX_CHUNK_END;
			k = (ssize_t)take;
			break;
		default:	/* chunk size, chunk end, trailer lines */
			if ((k = take_line(rx, p, n, &whole)) < 0)
				return HTTP_RX_ERROR;
			if (whole && framing_line(rx) != 0)
				return HTTP_RX_ERROR;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
	if (rx->st == RX_FAILED)
		return HTTP_RX_ERROR;
	return rx->st == RX_DONE ? HTTP_RX_DONE : HTTP_RX_MORE;
}

int
http_rx_eof(struct http_rx *rx)
{
	switch (rx->st) {
	case RX_DONE:
		rx->keep_alive = false;
		return HTTP_RX_DONE;
	case RX_EOF_BODY:
		rx->st = RX_DONE;
		return HTTP_RX_DONE;
	case RX_FAILED:
		return HTTP_RX_ERROR;
	case RX_HEAD:
		if (rx->received == 0)
			return fail(rx, "connection closed with no response");
		/* FALLTHROUGH */
	default:
		return fail(rx, "connection closed after %zu bytes, before the "
		    "response ended (truncated)", rx->received);
	}
}
