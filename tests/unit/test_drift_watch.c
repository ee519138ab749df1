/* test_drift_watch.c - the drift watch at run time (collector/drift_watch.c,
 * issue 23): window edges interpolated from polled counters, pairs fed
 * when every series has the window, one event per drift. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../collector/conf/conf.h"
#include "../../collector/drift_watch.h"
#include "../../collector/expo/dashboard_drift.h"
#include "../../collector/expo/expo_drift.h"
#include "../../collector/lib/log.h"
#include "../../model/counter.h"

struct seen {
	int	 n;
	int	 active[DK_N];
	size_t	 events;
	double	 usual[DK_N];
};

static int
collect(const struct drift_view *v, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->active[v->kind] += v->t->active;
	s->events += v->t->events;
	s->usual[v->kind] = v->t->usual;
	return 0;
}

static void
poll1(struct drift_watch *w, const char *target, const char *series,
    double t, double cum, double res, int first)
{
	struct wp_sample v;
	struct ingest_ctr c = { .valid = true, .cum = cum,
	    .flags = first ? CTR_DISCONT : 0 };

	assert_int_equal(sample_init(&v, series, WP_B_WALL, WP_Q_ENERGY,
	    WP_COUNTER), 0);
	v.resolution = res;
	drift_watch_poll(w, target, (wp_time)llround(t * WP_SEC), &v, &c, 1);
}

/* The dashboard lists the drifting pairs; /metrics has one series per
 * pair and family. */
static void
check_outputs(const struct drift_watch *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	dashboard_drift(f, w);
	fclose(f);
	assert_non_null(strstr(buf, "2 pairs watched, 2 drifting"));
	assert_non_null(strstr(buf, "<td>wall_outlet</td><td>n1</td>"
	    "<td>outlets/wall</td><td>0.0000</td><td>1.0000</td>"
	    "<td>-100.00 %</td>"));
	assert_non_null(strstr(buf, "<td>p1</td><td>inlet/outlets</td>"
	    "<td>-</td><td>1.0100</td><td>-</td>"));
	free(buf);
	buf = NULL;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(expo_drift_write(f, w), 0);
	fclose(f);
	assert_non_null(strstr(buf, "wattpath_drift_active{pair=\"wall_outlet\","
	    "name=\"n1\",a=\"wall\",b=\"outlets\"} 1\n"));
	assert_non_null(strstr(buf, "wattpath_drift_usual_ratio{pair="
	    "\"pdu_inlet\",name=\"p1\",a=\"outlets\",b=\"inlet\"} 1.01\n"));
	/* the PDU's outlets stopped: an infinite ratio is left out */
	assert_null(strstr(buf, "wattpath_drift_ratio{pair=\"pdu_inlet\""));
	assert_non_null(strstr(buf, "# TYPE wattpath_drift_events_total "
	    "counter\n"));
	free(buf);
}

/* A node on outlet 1 of PDU p1: wall 1000 W, outlet 1000 W, inlet
 * 1010 W, polled every 7 s (not a divisor of the 60 s window).  From
 * t = 1200 s the outlet stops counting. */
static void
test_dead_outlet_flagged_once(void **state)
{
	struct wp_outlet_ref o = { .pdu = "p1", .outlet = "1" };
	struct wp_node nd = { .name = "n1", .outlets = &o, .n_outlets = 1 };
	struct wp_pdu pdu = { .name = "p1" };
	struct wp_conf c;
	struct drift_watch *w;
	struct seen s;
	double t, out;
	int first = 1;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.nodes = &nd;
	c.n_nodes = 1;
	c.pdus = &pdu;
	c.n_pdus = 1;
	drift_settings_default(&c.drift);
	for (int k = 0; k < DK_N; k++)
		c.drift.window[k] = 60 * WP_SEC;
	c.drift.learn = 3;
	assert_non_null(w = drift_watch_new(&c));
	for (t = 1e6; t < 1e6 + 1200; t += 7, first = 0) {
		poll1(w, "n1/bmc", "wall/energy", t, 1000 * t, 1, first);
		poll1(w, "p1", "outlet/1/energy", t + 0.3, 1000 * (t + 0.3),
		    1, first);
		poll1(w, "p1", "inlet/1/energy", t + 0.3, 1010 * (t + 0.3),
		    1, first);
	}
	memset(&s, 0, sizeof(s));
	drift_watch_each(w, collect, &s);
	assert_int_equal(s.n, 2);	/* wall_outlet, pdu_inlet; no GPUs */
	assert_int_equal(s.events, 0);
	assert_true(fabs(s.usual[DK_WALL_OUTLET] - 1) < 1e-4);
	assert_true(fabs(s.usual[DK_PDU_INLET] - 1.01) < 1e-4);
	out = 1000 * (1e6 + 1200);
	for (; t < 1e6 + 1800; t += 7) {
		poll1(w, "n1/bmc", "wall/energy", t, 1000 * t, 1, 0);
		poll1(w, "p1", "outlet/1/energy", t + 0.3, out, 1, 0);
		poll1(w, "p1", "inlet/1/energy", t + 0.3, 1010 * (t + 0.3),
		    1, 0);
	}
	memset(&s, 0, sizeof(s));
	drift_watch_each(w, collect, &s);
	assert_int_equal(s.active[DK_WALL_OUTLET], 1);
	assert_int_equal(s.active[DK_PDU_INLET], 1);
	assert_int_equal(s.events, 2);
	check_outputs(w);
	drift_watch_free(w);
}

/* Every series of `in` polled every 7 s for 200 s (every other poll in
 * reverse order), each counting `kw` kJ a second: the series a watch over c
 * then holds, and in names (256 bytes) the pairs judged, as
 * "kind:name:last ratio " in drift_watch_each's order. */
static const struct { const char *tg, *series; double kw; } in[] = {
	{ "p1", "outlet/1/energy", 1 },		/* n2 */
	{ "p1", "outlet/2/energy", 1 },
	{ "p1", "outlet/10/energy", 1 },	/* n1 */
	{ "p1", "outlet/100/energy", 1 },
	{ "p1", "outlet/A3/energy", 1 },	/* n1 */
	{ "p1", "outlet/A/energy", 1 },
	{ "p1", "inlet/1/energy", 1 },
	{ "p1", "phase/L1/energy", 1 },
	{ "p2", "outlet/1/energy", 1 },
	{ "p2", "inlet/I1/energy", 1 },
	{ "n1/bmc", "wall/energy", 1 },
	{ "n1/bmc", "gpu/0/energy", 1 },
	{ "n1/dcgm", "gpu/0/energy", 2 },
	{ "n2/bmc", "wall/energy", 1 },
	{ "n3/bmc", "wall/energy", 1 },		/* no outlets */
	{ "n9/bmc", "wall/energy", 1 },		/* no such node */
	{ "m1", "energy", 1 },
	{ "m2", "energy", 1 },
	{ "x", "energy", 1 },
};

static int
name_pair(const struct drift_view *v, void *arg)
{
	char *names = arg;
	size_t len = strlen(names);

	snprintf(names + len, 256 - len, "%s:%s:%.4g ",
	    drift_kind_name(v->kind), v->name, v->t->last);
	return 0;
}

static size_t
held_after_polls(const struct wp_conf *c, char names[256])
{
	const size_t n = sizeof(in) / sizeof(in[0]);
	struct drift_watch *w;
	size_t k, r, held;

	assert_non_null(w = drift_watch_new(c));
	for (r = 0; r < 30; r++)
		for (k = 0; k < n; k++) {
			size_t i = r % 2 ? n - 1 - k : k;
			double t = 1e6 + 7 * r;

			poll1(w, in[i].tg, in[i].series, t,
			    1000 * in[i].kw * t, 1, r == 0);
		}
	held = drift_watch_held(w);
	names[0] = '\0';
	drift_watch_each(w, name_pair, names);
	drift_watch_free(w);
	return held;
}

/* Only series of a pair keep state, found from their target's facts: a
 * PDU's claimed outlets (by their text: "1" is neither "10" nor "100", "A"
 * is not "A3") and its inlets where it has claimed outlets or an IT meter
 * is configured, a node's wall (it has outlets) and GPUs, the IT meter's
 * energy; not an unclaimed outlet, a phase, an unknown node or target,
 * another meter.  A poll in another order finds the same records, and
 * each pair's ratio (side b over side a) says which series are on which
 * side: n1's outlets 10 and A3 against its wall, 2; n2's outlet 1, 1; the
 * BMC's GPU (1 kW) against dcgm's (2 kW), 0.5; p1's inlet against its
 * three claimed outlets, 1/3; the IT meter against the two inlets, 1/2. */
static void
test_only_pair_members_held(void **state)
{
	struct wp_outlet_ref o1[] = { { .pdu = "p1", .outlet = "10" },
	    { .pdu = "p1", .outlet = "A3" } };
	struct wp_outlet_ref o2[] = { { .pdu = "p1", .outlet = "1" } };
	struct wp_node nd[] = {
		{ .name = "n1", .outlets = o1, .n_outlets = 2 },
		{ .name = "n2", .outlets = o2, .n_outlets = 1 },
		{ .name = "n3" },
	};
	struct wp_pdu pdu[] = { { .name = "p1" }, { .name = "p2" } };
	struct wp_meter m[] = { { .name = "m2", .role = "facility_total" },
	    { .name = "m1", .role = "it_total" } };
	struct wp_conf c;
	char names[256];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.nodes = nd;
	c.n_nodes = 3;
	c.pdus = pdu;
	c.n_pdus = 2;
	c.meters = m;
	c.n_meters = 2;
	drift_settings_default(&c.drift);
	for (int k = 0; k < DK_N; k++)
		c.drift.window[k] = 60 * WP_SEC;
	/* p1: outlets 1, 10, A3 and the inlet; p2: the inlet (against the
	 * IT meter); n1: wall and GPU 0 at the BMC and at dcgm; n2: wall;
	 * m1 */
	assert_int_equal(held_after_polls(&c, names), 10);
	assert_string_equal(names, "wall_outlet:n1:2 wall_outlet:n2:1 "
	    "gpu_bmc:n1:0.5 pdu_inlet:p1:0.3333 it_inlets:m1:0.5 ");
	/* no IT meter: p2's inlet has no pair, m1 is not one */
	c.n_meters = 1;
	assert_int_equal(held_after_polls(&c, names), 8);
	assert_string_equal(names, "wall_outlet:n1:2 wall_outlet:n2:1 "
	    "gpu_bmc:n1:0.5 pdu_inlet:p1:0.3333 ");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dead_outlet_flagged_once),
		cmocka_unit_test(test_only_pair_members_held),
	};

	log_init(LOG_LVL_ERROR, 0, "test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
