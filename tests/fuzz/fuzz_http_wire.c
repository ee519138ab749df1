/*
 * fuzz_http_wire.c - libFuzzer harness for the HTTP/1.1 response parser
 * (collector/http_wire.c), differential: the input is parsed whole and
 * again split at two points picked by its first bytes; both parses must
 * agree on the result, status, keep-alive and body, and stay within their
 * caps.  The first byte also picks HEAD and whether EOF follows.  Built and
 * run by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../collector/lib/http_wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD_MAX	2048
#define BODY_MAX	8192

struct outcome {
	int	 rc;
	long	 status;
	bool	 keep_alive;
	size_t	 len;
	uint64_t sum;		/* of the body bytes */
};

static void
run(const char *p, size_t n, size_t a, size_t b, bool head, bool eof,
    struct outcome *o)
{
	struct http_rx rx = { 0 };
	size_t cuts[3] = { a, b, n }, off = 0, i, j;

	http_rx_init(&rx, HEAD_MAX, BODY_MAX, head);
	o->rc = HTTP_RX_MORE;
	for (i = 0; i < 3; i++) {
		if (cuts[i] < off)
			continue;
		if (cuts[i] > off)
			o->rc = http_rx_feed(&rx, p + off, cuts[i] - off);
		off = cuts[i];
		if (o->rc == HTTP_RX_ERROR)
			break;
	}
	if (eof && o->rc == HTTP_RX_MORE)
		o->rc = http_rx_eof(&rx);
	if (rx.body.len > BODY_MAX || rx.head.len > HEAD_MAX)
		abort();
	if (rx.body.p != NULL && rx.body.p[rx.body.len] != '\0')
		abort();
	o->status = rx.status;
	o->keep_alive = rx.keep_alive;
	o->len = rx.body.len;
	o->sum = 0;
	for (j = 0; j < rx.body.len; j++)
		o->sum = o->sum * 31 + (unsigned char)rx.body.p[j];
	http_rx_free(&rx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome whole, split;
	size_t n, a, b;
	bool head, eof;

	if (size < 3)
		return 0;
	head = data[0] & 1;
	eof = data[0] & 2;
	n = size - 3;
	a = n ? data[1] % (n + 1) : 0;
	b = n ? data[2] * (n / 256 + 1) % (n + 1) : 0;
	if (b < a) {
		size_t t = a;

		a = b;
		b = t;
	}
	run((const char *)data + 3, n, n, n, head, eof, &whole);
	run((const char *)data + 3, n, a, b, head, eof, &split);
	/* Both must end alike.  After an error the body bytes held so far
	 * depend on where the input was cut (an over-cap body read until EOF
	 * stops at the cut that passed the cap): only the verdict counts.
	 * Once DONE, later bytes only clear keep_alive. */
	if (whole.rc != split.rc)
		abort();
	if (whole.rc == HTTP_RX_ERROR)
		return 0;
	if (whole.status != split.status || whole.len != split.len ||
	    whole.sum != split.sum ||
	    (whole.rc == HTTP_RX_DONE && whole.keep_alive != split.keep_alive))
		abort();
	return 0;
}
