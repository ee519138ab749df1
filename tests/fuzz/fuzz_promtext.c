/*
 * fuzz_promtext.c - libFuzzer harness for the inband text decoders.
 *
 * The first input byte picks the mode (OpenMetrics or not) and where to
 * split the body into two chunks (streaming); the rest is the body.  It is
 * then fed to the streaming parser, and whole to the dcgm and engine
 * decoders.  Built and run by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/inband/dcgm.h"
#include "../../drivers/inband/engines.h"
#include "../../drivers/inband/promtext.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count(void *arg, const struct prom_sample *s, struct wp_err *err)
{
	size_t i;

	(void)err;
	/* Touch everything the callback is promised. */
	*(size_t *)arg += strlen(s->name) + strlen(s->family) +
	    strlen(s->help) + strlen(s->unit);
	for (i = 0; i < s->n_labels; i++)
		*(size_t *)arg += strlen(s->labels[i].name) +
		    strlen(s->labels[i].value);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dcgm_result dr;
	struct prom_opts o = { .max_line = 4096, .max_labels = 16,
	    .max_families = 256 };
	struct engine_result *er;
	struct prom_parser *p;
	struct wp_err err;
	const char *body;
	size_t n, cut, acc = 0;

	if (size < 1)
		return 0;
	o.openmetrics = data[0] & 1;
	body = (const char *)data + 1;
	n = size - 1;
	cut = n ? (data[0] >> 1) % (n + 1) : 0;
	if ((p = prom_new(&o, count, &acc, &err)) != NULL) {
		if (prom_feed(p, body, cut, &err) == 0 &&
		    prom_feed(p, body + cut, n - cut, &err) == 0)
			prom_finish(p, &err);
		prom_free(p);
	}
	dcgm_parse(body, n, NULL, &dr, &err);
	if ((er = malloc(sizeof(*er))) != NULL) {
		engines_parse(body, n, o.openmetrics, ENGINE_AUTO, er, &err);
		free(er);
	}
	return 0;
}
