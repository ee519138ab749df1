/*
 * Unit tests: collector/store/journal.c read while it is written (a report
 * on a worker thread scans the journal the loop appends to): a scan
 * between appends sees every record appended so far, in order; the open
 * segment's last record half written ends the scan there; a segment just
 * created whose header is not written yet is empty, not an error (only as
 * the newest segment: an older one without a header is still refused).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/store/journal.h"
#include "../../collector/store/jsum.h"

#define T0	(1764410400LL * WP_SEC)		/* 2025-11-29T10:00:00Z */

static const struct journal_opts opts60 = { .segment_len = 60 * WP_SEC,
    .fsync = JOURNAL_FSYNC_NONE };

struct fx {
	char	 dir[256];
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/wp-jtail.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
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

/* Appends record i (a wall counter) at t. */
static void
append(struct journal *j, int i, wp_time t)
{
	struct journal_value v;
	struct journal_record r = { .t_real = t, .t_mono = t, .target = "n/bmc",
	    .error = "", .n = 1, .v = &v };
	struct wp_err err;

	memset(&v, 0, sizeof(v));
	sample_init(&v.s, "wall/energy", WP_B_WALL, WP_Q_ENERGY, WP_COUNTER);
	v.s.value = 1000.0 * i;
	v.cum = 1000.0 * i;
	if (journal_append(j, &r, &err) != 0)
		fail_msg("append %d: %s", i, err.msg);
}

struct count {
	int	 n;
	wp_time	 last;
	int	 bad;
};

static int
count_cb(const struct journal_record *r, void *arg)
{
	struct count *c = arg;

	if (c->n > 0 && r->t_real <= c->last)
		c->bad++;
	c->last = r->t_real;
	c->n++;
	return 0;
}

/* Records as a report sees them: summaries offered, none taken. */
static int
no_sum(const struct jsum *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

static int
scan(const char *dir, struct count *c, struct wp_err *err)
{
	struct journal_scan_stats st;

	memset(c, 0, sizeof(*c));
	return journal_scan_sum(dir, 0, 0, count_cb, no_sum, c, &st, err);
}

/* The newest segment's file, by name (they sort by start). */
static void
newest(const char *dir, char *out, size_t len)
{
	char cmd[400];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep 'wpj$' | tail -n 1", dir);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(out, (int)len, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static void
test_scan_between_appends(void **state)
{
	struct fx *f = *state;
	struct journal *j;
	struct wp_err err;
	struct count c;
	int i;

	assert_non_null(j = journal_open(f->dir, &opts60, &err));
	for (i = 0; i < 40; i++) {	/* 10 s apart: a new segment every 6 */
		append(j, i, T0 + (wp_time)i * 10 * WP_SEC);
		assert_int_equal(scan(f->dir, &c, &err), 0);
		assert_int_equal(c.n, i + 1);
		assert_int_equal(c.bad, 0);
	}
	journal_close(j);
}

static void
test_half_written_record_ends_scan(void **state)
{
	struct fx *f = *state;
	struct journal *j;
	struct wp_err err;
	struct count c;
	char name[128], p[512];
	struct stat sb;
	int i;

	assert_non_null(j = journal_open(f->dir, &opts60, &err));
	for (i = 0; i < 9; i++)		/* segment 2 open, 3 records in */
		append(j, i, T0 + (wp_time)i * 10 * WP_SEC);
	newest(f->dir, name, sizeof(name));
	snprintf(p, sizeof(p), "%s/%s", f->dir, name);
	assert_int_equal(stat(p, &sb), 0);
	/* cut the last record in its frame header, then in its body */
	assert_int_equal(truncate(p, sb.st_size - 1), 0);
	assert_int_equal(scan(f->dir, &c, &err), 0);
	assert_int_equal(c.n, 8);
	assert_int_equal(truncate(p, sb.st_size - 40), 0);
	assert_int_equal(scan(f->dir, &c, &err), 0);
	assert_int_equal(c.n, 8);
	journal_close(j);
}

static void
test_segment_without_header_yet(void **state)
{
	struct fx *f = *state;
	struct journal *j;
	struct wp_err err;
	struct count c;
	char p[512], q[512];
	FILE *fp;

	assert_non_null(j = journal_open(f->dir, &opts60, &err));
	append(j, 0, T0);
	append(j, 1, T0 + 10 * WP_SEC);
	journal_close(j);
	/* the next segment created, its header not written: empty */
	snprintf(p, sizeof(p), "%s/20251129T100200.wpj", f->dir);
	assert_non_null(fp = fopen(p, "wb"));
	fclose(fp);
	assert_int_equal(scan(f->dir, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(journal_scan(f->dir, 0, 0, count_cb, &c, &err), 0);
	/* half its header: the same */
	assert_non_null(fp = fopen(p, "wb"));
	fwrite("WPJS\001\000\000", 1, 7, fp);
	fclose(fp);
	assert_int_equal(scan(f->dir, &c, &err), 0);
	assert_int_equal(c.n, 2);
	/* an older segment without a header is damage, not a write */
	snprintf(q, sizeof(q), "%s/20251129T100300.wpj", f->dir);
	assert_non_null(fp = fopen(q, "wb"));
	fclose(fp);
	assert_int_equal(scan(f->dir, &c, &err), -1);
	assert_non_null(strstr(err.msg, "20251129T100200.wpj"));
	assert_non_null(strstr(err.msg, "truncated header"));
	/* and a wrong header is never taken for one being written */
	assert_int_equal(unlink(q), 0);
	assert_non_null(fp = fopen(p, "wb"));
	fwrite("XXXX", 1, 4, fp);
	fclose(fp);
	assert_int_equal(scan(f->dir, &c, &err), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scan_between_appends,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_half_written_record_ends_scan, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_segment_without_header_yet, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
