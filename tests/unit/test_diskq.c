/*
 * Unit tests: collector/lib/diskq.c - the remote-write queue on disk:
 * first in first out, a batch leaves only by pop, the bound drops the
 * oldest (never the one being sent) and counts its items, sequence numbers
 * and batches survive a reopen, and what is not a whole batch is removed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../collector/lib/diskq.h"

static char dir[64];

static int
setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/wp-diskq-XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **st)
{
	char cmd[128];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
push(struct diskq *q, const char *s, uint64_t items, uint64_t *dropped)
{
	struct wp_err err;

	assert_int_equal(diskq_push(q, s, strlen(s), items, dropped, &err), 0);
}

/* Peeks the oldest batch: its text must be s; returns its sequence. */
static uint64_t
peek_is(struct diskq *q, const char *s)
{
	uint8_t *d;
	size_t len;
	uint64_t seq, items, dropped = 0;
	struct wp_err err;

	assert_int_equal(diskq_peek(q, &d, &len, &seq, &items, &dropped, &err), 0);
	assert_int_equal(len, strlen(s));
	assert_memory_equal(d, s, len);
	free(d);
	return seq;
}

static void
test_fifo_and_reopen(void **st)
{
	struct diskq *q;
	struct wp_err err;
	uint64_t dropped = 0, seq;
	uint8_t *d;
	size_t len;
	uint64_t s2, it;

	(void)st;
	assert_non_null(q = diskq_open(dir, 1 << 20, &err));
	assert_int_equal(diskq_peek(q, &d, &len, &seq, &it, &dropped, &err), 1);
	push(q, "one", 1, &dropped);
	push(q, "two", 2, &dropped);
	push(q, "three", 3, &dropped);
	assert_int_equal(diskq_len(q), 3);
	assert_int_equal(diskq_items(q), 6);
	seq = peek_is(q, "one");
	assert_int_equal(seq, 1);
	/* a failed send: unmarked, it stays first */
	diskq_unmark(q);
	assert_int_equal(peek_is(q, "one"), 1);
	assert_int_equal(diskq_pop(q, 2), -1);	/* not the oldest */
	assert_int_equal(diskq_pop(q, 1), 0);
	assert_int_equal(diskq_pop(q, 1), -1);
	diskq_close(q);
	/* reopened: the two left, in order, and the sequence goes on */
	assert_non_null(q = diskq_open(dir, 1 << 20, &err));
	assert_int_equal(diskq_len(q), 2);
	assert_int_equal(diskq_items(q), 5);
	assert_int_equal(diskq_next_seq(q), 4);
	s2 = peek_is(q, "two");
	assert_int_equal(s2, 2);
	assert_int_equal(diskq_pop(q, s2), 0);
	assert_int_equal(peek_is(q, "three"), 3);
	assert_int_equal(diskq_pop(q, 3), 0);
	assert_int_equal(diskq_len(q), 0);
	assert_int_equal(diskq_bytes(q), 0);
	push(q, "four", 4, &dropped);
	assert_int_equal(peek_is(q, "four"), 4);
	assert_int_equal(dropped, 0);
	diskq_close(q);
}

static void
test_bound_drops_oldest_not_busy(void **st)
{
	struct diskq *q;
	struct wp_err err;
	uint64_t dropped = 0;
	char big[100];

	(void)st;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* 24 bytes of header + 99: three batches fit in 400 bytes */
	assert_non_null(q = diskq_open(dir, 400, &err));
	big[0] = 'a';
	push(q, big, 10, &dropped);
	assert_int_equal(peek_is(q, big), 1);	/* "a" is being sent */
	big[0] = 'b';
	push(q, big, 20, &dropped);
	big[0] = 'c';
	push(q, big, 30, &dropped);
	assert_int_equal(dropped, 0);
	big[0] = 'd';
	push(q, big, 40, &dropped);
	/* over the bound: "b" goes (the oldest not being sent) */
	assert_int_equal(dropped, 20);
	assert_int_equal(diskq_len(q), 3);
	assert_true(diskq_bytes(q) <= 400);
	assert_int_equal(diskq_pop(q, 1), 0);
	big[0] = 'c';
	assert_int_equal(peek_is(q, big), 3);
	/* a batch over the bound alone is refused */
	{
		char *huge = calloc(1, 500);

		memset(huge, 'h', 499);
		assert_int_equal(diskq_push(q, huge, 499, 1, &dropped, &err), -1);
		free(huge);
	}
	diskq_close(q);
}

static void
test_leftovers_removed(void **st)
{
	char path[128];
	struct diskq *q;
	struct wp_err err;
	uint64_t dropped = 0;
	FILE *f;

	(void)st;
	snprintf(path, sizeof(path), "%s/tmp.00000000000000000009", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/00000000000000000007.rwb", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("WPRWQ1\n", f);	/* a torn header */
	fclose(f);
	snprintf(path, sizeof(path), "%s/README", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_non_null(q = diskq_open(dir, 1 << 20, &err));
	assert_int_equal(diskq_len(q), 0);
	assert_int_equal(access(path, F_OK), 0);	/* not ours: kept */
	snprintf(path, sizeof(path), "%s/00000000000000000007.rwb", dir);
	assert_int_equal(access(path, F_OK), -1);
	push(q, "x", 1, &dropped);
	assert_int_equal(peek_is(q, "x"), 1);
	diskq_close(q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo_and_reopen, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bound_drops_oldest_not_busy,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_leftovers_removed, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
