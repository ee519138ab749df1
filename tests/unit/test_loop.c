/* Unit tests: collector/loop.c and workers.c - timers, fds, the pool. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/lib/loop.h"
#include "../../collector/lib/workers.h"

struct order {
	int	 seen[16];
	int	 n;
	struct loop *l;
	int	 stop_after;
};

struct targ {
	struct order	*o;
	int		 id;
};

static void
on_timer(void *arg)
{
	struct targ *a = arg;

	a->o->seen[a->o->n++] = a->id;
	if (a->o->n == a->o->stop_after)
		loop_stop(a->o->l);
}

static void
test_timers_fire_in_due_order(void **st)
{
	struct order o = { .stop_after = 4 };
	struct loop_timer *t[5];
	struct targ a[5];
	wp_time now = clock_mono();
	int due_ms[5] = { 40, 10, 30, 20, 5 }, i;

	(void)st;
	o.l = loop_new(NULL);
	for (i = 0; i < 5; i++) {
		a[i] = (struct targ){ &o, i };
		t[i] = loop_timer_new(o.l, on_timer, &a[i]);
		loop_timer_arm(t[i], now + due_ms[i] * WP_MS);
	}
	loop_timer_disarm(t[4]);		/* never fires */
	loop_timer_arm(t[0], now + 1 * WP_MS);	/* re-armed earlier */
	assert_int_equal(loop_run(o.l), 0);
	assert_int_equal(o.n, 4);
	assert_int_equal(o.seen[0], 0);
	assert_int_equal(o.seen[1], 1);
	assert_int_equal(o.seen[2], 3);
	assert_int_equal(o.seen[3], 2);
	for (i = 0; i < 5; i++)
		loop_timer_free(t[i]);
	loop_free(o.l);
}

static void
on_read(int fd, int events, void *arg)
{
	struct order *o = arg;
	char c;

	assert_true(events & LOOP_READ);
	assert_int_equal(read(fd, &c, 1), 1);
	o->seen[o->n++] = c;
	loop_stop(o->l);
}

static void
test_fd_readable_dispatches(void **st)
{
	struct order o = { 0 };
	int p[2];

	(void)st;
	assert_int_equal(pipe(p), 0);
	o.l = loop_new(NULL);
	assert_int_equal(loop_add_fd(o.l, p[0], LOOP_READ, on_read, &o), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	loop_run(o.l);
	assert_int_equal(o.seen[0], 'x');
	loop_del_fd(o.l, p[0]);
	close(p[0]);
	close(p[1]);
	loop_free(o.l);
}

/* --- workers --- */

struct wjob {
	int		*shared;	/* only touched under the key */
	int		 overlap;
	int		 ran, done;
	struct order	*o;
	int		*left;
};

static void
wrun(void *p)
{
	struct wjob *j = p;
	int v = ++*j->shared;

	usleep(2000);
	if (*j->shared != v)
		j->overlap = 1;
	j->ran = 1;
}

static void
wdone(void *p)
{
	struct wjob *j = p;

	j->done = 1;
	if (--*j->left == 0)
		loop_stop(j->o->l);
}

static void
test_workers_serialise_same_key(void **st)
{
	struct order o = { 0 };
	struct workers *w;
	struct wjob j[12];
	int shared = 0, left = 12, i;

	(void)st;
	o.l = loop_new(NULL);
	w = workers_new(o.l, 4, NULL);
	assert_non_null(w);
	for (i = 0; i < 12; i++) {
		j[i] = (struct wjob){ .shared = &shared, .o = &o, .left = &left };
		assert_int_equal(workers_submit(w, "gw-1:502", wrun, wdone,
		    &j[i], NULL), 0);
	}
	loop_run(o.l);
	for (i = 0; i < 12; i++) {
		assert_true(j[i].ran && j[i].done);
		assert_false(j[i].overlap);
	}
	assert_int_equal(shared, 12);
	workers_free(w);
	loop_free(o.l);
}

static void
test_workers_free_hands_back_unrun_jobs(void **st)
{
	struct order o = { 0 };
	struct workers *w;
	struct wjob j[8];
	int shared = 0, left = 100, i;

	(void)st;
	o.l = loop_new(NULL);
	w = workers_new(o.l, 1, NULL);
	for (i = 0; i < 8; i++) {
		j[i] = (struct wjob){ .shared = &shared, .o = &o, .left = &left };
		workers_submit(w, "k", wrun, wdone, &j[i], NULL);
	}
	workers_free(w);	/* every job's done runs, run or not */
	for (i = 0; i < 8; i++)
		assert_true(j[i].done);
	loop_free(o.l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_fire_in_due_order),
		cmocka_unit_test(test_fd_readable_dispatches),
		cmocka_unit_test(test_workers_serialise_same_key),
		cmocka_unit_test(test_workers_free_hands_back_unrun_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
