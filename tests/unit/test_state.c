/* Unit tests: collector/state.c - table, atomic snapshot, journal replay
 * after a crash (cum continues exactly, nothing counted twice). */
#include <sys/stat.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/store/journal.h"
#include "../../collector/state.h"

#define T0	(1764410400LL * WP_SEC)
#define STEP	(10 * WP_SEC)

struct fx {
	char	 dir[256];
	char	 jdir[300];
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/wp-state.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->jdir, sizeof(f->jdir), "%s/journal", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(f);
	return 0;
}

/*
 * The device readings of step i: energy in J (with a reset at 25, a dip
 * that recovers at 31..32, jitter at 40), and a token counter.
 */
static double
energy_at(int i)
{
	if (i < 25)
		return 1e6 + 4000.0 * i;
	if (i == 31 || i == 32)
		return 10.0;		/* a held dip: bogus low read */
	if (i == 40)
		return 4000.0 * (i - 26) - 1e-5;	/* a hair below: jitter */
	return 4000.0 * (i - 25);
}

/* What the collector does each poll: counters, then the journal. */
static void
poll_once(struct state *s, struct journal *j, int i)
{
	static const char *series[2] = { "wall/energy", "tokens/output" };
	struct journal_value v[2];
	struct journal_record r;
	struct wp_err err;
	wp_time t = T0 + i * STEP;
	int k;

	memset(v, 0, sizeof(v));
	for (k = 0; k < 2; k++) {
		struct wp_counter *c = state_counter(s, "gpu-001/bmc",
		    series[k], k == 0);
		struct counter_in in = { .t = t };
		struct counter_out out;

		sample_init(&v[k].s, series[k], k ? WP_B_NONE : WP_B_WALL,
		    k ? WP_Q_TOKENS : WP_Q_ENERGY, WP_COUNTER);
		v[k].s.value = k ? 100.0 * i * i : energy_at(i);
		v[k].s.t_real = t;
		v[k].s.reset_time = k == 0 && i >= 25 ? T0 + 245 * WP_SEC :
		    (k == 0 ? T0 - 86400 * WP_SEC : 0);
		in.value = v[k].s.value;
		in.reset_time = v[k].s.reset_time;
		counter_update(c, &in, &out);
		v[k].delta = out.delta;
		v[k].cum = out.cum;
		v[k].ctr_flags = out.flags;
	}
	r = (struct journal_record){ .t_real = t, .t_mono = t - T0,
	    .target = "gpu-001/bmc", .error = "", .n = 2, .v = v };
	if (journal_append(j, &r, &err) != 0)
		fail_msg("append: %s", err.msg);
	state_set_stamp(s, t);
}

static void
assert_same_counter(const struct wp_counter *a, const struct wp_counter *b)
{
	assert_int_equal(a->valid, b->valid);
	assert_true(a->last == b->last);
	assert_true(a->cum == b->cum);
	assert_int_equal(a->last_t, b->last_t);
	assert_int_equal(a->reset_time, b->reset_time);
	assert_int_equal(a->resets, b->resets);
	assert_int_equal(a->held, b->held);
	assert_int_equal(a->hold_dips, b->hold_dips);
}

static void
run_crash(struct fx *f, int save_at, int crash_at, double want_cum)
{
	struct state *live, *back;
	struct journal *j;
	struct wp_err err;
	const struct journal_opts o = { .segment_len = 60 * WP_SEC };
	int i, k;

	live = state_new();
	j = journal_open(f->jdir, &o, &err);
	assert_non_null(j);
	for (i = 0; i < crash_at; i++) {
		poll_once(live, j, i);
		if (i == save_at)
			assert_int_equal(state_save(live, f->dir, &err), 0);
	}
	journal_close(j);		/* SIGKILL: no save after save_at */

	back = state_new();
	if (state_load(back, f->dir, &err) != 0)
		fail_msg("state_load: %s", err.msg);
	assert_int_equal(state_count(back), 2);
	assert_int_equal(state_stamp(back), T0 + (crash_at - 1) * STEP);
	for (k = 0; k < 2; k++) {
		const char *se = k ? "tokens/output" : "wall/energy";

		assert_same_counter(state_counter(back, "gpu-001/bmc", se,
		    k == 0), state_counter(live, "gpu-001/bmc", se, k == 0));
	}
	/* continue both after a gap of 5 polls: identical from here on */
	j = journal_open(f->jdir, &o, &err);
	assert_non_null(j);
	for (i = crash_at + 5; i < 50; i++) {
		poll_once(live, j, i);
		poll_once(back, j, i);
	}
	journal_close(j);
	for (k = 0; k < 2; k++) {
		const char *se = k ? "tokens/output" : "wall/energy";
		struct wp_counter *a = state_counter(back, "gpu-001/bmc", se,
		    k == 0);
		struct wp_counter *b = state_counter(live, "gpu-001/bmc", se,
		    k == 0);

		assert_same_counter(a, b);
	}
	/* energy cum is exact (what a reset inside the gap loses is lost) */
	assert_true(state_counter(live, "gpu-001/bmc", "wall/energy",
	    true)->cum == want_cum);
	state_free(live);
	state_free(back);
}

static void
test_crash_after_snapshot_replays_journal(void **state)
{
	/* gap 22..26 spans the device reset at 25: 21 steps, then 27's
	 * value since the reset (8000), then 22 steps */
	run_crash(*state, 10, 22, 4000.0 * 21 + 8000 + 4000.0 * 22);
}

static void
test_crash_inside_reset_and_dip(void **state)
{
	/* crash while a dip is held (i = 31, 32 held) */
	run_crash(*state, 20, 32, 4000.0 * 24 + 4000.0 * 24);
}

static void
test_no_snapshot_replays_everything(void **state)
{
	run_crash(*state, -1, 37, 4000.0 * 24 + 4000.0 * 24);
}

static void
test_snapshot_roundtrip_exact(void **state)
{
	struct fx *f = *state;
	struct state *a = state_new(), *b = state_new();
	struct wp_counter *c;
	struct wp_err err;
	char name[64];
	int i;

	for (i = 0; i < 500; i++) {	/* forces the table to grow */
		snprintf(name, sizeof(name), "outlet/%d/energy", i);
		c = state_counter(a, i % 2 ? "pdu r1 %a" : "pdu-r1-a", name,
		    i % 3 == 0);
		c->valid = true;
		c->last = 1.0 / (i + 3);
		c->cum = 1e12 / 7 + i;
		c->last_t = T0 + i;
		c->reset_time = i;
		c->resets = (uint32_t)i;
		c->held = (uint32_t)(i % 4);
	}
	state_set_stamp(a, T0 + 12345);
	assert_int_equal(state_save(a, f->dir, &err), 0);
	assert_int_equal(state_load(b, f->dir, &err), 0);
	assert_int_equal(state_count(b), 500);
	assert_int_equal(state_stamp(b), T0 + 12345);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "outlet/%d/energy", i);
		assert_same_counter(state_counter(b, i % 2 ? "pdu r1 %a" :
		    "pdu-r1-a", name, i % 3 == 0), state_counter(a, i % 2 ?
		    "pdu r1 %a" : "pdu-r1-a", name, i % 3 == 0));
	}
	assert_int_equal(state_count(b), 500);
	{
		char p[400];
		struct stat sb;

		snprintf(p, sizeof(p), "%s/state/counters.tmp", f->dir);
		assert_int_not_equal(stat(p, &sb), 0);	/* no temp left */
	}
	state_free(a);
	state_free(b);
}

static void
test_bad_snapshot_is_an_error(void **state)
{
	struct fx *f = *state;
	struct state *a = state_new(), *b;
	struct wp_err err;
	char p[400];
	struct stat sb;

	state_counter(a, "m", "energy", false)->valid = true;
	state_counter(a, "n", "energy", false)->valid = true;
	assert_int_equal(state_save(a, f->dir, &err), 0);
	snprintf(p, sizeof(p), "%s/state/counters", f->dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(truncate(p, sb.st_size - 8), 0);	/* no "end" */
	b = state_new();
	assert_int_equal(state_load(b, f->dir, &err), -1);
	assert_int_equal(err.class, WP_E_CONFIG);
	state_free(b);
	/* garbage */
	{
		FILE *fp = fopen(p, "w");

		fputs("wattpath-counters 1\nstamp x\n", fp);
		fclose(fp);
	}
	b = state_new();
	assert_int_equal(state_load(b, f->dir, &err), -1);
	state_free(b);
	/* absent is fine */
	unlink(p);
	b = state_new();
	assert_int_equal(state_load(b, f->dir, &err), 0);
	assert_int_equal(state_count(b), 0);
	state_free(b);
	/* an unwritable data_dir is an error */
	assert_int_equal(state_save(a, "/proc/wp-nope", &err), -1);
	state_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_crash_after_snapshot_replays_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_inside_reset_and_dip,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_no_snapshot_replays_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_roundtrip_exact,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_snapshot_is_an_error,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
