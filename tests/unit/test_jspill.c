/* test_jspill.c - a writer summary's closed spans in a file (jspill.h). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/store/jspill.h"
#include "../../collector/store/jsum.h"

/* A span no other (series, k) gives: every word of it tells both. */
static void
span_of(struct jsum_span *sp, uint32_t series, uint32_t k)
{
	memset(sp, 0, sizeof(*sp));
	sp->t0 = (wp_time)series * 1000000 + k;
	sp->t1 = sp->t0 + 7;
	sp->val0 = series + k / 8.0;
	sp->val1 = -sp->val0;
	sp->cum0 = 1e15 + series;
	sp->cum1 = sp->cum0 + k;
	sp->cf0 = series;
	sp->cf1 = k;
	sp->n = k + 1;
	sp->flags = series ^ k;
	sp->energy = series * 3.25 + k;
	sp->dsum = k * 0.5;
	sp->max_gap = k;
	sp->vmin = -1.0 * series;
	sp->vmax = 1.0 * k;
	sp->vsum = series + k;
}

static struct jspill *
spill_new(void)
{
	int fd = jspill_tmpfile("/tmp");

	assert_true(fd >= 0);
	return jspill_new(fd);
}

/*
 * Interleaved series (as a writer closes them: a slot at a time), each a
 * chain read back whole and in order: from the block being filled, from
 * the file through the cache, with more slots than the cache has units (a
 * chain's records in more units than it holds: evictions within a chain),
 * and while appending goes on.
 */
static void
test_chains_read_back(void **st)
{
	enum { SERIES = 300, SLOTS = 40 };
	static uint32_t last[SERIES];
	const struct jsum_span *out;
	struct jsum_span want;
	struct jspill *p;
	uint32_t s, k, j;

	(void)st;
	assert_non_null(p = spill_new());
	memset(last, 0, sizeof(last));
	for (k = 0; k < SLOTS; k++) {
		for (s = 0; s < SERIES; s++) {
			span_of(&want, s, k);
			assert_int_equal(jspill_put(p, &want, last[s],
			    &last[s]), 0);
			assert_true(last[s] > 0);
		}
		/* mid-way, a series read back while appending goes on */
		assert_int_equal(jspill_chain(p, last[7], k + 1, &out), 0);
		for (j = 0; j <= k; j++) {
			span_of(&want, 7, j);
			assert_memory_equal(&out[j], &want, sizeof(want));
		}
	}
	for (s = 0; s < SERIES; s++) {	/* as a summary's writing reads */
		assert_int_equal(jspill_chain(p, last[s], SLOTS, &out), 0);
		for (j = 0; j < SLOTS; j++) {
			span_of(&want, s, j);
			assert_memory_equal(&out[j], &want, sizeof(want));
		}
	}
	for (s = SERIES; s-- > 0;) {	/* and backwards */
		assert_int_equal(jspill_chain(p, last[s], SLOTS, &out), 0);
		span_of(&want, s, SLOTS - 1);
		assert_memory_equal(&out[SLOTS - 1], &want, sizeof(want));
	}
	assert_int_equal(jspill_chain(p, 0, 0, &out), 0);	/* none */
	jspill_free(p);
}

/* A chain asked for with the wrong length, or a reference that is not
 * one, is EIO, not spans of another series. */
static void
test_bad_chain(void **st)
{
	const struct jsum_span *out;
	struct jsum_span sp;
	struct jspill *p;
	uint32_t a = 0, b = 0;

	(void)st;
	assert_non_null(p = spill_new());
	span_of(&sp, 1, 0);
	assert_int_equal(jspill_put(p, &sp, 0, &a), 0);
	assert_int_equal(jspill_put(p, &sp, a, &a), 0);
	assert_int_equal(jspill_put(p, &sp, 0, &b), 0);
	errno = 0;
	assert_int_equal(jspill_chain(p, a, 3, &out), -1);	/* too long */
	assert_int_equal(errno, EIO);
	errno = 0;
	assert_int_equal(jspill_chain(p, a, 1, &out), -1);	/* too short */
	assert_int_equal(errno, EIO);
	errno = 0;
	assert_int_equal(jspill_chain(p, b + 1, 1, &out), -1);	/* none */
	assert_int_equal(errno, EIO);
	assert_int_equal(jspill_chain(p, a, 2, &out), 0);
	jspill_free(p);
}

/* The file size limit before test_write_fails, put back after it. */
static struct rlimit fsize_was;

static int
teardown_fsize(void **st)
{
	(void)st;
	(void)setrlimit(RLIMIT_FSIZE, &fsize_was);
	(void)signal(SIGXFSZ, SIG_DFL);
	return 0;
}

/* Blocks that cannot be written (a file size limit, then a full disk):
 * kept in memory, every chain whole across those on disk and those not,
 * and the error told. */
static void
test_write_fails(void **st)
{
	enum { SERIES = 50, SLOTS = 20 };	/* 1,000 records: 7 blocks */
	const struct jsum_span *out;
	struct jsum_span want;
	struct rlimit old, lim;
	uint32_t last[SERIES] = { 0 }, s, k;
	struct jspill *p;
	int fd;

	(void)st;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	fsize_was = old;
	lim = old;
	/* two blocks and a half: the third written in part, then kept */
	lim.rlim_cur = 5 * 136 * (sizeof(struct jsum_span) + 8) / 2;
	assert_true(signal(SIGXFSZ, SIG_IGN) != SIG_ERR);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_non_null(p = spill_new());
	for (k = 0; k < SLOTS; k++)
		for (s = 0; s < SERIES; s++) {
			span_of(&want, s, k);
			assert_int_equal(jspill_put(p, &want, last[s],
			    &last[s]), 0);
		}
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(jspill_failed(p), EFBIG);
	for (s = 0; s < SERIES; s++) {
		assert_int_equal(jspill_chain(p, last[s], SLOTS, &out), 0);
		for (k = 0; k < SLOTS; k++) {
			span_of(&want, s, k);
			assert_memory_equal(&out[k], &want, sizeof(want));
		}
	}
	jspill_free(p);

	assert_true((fd = open("/dev/full", O_RDWR | O_CLOEXEC)) >= 0);
	assert_non_null(p = jspill_new(fd));
	memset(last, 0, sizeof(last));
	for (k = 0; k < SLOTS; k++)
		for (s = 0; s < SERIES; s++) {
			span_of(&want, s, k);
			assert_int_equal(jspill_put(p, &want, last[s],
			    &last[s]), 0);
		}
	assert_int_equal(jspill_failed(p), ENOSPC);
	assert_int_equal(jspill_chain(p, last[9], SLOTS, &out), 0);
	span_of(&want, 9, SLOTS - 1);
	assert_memory_equal(&out[SLOTS - 1], &want, sizeof(want));
	jspill_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chains_read_back),
		cmocka_unit_test(test_bad_chain),
		cmocka_unit_test_teardown(test_write_fails, teardown_fsize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
