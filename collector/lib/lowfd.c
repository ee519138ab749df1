/*
 * lowfd.c - low descriptors reserved on /dev/null (lowfd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/select.h>
#include <unistd.h>

#include "lowfd.h"

static int
placeholder(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int
lowfd_reserve(void)
{
	int fd = placeholder();

	if (fd >= FD_SETSIZE) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

int
lowfd_move(int fd, int slot)
{
	if (slot < 0) {
		errno = EMFILE;
		return -1;
	}
	if (dup3(fd, slot, O_CLOEXEC) == -1)
		return -1;
	close(fd);
	return slot;
}

int
lowfd_release(int slot)
{
	int z = placeholder(), e;

	if (z == -1)
		return -1;
	if (dup3(z, slot, O_CLOEXEC) == -1) {
		e = errno;
		close(z);
		errno = e;
		return -1;
	}
	close(z);
	return 0;
}
