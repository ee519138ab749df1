/*
 * fuzz_push.c - libFuzzer harness for what a BMC pushes
 * (drivers/redfish/redfish_push.c): the input is an SSE byte stream.  It
 * is framed twice, whole and in pieces (sizes from the first byte), with a
 * cap from the second; both must give the same events (a difference
 * aborts).  Each event's data is parsed as a MetricReport and turned into
 * the samples of a small plan, and read as the answers of subscription
 * requests (a collection, a member, a create).  Built and run by
 * tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/redfish/redfish_push.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EV	256

struct evs {
	uint64_t	 hash[MAX_EV];
	size_t		 n;
};

static uint64_t
fnv(const char *p, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* The same bytes as subscription answers (a collection, a member, a
 * create's body): bounded, no crash. */
static void
subscription_docs(const char *p, size_t n)
{
	static char uris[4][RF_URI_MAX];
	char uri[RF_URI_MAX];
	struct wp_err err;

	(void)rf_sub_members(p, n, uris, 4, &err);
	(void)rf_sub_has_context(p, n, "wattpath:h:1:n1/bmc");
	(void)rf_sub_uri_of(NULL, p, n, uri, sizeof(uri));
	(void)rf_sub_uri_of(p, p, n, uri, sizeof(uri));
}

static void
on_ev(void *arg, const struct rf_sse_event *ev)
{
	static struct rf_pick pk = { "/redfish/v1/Chassis/1/EnvironmentMetrics",
	    "/redfish/v1/Chassis/1/EnvironmentMetrics#/EnergyJoules", "" };
	static struct rf_series se = { .series = "wall/energy", .source = "s",
	    .name = "", .labels = "", .boundary = WP_B_WALL,
	    .quantity = WP_Q_ENERGY, .kind = WP_COUNTER, .pick = &pk,
	    .n_pick = 1 };
	struct rf_plan plan = { .series = &se, .n_series = 1 };
	struct evs *e = arg;
	struct rf_readings r;
	struct wp_sample *s;
	struct wp_err err;
	char id[64];
	uint64_t h = fnv(ev->data, ev->len, 14695981039346656037ull);

	h = fnv(ev->id, strlen(ev->id), fnv(ev->event, strlen(ev->event), h));
	if (e->n < MAX_EV)
		e->hash[e->n] = h ^ (uint64_t)ev->oversized;
	e->n++;
	if (ev->oversized || memchr(ev->data, '\0', ev->len) != NULL)
		return;
	rf_readings_init(&r);
	if (rf_push_parse(ev->data, ev->len, &r, id, sizeof(id), &err) > 0 &&
	    (s = calloc(r.n, sizeof(*s))) != NULL) {
		(void)rf_push_samples(&plan, &r, s, r.n, NULL);
		free(s);
	}
	rf_readings_fini(&r);
	subscription_docs(ev->data, ev->len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct evs a, b;
	struct rf_sse s;
	size_t step, i, cap;

	if (size < 2)
		return 0;
	step = (size_t)data[0] % 17 + 1;
	cap = 64 + (size_t)data[1] * 64;
	data += 2;
	size -= 2;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (rf_sse_init(&s, cap) < 0)
		return 0;
	rf_sse_feed(&s, (const char *)data, size, on_ev, &a);
	rf_sse_fini(&s);
	if (rf_sse_init(&s, cap) < 0)
		return 0;
	for (i = 0; i < size; i += step)
		rf_sse_feed(&s, (const char *)data + i, size - i < step ?
		    size - i : step, on_ev, &b);
	rf_sse_fini(&s);
	if (a.n != b.n || memcmp(a.hash, b.hash, sizeof(a.hash)) != 0)
		abort();	/* framing depends on how bytes arrive */
	return 0;
}
