/* Unit tests: collector/lib/bgsync.c (fdatasync on a thread of its own). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/lib/bgsync.h"

/* A file's sync succeeds; the caller's descriptor may be closed while it
 * runs (the sync has its own); nothing is left to collect. */
static void
test_file(void **state)
{
	struct bgsync *s = bgsync_new();
	char path[] = "/tmp/wp-bgsync-XXXXXX";
	int fd = mkstemp(path), e;

	(void)state;
	assert_non_null(s);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_false(bgsync_finished(s, &e));
	assert_int_equal(bgsync_start(s, fd), 1);
	close(fd);
	assert_true(bgsync_wait(s, &e));
	assert_int_equal(e, 0);
	assert_false(bgsync_busy(s));
	assert_false(bgsync_finished(s, &e));
	bgsync_free(s);
}

/* A sync that fails (a pipe cannot be synced: EINVAL) is told once, to
 * the next look; a later one's outcome is its own. */
static void
test_outcome_told_once(void **state)
{
	struct bgsync *s = bgsync_new();
	char path[] = "/tmp/wp-bgsync-XXXXXX";
	int p[2], fd = mkstemp(path), e;

	(void)state;
	assert_non_null(s);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(bgsync_start(s, p[1]), 1);
	assert_true(bgsync_wait(s, &e));
	assert_int_equal(e, EINVAL);
	assert_false(bgsync_wait(s, &e));
	assert_int_equal(e, 0);
	assert_int_equal(bgsync_start(s, p[1]), 1);
	while (bgsync_busy(s))
		usleep(1000);
	/* not started over an outcome not yet looked at (a failure lost) */
	assert_int_equal(bgsync_start(s, fd), 0);
	assert_true(bgsync_finished(s, &e));
	assert_int_equal(e, EINVAL);
	assert_false(bgsync_finished(s, &e));
	assert_int_equal(bgsync_start(s, fd), 1);
	assert_true(bgsync_wait(s, &e));
	assert_int_equal(e, 0);
	close(fd);
	close(p[0]);
	close(p[1]);
	bgsync_free(s);
}

/* A bad descriptor: nothing started (not even the thread), errno says
 * why; freeing such an object, and NULL, is fine. */
static void
test_bad_fd(void **state)
{
	struct bgsync *s = bgsync_new();
	int e;

	(void)state;
	assert_non_null(s);
	errno = 0;
	assert_int_equal(bgsync_start(s, -1), -1);
	assert_int_equal(errno, EBADF);
	assert_false(bgsync_busy(s));
	assert_false(bgsync_wait(s, &e));
	bgsync_free(s);
	bgsync_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_outcome_told_once),
		cmocka_unit_test(test_bad_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
