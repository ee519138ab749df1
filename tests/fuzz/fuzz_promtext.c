/*
 * fuzz_promtext.c - libFuzzer harness for the inband text decoders.
 *
 * The first input byte picks the mode (OpenMetrics or not) and where to
 * split the body into two chunks (streaming); the rest is the body.  It is
 * fed to the streaming parser whole and in the two chunks, then whole to
 * the dcgm and engine decoders.  Invariants: both parses agree (result,
 * samples, their names, values and lines: a chunk boundary changes
 * nothing); every sample has a metric name of [A-Za-z0-9_:] not starting
 * with a digit, NUL-terminated strings, lines in order within the input;
 * dcgm's GPUs fit its table.  Built and run by tests/fuzz/run.sh.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/inband/dcgm.h"
#include "../../drivers/inband/engines.h"
#include "../../drivers/inband/promtext.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct acc {
	size_t		 n, len;
	uint64_t	 sum;		/* of names, values and lines */
	unsigned long	 line, lines;
};

static uint64_t
mix(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = h * 31 + (unsigned char)*s;
	return h * 37;
}

static int
count(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	struct acc *a = arg;
	const char *c;
	uint64_t bits;
	size_t i;

	(void)err;
	if (s->name[0] == '\0' || (s->name[0] >= '0' && s->name[0] <= '9'))
		abort();
	for (c = s->name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || *c == ':'))
			abort();
	if (s->line < a->line || s->line > a->lines)
		abort();
	a->line = s->line;
	/* Touch everything the callback is promised. */
	a->len += strlen(s->family) + strlen(s->help) + strlen(s->unit);
	for (i = 0; i < s->n_labels; i++)
		a->sum = mix(mix(a->sum, s->labels[i].name),
		    s->labels[i].value);
	memcpy(&bits, &s->value, sizeof(bits));
	if (isnan(s->value))
		bits = 1;	/* any NaN */
	a->sum = mix(a->sum, s->name) + bits + s->line;
	a->n++;
	return 0;
}

static int
parse(const struct prom_opts *o, const char *body, size_t n, size_t cut,
    struct acc *a)
{
	struct prom_parser *p;
	struct wp_err err;
	size_t i;
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->lines = 1;
	for (i = 0; i < n; i++)
		a->lines += body[i] == '\n';
	if ((p = prom_new(o, count, a, &err)) == NULL)
		abort();
	if (prom_feed(p, body, cut, &err) == 0 &&
	    prom_feed(p, body + cut, n - cut, &err) == 0)
		rc = prom_finish(p, &err);
	prom_free(p);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dcgm_result dr;
	struct prom_opts o = { .max_line = 4096, .max_labels = 16,
	    .max_families = 256 };
	struct engine_result *er;
	struct wp_err err;
	struct acc whole, split;
	const char *body;
	size_t n, cut;
	int rw, rs;

	if (size < 1)
		return 0;
	o.openmetrics = data[0] & 1;
	body = (const char *)data + 1;
	n = size - 1;
	cut = n ? (data[0] >> 1) % (n + 1) : 0;
	rw = parse(&o, body, n, n, &whole);
	rs = parse(&o, body, n, cut, &split);
	/* after an error the samples before it were delivered alike too */
	if (rw != rs || whole.n != split.n || whole.sum != split.sum)
		abort();
	if (dcgm_parse(body, n, NULL, &dr, &err) == 0 &&
	    (dr.n < 1 || dr.n > DCGM_MAX_GPUS))
		abort();
	if ((er = malloc(sizeof(*er))) != NULL) {
		engines_parse(body, n, o.openmetrics, ENGINE_AUTO, er, &err);
		free(er);
	}
	return 0;
}
