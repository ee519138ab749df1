/*
 * Unit tests: collector/lib/lowfd.c - a slot is below FD_SETSIZE and on
 * /dev/null; a descriptor above the limit moved onto it is the same open
 * file there (and the high one is closed); release puts /dev/null back
 * (the socket's peer sees it closed); no slot when every low descriptor
 * is taken; a failed move leaves the descriptor open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../collector/lib/lowfd.h"

#define FILL	(FD_SETSIZE + 16)

static int fill[FILL];
static int nfill;

/* Takes every descriptor below FD_SETSIZE, and some above. */
static int
take_low(void)
{
	while (nfill < FILL) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return -1;
		fill[nfill++] = fd;
		if (fd >= FD_SETSIZE + 4)
			break;
	}
	return 0;
}

static void
give_back(void)
{
	while (nfill > 0)
		close(fill[--nfill]);
}

static int
is_null(int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat("/dev/null", &b) == 0 &&
	    S_ISCHR(a.st_mode) && a.st_rdev == b.st_rdev;
}

static void
test_move_and_release(void **st)
{
	int slot, sv[2], high;
	char c = 'x';

	(void)st;
	slot = lowfd_reserve();
	assert_true(slot >= 0 && slot < FD_SETSIZE);
	assert_true(is_null(slot));
	assert_true(fcntl(slot, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	high = fcntl(sv[0], F_DUPFD_CLOEXEC, FD_SETSIZE);
	assert_true(high >= FD_SETSIZE);
	close(sv[0]);
	assert_int_equal(take_low(), 0);
	/* a slot taken while none is low: refused */
	errno = 0;
	assert_int_equal(lowfd_reserve(), -1);
	assert_int_equal(errno, EMFILE);

	assert_int_equal(lowfd_move(high, slot), slot);
	assert_int_equal(fcntl(high, F_GETFD), -1);	/* closed */
	assert_true(fcntl(slot, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(write(slot, &c, 1), 1);
	assert_int_equal(read(sv[1], &c, 1), 1);
	assert_int_equal(c, 'x');

	assert_int_equal(lowfd_release(slot), 0);
	assert_true(is_null(slot));
	assert_int_equal(read(sv[1], &c, 1), 0);	/* the peer sees EOF */
	close(sv[1]);
	close(slot);
	give_back();
}

static void
test_failed_move_keeps_fd(void **st)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)st;
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(lowfd_move(fd, -1), -1);
	assert_int_equal(errno, EMFILE);
	assert_true(fcntl(fd, F_GETFD) != -1);	/* still the caller's */
	assert_int_equal(lowfd_release(-1), -1);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_move_and_release),
		cmocka_unit_test(test_failed_move_keeps_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
